//! Positions: an unchecked [`Setup`] and a validated [`Position`] that moves can be played in.

use core::fmt;

use crate::attacks;
use crate::bitboard::Bitboard;
use crate::board::Board;
use crate::square::Square;
use crate::types::{Color, Move, Piece, Role};
use crate::zobrist;

/// A position as read from a FEN or built by hand: not yet checked against the rules.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Setup {
    pub board: Board,
    pub turn: Color,
    /// Plies since the last capture (the FEN's fifth field).
    pub halfmoves: u32,
    /// The move number, starting at 1 and incremented after Black's move.
    pub fullmoves: u32,
}

impl Default for Setup {
    fn default() -> Setup {
        Setup::start()
    }
}

impl Setup {
    pub fn start() -> Setup {
        Setup {
            board: Board::start(),
            turn: Color::Red,
            halfmoves: 0,
            fullmoves: 1,
        }
    }
    pub fn empty() -> Setup {
        Setup {
            board: Board::empty(),
            turn: Color::Red,
            halfmoves: 0,
            fullmoves: 1,
        }
    }
}

/// Why a [`Setup`] is not a legal position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PositionError {
    /// More pieces of one kind than a side starts with (1/2/2/2/2/2/5).
    TooMany { piece: Piece, count: u32 },
    /// A side has no general.
    MissingGeneral(Color),
    /// A general outside its palace.
    GeneralOutsidePalace { color: Color, square: Square },
    /// An advisor, elephant or soldier on a point it can never reach.
    Unreachable { piece: Piece, square: Square },
    /// The two generals on one file with nothing between them.
    GeneralsFacing { red: Square, black: Square },
    /// The side that has just moved has its general attacked.
    OppositeCheck { color: Color, by: Square },
}

impl fmt::Display for PositionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PositionError::TooMany { piece, count } => {
                let word = match count {
                    2 => "two".to_string(),
                    3 => "three".to_string(),
                    n => n.to_string(),
                };
                write!(
                    f,
                    "{word} {} {}s (at most {})",
                    piece.color,
                    piece.role,
                    piece.role.max_count()
                )
            }
            PositionError::MissingGeneral(c) => write!(f, "{c} has no general"),
            PositionError::GeneralOutsidePalace { color, square } => {
                write!(f, "{color} general on {square} is outside its palace")
            }
            PositionError::Unreachable { piece, square } => {
                write!(f, "{piece} on {square} can never stand there")
            }
            PositionError::GeneralsFacing { red, black } => write!(
                f,
                "the generals face each other on an open file ({red} and {black})"
            ),
            PositionError::OppositeCheck { color, by } => write!(
                f,
                "the side not to move is in check ({color} general attacked from {by})"
            ),
        }
    }
}

impl std::error::Error for PositionError {}

/// Whether `piece` can ever stand on `sq` under the rules of movement.
pub fn can_stand_on(piece: Piece, sq: Square) -> bool {
    let rel = sq.rank().relative_to(piece.color);
    let f = sq.file().index();
    match piece.role {
        Role::General => sq.in_palace() && rel <= 2,
        Role::Advisor => sq.in_palace() && rel <= 2 && (f + rel) % 2 == 1,
        Role::Elephant => rel <= 4 && rel.is_multiple_of(2) && (f + rel) % 4 == 2,
        Role::Horse | Role::Chariot | Role::Cannon => true,
        Role::Soldier => rel >= 5 || (rel >= 3 && f.is_multiple_of(2)),
    }
}

/// A legal position: placement, side to move and counters, with its Zobrist key.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Position {
    board: Board,
    turn: Color,
    halfmoves: u32,
    fullmoves: u32,
    key: u64,
}

impl Default for Position {
    fn default() -> Position {
        Position::new()
    }
}

impl Position {
    /// The start position.
    pub fn new() -> Position {
        Position::from_setup(Setup::start()).expect("start position is legal")
    }

    /// Checks a setup against the rules of RULES.md §7 and makes it a position.
    pub fn from_setup(setup: Setup) -> Result<Position, PositionError> {
        let b = &setup.board;
        for color in Color::ALL {
            for role in Role::ALL {
                let piece = Piece::new(color, role);
                let count = b.count(piece);
                if count > role.max_count() {
                    return Err(PositionError::TooMany { piece, count });
                }
            }
        }
        for color in Color::ALL {
            if b.general(color).is_none() {
                return Err(PositionError::MissingGeneral(color));
            }
        }
        for (sq, piece) in b.pieces() {
            if !can_stand_on(piece, sq) {
                return Err(if piece.role == Role::General {
                    PositionError::GeneralOutsidePalace {
                        color: piece.color,
                        square: sq,
                    }
                } else {
                    PositionError::Unreachable { piece, square: sq }
                });
            }
        }
        let red = b.general(Color::Red).expect("checked");
        let black = b.general(Color::Black).expect("checked");
        if red.file() == black.file() && (attacks::between(red, black) & b.occupied()).is_empty() {
            return Err(PositionError::GeneralsFacing { red, black });
        }
        let waiting = !setup.turn;
        let k = b.general(waiting).expect("checked");
        if let Some(by) = b.general_attackers(k, setup.turn, b.occupied()).first() {
            return Err(PositionError::OppositeCheck { color: waiting, by });
        }
        Ok(Position::from_setup_unchecked(setup))
    }

    /// Makes a position without validation. Move generation on a setup that
    /// [`Position::from_setup`] would reject gives unspecified (but memory-safe) results.
    pub fn from_setup_unchecked(setup: Setup) -> Position {
        let mut key = zobrist::turn_key(setup.turn);
        for (sq, p) in setup.board.pieces() {
            key ^= zobrist::piece_key(p, sq);
        }
        Position {
            board: setup.board,
            turn: setup.turn,
            halfmoves: setup.halfmoves,
            fullmoves: setup.fullmoves.max(1),
            key,
        }
    }

    /// The position as a setup.
    pub fn to_setup(&self) -> Setup {
        Setup {
            board: self.board.clone(),
            turn: self.turn,
            halfmoves: self.halfmoves,
            fullmoves: self.fullmoves,
        }
    }

    #[inline(always)]
    pub fn board(&self) -> &Board {
        &self.board
    }
    #[inline(always)]
    pub fn turn(&self) -> Color {
        self.turn
    }
    /// Plies since the last capture.
    pub fn halfmoves(&self) -> u32 {
        self.halfmoves
    }
    pub fn fullmoves(&self) -> u32 {
        self.fullmoves
    }
    /// The Zobrist key of placement and side to move.
    #[inline(always)]
    pub fn key(&self) -> u64 {
        self.key
    }
    /// The key computed from scratch (for tests of the incremental key).
    pub fn compute_key(&self) -> u64 {
        let mut key = zobrist::turn_key(self.turn);
        for (sq, p) in self.board.pieces() {
            key ^= zobrist::piece_key(p, sq);
        }
        key
    }
    #[inline(always)]
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        self.board.piece_at(sq)
    }
    /// The square of `color`'s general.
    #[inline(always)]
    pub fn general(&self, color: Color) -> Square {
        self.board
            .general(color)
            .expect("a position always has both generals")
    }

    /// The enemy pieces attacking the side to move's general.
    #[inline]
    pub fn checkers(&self) -> Bitboard {
        let k = self.general(self.turn);
        self.board
            .general_attackers(k, !self.turn, self.board.occupied())
    }
    /// Whether the side to move is in check.
    #[inline]
    pub fn is_check(&self) -> bool {
        self.checkers().any()
    }

    /// Whether the move is a capture (the target holds a piece).
    pub fn is_capture(&self, m: Move) -> bool {
        self.board.piece_at(m.to()).is_some()
    }

    /// Plays a move that must be legal; returns the captured piece. Playing an illegal move
    /// leaves the position in an unspecified (but memory-safe) state.
    #[inline]
    pub fn play_unchecked(&mut self, m: Move) -> Option<Piece> {
        let from = m.from();
        let to = m.to();
        let piece = self
            .board
            .remove(from)
            .expect("play_unchecked: no piece on the from-square");
        let captured = self.board.remove(to);
        if let Some(c) = captured {
            self.key ^= zobrist::piece_key(c, to);
            self.halfmoves = 0;
        } else {
            // Saturating: a FEN may carry any u32 count (found by the movegen fuzz target).
            self.halfmoves = self.halfmoves.saturating_add(1);
        }
        self.board.put_unchecked(to, piece);
        self.key ^= zobrist::piece_key(piece, from)
            ^ zobrist::piece_key(piece, to)
            ^ zobrist::BLACK_TO_MOVE;
        if self.turn == Color::Black {
            self.fullmoves = self.fullmoves.saturating_add(1);
        }
        self.turn = !self.turn;
        captured
    }

    /// Passes the turn without moving (for null-move search; not a legal move in the game).
    pub fn play_null(&mut self) {
        self.turn = !self.turn;
        self.key ^= zobrist::BLACK_TO_MOVE;
    }

    /// The position mirrored left-right.
    pub fn flip_horizontal(&self) -> Position {
        let mut s = self.to_setup();
        s.board = s.board.flip_horizontal();
        Position::from_setup_unchecked(s)
    }
    /// The position with colours swapped and the board turned over: the same game seen by the
    /// other side.
    pub fn swap_colors(&self) -> Position {
        let mut s = self.to_setup();
        s.board = s.board.swap_colors();
        s.turn = !s.turn;
        Position::from_setup_unchecked(s)
    }
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Position({})", crate::fen::Fen::from_position(self))
    }
}
