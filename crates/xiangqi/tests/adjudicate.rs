//! One position of our own for each clause of RULES.md §6 (what counts as a chase), and for
//! the endings of §4 and the rulings of §5. The reference data (tests/rules_data.rs) covers
//! the AXF and Fairy-Stockfish cases; these pin down each rule on its own.

use xiangqi::adjudicate::{chases, History, Offence, PieceIds, RepetitionReason};
use xiangqi::game::{Detail, Game, Outcome, Reason, Rules};
use xiangqi::{Color, Position};

fn pos(fen: &str) -> Position {
    Position::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

/// The chases made by `mv` in `fen`, as `"Ra5>nc5"` (attacker, its square, victim, its square).
fn chased(fen: &str, mv: &str) -> Vec<String> {
    let before = pos(fen);
    let m = before.parse_uci(mv).unwrap_or_else(|e| panic!("{mv}: {e}"));
    let mut after = before.clone();
    after.play_unchecked(m);
    let before_ids = PieceIds::new(before.board());
    let mut after_ids = before_ids.clone();
    after_ids.apply(m);
    let mut v: Vec<String> = chases(&before, &before_ids, &after, &after_ids)
        .iter()
        .map(|t| {
            format!(
                "{}{}>{}{}",
                t.attacker.char(),
                t.attacker_square,
                t.victim.char(),
                t.victim_square
            )
        })
        .collect();
    v.sort();
    v
}

fn game(fen: &str, moves: &str, rules: Rules) -> Game {
    let mut g = Game::with_rules(pos(fen), rules);
    for (i, m) in moves.split_whitespace().enumerate() {
        g.push_uci(m)
            .unwrap_or_else(|e| panic!("move {} ({m}): {e}", i + 1));
    }
    g
}

fn outcome(fen: &str, moves: &str) -> Option<Outcome> {
    game(fen, moves, Rules::default()).outcome()
}

fn win(color: Color, reason: Reason) -> Option<Outcome> {
    Some(Outcome {
        winner: Some(color),
        reason,
    })
}

fn draw(reason: Reason) -> Option<Outcome> {
    Some(Outcome {
        winner: None,
        reason,
    })
}

// ---- §6.1: what never chases, and what is never chased ----

#[test]
fn rule_6_1_the_general_is_checked_not_chased() {
    // The chariot's attack on the general is a check, not a chase.
    let fen = "4k4/9/9/9/9/9/9/9/9/R2K5 w - - 0 1";
    assert_eq!(chased(fen, "a0a9"), Vec::<String>::new());
    let g = game(fen, "a0a9", Rules::default());
    assert!(g.history().gave_check(1));
}

#[test]
fn rule_6_1_an_uncrossed_soldier_is_not_chased_a_crossed_one_is() {
    // Black soldier on e6: still on its own side of the river.
    assert_eq!(
        chased("3k5/9/9/4p4/9/9/9/9/9/R3K4 w - - 0 1", "a0a6"),
        Vec::<String>::new()
    );
    // Black soldier on e4: across the river, unprotected.
    assert_eq!(
        chased("3k5/9/9/9/9/4p4/9/9/9/R3K4 w - - 0 1", "a0a4"),
        ["Ra4>pe4"]
    );
}

#[test]
fn rule_6_1_a_soldier_never_chases() {
    // The red soldier steps sideways to attack an unprotected horse: an idle move.
    assert_eq!(
        chased("3k5/9/4n4/3P5/9/9/9/9/9/4K4 w - - 0 1", "d6e6"),
        Vec::<String>::new()
    );
}

#[test]
fn rule_6_1_a_general_never_chases() {
    // The red general steps up next to an unprotected black horse: an idle move.
    assert_eq!(
        chased("3k5/9/9/9/9/9/9/3n5/4K4/9 w - - 0 1", "e1e2"),
        Vec::<String>::new()
    );
}

// ---- §6.2: it must be new ----

#[test]
fn rule_6_2_a_threat_kept_is_not_new() {
    // The chariot already attacks the unprotected cannon on a5; sliding to a1 keeps the same
    // threat: not a chase.
    assert_eq!(
        chased("3k5/9/9/9/c8/9/9/9/9/R3K4 w - - 0 1", "a0a1"),
        Vec::<String>::new()
    );
    // From b0 the chariot did not attack it: moving to b5 does.
    assert_eq!(
        chased("3k5/9/9/9/c8/9/9/9/9/1R2K4 w - - 0 1", "b0b5"),
        ["Rb5>ca5"]
    );
}

#[test]
fn rule_6_2_a_discovered_threat_is_new() {
    // The horse on a2 blocks the chariot's file; moving it away uncovers the attack.
    assert_eq!(
        chased("3k5/9/9/9/c8/9/9/N8/9/R3K4 w - - 0 1", "a2b4"),
        ["Ra0>ca5"]
    );
}

#[test]
fn rule_6_2_the_chased_piece_is_followed_as_it_moves() {
    // The cannon runs from a5 to b5, the chariot follows to b0: a new threat on the same piece.
    let mut h = History::new(pos("3k5/9/9/9/c8/9/9/9/9/R3K4 b - - 0 1"));
    for m in ["a5b5", "a0b0"] {
        let mv = h.position().parse_uci(m).unwrap();
        h.push(mv);
    }
    let t = h.chases_at(2);
    assert_eq!(t.len(), 1);
    // The victim keeps the identity it had on a5 at the start.
    let start_id = PieceIds::new(h.start().board())
        .get("a5".parse().unwrap())
        .unwrap();
    assert_eq!(t[0].victim_id, start_id);
}

// ---- §6.3: always a chase, protected or not ----

#[test]
fn rule_6_3_a_horse_on_a_protected_chariot_chases() {
    // The black chariots on d5 and d6 protect each other; the horse attacks d5 from e3.
    assert_eq!(
        chased("3k5/9/9/3r5/3r5/9/9/6N2/9/4K4 w - - 0 1", "g2e3"),
        ["Ne3>rd5"]
    );
}

#[test]
fn rule_6_3_a_cannon_on_a_protected_chariot_chases() {
    // The cannon moves to a5 and attacks the chariot on e5 over the soldier on c5; the black
    // chariot on e6 protects it.
    assert_eq!(
        chased("5k3/9/9/4r4/2p1r4/9/9/9/9/C2K5 w - - 0 1", "a0a5"),
        ["Ca5>re5"]
    );
}

#[test]
fn rule_6_3_an_elephant_on_a_protected_horse_chases() {
    // The horse on c4 is protected by the chariot on c9; the elephant moves to e2 and attacks it.
    assert_eq!(
        chased("2rk5/9/9/9/9/2n6/9/9/9/4K1B2 w - - 0 1", "g0e2"),
        ["Be2>nc4"]
    );
}

#[test]
fn rule_6_3_an_advisor_on_a_chariot_chases() {
    // A black chariot on d2, protected by the other on d6; the advisor moves to e1 and
    // attacks it.
    assert_eq!(
        chased("3k5/9/9/3r5/9/9/9/3r5/9/3AK4 w - - 0 1", "d0e1"),
        ["Ae1>rd2"]
    );
}

// ---- §6.4: the same kind ----

#[test]
fn rule_6_4_an_offer_to_exchange_is_not_a_chase() {
    // The chariot comes to a5, facing the black chariot on e5, which can take it back.
    assert_eq!(
        chased("4k4/9/9/9/4r4/9/9/9/9/R2K5 w - - 0 1", "a0a5"),
        Vec::<String>::new()
    );
}

#[test]
fn rule_6_4_a_lame_horse_is_chased() {
    // The red horse on d4 attacks the black horse on e6, whose leg (e5) is blocked: it cannot
    // strike back, and nothing protects it.
    assert_eq!(
        chased("3k5/9/9/4n4/4p4/9/1N7/9/9/4K4 w - - 0 1", "b3d4"),
        ["Nd4>ne6"]
    );
    // The same with the black chariot on e8 protecting it: no chase (the reference data rule
    // so; see docs/RULES-STATUS.md on §6.4).
    assert_eq!(
        chased("3k5/4r4/9/4n4/4p4/9/1N7/9/9/4K4 w - - 0 1", "b3d4"),
        Vec::<String>::new()
    );
}

#[test]
fn rule_6_4_a_pinned_piece_of_the_same_kind_is_chased() {
    // The black chariot on e6 is pinned by the red cannon on e1 (screens e6 and e8): it cannot
    // take the chariot that comes to a6.
    assert_eq!(
        chased("4k4/4a4/9/4r4/9/9/9/9/4C4/R2K5 w - - 0 1", "a0a6"),
        ["Ra6>re6"]
    );
}

// ---- §6.5: otherwise only an unprotected piece is chased ----

#[test]
fn rule_6_5_unprotected_and_protected() {
    assert_eq!(
        chased("3k5/9/9/9/2n6/9/9/9/9/R3K4 w - - 0 1", "a0a5"),
        ["Ra5>nc5"]
    );
    // The soldier on c6 protects the horse.
    assert_eq!(
        chased("3k5/9/9/2p6/2n6/9/9/9/9/R3K4 w - - 0 1", "a0a5"),
        Vec::<String>::new()
    );
}

#[test]
fn rule_6_5_a_pinned_protector_is_false() {
    // The chariot on c8 would protect the horse on c5, but it is pinned to its general on e8 by
    // the red chariot on a8.
    assert_eq!(
        chased("9/R1r1k4/9/9/2n6/9/9/9/9/R2K5 w - - 0 1", "a0a5"),
        ["Ra5>nc5"]
    );
}

#[test]
fn rule_6_5_a_general_that_would_face_the_other_is_a_false_protector() {
    // Only the black general protects the horse on d8, and taking back there would open the
    // d file to the red general.
    assert_eq!(
        chased("3k5/3n5/9/9/9/9/9/9/9/R2K5 w - - 0 1", "a0a8"),
        ["Ra8>nd8"]
    );
}

#[test]
fn rule_6_5_a_recapture_into_check_is_false() {
    // The general on e9 protects the horse on e8 while one chariot (i8) attacks it; once the
    // second chariot arrives on a8, taking back would put the general in the other's line.
    // Both chariots now chase: the second by arriving, the first because the protection is gone.
    assert_eq!(
        chased("4k4/4n3R/9/9/9/9/9/9/9/R2K5 w - - 0 1", "a0a8"),
        ["Ra8>ne8", "Ri8>ne8"]
    );
}

#[test]
fn rule_6_5_undermining_a_protector_by_pinning_it_is_a_chase() {
    // The black chariot on d3 attacks the red horse on d2, protected by the chariot on e2.
    // The horse returning to e3 pins that chariot (moving it would let the horse check on f1):
    // the chase is new although the chariot's attack is not.
    let fen = "4k4/4c4/9/4p4/9/6n2/3r5/3NR4/5K3/9 b - - 0 1";
    assert_eq!(chased(fen, "g4e3"), ["rd3>Nd2"]);
}

#[test]
fn rule_6_5_blocking_a_defender_is_a_chase_unless_it_defends_the_attacker() {
    // The black chariot on d5 attacks the red horse on c5. The red chariot on c0 protects it
    // up the c file; a black soldier stepping into c3 blocks that: a chase.
    assert_eq!(
        chased("4k4/9/9/9/2Nr5/9/1p7/9/9/2R2K3 b - - 0 1", "b3c3"),
        ["rd5>Nc5"]
    );
    // Here the horse is protected by the red chariot on h5, through the black chariot's own
    // point (h5 attacks d5). The elephant stepping into g5 shields the black chariot; that the
    // horse loses its protection on the way is not a chase (AXF cases 56-60 and 87-88 of the
    // reference data rule so).
    assert_eq!(
        chased("4k4/9/4b4/9/2Nr3R1/9/9/9/9/5K3 b - - 0 1", "e7g5"),
        Vec::<String>::new()
    );
}

#[test]
fn rule_6_5_a_check_already_given_does_not_make_defenders_false() {
    // The cannon checks from f5. The advisor's recapture on d7 (after the chariot takes the
    // horse) would not answer that check, but a threat is about the next move, once the check
    // has been met: the horse stays protected, and the checking move chases nothing (AXF case
    // "perpetual kill", line 21 of the reference data).
    let fen = "5k3/4a4/3n5/5P3/7C1/9/9/9/3R5/4K4 w - - 0 1";
    assert_eq!(chased(fen, "h5f5"), Vec::<String>::new());
    assert!(game(fen, "h5f5", Rules::default()).history().gave_check(1));
}

#[test]
fn rule_6_2_a_threat_interrupted_by_a_check_is_not_new() {
    // Red is in check from the chariot on d5 and steps out with the general. The horse's
    // threat on the unprotected cannon on i1 was there before the check: answering the check
    // does not make it new (found by the differential run against Fairy-Stockfish; see
    // docs/RULES-STATUS.md).
    let fen = "5k3/9/9/9/3r5/9/9/6N2/3K4c/9 w - - 0 1";
    assert_eq!(chased(fen, "d1e1"), Vec::<String>::new());
    // Not in check, the same general move is idle too, and a horse arriving chases.
    assert_eq!(
        chased("5k3/9/9/9/9/9/9/6N2/3K4c/9 w - - 0 1", "d1e1"),
        Vec::<String>::new()
    );
    assert_eq!(
        chased("5k3/9/9/9/9/9/9/9/3K4c/5N3 w - - 0 1", "f0g2"),
        ["Ng2>ci1"]
    );
}

// ---- §6.6: a pinned attacker threatens only what it may take ----

#[test]
fn rule_6_6_a_pinned_attacker_does_not_chase() {
    // The red chariot is pinned on the e file by the black chariot on e7; on e3 it attacks the
    // unprotected horse on b3, but may not take it.
    assert_eq!(
        chased("3k5/9/4r4/9/9/9/1n7/4R4/9/4K4 w - - 0 1", "e2e3"),
        Vec::<String>::new()
    );
}

// ---- §5: rulings on a repetition ----

/// Red's chariot checks from f9 and f8 while Black's general steps between e9 and e8.
const CHECKING: &str = "4k4/9/9/9/9/9/9/9/9/3K1R3 w - - 0 1";
const CHECKS: &str = "f0f9 e9e8 f9f8 e8e9 f8f9 e9e8 f9f8 e8e9 f8f9";

#[test]
fn rule_5_perpetual_check_loses() {
    assert_eq!(
        outcome(CHECKING, CHECKS),
        win(Color::Black, Reason::PerpetualCheck)
    );
    // Not before the third occurrence by default ...
    let short = "f0f9 e9e8 f9f8 e8e9 f8f9";
    assert_eq!(outcome(CHECKING, short), None);
    // ... but at the second with `repetitions = 2`.
    let g = game(CHECKING, short, Rules::default().with_repetitions(2));
    assert_eq!(g.outcome(), win(Color::Black, Reason::PerpetualCheck));
    let text = g.ruling().unwrap().to_string();
    assert!(text.starts_with("Red loses by perpetual check: red gave check on every red move from move 2 (f9f8) to move 3 (f8f9)."), "{text}");
}

/// Red's cannon chases Black's chariot between the a and b files (Black idles).
const CHASING: &str = "2bakabnr/9/r1n1c4/2p1p1p1p/PP7/9/4P1P1P/2C3NC1/9/1NBAKAB1R w - - 0 1";
const CHASES: &str = "c2a2 a7b7 a2b2 b7a7 b2a2 a7b7 a2b2 b7a7 b2a2";

#[test]
fn rule_5_perpetual_chase_loses_and_is_explained() {
    let g = game(CHASING, CHASES, Rules::default());
    assert_eq!(g.outcome(), win(Color::Black, Reason::PerpetualChase));
    let r = g.ruling().unwrap();
    let Detail::Repetition(rep) = &r.detail else {
        panic!("a repetition ruling: {r:?}")
    };
    assert_eq!((rep.first, rep.last, rep.occurrences), (1, 9, 3));
    assert_eq!(rep.verdict.reason, RepetitionReason::PerpetualChase);
    let Some(Offence::PerpetualChase { victims }) = &rep.red.offence else {
        panic!("red chased: {rep:?}")
    };
    assert_eq!(victims.len(), 1);
    assert_eq!(victims[0].piece.to_string(), "black chariot");
    assert_eq!(victims[0].squares.len(), 2, "followed from a7 to b7");
    assert!(rep.black.offence.is_none());
    assert_eq!(
        r.to_string(),
        "Red loses by perpetual chase: the red cannon chased the black chariot as it moved \
         (b7, a7) on every red move from move 2 (a2b2) to move 5 (b2a2). Black \
         neither checked nor chased. The position after Red's move 5 occurred for the 3rd time \
         since the last capture (first after Red's move 1)."
    );
}

#[test]
fn rule_5_chase_rule_off_makes_it_a_draw() {
    let g = game(CHASING, CHASES, Rules::default().with_chase_rule(false));
    assert_eq!(g.outcome(), draw(Reason::Repetition));
}

#[test]
fn rule_5_idle_repetition_is_a_draw() {
    // Both generals step to and fro.
    let fen = "3k5/9/9/9/9/9/9/9/9/4K4 w - - 0 1";
    // Too little material ends this at once; give each side a soldier that cannot reach.
    let fen2 = "3k5/9/9/9/p8/P8/9/9/9/4K4 w - - 0 1";
    assert_eq!(outcome(fen, ""), draw(Reason::InsufficientMaterial));
    let g = game(
        fen2,
        "e0e1 d9d8 e1e0 d8d9 e0e1 d9d8 e1e0 d8d9",
        Rules::default(),
    );
    assert_eq!(g.outcome(), draw(Reason::Repetition));
    assert!(g
        .ruling()
        .unwrap()
        .to_string()
        .starts_with("Draw by repetition"));
}

#[test]
fn rule_5_alternating_check_and_chase_is_not_perpetual() {
    // Red's chariot alternates between a check (on the 9th rank) and an attack on the
    // unprotected cannon on a5; neither is perpetual.
    let fen = "4k4/9/9/9/c8/9/9/9/9/1R1K5 w - - 0 1";
    let moves = "b0b9 e9e8 b9b5 e8e9 b5b9 e9e8 b9b5 e8e9 b5b9";
    let g = game(fen, moves, Rules::default());
    assert_eq!(g.outcome(), draw(Reason::Repetition), "{:?}", g.ruling());
}

// ---- §4: the other endings ----

#[test]
fn rule_4_1_checkmate_and_stalemate_both_lose() {
    let mate = "R2k5/1R7/9/9/9/9/9/9/9/4K4 b - - 0 1";
    assert_eq!(outcome(mate, ""), win(Color::Red, Reason::Checkmate));
    // Black to move, not in check: d8 is covered by the chariot, e9 by the flying general.
    let stale = "3k5/R8/9/9/9/9/9/9/9/4K4 b - - 0 1";
    assert_eq!(outcome(stale, ""), win(Color::Red, Reason::Stalemate));
    let text = game(stale, "", Rules::default())
        .ruling()
        .unwrap()
        .to_string();
    assert!(
        text.contains("not in check but has no legal move"),
        "{text}"
    );
}

#[test]
fn rule_4_3_move_limit() {
    // 118 plies without capture so far: two more quiet plies reach 120.
    let fen = "3k5/9/9/9/p8/P8/9/9/9/4K4 w - - 118 80";
    assert_eq!(outcome(fen, "e0e1"), None);
    assert_eq!(outcome(fen, "e0e1 d9d8"), draw(Reason::MoveLimit));
    // Off, it never ends that way.
    let g = game(fen, "e0e1 d9d8", Rules::default().with_move_limit(None));
    assert_eq!(g.outcome(), None);
}

#[test]
fn rule_4_3_checks_beyond_the_tenth_do_not_count() {
    // Red checks on every move (chariot f9/f8 against the general on e9/e8). With repetitions
    // ruled only at the 1000th occurrence, only the move limit can end it.
    let rules = Rules::default()
        .with_repetitions(1000)
        .with_move_limit(Some(30));
    let mut g = Game::with_rules(pos(CHECKING), rules);
    let cycle = ["f9f8", "e8e9", "f8f9", "e9e8"];
    g.push_uci("f0f9").unwrap();
    g.push_uci("e9e8").unwrap();
    let mut i = 0;
    while g.outcome().is_none() {
        g.push_uci(cycle[i % 4]).unwrap();
        i += 1;
        assert!(g.len() < 100, "the limit never came");
    }
    // Red checks on each of its moves (the odd plies); from the 11th on they do not count.
    // After 2k plies, k of them red checks, k + 10 are counted: 30 after 40 plies.
    assert_eq!(g.outcome(), draw(Reason::MoveLimit));
    assert_eq!(g.len(), 40);
    assert_eq!(g.history().checks_since_capture(Color::Red), 20);
    assert_eq!(g.history().move_limit_count(), 30);
    let text = g.ruling().unwrap().to_string();
    assert_eq!(
        text,
        "Draw by the move limit: 40 plies (moves by either side) without a capture, of which \
         30 count (checks beyond a side's tenth since the last capture do not), reached the \
         limit of 30."
    );
}

#[test]
fn rule_4_3_a_capture_resets_the_count() {
    let fen = "3k5/9/9/9/p8/P8/9/9/9/4K4 w - - 118 80";
    // Red's soldier takes Black's: the count starts again.
    let g = game(fen, "a4a5 d9d8", Rules::default());
    assert_eq!(g.outcome(), None);
    assert_eq!(g.history().move_limit_count(), 1);
}

#[test]
fn rule_4_4_insufficient_material() {
    assert_eq!(
        outcome("3ak4/4a4/4b4/9/9/9/9/4B4/4A4/3AK4 w - - 0 1", ""),
        draw(Reason::InsufficientMaterial)
    );
    // A capture that removes the last attacking piece: Red's advisor takes the soldier.
    let g = game(
        "3k5/9/9/9/9/9/9/9/4p4/3AK4 w - - 0 1",
        "d0e1",
        Rules::default(),
    );
    assert_eq!(g.outcome(), draw(Reason::InsufficientMaterial));
}

#[test]
fn rule_4_5_declared_results() {
    let mut g = Game::new(Position::new());
    g.push_uci("h2e2").unwrap();
    g.resign(Color::Black);
    assert_eq!(g.outcome(), win(Color::Red, Reason::Resignation));
    assert_eq!(g.ruling().unwrap().to_string(), "Red wins: black resigned.");
    g.clear_declared();
    g.agree_draw();
    assert_eq!(g.outcome(), draw(Reason::Agreement));
    g.flag(Color::Red);
    assert_eq!(g.outcome(), win(Color::Black, Reason::Time));
    // Taking back the move before the declaration withdraws it.
    g.pop();
    assert_eq!(g.outcome(), None);
}

#[test]
fn rule_4_4_a_flag_is_a_draw_when_the_other_side_cannot_mate() {
    // Black has only its general and an advisor: Red's flag falling cannot lose.
    let pos = Position::from_fen("3ak4/9/9/9/9/9/9/9/R8/3K5 w - - 0 1").unwrap();
    let mut g = Game::new(pos.clone());
    g.flag(Color::Red);
    assert_eq!(g.outcome(), draw(Reason::Time));
    let r = g.ruling().unwrap();
    assert_eq!(
        r.to_string(),
        "Draw: red ran out of time, but black has no chariot, horse, cannon or soldier left \
         to mate with."
    );
    assert_eq!(
        r.text(&g, xiangqi::prose::Lang::Zh),
        "和棋：红方超时，但黑方已无车、马、炮、兵可以将死对方。"
    );
    // Black's flag: Red has a chariot, so Red wins.
    let mut g = Game::new(pos);
    g.flag(Color::Black);
    assert_eq!(g.outcome(), win(Color::Red, Reason::Time));
}

// ---- the Game and History APIs ----

#[test]
fn push_rejects_illegal_moves_and_pop_reopens_the_game() {
    let mut g = game(CHASING, CHASES, Rules::default());
    assert!(g.outcome().is_some());
    g.pop();
    assert_eq!(g.outcome(), None);
    let m = g.position().parse_uci("b2a2").unwrap();
    g.push(m).unwrap();
    assert!(g.outcome().is_some());
    let bad = xiangqi::Move::new("a0".parse().unwrap(), "a1".parse().unwrap());
    let e = g.push(bad).unwrap_err().to_string();
    assert!(e.contains("a0a1"), "{e}");
    assert!(g.push_uci("zz").is_err());
}

#[test]
fn reason_names_round_trip() {
    for r in Reason::ALL {
        assert_eq!(r.as_str().parse::<Reason>().unwrap(), r);
    }
    assert_eq!(Reason::PerpetualChase.to_string(), "perpetual-chase");
    assert_eq!(
        Reason::InsufficientMaterial.as_str(),
        "insufficient-material"
    );
    let e = "perpetual".parse::<Reason>().unwrap_err().to_string();
    assert!(e.contains("'perpetual' is not a reason"), "{e}");
    let o = Outcome {
        winner: Some(Color::Red),
        reason: Reason::MoveLimit,
    };
    assert_eq!(o.to_string(), "red-wins move-limit");
}

#[test]
fn history_rules_at_the_second_occurrence_for_a_search() {
    let mut h = History::new(pos(CHASING));
    let moves: Vec<&str> = CHASES.split(' ').collect();
    for (i, m) in moves.iter().enumerate().take(5) {
        let mv = h.position().parse_uci(m).unwrap();
        h.push(mv);
        if i < 4 {
            assert_eq!(h.repetition_verdict(2, true), None, "after move {}", i + 1);
        }
    }
    assert_eq!(h.occurrences(), 2);
    assert_eq!(h.first_occurrence(), 1);
    let v = h.repetition_verdict(2, true).unwrap();
    assert_eq!(v.winner, Some(Color::Black));
    assert_eq!(v.reason, RepetitionReason::PerpetualChase);
    // Popping restores the counts exactly.
    h.pop();
    assert_eq!(h.occurrences(), 1);
    assert_eq!(h.repetition_verdict(2, true), None);
    let mv = h.position().parse_uci("b2a2").unwrap();
    h.push(mv);
    assert_eq!(h.occurrences(), 2);
}

/// Random games, biased towards moving back and forth so that positions repeat, with moves
/// taken back at random: after every step the game must rule exactly as the same moves
/// replayed into a fresh game do (push/pop keep the counts, the cached chases and the
/// endings consistent).
#[test]
fn push_and_pop_agree_with_a_fresh_replay() {
    let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut rulings = 0;
    for game_no in 0..80 {
        let rules = Rules::default().with_repetitions(2 + (game_no % 2) as u32);
        let start = [
            xiangqi::START_FEN,
            CHASING,
            CHECKING,
            "4k4/9/9/9/c8/9/9/9/9/1R1K5 w - - 0 1",
        ][game_no % 4];
        let mut g = Game::with_rules(pos(start), rules);
        for _ in 0..80 {
            let r = next();
            if r % 7 == 0 && !g.is_empty() {
                g.pop();
            } else {
                let legal = g.position().legal_moves();
                if legal.is_empty() {
                    break;
                }
                // Half the time, undo the move made two plies ago by playing it backwards.
                let back = g
                    .moves()
                    .len()
                    .checked_sub(2)
                    .map(|i| g.moves()[i])
                    .map(|m| xiangqi::Move::new(m.to(), m.from()))
                    .filter(|m| legal.contains(m));
                let m = match back {
                    Some(m) if r % 2 == 0 => m,
                    _ => legal[(r >> 8) as usize % legal.len()],
                };
                g.push(m).unwrap();
            }
            let mut fresh = Game::with_rules(pos(start), rules);
            for m in g.moves() {
                fresh.push(m).unwrap();
            }
            assert_eq!(
                g.outcome(),
                fresh.outcome(),
                "game {game_no}: {:?}",
                g.moves()
            );
            assert_eq!(g.history().occurrences(), fresh.history().occurrences());
            assert_eq!(g.ruling(), fresh.ruling());
            if g.outcome().is_some() {
                rulings += 1;
            }
        }
    }
    assert!(rulings > 0, "the walk never reached a ruling");
}
