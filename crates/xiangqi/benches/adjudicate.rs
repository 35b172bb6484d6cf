//! The cost of adjudication: `Game::outcome()` with no repetition, the per-move cost of a
//! game and of the search's per-ply stack, and a full ruling on a repetition.
//!
//! Run: `cargo bench -p xiangqi --bench adjudicate`

use criterion::{black_box, criterion_group, criterion_main, BatchSize, Criterion};
use xiangqi::adjudicate::History;
use xiangqi::game::{Game, Rules};
use xiangqi::Position;

/// A game of `plies` moves picked by a fixed pseudo-random sequence (legal by construction),
/// stopping short of any ending.
fn random_moves(plies: usize) -> Vec<xiangqi::Move> {
    let mut g = Game::new(Position::new());
    let mut seed = 0x2545_f491_4f6c_dd1d_u64;
    let mut out = Vec::new();
    while out.len() < plies {
        let moves = g.position().legal_moves();
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let m = moves[(seed % moves.len() as u64) as usize];
        g.push_unchecked(m);
        if g.outcome().is_some() {
            g.pop();
            continue;
        }
        out.push(m);
    }
    out
}

/// Red's cannon chases Black's chariot (Fairy-Stockfish's first case).
const CHASE_FEN: &str = "2bakabnr/9/r1n1c4/2p1p1p1p/PP7/9/4P1P1P/2C3NC1/9/1NBAKAB1R w - - 0 1";
const CHASE: &str = "c2a2 a7b7 a2b2 b7a7 b2a2 a7b7 a2b2 b7a7 b2a2";

/// AXF diagram 28: two cannons chase two chariots, a 24-ply game ruled on a 16-ply cycle.
const LONG_FEN: &str = "2bak4/4a4/4b3n/p3p4/4n3p/4R4/Pr2P4/4BC1C1/3rA4/R3KAB2 w - - 0 1";
const LONG: &str = "f2f3 b3b6 h2h1 d1d5 f3f6 b6b2 h1h5 d5d3 f6f2 b2b1 h5h3 d3d5 f2f1 b1b6 \
                    f1f6 b6b1 h3h5 d5d3 f6f1 b1b6 h5h3 d3d5 f1f6 b6b1";

fn replay(moves: &[xiangqi::Move]) -> (Game, History) {
    let mut g = Game::new(Position::new());
    let mut h = History::new(Position::new());
    for &m in moves {
        g.push_unchecked(m);
        h.push(m);
    }
    (g, h)
}

fn game(fen: &str, moves: &str, rules: Rules) -> Game {
    let mut g = Game::with_rules(Position::from_fen(fen).unwrap(), rules);
    for m in moves.split_whitespace() {
        g.push_uci(m).unwrap();
    }
    g
}

fn history(fen: &str, moves: &str) -> History {
    let mut h = History::new(Position::from_fen(fen).unwrap());
    for m in moves.split_whitespace() {
        let mv = h.position().parse_uci(m).unwrap();
        h.push(mv);
    }
    h
}

fn bench(c: &mut Criterion) {
    let (g, mut h) = replay(&random_moves(40));
    assert!(g.outcome().is_none());
    c.bench_function("outcome/no-repetition", |b| {
        b.iter(|| black_box(&g).outcome())
    });

    // The game judges each move as it is pushed: a legal-move count and O(1) look-ups.
    let mut g2 = g.clone();
    let last = *g2.moves().last().unwrap();
    g2.pop();
    c.bench_function("game/push+pop", |b| {
        b.iter(|| {
            g2.push_unchecked(black_box(last));
            g2.pop()
        })
    });

    // The search's per-ply stack: push, ask for a ruling at the 2nd occurrence, pop.
    let hl = h.moves().last().unwrap();
    h.pop();
    c.bench_function("history/push+verdict+pop", |b| {
        b.iter(|| {
            h.push(black_box(hl));
            let v = h.repetition_verdict(2, true);
            h.pop();
            v
        })
    });

    // A full ruling from scratch (no cached chases): the verdict, then the explained ruling.
    let short = history(CHASE_FEN, "c2a2 a7b7 a2b2 b7a7 b2a2");
    assert!(short.repetition_verdict(2, true).is_some());
    let short = history(CHASE_FEN, "c2a2 a7b7 a2b2 b7a7 b2a2");
    c.bench_function("ruling/verdict-4-ply-cycle", |b| {
        b.iter_batched(
            || short.clone(),
            |h| h.repetition_verdict(2, true),
            BatchSize::SmallInput,
        )
    });
    let long = history(LONG_FEN, LONG);
    c.bench_function("ruling/verdict-16-ply-cycle", |b| {
        b.iter_batched(
            || long.clone(),
            |h| h.repetition_verdict(2, true),
            BatchSize::SmallInput,
        )
    });
    let full = game(CHASE_FEN, CHASE, Rules::default());
    assert!(full.outcome().is_some());
    c.bench_function("ruling/explained-8-ply-cycle", |b| {
        b.iter(|| black_box(&full).ruling().unwrap().to_string())
    });
    // The whole game from scratch: play 9 moves, judging each, and rule at the 3rd occurrence.
    c.bench_function("ruling/game-9-moves-from-scratch", |b| {
        b.iter(|| game(CHASE_FEN, CHASE, Rules::default()).outcome())
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
