//! Every perft count in `shared/data/perft.txt`. Counts up to 2*10^8 nodes run in the normal
//! test run; the larger ones (up to 5.4*10^9) in the ignored test `perft_large`, which CI runs
//! in release mode.

use std::path::PathBuf;

use xiangqi::{perft, perft_no_bulk, Position};

fn shared_dir() -> PathBuf {
    match std::env::var_os("XIANGQI_SHARED") {
        Some(p) => PathBuf::from(p),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"),
    }
}

struct Case {
    fen: String,
    counts: Vec<(u32, u64)>,
}

fn cases() -> Vec<Case> {
    let path = shared_dir().join("data/perft.txt");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let mut cases = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut parts = line.split(';');
        let fen = parts.next().unwrap().trim().to_string();
        let counts = parts
            .map(|p| {
                let mut it = p.split_whitespace();
                let d = it.next().and_then(|d| d.parse().ok());
                let c = it.next().and_then(|c| c.parse().ok());
                match (d, c) {
                    (Some(d), Some(c)) => (d, c),
                    _ => panic!("perft.txt line {}: bad entry '{p}'", n + 1),
                }
            })
            .collect();
        cases.push(Case { fen, counts });
    }
    assert!(cases.len() >= 14, "expected at least 14 positions");
    cases
}

/// Runs the selected counts of every case, spread over the available cores.
fn run(select: impl Fn(u64) -> bool + Sync) -> usize {
    let cases = cases();
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let next = std::sync::atomic::AtomicUsize::new(0);
    let checked = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(case) = cases.get(i) else { break };
                let pos =
                    Position::from_fen(&case.fen).unwrap_or_else(|e| panic!("{}: {e}", case.fen));
                for &(depth, expected) in &case.counts {
                    if select(expected) {
                        assert_eq!(perft(&pos, depth), expected, "{} depth {depth}", case.fen);
                        checked.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    }
                }
            });
        }
    });
    checked.into_inner()
}

#[test]
fn perft_counts() {
    let n = run(|count| count <= 200_000_000);
    println!("checked {n} perft counts up to 2e8 nodes");
    assert!(n >= 60);
}

#[test]
#[ignore = "5.8e9 nodes: run in release mode (CI does: cargo test --release -p xiangqi --test perft -- --ignored)"]
fn perft_large() {
    let n = run(|count| count > 200_000_000);
    println!("checked {n} perft counts over 2e8 nodes");
    assert!(n >= 1);
}

#[test]
fn bulk_and_no_bulk_agree() {
    for case in cases() {
        let pos = Position::from_fen(&case.fen).unwrap();
        for &(depth, expected) in case.counts.iter().filter(|&&(d, _)| d <= 3) {
            assert_eq!(perft_no_bulk(&pos, depth), expected, "{}", case.fen);
        }
    }
}
