//! Moves in UCI / ICCS coordinates: `h2e2`, and ICCS's `H2-E2`.

use core::fmt;
use core::str::FromStr;

use crate::position::Position;
use crate::square::Square;
use crate::types::Move;

/// A move in coordinate form, independent of any position.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct UciMove {
    pub from: Square,
    pub to: Square,
}

/// The string is not a coordinate move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseUciMoveError(pub String);

impl fmt::Display for ParseUciMoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "'{}' is not a move in coordinate form (like h2e2 or H2-E2)",
            self.0
        )
    }
}
impl std::error::Error for ParseUciMoveError {}

/// A well-formed move that is not legal in the position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IllegalMoveError {
    pub mv: UciMove,
    pub reason: &'static str,
}

impl fmt::Display for IllegalMoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "illegal move {}: {}", self.mv, self.reason)
    }
}
impl std::error::Error for IllegalMoveError {}

impl FromStr for UciMove {
    type Err = ParseUciMoveError;
    fn from_str(s: &str) -> Result<UciMove, ParseUciMoveError> {
        let bad = || ParseUciMoveError(s.to_owned());
        let t = s.trim();
        let (a, b) = match t.len() {
            4 => (t.get(0..2).ok_or_else(bad)?, t.get(2..4).ok_or_else(bad)?),
            5 if t.as_bytes()[2] == b'-' => {
                (t.get(0..2).ok_or_else(bad)?, t.get(3..5).ok_or_else(bad)?)
            }
            _ => return Err(bad()),
        };
        Ok(UciMove {
            from: a.parse().map_err(|_| bad())?,
            to: b.parse().map_err(|_| bad())?,
        })
    }
}

impl fmt::Display for UciMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.from, self.to)
    }
}

impl UciMove {
    pub fn from_move(m: Move) -> UciMove {
        UciMove {
            from: m.from(),
            to: m.to(),
        }
    }
    /// ICCS form, `H2-E2`.
    pub fn to_iccs(&self) -> String {
        format!(
            "{}{}-{}{}",
            self.from.file().char().to_ascii_uppercase(),
            self.from.rank(),
            self.to.file().char().to_ascii_uppercase(),
            self.to.rank()
        )
    }
    /// The move in `pos`, if legal, or why not.
    pub fn to_move(&self, pos: &Position) -> Result<Move, IllegalMoveError> {
        let m = Move::new(self.from, self.to);
        let reason = match pos.piece_at(self.from) {
            None => "no piece on the from-square",
            Some(p) if p.color != pos.turn() => {
                "the piece on the from-square is not the side to move's"
            }
            Some(_) if !pos.pseudo_targets(self.from).contains(self.to) => {
                "the piece cannot move there"
            }
            Some(_) if !pos.is_legal(m) => {
                "it would leave the general attacked or facing the other general"
            }
            Some(_) => return Ok(m),
        };
        Err(IllegalMoveError { mv: *self, reason })
    }
}

/// Either error from reading a coordinate move against a position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UciError {
    Parse(ParseUciMoveError),
    Illegal(IllegalMoveError),
}

impl fmt::Display for UciError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UciError::Parse(e) => e.fmt(f),
            UciError::Illegal(e) => e.fmt(f),
        }
    }
}
impl std::error::Error for UciError {}

impl Position {
    /// Reads a coordinate move (`h2e2` or `H2-E2`) and checks that it is legal here.
    pub fn parse_uci(&self, s: &str) -> Result<Move, UciError> {
        let u: UciMove = s.parse().map_err(UciError::Parse)?;
        u.to_move(self).map_err(UciError::Illegal)
    }
    /// Plays a move after checking that it is legal.
    pub fn play(&mut self, m: Move) -> Result<(), IllegalMoveError> {
        let u = UciMove::from_move(m);
        u.to_move(self)?;
        self.play_unchecked(m);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_forms() {
        let a: UciMove = "h2e2".parse().unwrap();
        let b: UciMove = "H2-E2".parse().unwrap();
        assert_eq!(a, b);
        assert_eq!(a.to_iccs(), "H2-E2");
        assert!("h2e".parse::<UciMove>().is_err());
        assert!("h2-e2x".parse::<UciMove>().is_err());
        assert!("j2e2".parse::<UciMove>().is_err());
        assert!("中2e2".parse::<UciMove>().is_err());
    }

    #[test]
    fn malformed_differs_from_illegal() {
        let pos = Position::new();
        assert!(matches!(pos.parse_uci("zz"), Err(UciError::Parse(_))));
        assert!(matches!(pos.parse_uci("h2h8"), Err(UciError::Illegal(_))));
        assert!(matches!(pos.parse_uci("e5e4"), Err(UciError::Illegal(_))));
        assert_eq!(pos.parse_uci("h2e2").unwrap().to_string(), "h2e2");
        let e = pos.parse_uci("a9a8").unwrap_err().to_string();
        assert!(e.contains("not the side to move"), "{e}");
    }
}
