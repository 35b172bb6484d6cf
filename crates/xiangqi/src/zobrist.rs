//! Zobrist keys: one random 64-bit number per (piece, square) and one for Black to move,
//! generated at compile time from a fixed seed so keys are the same in every build.

use crate::square::Square;
use crate::types::{Color, Piece};

const fn splitmix(state: u64) -> (u64, u64) {
    let s = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = s;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    (s, z ^ (z >> 31))
}

const fn build() -> ([[u64; 90]; 14], u64) {
    let mut keys = [[0u64; 90]; 14];
    let mut state = 0x5851_f42d_4c95_7f2d_u64;
    let mut p = 0;
    while p < 14 {
        let mut sq = 0;
        while sq < 90 {
            let (s, v) = splitmix(state);
            state = s;
            keys[p][sq] = v;
            sq += 1;
        }
        p += 1;
    }
    let (_, side) = splitmix(state);
    (keys, side)
}

const TABLES: ([[u64; 90]; 14], u64) = build();
static PIECE_SQUARE: [[u64; 90]; 14] = TABLES.0;

/// The key of Black to move (XORed in when Black is to move).
pub const BLACK_TO_MOVE: u64 = TABLES.1;

/// The key of `piece` standing on `sq`.
#[inline(always)]
pub fn piece_key(piece: Piece, sq: Square) -> u64 {
    PIECE_SQUARE[piece.index()][sq.index()]
}

/// The key of the side to move.
#[inline(always)]
pub fn turn_key(turn: Color) -> u64 {
    match turn {
        Color::Red => 0,
        Color::Black => BLACK_TO_MOVE,
    }
}
