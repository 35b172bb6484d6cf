//! Writing DhtmlXQ (`dhtmlxq::write_game`, `xiangqi convert --to dhtmlxq`): every game of the
//! test collection (the shared record set and this crate's tests/data) written as DhtmlXQ reads
//! back strictly to the same start, moves, variations, comments, result and information tags.

use std::path::{Path, PathBuf};

use xiangqi_record::detect::{read_any, RecordFormat};
use xiangqi_record::{dhtmlxq, GameRecord, MoveNode};

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

/// A comment as the writer keeps it: trimmed, brackets full-width.
fn comment(c: &Option<String>) -> Option<String> {
    c.as_deref()
        .map(|c| {
            c.trim()
                .replace("\r\n", "\n")
                .replace('[', "［")
                .replace(']', "］")
        })
        .filter(|c| !c.is_empty())
}

/// A line in the shape DhtmlXQ can hold: every alternative at a ply is a sibling (PGN's
/// `(a (b))`, an alternative to the alternative's first move, is one more alternative there),
/// alternatives in the order of their moves, comments as the writer keeps them.
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

fn same_line(a: &[MoveNode], b: &[MoveNode], what: &str) {
    assert_eq!(norm(a), norm(b), "{what}");
}

fn round_trip(g: &GameRecord, what: &str) {
    let mut text = String::new();
    dhtmlxq::write_game(&mut text, g);
    let back = dhtmlxq::read_str(&text).unwrap_or_else(|e| panic!("{what}: {e}\n{text}"));
    // The board, the side to move and the move number (DhtmlXQ keeps no half-move clock).
    assert_eq!(back.start.board(), g.start.board(), "{what}");
    assert_eq!(back.start.turn(), g.start.turn(), "{what}");
    assert_eq!(back.start.fullmoves(), g.start.fullmoves(), "{what}");
    assert_eq!(back.result, g.result, "{what}");
    assert_eq!(comment(&g.comment), back.comment, "{what}");
    same_line(&g.moves, &back.moves, what);
    for tag in ["Event", "Red", "Black", "Date", "Site", "Round", "Title"] {
        let want = g
            .tag(tag)
            .map(|v| v.trim().replace('[', "［").replace(']', "］"));
        let want = want.filter(|v| !v.is_empty() && !v.contains('\n'));
        if want.is_some() {
            assert_eq!(back.tag(tag), want.as_deref(), "{what}: tag {tag}");
        }
    }
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
    let (mut games, mut with_variations, mut set_ups) = (0, 0, 0);
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
            round_trip(g, &format!("{} game {}", p.display(), i + 1));
            games += 1;
            with_variations += g.moves.iter().any(|n| !n.variations.is_empty()) as usize;
            set_ups += (g.start != xiangqi::Position::new()) as usize;
        }
    }
    // The collection holds games of many formats, with variations and set-up positions.
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
        "{games} games ({with_variations} with variations, {set_ups} set-ups) of {formats:?}"
    );
}

#[test]
fn a_written_game_looks_as_dhtmlxq_pages_have_it() {
    let r = read_any(
        b"[Event \"A [x]\"]\n[Red \"R\"]\n1. h2e2 {good\nline} h9g7 (1... b9c7) 2. h0g2 1-0\n",
    )
    .unwrap();
    let g = r.games[0].as_ref().unwrap();
    let mut t = String::new();
    dhtmlxq::write_game(&mut t, g);
    assert_eq!(
        t,
        "[DhtmlXQ]\n[DhtmlXQ_event]A ［x］[/DhtmlXQ_event]\n[DhtmlXQ_red]R[/DhtmlXQ_red]\n\
         [DhtmlXQ_movelist]774770627967[/DhtmlXQ_movelist]\n\
         [DhtmlXQ_comment1]good||line[/DhtmlXQ_comment1]\n\
         [DhtmlXQ_move_0_2_1]1022[/DhtmlXQ_move_0_2_1]\n\
         [DhtmlXQ_result]红胜[/DhtmlXQ_result]\n[/DhtmlXQ]\n"
    );
    // A set-up start: binit and fen; Black to move survives through the fen.
    let r = read_any(b"[FEN \"3k5/9/9/9/9/9/9/9/4R4/5K3 b - - 0 1\"]\n1... d9d8 *\n").unwrap();
    let g = r.games[0].as_ref().unwrap();
    let mut t = String::new();
    dhtmlxq::write_game(&mut t, g);
    assert!(t.contains("[DhtmlXQ_binit]"), "{t}");
    assert!(
        t.contains("[DhtmlXQ_fen]3k5/9/9/9/9/9/9/9/4R4/5K3 b"),
        "{t}"
    );
    let back = dhtmlxq::read_str(&t).unwrap();
    assert_eq!(back.start, g.start);
    assert_eq!(back.moves[0].mv.to_string(), "d9d8");
}
