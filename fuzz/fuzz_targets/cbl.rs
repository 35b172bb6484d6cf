//! Any bytes: the CBL library reader (plain and `CCBridge` zlib-compressed) never panics; every
//! game it reads replays legally; the lenient reading reads at least the games the strict one
//! reads, the same, and says what it left out. The input is also tried compressed behind a
//! `CCBridge` header, so mutations reach the inflated library.
#![no_main]

use std::io::Write as _;

use libfuzzer_sys::fuzz_target;
use xiangqi_record::cbl;

#[path = "../../crates/xiangqi-record/tests/common/readers.rs"]
mod readers;

fn check(data: &[u8]) {
    let _ = cbl::looks_like(data);
    let strict = cbl::read_library(data);
    let lenient = cbl::read_library_lenient(data);
    if let Ok(lib) = &lenient {
        for g in lib.games.iter().flatten() {
            readers::replay_legally(&g.start, &g.moves);
        }
    }
    if let Ok(s) = &strict {
        let l = lenient.as_ref().expect("strict reads, lenient must too");
        let read_strict: Vec<_> = s.games.iter().flatten().collect();
        let read_lenient: Vec<_> = l.games.iter().flatten().collect();
        assert!(read_lenient.len() >= read_strict.len());
        for g in &read_strict {
            assert!(read_lenient.contains(g), "a strict game missing leniently");
        }
    }
}

fuzz_target!(|data: &[u8]| {
    check(data);
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
    let _ = z.write_all(data);
    if let Ok(body) = z.finish() {
        let mut wrapped = b"CCBridge".to_vec();
        wrapped.extend_from_slice(&(data.len() as u32).to_le_bytes());
        wrapped.extend_from_slice(&body);
        check(&wrapped);
    }
});
