//! Bytes -> a position (pieces placed on the board, then validated) and a sequence of move
//! choices. Validation must agree with the reference rules; in every position reached, the
//! generated moves must be exactly the reference generator's legal moves, and the incremental
//! key, `is_check`, `checkers`, `is_legal` (all from/to pairs), `gives_check`, the FEN round
//! trip and the mirrored positions must agree (see tests/common/checks.rs; the positions
//! between the first and the last get the lighter set of checks).
//!
//! Input layout: byte 0 side to move (low bit); bytes 1-4 and 5-8 the no-capture count and
//! move number (little-endian u32); byte 9 the number of pieces n (mod 33); then n pairs
//! (piece index mod 14, square mod 90); every byte after that picks the next move (mod the
//! number of legal moves), up to 32 moves.
#![no_main]

use libfuzzer_sys::fuzz_target;
use xiangqi::{Board, Color, Piece, Position, Setup, Square};

#[path = "../../crates/xiangqi/tests/common/mod.rs"]
mod common;

use common::checks::{check_position_at, check_validation};

const MAX_PLIES: usize = 32;

fn u32_at(data: &[u8], at: usize) -> u32 {
    let mut b = [0u8; 4];
    for (i, x) in b.iter_mut().enumerate() {
        *x = data.get(at + i).copied().unwrap_or(0);
    }
    u32::from_le_bytes(b)
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 10 {
        return;
    }
    let turn = if data[0] & 1 == 0 {
        Color::Red
    } else {
        Color::Black
    };
    let halfmoves = u32_at(data, 1);
    let fullmoves = u32_at(data, 5);
    let n = data[9] as usize % 33;
    let mut rest = &data[10..];
    let mut board = Board::empty();
    for _ in 0..n {
        let [p, s, tail @ ..] = rest else { break };
        let piece = Piece::from_index(*p as usize % 14);
        let sq = Square::new(*s % 90).expect("below 90");
        board.put(sq, piece);
        rest = tail;
    }
    let setup = Setup {
        board,
        turn,
        halfmoves,
        fullmoves,
    };
    if let Err(e) = check_validation(&setup) {
        panic!("{e}");
    }
    let Ok(mut pos) = Position::from_setup(setup) else {
        return;
    };

    let mut played = Vec::new();
    loop {
        let moves = pos.legal_moves();
        let last = rest.is_empty() || moves.is_empty() || played.len() >= MAX_PLIES;
        // The full set of checks on the first and last positions, the lighter set between.
        if let Err(e) = check_position_at(&pos, played.is_empty() || last) {
            panic!("after {played:?}: {e}");
        }
        if last {
            break;
        }
        let Some((&choice, tail)) = rest.split_first() else {
            break;
        };
        rest = tail;
        let m = moves[choice as usize % moves.len()];
        if let Err(e) = pos.play(m) {
            panic!("after {played:?}: legal move {m} refused: {e}");
        }
        played.push(m);
    }
});
