//! Any string: reading a FEN never panics; a FEN that parses writes a FEN that reads back to
//! the same setup; validation agrees with the reference rules; a valid position writes a FEN
//! that reads back to the same position (placement, side, counters and key).
#![no_main]

use libfuzzer_sys::fuzz_target;
use xiangqi::{Fen, Position};

#[path = "../../crates/xiangqi/tests/common/mod.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    let s = String::from_utf8_lossy(data);
    let s: &str = &s;

    let parsed = s.parse::<Fen>();
    if let Ok(fen) = &parsed {
        let text = fen.to_string();
        let back: Fen = text.parse().unwrap_or_else(|e| {
            panic!("{s:?} was read, but its written form {text:?} is not: {e}")
        });
        assert_eq!(&back, fen, "{s:?} -> {text:?} reads back differently");
        assert_eq!(back.to_string(), text);
        if let Err(e) = common::checks::check_validation(&fen.0) {
            panic!("{s:?}: {e}");
        }
    }

    match Position::from_fen(s) {
        Ok(pos) => {
            assert!(parsed.is_ok());
            assert_eq!(pos.key(), pos.compute_key(), "{s:?}: key");
            let text = pos.fen();
            let back = Position::from_fen(&text)
                .unwrap_or_else(|e| panic!("{s:?} is valid but its FEN {text:?} is not: {e}"));
            assert_eq!(
                back, pos,
                "{s:?} -> {text:?} reads back as another position"
            );
            assert_eq!(back.fen(), text);
            assert_eq!(back.key(), pos.key());
        }
        Err(e) => {
            // The error must be printable (and say something).
            assert!(!e.to_string().is_empty());
        }
    }
});
