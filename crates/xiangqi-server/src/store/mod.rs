//! The game store: what is kept of a game (its row, moves and alternative lines) and the
//! writes that change it. Two backends: SQLite (`sqlite`, one file in the data folder, the
//! default) and PostgreSQL (`postgres`, `--database postgres://...`). The types here are what
//! the rest of the server sees; `Store` is the one interface over both.
//!
//! `Store` is an enum over the backends rather than a trait object: the set is closed (two
//! backends, both in this crate), its methods are async (an object-safe trait would box every
//! future or need `async-trait`), and each method's `match` makes the compiler check that
//! every backend answers every read; every change goes through one `Write` value that both
//! backends apply, so a new kind of write cannot be forgotten by one of them either.

pub mod accounts;
pub mod chat;
pub mod live;
pub mod migrations;
mod postgres;
pub mod sql;
mod sqlite;

use std::fmt;
use std::path::{Path, PathBuf};

use xiangqi::Color;

pub use postgres::{parse_url, PgStore};
pub use sqlite::SqliteStore;

use accounts::{
    AccountWrite, LeaderRow, ProfileRow, RatingRow, SeatsRow, SessionRow, TokenRow, UserRow,
};
use live::LiveRow;

use crate::rating::{Rating, Speed};

/// Where the games are kept.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Database {
    /// `games.sqlite3` in this folder.
    Sqlite(PathBuf),
    /// A PostgreSQL database, by its `postgres://` URL.
    Postgres(String),
}

/// The store: one of the backends.
#[derive(Clone)]
pub enum Store {
    Sqlite(SqliteStore),
    Postgres(PgStore),
}

impl Store {
    /// Opens (creating if needed) the SQLite store in folder `dir`.
    pub fn open(dir: &Path) -> Result<Store, StoreError> {
        SqliteStore::open(dir).map(Store::Sqlite)
    }

    /// Connects to the PostgreSQL database at `url` (migrating it).
    pub async fn connect(url: &str) -> Result<Store, StoreError> {
        PgStore::connect(url).await.map(Store::Postgres)
    }

    /// Opens the store the configuration names.
    pub async fn open_database(db: &Database) -> Result<Store, StoreError> {
        match db {
            Database::Sqlite(dir) => Store::open(dir),
            Database::Postgres(url) => Store::connect(url).await,
        }
    }

    /// Where the games are kept, for people: the file, or the database URL without a
    /// password.
    pub fn place(&self) -> String {
        match self {
            Store::Sqlite(s) => s.path.display().to_string(),
            Store::Postgres(s) => s.place.clone(),
        }
    }

    /// `sqlite` or `postgres`.
    pub fn backend(&self) -> &'static str {
        match self {
            Store::Sqlite(_) => "sqlite",
            Store::Postgres(_) => "postgres",
        }
    }

    /// Applies a write and waits until it is committed (durable); answers the new id of a
    /// created game, else the game's id (0 for live-game writes).
    pub async fn write(&self, w: Write) -> Result<i64, StoreError> {
        match self {
            Store::Sqlite(s) => s.write(w).await,
            Store::Postgres(s) => s.write(w).await,
        }
    }

    /// A game's row, moves and alternative lines, or `None`.
    pub async fn load(&self, id: i64) -> Result<Option<StoredGame>, StoreError> {
        match self {
            Store::Sqlite(s) => s.load(id).await,
            Store::Postgres(s) => s.load(id).await,
        }
    }

    /// Games, most recently updated first, and how many there are in all.
    pub async fn list(&self, limit: i64, offset: i64) -> Result<(Vec<GameRow>, i64), StoreError> {
        match self {
            Store::Sqlite(s) => s.list(limit, offset).await,
            Store::Postgres(s) => s.list(limit, offset).await,
        }
    }

    /// A live game's row and moves, or `None`.
    pub async fn load_live(&self, id: &str) -> Result<Option<(LiveRow, Vec<String>)>, StoreError> {
        match self {
            Store::Sqlite(s) => s.load_live(id).await,
            Store::Postgres(s) => s.load_live(id).await,
        }
    }

    /// Every live game that has not ended, with its moves.
    pub async fn unfinished_live(&self) -> Result<Vec<(LiveRow, Vec<String>)>, StoreError> {
        match self {
            Store::Sqlite(s) => s.unfinished_live().await,
            Store::Postgres(s) => s.unfinished_live().await,
        }
    }

    /// A game's stored review, or `None`.
    pub async fn load_review(&self, id: i64) -> Result<Option<StoredReview>, StoreError> {
        match self {
            Store::Sqlite(s) => s.load_review(id).await,
            Store::Postgres(s) => s.load_review(id).await,
        }
    }

    /// The live games that ended (not aborted) after `(updated, id)` in the order of their
    /// last write's time (wall ms) and then their ids, at most `limit`, with their moves: a
    /// page of a walk through every ended game (start at `(since, "")`, go on from the last
    /// one's `(updated, id)`).
    pub async fn ended_live_after(
        &self,
        updated: i64,
        id: &str,
        limit: u32,
    ) -> Result<Vec<(LiveRow, Vec<String>)>, StoreError> {
        match self {
            Store::Sqlite(s) => s.ended_live_after(updated, id, limit).await,
            Store::Postgres(s) => s.ended_live_after(updated, id, limit).await,
        }
    }

    /// The last heartbeat of `node` (ms since the Unix epoch), if it ever beat.
    pub async fn last_beat(&self, node: &str) -> Result<Option<i64>, StoreError> {
        match self {
            Store::Sqlite(s) => s.last_beat(node).await,
            Store::Postgres(s) => s.last_beat(node).await,
        }
    }

    /// The schema version (the last migration applied).
    pub async fn schema_version(&self) -> Result<i64, StoreError> {
        match self {
            Store::Sqlite(s) => s.schema_version().await,
            Store::Postgres(s) => s.schema_version().await,
        }
    }
}

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
    /// A chat line, a block, a preference (`chat`).
    Chat(chat::ChatWrite),
    /// A node's heartbeat: it is alive at `at` (ms since the Unix epoch).
    Beat {
        node: String,
        at: i64,
    },
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

/// Runs the same read on whichever backend the store is.
macro_rules! both {
    ($self:ident, $s:ident => $e:expr) => {
        match $self {
            Store::Sqlite($s) => $e,
            Store::Postgres($s) => $e,
        }
    };
}

/// Accounts (`store/accounts.rs` has the SQLite statements, `store/postgres/accounts.rs` the
/// PostgreSQL ones).
impl Store {
    /// Creates an account; `None` when the name (in any case) is taken.
    pub async fn create_user(
        &self,
        name: &str,
        name_key: &str,
        password_hash: &str,
        created: i64,
    ) -> Result<Option<i64>, StoreError> {
        let w = Write::Account(AccountWrite::CreateUser {
            name: name.to_owned(),
            name_key: name_key.to_owned(),
            password_hash: password_hash.to_owned(),
            created,
        });
        match self.write(w).await {
            Ok(id) => Ok(Some(id)),
            Err(StoreError::Taken(_)) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// A write to accounts; answers its id or count (`AccountWrite`).
    pub async fn account(&self, w: AccountWrite) -> Result<i64, StoreError> {
        self.write(Write::Account(w)).await
    }

    pub async fn user_by_key(&self, name_key: &str) -> Result<Option<UserRow>, StoreError> {
        both!(self, s => s.user_by_key(name_key).await)
    }

    pub async fn user_by_id(&self, id: i64) -> Result<Option<UserRow>, StoreError> {
        both!(self, s => s.user_by_id(id).await)
    }

    pub async fn session(&self, key: &str, now: i64) -> Result<Option<SessionRow>, StoreError> {
        both!(self, s => s.session(key, now).await)
    }

    pub async fn token_user(&self, key: &str) -> Result<Option<(i64, String, bool)>, StoreError> {
        both!(self, s => s.token_user(key).await)
    }

    pub async fn tokens(&self, user: i64) -> Result<Vec<TokenRow>, StoreError> {
        both!(self, s => s.tokens(user).await)
    }

    pub async fn ratings(&self, user: i64) -> Result<Vec<RatingRow>, StoreError> {
        both!(self, s => s.ratings(user).await)
    }

    pub async fn rating_of(&self, user: i64, speed: Speed) -> Result<Rating, StoreError> {
        both!(self, s => s.rating_of(user, speed).await)
    }

    /// The accounts of a live game's seats (`None`: a game of two guests).
    pub async fn live_seats(&self, game_id: &str) -> Result<Option<SeatsRow>, StoreError> {
        both!(self, s => s.live_seats(game_id).await)
    }

    /// The ongoing live games whose seat account `user` holds (oldest first, at most
    /// `accounts::PLAYING_MAX`), with its side.
    pub async fn playing(&self, user: i64) -> Result<Vec<(String, xiangqi::Color)>, StoreError> {
        both!(self, s => s.playing(user).await)
    }

    pub async fn profile(&self, name_key: &str) -> Result<Option<ProfileRow>, StoreError> {
        both!(self, s => s.profile(name_key).await)
    }

    pub async fn leaderboard(
        &self,
        speed: Speed,
        limit: i64,
    ) -> Result<Vec<LeaderRow>, StoreError> {
        both!(self, s => s.leaderboard(speed, limit).await)
    }
}

/// Chat (`store/chat.rs`, `store/postgres/chat.rs`).
impl Store {
    /// A live game's chat lines, both rooms, in order.
    pub async fn chat_lines(&self, game_id: &str) -> Result<Vec<chat::ChatRow>, StoreError> {
        match self {
            Store::Sqlite(s) => {
                let id = game_id.to_owned();
                s.read(move |c| chat::lines(c, &id)).await
            }
            Store::Postgres(s) => s.chat_lines(game_id).await,
        }
    }

    /// The accounts `user_id` blocks: (id, name), by name.
    pub async fn blocking(&self, user_id: i64) -> Result<Vec<(i64, String)>, StoreError> {
        match self {
            Store::Sqlite(s) => s.read(move |c| chat::blocking(c, user_id)).await,
            Store::Postgres(s) => s.blocking(user_id).await,
        }
    }

    /// Account `user_id`'s language for the app, if it chose one.
    pub async fn lang_of(&self, user_id: i64) -> Result<Option<String>, StoreError> {
        match self {
            Store::Sqlite(s) => s.read(move |c| chat::lang_of(c, user_id)).await,
            Store::Postgres(s) => s.lang_of(user_id).await,
        }
    }

    /// Whether account `user_id` takes challenges from bots (the default).
    pub async fn bot_challenges_on(&self, user_id: i64) -> Result<bool, StoreError> {
        match self {
            Store::Sqlite(s) => s.read(move |c| chat::bot_challenges_on(c, user_id)).await,
            Store::Postgres(s) => s.bot_challenges_on(user_id).await,
        }
    }

    /// Whether account `user_id` has chat on (the default).
    pub async fn chat_on(&self, user_id: i64) -> Result<bool, StoreError> {
        match self {
            Store::Sqlite(s) => s.read(move |c| chat::chat_on(c, user_id)).await,
            Store::Postgres(s) => s.chat_on(user_id).await,
        }
    }
}

/// What can go wrong in the store.
#[derive(Debug)]
pub enum StoreError {
    /// The data folder cannot be made.
    CreateDir {
        path: PathBuf,
        error: std::io::Error,
    },
    /// The SQLite file cannot be opened or set up.
    Open {
        path: PathBuf,
        what: &'static str,
        error: String,
    },
    /// `--database` is not a PostgreSQL URL.
    BadUrl(String),
    /// The PostgreSQL database cannot be reached or set up at start.
    Connect { place: String, error: String },
    /// A migration failed (and was rolled back).
    Migrate {
        place: String,
        version: i64,
        error: String,
    },
    /// The database was migrated by a newer server than this one.
    TooNew {
        place: String,
        found: i64,
        known: i64,
    },
    /// A thread of the store cannot be started.
    Thread(std::io::Error),
    /// The writer thread is gone (it never answers again).
    WriterStopped,
    /// The database cannot be reached now (PostgreSQL stopped or restarting): nothing was
    /// written; the same request may succeed later (the API answers `503`).
    Unavailable(String),
    /// A read failed.
    Read(String),
    /// A write failed (and was rolled back).
    Write(String),
    /// A write would have made a second row with a unique key (a name, an id) that another
    /// row has: nothing was written.
    Taken(String),
    /// The group's transaction could not begin or commit (no write of it happened).
    Transaction { what: &'static str, error: String },
    /// A stored value is not one the server writes (a damaged or foreign file).
    Corrupt(String),
}

impl StoreError {
    /// Whether the database is out of reach for now (`503`), rather than the request failing.
    pub fn is_unavailable(&self) -> bool {
        matches!(self, StoreError::Unavailable(_))
    }
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
            StoreError::BadUrl(e) => write!(f, "--database: {e}"),
            StoreError::Connect { place, error } => {
                write!(f, "cannot connect to the database {place}: {error}")
            }
            StoreError::Migrate {
                place,
                version,
                error,
            } => write!(
                f,
                "cannot migrate the game store {place} to version {version}: {error}"
            ),
            StoreError::TooNew {
                place,
                found,
                known,
            } => write!(
                f,
                "the game store {place} is at schema version {found}, newer than this \
                 xiangqi knows ({known}): use a newer xiangqi"
            ),
            StoreError::Thread(e) => write!(f, "cannot start the store writer: {e}"),
            StoreError::WriterStopped => f.write_str("the store writer has stopped"),
            StoreError::Unavailable(e) => {
                write!(f, "the database is unavailable, try again shortly: {e}")
            }
            StoreError::Read(e) => write!(f, "reading the game store: {e}"),
            StoreError::Write(e) => write!(f, "store: {e}"),
            StoreError::Taken(e) => write!(f, "store: already there: {e}"),
            StoreError::Transaction { what, error } => write!(f, "store: {what}: {error}"),
            StoreError::Corrupt(e) => write!(f, "the game store holds a bad value: {e}"),
        }
    }
}

impl std::error::Error for StoreError {}

/// The wall clock in ms since 1970, as the store keeps times.
pub fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}
