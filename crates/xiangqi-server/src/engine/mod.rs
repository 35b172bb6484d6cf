//! The engine behind the app: the computer's moves (and its view of a draw offer) from a
//! bounded pool of engines, and live analysis over a WebSocket (`analysis`). Every search
//! runs on threads of its own, never on the async runtime.

pub mod analysis;
pub mod review;

use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use xiangqi::{Move, Position};
use xiangqi_engine::{Book, Engine, Event, Limits, Score};

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
    /// Which of the pool's engines searched (numbered from 0 in the order they were made).
    pub engine: usize,
}

/// An idle engine and the game its hash table was last filled for.
struct Idle {
    engine: Engine,
    game: i64,
    serial: usize,
}

/// A bounded pool of engines for the computer's moves: at most `size` searches run at once
/// (the rest wait their turn, first come first served), and an engine keeps its hash table
/// between searches. A search for a game goes to the engine that last searched that game if
/// it is idle (so what it learnt on the previous move is still there), else to a new engine
/// while fewer than `size` have been made, else to the engine idle longest, whose table is
/// then cleared (a new game for it).
pub struct EnginePool {
    slots: tokio::sync::Semaphore,
    /// Idle engines, the most recently used last.
    idle: Mutex<Vec<Idle>>,
    size: usize,
    /// Engines made so far.
    made: AtomicUsize,
    /// The opening book the computer's moves come from while in it (`--book`).
    book: Option<Arc<Book>>,
    /// The endgame tablebases (`--tb`): full-strength searches (analysis, reviews, level
    /// 20) probe them; reduced levels do not.
    tb: Option<Arc<xiangqi_tb::Tablebase>>,
}

impl EnginePool {
    /// A pool of `size` engines (made when first needed).
    pub fn new(size: usize) -> EnginePool {
        let size = size.max(1);
        EnginePool {
            slots: tokio::sync::Semaphore::new(size),
            idle: Mutex::new(Vec::with_capacity(size)),
            size,
            made: Default::default(),
            book: None,
            tb: None,
        }
    }

    /// The computer's moves ([`search`](Self::search)) come from `book` while the game is in
    /// it, at every level; [`run`](Self::run) (analysis, reviews) never uses it.
    pub fn set_book(&mut self, book: Option<Arc<Book>>) {
        self.book = book;
    }

    /// Every engine of the pool probes `tb` (`--tb`) at full strength.
    pub fn set_tablebase(&mut self, tb: Option<Arc<xiangqi_tb::Tablebase>>) {
        self.tb = tb;
    }

    /// A pool with as many engines as the machine has cores.
    pub fn per_core() -> EnginePool {
        EnginePool::new(std::thread::available_parallelism().map_or(2, |n| n.get()))
    }

    /// The most searches run at once.
    pub fn size(&self) -> usize {
        self.size
    }

    /// Engines made so far (an engine whose search thread died is replaced by a new one).
    pub fn made(&self) -> usize {
        self.made.load(Ordering::SeqCst)
    }

    /// The engine for a search of `game`: an idle one, or (`Err`) the number of a new one to
    /// make. Chosen under the lock, so two searches never both make the last engine allowed.
    fn take(&self, game: i64) -> Result<Idle, usize> {
        let mut idle = self.idle.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(k) = idle.iter().rposition(|e| e.game == game) {
            return Ok(idle.remove(k));
        }
        // A new engine while the pool is not full, or when every engine made is gone (a search
        // thread died); else the engine idle longest.
        if self.made() < self.size || idle.is_empty() {
            return Err(self.made.fetch_add(1, Ordering::SeqCst));
        }
        Ok(idle.remove(0))
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
        let book = self.book.clone();
        let ((best, score), serial) = self
            .with_engine(game, move |engine| {
                engine.set_book(book.clone(), "--book");
                engine
                    .set_option("OwnBook", if book.is_some() { "true" } else { "false" })
                    .map_err(EngineError::Option)?;
                search_with(engine, start, &moves, level, movetime_ms)
            })
            .await?;
        Ok(Found {
            best,
            score,
            engine: serial,
        })
    }

    /// Runs `f` with one of the pool's engines on a blocking thread, as a search of `game`
    /// (the same engine as `game`'s last use when it is idle, so its hash table is warm).
    /// It waits its turn as a search does; the engine's options stay as `f` leaves them, so
    /// `f` must set what it needs (the other searches set theirs).
    pub async fn run<T: Send + 'static>(
        &self,
        game: i64,
        f: impl FnOnce(&mut Engine) -> T + Send + 'static,
    ) -> Result<T, EngineError> {
        self.with_engine(game, move |engine| {
            // Analysis never plays from the book.
            engine.set_book(None, "");
            let _ = engine.set_option("OwnBook", "false");
            Ok(f(engine))
        })
        .await
        .map(|(r, _)| r)
    }

    /// What [`search`](Self::search) and [`run`](Self::run) share: waits for a slot, takes
    /// `game`'s engine (or another, or a new one with the pool's hash size), runs `f` with it
    /// on a blocking thread and gives it back. Answers `f`'s answer and the engine's number.
    async fn with_engine<T: Send + 'static>(
        &self,
        game: i64,
        f: impl FnOnce(&mut Engine) -> Result<T, EngineError> + Send + 'static,
    ) -> Result<(T, usize), EngineError> {
        let _permit = self
            .slots
            .acquire()
            .await
            .map_err(|_| EngineError::Closed)?;
        let (taken, serial) = match self.take(game) {
            Ok(idle) => {
                let serial = idle.serial;
                (Some(idle), serial)
            }
            Err(serial) => (None, serial),
        };
        let tb = self.tb.clone();
        let (r, engine) = tokio::task::spawn_blocking(move || {
            let mut engine = match taken {
                Some(Idle {
                    mut engine,
                    game: g,
                    ..
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
            engine.set_tablebase(tb, "--tb");
            let r = f(&mut engine);
            (r, engine)
        })
        .await
        .map_err(|e| EngineError::Died(e.to_string()))?;
        self.give_back(Idle {
            engine,
            game,
            serial,
        });
        r.map(|r| (r, serial))
    }
}

fn search_with(
    engine: &mut Engine,
    start: Position,
    moves: &[Move],
    level: i32,
    movetime_ms: u64,
) -> Result<(Option<Move>, Option<Score>), EngineError> {
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
    Ok((best, score))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn start() -> Position {
        Position::new()
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_game_keeps_its_engine_and_the_pool_makes_no_more_than_its_size() {
        let pool = EnginePool::new(2);
        let a = pool.search(1, start(), vec![], 3, 50).await.unwrap();
        let b = pool.search(2, start(), vec![], 3, 50).await.unwrap();
        assert!(a.best.is_some() && b.best.is_some());
        assert_ne!(
            a.engine, b.engine,
            "game 2 came while game 1's engine was idle: a new one"
        );
        // Each game's next search goes to the engine that searched it before (not merely to
        // the one idle longest: game 2 searches twice in a row, then game 1).
        for g in [2, 2, 1, 1, 2, 1] {
            let found = pool.search(g, start(), vec![], 3, 50).await.unwrap();
            let want = if g == 1 { a.engine } else { b.engine };
            assert_eq!(found.engine, want, "game {g}");
        }
        // A third game takes the engine idle longest; still two engines.
        let c = pool.search(3, start(), vec![], 3, 50).await.unwrap();
        assert_eq!(c.engine, b.engine, "game 2's engine has been idle longer");
        assert_eq!(pool.made(), 2);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn searches_beyond_the_pool_size_wait_their_turn() {
        let pool = std::sync::Arc::new(EnginePool::new(1));
        let tasks: Vec<_> = (0..4)
            .map(|g| {
                let pool = pool.clone();
                tokio::spawn(async move { pool.search(g, start(), vec![], 3, 50).await })
            })
            .collect();
        for t in tasks {
            let found = t.await.unwrap().unwrap();
            assert!(found.best.is_some());
            assert_eq!(found.engine, 0);
        }
        assert_eq!(pool.made(), 1);
    }

    /// With `--book`, the computer's moves come from the book at every level, and the same
    /// engine's analysis afterwards does not.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_play_levels_play_from_the_book_and_analysis_does_not() {
        use xiangqi_explorer::book::{encode, Entry, Header};
        let s = start();
        let bytes = encode(
            vec![Entry::new(&s, s.parse_uci("h0g2").unwrap(), 5, 5, 5)],
            Header::default(),
        )
        .unwrap();
        let book = Arc::new(Book::from_bytes(bytes, "test book").unwrap());
        let mut pool = EnginePool::new(1);
        pool.set_book(Some(book));
        for level in [0, 10, 20] {
            for _ in 0..5 {
                let f = pool.search(1, start(), vec![], level, 5000).await.unwrap();
                let best = f.best.unwrap().to_string();
                assert!(best == "h0g2" || best == "b0c2", "level {level}: {best}");
                // At once: a book move has no search score.
                assert_eq!(f.score, None);
            }
        }
        let (_, events) = pool
            .run(1, |e| {
                e.set_position(Position::new(), &[]).unwrap();
                e.search(Limits::depth(2))
            })
            .await
            .unwrap();
        assert!(events.iter().any(|e| matches!(e, Event::Info(_))));
        assert!(!events
            .iter()
            .any(|e| matches!(e, Event::Message(m) if m.contains("book"))));
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_illegal_game_is_an_error_and_the_engine_stays_usable() {
        let pool = EnginePool::new(1);
        let pos = start();
        let bad = pos.parse_uci("h2e2").unwrap();
        // h2e2 twice: the second is not legal (Black is to move).
        let e = pool.search(1, pos.clone(), vec![bad, bad], 3, 50).await;
        assert!(matches!(e, Err(EngineError::Position(_))), "{e:?}");
        assert!(pool
            .search(1, pos, vec![bad], 3, 50)
            .await
            .unwrap()
            .best
            .is_some());
        assert_eq!(pool.made(), 1);
    }
}
