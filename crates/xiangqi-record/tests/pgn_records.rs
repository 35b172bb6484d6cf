//! Every PGN file of the shared record set (`records/pgn-*/` and the PGN-like files in
//! `records/other/`) is read; every game replays legally; writing it as PGN in each notation
//! and reading that back gives the same game; the same games kept in several files agree.
//!
//! The shared data is found at `<workspace>/../shared`, or where `XIANGQI_SHARED` points.

use std::path::PathBuf;

use xiangqi::notation::Notation;
use xiangqi::Position;
use xiangqi_record::detect::{read_any, RecordFormat};
use xiangqi_record::pgn::{self, PgnErrorKind};
use xiangqi_record::{GameRecord, GameResult, MoveNode};

fn records() -> PathBuf {
    let shared = std::env::var_os("XIANGQI_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"));
    let dir = shared.join("data/records");
    assert!(dir.is_dir(), "record set not found at {}", dir.display());
    dir
}

fn read(rel: &str) -> Vec<Result<GameRecord, pgn::PgnError>> {
    let bytes = std::fs::read(records().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"));
    pgn::read_bytes(&bytes)
}

fn read_ok(rel: &str) -> Vec<GameRecord> {
    read(rel)
        .into_iter()
        .enumerate()
        .map(|(i, g)| g.unwrap_or_else(|e| panic!("{rel} game {}: {e}", i + 1)))
        .collect()
}

/// Expected games and main-line plies of every readable PGN file.
const GOOD: &[(&str, usize, usize)] = &[
    ("pgn-chinese/eleeye-ccgc-01.pgn", 1, 26),
    ("pgn-chinese/eleeye-ccgc-03.pgn", 1, 116),
    ("pgn-chinese/eleeye-ccgc-04.pgn", 1, 123),
    ("pgn-chinese/eleeye-ccgc-06.pgn", 1, 66),
    ("pgn-chinese/eleeye-ccgc-07.pgn", 1, 85),
    ("pgn-chinese/eleeye-ccgc-09.pgn", 1, 89),
    ("pgn-chinese/eleeye-ccgc-10.pgn", 1, 58),
    ("pgn-chinese/eleeye-ccgc-12.pgn", 1, 49),
    ("pgn-chinese/eleeye-ccgc-13.pgn", 1, 61),
    ("pgn-chinese/eleeye-ccgc-15.pgn", 1, 80),
    ("pgn-chinese/eleeye-ccgc-16.pgn", 1, 66),
    ("pgn-chinese/eleeye-ccgc-18.pgn", 1, 103),
    ("pgn-chinese/eleeye-ccgc-19.pgn", 1, 221),
    ("pgn-chinese/eleeye-sample-handicap.pgn", 1, 75),
    ("pgn-chinese/hbsxcjp-cchess-01-zh.pgn", 1, 29),
    ("pgn-chinese/hbsxcjp-cchessc-zh-044.pgn", 1, 13),
    ("pgn-chinese/hbsxcjp-cchessc-zh-051.pgn", 1, 121),
    ("pgn-chinese/hbsxcjp-chinesechess-01.pgn", 1, 25),
    ("pgn-chinese/hbsxcjp-chinesechess-03.pgn", 1, 109),
    ("pgn-chinese/hbsxcjp-chinesechess-04.pgn", 1, 75),
    ("pgn-chinese/hbsxcjp-chinesechess-07.pgn", 1, 67),
    ("pgn-chinese/hbsxcjp-chinesechess-09.pgn", 1, 56),
    ("pgn-chinese/hbsxcjp-chinesechess-10.pgn", 1, 221),
    ("pgn-chinese/hbsxcjp-chinesechess-12.pgn", 1, 78),
    ("pgn-chinese/hbsxcjp-chinesechess-13.pgn", 1, 151),
    ("pgn-chinese/hbsxcjp-chinesechess-15.pgn", 1, 75),
    ("pgn-chinese/walker-test.pgn", 1, 25),
    ("pgn-chinese/walker-test2.pgn", 1, 102),
    ("pgn-chinese/walker-zhongpao-liepao.pgn", 1, 23),
    ("pgn-chinese/wukong-xqdb-traditional-multi.pgn", 15, 1378),
    ("pgn-iccs/hbsxcjp-cchess-01-iccs.pgn", 1, 29),
    ("pgn-iccs/hbsxcjp-cchessc-iccs-005.pgn", 1, 29),
    ("pgn-iccs/hbsxcjp-cchessc-iccs-010.pgn", 1, 13),
    ("pgn-iccs/hbsxcjp-cchessc-iccs-023.pgn", 1, 84),
    ("pgn-iccs/hbsxcjp-cchessc-iccs-032.pgn", 1, 54),
    ("pgn-iccs/hbsxcjp-cchessc-iccs-035.pgn", 1, 26),
    (
        "pgn-iccs/wukong-gameviewer-games-uci-multi.pgn",
        1125,
        101321,
    ),
    ("pgn-iccs/wukong-xqdb-uci-multi.pgn", 15, 1378),
    ("pgn-wxf/wukong-xqdb-international-multi.pgn", 15, 1378),
    // WinBoard PGN with coordinate SAN (Che2, Cxe6): read as well.
    ("other/wukong-engine-game-san-1.pgn", 1, 87),
    ("other/wukong-engine-game-san-3.pgn", 1, 98),
];

/// Every move of every line is legal where it is played (checked again here, independently
/// of the reader).
fn check_legal(pos: &Position, line: &[MoveNode], what: &str) -> usize {
    let mut pos = pos.clone();
    let mut n = 0;
    for node in line {
        for v in &node.variations {
            n += check_legal(&pos, v, what);
        }
        assert!(
            pos.legal_moves().contains(&node.mv),
            "{what}: {} is not legal in {}",
            node.mv,
            pos.fen()
        );
        pos.play_unchecked(node.mv);
        n += 1;
    }
    n
}

#[test]
fn every_pgn_file_reads_replays_and_round_trips() {
    let mut total_games = 0;
    for &(rel, games, plies) in GOOD {
        let gs = read_ok(rel);
        assert_eq!(gs.len(), games, "{rel}: number of games");
        let main: usize = gs.iter().map(|g| g.moves.len()).sum();
        assert_eq!(main, plies, "{rel}: main-line plies");
        for (i, g) in gs.iter().enumerate() {
            let what = format!("{rel} game {}", i + 1);
            check_legal(&g.start, &g.moves, &what);
            for n in [Notation::Iccs, Notation::Wxf, Notation::Chinese] {
                let text = pgn::write_games([g], n);
                let back = pgn::read_all(&text);
                assert_eq!(back.len(), 1, "{what} in {n}");
                let back = back[0].as_ref().unwrap_or_else(|e| {
                    panic!("{what} written in {n} does not read back: {e}\n{text}")
                });
                assert_eq!(
                    back, g,
                    "{what} written in {n} reads back differently:\n{text}"
                );
            }
        }
        total_games += gs.len();
    }
    assert_eq!(total_games, 1125 + 3 * 15 + 37);
}

/// Files that are not PGN (or break its rules beyond repair) give a clear error.
#[test]
fn broken_and_non_pgn_files_give_clear_errors() {
    // A Chinese file that names soldiers stacked on two files by an ordinal across both
    // (四兵进一 at ply 41, line 25, and many more): read by the official rules' order (files
    // from the mover's right, each from the front), every move of it plays, to its end.
    let g = read("pgn-chinese/hbsxcjp-chinesechess-06.pgn");
    assert_eq!(g.len(), 1);
    let rec = g[0].as_ref().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(rec.moves[40].mv.to_string(), "e3e4");
    assert_eq!(rec.moves.len(), 132); // all 66 moves of the file
    assert_eq!(rec.result, xiangqi_record::GameResult::RedWins);
    // A tag header followed by a move tree drawn as a text diagram (hbsxcjp's .pgn_cc).
    let g = read("other/hbsxcjp-cchess-01-cc-tree.txt");
    let e = g[0].as_ref().unwrap_err();
    assert!(
        matches!(&e.kind, PgnErrorKind::UnknownToken(t) if t == "开始"),
        "{e}"
    );
    assert_eq!(e.line, 14);
    // Plain lists, not PGN: no format recognised at all.
    for rel in [
        "other/wukong-puzzle-games-list.txt",
        "other/walker-uci-test-moves.txt",
    ] {
        let bytes = std::fs::read(records().join(rel)).unwrap();
        let e = read_any(&bytes).unwrap_err();
        assert!(e.to_string().contains("not a record format"), "{rel}: {e}");
        let g = pgn::read_bytes(&bytes);
        assert!(
            matches!(g[0].as_ref().unwrap_err().kind, PgnErrorKind::NoGame),
            "{rel}"
        );
    }
}

#[test]
fn read_any_recognises_pgn_by_content() {
    for &(rel, games, _) in GOOD.iter().take(3).chain(GOOD.iter().skip(36).take(1)) {
        let bytes = std::fs::read(records().join(rel)).unwrap();
        let r = read_any(&bytes).unwrap();
        assert_eq!(r.format, RecordFormat::Pgn, "{rel}");
        assert_eq!(r.games.len(), games, "{rel}");
    }
}

#[test]
fn details_of_messy_files() {
    // GBK, CRLF, result and footer junk after it.
    let g = &read_ok("pgn-chinese/eleeye-ccgc-01.pgn")[0];
    assert_eq!(g.result, GameResult::BlackWins);
    assert_eq!(g.tag("Red"), Some("宝岛一号"));
    assert_eq!(g.tag("Game"), Some("Chinese Chess"));
    // Handicap FEN and comments with full-width spaces; black moves on continuation lines.
    let g = &read_ok("pgn-chinese/eleeye-sample-handicap.pgn")[0];
    assert_eq!(
        g.start.fen(),
        "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/9/1C5C1/9/RN2K2NR w - - 0 1"
    );
    assert!(g
        .comment
        .as_deref()
        .unwrap()
        .starts_with("\u{3000}\u{3000}象棋让九子"));
    assert_eq!(g.result, GameResult::RedWins);
    // " -b" side field (Red moves first here), Chinese result word, variations.
    let g = &read_ok("pgn-iccs/hbsxcjp-cchessc-iccs-010.pgn")[0];
    assert_eq!(g.start.fen(), "9/3kaN3/9/9/9/9/9/9/9/4K4 w - - 0 1");
    assert_eq!(g.result, GameResult::RedWins);
    assert_eq!(g.moves[1].variations.len(), 1);
    assert_eq!(g.moves[1].variations[0].len(), 4);
    assert_eq!(g.moves[3].variations[0].len(), 10);
    assert_eq!(g.moves[5].variations[0].len(), 4);
    assert_eq!(
        g.moves[1].variations[0][3].comment.as_deref(),
        Some("\u{3000}\u{3000}红方速胜。")
    );
    for (rel, r) in [
        ("pgn-iccs/hbsxcjp-cchessc-iccs-005.pgn", GameResult::Unknown),
        (
            "pgn-iccs/hbsxcjp-cchessc-iccs-023.pgn",
            GameResult::BlackWins,
        ),
        ("pgn-iccs/hbsxcjp-cchessc-iccs-035.pgn", GameResult::Draw),
    ] {
        assert_eq!(read_ok(rel)[0].result, r, "{rel}");
    }
    // A tag value over two lines (CR LF inside the quotes).
    let g = &read_ok("pgn-iccs/hbsxcjp-cchess-01-iccs.pgn")[0];
    assert_eq!(g.tag("TitleA"), Some("\n四量拨千斤"));
    // FEN side 'r' and move number 0; a nonsense Format value.
    let g = &read_ok(
        "pgn-chinese/hbsxcjp-chinesechess-06.pgn"
            .replace("06", "04")
            .as_str(),
    )[0];
    assert_eq!(g.start.turn(), xiangqi::Color::Red);
    // Full-width WXF with front/rear soldiers written +P / -P.
    let g = read_ok("pgn-wxf/wukong-xqdb-international-multi.pgn");
    assert_eq!(g[0].tag("Red"), Some("ZHAO GuoRong"));
    assert_eq!(g[0].result, GameResult::Unknown);
}

fn strip(line: &[MoveNode]) -> Vec<String> {
    line.iter().map(|n| n.mv.to_string()).collect()
}

/// The same games kept in several files (and formats) read the same.
#[test]
fn same_games_in_several_files_agree() {
    let zh = read_ok("pgn-chinese/wukong-xqdb-traditional-multi.pgn");
    let wxf = read_ok("pgn-wxf/wukong-xqdb-international-multi.pgn");
    let iccs = read_ok("pgn-iccs/wukong-xqdb-uci-multi.pgn");
    assert_eq!(zh.len(), 15);
    for i in 0..15 {
        if i == 1 {
            continue;
        }
        assert_eq!(
            zh[i],
            iccs[i],
            "wukong xqdb game {}: Chinese vs ICCS",
            i + 1
        );
        assert_eq!(wxf[i], iccs[i], "wukong xqdb game {}: WXF vs ICCS", i + 1);
    }
    // Game 2, ply 71: Red has soldiers on e5 and e3 (file 5); the ICCS file plays e5e6, the
    // front soldier, but wukong's Chinese and WXF writers call it 后兵进一 / -P+1, the rear one
    // (an error in the source files: their other front/rear moves are right). Read by the
    // rules, those two files play e3e4 there; up to that ply all three agree.
    assert_eq!(zh[1].moves[..70], iccs[1].moves[..70]);
    assert_eq!(wxf[1].moves, zh[1].moves);
    assert_eq!(iccs[1].moves[70].mv.to_string(), "e5e6");
    assert_eq!(zh[1].moves[70].mv.to_string(), "e3e4");
    let before = {
        let mut p = iccs[1].start.clone();
        for n in &iccs[1].moves[..70] {
            p.play_unchecked(n.mv);
        }
        p
    };
    assert_eq!(
        Notation::Chinese.write(&before, iccs[1].moves[70].mv),
        "前兵进一"
    );
    assert_eq!(Notation::Wxf.write(&before, iccs[1].moves[70].mv), "P++1");
    // hbsxcjp's converter wrote the same games as ICCS and Chinese PGN.
    for (a, b) in [
        (
            "pgn-iccs/hbsxcjp-cchess-01-iccs.pgn",
            "pgn-chinese/hbsxcjp-cchess-01-zh.pgn",
        ),
        (
            "pgn-iccs/hbsxcjp-cchessc-iccs-010.pgn",
            "pgn-chinese/hbsxcjp-cchessc-zh-044.pgn",
        ),
    ] {
        let (x, y) = (&read_ok(a)[0], &read_ok(b)[0]);
        assert_eq!(x.moves, y.moves, "{a} vs {b}");
        assert_eq!(x.start, y.start, "{a} vs {b}");
    }
    // 四量拨千斤 from two converter versions: the same main line.
    let (x, y) = (
        &read_ok("pgn-iccs/hbsxcjp-cchess-01-iccs.pgn")[0],
        &read_ok("pgn-iccs/hbsxcjp-cchessc-iccs-005.pgn")[0],
    );
    assert_eq!(strip(&x.moves), strip(&y.moves));
    // 单马类_第02局 as XQF and as the converter's ICCS output: the same tree.
    let xqf = std::fs::read(records().join("xqf/hbsxcjp-sample-05.xqf")).unwrap();
    let r = read_any(&xqf).unwrap();
    assert_eq!(r.format, RecordFormat::Xqf);
    let from_xqf = r.games.into_iter().next().unwrap().unwrap();
    let from_pgn = &read_ok("pgn-iccs/hbsxcjp-cchessc-iccs-010.pgn")[0];
    assert_eq!(from_xqf.start, from_pgn.start);
    fn tree(line: &[MoveNode]) -> Vec<(String, Vec<Vec<String>>)> {
        line.iter()
            .map(|n| {
                (
                    n.mv.to_string(),
                    n.variations.iter().map(|v| strip(v)).collect(),
                )
            })
            .collect()
    }
    assert_eq!(tree(&from_xqf.moves), tree(&from_pgn.moves));
}

/// `read_any` decides every file of the record set by its content.
#[test]
fn read_any_over_the_whole_record_set() {
    let mut seen = 0;
    for dir in ["pgn-chinese", "pgn-iccs", "pgn-wxf", "xqf", "other"] {
        let mut files: Vec<_> = std::fs::read_dir(records().join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        for f in files {
            let name = f.file_name().unwrap().to_string_lossy().to_string();
            let bytes = std::fs::read(&f).unwrap();
            let expected = match (dir, name.rsplit('.').next().unwrap()) {
                ("xqf", _) => Some(RecordFormat::Xqf),
                (_, "cbl") => Some(RecordFormat::Cbl),
                (_, "cbr") => Some(RecordFormat::Cbr),
                (_, "cbf") => Some(RecordFormat::Cbf),
                _ if name.contains("dhtmlxq") => Some(RecordFormat::DhtmlXq),
                _ if name == "wukong-puzzle-games-list.txt"
                    || name == "walker-uci-test-moves.txt" =>
                {
                    None
                }
                _ => Some(RecordFormat::Pgn),
            };
            match (read_any(&bytes), expected) {
                (Ok(r), Some(fmt)) => {
                    assert_eq!(r.format, fmt, "{dir}/{name}");
                    assert!(!r.games.is_empty(), "{dir}/{name}");
                }
                (Err(e), None) => assert!(e.to_string().contains("not a record format"), "{e}"),
                (got, want) => panic!(
                    "{dir}/{name}: read_any gave {:?}, expected {want:?}",
                    got.map(|r| r.format)
                ),
            }
            seen += 1;
        }
    }
    assert_eq!(seen, 92);
}
