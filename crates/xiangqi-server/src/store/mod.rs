//! The game store: what is kept of a game (its row, moves and alternative lines) and the
//! writes that change it. SQLite is the one backend today (`sqlite`); the types here are
//! what the rest of the server sees, so another backend can come beside it.

pub mod accounts;
pub mod live;
mod sqlite;

use std::fmt;
use std::path::PathBuf;

use xiangqi::Color;

pub use sqlite::Store;

/// How a game is played.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Mode {
    /// A human against the engine.
    Computer,
    /// Two humans at one board.
    #[default]
    TwoPlayer,
    /// An analysis board (moves may branch off into alternative lines).
    Analysis,
}

impl Mode {
    pub const ALL: [Mode; 3] = [Mode::Computer, Mode::TwoPlayer, Mode::Analysis];

    pub const fn as_str(self) -> &'static str {
        match self {
            Mode::Computer => "computer",
            Mode::TwoPlayer => "two-player",
            Mode::Analysis => "analysis",
        }
    }

    pub fn parse(s: &str) -> Option<Mode> {
        Mode::ALL.into_iter().find(|m| m.as_str() == s)
    }
}

/// An end the players declared (not reached by the rules).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Declared {
    Resign(Color),
    Draw,
}

impl Declared {
    pub const fn as_str(self) -> &'static str {
        match self {
            Declared::Resign(Color::Red) => "resign-red",
            Declared::Resign(Color::Black) => "resign-black",
            Declared::Draw => "draw",
        }
    }

    pub fn parse(s: &str) -> Option<Declared> {
        match s {
            "resign-red" => Some(Declared::Resign(Color::Red)),
            "resign-black" => Some(Declared::Resign(Color::Black)),
            "draw" => Some(Declared::Draw),
            _ => None,
        }
    }
}

/// A finished game's result, as the game list shows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    RedWins,
    BlackWins,
    Draw,
}

impl Verdict {
    pub const fn as_str(self) -> &'static str {
        match self {
            Verdict::RedWins => "red-wins",
            Verdict::BlackWins => "black-wins",
            Verdict::Draw => "draw",
        }
    }

    pub fn parse(s: &str) -> Option<Verdict> {
        [Verdict::RedWins, Verdict::BlackWins, Verdict::Draw]
            .into_iter()
            .find(|v| v.as_str() == s)
    }

    pub const fn of_winner(w: Option<Color>) -> Verdict {
        match w {
            Some(Color::Red) => Verdict::RedWins,
            Some(Color::Black) => Verdict::BlackWins,
            None => Verdict::Draw,
        }
    }
}

impl serde::Serialize for Mode {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl serde::Serialize for Verdict {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// A game's stored row (without its moves).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GameRow {
    pub id: i64,
    pub created: i64,
    pub updated: i64,
    pub mode: Mode,
    /// The human's side in computer mode.
    pub human: Option<Color>,
    pub level: i64,
    pub start_fen: String,
    /// Tags kept from an import (JSON object of strings), `{}` otherwise.
    pub tags: String,
    /// A declared end.
    pub declared: Option<Declared>,
    /// The number of moves played when the end was declared.
    pub declared_ply: i64,
    /// Derived, for the game list.
    pub result: Option<Verdict>,
    /// Derived: why the game ended (`Reason::as_str`), empty while it goes on.
    pub reason: String,
    pub plies: i64,
}

/// The derived columns of a game: its result and the reason, both empty while it goes on.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Derived {
    pub result: Option<Verdict>,
    pub reason: String,
}

/// What a record says at one move of a game's move tree: a comment and NAGs (`$1`, ...).
/// The move is named by its path (`Write::SetNote`, `StoredGame`): the moves from the start
/// position to it, in coordinates separated by spaces, `""` for the start itself (a comment
/// before the first move). A path names the same move whichever line is the main line, so a
/// note survives promoting a line; one whose moves are no longer in the game is kept (and
/// shown again if the moves are played again) but not exported or shown.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Note {
    pub text: String,
    pub nags: Vec<u8>,
}

impl Note {
    pub fn is_empty(&self) -> bool {
        self.text.is_empty() && self.nags.is_empty()
    }
}

/// One write.
#[derive(Debug)]
pub enum Write {
    /// Inserts a game with its moves, alternative lines and notes (path, note); answers the
    /// new id.
    Create {
        row: GameRow,
        moves: Vec<String>,
        lines: Vec<String>,
        notes: Vec<(String, Note)>,
    },
    /// Sets the note at `path` (an empty note deletes it).
    SetNote {
        id: i64,
        path: String,
        note: Note,
        updated: i64,
    },
    /// Appends a move at `ply` (0-based) and updates the derived columns.
    AddMove {
        id: i64,
        ply: i64,
        uci: String,
        updated: i64,
        derived: Derived,
    },
    /// Deletes moves from `ply` on, and a declared end made after them.
    Truncate {
        id: i64,
        ply: i64,
        updated: i64,
        derived: Derived,
    },
    /// Sets (or clears, with `None`) the declared end.
    Declare {
        id: i64,
        declared: Option<Declared>,
        ply: i64,
        updated: i64,
        derived: Derived,
    },
    /// Replaces a game's moves and alternative lines (analysis: a new main line), with the
    /// row's declared end and derived columns.
    SetLines {
        row: GameRow,
        moves: Vec<String>,
        lines: Vec<String>,
    },
    Delete {
        id: i64,
    },
    /// Stores a game's review, replacing an earlier one.
    SaveReview(StoredReview),
    /// A write to a live game between people (`live`).
    Live(live::LiveWrite),
    /// A write to accounts, sessions, tokens, ratings (`accounts`).
    Account(accounts::AccountWrite),
    /// Writes that succeed or fail together (a game's end and its ratings); answers the
    /// last one's answer.
    Batch(Vec<Write>),
}

/// A game's engine review as stored (`data` is the review's JSON).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredReview {
    pub game_id: i64,
    /// The main line reviewed: coordinates separated by spaces.
    pub moves: String,
    pub depth: i64,
    pub created: i64,
    pub data: String,
}

/// A stored game: its row, its moves, its alternative lines (each a whole line, moves in
/// coordinates separated by spaces) and its notes by path.
pub type StoredGame = (GameRow, Vec<String>, Vec<String>, Vec<(String, Note)>);

/// What can go wrong in the store.
#[derive(Debug)]
pub enum StoreError {
    /// The data folder cannot be made.
    CreateDir {
        path: PathBuf,
        error: std::io::Error,
    },
    /// The database cannot be opened or set up.
    Open {
        path: PathBuf,
        what: &'static str,
        error: rusqlite::Error,
    },
    /// A thread of the store cannot be started.
    Thread(std::io::Error),
    /// The writer thread is gone (it never answers again).
    WriterStopped,
    /// A read failed.
    Read(String),
    /// A write failed (and was rolled back).
    Write(rusqlite::Error),
    /// The group's transaction could not begin or commit (no write of it happened).
    Transaction { what: &'static str, error: String },
    /// A stored value is not one the server writes (a damaged or foreign file).
    Corrupt(String),
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreError::CreateDir { path, error } => {
                write!(
                    f,
                    "cannot create the data folder {}: {error}",
                    path.display()
                )
            }
            StoreError::Open { path, what, error } => {
                write!(
                    f,
                    "cannot {what} the game store {}: {error}",
                    path.display()
                )
            }
            StoreError::Thread(e) => write!(f, "cannot start the store writer: {e}"),
            StoreError::WriterStopped => f.write_str("the store writer has stopped"),
            StoreError::Read(e) => write!(f, "reading the game store: {e}"),
            StoreError::Write(e) => write!(f, "store: {e}"),
            StoreError::Transaction { what, error } => write!(f, "store: {what}: {error}"),
            StoreError::Corrupt(e) => write!(f, "the game store holds a bad value: {e}"),
        }
    }
}

impl std::error::Error for StoreError {}
