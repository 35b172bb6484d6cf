//! The properties the record-reader fuzz targets check (`fuzz/fuzz_targets/xqf.rs`,
//! `cb_dhtmlxq.rs`, which include this file with `#[path]`), as functions, so that the plain
//! test suite (`tests/binary_formats.rs`, `arbitrary_bytes_never_panic`) applies the same checks
//! to its mutated files: no panic; whatever reads replays legally (every move of every line);
//! a strict success equals the lenient reading with nothing dropped; a strict failure is the
//! same error leniently (or, after a broken variation the lenient reading dropped, an illegal
//! main-line move), or a lenient success that reports what it dropped. The salvaging reader
//! (`--lenient`, `read_salvaging`) agrees with the strict one in the same way
//! ([`check_salvage`]): the same record when that reads; else the same error (or a bad start
//! position, when the fault was the first move's), or a record kept with a warning at the
//! strict error's byte.
#![allow(dead_code)] // each includer uses a part

use xiangqi::Position;
use xiangqi_record::rawtree::{ErrorKind, ReadError};
use xiangqi_record::{
    cbf, cbl, cbr, ccm, che, chn, dhtmlxq, mxq, pfc, xqf, xqr, GameRecord, MoveNode,
};

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
            // An XQF version byte XQStudio never wrote is named at byte 2 over the fault met
            // (each reading's own, which the rule below would compare).
            let version =
                |e: &ReadError| e.offset == Some(2) && e.to_string().contains("version byte");
            if a != b && !(version(&a) && version(&b)) {
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

/// The salvaging reader agrees with the strict one (see the top of this file); what it keeps
/// replays legally.
pub fn check_salvage(data: &[u8], strict: Strict, salvage: Lenient) {
    // An XQF version byte XQStudio never wrote is named at byte 2, over the fault met.
    let version = |e: &ReadError| e.offset == Some(2) && e.to_string().contains("version byte");
    match (strict(data), salvage(data)) {
        (Ok(rec), Ok((rec2, w))) => {
            assert!(w.is_empty(), "strict success, salvaging warns {w:?}");
            assert_eq!(rec, rec2, "strict and salvaging readings differ");
        }
        (Ok(_), Err(e)) => panic!("strict read succeeds, salvaging fails: {e}"),
        (Err(a), Err(b)) => assert!(
            a == b
                || matches!(b.kind, ErrorKind::BadPosition { .. })
                || (version(&a) && version(&b)),
            "strict and salvaging fail differently: {a:?} / {b:?}"
        ),
        (Err(e), Ok((rec, w))) => {
            replay_legally(&rec.start, &rec.moves);
            assert!(
                version(&e) || w.iter().any(|x| x.offset == e.offset),
                "strict fails ({e}), salvaging warns of no fault there: {w:?}"
            );
        }
    }
}

/// [`check_reader`] and [`check_salvage`].
pub fn check3(data: &[u8], strict: Strict, lenient: Lenient, salvage: Lenient) -> bool {
    check_salvage(data, strict, salvage);
    check_reader(data, strict, lenient)
}

/// The `xqf` fuzz target: the input as a whole XQF file, then as the move area of a file
/// whose header is built from it (magic, a version from 10 to 18 from the first byte, the key
/// bytes and piece squares from the next 45), so that mutations reach the decryption and the
/// move tree of every version. Returns how many of the readings the strict reader read.
pub fn xqf_target(data: &[u8]) -> usize {
    let mut read = check3(data, xqf::read, xqf::read_lenient, xqf::read_salvaging) as usize;
    if let Some((&first, rest)) = data.split_first() {
        let mut file = vec![0u8; 0x400];
        file[0] = b'X';
        file[1] = b'Q';
        file[2] = 10 + first % 9;
        let n = rest.len().min(45);
        file[3..3 + n].copy_from_slice(&rest[..n]);
        file.extend_from_slice(&rest[n..]);
        read += check3(&file, xqf::read, xqf::read_lenient, xqf::read_salvaging) as usize;
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
    let mut read = check3(data, cbr::read, cbr::read_lenient, cbr::read_salvaging) as usize;
    read += check3(data, cbf::read, cbf::read_lenient, cbf::read_salvaging) as usize;
    read += check3(
        data,
        dhtmlxq::read,
        dhtmlxq::read_lenient,
        dhtmlxq::read_salvaging,
    ) as usize;
    if let Ok(lib) = cbl::read_library(data) {
        for g in lib.games.iter().flatten() {
            replay_legally(&g.start, &g.moves);
        }
    }
    if let Ok(lib) = cbl::read_library_salvaging(data) {
        for g in lib.games.iter().flatten() {
            replay_legally(&g.start, &g.moves);
        }
    }

    let mut f = cbr_start();
    f.extend_from_slice(data);
    read += check3(&f, cbr::read, cbr::read_lenient, cbr::read_salvaging) as usize;

    // A compressed library in the GBK layout, one game from the start position whose move
    // records are the input's first bytes (up to 8 KiB), whole 6-byte records.
    let lib = cbl_gbk(&data[..data.len().min(8192) / 6 * 6]);
    for lib in [cbl::read_library(&lib), cbl::read_library_salvaging(&lib)]
        .into_iter()
        .flatten()
    {
        read += lib.games.iter().flatten().count();
        for g in lib.games.iter().flatten() {
            replay_legally(&g.start, &g.moves);
        }
    }

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
    read += check3(
        d.as_bytes(),
        dhtmlxq::read,
        dhtmlxq::read_lenient,
        dhtmlxq::read_salvaging,
    ) as usize;
    let mut x = String::from("<ChineseChessRecord><MoveList><Move value=\"00-00\"/>");
    for m in text.split_whitespace().take(64) {
        x.push_str(&format!("<Move value=\"{m}\"/>"));
    }
    x.push_str("</MoveList></ChineseChessRecord>");
    read += check3(
        x.as_bytes(),
        cbf::read,
        cbf::read_lenient,
        cbf::read_salvaging,
    ) as usize;
    read + other_programs_target(data)
}

/// A compressed CCBridge library in the GBK layout (src/cbl/gbk.rs) holding one game from the
/// start position with `moves` as its 6-byte move records and an empty comment line for each.
pub fn cbl_gbk(moves: &[u8]) -> Vec<u8> {
    let text = |out: &mut Vec<u8>, s: &[u8]| {
        out.extend_from_slice(&(s.len() as u32).to_le_bytes());
        out.extend_from_slice(s);
    };
    let n = moves.len() / 6;
    let mut game = Vec::new();
    // Red's pieces, then Black's, `column << 4 | row` from 1 at the top left.
    for row in [10u8, 1] {
        let (cannons, soldiers) = if row == 10 { (8, 7) } else { (3, 4) };
        game.extend((1..=9).map(|c| c << 4 | row));
        game.extend([2 << 4 | cannons, 8 << 4 | cannons]);
        game.extend([1u8, 3, 5, 7, 9].map(|c| c << 4 | soldiers));
    }
    game.extend_from_slice(&[0; 12]);
    for s in [&b"\xb2\xe2"[..], b"", b"", b"", b"", b"", b""] {
        text(&mut game, s);
    }
    game.extend_from_slice(&[0; 12]);
    text(&mut game, b"");
    game.extend_from_slice(&[0; 9]);
    game.extend_from_slice(&[b' '; 38]);
    game.extend_from_slice(&(n as u32).to_le_bytes());
    game.extend_from_slice(&moves[..n * 6]);
    game.extend(std::iter::repeat_n(*b"\r\n", n).flatten());
    let mut body = Vec::new();
    for s in [&b"lib"[..], b"", b"", b"", b""] {
        text(&mut body, s);
    }
    body.extend_from_slice(&[b' '; 38]);
    body.extend_from_slice(&1u32.to_le_bytes());
    text(&mut body, b"");
    body.extend_from_slice(&(game.len() as u32 + 4).to_le_bytes());
    body.extend_from_slice(&game);
    ccbridge_compressed(&body)
}

/// A library body compressed as 象棋桥 stores it: "CCBridge", 12 bytes (the last four the
/// inflated length), a zlib stream.
pub fn ccbridge_compressed(body: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
    z.write_all(body).unwrap();
    let mut out = b"CCBridge".to_vec();
    out.extend_from_slice(&[0x15, 0, 0, 0, 1, 0, 0, 0]);
    out.extend_from_slice(&(body.len() as u32).to_le_bytes());
    out.extend_from_slice(&z.finish().unwrap());
    out
}

/// The PFC, CHE, XQR, CCM, MXQ and CHN readers (issue 29's records of other programs), called
/// by the `cb_dhtmlxq` fuzz target: each on the raw input, and the input made into each format
/// so that mutations reach the moves: the bytes after the XQR fields with a correct CRC-32,
/// whole 7-byte CCM records after a first byte 1, whole 32-byte CHN records after a zero
/// header, the words of the text as MXQ move strings (after twelve empty strings, up to
/// `Ends`) and as nested PFC moves (`<` and `>` turned into `(` `)`, at most 64 each), and the
/// bytes as the numbers of a CHE record of either kind; those from the first 8 KiB of the
/// input (the test suite's seeds include a 0.5 MB text). Returns how many of the readings the
/// strict readers read.
pub fn other_programs_target(data: &[u8]) -> usize {
    let mut read = check3(data, pfc::read, pfc::read_lenient, pfc::read_salvaging) as usize;
    read += check3(data, che::read, che::read_lenient, che::read_salvaging) as usize;
    read += check3(data, xqr::read, xqr::read_lenient, xqr::read_salvaging) as usize;
    read += check3(data, ccm::read, ccm::read_lenient, ccm::read_salvaging) as usize;
    read += check3(data, mxq::read, mxq::read_lenient, mxq::read_salvaging) as usize;
    read += check3(data, chn::read, chn::read_lenient, chn::read_salvaging) as usize;
    let data = &data[..data.len().min(8192)];

    let mut x = vec![0x00, 0x02, 0x20, 0x17, 0x09, 0x00];
    x.extend_from_slice(data);
    let mut crc = flate2::Crc::new();
    crc.update(&x);
    x.extend_from_slice(&[0x0a, 0x04]);
    x.extend_from_slice(&crc.sum().to_le_bytes());
    read += check3(&x, xqr::read, xqr::read_lenient, xqr::read_salvaging) as usize;

    let mut c = vec![1u8];
    c.extend_from_slice(data);
    c.truncate(c.len() / 7 * 7);
    read += check3(&c, ccm::read, ccm::read_lenient, ccm::read_salvaging) as usize;

    // CHN: a zero header and the input's bytes as whole 32-byte records.
    let mut h = vec![0u8; 188];
    h.extend_from_slice(&data[..data.len() / 32 * 32]);
    read += check3(&h, chn::read, chn::read_lenient, chn::read_salvaging) as usize;
    // CHN in 联众's GL layout: a real file's header and list head, then the input's bytes as
    // whole 36-byte records.
    let real = include_bytes!("../data/records/zfdang-ourgame.chn");
    let mut g = real[..472 + 36].to_vec();
    g.extend_from_slice(&data[..data.len() / 36 * 36]);
    read += check3(&g, chn::read, chn::read_lenient, chn::read_salvaging) as usize;
    // CCM in 17pk's layout: its header announcing as many 9-byte records as the input holds.
    let n = data.len() / 9;
    let mut k = vec![1u8, 0, 18, 0, 0x6b, 0x96, 0x60, 0x58];
    k.extend_from_slice(&(n as u32).to_le_bytes());
    k.extend_from_slice(&data[..n * 9]);
    read += check3(&k, ccm::read, ccm::read_lenient, ccm::read_salvaging) as usize;
    // MXQ: twelve empty strings, then the words of the text as move strings, and `Ends`.
    let mut m = vec![0u8; 12];
    for w in String::from_utf8_lossy(data).split_whitespace().take(64) {
        let w = &w.as_bytes()[..w.len().min(255)];
        m.push(w.len() as u8);
        m.extend_from_slice(w);
    }
    m.extend_from_slice(b"\x04Ends");
    read += check3(&m, mxq::read, mxq::read_lenient, mxq::read_salvaging) as usize;

    let text = String::from_utf8_lossy(data)
        .replace('<', "(")
        .replace('>', ")");
    let words: Vec<&str> = text.split_whitespace().take(64).collect();
    let mut p = String::from("<n version=\"2\">");
    for w in &words {
        let (m, attr) = w.split_once('*').unwrap_or((w, ""));
        let m = m.replace('"', "'");
        let d = if attr.is_empty() {
            ""
        } else {
            " default=\"true\""
        };
        p.push_str(&format!("<n m=\"{m}\"{d}>"));
    }
    p.push_str(&"</n>".repeat(words.len() + 1));
    read += check3(
        p.as_bytes(),
        pfc::read,
        pfc::read_lenient,
        pfc::read_salvaging,
    ) as usize;

    for kind in [0u8, 1] {
        let mut s = format!("{kind} {} ", data.len() / 10);
        for b in data {
            s.push_str(&format!("{} ", b % 12));
        }
        read += check3(
            s.as_bytes(),
            che::read,
            che::read_lenient,
            che::read_salvaging,
        ) as usize;
    }
    read
}

/// A record file of `tests/data/records` (of this crate; unused by the fuzz targets).
pub fn data(name: &str) -> Vec<u8> {
    let p = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/records")
        .join(name);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// `bytes` cut at every `step`-th length and garbled (a few bytes changed) `rounds` times,
/// each read by `read_any`: no panic, and whatever reads replays legally.
pub fn cut_and_garbled_never_panic(bytes: &[u8], step: usize, rounds: usize) {
    let replay = |b: &[u8]| {
        if let Ok(r) = xiangqi_record::detect::read_any(b) {
            for g in r.games.iter().flatten() {
                replay_legally(&g.start, &g.moves);
            }
        }
    };
    for len in (0..bytes.len()).step_by(step.max(1)) {
        replay(&bytes[..len]);
    }
    let mut seed = 0x2545_f491_u32;
    for round in 0..rounds {
        let mut b = bytes.to_vec();
        for _ in 0..1 + round % 8 {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            let i = seed as usize % b.len();
            b[i] = (seed >> 8) as u8;
        }
        replay(&b);
    }
}

/// The one game of a file of `tests/data/records`, read strictly (panics otherwise), replayed,
/// and the format found.
pub fn game(name: &str) -> (xiangqi_record::detect::RecordFormat, GameRecord) {
    let r = xiangqi_record::detect::read_any_strict(&data(name))
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(r.games.len(), 1, "{name}");
    let g = r.games.into_iter().next().unwrap();
    let g = g.unwrap_or_else(|e| panic!("{name}: {e}"));
    replay_legally(&g.start, &g.moves);
    (r.format, g)
}
