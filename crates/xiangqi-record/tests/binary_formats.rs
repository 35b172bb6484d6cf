//! The binary and other record readers (XQF, CBR, CBL, CBF, DhtmlXQ) on every such file of
//! shared/data/records: each reads, every move of every line replays legally, the facts
//! SOURCES.md states hold, the trees agree with the Python `cchess` library's reading
//! (tests/data/cchess-trees.txt), the same game stored in two formats reads the same, and
//! broken input gives errors that name the format and the place.

use std::path::PathBuf;

use xiangqi::Position;
use xiangqi_record::rawtree::{ErrorKind, Format};
use xiangqi_record::{cbf, cbl, cbr, dhtmlxq, pgn, xqf, GameRecord, GameResult, MoveNode};

mod common {
    pub mod readers;
}

fn shared() -> PathBuf {
    match std::env::var_os("XIANGQI_SHARED") {
        Some(p) => PathBuf::from(p),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"),
    }
}

fn records() -> PathBuf {
    shared().join("data/records")
}

fn read(rel: &str) -> Vec<u8> {
    let p = records().join(rel);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn files(dir: &str, ext: &str) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(records().join(dir))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.to_ascii_lowercase().ends_with(ext))
        .collect();
    v.sort();
    v
}

/// Replays every line with the rules core; returns (moves, variations) counted over the tree.
fn replay(start: &Position, line: &[MoveNode], what: &str) -> (usize, usize) {
    let mut pos = start.clone();
    let (mut moves, mut vars) = (0, 0);
    for (k, n) in line.iter().enumerate() {
        for v in &n.variations {
            assert!(!v.is_empty(), "{what}: empty variation");
            let (m, w) = replay(&pos, v, what);
            moves += m;
            vars += w + 1;
        }
        assert!(
            pos.is_legal(n.mv),
            "{what}: move {} ({}) illegal in {}",
            k + 1,
            n.mv,
            pos.fen()
        );
        pos.play_unchecked(n.mv);
        moves += 1;
    }
    (moves, vars)
}

fn check(rec: &GameRecord, what: &str) -> (usize, usize) {
    assert_eq!(rec.tag("Result"), Some(rec.result.as_pgn()), "{what}");
    replay(&rec.start, &rec.moves, what)
}

fn variations(rec: &GameRecord) -> usize {
    xiangqi_record::rawtree::count_variations(&rec.moves)
}

fn board(rec: &GameRecord) -> String {
    rec.start.fen().split(' ').next().unwrap().to_owned()
}

const START: &str = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR";

/// (file, XQF version, result, main-line plies, variations, set-up placement): SOURCES.md's
/// table (its "N branches" counts the main line too, so it is variations + 1).
/// (file, version, result, plies, variations, set-up placement)
type XqfFact = (
    &'static str,
    u8,
    &'static str,
    usize,
    usize,
    Option<&'static str>,
);

const XQF_FACTS: &[XqfFact] = &[
    (
        "eleeye-sample",
        18,
        "1-0",
        75,
        0,
        Some("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/9/1C5C1/9/RN2K2NR"),
    ),
    (
        "eleeye-xqfexamb",
        18,
        "1/2-1/2",
        87,
        19,
        Some("4rk3/3P5/4bP3/9/9/9/8P/1p2p2C1/3p1p3/4K1RR1"),
    ),
    ("hbsxcjp-hard-feixiangju-zu7jin1", 18, "*", 50, 98, None),
    ("hbsxcjp-sample-01", 13, "1/2-1/2", 60, 0, None),
    ("hbsxcjp-sample-02", 10, "1-0", 53, 0, None),
    ("hbsxcjp-sample-04", 16, "1-0", 111, 5, None),
    (
        "hbsxcjp-sample-05",
        18,
        "1-0",
        13,
        4,
        Some("9/3kaN3/9/9/9/9/9/9/9/4K4"),
    ),
    (
        "hbsxcjp-sample-07",
        18,
        "1-0",
        9,
        2,
        Some("5a3/9/3ak4/9/4N4/9/9/9/5K3/9"),
    ),
    (
        "hbsxcjp-sample-08",
        18,
        "1-0",
        9,
        1,
        Some("9/9/3k4b/9/9/2N6/9/9/9/4K4"),
    ),
    (
        "hbsxcjp-sample-10",
        18,
        "1-0",
        25,
        5,
        Some("9/3k5/9/6p2/9/9/9/2N6/9/4K4"),
    ),
    (
        "hbsxcjp-sample-11",
        18,
        "1-0",
        17,
        3,
        Some("4kab2/4a4/4b4/3N5/9/4N4/4n4/4B4/4A4/3AK1B2"),
    ),
    ("hbsxcjp-sample-13", 12, "1-0", 29, 0, None),
    (
        "hbsxcjp-sample-14",
        18,
        "1-0",
        21,
        2,
        Some("3k5/4P4/9/9/9/9/p8/3A5/1n2K4/2C2A3"),
    ),
    (
        "hbsxcjp-sample-15",
        18,
        "1/2-1/2",
        26,
        0,
        Some("3P1k1P1/1N4P2/6P1b/8C/9/8c/9/3K2p2/9/5n3"),
    ),
    (
        "hbsxcjp-sample-17",
        10,
        "1/2-1/2",
        6,
        0,
        Some("4k4/P3a4/5r3/8p/2b6/9/9/7R1/4K4/9"),
    ),
    (
        "hbsxcjp-sample-18",
        18,
        "1-0",
        5,
        2,
        Some("2b1kab2/4a4/4c4/9/9/3R5/9/1C7/4r4/2BK2B2"),
    ),
    (
        "hbsxcjp-sample-19",
        18,
        "1-0",
        7,
        1,
        Some("3aka3/3P5/9/1N7/9/4n4/9/9/9/4K4"),
    ),
    (
        "hbsxcjp-shazhao-c01-dingshi01",
        18,
        "1-0",
        1,
        1,
        Some("3ak4/4a1P2/9/9/9/9/9/9/9/4K4"),
    ),
    (
        "hbsxcjp-shazhao-c02-dingshi01",
        18,
        "1-0",
        1,
        0,
        Some("3ak4/4a4/9/7N1/9/9/9/9/9/5K3"),
    ),
    (
        "hbsxcjp-shazhao-c02-ju01",
        18,
        "1-0",
        11,
        1,
        Some("3k1a3/9/9/9/7N1/9/9/9/9/4K4"),
    ),
    (
        "hbsxcjp-shazhao-c04-dingshi01",
        18,
        "1-0",
        1,
        0,
        Some("3ak1r2/4aPN2/9/9/9/9/9/4B4/4A4/3A1KB2"),
    ),
    (
        "hbsxcjp-shazhao-c05-ju00",
        18,
        "1-0",
        5,
        0,
        Some("2b2k3/5c3/cC7/9/9/9/9/3C5/4A4/4K4"),
    ),
    (
        "hbsxcjp-shazhao-c07-dingshi01",
        18,
        "1-0",
        5,
        0,
        Some("3ak4/4a4/1N2b4/9/9/9/9/3A3c1/C3K2n1/2BA2B2"),
    ),
    (
        "hbsxcjp-shazhao-c07-ju01",
        18,
        "1-0",
        7,
        2,
        Some("3a1a3/3k5/4b4/9/N8/9/8n/C8/4p4/5K3"),
    ),
    (
        "hbsxcjp-shazhao-c08-ju1",
        18,
        "1-0",
        7,
        1,
        Some("3rka3/2P1a4/9/7R1/9/9/9/B8/9/4K4"),
    ),
    (
        "hbsxcjp-shazhao-c10-dingshi01",
        18,
        "1-0",
        3,
        0,
        Some("3k5/4a4/1R1a5/7N1/2p6/9/9/9/2r6/4K4"),
    ),
    ("hbsxcjp-wuyang2001-02", 16, "1-0", 51, 4, None),
    ("hbsxcjp-wuyang2001-03", 16, "1/2-1/2", 58, 3, None),
    ("hbsxcjp-wuyang2001-10", 16, "1-0", 121, 5, None),
    ("hbsxcjp-wuyang2001-13", 16, "1/2-1/2", 186, 8, None),
    ("vschess-0", 18, "0-1", 106, 0, None),
    (
        "walker-030-huangsongxuan-fengjingru",
        18,
        "1-0",
        37,
        1,
        None,
    ),
    ("walker-badmovetest1", 10, "1-0", 43, 0, None),
    (
        "walker-badmovetest4",
        18,
        "1-0",
        9,
        3,
        Some("2b6/3ka4/2Pab4/5Np2/9/6P2/9/3A5/4A4/4K4"),
    ),
    ("walker-emptytest", 18, "0-1", 0, 0, None),
    ("walker-game-test", 18, "*", 58, 0, None),
    ("walker-game-varations", 18, "*", 8, 5, None),
    (
        "walker-pawn-move",
        18,
        "*",
        14,
        0,
        Some("4k4/9/4P4/3PP1p2/3P5/6p2/4P1p2/6p2/6p2/4K4"),
    ),
    ("walker-save", 18, "*", 2, 0, None),
    ("walker-test2", 18, "*", 12, 0, None),
    (
        "walker-ucci-test2",
        16,
        "1-0",
        7,
        4,
        Some("4ka3/4aR3/4N1C1b/c1p1p4/9/9/2N1P1R2/5C3/r1rp5/5K3"),
    ),
    (
        "walker-ucci-test3",
        16,
        "1-0",
        3,
        1,
        Some("3k3r1/4a4/3a5/6N2/9/9/9/4C4/4p2c1/2BR1K3"),
    ),
    ("walker-unittest", 18, "1/2-1/2", 5, 2, None),
];

#[test]
fn every_xqf_file_reads_and_replays_with_the_stated_facts() {
    let names = files("xqf", ".xqf");
    assert_eq!(names.len(), XQF_FACTS.len(), "XQF files: {names:?}");
    let mut versions = std::collections::BTreeSet::new();
    for &(name, version, result, plies, vars, setup) in XQF_FACTS {
        let file = format!("xqf/{name}.xqf");
        let bytes = read(&file);
        assert!(xqf::looks_like(&bytes), "{file}");
        let header = xqf::read_header(&bytes).unwrap();
        assert_eq!(header.version, version, "{file}");
        assert_eq!(header.encrypted, version >= 11, "{file}");
        versions.insert(version);
        let rec = xqf::read(&bytes).unwrap_or_else(|e| panic!("{file}: {e}"));
        check(&rec, &file);
        assert_eq!(rec.result.as_pgn(), result, "{file}");
        assert_eq!(rec.moves.len(), plies, "{file}");
        assert_eq!(variations(&rec), vars, "{file}");
        assert_eq!(board(&rec), setup.unwrap_or(START), "{file}");
        // The lenient reading of a clean file drops nothing.
        let (lenient, dropped) = xqf::read_lenient(&bytes).unwrap();
        assert!(dropped.is_empty(), "{file}: {dropped:?}");
        assert_eq!(lenient, rec, "{file}");
    }
    assert_eq!(
        versions.into_iter().collect::<Vec<_>>(),
        [10, 12, 13, 16, 18]
    );
}

#[test]
fn xqf_header_information_becomes_tags() {
    let rec = xqf::read(&read("xqf/hbsxcjp-sample-02.xqf")).unwrap();
    assert_eq!(rec.tag("Event"), Some("第25届五羊杯全国象棋冠军邀请赛"));
    assert_eq!(rec.tag("Red"), Some("吉林 洪智"));
    assert_eq!(rec.tag("Black"), Some("火车头 于幼华"));
    assert_eq!(rec.tag("Site"), Some("广州"));
    assert_eq!(rec.tag("Date"), Some("2005.01.18"));
    assert_eq!(rec.result, GameResult::RedWins);

    let rec = xqf::read(&read("xqf/eleeye-xqfexamb.xqf")).unwrap();
    assert_eq!(rec.tag("Title"), Some("七星聚会"));
    assert_eq!(rec.result, GameResult::Draw);
    assert_eq!(variations(&rec) + 1, 20, "SOURCES: 20 branches");

    // Every header field, as XQStudio's own test file fills them in.
    let rec = xqf::read(&read("xqf/walker-unittest.xqf")).unwrap();
    for (tag, value) in [
        ("Title", "标题"),
        ("Event", "比赛名称"),
        ("Date", "比赛日期"),
        ("Site", "比赛地点"),
        ("Red", "红方棋手"),
        ("Black", "黑方棋手"),
        ("TimeControl", "用时规则"),
        ("RedTime", "红方用时"),
        ("BlackTime", "黑方用时"),
        ("Annotator", "棋谱讲评"),
        ("Author", "文件作者"),
        ("Result", "1/2-1/2"),
    ] {
        assert_eq!(rec.tag(tag), Some(value), "{tag}");
    }

    // Comments: the game comment and comments on moves, GBK decoded.
    let rec = xqf::read(&read("xqf/hbsxcjp-sample-07.xqf")).unwrap();
    assert!(rec
        .comment
        .as_deref()
        .unwrap()
        .starts_with("在一般情况下，单马对双士是和局"));
    let v = &rec.moves[0].variations[0];
    assert_eq!(v[0].mv.to_string(), "e5g6");
}

#[test]
fn xqf_bad_move_test_files_are_legal_under_our_rules() {
    // walker8088/cchess keeps BadMoveTest1/4 to exercise its move checker; every move in
    // them is legal (main line and variations), so they read without a dropped move.
    for f in ["xqf/walker-badmovetest1.xqf", "xqf/walker-badmovetest4.xqf"] {
        let (rec, dropped) = xqf::read_lenient(&read(f)).unwrap();
        assert!(dropped.is_empty(), "{f}: {dropped:?}");
        check(&rec, f);
    }
}

#[test]
fn cbr_file_reads() {
    let bytes = read("other/walker-test.cbr");
    assert!(cbr::looks_like(&bytes));
    let rec = cbr::read(&bytes).unwrap();
    check(&rec, "walker-test.cbr");
    assert_eq!(rec.moves.len(), 28);
    assert_eq!(rec.result, GameResult::Unknown);
    assert_eq!(
        rec.tag("Title"),
        Some("黄丹青讲座004-破解新式弃马局的攻防要领")
    );
    // Fields the program left as stale memory are not turned into tags.
    assert_eq!(rec.tag("Date"), None);
    assert_eq!(rec.moves[10].mv.to_string(), "b0c2");
    assert_eq!(
        rec.moves[10].comment.as_deref(),
        Some("不急用平车压马，黑有炮8平9，马3退5变化。")
    );
    assert_eq!(variations(&rec), 11);
}

#[test]
fn cbl_library_reads_all_93_games() {
    let bytes = read("other/walker-1956-national-93games.cbl");
    assert!(cbl::looks_like(&bytes));
    assert!(!cbr::looks_like(&bytes));
    let lib = cbl::read_library(&bytes).unwrap();
    assert_eq!(lib.name.as_deref(), Some("1956年全国象棋锦标赛93局"));
    assert_eq!(lib.games.len(), 93);
    let games = cbl::read(&bytes).unwrap();
    assert_eq!(games.len(), 93);
    for (i, g) in games.iter().enumerate() {
        let what = format!("CBL game {}", i + 1);
        check(g, &what);
        // (Game 24's event reads "1956年先和全国象棋锦标赛（初赛）" in the file itself.)
        assert!(g.tag("Event").unwrap().contains("全国象棋锦标赛"), "{what}");
        assert!(g.tag("Red").is_some() && g.tag("Black").is_some(), "{what}");
        // The title says who won ("(红先胜)" etc.); the result byte agrees, except in game
        // 30, whose title says Red lost and whose result byte says draw (cchess reads the
        // same byte).
        let title = g.tag("Title").unwrap();
        let expected = if title.contains("先胜") {
            GameResult::RedWins
        } else if title.contains("先负") {
            GameResult::BlackWins
        } else if title.contains("先和") {
            GameResult::Draw
        } else {
            panic!("{what}: title {title}")
        };
        if i + 1 == 30 {
            assert_eq!(expected, GameResult::BlackWins);
            assert_eq!(g.result, GameResult::Draw, "{what}: {title}");
        } else {
            assert_eq!(g.result, expected, "{what}: {title}");
        }
    }
    let first = &games[0];
    assert_eq!(first.tag("Red"), Some("保定邓裕如"));
    assert_eq!(first.tag("Black"), Some("哈尔滨王嘉良"));
    assert_eq!(first.tag("Date"), Some("1956年12月17日"));
    assert_eq!(first.tag("Site"), Some("北京市"));
    assert_eq!(first.moves.len(), 82);
}

#[test]
fn cbf_file_reads() {
    let bytes = read("other/walker-test.cbf");
    assert!(cbf::looks_like(&bytes));
    let rec = cbf::read(&bytes).unwrap();
    check(&rec, "walker-test.cbf");
    assert_eq!(rec.moves.len(), 50);
    assert_eq!(rec.result, GameResult::Unknown);
    assert_eq!(rec.tag("Title"), Some("第一局 屏风马巡河炮抵当头炮局(和)"));
    assert_eq!(rec.tag("Event"), Some("居荣鑫《象棋古谱全局三种》"));
    assert_eq!(rec.tag("Annotator"), Some("居荣鑫"));
    assert_eq!(rec.tag("ECCO"), Some("C03"));
    assert_eq!(
        rec.comment.as_deref(),
        Some("中炮横车盘头马对屏风马双炮巡河")
    );
    assert!(rec.moves[6]
        .comment
        .as_deref()
        .unwrap()
        .starts_with("当对方布成屏风马后"));
}

#[test]
fn dhtmlxq_file_reads_with_its_one_illegal_variation_move_reported() {
    let f = "other/vschess-dhtmlxq-xianrenzhilu.txt";
    let bytes = read(f);
    assert!(dhtmlxq::looks_like(&bytes));
    // The file's branch 1194 plays, at ply 65, an elephant move that uncovers a horse's leg
    // and leaves Red's general attacked (pyffish agrees: the elephant has no legal move
    // there). Strict reading refuses the file and says exactly where.
    let e = dhtmlxq::read(&bytes).unwrap_err();
    assert_eq!(e.format, Format::DhtmlXq);
    assert_eq!(e.offset, Some(458313));
    match &e.kind {
        ErrorKind::IllegalMove {
            ply,
            mainline,
            mv,
            fen,
        } => {
            assert_eq!(
                (*ply, *mainline, mv.to_string().as_str()),
                (65, false, "e2g4")
            );
            assert_eq!(
                fen,
                "2bak4/4a1n2/2c1b4/2N1p3P/2cR5/6p2/1C2P4/4Bn2r/2CK5/3A1A3 w - - 0 33"
            );
        }
        k => panic!("{k:?}"),
    }
    let text = e.to_string();
    assert!(text.starts_with("DhtmlXQ at byte 458313"), "{text}");
    assert!(
        text.contains("illegal move e2g4 at ply 65 (in a variation)"),
        "{text}"
    );
    let tag_start = String::from_utf8_lossy(&bytes[..458313])
        .rfind("[DhtmlXQ_move_")
        .unwrap();
    assert!(String::from_utf8_lossy(&bytes[tag_start..458313])
        .starts_with("[DhtmlXQ_move_1189_11_1194]"));

    // Lenient reading keeps everything else.
    let (rec, dropped) = dhtmlxq::read_lenient(&bytes).unwrap();
    assert_eq!(dropped, vec![e]);
    check(&rec, f);
    assert_eq!(rec.moves.len(), 53);
    assert_eq!(variations(&rec), 1446);
    assert_eq!(rec.tag("Title"), Some("仙人指路全集（史上最全最新版）"));
    assert_eq!(rec.tag("Author"), Some("东方剑客"));
    assert_eq!(rec.result, GameResult::Unknown, "[DhtmlXQ_result]未知");
    assert_eq!(rec.moves[0].mv.to_string(), "c3c4", "仙人指路");
    // "||" in comments are line breaks.
    let c = rec.comment.as_deref().unwrap();
    assert!(
        c.starts_with("本文介绍20世纪90年代") && c.contains('\n'),
        "{c}"
    );
    assert_eq!(rec.moves[52].comment.as_deref(), Some("和"));
}

/// The tree written the way tests/data/cchess_trees.py writes cchess's.
fn tree(line: &[MoveNode], comments: bool) -> String {
    // Iterative over the main line; recursion only for variations.
    fn node(n: &MoveNode, rest: &[MoveNode], comments: bool) -> String {
        format!(
            "{}{}({})",
            n.mv,
            if comments && n.comment.is_some() {
                "*"
            } else {
                ""
            },
            tree(rest, comments)
        )
    }
    if line.is_empty() {
        return String::new();
    }
    let n = &line[0];
    let mut parts = vec![node(n, &line[1..], comments)];
    for v in &n.variations {
        parts.push(node(&v[0], &v[1..], comments));
    }
    parts.join(",")
}

#[test]
fn trees_agree_with_the_python_cchess_library() {
    let text = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/cchess-trees.txt"),
    )
    .unwrap();
    let mut mine = std::collections::HashMap::new();
    for name in files("xqf", ".xqf") {
        mine.insert(
            name.clone(),
            xqf::read(&read(&format!("xqf/{name}"))).unwrap(),
        );
    }
    mine.insert(
        "walker-test.cbr".into(),
        cbr::read(&read("other/walker-test.cbr")).unwrap(),
    );
    for (i, g) in cbl::read(&read("other/walker-1956-national-93games.cbl"))
        .unwrap()
        .into_iter()
        .enumerate()
    {
        mine.insert(format!("walker-1956-national-93games.cbl#{}", i + 1), g);
    }
    // Where the comment marks differ, and why: cchess keeps comments made only of
    // (full-width) spaces, which these readers drop; cchess's CBR reader loses a comment
    // that has no NUL terminator inside its stated length, which these readers keep.
    let comment_differences = [
        "hbsxcjp-sample-07.xqf",
        "hbsxcjp-shazhao-c07-ju01.xqf",
        "walker-test.cbr",
    ];
    let mut compared = 0;
    for line in text.lines() {
        let (name, theirs) = line.split_once(' ').unwrap();
        let rec = mine.get(name).unwrap_or_else(|| panic!("no game {name}"));
        let strip = |s: &str| s.replace('*', "");
        assert_eq!(
            tree(&rec.moves, false),
            strip(theirs),
            "{name}: move trees differ"
        );
        if !comment_differences.contains(&name) {
            assert_eq!(
                tree(&rec.moves, true),
                theirs,
                "{name}: comment marks differ"
            );
        } else {
            assert_ne!(
                tree(&rec.moves, true),
                theirs,
                "{name}: now agrees, update the list"
            );
        }
        compared += 1;
    }
    assert_eq!(compared, mine.len());
    assert_eq!(compared, 43 + 1 + 93);
}

/// Main line and start position of the only game in a PGN file.
fn pgn_game(rel: &str) -> GameRecord {
    let mut games = pgn::read_bytes(&read(rel));
    assert_eq!(games.len(), 1, "{rel}");
    games.remove(0).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn mainline(rec: &GameRecord) -> Vec<String> {
    rec.mainline().map(|m| m.to_string()).collect()
}

#[test]
fn the_same_game_in_two_formats_reads_the_same() {
    // (XQF, PGN converted from it): hbsxcjp's converter outputs of its own XQF files, and
    // xqbase's XQF2PGN output of its sample. (hbsxcjp's 四量拨千斤 XQF is not in this set; its
    // ICCS and Chinese conversions are.)
    let pairs = [
        (
            "xqf/hbsxcjp-sample-05.xqf",
            "pgn-iccs/hbsxcjp-cchessc-iccs-010.pgn",
        ),
        (
            "xqf/hbsxcjp-sample-05.xqf",
            "pgn-chinese/hbsxcjp-cchessc-zh-044.pgn",
        ),
        (
            "xqf/hbsxcjp-sample-15.xqf",
            "pgn-iccs/hbsxcjp-cchessc-iccs-035.pgn",
        ),
        (
            "xqf/hbsxcjp-wuyang2001-10.xqf",
            "pgn-chinese/hbsxcjp-cchessc-zh-051.pgn",
        ),
        (
            "xqf/eleeye-sample.xqf",
            "pgn-chinese/eleeye-sample-handicap.pgn",
        ),
    ];
    for (x, p) in pairs {
        let a = xqf::read(&read(x)).unwrap();
        let b = pgn_game(p);
        assert_eq!(board(&a), board(&b), "{x} vs {p}: start");
        assert_eq!(a.start.turn(), b.start.turn(), "{x} vs {p}: side to move");
        assert_eq!(mainline(&a), mainline(&b), "{x} vs {p}: main line");
        assert_eq!(
            tree(&a.moves, false),
            tree(&b.moves, false),
            "{x} vs {p}: variations"
        );
    }
    // Where both carry names and a result, they agree too.
    let a = xqf::read(&read("xqf/eleeye-sample.xqf")).unwrap();
    let b = pgn_game("pgn-chinese/eleeye-sample-handicap.pgn");
    for t in ["Red", "Black", "Event", "Date", "Site"] {
        assert_eq!(a.tag(t), b.tag(t), "{t}");
    }
    assert_eq!(a.result, b.result);
}

// ---------------------------------------------------------------------------------------
// Broken input.

#[test]
fn broken_xqf_files_give_errors_with_offsets() {
    let good = read("xqf/hbsxcjp-sample-02.xqf"); // v10, 53 plies, no variations
                                                  // Cut inside the move tree: the last record (at 0x400 + 8 * 53) loses its comment length.
    let cut = &good[..0x400 + 8 * 53 + 5];
    let e = xqf::read(cut).unwrap_err();
    assert_eq!(e.format, Format::Xqf);
    assert!(matches!(e.kind, ErrorKind::Truncated { .. }), "{e}");
    assert!(e.to_string().contains("XQF at byte"), "{e}");
    // Cut inside the header.
    let e = xqf::read(&good[..500]).unwrap_err();
    assert!(e.to_string().contains("the 1024-byte header"), "{e}");
    // Move 10 redirected to a point off the board (to-square code 95).
    let mut bad = good.clone();
    let at = 0x400 + 8 * 10;
    bad[at + 1] = 95 + 32;
    let e = xqf::read(&bad).unwrap_err();
    assert_eq!(e.offset, Some(at));
    assert!(
        matches!(e.kind, ErrorKind::BadSquare { value: 95, .. }),
        "{e}"
    );
    // Move 10 made a move onto its own from-square.
    let mut bad = good.clone();
    bad[at + 1] = bad[at] - 24 + 32;
    let e = xqf::read(&bad).unwrap_err();
    assert_eq!(e.offset, Some(at));
    match e.kind {
        ErrorKind::IllegalMove { ply, mainline, .. } => assert_eq!((ply, mainline), (10, true)),
        k => panic!("{k:?}"),
    }
    // An illegal main-line move is the game's error also when reading leniently.
    assert_eq!(xqf::read_lenient(&bad).unwrap_err(), e);
    // Two pieces set up on one point.
    let mut bad = good.clone();
    bad[16 + 1] = bad[16]; // Red's horse onto Red's chariot
    let e = xqf::read(&bad).unwrap_err();
    assert!(matches!(e.kind, ErrorKind::SquareTwice { .. }), "{e}");
    // Not an XQF at all.
    let e = xqf::read(&read("other/walker-test.cbr")).unwrap_err();
    assert!(matches!(e.kind, ErrorKind::NotThisFormat(_)), "{e}");
}

#[test]
fn broken_cbr_cbl_cbf_dhtmlxq_give_errors_naming_format_and_place() {
    // CBR: cut inside the move tree.
    let good = read("other/walker-test.cbr");
    let e = cbr::read(&good[..2246]).unwrap_err();
    assert_eq!(e.format, Format::Cbr);
    assert!(matches!(e.kind, ErrorKind::Truncated { .. }), "{e}");
    // ... and inside the comment of move 11, whose record is at byte 2258.
    let e = cbr::read(&good[..2300]).unwrap_err();
    assert_eq!(e.offset, Some(2258));
    assert!(
        e.to_string()
            .contains("a comment of 44 bytes, but only 34 bytes are left"),
        "{e}"
    );
    // CBR: an unknown piece code on the board.
    let mut bad = good.clone();
    bad[2120] = 0x31;
    let e = cbr::read(&bad).unwrap_err();
    assert_eq!(e.offset, Some(2120));
    assert!(e.to_string().contains("unknown piece code 0x31"), "{e}");

    // CBL: game 5 cut short (its record overwritten with zeros after the header).
    let mut lib = read("other/walker-1956-national-93games.cbl");
    let lib_read = cbl::read_library(&lib).unwrap();
    let g5 = lib_read.offsets[4];
    for b in &mut lib[g5 + 2214..g5 + 2300] {
        *b = 0xee;
    }
    let e = cbl::read(&lib).unwrap_err();
    assert_eq!((e.format, e.game), (Format::Cbl, Some(5)));
    assert!(e.to_string().starts_with("CBL game 5 at byte"), "{e}");
    // The other 92 games still read through read_library.
    let lib_read = cbl::read_library(&lib).unwrap();
    assert_eq!(lib_read.games.iter().filter(|g| g.is_ok()).count(), 92);

    // CBF: broken XML and a broken move.
    let good = String::from_utf8(read("other/walker-test.cbf")).unwrap();
    let e = cbf::read(good.replace("</MoveList>", "").as_bytes()).unwrap_err();
    assert_eq!(e.format, Format::Cbf);
    assert!(e.to_string().contains("XML"), "{e}");
    let e = cbf::read(
        good.replace("value=\"70-62\"", "value=\"7x-62\"")
            .as_bytes(),
    )
    .unwrap_err();
    assert!(e.to_string().contains("7x-62"), "{e}");
    assert_eq!(e.offset, Some(good.find("<Move value=\"70-62\"").unwrap()));

    // DhtmlXQ: a move list that is not digits.
    let e = dhtmlxq::read(b"[DhtmlXQ][DhtmlXQ_movelist]7747706a[/DhtmlXQ_movelist][/DhtmlXQ]")
        .unwrap_err();
    assert_eq!(e.format, Format::DhtmlXq);
    assert_eq!(e.offset, Some(31));
    assert!(e.to_string().contains("move 2 \"706a\""), "{e}");
}

#[test]
fn fuzz_finding_a_broken_variation_before_a_broken_main_line() {
    // Found by the xqf fuzz target in CI: the strict reader stops at an illegal move of a
    // variation met first in the file; the lenient reader drops that variation and stops at
    // the main line's illegal move. Both fail (the game's error), at different places.
    let data = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/fuzz-xqf-bad-variation-then-bad-mainline.bin"
    ))
    .unwrap();
    let strict = xqf::read(&data).unwrap_err();
    let lenient = xqf::read_lenient(&data).unwrap_err();
    assert!(
        matches!(
            strict.kind,
            ErrorKind::IllegalMove {
                mainline: false,
                ..
            }
        ),
        "{strict:?}"
    );
    assert!(
        matches!(lenient.kind, ErrorKind::IllegalMove { mainline: true, .. }),
        "{lenient:?}"
    );
    common::readers::xqf_target(&data);
}

#[test]
fn arbitrary_bytes_never_panic() {
    // A cheap, deterministic stand-in for the fuzz targets `xqf` and `cb_dhtmlxq`: mutate real
    // files and give them to the same checks (common/readers.rs: no panic, whatever reads
    // replays legally, strict and lenient readings agree), and to the CBL reader.
    let seeds = [
        read("xqf/eleeye-xqfexamb.xqf"),
        read("xqf/hbsxcjp-sample-02.xqf"),
        read("other/walker-test.cbr"),
        read("other/walker-test.cbf"),
        read("other/vschess-dhtmlxq-xianrenzhilu.txt"),
    ];
    let mut x: u64 = 0x9e3779b97f4a7c15;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let (mut inputs, mut strict_reads) = (0, 0);
    for seed in &seeds {
        for _ in 0..240 {
            let mut v = seed.clone();
            for _ in 0..(next() % 8 + 1) {
                let i = (next() as usize) % v.len();
                v[i] = next() as u8;
            }
            if next() % 4 == 0 {
                let n = (next() as usize) % v.len();
                v.truncate(n);
            }
            strict_reads += common::readers::xqf_target(&v);
            strict_reads += common::readers::cb_dhtmlxq_target(&v);
            let _ = cbl::read(&v);
            inputs += 1;
        }
    }
    println!("{inputs} mutated files, {strict_reads} strict readings");
    // The mutations must reach the readers' success paths, not only their first checks.
    assert!(
        strict_reads >= inputs / 4,
        "only {strict_reads} strict readings of {inputs} mutated files"
    );
}
