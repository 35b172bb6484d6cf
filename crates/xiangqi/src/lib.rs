//! Xiangqi (Chinese chess) rules: squares, pieces, positions, legal moves, FEN and
//! coordinate notation.
//!
//! ```
//! use xiangqi::{Position, perft};
//! let pos = Position::new();
//! assert_eq!(pos.legal_moves().len(), 44);
//! assert_eq!(perft(&pos, 2), 1920);
//! let mut pos = pos;
//! let m = pos.parse_uci("h2e2").unwrap();
//! pos.play(m).unwrap();
//! assert_eq!(pos.fen(), "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1");
//! ```

#![forbid(unsafe_code)]

pub mod adjudicate;
pub mod attacks;
pub mod bitboard;
pub mod board;
pub mod fen;
pub mod game;
pub mod movegen;
pub mod notation;
pub mod position;
pub mod prose;
pub mod square;
pub mod types;
pub mod uci;
pub mod zobrist;

pub use bitboard::Bitboard;
pub use board::Board;
pub use fen::{Fen, FenError, START_FEN};
pub use game::{Game, Outcome, Reason, ReplayError, Rules};
pub use movegen::{perft, perft_no_bulk, MoveList};
pub use position::{Position, PositionError, Setup};
pub use square::{File, Rank, Square};
pub use types::{Color, Move, Piece, Role};
pub use uci::{IllegalMoveError, ParseUciMoveError, UciError, UciMove};
