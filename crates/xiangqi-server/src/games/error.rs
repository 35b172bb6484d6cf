//! Why a game operation was refused or failed.

use std::fmt;

use super::Ending;
use crate::engine::EngineError;
use crate::store::StoreError;

/// Why a game operation was refused or failed.
#[derive(Debug)]
pub enum GameError {
    /// No game has this id.
    NotFound(i64),
    /// The game is over; nothing more can be played or declared.
    Over(Box<Ending>),
    /// The client believes the game has `claimed` moves; it has `have`.
    StalePly {
        have: usize,
        claimed: i64,
    },
    /// A human move in computer mode while the computer is to move.
    ComputersTurn,
    EmptyMove,
    MoveTooLong(String),
    /// A move that does not read as a legal move in the position.
    IllegalMove {
        text: String,
        fen: String,
        error: String,
    },
    /// The error of the move at `index` of a list of moves.
    AtIndex {
        index: usize,
        error: Box<GameError>,
    },
    /// `at` (branching) in a game that is not an analysis game.
    BranchOutsideAnalysis,
    /// `at` beyond the end of the main line.
    BranchTooFar {
        len: usize,
        at: usize,
    },
    /// `promote` of a line the game does not have.
    NoSuchLine,
    /// A note for a move the game does not have (`plies`: the length of the path given).
    NoSuchMove {
        plies: usize,
    },
    /// A comment longer than `notes::MAX_COMMENT` characters.
    CommentTooLong(usize),
    TakebackTooMany {
        n: usize,
        len: usize,
    },
    /// The engine found no move (the side to move has none).
    NoLegalMove,
    BadFen {
        fen: String,
        error: String,
    },
    /// An uploaded record cannot be read at all.
    BadRecord(String),
    TooManyGames(usize),
    /// No game of an upload could be imported; why, per game.
    NothingImported(Vec<ImportFailure>),
    Store(StoreError),
    Engine(EngineError),
    /// A task of the server died (a bug; nothing was changed by it).
    Task(String),
}

/// A game of an upload that could not be imported: its number (from 1) and why.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, utoipa::ToSchema)]
pub struct ImportFailure {
    pub game: usize,
    pub error: String,
}

impl fmt::Display for GameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GameError::NotFound(id) => write!(f, "no game with id {id}"),
            GameError::Over(e) => write!(f, "the game is over ({} {})", e.result.as_str(), e.reason),
            GameError::StalePly { have, claimed } => {
                write!(f, "the game has {have} moves, not {claimed}: reload it")
            }
            GameError::ComputersTurn => {
                f.write_str("it is the computer's turn: ask for its move at /computer-move")
            }
            GameError::EmptyMove => f.write_str("the move is empty"),
            GameError::MoveTooLong(t) => {
                // Never the whole text back (it may be thousands of characters).
                let n = t.chars().count();
                let head: String = t.chars().take(16).collect();
                write!(f, "'{head}…' ({n} characters) is too long to be a move")
            }
            GameError::IllegalMove { error, .. } => f.write_str(error),
            GameError::AtIndex { error, .. } => error.fmt(f),
            GameError::BranchOutsideAnalysis => f.write_str(
                "field 'at' (playing from an earlier move, keeping the old line) is for analysis games",
            ),
            GameError::BranchTooFar { len, at } => write!(
                f,
                "field 'at' must be at most the number of moves ({len}), got {at}"
            ),
            GameError::NoSuchLine => f.write_str("the game has no such alternative line: reload it"),
            GameError::NoSuchMove { plies } => write!(
                f,
                "the game has no such move (the path of {plies} moves is not in its main line or lines): reload it"
            ),
            GameError::CommentTooLong(n) => write!(
                f,
                "the comment has {n} characters; at most {} are kept",
                super::notes::MAX_COMMENT
            ),
            GameError::TakebackTooMany { n, len } => {
                write!(f, "cannot take back {n} moves: the game has {len}")
            }
            GameError::NoLegalMove => f.write_str("the side to move has no legal move"),
            GameError::BadFen { fen, error } => write!(f, "bad FEN '{fen}': {error}"),
            GameError::BadRecord(e) => f.write_str(e),
            GameError::TooManyGames(n) => {
                write!(f, "the file holds {n} games; import at most 500 at once")
            }
            GameError::NothingImported(_) => f.write_str("no game could be imported"),
            GameError::Store(e) => e.fmt(f),
            GameError::Engine(e) => e.fmt(f),
            GameError::Task(e) => write!(f, "the request failed: {e}"),
        }
    }
}

impl std::error::Error for GameError {}

impl From<StoreError> for GameError {
    fn from(e: StoreError) -> GameError {
        GameError::Store(e)
    }
}

impl From<EngineError> for GameError {
    fn from(e: EngineError) -> GameError {
        GameError::Engine(e)
    }
}
