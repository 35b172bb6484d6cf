//! Property tests of the rules core against the independent reference generator in
//! `tests/common/reference.rs`: long random games (weighted towards captures so that they
//! reach endgames) from the start position, from the published perft positions and from
//! random endgame setups. After every move, `common::checks::check_position` compares the
//! incremental Zobrist key, the legal move set, `is_check`/`checkers`, `is_legal` for all
//! 8,100 from/to pairs, `gives_check`, the FEN round trip and the mirrored positions.
//!
//! Everything is deterministic (fixed seeds, a SplitMix64 written in the test).

mod common;

use std::path::PathBuf;

use common::checks::{check_position, check_validation, man_piece};
use common::reference::{self, reachable, Kind, Man, Pt, RefBoard, Side, KINDS};
use common::rng::Rng;
use xiangqi::{Board, Color, Fen, Move, Position, Setup, Square};

/// `<workspace root>/../shared`, or `$XIANGQI_SHARED`.
fn shared_dir() -> PathBuf {
    match std::env::var_os("XIANGQI_SHARED") {
        Some(p) => PathBuf::from(p),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"),
    }
}

/// The perft positions and their counts: (FEN, [(depth, nodes)]).
fn perft_lines() -> Vec<(String, Vec<(u32, u64)>)> {
    let path = shared_dir().join("data/perft.txt");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut parts = line.split(';');
        let fen = parts.next().expect("a FEN").trim().to_string();
        let counts = parts
            .map(|p| {
                let mut it = p.split_whitespace();
                let d = it.next().expect("depth").parse().expect("depth number");
                let n = it.next().expect("nodes").parse().expect("node count");
                (d, n)
            })
            .collect();
        out.push((fen, counts));
    }
    assert!(
        out.len() >= 10,
        "perft.txt has only {} positions",
        out.len()
    );
    out
}

/// Plays one random game from `start`, checking every position on the way. Captures are
/// chosen with probability 7/10 when there are any, so games thin out into endgames.
/// Returns the number of plies played and the number of pieces left.
fn play_checked_game(start: Position, rng: &mut Rng, max_plies: usize) -> (usize, u32) {
    let mut pos = start;
    let mut history: Vec<Move> = Vec::new();
    let start_fen = pos.fen();
    let context = |history: &[Move]| {
        let moves: Vec<String> = history.iter().map(|m| m.to_string()).collect();
        format!("game from {start_fen} after moves [{}]", moves.join(" "))
    };
    loop {
        if let Err(e) = check_position(&pos) {
            panic!("{}\n{e}", context(&history));
        }
        if history.len() >= max_plies {
            break;
        }
        let moves: Vec<Move> = pos.legal_moves().iter().copied().collect();
        if moves.is_empty() {
            break;
        }
        // An illegal move is refused and leaves the position unchanged.
        let from = Square::new(rng.below(90) as u8).unwrap();
        let to = Square::new(rng.below(90) as u8).unwrap();
        let wild = Move::new(from, to);
        if !moves.contains(&wild) {
            let before = pos.clone();
            assert!(
                pos.play(wild).is_err(),
                "{}: play({wild}) accepted",
                context(&history)
            );
            assert_eq!(
                pos,
                before,
                "{}: a refused move changed the position",
                context(&history)
            );
        }
        let captures: Vec<Move> = moves
            .iter()
            .copied()
            .filter(|&m| pos.is_capture(m))
            .collect();
        let m = if !captures.is_empty() && rng.chance(7, 10) {
            *rng.pick(&captures)
        } else {
            *rng.pick(&moves)
        };
        pos.play(m)
            .unwrap_or_else(|e| panic!("{}: legal move {m} refused: {e}", context(&history)));
        history.push(m);
    }
    (history.len(), pos.board().occupied().count())
}

#[test]
fn reference_generator_matches_published_perft_counts() {
    let mut checked = 0;
    for (fen, counts) in perft_lines() {
        let rb = RefBoard::from_fen(&fen).expect("the reference reads the perft FEN");
        for (depth, nodes) in counts {
            if depth <= 3 && nodes <= 100_000 {
                assert_eq!(reference::perft(&rb, depth), nodes, "{fen} depth {depth}");
                checked += 1;
            }
        }
    }
    assert!(checked >= 20, "only {checked} perft counts checked");
}

#[test]
fn random_games_from_the_start_position() {
    let mut rng = Rng::new(0x5eed_0001);
    let (mut plies, mut endgames) = (0, 0);
    for _ in 0..12 {
        let (n, left) = play_checked_game(Position::new(), &mut rng, 300);
        plies += n;
        if left <= 10 {
            endgames += 1;
        }
    }
    eprintln!("start position: {plies} plies checked, {endgames} games reached <= 10 pieces");
    assert!(plies >= 1500, "only {plies} plies played");
    assert!(endgames >= 3, "only {endgames} games reached an endgame");
}

#[test]
fn random_games_from_the_perft_positions() {
    let mut rng = Rng::new(0x5eed_0002);
    let mut plies = 0;
    for (fen, _) in perft_lines() {
        let pos = Position::from_fen(&fen).expect("perft FEN is valid");
        for _ in 0..2 {
            plies += play_checked_game(pos.clone(), &mut rng, 150).0;
        }
    }
    eprintln!("perft positions: {plies} plies checked");
    assert!(plies >= 1500, "only {plies} plies played");
}

/// A random setup. With `plausible`, every piece stands on a point it can reach and no side
/// has more of a piece than allowed, so that the interesting rejections (generals facing,
/// side not to move in check) and many valid positions come up; otherwise anything goes.
fn random_setup(rng: &mut Rng, max_extra: usize, plausible: bool) -> Setup {
    let mut rb = RefBoard::empty(if rng.chance(1, 2) {
        Side::Red
    } else {
        Side::Black
    });
    let all_points: Vec<Pt> = (0..90).map(|i| Pt::new(i % 9, i / 9)).collect();
    for side in [Side::Red, Side::Black] {
        if !plausible && rng.chance(1, 20) {
            continue; // no general
        }
        let man = Man {
            side,
            kind: Kind::General,
        };
        let spots: Vec<Pt> = all_points
            .iter()
            .copied()
            .filter(|&p| !plausible && rng.chance(1, 30) || reachable(man, p))
            .collect();
        rb.set(*rng.pick(&spots), Some(man));
    }
    let extra = rng.below(max_extra + 1);
    for _ in 0..extra {
        let side = if rng.chance(1, 2) {
            Side::Red
        } else {
            Side::Black
        };
        let kind = if plausible {
            *rng.pick(&KINDS[1..])
        } else {
            *rng.pick(&KINDS)
        };
        let man = Man { side, kind };
        let max = if kind == Kind::Soldier { 5 } else { 2 };
        let have = rb.men().iter().filter(|(_, m)| *m == man).count();
        if plausible && have >= max {
            continue;
        }
        let spots: Vec<Pt> = all_points
            .iter()
            .copied()
            .filter(|&p| rb.at(p).is_none() && (!plausible || reachable(man, p)))
            .collect();
        if spots.is_empty() {
            continue;
        }
        rb.set(*rng.pick(&spots), Some(man));
    }
    let mut board = Board::empty();
    for (p, m) in rb.men() {
        board.put(p.square(), man_piece(m));
    }
    Setup {
        board,
        turn: if rb.turn == Side::Red {
            Color::Red
        } else {
            Color::Black
        },
        halfmoves: rng.below(200) as u32,
        fullmoves: 1 + rng.below(300) as u32,
    }
}

#[test]
fn random_games_from_random_endgames() {
    let mut rng = Rng::new(0x5eed_0003);
    let (mut games, mut plies) = (0, 0);
    while games < 150 {
        let setup = random_setup(&mut rng, 12, true);
        let Ok(pos) = Position::from_setup(setup) else {
            continue;
        };
        games += 1;
        plies += play_checked_game(pos, &mut rng, 120).0;
    }
    eprintln!("random endgames: {games} games, {plies} plies checked");
    assert!(plies >= 3000, "only {plies} plies played");
}

#[test]
fn position_validation_agrees_with_the_reference() {
    let mut rng = Rng::new(0x5eed_0004);
    let (mut accepted, mut rejected) = (0, 0);
    for i in 0..20_000 {
        let setup = random_setup(&mut rng, 1 + i % 32, i % 2 == 0);
        if let Err(e) = check_validation(&setup) {
            panic!("{e}");
        }
        match Position::from_setup(setup) {
            Ok(_) => accepted += 1,
            Err(_) => rejected += 1,
        }
    }
    eprintln!("validation: {accepted} accepted, {rejected} rejected");
    assert!(
        accepted >= 2000 && rejected >= 2000,
        "{accepted} accepted, {rejected} rejected"
    );
}

#[test]
fn fen_of_any_setup_round_trips() {
    let mut rng = Rng::new(0x5eed_0005);
    for i in 0..5_000 {
        let setup = random_setup(&mut rng, 1 + i % 40, i % 3 == 0);
        let text = Fen(setup.clone()).to_string();
        let back: Fen = text.parse().unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(back.0, setup, "{text}");
        assert_eq!(back.to_string(), text);
        let rb = RefBoard::from_fen(&text).expect("the reference reads it");
        assert_eq!(
            rb,
            RefBoard::from_position(&Position::from_setup_unchecked(setup)),
            "{text}"
        );
    }
}

/// Hand-picked positions for the rules most likely to go wrong, each checked in full.
#[test]
fn tricky_positions_agree_with_the_reference() {
    let fens = [
        // The flying general pins the only piece between the generals.
        "4k4/9/9/9/9/4R4/9/9/9/4K4 w - - 0 1",
        "3k5/9/9/9/9/4c4/9/9/9/4K4 w - - 0 1",
        // A general may not step onto an open file facing the other general.
        "3k5/9/9/9/9/9/9/9/9/5K3 w - - 0 1",
        // Cannon screens: own piece, enemy piece, two pieces in between.
        "4k4/9/4c4/9/4P4/9/9/4C4/9/3K5 b - - 0 1",
        "3k5/9/9/9/9/9/3p5/3c5/3P5/4K4 w - - 0 1",
        // Horse legs blocked by either side, horse check through a leg.
        "3k5/9/9/9/9/9/9/3n5/4A4/4K4 w - - 0 1",
        "3k5/4a4/3N5/9/9/9/9/9/9/4K4 b - - 0 1",
        // Elephant eyes and the river.
        "3k5/9/9/9/2B6/3n5/4B4/9/9/4K4 w - - 0 1",
        // Soldiers before and after the river; a soldier checking sideways.
        "3k5/3P5/9/9/P8/9/9/9/9/4K4 b - - 0 1",
        "4k4/9/9/9/9/9/9/9/3p5/4K4 w - - 0 1",
        // Double check: chariot and cannon.
        "4k4/9/9/9/9/9/9/4r4/9/3R1K2c w - - 0 1",
        // Check by the flying general's line opened by a capture is not possible to answer
        // by moving the screen away.
        "3ak4/4a4/4c4/9/9/9/9/4C4/4A4/4KA3 w - - 0 1",
    ];
    for fen in fens {
        match Position::from_fen(fen) {
            Ok(pos) => {
                if let Err(e) = check_position(&pos) {
                    panic!("{e}");
                }
            }
            Err(e) => {
                // The reference must reject it too.
                let rb = RefBoard::from_fen(fen).expect("well-formed FEN");
                assert!(
                    rb.validate().is_err(),
                    "{fen}: rejected ({e}) but valid by reference"
                );
            }
        }
    }
}

/// Regression: a FEN may carry any u32 counters; playing a move from one at the maximum used to
/// overflow (`attempt to add with overflow` in `play_unchecked`, a panic in debug builds and a
/// wrap to 0 in release). The counters now saturate.
#[test]
fn counters_at_their_maximum_do_not_overflow() {
    let fen =
        "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b - - 4294967295 4294967295";
    let mut pos = Position::from_fen(fen).unwrap();
    let m = pos.parse_uci("h7e7").unwrap();
    pos.play(m).unwrap();
    assert_eq!(pos.halfmoves(), u32::MAX);
    assert_eq!(pos.fullmoves(), u32::MAX);
    check_position(&pos).unwrap();
    let m = pos.parse_uci("b2b9").unwrap();
    pos.play(m).unwrap();
    assert_eq!(pos.halfmoves(), 0, "a capture resets the count");
    assert_eq!(pos.fullmoves(), u32::MAX);
}
