//! The memory-lean generator (docs/TABLEBASES.md, "The lean method"): its unmove generator
//! against the rules core's moves over whole small sets, and its files byte for byte against
//! the graph generator's.

use std::path::PathBuf;

use xiangqi_tb::retro::predecessors;
use xiangqi_tb::{build_with, BuildOptions, Indexer, Material, Method};

/// Every non-capturing move between legal indices of `set`, as (child, parent) pairs: from
/// the rules core's legal moves, and from the unmove generator over every legal index;
/// both lists sorted must be the same (each move once, the mirror fold included).
fn check_unmoves(set: &str) -> usize {
    let ix = Indexer::new(Material::parse(set).unwrap().canonical());
    let mut forward: Vec<(u32, u32)> = Vec::new();
    let mut backward: Vec<(u32, u32)> = Vec::new();
    let mut preds = Vec::new();
    for i in 0..ix.size() {
        let Some(pos) = ix.position(i) else {
            continue;
        };
        for &m in pos.legal_moves().iter() {
            if pos.is_capture(m) {
                continue;
            }
            let mut child = pos.clone();
            child.play_unchecked(m);
            forward.push((ix.index(&child) as u32, i as u32));
        }
        preds.clear();
        predecessors(&ix, &pos, &mut preds);
        for &p in &preds {
            if ix.position(p).is_some() {
                backward.push((i as u32, p as u32));
            }
        }
    }
    forward.sort_unstable();
    backward.sort_unstable();
    assert!(!forward.is_empty(), "{set}");
    if forward != backward {
        let only_f: Vec<_> = forward
            .iter()
            .filter(|e| backward.binary_search(e).is_err())
            .take(3)
            .collect();
        let only_b: Vec<_> = backward
            .iter()
            .filter(|e| forward.binary_search(e).is_err())
            .take(3)
            .collect();
        let show = |v: &[&(u32, u32)]| -> Vec<String> {
            v.iter()
                .map(|&&(c, p)| {
                    format!(
                        "{} -> {}",
                        ix.position(p as u64).map_or("?".into(), |x| x.fen()),
                        ix.position(c as u64).map_or("?".into(), |x| x.fen())
                    )
                })
                .collect()
        };
        panic!(
            "{set}: {} moves forward, {} backward; moves without unmove {:?}, unmoves without move {:?}",
            forward.len(),
            backward.len(),
            show(&only_f),
            show(&only_b)
        );
    }
    forward.len()
}

#[test]
fn unmoves_are_the_moves_reversed() {
    // Every piece kind on both sides, the palace pieces of both, soldiers on both sides
    // (forward and sideways across the river), the mirror fold.
    for set in [
        "KRK", "KHKA", "KPKE", "KCKAE", "KRAKE", "KPKP", "KHKH", "KPAKE",
    ] {
        let moves = check_unmoves(set);
        eprintln!("{set}: {moves} moves checked");
    }
}

fn build_dir(tag: &str, sets: &[&str], method: Method) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("xiangqi-tb-lean-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let names: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let opts = BuildOptions {
        threads: 2,
        method,
        ..BuildOptions::default()
    };
    let built = build_with(&names, &dir, &opts, &mut |_| {}).expect("generate");
    for b in built {
        let st = b.stats.expect("generated");
        assert_eq!(st.lean, method == Method::Lean, "{}", b.material);
    }
    dir
}

#[test]
fn lean_files_equal_graph_files() {
    // Captures into smaller sets on both sides, defenders on either side, every piece kind,
    // and KRKH's results by the perpetual-check rule.
    let sets = [
        "KRK", "KHKA", "KPKE", "KCKAE", "KRKH", "KRAKE", "KHPK", "KPKP",
    ];
    let graph = build_dir("graph", &sets, Method::Graph);
    let lean = build_dir("lean", &sets, Method::Lean);
    let mut names: Vec<_> = std::fs::read_dir(&graph)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    names.sort();
    assert!(names.len() >= sets.len());
    for n in &names {
        let a = std::fs::read(graph.join(n)).unwrap();
        let b = std::fs::read(lean.join(n))
            .unwrap_or_else(|e| panic!("{n:?}: not made by the lean method: {e}"));
        assert!(a == b, "{n:?}: the lean method's file differs");
    }
    let _ = std::fs::remove_dir_all(&graph);
    let _ = std::fs::remove_dir_all(&lean);
}
