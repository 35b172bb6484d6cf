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

use xiangqi::{Color, File, Move, Piece, Position, Rank, Role, Square};
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
    // The squares in the FEN's order (rank 9 first, files a to i).
    let squares: Vec<Square> = (0..10u8)
        .rev()
        .flat_map(|r| (0..9u8).map(move |f| (f, r)))
        .map(|(f, r)| Square::from_coords(File::new(f).unwrap(), Rank::new(r).unwrap()))
        .collect();
    // A different order of the from-squares for each position.
    let turn = (seed % 90) as usize;
    let board = after.board();
    let soldier = Piece {
        color: Color::Black,
        role: Role::Soldier,
    };
    for &to in &squares {
        let Some(piece) = board.piece_at(to) else {
            continue;
        };
        if piece.color != Color::Red
            || !matches!(piece.role, Role::Chariot | Role::Horse | Role::Cannon)
        {
            continue;
        }
        for k in 0..90 {
            let from = squares[(k + turn) % 90];
            if board.piece_at(from).is_some() {
                continue;
            }
            let mut setup = after.to_setup();
            setup.turn = Color::Red;
            setup.halfmoves = 0;
            setup.fullmoves = 1;
            setup.board.remove(to);
            setup.board.put(from, piece);
            setup.board.put(to, soldier);
            let Ok(p) = Position::from_setup(setup) else {
                continue;
            };
            let capture = Move::new(from, to);
            if !p.legal_moves().contains(&capture) {
                continue;
            }
            let mut q = p.clone();
            q.play_unchecked(capture);
            if matches!(tb.probe_rules(&q), Ok(RuleValue::LossByRule)) {
                return Some(p.fen());
            }
        }
    }
    None
}
