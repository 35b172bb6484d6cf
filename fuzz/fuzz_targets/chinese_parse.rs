//! Any string: reading Chinese notation never panics; what parses writes a form that parses to
//! the same value; reading it against a position gives a legal move or an error, and a move it
//! gives, written and read back, is the same move.
#![no_main]

use libfuzzer_sys::fuzz_target;
use xiangqi::notation::Chinese;

mod notation_common;

fuzz_target!(|data: &[u8]| {
    let Some((&sel, rest)) = data.split_first() else {
        return;
    };
    let s = String::from_utf8_lossy(rest);
    let Ok(parsed) = s.parse::<Chinese>() else {
        return;
    };
    let text = parsed.to_string();
    let again: Chinese = text
        .parse()
        .unwrap_or_else(|e| panic!("{s:?} parsed, but its written form {text:?} does not: {e}"));
    assert_eq!(again.to_string(), text);
    let pos = notation_common::position(sel);
    if let Ok(m) = parsed.to_move(&pos) {
        assert!(pos.is_legal(m), "{s:?} gave an illegal move {m}");
        let w = Chinese::from_move(&pos, m);
        assert_eq!(w.to_move(&pos), Ok(m), "{s:?} -> {m} -> {w}");
    }
});
