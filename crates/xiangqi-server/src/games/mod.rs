//! The game operations: starting, importing, moving, branching, promoting a line, taking
//! back, resigning and agreeing a draw. They work on a loaded game and the store and know
//! nothing of HTTP; what they refuse is a [`GameError`], which the API turns into a status.
//!
//! Each loaded game sits behind its own lock ([`Games`]), so changes to one game are
//! checked and stored one at a time while different games proceed side by side. A change is
//! stored durably first and only then applied in memory.

pub mod create;
pub mod ends;
pub mod export;
pub mod moves;

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use xiangqi::{Color, Game, Move, Position};

use crate::engine::EngineError;
use crate::lines::parse_lines;
use crate::store::{Declared, Derived, GameRow, Store, StoreError, Verdict};

/// A game as the server holds it: the stored row, the game replayed from its moves, and the
/// alternative lines kept beside the main line (analysis variations; each a whole line from
/// the start position).
pub struct Loaded {
    pub row: GameRow,
    pub game: Game,
    pub lines: Vec<Vec<Move>>,
}

/// How a finished game ended, in words (English and Chinese) as well as by rule.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Ending {
    pub winner: Option<&'static str>,
    pub result: Verdict,
    pub reason: &'static str,
    pub text: String,
    pub text_zh: String,
}

impl Ending {
    /// How `game` ended, or `None` while it goes on.
    pub fn of(game: &Game) -> Option<Ending> {
        let (o, r) = (game.outcome()?, game.ruling()?);
        Some(Ending {
            winner: o.winner.map(Color::name),
            result: Verdict::of_winner(o.winner),
            reason: o.reason.as_str(),
            text: r.to_string(),
            text_zh: crate::zh::ruling_text(game, &r),
        })
    }
}

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
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
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
            GameError::MoveTooLong(t) => write!(f, "'{t}' is too long to be a move"),
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

pub type GameResult<T> = Result<T, GameError>;

pub fn now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// A move in coordinates (`h2e2`), without the formatting machinery (this is on the hot path).
pub fn uci(m: Move) -> String {
    let (a, b) = (m.from(), m.to());
    let mut s = String::with_capacity(4);
    s.push(a.file().char());
    s.push(a.rank().char());
    s.push(b.file().char());
    s.push(b.rank().char());
    s
}

/// The legal moves of `pos` in coordinates, sorted.
pub fn legal_moves(pos: &Position) -> Vec<String> {
    let mut v: Vec<String> = pos.legal_moves().iter().map(|&m| uci(m)).collect();
    v.sort_unstable();
    v
}

/// Reads a side: `red`/`r`/`w`/`white` or `black`/`b`, any case.
pub fn parse_color(s: &str) -> Option<Color> {
    match s.trim().to_ascii_lowercase().as_str() {
        "red" | "r" | "w" | "white" => Some(Color::Red),
        "black" | "b" => Some(Color::Black),
        _ => None,
    }
}

/// Replays a stored game. A stored move that is not legal (a damaged file) ends the replay
/// with an error naming the move.
pub fn replay(row: &GameRow, moves: &[String]) -> GameResult<Game> {
    let mut game = Game::from_uci(&row.start_fen, moves).map_err(|e| {
        GameError::Store(StoreError::Corrupt(match e {
            xiangqi::ReplayError::Fen(e) => {
                format!("game {}: stored start FEN is bad: {e}", row.id)
            }
            e => format!("game {}: stored {e}", row.id),
        }))
    })?;
    apply_declared(&mut game, row);
    Ok(game)
}

/// Puts the row's declared end (if it was made at the game's current length) on the game.
pub fn apply_declared(game: &mut Game, row: &GameRow) {
    game.clear_declared();
    if row.declared_ply != game.len() as i64 {
        return;
    }
    match row.declared {
        Some(Declared::Resign(c)) => game.resign(c),
        Some(Declared::Draw) => game.agree_draw(),
        None => {}
    }
}

/// The derived result columns of a game.
pub fn derived(game: &Game) -> Derived {
    match game.outcome() {
        Some(o) => Derived {
            result: Some(Verdict::of_winner(o.winner)),
            reason: o.reason.as_str().to_string(),
        },
        None => Derived::default(),
    }
}

/// Refuses a game that is over.
pub fn not_over(game: &Game) -> GameResult<()> {
    match Ending::of(game) {
        Some(e) => Err(GameError::Over(Box::new(e))),
        None => Ok(()),
    }
}

/// Refuses a change made by a client that believes the game has another number of moves.
pub fn check_ply(l: &Loaded, claimed: Option<i64>) -> GameResult<()> {
    match claimed {
        Some(p) if p != l.game.len() as i64 => Err(GameError::StalePly {
            have: l.game.len(),
            claimed: p,
        }),
        _ => Ok(()),
    }
}

/// How many games are kept in memory before idle ones are dropped.
const MAX_CACHED: usize = 4096;

type Slot = Arc<tokio::sync::Mutex<Option<Loaded>>>;

/// The games in memory, each behind its own lock, loaded from the store on first use.
#[derive(Default)]
pub struct Games {
    map: Mutex<HashMap<i64, Slot>>,
}

impl Games {
    /// The slot of game `id` (loading it on first use); `None` if there is no such game.
    async fn slot(&self, store: &Store, id: i64) -> GameResult<Option<Slot>> {
        let slot = {
            let mut map = self.map.lock().unwrap_or_else(|p| p.into_inner());
            if map.len() >= MAX_CACHED && !map.contains_key(&id) {
                // Forget games nobody is using; they are read again from the store when needed.
                map.retain(|_, s| Arc::strong_count(s) > 1);
            }
            map.entry(id)
                .or_insert_with(|| Arc::new(tokio::sync::Mutex::new(None)))
                .clone()
        };
        {
            let mut g = slot.lock().await;
            if g.is_none() {
                match store.load(id).await? {
                    Some((row, moves, lines)) => {
                        let game = replay(&row, &moves)?;
                        let lines = parse_lines(game.start(), &lines);
                        *g = Some(Loaded { row, game, lines });
                    }
                    None => {
                        drop(g);
                        self.forget(id);
                        return Ok(None);
                    }
                }
            }
        }
        Ok(Some(slot))
    }

    /// Runs `f` on game `id` while holding its lock.
    pub async fn with<T, E: From<GameError>>(
        &self,
        store: &Store,
        id: i64,
        f: impl AsyncFnOnce(&mut Loaded) -> Result<T, E>,
    ) -> Result<T, E> {
        let slot = self.slot(store, id).await?.ok_or(GameError::NotFound(id))?;
        let mut guard = slot.lock().await;
        let loaded = guard.as_mut().ok_or(GameError::NotFound(id))?;
        f(loaded).await
    }

    /// Deletes game `id` from the store and from memory, holding its lock while doing so
    /// (so no move is stored into a deleted game).
    pub async fn delete(&self, store: &Store, id: i64) -> GameResult<()> {
        let slot = self.slot(store, id).await?.ok_or(GameError::NotFound(id))?;
        let mut g = slot.lock().await;
        store.write(crate::store::Write::Delete { id }).await?;
        *g = None;
        drop(g);
        self.forget(id);
        Ok(())
    }

    /// Drops a game from memory (after deleting it, or when it is not found).
    fn forget(&self, id: i64) {
        let mut map = self.map.lock().unwrap_or_else(|p| p.into_inner());
        map.remove(&id);
    }

    /// Puts a freshly created game in memory.
    pub fn insert(&self, loaded: Loaded) {
        let id = loaded.row.id;
        let mut map = self.map.lock().unwrap_or_else(|p| p.into_inner());
        map.insert(id, Arc::new(tokio::sync::Mutex::new(Some(loaded))));
    }
}

/// Runs a change to a game to completion even if the client goes away: the in-memory game
/// and the store must not part (a dropped request could otherwise leave a committed move out
/// of memory).
pub async fn detached<T: Send + 'static, E: From<GameError> + Send + 'static>(
    f: impl std::future::Future<Output = Result<T, E>> + Send + 'static,
) -> Result<T, E> {
    tokio::spawn(f)
        .await
        .map_err(|e| GameError::Task(e.to_string()))?
}

/// What a search needs of a game, taken under its lock so that the search runs without it.
pub struct Snapshot {
    pub id: i64,
    pub mode: crate::store::Mode,
    pub human: Option<Color>,
    pub level: i64,
    pub start: Position,
    pub moves: Vec<Move>,
    pub ply: usize,
    pub turn: Color,
}

impl Snapshot {
    /// The game as it stands, if it goes on and has `claimed_ply` moves (when given).
    pub fn of(l: &Loaded, claimed_ply: Option<i64>) -> GameResult<Snapshot> {
        check_ply(l, claimed_ply)?;
        not_over(&l.game)?;
        Ok(Snapshot {
            id: l.row.id,
            mode: l.row.mode,
            human: l.row.human,
            level: l.row.level,
            start: l.game.start().clone(),
            moves: l.game.moves(),
            ply: l.game.len(),
            turn: l.game.position().turn(),
        })
    }
}

/// A change to a game whose answer is the game itself.
pub enum Change {
    /// Make this alternative line (in coordinates) the main line.
    Promote {
        line: Vec<String>,
        claimed_ply: Option<i64>,
    },
    /// Take back the last `plies` moves.
    Takeback {
        plies: usize,
        claimed_ply: Option<i64>,
    },
    /// A side resigns (default: the human in computer mode, else the side to move).
    Resign(Option<Color>),
}

impl Change {
    pub async fn apply(self, store: &Store, l: &mut Loaded) -> GameResult<()> {
        match self {
            Change::Promote { line, claimed_ply } => {
                moves::promote(store, l, &line, claimed_ply).await
            }
            Change::Takeback { plies, claimed_ply } => {
                moves::takeback(store, l, plies, claimed_ply).await
            }
            Change::Resign(side) => ends::resign(store, l, side).await,
        }
    }
}
