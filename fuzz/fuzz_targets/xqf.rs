//! Any bytes: the XQF reader never panics, whatever it is given, both as a whole file and as
//! the move area of a file whose header is built from the first bytes (so that mutations
//! reach the move tree of every version, plain and encrypted). Whatever it reads replays
//! legally, and the lenient reading agrees with the strict one.
#![no_main]

use libfuzzer_sys::fuzz_target;
use xiangqi::Position;
use xiangqi_record::{xqf, GameRecord, MoveNode};

fn replay(start: &Position, line: &[MoveNode]) {
    let mut pos = start.clone();
    for n in line {
        for v in &n.variations {
            assert!(!v.is_empty());
            replay(&pos, v);
        }
        assert!(pos.is_legal(n.mv), "{} in {}", n.mv, pos.fen());
        pos.play_unchecked(n.mv);
    }
}

fn check(data: &[u8]) {
    let strict = xqf::read(data);
    let lenient = xqf::read_lenient(data);
    match (&strict, &lenient) {
        (Ok(rec), Ok((rec2, dropped))) => {
            assert!(dropped.is_empty());
            assert_eq!(rec, rec2);
            replay(&rec.start, &rec.moves);
        }
        (Err(_), Ok((rec, dropped))) => {
            assert!(!dropped.is_empty());
            replay(&rec.start, &rec.moves);
        }
        (Err(a), Err(b)) => {
            assert_eq!(a, b);
            let _ = a.to_string();
        }
        (Ok(_), Err(e)) => panic!("strict read succeeds, lenient fails: {e}"),
    }
    let _: Option<&GameRecord> = strict.as_ref().ok();
}

fuzz_target!(|data: &[u8]| {
    check(data);
    if let Some((&first, rest)) = data.split_first() {
        // Header: magic, a version from 10 to 18, the key bytes and piece squares from the
        // input; the rest of the input is the move area.
        let mut file = vec![0u8; 0x400];
        file[0] = b'X';
        file[1] = b'Q';
        file[2] = 10 + first % 9;
        let n = rest.len().min(45);
        file[3..3 + n].copy_from_slice(&rest[..n]);
        file.extend_from_slice(&rest[n..]);
        check(&file);
    }
});
