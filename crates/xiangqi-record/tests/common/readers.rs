//! The properties the record-reader fuzz targets check (`fuzz/fuzz_targets/xqf.rs`,
//! `cb_dhtmlxq.rs`, which include this file with `#[path]`), as functions, so that the plain
//! test suite (`tests/binary_formats.rs`, `arbitrary_bytes_never_panic`) applies the same checks
//! to its mutated files: no panic; whatever reads replays legally (every move of every line);
//! a strict success equals the lenient reading with nothing dropped; a strict failure is the
//! same error leniently (or, after a broken variation the lenient reading dropped, an illegal
//! main-line move), or a lenient success that reports what it dropped.
#![allow(dead_code)] // each includer uses a part

use xiangqi::Position;
use xiangqi_record::rawtree::{ErrorKind, ReadError};
use xiangqi_record::{cbf, cbl, cbr, dhtmlxq, xqf, GameRecord, MoveNode};

/// Every move of every line of `line` is legal where it stands (panics otherwise).
pub fn replay_legally(start: &Position, line: &[MoveNode]) {
    let mut pos = start.clone();
    for n in line {
        for v in &n.variations {
            assert!(!v.is_empty(), "empty variation");
            replay_legally(&pos, v);
        }
        assert!(pos.is_legal(n.mv), "{} in {}", n.mv, pos.fen());
        pos.play_unchecked(n.mv);
    }
}

pub type Strict = fn(&[u8]) -> Result<GameRecord, ReadError>;
pub type Lenient = fn(&[u8]) -> Result<(GameRecord, Vec<ReadError>), ReadError>;

/// The strict and the lenient reader on `data` agree as described above, and what they read
/// replays legally. Returns whether the strict reader read it.
pub fn check_reader(data: &[u8], strict: Strict, lenient: Lenient) -> bool {
    match (strict(data), lenient(data)) {
        (Ok(rec), Ok((rec2, dropped))) => {
            assert!(
                dropped.is_empty(),
                "strict success, lenient drops {dropped:?}"
            );
            assert_eq!(rec, rec2, "strict and lenient readings differ");
            replay_legally(&rec.start, &rec.moves);
            true
        }
        (Err(e), Ok((rec, dropped))) => {
            assert!(
                !dropped.is_empty(),
                "strict fails ({e}), lenient reads it dropping nothing"
            );
            replay_legally(&rec.start, &rec.moves);
            false
        }
        (Err(a), Err(b)) => {
            // Both fail: at the same place, or the strict reader stopped at a broken variation
            // met first in the file while the lenient one, which drops broken variations, went
            // on to an illegal move of the main line (a game's error in both readings).
            if a != b {
                assert!(
                    matches!(
                        a.kind,
                        ErrorKind::IllegalMove {
                            mainline: false,
                            ..
                        }
                    ) && matches!(b.kind, ErrorKind::IllegalMove { mainline: true, .. }),
                    "strict and lenient fail differently: {a:?} / {b:?}"
                );
            }
            assert!(!a.to_string().is_empty() && !b.to_string().is_empty());
            false
        }
        (Ok(_), Err(e)) => panic!("strict read succeeds, lenient fails: {e}"),
    }
}

/// The `xqf` fuzz target: the input as a whole XQF file, then as the move area of a file
/// whose header is built from it (magic, a version from 10 to 18 from the first byte, the key
/// bytes and piece squares from the next 45), so that mutations reach the decryption and the
/// move tree of every version. Returns how many of the readings the strict reader read.
pub fn xqf_target(data: &[u8]) -> usize {
    let mut read = check_reader(data, xqf::read, xqf::read_lenient) as usize;
    if let Some((&first, rest)) = data.split_first() {
        let mut file = vec![0u8; 0x400];
        file[0] = b'X';
        file[1] = b'Q';
        file[2] = 10 + first % 9;
        let n = rest.len().min(45);
        file[3..3 + n].copy_from_slice(&rest[..n]);
        file.extend_from_slice(&rest[n..]);
        read += check_reader(&file, xqf::read, xqf::read_lenient) as usize;
    }
    read
}

/// A CBR file holding the standard start position and no moves: the input is appended to it
/// as its move area.
pub fn cbr_start() -> Vec<u8> {
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

/// The `cb_dhtmlxq` fuzz target: the CBR, CBF and DhtmlXQ readers on the raw input (and the
/// CBL library reader, whose games must replay legally), on the input as the move area of a
/// CBR record with the standard start, as a DhtmlXQ move list with up to 16 variation tags
/// (lossy UTF-8 split at `|` and `:`), and as up to 64 `<Move value="...">` elements of a CBF
/// document. Returns how many of the readings the strict readers read.
pub fn cb_dhtmlxq_target(data: &[u8]) -> usize {
    let mut read = check_reader(data, cbr::read, cbr::read_lenient) as usize;
    read += check_reader(data, cbf::read, cbf::read_lenient) as usize;
    read += check_reader(data, dhtmlxq::read, dhtmlxq::read_lenient) as usize;
    if let Ok(lib) = cbl::read_library(data) {
        for g in lib.games.iter().flatten() {
            replay_legally(&g.start, &g.moves);
        }
    }

    let mut f = cbr_start();
    f.extend_from_slice(data);
    read += check_reader(&f, cbr::read, cbr::read_lenient) as usize;

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
    read += check_reader(d.as_bytes(), dhtmlxq::read, dhtmlxq::read_lenient) as usize;
    let mut x = String::from("<ChineseChessRecord><MoveList><Move value=\"00-00\"/>");
    for m in text.split_whitespace().take(64) {
        x.push_str(&format!("<Move value=\"{m}\"/>"));
    }
    x.push_str("</MoveList></ChineseChessRecord>");
    read + check_reader(x.as_bytes(), cbf::read, cbf::read_lenient) as usize
}
