//! Prints pseudo-random won positions (the side to move wins, Red to move, at least
//! `MIN_DTM` plies from mate) of the sets named, as EPD lines, for matches from tablebase
//! start positions (docs/TABLEBASES.md, "In the engine"):
//!
//! ```text
//! cargo run --release -p xiangqi-tb --example won_positions -- DIR MIN_DTM COUNT SET...
//! ```
//!
//! With `rule` for `MIN_DTM` it prints positions that are drawn when repetition is a draw
//! and won by the perpetual-check rule for Red, to move (version 2 tables).

use xiangqi::Color;
use xiangqi_tb::{Indexer, Material, RuleValue, Tablebase, Value};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 4 {
        eprintln!("usage: won_positions DIR MIN_DTM COUNT SET...");
        std::process::exit(2);
    }
    let tb = Tablebase::open(&args[0]).unwrap_or_else(|e| panic!("{e}"));
    let by_rule = args[1] == "rule";
    let min: u16 = if by_rule {
        0
    } else {
        args[1].parse().expect("MIN_DTM is a number or `rule`")
    };
    let count: usize = args[2].parse().expect("COUNT is a number");
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    for set in &args[3..] {
        let m = Material::parse(set)
            .unwrap_or_else(|e| panic!("{e}"))
            .canonical();
        let ix = Indexer::new(m);
        let mut found = 0;
        for _ in 0..10_000_000u64 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let Some(p) = ix.position(seed % ix.size()) else {
                continue;
            };
            if p.turn() != Color::Red {
                continue;
            }
            let wanted = if by_rule {
                matches!(tb.probe_rules(&p), Ok(RuleValue::WinByRule))
            } else {
                matches!(tb.probe(&p), Ok(Value::Win(d)) if d >= min)
            };
            if wanted {
                println!("{}", p.fen());
                found += 1;
                if found == count {
                    break;
                }
            }
        }
    }
}
