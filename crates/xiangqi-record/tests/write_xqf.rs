//! Writing XQF (`xqf::write_game`, `xiangqi convert --to xqf`): every game of the test
//! collection (the shared record set and this crate's tests/data, the one
//! tests/write_dhtmlxq.rs writes) written as XQF reads back with the strict reader to the same
//! start, moves, variations, comments, result and the tags XQF holds.

use std::path::{Path, PathBuf};

use xiangqi_record::detect::{read_any, RecordFormat};
use xiangqi_record::{xqf, GameRecord, GameResult, MoveNode};

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            files(&p, out);
        } else if !p.extension().is_some_and(|x| x == "md" || x == "py") {
            out.push(p);
        }
    }
}

/// A comment as XQF keeps it: trimmed (the reader trims whitespace and NULs).
fn comment(c: &Option<String>) -> Option<String> {
    c.as_deref()
        .map(|c| {
            c.trim_matches(|c: char| c.is_whitespace() || c == '\0')
                .to_owned()
        })
        .filter(|c| !c.is_empty())
}

/// A line in the shape XQF can hold: every alternative at a ply is a sibling (PGN's
/// `(a (b))` is one more alternative there), alternatives in the order of their moves.
#[derive(Debug, PartialEq, Eq)]
struct Norm(Vec<(String, Option<String>, Vec<Norm>)>);

fn norm(line: &[MoveNode]) -> Norm {
    Norm(
        line.iter()
            .map(|n| {
                let mut alts = Vec::new();
                let mut queue: Vec<&Vec<MoveNode>> = n.variations.iter().collect();
                while let Some(v) = queue.pop() {
                    if v.is_empty() {
                        continue;
                    }
                    queue.extend(v[0].variations.iter());
                    let mut v2: Vec<MoveNode> = v.to_vec();
                    v2[0].variations.clear();
                    alts.push(norm(&v2));
                }
                alts.sort_by_key(|a| format!("{a:?}"));
                (n.mv.to_string(), comment(&n.comment), alts)
            })
            .collect(),
    )
}

const XQF_TAGS: [&str; 11] = [
    "Title",
    "Event",
    "Date",
    "Site",
    "Red",
    "Black",
    "TimeControl",
    "RedTime",
    "BlackTime",
    "Annotator",
    "Author",
];

/// Writes `g` and reads it back; `Err` is the writer's refusal.
fn round_trip(g: &GameRecord, what: &str) -> Result<(), String> {
    let bytes = xqf::write_game(g).map_err(|e| e.to_string())?;
    let back = xqf::read(&bytes).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(back.start.board(), g.start.board(), "{what}");
    assert_eq!(back.start.turn(), g.start.turn(), "{what}");
    assert_eq!(back.result, g.result, "{what}");
    assert_eq!(back.tag("Result"), Some(g.result.as_pgn()), "{what}");
    assert_eq!(comment(&g.comment), back.comment, "{what}");
    assert_eq!(norm(&g.moves), norm(&back.moves), "{what}");
    for tag in XQF_TAGS {
        let want = g.tag(tag).map(str::trim).filter(|v| !v.is_empty());
        assert_eq!(back.tag(tag), want, "{what}: tag {tag}");
    }
    Ok(())
}

#[test]
fn every_game_of_the_test_collection_reads_back() {
    let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let shared = std::env::var_os("XIANGQI_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| here.join("../../../shared"));
    let mut all = Vec::new();
    files(&shared.join("data/records"), &mut all);
    files(&here.join("tests/data"), &mut all);
    all.sort();
    let (mut games, mut with_variations, mut set_ups, mut refused) = (0, 0, 0, 0);
    let mut formats = std::collections::BTreeSet::new();
    for p in &all {
        let Ok(bytes) = std::fs::read(p) else {
            continue;
        };
        let Ok(r) = read_any(&bytes) else { continue };
        formats.insert(r.format.name());
        // At most 40 games a file keeps the test quick (one big PGN holds thousands).
        for (i, g) in r.games.iter().take(40).enumerate() {
            let Ok(g) = g else { continue };
            let what = format!("{} game {}", p.display(), i + 1);
            if let Err(e) = round_trip(g, &what) {
                // Only what XQF cannot hold is refused; without the over-long tags the rest
                // of the game still reads back.
                refused += 1;
                assert!(e.contains("XQF holds at most"), "{what}: {e}");
                let mut short = g.clone();
                short.tags.retain(|(k, v)| {
                    let cap = match k.as_str() {
                        "Title" => 127,
                        "Event" | "TimeControl" => 63,
                        _ => 15,
                    };
                    xiangqi_record::encoding::encode_gb18030(v.trim()).len() <= cap
                });
                round_trip(&short, &what).unwrap_or_else(|e| panic!("{what}: {e}"));
            }
            games += 1;
            with_variations += g.moves.iter().any(|n| !n.variations.is_empty()) as usize;
            set_ups += (g.start != xiangqi::Position::new()) as usize;
        }
    }
    assert!(games >= 300, "{games} games");
    assert!(with_variations >= 5, "{with_variations} with variations");
    assert!(set_ups >= 20, "{set_ups} set-ups");
    for f in [
        RecordFormat::Pgn,
        RecordFormat::Xqf,
        RecordFormat::DhtmlXq,
        RecordFormat::Cbl,
    ] {
        assert!(formats.contains(f.name()), "{f} missing: {formats:?}");
    }
    eprintln!(
        "{games} games ({with_variations} with variations, {set_ups} set-ups, {refused} refused \
         for an over-long tag and read back without it) of {formats:?}"
    );
}

#[test]
fn a_written_game_has_xqf_1_0_layout() {
    let r = read_any(
        "[Event \"甲级联赛\"]\n[Red \"R\"]\n{开局} 1. h2e2 {good} h9g7 (1... b9c7 {alt}) 2. h0g2 1-0\n"
            .as_bytes(),
    )
    .unwrap();
    let g = r.games[0].as_ref().unwrap();
    let f = xqf::write_game(g).unwrap();
    assert_eq!(&f[..3], b"XQ\x0a");
    assert_eq!(f[51], 1, "Red wins");
    assert_eq!(f[208] as usize, "甲级联赛".len() / 3 * 2, "event in GBK");
    // Root record: code 0 -> 0, a move follows, opening comment of 4 GBK bytes.
    assert_eq!(&f[0x400..0x408], &[0x18, 0x20, 0xf0, 0, 4, 0, 0, 0]);
    let back = xqf::read(&f).unwrap();
    assert_eq!(back.comment.as_deref(), Some("开局"));
    assert_eq!(
        back.moves[1].variations[0][0].comment.as_deref(),
        Some("alt")
    );
    assert_eq!(back.result, GameResult::RedWins);
    assert_eq!(back.tag("Event"), Some("甲级联赛"));
}

#[test]
fn set_ups_and_what_xqf_cannot_hold() {
    // Black to move in a set-up, no moves: the header's side to move carries it.
    let r = read_any(b"[FEN \"3k5/9/9/9/9/9/9/9/4R4/5K3 b - - 0 1\"]\n*\n").unwrap();
    let g = r.games[0].as_ref().unwrap();
    let f = xqf::write_game(g).unwrap();
    assert_eq!(f[64], 3, "an endgame record");
    let back = xqf::read(&f).unwrap();
    assert_eq!(back.start.board(), g.start.board());
    assert_eq!(back.start.turn(), xiangqi::Color::Black);
    // (More pieces of a kind than XQF's slots, three chariots, is refused too, but no
    // reader makes such a position.)
    // A name of 16 bytes: the slot holds 15.
    let mut g = GameRecord::default();
    g.set_tag("Red", "abcdefghijklmnop");
    let e = xqf::write_game(&g).unwrap_err();
    assert_eq!(
        e.to_string(),
        "cannot write XQF: the Red tag is 16 bytes in GBK, XQF holds at most 15: \"abcdefghijklmnop\""
    );
}
