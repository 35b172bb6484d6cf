//! Record files that real users have and that the readers refused (issue #18): one test per
//! class, each on a small file made for it under `tests/data/issue18/`.

use xiangqi_record::detect::{read_any, read_any_strict, RecordError, RecordFormat};
use xiangqi_record::rawtree::ErrorKind;
use xiangqi_record::GameRecord;

fn data(name: &str) -> Vec<u8> {
    let p = format!("{}/tests/data/issue18/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&p).unwrap_or_else(|e| panic!("{p}: {e}"))
}

fn iccs(line: &[xiangqi_record::MoveNode]) -> Vec<String> {
    line.iter().map(|n| n.mv.to_string()).collect()
}

fn ok(g: &Result<GameRecord, RecordError>) -> &GameRecord {
    g.as_ref().unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn a_bad_variation_never_sinks_a_pgn_game() {
    let bytes = data("bad-variation.pgn");
    let all = read_any(&bytes).unwrap();
    assert_eq!(all.format, RecordFormat::Pgn);
    assert_eq!(all.games.len(), 3);
    // Game 1: the variation keeps its legal move, loses the rest (with its nested line).
    let g = ok(&all.games[0]);
    assert_eq!(iccs(&g.moves), ["h2e2", "h9g7", "h0g2"]);
    assert_eq!(g.moves[1].variations.len(), 1);
    assert_eq!(iccs(&g.moves[1].variations[0]), ["b9c7"]);
    // Game 2: an illegal main-line move is that game's error.
    let e = all.games[1].as_ref().unwrap_err();
    assert_eq!(e.game(), Some(2));
    let text = e.to_string();
    assert!(text.contains("line 11") && text.contains("a0a5"), "{text}");
    // Game 3 reads.
    assert_eq!(iccs(&ok(&all.games[2]).moves), ["h2e2", "h9g7"]);
    // One warning: file place (game, line), the move and the position.
    assert_eq!(all.warnings.len(), 1, "{:?}", all.warnings);
    let w = all.warnings[0].to_string();
    assert_eq!(all.warnings[0].game(), Some(1));
    assert!(w.contains("game 1, line 5"), "{w}");
    assert!(w.contains("'h2h9' (ply 3)"), "{w}");
    assert!(
        w.contains("r1bakabnr/9/1cn4c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR w"),
        "{w}"
    );
    // Strict: game 1 is refused, nothing is a warning.
    let strict = read_any_strict(&bytes).unwrap();
    assert!(strict.warnings.is_empty());
    let e = strict.games[0].as_ref().unwrap_err().to_string();
    assert!(e.contains("h2h9"), "{e}");
    assert!(strict.games[2].is_ok());
}

#[test]
fn a_bad_variation_never_sinks_a_dhtmlxq_game() {
    let bytes = data("bad-variation.dhtmlxq.txt");
    let all = read_any(&bytes).unwrap();
    assert_eq!(all.format, RecordFormat::DhtmlXq);
    let g = ok(&all.games[0]);
    assert_eq!(iccs(&g.moves), ["h2e2", "h9g7"]);
    // Branch 1 (b9c7, then an illegal h2e2) is cut at the bad move; branch 2, an alternative
    // to the bad move, carries it on.
    assert_eq!(iccs(&g.moves[1].variations[0]), ["b9c7", "h0g2"]);
    assert_eq!(all.warnings.len(), 1);
    let w = &all.warnings[0];
    assert_eq!(w.game(), Some(1));
    let RecordError::Binary(b) = w else {
        panic!("{w:?}")
    };
    let at = String::from_utf8_lossy(&bytes).find("7747[/DhtmlXQ_move_0_2_1]");
    assert_eq!(b.offset, at);
    assert!(matches!(
        b.kind,
        ErrorKind::IllegalMove {
            ply: 3,
            mainline: false,
            ..
        }
    ));
    let text = w.to_string();
    assert!(text.contains("illegal move h2e2 at ply 3"), "{text}");
    assert!(read_any_strict(&bytes).unwrap().games[0].is_err());
}

#[test]
fn pgn_black_moves_written_straight_after_dots() {
    let all = read_any(&data("black-after-dots.pgn")).unwrap();
    let g = ok(&all.games[0]);
    assert_eq!(
        iccs(&g.moves),
        ["h2e2", "h9g7", "h0g2", "i9h9", "i0h0", "b9c7", "c3c4", "c6c5"]
    );
    assert!(all.warnings.is_empty());
}

#[test]
fn big5_pgn_is_detected_and_read() {
    let bytes = data("big5.pgn");
    assert!(std::str::from_utf8(&bytes).is_err());
    let (_, enc) = xiangqi_record::encoding::decode(&bytes);
    assert_eq!(enc, xiangqi_record::encoding::TextEncoding::Big5);
    let all = read_any(&bytes).unwrap();
    assert_eq!(all.format, RecordFormat::Pgn);
    let g = ok(&all.games[0]);
    assert_eq!(g.tag("Event"), Some("全國象棋個人賽"));
    assert_eq!(g.tag("Red"), Some("胡榮華"));
    assert_eq!(g.moves[5].comment.as_deref(), Some("紅方先手"));
    assert_eq!(
        iccs(&g.moves),
        ["h2e2", "h9g7", "h0g2", "i9h9", "i0h0", "b9c7", "c3c4", "g6g5"]
    );
}

#[test]
fn dhtmlxq_unclosed_tag_is_a_warning() {
    let bytes = data("unclosed-tag.dhtmlxq.txt");
    let all = read_any(&bytes).unwrap();
    assert_eq!(all.format, RecordFormat::DhtmlXq);
    let g = ok(&all.games[0]);
    assert_eq!(iccs(&g.moves), ["h2e2", "h9g7"]);
    assert_eq!(g.tag("Black"), Some("Black player"));
    assert_eq!(g.tag("BlackTime"), None);
    assert_eq!(all.warnings.len(), 1);
    let w = all.warnings[0].to_string();
    let at = String::from_utf8_lossy(&bytes)
        .find("[DhtmlXQ_blacktime]")
        .unwrap();
    assert!(
        w.starts_with(&format!("DhtmlXQ game 1 at byte {at} ")),
        "{w}"
    );
    assert!(w.contains("[DhtmlXQ_blacktime] has no closing"), "{w}");
    let e = read_any_strict(&bytes).unwrap().games[0]
        .as_ref()
        .unwrap_err()
        .to_string();
    assert!(e.contains("no closing [/DhtmlXQ_blacktime]"), "{e}");
}

#[test]
fn dhtmlxq_inside_a_whole_html_page() {
    let bytes = data("in-page.html");
    assert!(bytes.windows(8).position(|w| w == b"[DhtmlXQ").unwrap() > 65536);
    let all = read_any(&bytes).unwrap();
    assert_eq!(all.format, RecordFormat::DhtmlXq);
    let g = ok(&all.games[0]);
    assert_eq!(g.tag("Title"), Some("page game"));
    assert_eq!(iccs(&g.moves), ["h2e2", "h9g7"]);
    assert_eq!(iccs(&g.moves[1].variations[0]), ["b9c7"]);
    assert_eq!(g.result, xiangqi_record::GameResult::Draw);
    assert!(all.warnings.is_empty());
}

fn titles_and_moves(all: &xiangqi_record::detect::ReadAll) -> Vec<(String, Vec<String>)> {
    all.games
        .iter()
        .map(|g| {
            let g = ok(g);
            (g.tag("Title").unwrap_or("").to_string(), iccs(&g.moves))
        })
        .collect()
}

#[test]
fn compressed_cbl_reads_as_the_uncompressed_one() {
    let plain = read_any(&data("plain.cbl")).unwrap();
    let bytes = data("compressed.cbl");
    assert!(bytes.starts_with(b"CCBridge") && !bytes.starts_with(b"CCBridgeLibrary"));
    let all = read_any(&bytes).unwrap();
    assert_eq!(all.format, RecordFormat::Cbl);
    assert_eq!(all.games.len(), 3);
    assert_eq!(titles_and_moves(&all), titles_and_moves(&plain));
    assert_eq!(
        titles_and_moves(&all)[1],
        (
            "game two".to_string(),
            vec!["h0g2".to_string(), "h9g7".to_string()]
        )
    );
    let lib = xiangqi_record::cbl::read_library(&bytes).unwrap();
    assert_eq!(lib.name.as_deref(), Some("issue 18 library"));
    // A broken stream is a clear error, not a panic.
    let mut bad = bytes.clone();
    let n = bad.len();
    bad.truncate(n - 20);
    let e = read_any(&bad).unwrap().games[0]
        .as_ref()
        .unwrap_err()
        .to_string();
    assert!(e.contains("does not inflate"), "{e}");
}

#[test]
fn cbl_empty_record_is_skipped_with_a_warning() {
    let bytes = data("empty-record.cbl");
    let all = read_any(&bytes).unwrap();
    let got = titles_and_moves(&all);
    assert_eq!(got.len(), 2);
    assert_eq!(got[0].0, "game one");
    assert_eq!(got[1], ("game three".to_string(), vec!["c3c4".to_string()]));
    assert_eq!(all.warnings.len(), 1);
    assert_eq!(all.warnings[0].game(), Some(2));
    let w = all.warnings[0].to_string();
    assert!(
        w.starts_with("CBL game 2 at byte 10312") && w.contains("empty record"),
        "{w}"
    );
    // Strictly the empty record is game 2's error.
    let strict = read_any_strict(&bytes).unwrap();
    assert_eq!(strict.games.len(), 3);
    assert!(strict.games[1].is_err());
}

#[test]
fn xiexie_wxf_game_files_are_detected_and_read() {
    let bytes = data("xiexie.wxf");
    let all = read_any(&bytes).unwrap();
    assert_eq!(all.format, RecordFormat::XieXie);
    assert_eq!(all.games.len(), 1);
    let g = ok(&all.games[0]);
    assert_eq!(g.tag("Event"), Some("Club match"));
    assert_eq!(g.tag("Red"), Some("Wang Red"));
    assert_eq!(g.tag("Black"), Some("Li Black"));
    assert_eq!(g.tag("Date"), Some("2024.05.01"));
    assert_eq!(g.result, xiangqi_record::GameResult::RedWins);
    assert_eq!(
        iccs(&g.moves),
        ["h2e2", "h9g7", "h0g2", "i9h9", "i0h0", "h7h3"]
    );
    assert_eq!(g.moves[2].nags, [1]);
    assert_eq!(g.moves[5].nags, [5]);
    // An unplayable move is an error naming the file's own line.
    let text = String::from_utf8(bytes).unwrap().replace("R1.2", "R1+9");
    let e = read_any(text.as_bytes()).unwrap().games[0]
        .as_ref()
        .unwrap_err()
        .to_string();
    assert!(e.contains("line 10") && e.contains("R1+9"), "{e}");
    // Plain PGN is still PGN.
    assert_eq!(
        read_any(&data("black-after-dots.pgn")).unwrap().format,
        RecordFormat::Pgn
    );
}

#[test]
fn genuinely_broken_files_still_fail_naming_the_place() {
    // A board diagram inside the movetext.
    let all = read_any(&data("broken-board-diagram.pgn")).unwrap();
    let e = all.games[0].as_ref().unwrap_err().to_string();
    assert!(
        e.contains("game 1, line 5") && e.contains("车马象士将士象马车"),
        "{e}"
    );
    // Placeholders instead of moves, on the main line and in a variation: the first is the
    // game's error; nothing is read past it as if it were a dropped variation.
    let all = read_any(&data("broken-placeholders.pgn")).unwrap();
    let e = all.games[0].as_ref().unwrap_err().to_string();
    assert!(
        e.contains("game 1, line 4") && e.contains("'xxxx' is not a move"),
        "{e}"
    );
    assert!(all.warnings.is_empty());
    // Inside a variation only: still an error, not a warning.
    let text = "[Event \"x\"]\n\n1. h2e2 h9g7 (1... 车马象士将士象马车) 2. h0g2 *\n";
    let all = read_any(text.as_bytes()).unwrap();
    let e = all.games[0].as_ref().unwrap_err().to_string();
    assert!(
        e.contains("line 3") && e.contains("车马象士将士象马车"),
        "{e}"
    );
    assert!(all.warnings.is_empty());
}

#[test]
fn chinese_soldiers_stacked_on_two_files_by_ordinal_across_both() {
    let all = read_any(&data("soldiers-two-files.pgn")).unwrap();
    let g = ok(&all.games[0]);
    // Red: file 5 (e6, e5) before file 7 (c7, c6, c5): 三兵 is c7, 二兵 is e5.
    assert_eq!(iccs(&g.moves), ["c7c8", "f9e9", "e5f5", "e9f9"]);
    // Written the same way.
    let mut out = String::new();
    xiangqi_record::pgn::write_game(&mut out, g, xiangqi::notation::Notation::Chinese);
    assert!(
        out.contains("1. 三兵进一 将6平5 2. 二兵平四 将5平6 *"),
        "{out}"
    );
}

/// Issue #29 item 2: a library in which no game record is found is an error naming what was
/// looked for, never an empty success (a convert of it wrote nothing and exited 0), whether the
/// library is plain or compressed.
#[test]
fn a_library_without_game_records_is_an_error() {
    let magic = b"CCBridge Record\0";
    let mut plain = data("plain.cbl");
    let at: Vec<usize> = (0..plain.len() - magic.len())
        .filter(|&i| plain[i..].starts_with(magic))
        .collect();
    assert_eq!(at.len(), 3);
    for i in at {
        plain[i..i + magic.len()].copy_from_slice(b"CCBridge Xxxxxx\0");
    }
    let e = xiangqi_record::cbl::read_library(&plain)
        .unwrap_err()
        .to_string();
    assert!(e.contains("no game record in the library"), "{e}");
    let all = read_any(&plain).unwrap();
    assert_eq!(all.games.len(), 1);
    assert!(all.games[0].is_err());

    // The same body compressed, as the compressed libraries hold it.
    use std::io::Write;
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    z.write_all(&plain).unwrap();
    let mut compressed = b"CCBridge".to_vec();
    compressed.extend_from_slice(&[0; 8]);
    compressed.extend_from_slice(&z.finish().unwrap());
    let e = xiangqi_record::cbl::read_library(&compressed)
        .unwrap_err()
        .to_string();
    assert!(e.contains("no game record in the library"), "{e}");
}
