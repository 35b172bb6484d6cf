//! Differential checks of one position against the reference generator, shared by the
//! property tests and the fuzz targets. Each returns a description of the first disagreement.

#![allow(dead_code)]

use xiangqi::{Move, Position, Setup, Square};

use super::reference::{man_of, Man, Pt, RefBoard};

/// Sorted legal moves from the crate.
pub fn crate_moves(pos: &Position) -> Vec<Move> {
    let mut v: Vec<Move> = pos.legal_moves().iter().copied().collect();
    v.sort();
    v
}

fn diff(ours: &[Move], reference: &[Move]) -> String {
    let extra: Vec<String> = ours
        .iter()
        .filter(|m| !reference.contains(m))
        .map(|m| m.to_string())
        .collect();
    let missing: Vec<String> = reference
        .iter()
        .filter(|m| !ours.contains(m))
        .map(|m| m.to_string())
        .collect();
    format!("generated but not legal: {extra:?}; legal but not generated: {missing:?}")
}

/// Everything about one position that can be checked without playing on:
/// the incremental key, the legal move set, `count_legal_moves`, `is_check`, `checkers`,
/// `is_legal` for every from/to pair, `gives_check` for every legal move, the FEN round trip,
/// and the mirrored positions. `Err` names the FEN and what disagrees.
pub fn check_position(pos: &Position) -> Result<(), String> {
    check_position_at(pos, true)
}

/// [`check_position`], or with `full` false a lighter set for fuzzing speed: the key, the
/// legal move set, `is_check`, `checkers`, `is_legal` for every from-square holding a piece
/// of the side to move and every to-square, and the FEN round trip (no `gives_check` per move,
/// no mirrors).
pub fn check_position_at(pos: &Position, full: bool) -> Result<(), String> {
    let fen = pos.fen();
    let fail = |what: String| Err(format!("{fen}: {what}"));

    if pos.key() != pos.compute_key() {
        return fail(format!(
            "incremental key {:016x} != computed key {:016x}",
            pos.key(),
            pos.compute_key()
        ));
    }

    let rb = RefBoard::from_position(pos);
    let reference = rb.legal_moves_as_crate();
    let ours = crate_moves(pos);
    if ours != reference {
        return fail(diff(&ours, &reference));
    }
    if pos.count_legal_moves() != reference.len() {
        return fail(format!(
            "count_legal_moves {} != {} legal moves",
            pos.count_legal_moves(),
            reference.len()
        ));
    }
    if pos.has_no_legal_move() != reference.is_empty() {
        return fail("has_no_legal_move disagrees".into());
    }

    if pos.is_check() != rb.is_check() {
        return fail(format!(
            "is_check {} but reference says {}",
            pos.is_check(),
            rb.is_check()
        ));
    }
    let mut checkers: Vec<Pt> = pos.checkers().into_iter().map(Pt::from_square).collect();
    checkers.sort();
    let ref_checkers = rb.attackers_of_general(rb.turn);
    if checkers != ref_checkers {
        return fail(format!(
            "checkers {checkers:?} but reference says {ref_checkers:?}"
        ));
    }
    if pos.is_checkmate() != (rb.is_check() && reference.is_empty())
        || pos.is_stalemate() != (!rb.is_check() && reference.is_empty())
    {
        return fail("is_checkmate / is_stalemate disagree".into());
    }

    // is_legal for all 90 x 90 from/to pairs.
    let mut legal = [false; 90 * 90];
    for m in &reference {
        legal[m.from().index() * 90 + m.to().index()] = true;
    }
    for from in Square::all() {
        // The lighter set skips from-squares without a piece of the side to move (never legal,
        // and `is_legal` answers them first thing); the full set tries them too.
        if !full && pos.piece_at(from).map(|p| p.color) != Some(pos.turn()) {
            continue;
        }
        for to in Square::all() {
            let m = Move::new(from, to);
            if pos.is_legal(m) != legal[from.index() * 90 + to.index()] {
                return fail(format!(
                    "is_legal({m}) = {} but the reference says {}",
                    pos.is_legal(m),
                    !pos.is_legal(m)
                ));
            }
        }
    }

    // gives_check and the captured piece, for every legal move.
    for &m in reference.iter().filter(|_| full) {
        let mut after_ref = rb.clone();
        let ref_captured = after_ref.apply((Pt::from_square(m.from()), Pt::from_square(m.to())));
        if pos.gives_check(m) != after_ref.is_check() {
            return fail(format!(
                "gives_check({m}) = {} but the reference says {}",
                pos.gives_check(m),
                after_ref.is_check()
            ));
        }
        let mut after = pos.clone();
        let captured = after.play_unchecked(m);
        if captured.map(man_of) != ref_captured {
            return fail(format!(
                "play_unchecked({m}) captured {captured:?}, reference {ref_captured:?}"
            ));
        }
        let expected_half = if captured.is_some() {
            0
        } else {
            pos.halfmoves().saturating_add(1)
        };
        if after.halfmoves() != expected_half {
            return fail(format!(
                "after {m} the no-capture count is {} (expected {expected_half})",
                after.halfmoves()
            ));
        }
        if after.key() != after.compute_key() {
            return fail(format!("after {m} the incremental key is wrong"));
        }
        if RefBoard::from_position(&after) != after_ref {
            return fail(format!("after {m} the boards differ"));
        }
    }

    // FEN round trip, and the reference's own FEN reader agrees with the written FEN.
    match Position::from_fen(&fen) {
        Ok(back) if back == *pos => {}
        Ok(back) => return fail(format!("FEN reads back as a different position {back:?}")),
        Err(e) => return fail(format!("written FEN does not read back: {e}")),
    }
    if RefBoard::from_fen(&fen).as_ref() != Some(&rb) {
        return fail("the reference reads the written FEN as another board".into());
    }

    if full {
        check_mirrors(pos, &ours)?;
    }
    Ok(())
}

/// The left-right mirror and the colour-swapped position are legal positions whose legal
/// moves are the mirrored moves, with the same check status.
pub fn check_mirrors(pos: &Position, ours: &[Move]) -> Result<(), String> {
    let fen = pos.fen();
    let flipped = pos.flip_horizontal();
    if let Err(e) = Position::from_setup(flipped.to_setup()) {
        return Err(format!(
            "{fen}: flip_horizontal gives an invalid position: {e}"
        ));
    }
    let mut expected: Vec<Move> = ours.iter().map(|m| m.flip_horizontal()).collect();
    expected.sort();
    if crate_moves(&flipped) != expected {
        return Err(format!(
            "{fen}: flip_horizontal moves: {}",
            diff(&crate_moves(&flipped), &expected)
        ));
    }
    if flipped.is_check() != pos.is_check() || flipped.key() != flipped.compute_key() {
        return Err(format!(
            "{fen}: flip_horizontal changes check status or key"
        ));
    }
    if RefBoard::from_position(&flipped) != RefBoard::from_position(pos).flip_horizontal() {
        return Err(format!(
            "{fen}: flip_horizontal is not the reference mirror"
        ));
    }

    let swapped = pos.swap_colors();
    if let Err(e) = Position::from_setup(swapped.to_setup()) {
        return Err(format!("{fen}: swap_colors gives an invalid position: {e}"));
    }
    let mut expected: Vec<Move> = ours.iter().map(|m| m.flip_vertical()).collect();
    expected.sort();
    if crate_moves(&swapped) != expected {
        return Err(format!(
            "{fen}: swap_colors moves: {}",
            diff(&crate_moves(&swapped), &expected)
        ));
    }
    if swapped.is_check() != pos.is_check() || swapped.turn() == pos.turn() {
        return Err(format!(
            "{fen}: swap_colors changes check status or keeps the turn"
        ));
    }
    if swapped.swap_colors() != *pos || flipped.flip_horizontal() != *pos {
        return Err(format!(
            "{fen}: mirroring twice does not give the position back"
        ));
    }
    Ok(())
}

/// Validation of a setup agrees with the reference rules (accept / reject).
pub fn check_validation(setup: &Setup) -> Result<(), String> {
    let ours = Position::from_setup(setup.clone());
    let rb = RefBoard::from_position(&Position::from_setup_unchecked(setup.clone()));
    let theirs = rb.validate();
    match (&ours, &theirs) {
        (Ok(_), Ok(())) | (Err(_), Err(_)) => Ok(()),
        (Ok(_), Err(why)) => Err(format!(
            "{}: accepted, but the reference rejects it: {why}",
            xiangqi::Fen(setup.clone())
        )),
        (Err(e), Ok(())) => Err(format!(
            "{}: rejected ({e}), but the reference accepts it",
            xiangqi::Fen(setup.clone())
        )),
    }
}

/// A piece of the reference board, for building setups in tests.
pub fn man_piece(m: Man) -> xiangqi::Piece {
    use super::reference::{Kind, Side};
    use xiangqi::{Color, Piece, Role};
    let color = match m.side {
        Side::Red => Color::Red,
        Side::Black => Color::Black,
    };
    let role = match m.kind {
        Kind::General => Role::General,
        Kind::Advisor => Role::Advisor,
        Kind::Elephant => Role::Elephant,
        Kind::Horse => Role::Horse,
        Kind::Chariot => Role::Chariot,
        Kind::Cannon => Role::Cannon,
        Kind::Soldier => Role::Soldier,
    };
    Piece::new(color, role)
}
