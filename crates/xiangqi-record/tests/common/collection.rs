//! The test collection the writers are checked on (the shared record set and this crate's
//! tests/data), and the shape of a move tree that formats keeping every alternative as a
//! sibling can hold: used by write_dhtmlxq.rs and write_xqf.rs.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use xiangqi_record::detect::{read_any, RecordFormat};
use xiangqi_record::{GameRecord, MoveNode};

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

/// Calls `f` with every game of the collection that reads (at most 40 a file keeps the tests
/// quick: one big PGN holds thousands) and a name for it; checks the collection holds games of
/// many formats, with variations and set-up positions, and returns a line saying what it held.
pub fn each_game(mut f: impl FnMut(&GameRecord, &str)) -> String {
    let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let shared = std::env::var_os("XIANGQI_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| here.join("../../../shared"));
    let mut all = Vec::new();
    files(&shared.join("data/records"), &mut all);
    files(&here.join("tests/data"), &mut all);
    all.sort();
    let (mut games, mut with_variations, mut set_ups) = (0, 0, 0);
    let mut formats = BTreeSet::new();
    for p in &all {
        let Ok(bytes) = std::fs::read(p) else {
            continue;
        };
        let Ok(r) = read_any(&bytes) else { continue };
        formats.insert(r.format.name());
        for (i, g) in r.games.iter().take(40).enumerate() {
            let Ok(g) = g else { continue };
            f(g, &format!("{} game {}", p.display(), i + 1));
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
    format!("{games} games ({with_variations} with variations, {set_ups} set-ups) of {formats:?}")
}

/// A line in the shape DhtmlXQ and XQF can hold: every alternative at a ply is a sibling
/// (PGN's `(a (b))`, an alternative to the alternative's first move, is one more alternative
/// there), alternatives in the order of their moves, comments as `comment` says the format
/// keeps them.
#[derive(Debug, PartialEq, Eq)]
pub struct Norm(Vec<(String, Option<String>, Vec<Norm>)>);

pub fn norm(line: &[MoveNode], comment: fn(&Option<String>) -> Option<String>) -> Norm {
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
                    alts.push(norm(&v2, comment));
                }
                alts.sort_by_key(|a| format!("{a:?}"));
                (n.mv.to_string(), comment(&n.comment), alts)
            })
            .collect(),
    )
}
