//! Any bytes: the CBR, CBL, CBF and DhtmlXQ readers never panic; whatever they read replays
//! legally, and each lenient reading agrees with the strict one. The input is also tried as
//! the move area of a CBR record with the standard start (so mutations reach the move tree)
//! and as the body of a DhtmlXQ move list and of a CBF move list.
#![no_main]

use libfuzzer_sys::fuzz_target;
use xiangqi::Position;
use xiangqi_record::rawtree::ReadError;
use xiangqi_record::{cbf, cbl, cbr, dhtmlxq, GameRecord, MoveNode};

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

type Strict = fn(&[u8]) -> Result<GameRecord, ReadError>;
type Lenient = fn(&[u8]) -> Result<(GameRecord, Vec<ReadError>), ReadError>;

fn check(data: &[u8], strict: Strict, lenient: Lenient) {
    match (strict(data), lenient(data)) {
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
}

fn cbr_start() -> Vec<u8> {
    let mut f = vec![0u8; 2214];
    f[..16].copy_from_slice(cbr::MAGIC);
    f[19] = 2;
    f[2112] = 1;
    let top = [0x21u8, 0x22, 0x23, 0x24, 0x25, 0x24, 0x23, 0x22, 0x21];
    f[2120..2129].copy_from_slice(&top);
    f[2120 + 19] = 0x26;
    f[2120 + 25] = 0x26;
    for c in (0..9).step_by(2) {
        f[2120 + 27 + c] = 0x27;
        f[2120 + 54 + c] = 0x17;
    }
    f[2120 + 64] = 0x16;
    f[2120 + 70] = 0x16;
    for (i, p) in top.iter().enumerate() {
        f[2120 + 81 + i] = p - 0x10;
    }
    f
}

fuzz_target!(|data: &[u8]| {
    check(data, cbr::read, cbr::read_lenient);
    check(data, cbf::read, cbf::read_lenient);
    check(data, dhtmlxq::read, dhtmlxq::read_lenient);
    if let Ok(lib) = cbl::read_library(data) {
        for g in lib.games.iter().flatten() {
            replay(&g.start, &g.moves);
        }
    }

    // CBR move area.
    let mut f = cbr_start();
    f.extend_from_slice(data);
    check(&f, cbr::read, cbr::read_lenient);

    // Text wrappers.
    let text = String::from_utf8_lossy(data);
    let (list, vars) = text.split_once('|').unwrap_or((&text, ""));
    let mut d = format!("[DhtmlXQ][DhtmlXQ_movelist]{list}[/DhtmlXQ_movelist]");
    for (k, v) in vars.split('|').enumerate().take(16) {
        let (id, moves) = v.split_once(':').unwrap_or(("0_1", v));
        d.push_str(&format!(
            "[DhtmlXQ_move_{id}_{k}]{moves}[/DhtmlXQ_move_{id}_{k}]"
        ));
    }
    d.push_str("[/DhtmlXQ]");
    check(d.as_bytes(), dhtmlxq::read, dhtmlxq::read_lenient);
    let mut x = String::from("<ChineseChessRecord><MoveList><Move value=\"00-00\"/>");
    for m in text.split_whitespace().take(64) {
        x.push_str(&format!("<Move value=\"{m}\"/>"));
    }
    x.push_str("</MoveList></ChineseChessRecord>");
    check(x.as_bytes(), cbf::read, cbf::read_lenient);
});
