//! `--lenient` (`Mode::Salvage`) on the binary formats: a record corrupted in the middle (an
//! illegal move, a square off the board, a cut file) keeps its game up to the last good move
//! of the main line with a warning naming the byte; strictly it is an error naming that byte.
//! The samples are the real XQF and CBR/CBL files of the shared record set and the made-up
//! files of tests/data/records.

use std::path::PathBuf;

use xiangqi_record::detect::{read_any_mode, Mode, RecordError};
use xiangqi_record::rawtree::{ErrorKind, ReadError};
use xiangqi_record::{cbf, cbl, cbr, ccm, che, chn, mxq, pfc, xqf, xqr, GameRecord, MoveNode};

#[path = "common/readers.rs"]
mod readers;

type Strict = fn(&[u8]) -> Result<GameRecord, ReadError>;
type Salvage = fn(&[u8]) -> Result<(GameRecord, Vec<ReadError>), ReadError>;

fn shared(rel: &str) -> Vec<u8> {
    let base = match std::env::var_os("XIANGQI_SHARED") {
        Some(p) => PathBuf::from(p),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"),
    };
    let p = base.join("data/records").join(rel);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn data(name: &str) -> Vec<u8> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/records")
        .join(name);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn bare(line: &[MoveNode]) -> Vec<String> {
    line.iter().map(|n| n.mv.to_string()).collect()
}

/// The file offset of main-line move `k` (1-based) of an unencrypted XQF 1.0 file: records
/// are 4 bytes, a 4-byte comment length and the comment, in pre-order (the main line first).
fn xqf10_record(f: &[u8], k: usize) -> usize {
    let mut pos = 1024;
    for _ in 0..k {
        let len = u32::from_le_bytes(f[pos + 4..pos + 8].try_into().unwrap()) as usize;
        pos += 8 + len;
    }
    pos
}

/// The one `Kept` warning of a salvaging read.
fn kept(w: &[ReadError]) -> &ReadError {
    let k: Vec<&ReadError> = w
        .iter()
        .filter(|e| matches!(e.kind, ErrorKind::Kept { .. }))
        .collect();
    assert_eq!(k.len(), 1, "{w:?}");
    k[0]
}

#[test]
fn xqf_illegal_move_bad_square_and_cut_file() {
    let f = shared("xqf/hbsxcjp-sample-02.xqf");
    assert_eq!(f[2], 10);
    let whole = xqf::read(&f).unwrap();
    let ml = bare(&whole.moves);
    assert!(ml.len() >= 8, "{ml:?}");

    // Move 5 made illegal (to-square = from-square).
    let mut bad = f.clone();
    let at = xqf10_record(&f, 5);
    bad[at + 1] = bad[at] - 0x18 + 0x20;
    let e = xqf::read(&bad).unwrap_err();
    assert_eq!(e.offset, Some(at));
    assert!(
        e.to_string()
            .starts_with(&format!("XQF at byte {at} (0x{at:x}): illegal move")),
        "{e}"
    );
    let (g, w) = xqf::read_salvaging(&bad).unwrap();
    assert_eq!(bare(&g.moves), ml[..4]);
    let k = kept(&w);
    assert_eq!(k.offset, Some(at));
    let msg = k.to_string();
    assert!(
        msg.starts_with(&format!(
            "XQF at byte {at} (0x{at:x}): kept as far as Black's move 2: illegal move"
        )) && msg.contains("at ply 5 (main line)")
            && msg.contains("; this move record and the")
            && msg.ends_with("after it were left out"),
        "{msg}"
    );
    // Without --lenient (the default reading) it stays an error.
    assert!(xqf::read_lenient(&bad).is_err());

    // Move 3's from-square off the board (code 95).
    let mut bad = f.clone();
    let at = xqf10_record(&f, 3);
    bad[at] = 95 + 0x18;
    let e = xqf::read(&bad).unwrap_err();
    assert_eq!(e.offset, Some(at));
    assert!(
        matches!(e.kind, ErrorKind::BadSquare { value: 95, .. }),
        "{e}"
    );
    let (g, w) = xqf::read_salvaging(&bad).unwrap();
    assert_eq!(bare(&g.moves), ml[..2]);
    let msg = kept(&w).to_string();
    assert!(
        msg.starts_with(&format!(
            "XQF at byte {at} (0x{at:x}): kept as far as Black's move 1: a move's from-square \
             holds square code 95, which is off the board; the last"
        )) && msg.ends_with("bytes of the file, from this record on, were left out"),
        "{msg}"
    );

    // The file cut inside move 6's record.
    let at = xqf10_record(&f, 6);
    let cut = &f[..at + 3];
    let e = xqf::read(cut).unwrap_err();
    assert_eq!(e.offset, Some(at));
    assert_eq!(
        e.to_string(),
        format!("XQF at byte {at} (0x{at:x}): data ends inside a move record (4 bytes)")
    );
    let (g, w) = xqf::read_salvaging(cut).unwrap();
    assert_eq!(bare(&g.moves), ml[..5]);
    assert_eq!(
        kept(&w).to_string(),
        format!(
            "XQF at byte {at} (0x{at:x}): kept as far as Red's move 3: data ends inside a move \
             record (4 bytes); the last 3 bytes of the file, from this record on, were left out"
        )
    );
    // The tags are kept too.
    assert_eq!(g.tags, whole.tags);

    // Through read_any_mode: the warning names the game.
    let r = read_any_mode(cut, Mode::Salvage).unwrap();
    assert_eq!(bare(&r.games[0].as_ref().unwrap().moves), ml[..5]);
    assert_eq!(r.warnings.len(), 1);
    assert_eq!(r.warnings[0].game(), Some(1));
    assert!(
        r.warnings[0].to_string().starts_with(&format!(
            "XQF game 1 at byte {at} (0x{at:x}): kept as far as"
        )),
        "{}",
        r.warnings[0]
    );
    assert!(read_any_mode(cut, Mode::Lenient).unwrap().games[0].is_err());
    assert!(read_any_mode(cut, Mode::Strict).unwrap().games[0].is_err());
}

/// Every cut of a file inside its move area: strictly an error naming a byte (or the whole
/// game when the cut falls between records); salvaging, a prefix of the main line, and a
/// warning at the strict error's byte.
fn cuts_keep_a_prefix(name: &str, f: &[u8], from: usize, strict: Strict, salvage: Salvage) {
    cuts_between(name, f, from, f.len(), strict, salvage)
}

/// [`cuts_keep_a_prefix`] for the cuts from `from` to `to`.
fn cuts_between(name: &str, f: &[u8], from: usize, to: usize, strict: Strict, salvage: Salvage) {
    let whole = strict(f).unwrap_or_else(|e| panic!("{name}: {e}"));
    let ml = bare(&whole.moves);
    let mut cut_games = 0;
    for len in from..to {
        let cut = &f[..len];
        let (g, w) = salvage(cut).unwrap_or_else(|e| panic!("{name} cut at {len}: {e}"));
        readers::replay_legally(&g.start, &g.moves);
        let got = bare(&g.moves);
        assert!(
            ml.starts_with(&got),
            "{name} cut at {len}: {got:?} is no prefix of {ml:?}"
        );
        match strict(cut) {
            Ok(s) => assert_eq!(bare(&s.moves), got, "{name} cut at {len}"),
            Err(e) => {
                assert!(
                    w.iter().any(|x| x.offset == e.offset),
                    "{name} cut at {len}: {e} not among {w:?}"
                );
                cut_games += (got.len() < ml.len()) as usize;
            }
        }
    }
    assert!(cut_games > 0, "{name}");
}

/// Every byte of the move area flipped: when the strict reading fails, salvaging either fails
/// the same way (a fault before the moves, as the start position) or keeps the game with a
/// warning at that byte; whatever it keeps replays legally.
fn flips_keep_or_fail_alike(name: &str, f: &[u8], from: usize, strict: Strict, salvage: Salvage) {
    let mut kept_games = 0;
    // XQR ends with a CRC-32 field of 6 bytes (type, length, the sum) over what comes before:
    // it is made right again, else every flip is a CRC error.
    let xqr = name.ends_with(".xqr");
    let end = if xqr { f.len() - 6 } else { f.len() };
    for i in from..end {
        for x in [0xff_u8, 0x01, 0x40] {
            let mut b = f.to_vec();
            b[i] ^= x;
            if xqr {
                let mut crc = flate2::Crc::new();
                crc.update(&b[..end]);
                b[end + 2..].copy_from_slice(&crc.sum().to_le_bytes());
            }
            let Err(e) = strict(&b) else { continue };
            match salvage(&b) {
                Err(e2) => assert_eq!(e2, e, "{name} byte {i} ^ {x:#x}"),
                Ok((g, w)) => {
                    readers::replay_legally(&g.start, &g.moves);
                    assert!(
                        w.iter().any(|x| x.offset == e.offset),
                        "{name} byte {i} ^ {x:#x}: {e} not among {w:?}"
                    );
                    kept_games += 1;
                }
            }
        }
    }
    assert!(kept_games > 0, "{name}");
}

#[test]
fn xqf_files_plain_and_encrypted_cut_and_flipped() {
    for name in [
        "xqf/hbsxcjp-sample-02.xqf",
        "xqf/hbsxcjp-sample-13.xqf",
        "xqf/hbsxcjp-sample-04.xqf",
        "xqf/walker-game-varations.xqf",
        "xqf/eleeye-sample.xqf",
    ] {
        let f = shared(name);
        cuts_keep_a_prefix(name, &f, 1024, xqf::read, xqf::read_salvaging);
        flips_keep_or_fail_alike(name, &f, 1024, xqf::read, xqf::read_salvaging);
    }
}

#[test]
fn xqf_encrypted_fault_in_a_variation_keeps_the_main_line() {
    // walker-game-varations.xqf (XQF 1.8) has variations after its main line: a cut inside
    // them keeps the whole main line and the variations read before.
    let f = shared("xqf/walker-game-varations.xqf");
    assert_eq!(f[2], 18);
    let whole = xqf::read(&f).unwrap();
    let cut = &f[..f.len() - 2];
    let (g, w) = xqf::read_salvaging(cut).unwrap();
    assert_eq!(bare(&g.moves), bare(&whole.moves));
    let msg = kept(&w).to_string();
    assert!(
        msg.contains("kept with its main line whole (to ") && msg.contains("and a variation cut: "),
        "{msg}"
    );
}

#[test]
fn cbr_and_cbl_cut_and_flipped() {
    let f = shared("other/walker-test.cbr");
    cuts_keep_a_prefix("walker-test.cbr", &f, 2214, cbr::read, cbr::read_salvaging);
    flips_keep_or_fail_alike("walker-test.cbr", &f, 2214, cbr::read, cbr::read_salvaging);

    // A library cut inside its last game: that game is kept up to the cut, with a warning
    // naming the game; strictly it is that game's error.
    let lib = shared("other/walker-1956-national-93games.cbl");
    let full = cbl::read_library(&lib).unwrap();
    let n = full.games.len();
    let last = *full.offsets.last().unwrap();
    let last_game = full.games[n - 1].as_ref().unwrap();
    let ml = bare(&last_game.moves);
    // Find where the last game's moves end (trailing zeros are padding) and cut inside them.
    let end = lib.iter().rposition(|&b| b != 0).unwrap() + 1;
    let cut = &lib[..(last + 2214 + end) / 2];
    let strict = cbl::read_library(cut).unwrap();
    let e = strict.games[n - 1].as_ref().unwrap_err();
    assert_eq!(e.game, Some(n));
    let lenient = cbl::read_library_lenient(cut).unwrap();
    assert!(lenient.games[n - 1].is_err());
    let salvaged = cbl::read_library_salvaging(cut).unwrap();
    let g = salvaged.games[n - 1].as_ref().unwrap();
    assert!(ml.starts_with(&bare(&g.moves)) && g.moves.len() < ml.len());
    let k = kept(&salvaged.dropped);
    assert_eq!((k.game, k.offset), (Some(n), e.offset));
    assert!(
        k.to_string().starts_with(&format!("CBL game {n} at byte ")),
        "{k}"
    );
    for (i, g) in salvaged.games[..n - 1].iter().enumerate() {
        assert_eq!(g, &full.games[i]);
    }
}

#[test]
fn other_binary_formats_keep_the_moves_before_an_illegal_one() {
    type Case = (&'static str, Strict, Salvage, usize);
    let cases: [Case; 6] = [
        ("made-up-turned.ccm", ccm::read, ccm::read_salvaging, 0),
        ("made-up-ourgame.chn", chn::read, chn::read_salvaging, 188),
        ("made-up.xqr", xqr::read, xqr::read_salvaging, 0),
        ("made-up-yitian.mxq", mxq::read, mxq::read_salvaging, 0),
        ("made-up-qq-kind1.che", che::read, che::read_salvaging, 0),
        ("made-up-pengfei.pfc", pfc::read, pfc::read_salvaging, 0),
    ];
    for (name, strict, salvage, from) in cases {
        let f = data(name);
        flips_keep_or_fail_alike(name, &f, from, strict, salvage);
    }
    // CCM: move 3's to-square made its from-square (an illegal move).
    let f = data("made-up-turned.ccm");
    let ml = bare(&ccm::read(&f).unwrap().moves);
    let mut bad = f.clone();
    bad[14 + 4] = bad[14 + 3];
    bad[14 + 6] = bad[14 + 5];
    let e = ccm::read(&bad).unwrap_err();
    assert_eq!(e.offset, Some(14));
    let (g, w) = ccm::read_salvaging(&bad).unwrap();
    assert_eq!(bare(&g.moves), ml[..2]);
    let msg = kept(&w).to_string();
    assert!(
        msg.starts_with("CCM at byte 14 (0xe): kept as far as Black's move 1: illegal move")
            && msg.ends_with(&format!(
                "; this move record and the {} after it were left out",
                ml.len() - 3
            )),
        "{msg}"
    );
    // CCM and CHN with a last record cut short: the whole moves kept.
    let (g, w) = ccm::read_salvaging(&f[..f.len() - 3]).unwrap();
    assert_eq!(bare(&g.moves), ml[..ml.len() - 1]);
    assert!(kept(&w).to_string().contains("no whole move"), "{w:?}");
    let f = data("made-up-ourgame.chn");
    let ml = bare(&chn::read(&f).unwrap().moves);
    let (g, _) = chn::read_salvaging(&f[..f.len() - 5]).unwrap();
    assert_eq!(bare(&g.moves), ml[..ml.len() - 1]);
}

/// CHE (text numbers) cut anywhere after its kind and count: the whole moves before the cut
/// kept, with a warning where the strict reading fails; a square off the board and a move
/// that follows no earlier move (kind 0) end the game there too.
#[test]
fn che_cut_or_damaged_keeps_the_moves_before() {
    for name in ["made-up-qq-kind0.che", "made-up-qq-kind1.che"] {
        let f = data(name);
        let text = String::from_utf8_lossy(&f).into_owned();
        // After the kind and the count: the first move's first number.
        let mut starts = Vec::new();
        let mut prev_space = true;
        for (i, c) in text.char_indices() {
            let space = c.is_ascii_whitespace();
            if prev_space && !space {
                starts.push(i);
            }
            prev_space = space;
        }
        cuts_keep_a_prefix(name, &f, starts[2], che::read, che::read_salvaging);
    }
    // Kind 1, two moves; the second's from-rank 60: kept as far as the first.
    let bad = b"1 2 25 32 1 2 7 2 4 0 1 0 10 32 0 60 7 7 6 0 2 0 ";
    let e = che::read(bad).unwrap_err();
    let (g, w) = che::read_salvaging(bad).unwrap();
    assert_eq!(bare(&g.moves), ["h2e2"]);
    assert_eq!(kept(&w).offset, e.offset);
    assert!(kept(&w).to_string().contains("off the board"), "{w:?}");
    // Kind 0: the second move follows move 5, which is not before it.
    let bad = b"0 2 25 32 1 3 8 3 5 0 1 0 10 32 0 10 8 8 7 5 2 0";
    let e = che::read(bad).unwrap_err();
    let (g, w) = che::read_salvaging(bad).unwrap();
    assert_eq!(bare(&g.moves), ["h2e2"]);
    assert_eq!(kept(&w).offset, e.offset);
    assert!(kept(&w).to_string().contains("it follows move 5"), "{w:?}");
}

/// MXQ (length-prefixed strings) cut anywhere after its twelve header strings, or with a move
/// string of no known shape: the moves before kept, with a warning where the strict reading
/// fails.
#[test]
fn mxq_cut_or_damaged_keeps_the_moves_before() {
    let name = "made-up-yitian.mxq";
    let f = data(name);
    let mut at = 0;
    for _ in 0..12 {
        at += 1 + f[at] as usize;
    }
    cuts_keep_a_prefix(name, &f, at, mxq::read, mxq::read_salvaging);
    // The third move's string made "7C+4C".
    let ml = bare(&mxq::read(&f).unwrap().moves);
    let third = at + 2 * 6;
    assert_eq!(f[third], 5);
    let mut bad = f.clone();
    bad[third + 3] = b'+';
    let e = mxq::read(&bad).unwrap_err();
    assert_eq!(e.offset, Some(third));
    let (g, w) = mxq::read_salvaging(&bad).unwrap();
    assert_eq!(bare(&g.moves), ml[..2]);
    assert_eq!(kept(&w).offset, Some(third));
    assert!(kept(&w).to_string().contains("is no move"), "{w:?}");
}

/// CBF and PFC (XML) cut anywhere inside the moves: what was read before the cut is kept (every
/// open element closed there), with a warning at the byte where the strict reading fails; a
/// CBF cut before its move list (its head, where the start position is) is still the error.
#[test]
fn cbf_and_pfc_cut_inside_their_xml_keep_the_moves_before() {
    let f = shared("other/walker-test.cbf");
    // (Byte offsets: the file is GBK.)
    let at = |f: &[u8], what: &[u8]| f.windows(what.len()).position(|w| w == what);
    let list = at(&f, b"<MoveList>").expect("a move list") + 10;
    cuts_keep_a_prefix("walker-test.cbf", &f, list, cbf::read, cbf::read_salvaging);
    let e = cbf::read(&f[..list - 10]).unwrap_err();
    assert_eq!(cbf::read_salvaging(&f[..list - 10]).unwrap_err(), e);
    // PFC: a move's alternatives may come before the one marked as the main line, so a cut
    // among them keeps an alternative as the line's end (the document as cut, read by the
    // format's rule: the first child unless one is marked); every cut is held to the strict
    // reading as the fuzz checks hold it, and the whole main line is kept when the cut is
    // after it.
    let f = data("made-up-pengfei.pfc");
    let first = at(&f, b"<n m=").expect("a move");
    let whole = bare(&pfc::read(&f).unwrap().moves);
    for len in first..f.len() {
        readers::check_salvage(&f[..len], pfc::read, pfc::read_salvaging);
    }
    let last = f.len() - 1 - f.iter().rev().position(|&b| b == b'<').unwrap();
    let (g, _) = pfc::read_salvaging(&f[..last]).unwrap();
    assert_eq!(bare(&g.moves), whole);
    // The message: the XML's fault, what was kept, what was left out.
    let (g, w) = pfc::read_salvaging(&f[..f.len() - 20]).unwrap();
    let msg = kept(&w).to_string();
    assert!(
        msg.contains("is never closed")
            && msg.ends_with("the rest of the document, from this byte on, was left out"),
        "{msg}"
    );
    readers::replay_legally(&g.start, &g.moves);
}

/// A CCM or CHN file (no signature) damaged after sound first moves: recognised as damaged
/// (the message names the format, the move and the byte), and kept up to the damage with
/// `Mode::Salvage`; an unsound start is not taken for either.
#[test]
fn damaged_ccm_and_chn_are_named_and_salvaged_through_read_any() {
    use xiangqi_record::detect::{read_any, read_any_mode, Mode, RecordError};
    for (name, header, record, what) in [
        ("made-up-turned.ccm", 0, 7, "ccm"),
        ("made-up-ourgame.chn", 188, 32, "chn"),
    ] {
        let f = data(name);
        let n = f[header..].len() / record;
        assert!(n > 5, "{name}: {n} moves");
        let ml = bare(&read_any(&f).unwrap().games[0].as_ref().unwrap().moves);
        // Move 5's from-column off the board; then the file cut inside move 5.
        let at = header + 4 * record;
        let off = if what == "ccm" { 3 } else { 4 };
        let mut bad = f.clone();
        bad[at + off] = 60;
        let cut = f[..at + 3].to_vec();
        for (damaged, fault) in [(bad, "off the board"), (cut, "cut short")] {
            let e = read_any(&damaged).unwrap_err();
            let msg = e.to_string();
            assert!(matches!(e, RecordError::LooksLike(_)), "{name}: {msg}");
            assert!(
                msg.contains(&format!(".{what} record damaged at move 5 (byte {at}"))
                    && msg.contains(fault)
                    && msg.contains("keeps the 4 moves before it"),
                "{name}: {msg}"
            );
            let all = read_any_mode(&damaged, Mode::Salvage).unwrap();
            let g = all.games[0].as_ref().unwrap();
            assert_eq!(bare(&g.moves), ml[..4], "{name} {fault}");
            assert_eq!(all.warnings.len(), 1, "{name}: {:?}", all.warnings);
            // (The warning names the record's first byte, or for a square the square's.)
            let w = all.warnings[0].to_string();
            assert!(
                w.contains(&format!("at byte {at} "))
                    || w.contains(&format!("at byte {} ", at + off)),
                "{name}: {w}"
            );
        }
        // Damage inside the first three moves: not taken for the format.
        let mut early = f.clone();
        early[header + record + off] = 60;
        assert!(
            !matches!(read_any(&early), Err(RecordError::LooksLike(_))),
            "{name}"
        );
        assert!(read_any_mode(&early, Mode::Salvage).is_err(), "{name}");
    }
}

#[test]
fn xqr_cut_inside_its_move_tree_keeps_the_moves_before() {
    // The moves start after the type-9 field; the CRC field (6 bytes) ends the file. A cut
    // inside the tree keeps the moves before it (the CRC is then not checked); a cut inside
    // the CRC field stays an error, as a flipped byte that only the CRC finds.
    let f = data("made-up.xqr");
    let mut pos = 0;
    while f[pos] != 9 {
        pos += 2 + f[pos + 1] as usize;
    }
    let tree = pos + 2;
    cuts_between(
        "made-up.xqr",
        &f,
        tree,
        f.len() - 6,
        xqr::read,
        xqr::read_salvaging,
    );
    let e = xqr::read_salvaging(&f[..f.len() - 3]).unwrap_err();
    assert!(e.to_string().contains("CRC"), "{e}");
    let mut b = f.clone();
    let n = b.len();
    b[n - 1] ^= 1;
    assert!(xqr::read_salvaging(&b)
        .unwrap_err()
        .to_string()
        .contains("CRC-32"));
    // A cut in the middle, through read_any_mode.
    let cut = &f[..(tree + f.len()) / 2];
    let r = read_any_mode(cut, Mode::Salvage).unwrap();
    let msg = r.warnings[0].to_string();
    assert!(
        msg.starts_with("XQR game 1 at byte ")
            && msg.contains(": kept as far as ")
            && msg.ends_with("bytes of the file, from this node on, were left out"),
        "{msg}"
    );
}

#[test]
fn warnings_are_record_errors_naming_game_one() {
    let f = shared("xqf/hbsxcjp-sample-02.xqf");
    let at = xqf10_record(&f, 2);
    let mut bad = f.clone();
    bad[at + 1] = bad[at] - 0x18 + 0x20;
    let r = read_any_mode(&bad, Mode::Salvage).unwrap();
    assert!(matches!(&r.warnings[..], [RecordError::Binary(e)] if e.game == Some(1)));
    assert_eq!(r.games[0].as_ref().unwrap().moves.len(), 1);
}

#[test]
fn fuzz_finding_an_unknown_version_byte_over_two_different_faults() {
    // Found by the xqf fuzz target after the version byte was named: an XQF with version byte
    // 80 (none XQStudio writes) read as the encrypted layout; strictly it fails at an illegal
    // move of a variation, leniently (variations dropped) at one of the main line, and both
    // errors name the version byte at byte 2 over their own fault. Salvaging keeps the main
    // line up to its illegal move.
    let data = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/fuzz-xqf-unknown-version-bad-variation.bin"
    ))
    .unwrap();
    let strict = xqf::read(&data).unwrap_err().to_string();
    let lenient = xqf::read_lenient(&data).unwrap_err().to_string();
    assert!(
        strict.starts_with("XQF at byte 2 (0x2): the header is damaged: version byte 80")
            && strict.contains("(in a variation)"),
        "{strict}"
    );
    assert!(lenient.contains("(main line)"), "{lenient}");
    let (g, w) = xqf::read_salvaging(&data).unwrap();
    assert_eq!(g.moves.len(), 73);
    assert!(
        kept(&w).to_string().contains("illegal move b3d2 at ply 74"),
        "{w:?}"
    );
    readers::xqf_target(&data);
}
