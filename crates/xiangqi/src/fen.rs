//! FEN: read and write positions.
//!
//! `rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1`: ranks 9 down
//! to 0, files a to i, upper case Red, letters K A B N R C P (E and H read for B and N);
//! side `w` (or `r`) or `b`; then `- -`, the plies since the last capture and the move number.
//! Reading is lenient about what is missing at the end (the side defaults to Red, the counters
//! to `0 1`), strict about everything present.

use core::fmt;
use core::str::FromStr;

use crate::board::Board;
use crate::position::{Position, PositionError, Setup};
use crate::square::{File, Rank, Square};
use crate::types::{Color, Piece};

/// The start position.
pub const START_FEN: &str = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1";

/// A parsed FEN: an unchecked setup.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fen(pub Setup);

/// Why a FEN was rejected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FenError {
    /// Nothing to read.
    Empty,
    /// The placement has the wrong number of ranks.
    RankCount { found: usize },
    /// A rank is too long or too short.
    RankWidth { rank: Rank, files: usize },
    /// A character that is neither a piece letter nor a digit 1-9.
    UnknownLetter { letter: char, rank: Rank },
    /// The side-to-move field is not `w`, `r` or `b`.
    BadTurn(String),
    /// The third or fourth field is not `-`.
    BadPlaceholder { field: usize, value: String },
    /// The no-capture ply count is not a number.
    BadHalfmoves(String),
    /// The move number is not a number.
    BadFullmoves(String),
    /// More than six fields.
    TooManyFields(usize),
    /// Well-formed, but not a legal position.
    Position(PositionError),
}

impl fmt::Display for FenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FenError::Empty => f.write_str("empty FEN"),
            FenError::RankCount { found } => {
                write!(f, "FEN has {found} ranks (expected 10)")
            }
            FenError::RankWidth { rank, files } => write!(f, "rank {rank} has {files} files"),
            FenError::UnknownLetter { letter, rank } => {
                write!(f, "unknown letter '{letter}' in rank {rank}")
            }
            FenError::BadTurn(s) => write!(f, "side to move '{s}' is not w, r or b"),
            FenError::BadPlaceholder { field, value } => {
                write!(f, "field {field} is '{value}' (expected '-')")
            }
            FenError::BadHalfmoves(s) => write!(f, "no-capture ply count '{s}' is not a number"),
            FenError::BadFullmoves(s) => write!(f, "move number '{s}' is not a number"),
            FenError::TooManyFields(n) => write!(f, "FEN has {n} fields (at most 6)"),
            FenError::Position(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for FenError {}

impl From<PositionError> for FenError {
    fn from(e: PositionError) -> FenError {
        FenError::Position(e)
    }
}

/// Reads the placement field.
pub fn parse_board(placement: &str) -> Result<Board, FenError> {
    let rows: Vec<&str> = placement.split('/').collect();
    if rows.len() != 10 {
        return Err(FenError::RankCount { found: rows.len() });
    }
    let mut board = Board::empty();
    for (i, row) in rows.iter().enumerate() {
        let rank = Rank::new(9 - i as u8).expect("10 ranks");
        let mut file = 0usize;
        for c in row.chars() {
            if let Some(d) = c.to_digit(10).filter(|d| (1..=9).contains(d)) {
                file += d as usize;
            } else if let Some(piece) = Piece::from_char(c) {
                if file < 9 {
                    let sq = Square::from_coords(File::new(file as u8).expect("< 9"), rank);
                    board.put(sq, piece);
                }
                file += 1;
            } else {
                return Err(FenError::UnknownLetter { letter: c, rank });
            }
        }
        if file != 9 {
            return Err(FenError::RankWidth { rank, files: file });
        }
    }
    Ok(board)
}

impl FromStr for Fen {
    type Err = FenError;
    fn from_str(s: &str) -> Result<Fen, FenError> {
        let fields: Vec<&str> = s.split_whitespace().collect();
        let Some(&placement) = fields.first() else {
            return Err(FenError::Empty);
        };
        if fields.len() > 6 {
            return Err(FenError::TooManyFields(fields.len()));
        }
        let board = parse_board(placement)?;
        let turn = match fields.get(1).copied() {
            None | Some("w") | Some("r") | Some("W") | Some("R") => Color::Red,
            Some("b") | Some("B") => Color::Black,
            Some(other) => return Err(FenError::BadTurn(other.to_owned())),
        };
        for field in [2, 3] {
            if let Some(&v) = fields.get(field) {
                if v != "-" {
                    return Err(FenError::BadPlaceholder {
                        field: field + 1,
                        value: v.to_owned(),
                    });
                }
            }
        }
        let halfmoves = match fields.get(4) {
            None => 0,
            Some(v) => v
                .parse::<u32>()
                .map_err(|_| FenError::BadHalfmoves((*v).to_owned()))?,
        };
        let fullmoves = match fields.get(5) {
            None => 1,
            Some(v) => v
                .parse::<u32>()
                .map_err(|_| FenError::BadFullmoves((*v).to_owned()))?
                .max(1),
        };
        Ok(Fen(Setup {
            board,
            turn,
            halfmoves,
            fullmoves,
        }))
    }
}

impl Fen {
    pub fn from_position(pos: &Position) -> Fen {
        Fen(pos.to_setup())
    }
    /// Validates the setup.
    pub fn into_position(self) -> Result<Position, PositionError> {
        Position::from_setup(self.0)
    }
}

/// Writes the placement field.
pub fn board_fen(board: &Board) -> String {
    let mut s = String::with_capacity(90);
    for r in (0..10u8).rev() {
        let mut empty = 0;
        for f in 0..9u8 {
            match board.piece_at(Square::new(r * 9 + f).expect("on board")) {
                None => empty += 1,
                Some(p) => {
                    if empty > 0 {
                        s.push((b'0' + empty) as char);
                        empty = 0;
                    }
                    s.push(p.char());
                }
            }
        }
        if empty > 0 {
            s.push((b'0' + empty) as char);
        }
        if r > 0 {
            s.push('/');
        }
    }
    s
}

impl fmt::Display for Fen {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let side = match self.0.turn {
            Color::Red => 'w',
            Color::Black => 'b',
        };
        write!(
            f,
            "{} {} - - {} {}",
            board_fen(&self.0.board),
            side,
            self.0.halfmoves,
            self.0.fullmoves
        )
    }
}

impl Position {
    /// Reads and validates a FEN.
    pub fn from_fen(fen: &str) -> Result<Position, FenError> {
        Ok(fen.parse::<Fen>()?.into_position()?)
    }
    /// The position's FEN.
    pub fn fen(&self) -> String {
        Fen::from_position(self).to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(fen: &str) -> String {
        Position::from_fen(fen).unwrap_err().to_string()
    }

    #[test]
    fn start_round_trip() {
        let pos = Position::from_fen(START_FEN).unwrap();
        assert_eq!(pos.fen(), START_FEN);
        assert_eq!(pos, Position::new());
    }

    #[test]
    fn lenient_fields() {
        let p = Position::from_fen("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR")
            .unwrap();
        assert_eq!(p.fen(), START_FEN);
        let p = Position::from_fen("rheakaehr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RHEAKAEHR r")
            .unwrap();
        assert_eq!(p.fen(), START_FEN);
        let p = Position::from_fen(
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b - - 7 12",
        )
        .unwrap();
        assert_eq!(p.turn(), Color::Black);
        assert_eq!(p.halfmoves(), 7);
        assert_eq!(p.fullmoves(), 12);
    }

    #[test]
    fn each_rejection_names_the_problem() {
        assert_eq!(err(""), "empty FEN");
        assert_eq!(
            err("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/RNBAKABNR"),
            "FEN has 9 ranks (expected 10)"
        );
        assert_eq!(
            err("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C2/9/RNBAKABNR"),
            "rank 2 has 10 files"
        );
        assert_eq!(
            err("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C/9/RNBAKABNR"),
            "rank 2 has 8 files"
        );
        assert_eq!(
            err("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5X1/9/RNBAKABNR"),
            "unknown letter 'X' in rank 2"
        );
        assert_eq!(
            err("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR x"),
            "side to move 'x' is not w, r or b"
        );
        assert_eq!(
            err("4k4/9/9/9/9/9/9/9/4K4/3K5 w"),
            "two red generals (at most 1)"
        );
        assert_eq!(err("4k4/9/9/9/9/9/9/9/9/3A1A3 w"), "red has no general");
        assert_eq!(
            err("3k5/9/9/9/9/9/9/9/9/3K2A2 w"),
            "red advisor on g0 can never stand there"
        );
        assert_eq!(
            err("3k5/9/9/9/4b4/9/9/9/9/4K4 w"),
            "black elephant on e5 can never stand there"
        );
        assert_eq!(
            err("3k5/9/9/1p7/9/9/9/9/9/4K4 w"),
            "black soldier on b6 can never stand there"
        );
        assert_eq!(
            err("3k5/9/9/9/9/9/1P7/9/9/4K4 w"),
            "red soldier on b3 can never stand there"
        );
        assert_eq!(
            err("3k5/9/9/9/9/9/9/9/9/4K2P1 w"),
            "red soldier on h0 can never stand there"
        );
        assert_eq!(
            err("3k5/9/9/9/9/9/9/9/9/2K6 w"),
            "red general on c0 is outside its palace"
        );
        assert_eq!(
            err("4k4/9/9/9/9/9/9/9/9/4K4 w"),
            "the generals face each other on an open file (e0 and e9)"
        );
        assert_eq!(
            err("3k5/9/9/9/9/9/9/9/9/3RK4 w"),
            "the side not to move is in check (black general attacked from d0)"
        );
        assert_eq!(
            err("3k5/9/9/9/9/9/9/9/9/4K4 w - - x 1"),
            "no-capture ply count 'x' is not a number"
        );
        assert_eq!(
            err("3k5/9/9/9/9/9/9/9/9/4K4 w k - 0 1"),
            "field 3 is 'k' (expected '-')"
        );
    }
}
