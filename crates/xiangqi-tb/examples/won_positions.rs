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
//!
//! With `rule-capture` it prints positions of no table: such a position with a black soldier
//! more, which a red chariot, horse or cannon captures (its move from another square), so
//! that the capture reaches the set's position lost by the rule for Black, to move. From
//! them only the search can find the tables' rule results (the root has no table).

use xiangqi::{Color, Position};
use xiangqi_tb::{Indexer, Material, RuleValue, Tablebase, Value};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 4 {
        eprintln!("usage: won_positions DIR MIN_DTM|rule|rule-capture COUNT SET...");
        std::process::exit(2);
    }
    let tb = Tablebase::open(&args[0]).unwrap_or_else(|e| panic!("{e}"));
    let behind_capture = args[1] == "rule-capture";
    let by_rule = args[1] == "rule" || behind_capture;
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
            if behind_capture {
                if p.turn() == Color::Black
                    && matches!(tb.probe_rules(&p), Ok(RuleValue::LossByRule))
                {
                    if let Some(fen) = before_capture(&tb, &p, seed) {
                        println!("{fen}");
                        found += 1;
                        if found == count {
                            break;
                        }
                    }
                }
                continue;
            }
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

/// A position one red capture of a black soldier before `after` (Black to move, lost by the
/// rule): a red chariot, horse or cannon of `after` put back on a square it came from, the
/// soldier on the square it took, Red to move; checked by the rules core (a legal position,
/// the capture a legal move that reaches `after`'s lost-by-rule value).
fn before_capture(tb: &Tablebase, after: &Position, seed: u64) -> Option<String> {
    let fen = after.fen();
    let (board, _) = fen.split_once(' ')?;
    // grid[row][file], row 0 the top (Black's back rank, FEN rank 9).
    let grid: Vec<Vec<char>> = board
        .split('/')
        .map(|r| {
            r.chars()
                .flat_map(|c| match c.to_digit(10) {
                    Some(n) => vec!['.'; n as usize],
                    None => vec![c],
                })
                .collect()
        })
        .collect();
    let name = |row: usize, file: usize| format!("{}{}", (b'a' + file as u8) as char, 9 - row);
    let squares: Vec<(usize, usize)> = (0..10).flat_map(|r| (0..9).map(move |f| (r, f))).collect();
    // A different order of the from-squares for each position.
    let turn = (seed % 90) as usize;
    for &(tr, tf) in &squares {
        if !matches!(grid[tr][tf], 'R' | 'N' | 'C') {
            continue;
        }
        for k in 0..90 {
            let (fr, ff) = squares[(k + turn) % 90];
            if grid[fr][ff] != '.' {
                continue;
            }
            let mut g = grid.clone();
            g[fr][ff] = g[tr][tf];
            g[tr][tf] = 'p';
            let before = format!("{} w - - 0 1", to_board(&g));
            let Ok(p) = Position::from_fen(&before) else {
                continue;
            };
            let capture = format!("{}{}", name(fr, ff), name(tr, tf));
            let moves = p.legal_moves();
            let Some(&m) = moves.iter().find(|m| m.to_string() == capture) else {
                continue;
            };
            let mut q = p.clone();
            q.play_unchecked(m);
            if matches!(tb.probe_rules(&q), Ok(RuleValue::LossByRule)) {
                return Some(p.fen());
            }
        }
    }
    None
}

fn to_board(g: &[Vec<char>]) -> String {
    let rows: Vec<String> = g
        .iter()
        .map(|r| {
            let mut out = String::new();
            let mut empty = 0;
            for &c in r {
                if c == '.' {
                    empty += 1;
                } else {
                    if empty > 0 {
                        out.push_str(&empty.to_string());
                        empty = 0;
                    }
                    out.push(c);
                }
            }
            if empty > 0 {
                out.push_str(&empty.to_string());
            }
            out
        })
        .collect();
    rows.join("/")
}
