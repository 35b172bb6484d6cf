//! The record model every reader produces and every writer consumes.
//!
//! A game is a start position and a main line of moves; each move may carry a comment,
//! NAGs, and alternative lines (variations) that replace it, as in PGN.

use xiangqi::{Move, Position};

/// How a recorded game ended, as far as the record says.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum GameResult {
    RedWins,
    BlackWins,
    Draw,
    /// Unknown or still going (`*`).
    Unknown,
}

impl GameResult {
    /// The PGN result token: `1-0`, `0-1`, `1/2-1/2` or `*`.
    pub fn as_pgn(self) -> &'static str {
        match self {
            GameResult::RedWins => "1-0",
            GameResult::BlackWins => "0-1",
            GameResult::Draw => "1/2-1/2",
            GameResult::Unknown => "*",
        }
    }
}

/// One move of a line, with what is attached to it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveNode {
    pub mv: Move,
    /// Comment written after the move.
    pub comment: Option<String>,
    /// Numeric annotation glyphs (`$1` ...).
    pub nags: Vec<u8>,
    /// Alternatives to this move: each is a line starting from the position before it.
    pub variations: Vec<Vec<MoveNode>>,
}

impl MoveNode {
    pub fn new(mv: Move) -> MoveNode {
        MoveNode {
            mv,
            comment: None,
            nags: Vec::new(),
            variations: Vec::new(),
        }
    }
}

/// A game record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRecord {
    /// Tags in file order (`Event`, `Red`, ...). The start position is kept in `start`, not
    /// as a `FEN` tag; writers add the tag when the start is not the standard one.
    pub tags: Vec<(String, String)>,
    /// The position before the first move.
    pub start: Position,
    /// A comment before the first move.
    pub comment: Option<String>,
    /// The main line.
    pub moves: Vec<MoveNode>,
    pub result: GameResult,
}

impl Default for GameRecord {
    fn default() -> GameRecord {
        GameRecord {
            tags: Vec::new(),
            start: Position::new(),
            comment: None,
            moves: Vec::new(),
            result: GameResult::Unknown,
        }
    }
}

impl GameRecord {
    /// The value of a tag, by case-sensitive name.
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
    /// Sets a tag, replacing an existing one of that name.
    pub fn set_tag(&mut self, name: &str, value: impl Into<String>) {
        let value = value.into();
        match self.tags.iter_mut().find(|(k, _)| k == name) {
            Some(slot) => slot.1 = value,
            None => self.tags.push((name.to_owned(), value)),
        }
    }
    /// The main line's moves.
    pub fn mainline(&self) -> impl Iterator<Item = Move> + '_ {
        self.moves.iter().map(|n| n.mv)
    }
    /// The position after the main line.
    pub fn end_position(&self) -> Position {
        let mut pos = self.start.clone();
        for m in self.mainline() {
            pos.play_unchecked(m);
        }
        pos
    }
}
