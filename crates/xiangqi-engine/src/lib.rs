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

// Unsafe code only in `nnue`'s SIMD kernels (which allow it, with the reasons).
#![deny(unsafe_code)]

pub mod bench;
pub mod datagen;
pub mod eval;
pub mod movepick;
pub mod nnue;
pub mod review;
pub mod search;
pub mod skill;
pub mod timeman;
pub mod tt;
pub mod uci;
pub mod wdl;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use xiangqi::game::{Game, Rules};
use xiangqi::{Color, Move, Position};

pub use search::{Score, SearchInfo};
pub use timeman::Limits;

use search::{Frame, Shared, Worker};
use skill::{Rng, Skill};
use timeman::{Clock, TimeManager};
use tt::TranspositionTable;
pub use xiangqi_explorer::book::{Book, BookMove};
pub use xiangqi_tb::Tablebase;

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
    /// Evaluate with the network (the embedded one, or `EvalFile`'s) instead of the classical
    /// evaluation.
    pub use_nnue: bool,
    /// The network file last loaded (empty: the embedded network).
    pub eval_file: String,
    /// Play a move of the book (`BookFile`) when the position is in it.
    pub own_book: bool,
    /// The book file loaded (empty: none).
    pub book_file: String,
    /// Add `wdl W D L` to the info lines (`UCI_ShowWDL`).
    pub show_wdl: bool,
    /// The tablebase folders opened (`TbPath`; empty: none).
    pub tb_path: String,
    /// Probe the tables in the search only at this depth or more (and after captures).
    pub tb_probe_depth: i32,
    /// Rank the root's moves by the tables and search only the best (`TbProbeRoot`); off,
    /// every root move is searched and the tables score them from the search.
    pub tb_probe_root: bool,
}

impl Default for Options {
    /// The defaults of [`OPTIONS`].
    fn default() -> Options {
        let mut o = Options {
            hash_mb: 0,
            threads: 0,
            multipv: 0,
            ponder: false,
            move_overhead_ms: 0,
            skill_level: 0,
            limit_strength: false,
            elo: 0,
            use_nnue: false,
            eval_file: String::new(),
            own_book: false,
            book_file: String::new(),
            show_wdl: false,
            tb_path: String::new(),
            tb_probe_depth: 0,
            tb_probe_root: false,
        };
        for spec in OPTIONS {
            match spec.kind {
                OptionKind::Spin { default, .. } => o.set_spin(spec.id, default),
                OptionKind::Check { default } => o.set_check(spec.id, default),
                OptionKind::String { default } => match spec.id {
                    OptionId::BookFile => o.book_file = default.to_string(),
                    OptionId::TbPath => o.tb_path = default.to_string(),
                    _ => o.eval_file = default.to_string(),
                },
                OptionKind::Button => {}
            }
        }
        o
    }
}

impl Options {
    fn set_spin(&mut self, id: OptionId, n: i64) {
        // The table's ranges fit every field's type.
        match id {
            OptionId::Hash => self.hash_mb = n as usize,
            OptionId::Threads => self.threads = n as usize,
            OptionId::MultiPv => self.multipv = n as usize,
            OptionId::MoveOverhead => self.move_overhead_ms = n as u64,
            OptionId::SkillLevel => self.skill_level = n as i32,
            OptionId::Elo => self.elo = n as i32,
            OptionId::TbProbeDepth => self.tb_probe_depth = n as i32,
            OptionId::ClearHash
            | OptionId::Ponder
            | OptionId::LimitStrength
            | OptionId::UseNnue
            | OptionId::EvalFile
            | OptionId::OwnBook
            | OptionId::BookFile
            | OptionId::ShowWdl
            | OptionId::TbPath
            | OptionId::TbProbeRoot => {}
        }
    }
    fn set_check(&mut self, id: OptionId, b: bool) {
        match id {
            OptionId::Ponder => self.ponder = b,
            OptionId::LimitStrength => self.limit_strength = b,
            OptionId::UseNnue => self.use_nnue = b,
            OptionId::OwnBook => self.own_book = b,
            OptionId::ShowWdl => self.show_wdl = b,
            OptionId::TbProbeRoot => self.tb_probe_root = b,
            _ => {}
        }
    }
}

/// The kind and range of a UCI option.
#[derive(Clone, Debug)]
pub enum OptionKind {
    Spin {
        default: i64,
        min: i64,
        max: i64,
    },
    Check {
        default: bool,
    },
    /// A text (UCI `type string`); an empty default is listed as `<empty>`.
    String {
        default: &'static str,
    },
    Button,
}

/// Which setting an option changes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum OptionId {
    Hash,
    ClearHash,
    Threads,
    MultiPv,
    Ponder,
    MoveOverhead,
    SkillLevel,
    LimitStrength,
    Elo,
    UseNnue,
    EvalFile,
    OwnBook,
    BookFile,
    ShowWdl,
    TbPath,
    TbProbeDepth,
    TbProbeRoot,
}

/// One engine option: its UCI name, the UCCI name if UCCI has it, and its kind, default
/// and range.
#[derive(Clone, Debug)]
pub struct OptionSpec {
    pub id: OptionId,
    pub name: &'static str,
    pub ucci_name: Option<&'static str>,
    pub kind: OptionKind,
}

/// The options the engine understands, in the order `uci` lists them: the one table the
/// `uci` and `ucci` listings, `setoption` ([`Engine::set_option`]) and
/// [`Options::default`] read.
pub const OPTIONS: &[OptionSpec] = &[
    OptionSpec {
        id: OptionId::Hash,
        name: "Hash",
        ucci_name: Some("hashsize"),
        kind: OptionKind::Spin {
            default: 16,
            min: 1,
            max: 65536,
        },
    },
    OptionSpec {
        id: OptionId::ClearHash,
        name: "Clear Hash",
        ucci_name: None,
        kind: OptionKind::Button,
    },
    OptionSpec {
        id: OptionId::Threads,
        name: "Threads",
        ucci_name: Some("threads"),
        kind: OptionKind::Spin {
            default: 1,
            min: 1,
            max: 256,
        },
    },
    OptionSpec {
        id: OptionId::MultiPv,
        name: "MultiPV",
        ucci_name: Some("multipv"),
        kind: OptionKind::Spin {
            default: 1,
            min: 1,
            max: 128,
        },
    },
    OptionSpec {
        id: OptionId::Ponder,
        name: "Ponder",
        ucci_name: None,
        kind: OptionKind::Check { default: false },
    },
    OptionSpec {
        id: OptionId::MoveOverhead,
        name: "Move Overhead",
        ucci_name: None,
        kind: OptionKind::Spin {
            default: 10,
            min: 0,
            max: 5000,
        },
    },
    OptionSpec {
        id: OptionId::SkillLevel,
        name: "Skill Level",
        ucci_name: None,
        kind: OptionKind::Spin {
            default: 20,
            min: 0,
            max: 20,
        },
    },
    OptionSpec {
        id: OptionId::LimitStrength,
        name: "UCI_LimitStrength",
        ucci_name: None,
        kind: OptionKind::Check { default: false },
    },
    OptionSpec {
        id: OptionId::Elo,
        name: "UCI_Elo",
        ucci_name: None,
        kind: OptionKind::Spin {
            default: 1500,
            min: skill::ELO_MIN as i64,
            max: skill::ELO_MAX as i64,
        },
    },
    OptionSpec {
        id: OptionId::UseNnue,
        name: "Use NNUE",
        ucci_name: None,
        kind: OptionKind::Check { default: true },
    },
    OptionSpec {
        id: OptionId::EvalFile,
        name: "EvalFile",
        ucci_name: None,
        kind: OptionKind::String { default: "" },
    },
    OptionSpec {
        id: OptionId::OwnBook,
        name: "OwnBook",
        ucci_name: Some("usebook"),
        kind: OptionKind::Check { default: false },
    },
    OptionSpec {
        id: OptionId::BookFile,
        name: "BookFile",
        ucci_name: Some("bookfiles"),
        kind: OptionKind::String { default: "" },
    },
    OptionSpec {
        id: OptionId::ShowWdl,
        name: "UCI_ShowWDL",
        ucci_name: None,
        kind: OptionKind::Check { default: false },
    },
    OptionSpec {
        id: OptionId::TbPath,
        name: "TbPath",
        ucci_name: Some("egtbpaths"),
        kind: OptionKind::String { default: "" },
    },
    OptionSpec {
        id: OptionId::TbProbeDepth,
        name: "TbProbeDepth",
        ucci_name: None,
        kind: OptionKind::Spin {
            default: 1,
            min: 1,
            max: 100,
        },
    },
    OptionSpec {
        id: OptionId::TbProbeRoot,
        name: "TbProbeRoot",
        ucci_name: None,
        kind: OptionKind::Check { default: true },
    },
];

/// The option `name` (its UCI or UCCI name, case-insensitive).
pub fn find_option(name: &str) -> Option<&'static OptionSpec> {
    let name = name.trim();
    OPTIONS.iter().find(|o| {
        o.name.eq_ignore_ascii_case(name)
            || o.ucci_name.is_some_and(|u| u.eq_ignore_ascii_case(name))
    })
}

/// The options the engine understands, in the order `uci` lists them (from [`OPTIONS`]).
pub fn option_list() -> Vec<(&'static str, OptionKind)> {
    OPTIONS.iter().map(|o| (o.name, o.kind.clone())).collect()
}

/// A value for an option, checked against its kind and range.
#[derive(Clone, Debug, PartialEq, Eq)]
enum OptionValue {
    Spin(i64),
    Check(bool),
    String(String),
    Button,
}

impl OptionSpec {
    fn parse(&self, value: &str) -> Result<OptionValue, String> {
        let (name, v) = (self.name, value.trim());
        match self.kind {
            OptionKind::Spin { min, max, .. } => {
                let n: i64 = v
                    .parse()
                    .map_err(|_| format!("option '{name}' needs a number, got '{v}'"))?;
                if n < min || n > max {
                    return Err(format!(
                        "option '{name}' must be between {min} and {max}, got {n}"
                    ));
                }
                Ok(OptionValue::Spin(n))
            }
            OptionKind::Check { .. } => match v.to_ascii_lowercase().as_str() {
                "true" => Ok(OptionValue::Check(true)),
                "false" => Ok(OptionValue::Check(false)),
                _ => Err(format!("option '{name}' needs true or false, got '{v}'")),
            },
            OptionKind::String { .. } => Ok(OptionValue::String(v.to_string())),
            OptionKind::Button => Ok(OptionValue::Button),
        }
    }
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

/// What [`Engine::perft`] reports, on its thread.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PerftEvent {
    /// The leaf count below one root move (root moves in coordinate order).
    Move { mv: Move, nodes: u64 },
    /// Every root move was counted: the total.
    Done { nodes: u64 },
    /// `stop` came first: `done` of `moves` root moves were counted, `nodes` leaves so far.
    Stopped {
        done: usize,
        moves: usize,
        nodes: u64,
    },
}

/// Receives a perft run's events (on its thread).
/// The histories kept between a game's searches. A search thread that panicked while
/// holding them left tables that are still valid statistics, so a poisoned lock is used as is.
fn kept_histories(
    k: &Mutex<Vec<search::Histories>>,
) -> std::sync::MutexGuard<'_, Vec<search::Histories>> {
    k.lock().unwrap_or_else(|e| e.into_inner())
}

pub type PerftCallback = Arc<dyn Fn(PerftEvent) + Send + Sync>;

/// Leaves `depth` plies below `pos`, or `None` once `stop` is set (checked often enough
/// to answer within milliseconds: the rules core counts the last three plies in one go).
fn perft_until_stopped(pos: &Position, depth: u32, stop: &AtomicBool) -> Option<u64> {
    if depth <= 3 {
        return (!stop.load(Ordering::Relaxed)).then(|| xiangqi::perft(pos, depth));
    }
    let mut n = 0;
    for &m in pos.legal_moves().iter() {
        let mut c = pos.clone();
        c.play_unchecked(m);
        n += perft_until_stopped(&c, depth - 1, stop)?;
    }
    Some(n)
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
    /// The root's frame: the move that led to it (if the game has one) and its move-limit
    /// count.
    root_frame: Frame,
    rules: Rules,
    running: Option<Running>,
    rng: Rng,
    /// The network: the embedded one, or the one `EvalFile` loaded.
    net: Arc<xiangqi_nnue::QuantisedNet>,
    /// The opening book `BookFile` loaded (or [`Engine::set_book`] gave).
    book: Option<Arc<Book>>,
    /// The endgame tablebases `TbPath` opened (or [`Engine::set_tablebase`] gave).
    tb: Option<Arc<Tablebase>>,
    /// Each search thread's move-ordering histories, kept between the searches of a game
    /// (empty after `new_game`; made as the threads need them).
    histories: Arc<Mutex<Vec<search::Histories>>>,
}

/// The network shipped in the binary (docs/NNUE.md says how it was made), in the `.nnue`
/// format of [`xiangqi_nnue::net`].
pub const EMBEDDED_NET: &[u8] = include_bytes!("../nets/default.nnue");

/// The embedded network, read once.
pub fn embedded_net() -> Arc<xiangqi_nnue::QuantisedNet> {
    static NET: std::sync::OnceLock<Arc<xiangqi_nnue::QuantisedNet>> = std::sync::OnceLock::new();
    NET.get_or_init(|| {
        // The same bytes are checked by the engine's tests, so this cannot fail in a build
        // that passed them.
        Arc::new(
            xiangqi_nnue::QuantisedNet::from_bytes(EMBEDDED_NET, "the embedded network")
                .expect("the embedded network is a valid .nnue file"),
        )
    })
    .clone()
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
        let mut engine = Engine {
            tt: Arc::new(TranspositionTable::new(options.hash_mb)),
            options,
            start: Position::new(),
            root: Position::new(),
            history: Vec::new(),
            game: Vec::new(),
            banned: Vec::new(),
            root_frame: Frame::default(),
            rules: Rules::default(),
            running: None,
            rng: Rng::new(seed),
            net: embedded_net(),
            book: None,
            tb: None,
            histories: Arc::new(Mutex::new(Vec::new())),
        };
        engine.set_game(&Game::default());
        engine
    }

    pub fn options(&self) -> &Options {
        &self.options
    }

    /// Seeds the random choices of reduced strength levels and of book moves (for
    /// reproducible tests).
    pub fn set_seed(&mut self, seed: u64) {
        self.rng = Rng::new(seed);
    }

    /// Sets an option by its UCI name (case-insensitive; UCCI's names are accepted too), with
    /// the kinds and ranges of [`OPTIONS`]. `Hash` and `Clear Hash` stop a running search
    /// first (its best move is still reported).
    pub fn set_option(&mut self, name: &str, value: &str) -> Result<(), String> {
        let spec = find_option(name).ok_or_else(|| format!("no such option '{}'", name.trim()))?;
        match (spec.id, spec.parse(value)?) {
            (OptionId::Hash, OptionValue::Spin(n)) => {
                let mb = n as usize;
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
            (OptionId::ClearHash, _) => {
                self.stop();
                self.wait();
                self.tt.clear();
            }
            (OptionId::EvalFile, OptionValue::String(path)) => {
                if path.is_empty() || path == "<empty>" {
                    self.set_network(embedded_net());
                    self.options.eval_file.clear();
                } else {
                    let net = xiangqi_nnue::QuantisedNet::load(std::path::Path::new(&path))
                        .map_err(|e| format!("EvalFile: {e}"))?;
                    self.set_network(Arc::new(net));
                    self.options.eval_file = path;
                }
            }
            (OptionId::BookFile, OptionValue::String(path)) => {
                if path.is_empty() || path == "<empty>" {
                    self.book = None;
                    self.options.book_file.clear();
                } else if path == "<openings>" {
                    // The book that ships: the named openings' lines (docs/EXPLORER.md).
                    self.book = Some(Arc::new(xiangqi_explorer::book::openings_book()));
                    self.options.book_file = path;
                } else {
                    // A bad file is refused with the reason and the book in use stays.
                    let book = Book::load(std::path::Path::new(&path))
                        .map_err(|e| format!("BookFile: {e}"))?;
                    self.book = Some(Arc::new(book));
                    self.options.book_file = path;
                }
            }
            (OptionId::TbPath, OptionValue::String(path)) => {
                if path.is_empty() || path == "<empty>" {
                    self.tb = None;
                    self.options.tb_path.clear();
                } else {
                    // A folder that is not there is refused and the tables in use stay.
                    let tb = Tablebase::open_paths(&path).map_err(|e| format!("TbPath: {e}"))?;
                    self.tb = Some(Arc::new(tb));
                    self.options.tb_path = path;
                }
            }
            (id, OptionValue::Spin(n)) => self.options.set_spin(id, n),
            (OptionId::UseNnue, OptionValue::Check(b)) => {
                if b != self.options.use_nnue {
                    // Hash entries keep static evaluations of the other evaluation.
                    self.stop();
                    self.wait();
                    self.tt.clear();
                    self.options.use_nnue = b;
                }
            }
            (id, OptionValue::Check(b)) => self.options.set_check(id, b),
            (_, OptionValue::Button) | (_, OptionValue::String(_)) => {}
        }
        Ok(())
    }

    /// Forgets what was learnt in the last game (the hash table and the move-ordering
    /// histories); stops a running search.
    pub fn new_game(&mut self) {
        self.stop();
        self.wait();
        self.tt.clear();
        self.forget_histories();
        self.banned.clear();
    }

    /// Forgets the search threads' move-ordering histories.
    fn forget_histories(&self) {
        kept_histories(&self.histories).clear();
    }

    /// Sets the game: a start position and the moves played from it. Every move must be legal.
    pub fn set_position(&mut self, start: Position, moves: &[Move]) -> Result<(), PositionError> {
        let mut game = Game::with_rules(start, self.rules);
        for (i, &m) in moves.iter().enumerate() {
            if game.push(m).is_err() {
                return Err(PositionError(format!(
                    "move {} ({m}) is not legal in {}",
                    i + 1,
                    game.position().fen()
                )));
            }
        }
        self.set_game(&game);
        Ok(())
    }

    /// Parses and sets a position as the UCI `position` command gives it: a FEN (`None`
    /// for the start position) and coordinate moves.
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
        let game =
            Game::replay(start, self.rules, moves).map_err(|e| PositionError(e.to_string()))?;
        self.set_game(&game);
        Ok(())
    }

    /// Sets the game from the rules core's record of it: the root, the positions since the
    /// last capture (for repetition rulings) and the move-limit count.
    fn set_game(&mut self, game: &Game) {
        let h = game.history();
        let n = h.len();
        let root = h.position().clone();
        // Only positions since the last capture can repeat.
        let keep = n.min(root.halfmoves() as usize);
        let mut history = Vec::with_capacity(keep);
        let mut positions = Vec::with_capacity(keep);
        for ply in n - keep..n {
            let pos = h.position_at(ply);
            history.push(Frame {
                key: pos.key(),
                checked: pos.is_check(),
                window: pos.halfmoves(),
                mv: h.move_at(ply),
                // The move-limit count matters from the root on only.
                ..Frame::default()
            });
            positions.push(pos.clone());
        }
        self.root_frame = Frame {
            key: root.key(),
            checked: root.is_check(),
            window: root.halfmoves(),
            mv: h.move_at(n),
            counted: h.move_limit_count(),
            checks: [
                h.checks_since_capture(Color::Red),
                h.checks_since_capture(Color::Black),
            ],
        };
        self.start = h.start().clone();
        self.root = root;
        self.history = history;
        self.game = positions;
        self.banned.clear();
    }

    /// The rules the search follows (the move limit, the chase rule).
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// Changes the rules the search follows from the next search on: the move limit and
    /// the chase rule. (`repetitions` does not apply: inside its tree the search rules on a
    /// position's first repetition, as engines do.)
    pub fn set_rules(&mut self, rules: Rules) {
        self.rules = rules;
    }

    /// The network's evaluation of the root (centipawns, side to move), whether or not
    /// `Use NNUE` is on.
    pub fn nnue_evaluation(&self) -> i32 {
        self.net.evaluate(self.root.board(), self.root.turn())
    }

    /// Evaluates with `net` from now on (what `EvalFile` does with the net it loaded);
    /// clears the hash table, whose entries keep static evaluations of the old net.
    pub fn set_network(&mut self, net: Arc<xiangqi_nnue::QuantisedNet>) {
        self.stop();
        self.wait();
        self.tt.clear();
        self.net = net;
    }

    /// The network: the embedded one, or the one `EvalFile` loaded.
    pub fn network(&self) -> &Arc<xiangqi_nnue::QuantisedNet> {
        &self.net
    }

    /// Uses `book` (one already read, to share it between engines) as the `BookFile`,
    /// named `name` in the options; `None` drops the book. `OwnBook` is not changed.
    pub fn set_book(&mut self, book: Option<Arc<Book>>, name: &str) {
        self.options.book_file = if book.is_some() {
            name.to_string()
        } else {
            String::new()
        };
        self.book = book;
    }

    /// Uses `tb` (tables already opened, to share them between engines) as the `TbPath`,
    /// named `name` in the options; `None` drops them.
    pub fn set_tablebase(&mut self, tb: Option<Arc<Tablebase>>, name: &str) {
        self.options.tb_path = if tb.is_some() {
            name.to_string()
        } else {
            String::new()
        };
        self.tb = tb;
    }

    /// The tablebases in use, if any.
    pub fn tablebase(&self) -> Option<&Arc<Tablebase>> {
        self.tb.as_ref()
    }

    /// The book in use, if any.
    pub fn book(&self) -> Option<&Arc<Book>> {
        self.book.as_ref()
    }

    /// The book's moves of the root that a search with `limits` may play (none unless
    /// `OwnBook` is on and the search is not `infinite`, `ponder` or `mate`): legal moves
    /// only, not banned, within `searchmoves`.
    pub fn book_moves(&self, limits: &Limits) -> Vec<BookMove> {
        let Some(book) = self.book.as_ref() else {
            return Vec::new();
        };
        if !self.options.own_book || limits.infinite || limits.ponder || limits.mate.is_some() {
            return Vec::new();
        }
        book.probe(&self.root)
            .into_iter()
            .filter(|m| {
                !self.banned.contains(&m.mv)
                    && (limits.searchmoves.is_empty() || limits.searchmoves.contains(&m.mv))
            })
            .collect()
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
        let in_book = self.book_moves(&limits);
        if !in_book.is_empty() {
            if let Some(pick) = Book::choose(&in_book, self.rng.unit()) {
                // Answered at once, on a thread like a search's answer.
                let total: f64 = in_book.iter().map(BookMove::chance_weight).sum();
                let message = format!(
                    "book move {} weight {:.1} of {:.1} ({} games, the mover scored {:.1} %)",
                    pick.mv,
                    pick.chance_weight(),
                    total,
                    pick.games,
                    if pick.games == 0 {
                        0.0
                    } else {
                        50.0 * f64::from(pick.score) / f64::from(pick.games)
                    }
                );
                let handle = std::thread::Builder::new()
                    .name("book".into())
                    .spawn(move || {
                        callback(Event::Message(message));
                        callback(Event::BestMove {
                            best: Some(pick.mv),
                            ponder: None,
                        });
                    })
                    .expect("spawn book thread");
                self.running = Some(Running {
                    handle,
                    stop: Arc::new(AtomicBool::new(false)),
                    pondering: Arc::new(AtomicBool::new(false)),
                    clock: Arc::new(Clock::new()),
                });
                return;
            }
        }
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
            root_frame: self.root_frame,
            rules: self.rules,
            banned: self.banned.clone(),
            limits,
            options: self.options.clone(),
            tt: self.tt.clone(),
            stop: stop.clone(),
            pondering: pondering.clone(),
            clock: clock.clone(),
            skill,
            rng: Rng::new(self.rng.next_u64()),
            // Reduced strength levels keep the classical evaluation they were calibrated
            // with (docs/STRENGTH.md); full strength uses the network.
            nnue: (self.options.use_nnue && skill.is_none()).then(|| self.net.clone()),
            // Reduced strength levels play without the tables, as people do.
            tb: self.tb.clone().filter(|_| skill.is_none()),
            // Reduced strength levels start each search afresh, as they were calibrated.
            histories: skill.is_none().then(|| self.histories.clone()),
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

    /// Counts the leaves `depth` plies below the root, per root move, on its own thread like
    /// a search (so [`Engine::stop`] ends it and the caller stays free); returns at once. A
    /// search already running is stopped first. The last event is `Done` or `Stopped`.
    pub fn perft(&mut self, depth: u32, callback: PerftCallback) {
        self.stop();
        self.wait();
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let pos = self.root.clone();
        let handle = std::thread::Builder::new()
            .name("perft".into())
            .spawn(move || {
                let mut moves: Vec<Move> = pos.legal_moves().iter().copied().collect();
                moves.sort_by_key(|m| m.to_string());
                let mut total = 0;
                for (done, &m) in moves.iter().enumerate() {
                    let mut c = pos.clone();
                    c.play_unchecked(m);
                    match perft_until_stopped(&c, depth.max(1) - 1, &flag) {
                        Some(nodes) => {
                            total += nodes;
                            callback(PerftEvent::Move { mv: m, nodes });
                        }
                        None => {
                            return callback(PerftEvent::Stopped {
                                done,
                                moves: moves.len(),
                                nodes: total,
                            })
                        }
                    }
                }
                callback(PerftEvent::Done { nodes: total });
            })
            .expect("spawn perft thread");
        self.running = Some(Running {
            handle,
            stop,
            pondering: Arc::new(AtomicBool::new(false)),
            clock: Arc::new(Clock::new()),
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

    /// Searches the bench positions to `depth` with one thread and a fresh 16 MiB table,
    /// with the evaluation in use (`Use NNUE`) and otherwise the default options; the node
    /// count is the same on every run. `each` receives a line per position.
    pub fn bench(&mut self, depth: i32, each: &mut dyn FnMut(&str)) -> BenchResult {
        self.wait();
        let saved = self.options.clone();
        let saved_tt = self.tt.clone();
        // The default options, but the evaluation in use (so that `Use NNUE false` then
        // `bench` measures the classical evaluation).
        self.options = Options {
            hash_mb: 16,
            use_nnue: saved.use_nnue,
            ..Options::default()
        };
        self.tt = Arc::new(TranspositionTable::new(16));
        let mut nodes = 0;
        let start = std::time::Instant::now();
        let saved_histories = std::mem::take(&mut *kept_histories(&self.histories));
        for (i, (fen, moves)) in bench::POSITIONS.iter().enumerate() {
            // Each position is searched from nothing learnt, so the signature is the same
            // whatever was searched before.
            self.tt.clear();
            self.forget_histories();
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
        *kept_histories(&self.histories) = saved_histories;
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
    root_frame: Frame,
    rules: Rules,
    banned: Vec<Move>,
    limits: Limits,
    options: Options,
    tt: Arc<TranspositionTable>,
    stop: Arc<AtomicBool>,
    pondering: Arc<AtomicBool>,
    clock: Arc<Clock>,
    skill: Option<Skill>,
    rng: Rng,
    /// The network, when `Use NNUE` is on.
    nnue: Option<Arc<xiangqi_nnue::QuantisedNet>>,
    /// The tablebases, at full strength when `TbPath` names some.
    tb: Option<Arc<Tablebase>>,
    /// The engine's kept histories, at full strength.
    histories: Option<Arc<Mutex<Vec<search::Histories>>>>,
}

/// Of the root's `moves`, those after which the game's repetition ruling decides at once
/// (the position's `rules.repetitions`-th occurrence since the last capture, as the rules
/// core's `Game` rules it), from the game's positions and moves before the root.
fn ruled_at_once(
    root: &Position,
    history: &[Frame],
    game: &[Position],
    root_frame: Frame,
    rules: Rules,
    moves: &[Move],
) -> Vec<Move> {
    let Some(first) = game.first() else {
        return Vec::new();
    };
    let mut h = xiangqi::adjudicate::History::new(first.clone());
    let mut played = history.iter().skip(1).map(|f| f.mv).chain([root_frame.mv]);
    if !played.all(|m| m.is_some_and(|m| h.push(m).is_none())) || h.position().key() != root.key() {
        // A capture or an unknown move (only positions since the last capture are kept).
        return Vec::new();
    }
    moves
        .iter()
        .copied()
        .filter(|&m| {
            let mut after = h.clone();
            after.push(m);
            after
                .repetition_verdict(rules.repetitions, rules.chase_rule)
                .is_some()
        })
        .collect()
}

/// Runs a search to the end (including waiting for `stop`/`ponderhit` when pondering or
/// searching infinitely) and returns the best and ponder moves.
fn run(job: Job, callback: &(dyn Fn(Event) + Send + Sync)) -> (Option<Move>, Option<Move>) {
    let Job {
        root,
        history,
        game,
        root_frame,
        rules,
        banned,
        limits,
        options,
        tt,
        stop,
        pondering,
        clock,
        skill,
        mut rng,
        nnue,
        tb,
        histories: kept,
    } = job;
    let mut moves: Vec<Move> = root.legal_moves().iter().copied().collect();
    if !limits.searchmoves.is_empty() {
        moves.retain(|m| limits.searchmoves.contains(m));
    }
    moves.retain(|m| !banned.contains(m));
    let mut tbhits = 0;
    // The root's moves are the tables' to rank (`root_probe`) only where its material has
    // one and `TbProbeRoot` is on; the search reads the same answer (`Shared`).
    let root_has_table = options.tb_probe_root && tb.as_ref().is_some_and(|tb| tb.covers(&root));
    if let Some(tb) = tb.as_ref().filter(|_| root_has_table) {
        let limit = rules
            .move_limit
            .map(|l| l.saturating_sub(root_frame.counted));
        // A move whose position the game's repetition ruling decides at once is not the
        // tables' to keep or cut (they know nothing of the game's history): it stays, and the
        // search, which rules on the same repetition a ply on, weighs it. Else a cut keeping
        // only such moves (a fastest mate that repeats the game's perpetual check) would play
        // into the ruling.
        let ruled = ruled_at_once(&root, &history, &game, root_frame, rules, &moves);
        let mut cut: Vec<Move> = moves
            .iter()
            .copied()
            .filter(|m| !ruled.contains(m))
            .collect();
        if let Some(r) = search::root_probe(tb, &root, &mut cut, limit) {
            tbhits = r.probes;
            let mut message = r.message;
            if !ruled.is_empty() {
                message.push_str(&format!(
                    "; {} more decided by the repetition ruling at once: {}",
                    ruled.len(),
                    ruled
                        .iter()
                        .map(|m| m.to_string())
                        .collect::<Vec<_>>()
                        .join(" ")
                ));
            }
            callback(Event::Message(message));
            cut.extend(ruled);
            moves = cut;
        }
    }
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
            tbhits: 0,
            time_ms: 0,
            pv: vec![],
            wdl: options.show_wdl.then(|| wdl::wdl(score, root.board())),
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
        rules,
        nnue,
        show_wdl: options.show_wdl,
        tb_probe_depth: options.tb_probe_depth,
        root_has_table,
        tb,
        tbhits: AtomicU64::new(tbhits),
    };
    // Each thread's histories from the game's last search (or new ones).
    let mut learnt: Vec<search::Histories> = kept
        .as_ref()
        .map(|k| std::mem::take(&mut *kept_histories(k)))
        .unwrap_or_default();
    learnt.truncate(options.threads);
    learnt.resize_with(options.threads, search::Histories::new);
    let mut learnt = learnt.into_iter();
    let main_histories = learnt.next().expect("one thread at least");
    let (root_moves, learnt) = std::thread::scope(|s| {
        let helpers: Vec<_> = learnt
            .enumerate()
            .map(|(i, h)| {
                let (shared, root, history, game, moves) =
                    (&shared, root.clone(), &history, &game, moves.clone());
                std::thread::Builder::new()
                    .stack_size(64 * 1024 * 1024)
                    .spawn_scoped(s, move || {
                        let mut w =
                            Worker::new(i + 1, shared, root, history, game, root_frame, moves, h);
                        w.iterate(&mut |_, _| {});
                        w.into_histories()
                    })
                    .expect("spawn helper thread")
            })
            .collect();
        let mut main = Worker::new(
            0,
            &shared,
            root.clone(),
            &history,
            &game,
            root_frame,
            moves.clone(),
            main_histories,
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
        let root_moves = main.root_moves.clone();
        let mut learnt = vec![main.into_histories()];
        // A helper that panicked has learnt nothing worth keeping.
        learnt.extend(helpers.into_iter().filter_map(|h| h.join().ok()));
        (root_moves, learnt)
    });
    if let Some(k) = &kept {
        *kept_histories(k) = learnt;
    }
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
