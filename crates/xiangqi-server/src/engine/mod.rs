//! The engine behind the app: the computer's moves (and its view of a draw offer) from a
//! bounded pool of engines, and live analysis over a WebSocket (`analysis`). Every search
//! runs on threads of its own, never on the async runtime.

pub mod analysis;

use std::fmt;
use std::sync::Mutex;

use xiangqi::{Move, Position};
use xiangqi_engine::{Engine, Event, Limits, Score};

/// The hash table of each pooled engine, in MiB.
pub const POOL_HASH_MB: usize = 16;

/// Why a search gave no answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EngineError {
    /// The engine refused an option (a bug: the server sets only valid ones).
    Option(String),
    /// The engine refused the position (a stored game the engine finds illegal).
    Position(String),
    /// The search's thread died without an answer.
    Died(String),
    /// The pool is closed (the server is shutting down).
    Closed,
}

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineError::Option(e) => write!(f, "engine: {e}"),
            EngineError::Position(e) => write!(f, "engine: {e}"),
            EngineError::Died(e) => write!(f, "the engine thread stopped without an answer: {e}"),
            EngineError::Closed => f.write_str("the engine is shutting down"),
        }
    }
}

impl std::error::Error for EngineError {}

/// What a search found: the best move and the score of the first line (from the side to
/// move's view).
#[derive(Debug, Clone, Copy)]
pub struct Found {
    pub best: Option<Move>,
    pub score: Option<Score>,
}

/// An idle engine and the game its hash table was last filled for.
struct Idle {
    engine: Engine,
    game: i64,
}

/// A bounded pool of engines for the computer's moves: at most `size` searches run at once
/// (the rest wait their turn, first come first served), and an engine keeps its hash table
/// between searches. A search for a game goes to the engine that last searched that game if
/// it is idle (so what it learnt on the previous move is still there), else to the engine
/// idle longest, whose table is then cleared (a new game for it).
pub struct EnginePool {
    slots: tokio::sync::Semaphore,
    /// Idle engines, the most recently used last.
    idle: Mutex<Vec<Idle>>,
    size: usize,
}

impl EnginePool {
    /// A pool of `size` engines (made when first needed).
    pub fn new(size: usize) -> EnginePool {
        let size = size.max(1);
        EnginePool {
            slots: tokio::sync::Semaphore::new(size),
            idle: Mutex::new(Vec::with_capacity(size)),
            size,
        }
    }

    /// A pool with as many engines as the machine has cores.
    pub fn per_core() -> EnginePool {
        EnginePool::new(std::thread::available_parallelism().map_or(2, |n| n.get()))
    }

    /// The most searches run at once.
    pub fn size(&self) -> usize {
        self.size
    }

    /// Engines made so far (idle ones; those searching are not counted).
    pub fn idle(&self) -> usize {
        self.idle.lock().unwrap_or_else(|p| p.into_inner()).len()
    }

    fn take(&self, game: i64) -> Option<Idle> {
        let mut idle = self.idle.lock().unwrap_or_else(|p| p.into_inner());
        let k = idle
            .iter()
            .rposition(|e| e.game == game)
            .or(if idle.is_empty() { None } else { Some(0) })?;
        Some(idle.remove(k))
    }

    fn give_back(&self, e: Idle) {
        self.idle.lock().unwrap_or_else(|p| p.into_inner()).push(e);
    }

    /// Searches the game `game` (start and moves) for `movetime_ms` at Skill Level `level`.
    pub async fn search(
        &self,
        game: i64,
        start: Position,
        moves: Vec<Move>,
        level: i32,
        movetime_ms: u64,
    ) -> Result<Found, EngineError> {
        let _permit = self
            .slots
            .acquire()
            .await
            .map_err(|_| EngineError::Closed)?;
        let taken = self.take(game);
        let (r, engine) = tokio::task::spawn_blocking(move || {
            let mut engine = match taken {
                Some(Idle {
                    mut engine,
                    game: g,
                }) => {
                    if g != game {
                        engine.new_game();
                    }
                    engine
                }
                None => {
                    let mut e = Engine::new();
                    if e.options().hash_mb != POOL_HASH_MB {
                        if let Err(err) = e.set_option("Hash", &POOL_HASH_MB.to_string()) {
                            return (Err(EngineError::Option(err)), e);
                        }
                    }
                    e
                }
            };
            let r = search_with(&mut engine, start, &moves, level, movetime_ms);
            (r, engine)
        })
        .await
        .map_err(|e| EngineError::Died(e.to_string()))?;
        self.give_back(Idle { engine, game });
        r
    }
}

fn search_with(
    engine: &mut Engine,
    start: Position,
    moves: &[Move],
    level: i32,
    movetime_ms: u64,
) -> Result<Found, EngineError> {
    engine
        .set_option("Skill Level", &level.clamp(0, 20).to_string())
        .map_err(EngineError::Option)?;
    engine
        .set_position(start, moves)
        .map_err(|e| EngineError::Position(e.0))?;
    let (best, events) = engine.search(Limits {
        movetime: Some(movetime_ms),
        ..Limits::default()
    });
    let score = events.iter().rev().find_map(|e| match e {
        Event::Info(i) if i.multipv <= 1 => Some(i.score),
        _ => None,
    });
    Ok(Found { best, score })
}
