//! Lists the sets of the tablebase issue's universe, "at most two attackers (chariot, horse,
//! cannon, soldier) in total plus any advisors and elephants on either side", by their
//! canonical names, with each set's index size and whether DIR holds its table; then a
//! summary by kind (docs/TABLEBASES.md, "Sets generated").
//!
//! ```text
//! cargo run --release -p xiangqi-tb --example universe -- DIR [--list]
//! ```

use std::collections::BTreeMap;

use xiangqi_tb::{Indexer, Material};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(dir) = args.first() else {
        eprintln!("usage: universe DIR [--list]");
        std::process::exit(2);
    };
    let list = args.iter().any(|a| a == "--list");
    let attackers = ["R", "H", "C", "P"];
    let defenders: Vec<String> = (0..3)
        .flat_map(|a| (0..3).map(move |e| "A".repeat(a) + &"E".repeat(e)))
        .collect();
    // Attackers of each side: one attacker on either side, two on one side, one on each.
    let mut splits: Vec<(String, String)> = Vec::new();
    for a in attackers {
        splits.push((a.into(), String::new()));
        for b in attackers {
            splits.push((format!("{a}{b}"), String::new()));
            splits.push((a.into(), b.into()));
        }
    }
    let mut sets: BTreeMap<String, (u64, String)> = BTreeMap::new();
    for (a, b) in &splits {
        for da in &defenders {
            for db in &defenders {
                let name = format!("K{a}{da}K{b}{db}");
                let m = Material::parse(&name)
                    .unwrap_or_else(|e| panic!("{e}"))
                    .canonical();
                let kind = match (a.len(), b.len()) {
                    (1, 0) => "one attacker",
                    (2, 0) => "two attackers on one side",
                    _ => "one attacker on each side",
                };
                let defended = match (da.is_empty(), db.is_empty()) {
                    (true, true) => "no defenders",
                    (false, false) => "defenders on both sides",
                    _ => "defenders on one side",
                };
                sets.entry(m.to_string())
                    .or_insert_with(|| (Indexer::new(m).size(), format!("{kind}, {defended}")));
            }
        }
    }
    // Per kind: sets, made, their indices, and the largest missing one.
    let mut kinds: BTreeMap<&str, (u64, u64, u64, u64, u64, String)> = BTreeMap::new();
    for (name, (size, kind)) in &sets {
        let size = *size;
        let made = std::path::Path::new(dir)
            .join(format!("{name}.xqtb"))
            .exists();
        if list {
            println!("{name} {size} {}", if made { "made" } else { "missing" });
        }
        let k = kinds.entry(kind.as_str()).or_default();
        k.0 += 1;
        if made {
            k.1 += 1;
            k.2 += size;
        } else {
            k.3 += size;
            if size > k.4 {
                k.4 = size;
                k.5 = name.clone();
            }
        }
    }
    println!("kind | sets | made | indices made | missing: indices | the largest missing");
    let mut total = (0, 0, 0, 0);
    for (kind, (n, made, im, mi, big, bigname)) in &kinds {
        println!(
            "{kind} | {n} | {made} | {im:.3e} | {mi:.3e} | {bigname} {big:.2e}",
            im = *im as f64,
            mi = *mi as f64,
            big = *big as f64
        );
        total = (total.0 + n, total.1 + made, total.2 + im, total.3 + mi);
    }
    println!(
        "all | {} | {} | {:.3e} | {:.3e} |",
        total.0, total.1, total.2 as f64, total.3 as f64
    );
}
