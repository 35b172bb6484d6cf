//! Probe latency and generation throughput (docs/PERFORMANCE.md, "Tablebases"):
//!
//! ```text
//! cargo bench -p xiangqi-tb --bench probe            # tables made in a temporary folder
//! XQTB_DIR=tables cargo bench -p xiangqi-tb --bench probe   # or read from a folder
//! ```
//!
//! Generation: each set of [`SETS`] (and the smaller ones it needs) is generated with one and
//! with two threads, timed, and reported in indices a second. Probing: 20,000 pseudo-random
//! legal positions of each set (some with the colours swapped, so the probe turns the board)
//! are probed once to warm the cache (the file read, the blocks inflated: every set here has
//! at most 16 blocks, what a table keeps), then again, each probe timed on its own: p50, p99
//! and the largest, in microseconds. The first probe of a set (it reads the file) and a
//! probe of every legal move (what the API and the root probe do) are timed too.

use std::time::Instant;

use xiangqi_tb::{Indexer, Material, Tablebase};

const SETS: [&str; 5] = ["KRKA", "KHKA", "KRKAA", "KRKH", "KRKP"];
const SAMPLES: usize = 20_000;

fn percentile(v: &mut [f64], p: f64) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[((v.len() - 1) as f64 * p).round() as usize]
}

fn main() {
    // `cargo bench` passes `--bench`; nothing else is read.
    let names: Vec<String> = SETS.iter().map(|s| s.to_string()).collect();
    let dir = match std::env::var_os("XQTB_DIR") {
        Some(d) => std::path::PathBuf::from(d),
        None => {
            println!("generation (indices a second, the set and the smaller ones it needs)");
            let base = std::env::temp_dir().join(format!("xqtb-bench-{}", std::process::id()));
            for threads in [1, 2] {
                let dir = base.join(format!("t{threads}"));
                let _ = std::fs::remove_dir_all(&dir);
                for n in &names {
                    let start = Instant::now();
                    let built =
                        xiangqi_tb::build(std::slice::from_ref(n), &dir, threads, &mut |_| {})
                            .unwrap();
                    let secs = start.elapsed().as_secs_f64();
                    let indices: u64 = built
                        .iter()
                        .filter_map(|b| b.stats.as_ref().map(|s| s.positions))
                        .sum();
                    println!(
                        "  {n:8} threads {threads}: {indices:>9} indices in {secs:6.2} s, {:>9.0} a second",
                        indices as f64 / secs
                    );
                }
            }
            base.join("t2")
        }
    };
    println!("probes (microseconds; {SAMPLES} positions a set, warm cache)");
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut all = Vec::new();
    for n in &names {
        let m = Material::parse(n).unwrap().canonical();
        let ix = Indexer::new(m);
        let mut positions = Vec::with_capacity(SAMPLES);
        while positions.len() < SAMPLES {
            if let Some(p) = ix.position(next() % ix.size()) {
                positions.push(if next() % 4 == 0 { p.swap_colors() } else { p });
            }
        }
        let tb = Tablebase::open(&dir).unwrap();
        let t = Instant::now();
        tb.probe(&positions[0]).unwrap();
        let first = t.elapsed().as_secs_f64() * 1e6;
        for p in &positions {
            tb.probe(p).unwrap();
        }
        let mut times: Vec<f64> = positions
            .iter()
            .map(|p| {
                let t = Instant::now();
                std::hint::black_box(tb.probe(p).unwrap());
                t.elapsed().as_secs_f64() * 1e6
            })
            .collect();
        all.extend(times.iter().copied());
        let mut moves: Vec<f64> = positions
            .iter()
            .take(2000)
            .map(|p| {
                let t = Instant::now();
                std::hint::black_box(tb.probe_moves(p).unwrap());
                t.elapsed().as_secs_f64() * 1e6
            })
            .collect();
        println!(
            "  {n:8} p50 {:6.2}  p99 {:6.2}  max {:8.1}  first {:8.1}  | every move: p50 {:6.1} p99 {:6.1}",
            percentile(&mut times, 0.5),
            percentile(&mut times, 0.99),
            percentile(&mut times, 1.0),
            first,
            percentile(&mut moves, 0.5),
            percentile(&mut moves, 0.99),
        );
    }
    println!(
        "  all      p50 {:6.2}  p99 {:6.2}",
        percentile(&mut all, 0.5),
        percentile(&mut all, 0.99)
    );
}
