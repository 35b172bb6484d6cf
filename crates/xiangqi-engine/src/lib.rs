//! A Xiangqi engine.
//!
//! [`Engine`] owns the search threads, the hash table and the options. Front ends (the UCI
//! loop in [`uci`], a web server) drive it through the same calls — [`Engine::set_position`],
//! [`Engine::go`], [`Engine::stop`], [`Engine::ponderhit`] — and receive the same [`Event`]s:
//! info lines and the best move. There is no global mutable state: two engines in one
//! process are independent.
//!
//! ```
//! use std::sync::Arc;
//! use xiangqi_engine::{Engine, Event, Limits};
//!
//! let mut engine = Engine::new();
//! engine.set_option("Hash", "8").unwrap();
//! engine.set_position_text(None, &["h2e2", "h9g7"]).unwrap();
//! // Asynchronous: events arrive on the search thread; the last one is the best move.
//! engine.go(
//!     Limits::depth(4),
//!     Arc::new(|e| {
//!         if let Event::BestMove { best, .. } = e {
//!             println!("bestmove {}", best.unwrap());
//!         }
//!     }),
//! );
//! engine.wait();
//! // Or synchronous.
//! let (best, _events) = engine.search(Limits::nodes(2000));
//! assert!(engine.position().is_legal(best.unwrap()));
//! ```

#![forbid(unsafe_code)]

pub mod bench;
pub mod eval;
pub mod movepick;
pub mod search;
pub mod skill;
pub mod timeman;
pub mod tt;
pub mod uci;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc};
use std::thread::JoinHandle;
use std::time::Duration;

use xiangqi::{Move, Position};

pub use search::{Score, SearchInfo};
pub use timeman::Limits;

use search::{Frame, RootMove, Shared, Worker};
use skill::{Rng, Skill};
use timeman::{Clock, TimeManager};
use tt::TranspositionTable;

/// What a search reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// A completed iteration of one PV line.
    Info(SearchInfo),
    /// A free-form message (`info string`).
    Message(String),
    /// The search is over. `best` is None when the side to move has no legal move.
    BestMove {
        best: Option<Move>,
        ponder: Option<Move>,
    },
}

/// Receives a search's events (on the search thread).
pub type Callback = Arc<dyn Fn(Event) + Send + Sync>;

/// The engine's settings, as the UCI options set them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    pub hash_mb: usize,
    pub threads: usize,
    pub multipv: usize,
    pub ponder: bool,
    pub move_overhead_ms: u64,
    pub skill_level: i32,
    pub limit_strength: bool,
    pub elo: i32,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            hash_mb: 16,
            threads: 1,
            multipv: 1,
            ponder: false,
            move_overhead_ms: 10,
            skill_level: 20,
            limit_strength: false,
            elo: 1500,
        }
    }
}

/// The kind and range of a UCI option.
#[derive(Clone, Debug)]
pub enum OptionKind {
    Spin { default: i64, min: i64, max: i64 },
    Check { default: bool },
    Button,
}

/// The options the engine understands, in the order `uci` lists them.
pub fn option_list() -> Vec<(&'static str, OptionKind)> {
    let d = Options::default();
    vec![
        (
            "Hash",
            OptionKind::Spin {
                default: d.hash_mb as i64,
                min: 1,
                max: 65536,
            },
        ),
        ("Clear Hash", OptionKind::Button),
        (
            "Threads",
            OptionKind::Spin {
                default: d.threads as i64,
                min: 1,
                max: 256,
            },
        ),
        (
            "MultiPV",
            OptionKind::Spin {
                default: d.multipv as i64,
                min: 1,
                max: 128,
            },
        ),
        ("Ponder", OptionKind::Check { default: d.ponder }),
        (
            "Move Overhead",
            OptionKind::Spin {
                default: d.move_overhead_ms as i64,
                min: 0,
                max: 5000,
            },
        ),
        (
            "Skill Level",
            OptionKind::Spin {
                default: d.skill_level as i64,
                min: 0,
                max: 20,
            },
        ),
        (
            "UCI_LimitStrength",
            OptionKind::Check {
                default: d.limit_strength,
            },
        ),
        (
            "UCI_Elo",
            OptionKind::Spin {
                default: d.elo as i64,
                min: skill::ELO_MIN as i64,
                max: skill::ELO_MAX as i64,
            },
        ),
    ]
}

/// Why a `position` could not be set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PositionError(pub String);

impl std::fmt::Display for PositionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for PositionError {}

struct Running {
    handle: JoinHandle<()>,
    stop: Arc<AtomicBool>,
    pondering: Arc<AtomicBool>,
    clock: Arc<Clock>,
}

/// The result of [`Engine::bench`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BenchResult {
    pub nodes: u64,
    pub ms: u64,
}

/// A Xiangqi engine: options, hash table, the current game and its search threads.
pub struct Engine {
    options: Options,
    tt: Arc<TranspositionTable>,
    start: Position,
    root: Position,
    /// Frames of the game's positions before the root (for repetition rulings) and the
    /// positions themselves.
    history: Vec<Frame>,
    game: Vec<Position>,
    banned: Vec<Move>,
    /// The move that led to the root (if the game has one).
    root_move: Option<Move>,
    running: Option<Running>,
    rng: Rng,
}

impl Default for Engine {
    fn default() -> Engine {
        Engine::new()
    }
}

impl Engine {
    pub fn new() -> Engine {
        let seed = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0x9e37_79b9, |d| d.as_nanos() as u64);
        let options = Options::default();
        Engine {
            tt: Arc::new(TranspositionTable::new(options.hash_mb)),
            options,
            start: Position::new(),
            root: Position::new(),
            history: Vec::new(),
            game: Vec::new(),
            banned: Vec::new(),
            root_move: None,
            running: None,
            rng: Rng::new(seed),
        }
    }

    pub fn options(&self) -> &Options {
        &self.options
    }

    /// Seeds the random choices of reduced strength levels (for reproducible tests).
    pub fn set_seed(&mut self, seed: u64) {
        self.rng = Rng::new(seed);
    }

    /// Sets an option by its UCI name (case-insensitive). `Hash` and `Clear Hash` stop a
    /// running search first (its best move is still reported).
    pub fn set_option(&mut self, name: &str, value: &str) -> Result<(), String> {
        let key = name.trim().to_ascii_lowercase();
        let v = value.trim();
        let spin = |min: i64, max: i64| -> Result<i64, String> {
            let n: i64 = v
                .parse()
                .map_err(|_| format!("option '{name}' needs a number, got '{v}'"))?;
            if n < min || n > max {
                return Err(format!(
                    "option '{name}' must be between {min} and {max}, got {n}"
                ));
            }
            Ok(n)
        };
        let check = || -> Result<bool, String> {
            match v.to_ascii_lowercase().as_str() {
                "true" => Ok(true),
                "false" => Ok(false),
                _ => Err(format!("option '{name}' needs true or false, got '{v}'")),
            }
        };
        match key.as_str() {
            "hash" | "hashsize" => {
                let mb = spin(1, 65536)? as usize;
                self.stop();
                self.wait();
                if mb != self.options.hash_mb {
                    // Free the old table first so that the two never need to fit together.
                    self.tt = Arc::new(TranspositionTable::new(1));
                    match TranspositionTable::try_new(mb) {
                        Ok(t) => {
                            self.tt = Arc::new(t);
                            self.options.hash_mb = mb;
                        }
                        Err(e) => {
                            self.tt = Arc::new(TranspositionTable::new(self.options.hash_mb));
                            return Err(e);
                        }
                    }
                }
            }
            "clear hash" => {
                self.stop();
                self.wait();
                self.tt.clear();
            }
            "threads" => self.options.threads = spin(1, 256)? as usize,
            "multipv" => self.options.multipv = spin(1, 128)? as usize,
            "ponder" => self.options.ponder = check()?,
            "move overhead" => self.options.move_overhead_ms = spin(0, 5000)? as u64,
            "skill level" => self.options.skill_level = spin(0, 20)? as i32,
            "uci_limitstrength" => self.options.limit_strength = check()?,
            "uci_elo" => {
                self.options.elo = spin(skill::ELO_MIN as i64, skill::ELO_MAX as i64)? as i32
            }
            _ => return Err(format!("no such option '{name}'")),
        }
        Ok(())
    }

    /// Forgets what was learnt in the last game (the hash table); stops a running search.
    pub fn new_game(&mut self) {
        self.stop();
        self.wait();
        self.tt.clear();
        self.banned.clear();
    }

    /// Sets the game: a start position and the moves played from it. Every move must be legal.
    pub fn set_position(&mut self, start: Position, moves: &[Move]) -> Result<(), PositionError> {
        let mut pos = start.clone();
        let mut history = Vec::new();
        let mut game = Vec::new();
        let mut window = pos.halfmoves();
        let mut last = None;
        for (i, &m) in moves.iter().enumerate() {
            if !pos.is_legal(m) {
                return Err(PositionError(format!(
                    "move {} ({m}) is not legal in {}",
                    i + 1,
                    pos.fen()
                )));
            }
            history.push(Frame {
                key: pos.key(),
                checked: pos.is_check(),
                window,
                mv: last,
            });
            game.push(pos.clone());
            let captured = pos.play_unchecked(m).is_some();
            window = if captured { 0 } else { window + 1 };
            last = Some(m);
        }
        // Only positions since the last capture can repeat.
        let keep = history.len().min(window as usize);
        history.drain(..history.len() - keep);
        game.drain(..game.len() - keep);
        self.start = start;
        self.root = pos;
        self.history = history;
        self.game = game;
        self.root_move = last;
        self.banned.clear();
        Ok(())
    }

    /// Parses and sets a position as the UCI `position` command gives it.
    pub fn set_position_text(
        &mut self,
        fen: Option<&str>,
        moves: &[&str],
    ) -> Result<(), PositionError> {
        let start = match fen {
            None => Position::new(),
            Some(f) => {
                Position::from_fen(f).map_err(|e| PositionError(format!("bad FEN '{f}': {e}")))?
            }
        };
        let mut pos = start.clone();
        let mut list = Vec::with_capacity(moves.len());
        for (i, s) in moves.iter().enumerate() {
            let m = pos
                .parse_uci(s)
                .map_err(|e| PositionError(format!("move {} '{s}': {e}", i + 1)))?;
            pos.play_unchecked(m);
            list.push(m);
        }
        self.set_position(start, &list)
    }

    /// The current root position.
    pub fn position(&self) -> &Position {
        &self.root
    }

    /// Moves excluded from the next searches (UCCI `banmoves`); cleared by a new position.
    pub fn ban_moves(&mut self, moves: Vec<Move>) {
        self.banned = moves;
    }

    /// Whether a search is running.
    pub fn is_searching(&self) -> bool {
        self.running
            .as_ref()
            .is_some_and(|r| !r.handle.is_finished())
    }

    /// Starts a search on its own thread and returns at once. Events go to `callback`; the
    /// last one is always [`Event::BestMove`]. A search already running is stopped first.
    pub fn go(&mut self, limits: Limits, callback: Callback) {
        self.stop();
        self.wait();
        let stop = Arc::new(AtomicBool::new(false));
        let pondering = Arc::new(AtomicBool::new(limits.ponder));
        let clock = Arc::new(Clock::new());
        let skill = Skill::from_options(
            self.options.skill_level,
            self.options.limit_strength,
            self.options.elo,
        );
        let job = Job {
            root: self.root.clone(),
            history: self.history.clone(),
            game: self.game.clone(),
            root_move: self.root_move,
            banned: self.banned.clone(),
            limits,
            options: self.options.clone(),
            tt: self.tt.clone(),
            stop: stop.clone(),
            pondering: pondering.clone(),
            clock: clock.clone(),
            skill,
            rng: Rng::new(self.rng.next_u64()),
        };
        let handle = std::thread::Builder::new()
            .name("search".into())
            .stack_size(64 * 1024 * 1024)
            .spawn(move || {
                let fallback = job
                    .root
                    .legal_moves()
                    .iter()
                    .copied()
                    .find(|m| !job.banned.contains(m));
                let result =
                    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(job, &*callback)));
                let (best, ponder) = match result {
                    Ok(r) => r,
                    Err(e) => {
                        // A bug in the search must not leave the front end waiting forever.
                        let what = e
                            .downcast_ref::<&str>()
                            .map(|s| s.to_string())
                            .or_else(|| e.downcast_ref::<String>().cloned())
                            .unwrap_or_default();
                        callback(Event::Message(format!(
                            "error: the search failed ({what}); playing a legal move"
                        )));
                        (fallback, None)
                    }
                };
                callback(Event::BestMove { best, ponder });
            })
            .expect("spawn search thread");
        self.running = Some(Running {
            handle,
            stop,
            pondering,
            clock,
        });
    }

    /// Asks a running search to stop (it then reports its best move).
    pub fn stop(&self) {
        if let Some(r) = &self.running {
            r.pondering.store(false, Ordering::SeqCst);
            r.stop.store(true, Ordering::SeqCst);
        }
    }

    /// The opponent played the expected move: the ponder search becomes a normal search
    /// with the clock starting now.
    pub fn ponderhit(&self) {
        if let Some(r) = &self.running {
            r.clock.restart();
            r.pondering.store(false, Ordering::SeqCst);
        }
    }

    /// Waits for a running search to finish (after its best move was reported).
    pub fn wait(&mut self) {
        if let Some(r) = self.running.take() {
            let _ = r.handle.join();
        }
    }

    /// Searches synchronously and returns the best move with the events seen.
    pub fn search(&mut self, limits: Limits) -> (Option<Move>, Vec<Event>) {
        let (tx, rx) = mpsc::channel();
        let tx = std::sync::Mutex::new(tx);
        self.go(
            limits,
            Arc::new(move |e| {
                let _ = tx.lock().unwrap_or_else(|p| p.into_inner()).send(e);
            }),
        );
        self.wait();
        let events: Vec<Event> = rx.try_iter().collect();
        let best = events.iter().rev().find_map(|e| match e {
            Event::BestMove { best, .. } => Some(*best),
            _ => None,
        });
        (best.flatten(), events)
    }

    /// Searches the bench positions to `depth` with one thread and a fresh 16 MiB table;
    /// the node count is the same on every run. `each` receives a line per position.
    pub fn bench(&mut self, depth: i32, each: &mut dyn FnMut(&str)) -> BenchResult {
        self.wait();
        let saved = self.options.clone();
        let saved_tt = self.tt.clone();
        self.options = Options {
            hash_mb: 16,
            ..Options::default()
        };
        self.tt = Arc::new(TranspositionTable::new(16));
        let mut nodes = 0;
        let start = std::time::Instant::now();
        for (i, (fen, moves)) in bench::POSITIONS.iter().enumerate() {
            self.tt.clear();
            let fen = if *fen == "startpos" { None } else { Some(*fen) };
            let moves: Vec<&str> = moves.split_whitespace().collect();
            self.set_position_text(fen, &moves)
                .expect("bench positions are valid");
            let (best, events) = self.search(Limits::depth(depth));
            let n = events
                .iter()
                .rev()
                .find_map(|e| match e {
                    Event::Info(i) => Some(i.nodes),
                    _ => None,
                })
                .unwrap_or(0);
            nodes += n;
            each(&format!(
                "position {}/{}: {} nodes, best {}",
                i + 1,
                bench::POSITIONS.len(),
                n,
                best.map_or("(none)".to_string(), |m| m.to_string())
            ));
        }
        let ms = start.elapsed().as_millis() as u64;
        self.options = saved;
        self.tt = saved_tt;
        BenchResult { nodes, ms }
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        self.stop();
        self.wait();
    }
}

struct Job {
    root: Position,
    history: Vec<Frame>,
    game: Vec<Position>,
    root_move: Option<Move>,
    banned: Vec<Move>,
    limits: Limits,
    options: Options,
    tt: Arc<TranspositionTable>,
    stop: Arc<AtomicBool>,
    pondering: Arc<AtomicBool>,
    clock: Arc<Clock>,
    skill: Option<Skill>,
    rng: Rng,
}

/// Runs a search to the end (including waiting for `stop`/`ponderhit` when pondering or
/// searching infinitely) and returns the best and ponder moves.
fn run(job: Job, callback: &(dyn Fn(Event) + Send + Sync)) -> (Option<Move>, Option<Move>) {
    let Job {
        root,
        history,
        game,
        root_move,
        banned,
        limits,
        options,
        tt,
        stop,
        pondering,
        clock,
        skill,
        mut rng,
    } = job;
    let mut moves: Vec<Move> = root.legal_moves().iter().copied().collect();
    if !limits.searchmoves.is_empty() {
        moves.retain(|m| limits.searchmoves.contains(m));
    }
    moves.retain(|m| !banned.contains(m));
    let wait_for_stop = |stop: &AtomicBool| {
        while !stop.load(Ordering::Relaxed)
            && (pondering.load(Ordering::Relaxed) || limits.infinite)
        {
            std::thread::sleep(Duration::from_millis(1));
        }
    };
    if moves.is_empty() {
        let score = if root.legal_moves().is_empty() {
            Score::Mate(0)
        } else {
            callback(Event::Message(
                "no root move left to search (searchmoves/banmoves)".into(),
            ));
            Score::Cp(0)
        };
        callback(Event::Info(SearchInfo {
            depth: 0,
            seldepth: 0,
            multipv: 1,
            score,
            bound: None,
            nodes: 0,
            nps: 0,
            hashfull: 0,
            time_ms: 0,
            pv: vec![],
        }));
        wait_for_stop(&stop);
        return (None, None);
    }
    tt.new_search();
    let multipv = options
        .multipv
        .max(skill.map_or(1, |s| s.multipv()))
        .min(moves.len());
    let shared = Shared {
        tt: tt.clone(),
        stop: stop.clone(),
        pondering: pondering.clone(),
        clock,
        time: TimeManager::new(&limits, root.turn(), options.move_overhead_ms),
        limits: limits.clone(),
        nodes: (0..options.threads).map(|_| AtomicU64::new(0)).collect(),
        multipv,
        depth_cap: skill.map(|s| s.depth_cap()),
        node_cap: skill.map(|s| s.node_cap()),
    };
    let root_moves: Vec<RootMove> = std::thread::scope(|s| {
        for id in 1..options.threads {
            let (shared, root, history, game, moves) =
                (&shared, root.clone(), &history, &game, moves.clone());
            std::thread::Builder::new()
                .stack_size(64 * 1024 * 1024)
                .spawn_scoped(s, move || {
                    let mut w = Worker::new(id, shared, root, history, game, root_move, moves);
                    w.iterate(&mut |_, _| {});
                })
                .expect("spawn helper thread");
        }
        let mut main = Worker::new(
            0,
            &shared,
            root.clone(),
            &history,
            &game,
            root_move,
            moves.clone(),
        );
        main.iterate(&mut |w, depth| {
            // Report all lines once the last one of the iteration is done.
            let last = w.root_moves.len().min(multipv) - 1;
            if w.pv_index() == last {
                for idx in 0..=last {
                    callback(Event::Info(w.info(depth, idx)));
                }
            }
        });
        wait_for_stop(&stop);
        stop.store(true, Ordering::Relaxed);
        main.root_moves.clone()
    });
    let chosen = match skill {
        Some(sk) => sk.pick(&root_moves[..multipv.min(root_moves.len())], &mut rng),
        None => 0,
    };
    let rm = &root_moves[chosen];
    let best = rm.mv;
    let ponder = rm.pv.get(1).copied().or_else(|| {
        let mut p = root.clone();
        p.play_unchecked(best);
        tt.probe(p.key())
            .and_then(|e| e.mv)
            .filter(|&m| p.is_legal(m))
    });
    (Some(best), ponder)
}
