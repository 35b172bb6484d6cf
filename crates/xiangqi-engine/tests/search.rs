//! Search behaviour through the `Engine` facade: legal moves everywhere, mates found,
//! repetition rulings, strength levels, and the pinned `bench` signature.

use xiangqi::{Move, Position};
use xiangqi_engine::{Engine, Event, Limits, Score};

/// Whether the side to move mates in at most `n` moves (exhaustive, for small positions).
fn mates_in(pos: &Position, n: u32) -> bool {
    pos.legal_moves().iter().any(|&m| mating_move(pos, m, n))
}

/// Whether `m` mates in at most `n` moves against every defence.
fn mating_move(pos: &Position, m: Move, n: u32) -> bool {
    let mut c = pos.clone();
    c.play_unchecked(m);
    let replies = c.legal_moves();
    if replies.is_empty() {
        return true;
    }
    n > 1
        && replies.iter().all(|&r| {
            let mut d = c.clone();
            d.play_unchecked(r);
            mates_in(&d, n - 1)
        })
}

/// A FEN and coordinate moves through the rules core: the start, the moves and the position
/// they reach.
fn replay(fen: &str, line: &[&str]) -> (Position, Vec<Move>, Position) {
    let g = xiangqi::Game::from_uci(fen, line).unwrap();
    (g.start().clone(), g.moves(), g.position().clone())
}

fn last_score(events: &[Event]) -> Option<Score> {
    events.iter().rev().find_map(|e| match e {
        Event::Info(i) if i.multipv == 1 => Some(i.score),
        _ => None,
    })
}

/// Puzzles made for this test (found by a random search over sparse positions); each is
/// checked here to be a mate in exactly N with the rules core.
const PUZZLES: &[(u32, &str)] = &[
    (1, "9/9/1N2bk3/9/9/4P4/4R4/3K5/9/9 w - - 0 1"),
    (1, "9/9/3aka3/7R1/7r1/4C4/9/4K4/9/2R6 w - - 0 1"),
    (1, "5Nb2/5k3/9/N5R2/9/9/9/9/9/4K4 w - - 0 1"),
    (1, "4k1b2/9/4N4/9/9/9/9/2C6/5K3/1p7 w - - 0 1"),
    (2, "4R4/4a4/3k5/2P6/9/9/9/9/N2p1K3/9 w - - 0 1"),
    (2, "5a3/9/5k3/4C4/4N4/9/9/2R6/9/4K4 w - - 0 1"),
    (2, "5a3/9/4k4/8P/9/9/2RR5/3K5/9/9 w - - 0 1"),
    (2, "5k3/4a4/9/9/2N6/9/6R2/9/4K4/9 w - - 0 1"),
    (3, "1R1a1k3/9/9/4n4/9/9/6NR1/3K5/9/9 w - - 0 1"),
    (3, "2b6/3Nk4/9/9/9/1R7/9/9/5K3/9 w - - 0 1"),
    (3, "9/9/5k3/5C3/2b6/9/9/9/5K3/1R7 w - - 0 1"),
    (3, "4PN3/3k5/9/9/2b1N4/9/9/5Kc2/9/9 w - - 0 1"),
];

#[test]
fn puzzles_are_what_they_claim() {
    for &(n, fen) in PUZZLES {
        let pos = Position::from_fen(fen).unwrap();
        assert!(mates_in(&pos, n), "{fen} is not mate in {n}");
        assert!(
            n == 1 || !mates_in(&pos, n - 1),
            "{fen} is mate in fewer than {n}"
        );
    }
}

#[test]
fn solves_mate_puzzles() {
    let mut engine = Engine::new();
    for &(n, fen) in PUZZLES {
        engine.new_game();
        engine
            .set_position(Position::from_fen(fen).unwrap(), &[])
            .unwrap();
        // Depth 2N + 6: the mate in 3 on 5C3 starts with a quiet general move (f1e1) that the
        // pruning of a nominal depth 10 passes over with the gen2 net (found at depth 11).
        let (best, events) = engine.search(Limits::depth(2 * n as i32 + 6));
        let best = best.expect("a move");
        let pos = Position::from_fen(fen).unwrap();
        assert!(
            mating_move(&pos, best, n),
            "{fen}: {best} does not mate in {n}"
        );
        assert_eq!(last_score(&events), Some(Score::Mate(n as i32)), "{fen}");
    }
}

#[test]
fn go_mate_stops_at_the_mate() {
    let mut engine = Engine::new();
    let fen = PUZZLES[4].1;
    engine
        .set_position(Position::from_fen(fen).unwrap(), &[])
        .unwrap();
    let (best, events) = engine.search(Limits {
        mate: Some(2),
        ..Limits::default()
    });
    assert!(mating_move(
        &Position::from_fen(fen).unwrap(),
        best.unwrap(),
        2
    ));
    assert_eq!(last_score(&events), Some(Score::Mate(2)));
}

/// A small deterministic generator for random games.
struct Lcg(u64);
impl Lcg {
    fn next(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) % n as u64) as usize
    }
}

#[test]
fn legal_move_in_random_positions() {
    let mut rng = Lcg(7);
    let mut engine = Engine::new();
    let mut tested = 0;
    let mut single = 0;
    for game in 0..12 {
        let mut pos = Position::new();
        let plies = 10 + rng.next(80);
        for ply in 0..plies {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            // Search some positions along the game, and every forced one.
            if ply % 7 == game % 7 || moves.len() == 1 {
                engine.set_position(pos.clone(), &[]).unwrap();
                let (best, _) = engine.search(Limits::nodes(3000));
                let best = best.expect("a legal move exists");
                assert!(pos.is_legal(best), "{}: {best} is illegal", pos.fen());
                if moves.len() == 1 {
                    assert_eq!(best, moves[0]);
                    single += 1;
                }
                tested += 1;
            }
            let m = moves[rng.next(moves.len())];
            pos.play_unchecked(m);
        }
    }
    assert!(tested >= 40, "{tested}");
    // Hand-made positions with exactly one legal move: the general in check must step
    // aside (e9f9, the other squares are covered by the chariots and the open file to the
    // red general), and a general boxed in with only a soldier's step left (a6a5).
    for (fen, only) in [
        ("4k4/9/9/9/9/9/9/9/3RR4/3K5 b - - 0 1", "e9f9"),
        ("3k5/8R/9/p8/9/9/9/9/4R4/5K3 b - - 0 1", "a6a5"),
    ] {
        let pos = Position::from_fen(fen).unwrap();
        let moves = pos.legal_moves();
        assert_eq!(moves.len(), 1, "{fen} should have exactly one legal move");
        assert_eq!(moves[0].to_string(), only, "{fen}");
        engine.set_position(pos.clone(), &[]).unwrap();
        let (best, _) = engine.search(Limits::depth(6));
        assert_eq!(best, Some(moves[0]), "{fen}");
        single += 1;
    }
    assert!(single >= 2, "{single}");
}

#[test]
fn no_legal_move_gives_no_best_move() {
    let mut engine = Engine::new();
    // Black is checkmated (PUZZLES[0] after its mating move).
    let mut pos = Position::from_fen(PUZZLES[0].1).unwrap();
    let m = pos
        .legal_moves()
        .iter()
        .copied()
        .find(|&m| mating_move(&pos, m, 1))
        .unwrap();
    pos.play_unchecked(m);
    engine.set_position(pos, &[]).unwrap();
    let (best, events) = engine.search(Limits::depth(3));
    assert_eq!(best, None);
    assert_eq!(last_score(&events), Some(Score::Mate(0)));
}

/// Red, two chariots down, has checked on a8/a9 while the black general stepped e9-e8-e9.
/// Checking again with a8a9 would repeat a position with Red checking on every move of the
/// cycle: a loss for Red (RULES.md §5), so the engine must find something else.
#[test]
fn avoids_perpetual_check() {
    let fen = "4k4/R8/9/9/7rr/9/9/4B4/9/3AKA3 w - - 0 1";
    let (start, moves, pos) = replay(fen, &["a8a9", "e9e8", "a9a8", "e8e9"]);
    let mut engine = Engine::new();
    engine.set_position(start.clone(), &moves).unwrap();
    let a8a9 = pos.parse_uci("a8a9").unwrap();
    // The ruling itself: with the history, a8a9 loses by rule (a mate score against Red).
    let (_, events) = engine.search(Limits {
        depth: Some(6),
        searchmoves: vec![a8a9],
        ..Limits::default()
    });
    assert!(
        matches!(last_score(&events), Some(Score::Mate(n)) if n < 0),
        "{:?}",
        last_score(&events)
    );
    // Without the history the same move is no repetition.
    engine.set_position(pos.clone(), &[]).unwrap();
    let (_, events) = engine.search(Limits {
        depth: Some(6),
        searchmoves: vec![a8a9],
        ..Limits::default()
    });
    assert!(
        matches!(last_score(&events), Some(Score::Cp(_))),
        "{:?}",
        last_score(&events)
    );
    // And the engine plays something else.
    engine.set_position(start, &moves).unwrap();
    let (best, _) = engine.search(Limits::depth(8));
    assert_ne!(best, Some(a8a9), "walked into a perpetual-check loss");
}

/// Red's chariot has chased an unprotected black horse between c7 and b9. Repeating the
/// chase (b2c2) would make Red the perpetual chaser, a loss (RULES.md §5-6); the rules core
/// confirms the ruling and the engine's search must score the move as lost.
#[test]
fn avoids_perpetual_chase() {
    use xiangqi::adjudicate::RepetitionReason;
    let fen = "4k4/9/2n6/9/7rr/9/9/1R2B4/9/3AKA3 w - - 0 1";
    let game = xiangqi::Game::from_uci(fen, ["b2c2", "c7b9", "c2b2", "b9c7"]).unwrap();
    let (start, moves, pos) = (game.start().clone(), game.moves(), game.position().clone());
    let mut history = game.history().clone();
    let b2c2 = pos.parse_uci("b2c2").unwrap();
    history.push(b2c2);
    let verdict = history.repetition_verdict(2, true).expect("a repetition");
    assert_eq!(verdict.reason, RepetitionReason::PerpetualChase);
    assert_eq!(verdict.winner, Some(xiangqi::Color::Black));

    let mut engine = Engine::new();
    engine.set_position(start, &moves).unwrap();
    let (_, events) = engine.search(Limits {
        depth: Some(6),
        searchmoves: vec![b2c2],
        ..Limits::default()
    });
    assert!(
        matches!(last_score(&events), Some(Score::Mate(n)) if n < 0),
        "{:?}",
        last_score(&events)
    );
    let (best, _) = engine.search(Limits::depth(8));
    assert_ne!(best, Some(b2c2), "walked into a perpetual-chase loss");
}

/// Black, a chariot down, has checked the red general back and forth (e0/e1). Red's only
/// move e0e1 repeats a position with Black checking on every move of the cycle: Black has
/// checked perpetually and loses, so Red claims the win by rule instead of taking a draw.
#[test]
fn exploits_opponents_perpetual_check() {
    let fen = "3aka3/9/4b4/9/9/7RR/9/9/r8/4K4 b - - 0 1";
    let (start, moves, pos) = replay(fen, &["a1a0", "e0e1", "a0a1", "e1e0", "a1a0"]);
    assert_eq!(pos.legal_moves().len(), 1);
    let mut engine = Engine::new();
    engine.set_position(start, &moves).unwrap();
    let (best, events) = engine.search(Limits::depth(6));
    assert_eq!(best.map(|m| m.to_string()), Some("e0e1".to_string()));
    assert_eq!(last_score(&events), Some(Score::Mate(1)));
}

/// A repetition by idle moves on both sides is a draw.
#[test]
fn idle_repetition_is_a_draw() {
    // Both sides shuffle chariots; after the cycle the start occurs again (2nd occurrence).
    let fen = "3k5/9/9/9/r8/9/9/R8/9/5K3 w - - 0 1";
    let (start, moves, pos) = replay(fen, &["a2b2", "a5b5", "b2a2"]);
    let mut engine = Engine::new();
    engine.set_position(start, &moves).unwrap();
    // Black to move; b5a5 repeats the start position: a draw, and the position is level
    // (equal material), so the score of that move is 0.
    let b5a5 = pos.parse_uci("b5a5").unwrap();
    let (best, events) = engine.search(Limits {
        depth: Some(6),
        searchmoves: vec![b5a5],
        ..Limits::default()
    });
    assert_eq!(best, Some(b5a5));
    assert_eq!(last_score(&events), Some(Score::Cp(0)));
}

/// The search's move limit is the rules' (RULES.md §4.3): 119 plies without capture and a
/// chariot up, every move of Red's draws under the default limit of 120 (there is no mate in
/// one and nothing to capture), but Red mates in two when the rules set no limit or a longer
/// one.
#[test]
fn move_limit_follows_the_rules() {
    use xiangqi::game::Rules;
    let pos = Position::from_fen("5k3/9/9/9/9/R8/9/9/9/3K5 w - - 119 1").unwrap();
    let mut engine = Engine::new();
    assert_eq!(engine.rules(), &Rules::default());
    engine.set_position(pos.clone(), &[]).unwrap();
    let (_, events) = engine.search(Limits::depth(6));
    assert_eq!(last_score(&events), Some(Score::Cp(0)));
    for limit in [None, Some(200)] {
        engine.set_rules(Rules::default().with_move_limit(limit));
        engine.new_game();
        let (_, events) = engine.search(Limits::depth(6));
        assert!(
            matches!(last_score(&events), Some(Score::Mate(n)) if n > 0),
            "{limit:?}: {:?}",
            last_score(&events)
        );
    }
}

#[test]
fn multipv_reports_distinct_lines() {
    let mut engine = Engine::new();
    engine.set_option("MultiPV", "3").unwrap();
    let (_, events) = engine.search(Limits::depth(5));
    let last: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            Event::Info(i) if i.depth == 5 => Some(i.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(
        last.iter().map(|i| i.multipv).collect::<Vec<_>>(),
        vec![1, 2, 3]
    );
    let firsts: std::collections::HashSet<_> = last.iter().map(|i| i.pv[0]).collect();
    assert_eq!(firsts.len(), 3);
}

#[test]
fn threads_search_and_agree_on_legality() {
    let mut engine = Engine::new();
    engine.set_option("Threads", "2").unwrap();
    engine.set_position_text(None, &["h2e2", "h9g7"]).unwrap();
    let (best, _) = engine.search(Limits::depth(7));
    assert!(engine.position().is_legal(best.unwrap()));
}

#[test]
fn skill_levels_play_legal_and_vary() {
    let mut engine = Engine::new();
    engine.set_seed(1);
    engine.set_option("Skill Level", "0").unwrap();
    let mut seen = std::collections::HashSet::new();
    for _ in 0..12 {
        let (best, _) = engine.search(Limits::depth(20));
        let best = best.unwrap();
        assert!(Position::new().is_legal(best));
        seen.insert(best);
    }
    assert!(seen.len() > 1, "level 0 always played the same move");
    engine.set_option("UCI_LimitStrength", "true").unwrap();
    engine.set_option("UCI_Elo", "2000").unwrap();
    let (best, _) = engine.search(Limits::depth(20));
    assert!(Position::new().is_legal(best.unwrap()));
    assert!(engine.set_option("UCI_Elo", "99999").is_err());
    assert!(engine.set_option("Skill Level", "21").is_err());
}

/// The largest node count the search's `info` lines report.
fn max_info_nodes(events: &[Event]) -> u64 {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Info(i) => Some(i.nodes),
            _ => None,
        })
        .max()
        .unwrap_or(0)
}

/// A low level's node budget is what stops its search (before its depth cap), and it is
/// kept to within the search's checking interval (every 1024 nodes).
#[test]
fn low_levels_keep_their_node_cap() {
    use xiangqi_engine::skill::Skill;
    let mut engine = Engine::new();
    engine.set_seed(5);
    engine.set_position_text(None, &["h2e2", "h9g7"]).unwrap();
    for level in [5, 10] {
        let skill = Skill::from_options(level, false, 1500).unwrap();
        engine
            .set_option("Skill Level", &level.to_string())
            .unwrap();
        engine.new_game();
        let (best, events) = engine.search(Limits::depth(30));
        assert!(engine.position().is_legal(best.unwrap()));
        let nodes = max_info_nodes(&events);
        let depth = events
            .iter()
            .filter_map(|e| match e {
                Event::Info(i) => Some(i.depth),
                _ => None,
            })
            .max()
            .unwrap();
        assert!(
            nodes <= skill.node_cap() + 1024,
            "level {level}: {nodes} nodes, cap {}",
            skill.node_cap()
        );
        assert!(
            depth < skill.depth_cap(),
            "level {level}: depth {depth} reached the depth cap {}, the node cap {} did not bind",
            skill.depth_cap(),
            skill.node_cap()
        );
    }
}

/// Level 0 loses to level 20: games at a fixed node count, played out by the rules core.
#[test]
fn level_0_loses_to_level_20() {
    use xiangqi::{Color, Game};
    let mut weak = Engine::new();
    weak.set_seed(11);
    weak.set_option("Skill Level", "0").unwrap();
    let mut strong = Engine::new();
    let mut strong_wins = 0;
    let games = 4;
    for g in 0..games {
        let strong_colour = if g % 2 == 0 { Color::Red } else { Color::Black };
        weak.new_game();
        strong.new_game();
        let mut game = Game::new(Position::new());
        while game.outcome().is_none() && game.len() < 300 {
            let engine = if game.position().turn() == strong_colour {
                &mut strong
            } else {
                &mut weak
            };
            engine
                .set_position(game.start().clone(), &game.moves())
                .unwrap();
            let (best, _) = engine.search(Limits::nodes(3000));
            game.push(best.expect("a move while the game goes on"))
                .unwrap();
        }
        let outcome = game.outcome();
        if outcome.is_some_and(|o| o.winner == Some(strong_colour)) {
            strong_wins += 1;
        }
        eprintln!(
            "game {g}: level 20 as {strong_colour}: {outcome:?} after {} plies",
            game.len()
        );
    }
    assert_eq!(strong_wins, games, "level 20 won {strong_wins} of {games}");
}

/// The bench node count is the search's signature: update it on purpose when the search
/// or the embedded network changes (run `bench` in the engine and copy the count). The
/// classical evaluation's count (`setoption name Use NNUE value false`, then `bench`) is
/// pinned too, so that the classical evaluation stays what the levels were calibrated with.
#[test]
fn bench_signature() {
    let mut engine = Engine::new();
    let depth = xiangqi_engine::bench::DEPTH;
    let r = engine.bench(depth, &mut |_| {});
    let again = engine.bench(depth, &mut |_| {});
    assert_eq!(r.nodes, again.nodes, "bench is not deterministic");
    assert_eq!(
        r.nodes, BENCH_NODES,
        "the search changed: update BENCH_NODES if on purpose"
    );
    engine.set_option("Use NNUE", "false").unwrap();
    let classical = engine.bench(depth, &mut |_| {});
    assert_eq!(
        classical.nodes, BENCH_NODES_CLASSICAL,
        "the classical search changed: update BENCH_NODES_CLASSICAL if on purpose"
    );
}

/// With the embedded network (the default).
const BENCH_NODES: u64 = 558_612;
/// With the classical evaluation.
const BENCH_NODES_CLASSICAL: u64 = 541_249;

/// The move-ordering histories are kept from one search of a game to the next (as
/// Stockfish keeps them) and forgotten at `ucinewgame`: after a new game the engine searches
/// exactly as a fresh one does, while a cleared hash alone still leaves what was learnt.
#[test]
fn histories_are_kept_between_searches_and_forgotten_at_a_new_game() {
    let first = "r1bakabr1/9/1cn3nc1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C1N2/9/RNBAKAB1R w - - 4 3";
    let second = "r1bakab1r/9/1cn2cn2/p1p1p1p1p/9/2P6/P3P1P1P/1C2C1N2/9/RNBAKAB1R w - - 6 4";
    let nodes_of = |engine: &mut Engine, fen: &str| {
        engine.set_position_text(Some(fen), &[]).unwrap();
        let (best, events) = engine.search(Limits::depth(9));
        assert!(best.is_some());
        max_info_nodes(&events)
    };
    let fresh = nodes_of(&mut Engine::new(), second);

    let mut engine = Engine::new();
    nodes_of(&mut engine, first);
    engine.new_game();
    assert_eq!(nodes_of(&mut engine, second), fresh, "new_game forgets all");

    let mut engine = Engine::new();
    nodes_of(&mut engine, first);
    engine.set_option("Clear Hash", "").unwrap();
    assert_ne!(
        nodes_of(&mut engine, second),
        fresh,
        "with the hash cleared, the histories learnt in the first search still order moves"
    );
}
