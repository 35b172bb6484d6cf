//! Xiangqi endgame tablebases: for every position of a small piece set, whether the side to
//! move wins, draws or loses, and the distance to mate in plies (DTM), generated here from
//! the rules core's move generation (docs/TABLEBASES.md).
//!
//! ```no_run
//! use xiangqi::Position;
//! use xiangqi_tb::{Tablebase, Value};
//! let tb = Tablebase::open("tables").unwrap();
//! let pos = Position::from_fen("4k4/9/9/9/9/9/9/9/4R4/3K5 w - - 0 1").unwrap();
//! match tb.probe(&pos).unwrap() {
//!     Value::Win(dtm) => println!("win, mate in {dtm} plies"),
//!     Value::Draw => println!("draw"),
//!     Value::Loss(dtm) => println!("loss, mated in {dtm} plies"),
//! }
//! ```

#![forbid(unsafe_code)]

pub mod file;
pub mod generate;
pub mod index;
pub mod material;
pub mod retro;
pub mod verify;

use core::fmt;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use xiangqi::{Move, Position};

pub use file::{BlockCache, TableFile};
pub use generate::{generate, solve_parity_game, solve_rule_game, Generated, Stats};
pub use index::Indexer;
pub use material::{Material, MaterialError};
pub use retro::generate_lean;
pub use verify::{verify_set, VerifyOptions, VerifyReport};

/// A position's value for the side to move.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Value {
    /// The side to move mates in this many plies (odd).
    Win(u16),
    /// Neither side can force mate.
    Draw,
    /// The side to move is mated in this many plies (even; 0: mated or stalemated now).
    Loss(u16),
}

/// The byte of an illegal position (no position has this index).
pub const ILLEGAL: u8 = 255;
/// The byte of a position drawn when repetition is a draw and won by the side to move under
/// the Asian perpetual-check rule (format 2; docs/TABLEBASES.md).
pub const WIN_BY_RULE: u8 = 253;
/// The byte of a position drawn when repetition is a draw and lost by the side to move under
/// the perpetual-check rule (format 2).
pub const LOSS_BY_RULE: u8 = 254;
/// The largest DTM a byte holds.
pub const MAX_DTM: u16 = 251;

impl Value {
    /// The value from its byte: 0 draw, `dtm + 1` otherwise (odd DTM a win, even a loss),
    /// `None` for [`ILLEGAL`]. The standard result, repetition a draw: [`WIN_BY_RULE`] and
    /// [`LOSS_BY_RULE`] are draws here ([`RuleValue`] tells them apart).
    pub fn from_byte(b: u8) -> Option<Value> {
        match b {
            0 | WIN_BY_RULE | LOSS_BY_RULE => Some(Value::Draw),
            ILLEGAL => None,
            b => {
                let dtm = b as u16 - 1;
                Some(if dtm % 2 == 1 {
                    Value::Win(dtm)
                } else {
                    Value::Loss(dtm)
                })
            }
        }
    }
    /// The byte of a value (DTM at most [`MAX_DTM`]).
    pub fn to_byte(self) -> u8 {
        match self {
            Value::Draw => 0,
            Value::Win(d) | Value::Loss(d) => {
                debug_assert!(d <= MAX_DTM);
                d as u8 + 1
            }
        }
    }
    /// lichess's word for it: `win`, `draw` or `loss`.
    pub fn category(self) -> &'static str {
        match self {
            Value::Win(_) => "win",
            Value::Draw => "draw",
            Value::Loss(_) => "loss",
        }
    }
    /// The DTM in plies (`None` for a draw).
    pub fn dtm(self) -> Option<u16> {
        match self {
            Value::Win(d) | Value::Loss(d) => Some(d),
            Value::Draw => None,
        }
    }
    /// The value of the position before a move that reaches a position of this value.
    pub fn parent(self) -> Value {
        match self {
            Value::Win(d) => Value::Loss(d + 1),
            Value::Draw => Value::Draw,
            Value::Loss(d) => Value::Win(d + 1),
        }
    }
    /// An order for the side to move: higher is better (a faster win, a slower loss).
    pub fn rank(self) -> i32 {
        match self {
            Value::Win(d) => 1000 - d as i32,
            Value::Draw => 0,
            Value::Loss(d) => -1000 + d as i32,
        }
    }
}

/// A position's value for the side to move under the Asian rules on perpetual check: a
/// side that can avoid mate only by checking on every move forever (while the other side
/// does not) loses. Wins and losses by mate are the standard ones; a standard draw may be
/// won or lost by the rule (DTM unknown: the tables keep only the category).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum RuleValue {
    /// The side to move mates in this many plies (odd), as [`Value::Win`].
    Win(u16),
    /// Drawn if repetition were a draw; the side to move wins by the perpetual-check rule.
    WinByRule,
    /// Neither side can force mate or a win by the rule.
    Draw,
    /// Drawn if repetition were a draw; the side to move loses by the perpetual-check rule.
    LossByRule,
    /// The side to move is mated in this many plies (even), as [`Value::Loss`].
    Loss(u16),
}

impl RuleValue {
    /// The value from its byte (`None` for [`ILLEGAL`]).
    pub fn from_byte(b: u8) -> Option<RuleValue> {
        Some(match b {
            WIN_BY_RULE => RuleValue::WinByRule,
            LOSS_BY_RULE => RuleValue::LossByRule,
            b => RuleValue::from(Value::from_byte(b)?),
        })
    }
    /// The standard value: repetition a draw.
    pub fn standard(self) -> Value {
        match self {
            RuleValue::Win(d) => Value::Win(d),
            RuleValue::Loss(d) => Value::Loss(d),
            _ => Value::Draw,
        }
    }
    /// `win`, `win-by-rule`, `draw`, `loss-by-rule` or `loss` (the last two words as lichess's
    /// `cursed-win` and `blessed-loss` name a result that a rule changes).
    pub fn category(self) -> &'static str {
        match self {
            RuleValue::Win(_) => "win",
            RuleValue::WinByRule => "win-by-rule",
            RuleValue::Draw => "draw",
            RuleValue::LossByRule => "loss-by-rule",
            RuleValue::Loss(_) => "loss",
        }
    }
    /// The DTM in plies (`None` for a draw and for the results by rule).
    pub fn dtm(self) -> Option<u16> {
        self.standard().dtm()
    }
    /// The value of the position before a move that reaches a position of this value.
    pub fn parent(self) -> RuleValue {
        match self {
            RuleValue::Win(d) => RuleValue::Loss(d + 1),
            RuleValue::WinByRule => RuleValue::LossByRule,
            RuleValue::Draw => RuleValue::Draw,
            RuleValue::LossByRule => RuleValue::WinByRule,
            RuleValue::Loss(d) => RuleValue::Win(d + 1),
        }
    }
    /// An order for the side to move: higher is better (a win by mate before a win by rule,
    /// a loss by rule before a loss by mate).
    pub fn rank(self) -> i32 {
        match self {
            RuleValue::WinByRule => 500,
            RuleValue::LossByRule => -500,
            v => v.standard().rank(),
        }
    }
}

impl From<Value> for RuleValue {
    fn from(v: Value) -> RuleValue {
        match v {
            Value::Win(d) => RuleValue::Win(d),
            Value::Draw => RuleValue::Draw,
            Value::Loss(d) => RuleValue::Loss(d),
        }
    }
}

/// Why a probe or a generation failed.
#[derive(Debug)]
pub enum TbError {
    /// A piece-set name that is not one.
    BadName(MaterialError),
    /// The position's material has no table in the folder.
    Missing { set: String, path: PathBuf },
    /// A table file that cannot be read or is not a table.
    Damaged { path: PathBuf, why: String },
    /// A file that cannot be written or read.
    Io { path: PathBuf, err: std::io::Error },
    /// A set too large for this generator or format.
    TooLarge { set: String, why: String },
    /// A table of format 1, made before the perpetual-check rule: it has the standard
    /// results only.
    NoRuleResults { path: PathBuf },
}

impl fmt::Display for TbError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TbError::BadName(e) => write!(f, "{e}"),
            TbError::Missing { set, path } => {
                write!(f, "no table for {set}: {} does not exist", path.display())
            }
            TbError::Damaged { path, why } => write!(f, "{}: damaged table: {why}", path.display()),
            TbError::Io { path, err } => write!(f, "{}: {err}", path.display()),
            TbError::TooLarge { set, why } => write!(f, "{set}: {why}"),
            TbError::NoRuleResults { path } => write!(
                f,
                "{}: a format 1 table, without the perpetual-check rule's results (generate it again)",
                path.display()
            ),
        }
    }
}

impl std::error::Error for TbError {}

impl From<MaterialError> for TbError {
    fn from(e: MaterialError) -> TbError {
        TbError::BadName(e)
    }
}

/// The file name of a set's table: `KRKAA.xqtb`.
pub fn file_name(m: &Material) -> String {
    format!("{}.xqtb", m.canonical())
}

/// Whatever gives the value of a table's index: a table in memory while generating, a file
/// when probing.
pub trait Source: Send + Sync {
    fn indexer(&self) -> &Indexer;
    fn byte(&self, idx: u64) -> Result<u8, TbError>;
    /// Whether the bytes hold the perpetual-check rule's results (format 2), else `Err`
    /// naming the table.
    fn rule_results(&self) -> Result<(), TbError> {
        Ok(())
    }
}

/// A table in memory: its indexer and values.
pub struct MemTable {
    pub indexer: Indexer,
    pub values: Vec<u8>,
}

impl Source for MemTable {
    fn indexer(&self) -> &Indexer {
        &self.indexer
    }
    fn byte(&self, idx: u64) -> Result<u8, TbError> {
        Ok(self.values[idx as usize])
    }
}

/// The value of a position without attackers on either side: a loss if the side to move
/// has no legal move (that comes first in the rules), else a draw by insufficient material.
pub fn bare_value(pos: &Position) -> Value {
    if pos.has_no_legal_move() {
        Value::Loss(0)
    } else {
        Value::Draw
    }
}

/// The value of `pos` from the table `get` gives for its canonical material.
pub fn value_in<F>(pos: &Position, get: F) -> Result<Value, TbError>
where
    F: FnOnce(&Material) -> Result<Arc<dyn Source>, TbError>,
{
    let m = Material::of_board(pos.board());
    if !m.any_attacker() {
        return Ok(bare_value(pos));
    }
    byte_in(pos, get).map(|b| Value::from_byte(b).expect("checked legal"))
}

/// The value of `pos` under the perpetual-check rule from the table `get` gives (which
/// must be of format 2).
pub fn rule_value_in<F>(pos: &Position, get: F) -> Result<RuleValue, TbError>
where
    F: FnOnce(&Material) -> Result<Arc<dyn Source>, TbError>,
{
    let m = Material::of_board(pos.board());
    if !m.any_attacker() {
        // No attacker on either side: nobody can check, and the rules draw it at once.
        return Ok(bare_value(pos).into());
    }
    let mut checked = Ok(());
    let b = byte_in(pos, |m| {
        let src = get(m)?;
        checked = src.rule_results();
        Ok(src)
    })?;
    checked?;
    Ok(RuleValue::from_byte(b).expect("checked legal"))
}

/// `pos` as its table sees it: the canonical material of its pieces and, when that puts
/// Black's pieces first, the position with colours swapped and the board turned (`None`
/// when the position is its table's as it stands).
pub fn orient(pos: &Position) -> (Material, Option<Position>) {
    let m = Material::of_board(pos.board());
    if m.needs_swap() {
        (m.swapped(), Some(pos.swap_colors()))
    } else {
        (m, None)
    }
}

/// The byte of `pos` (which has an attacker) in the table `get` gives, checked not illegal.
pub fn byte_in<F>(pos: &Position, get: F) -> Result<u8, TbError>
where
    F: FnOnce(&Material) -> Result<Arc<dyn Source>, TbError>,
{
    let (m, swapped) = orient(pos);
    let pos = swapped.as_ref().unwrap_or(pos);
    let src = get(&m)?;
    let idx = src.indexer().index(pos);
    let b = src.byte(idx)?;
    if b == ILLEGAL {
        return Err(TbError::Damaged {
            path: PathBuf::from(file_name(&m)),
            why: format!("the legal position {} is marked illegal", pos.fen()),
        });
    }
    Ok(b)
}

/// One or more folders of table files, opened as probes need them. The folders are listed
/// when opened (the sets found are [`Tablebase::sets`]); a table's file is read on its
/// first probe.
pub struct Tablebase {
    dirs: Vec<PathBuf>,
    /// The canonical sets whose files the folders hold (the first folder's file wins).
    files: HashMap<Material, PathBuf>,
    tables: Mutex<HashMap<Material, Arc<TableFile>>>,
    /// The inflated blocks of all its tables.
    cache: Arc<BlockCache>,
}

/// The inflated values a [`Tablebase`] keeps for its tables, 128 MiB (2,048 blocks): enough
/// that a search inside a set of 1.8 × 10⁸ positions seldom inflates (docs/TABLEBASES.md,
/// "Speed"). Memory grows to it only as blocks are used.
pub const DEFAULT_CACHE_BYTES: usize = 128 << 20;

impl Tablebase {
    /// The tables in `dir` (which must be a folder).
    pub fn open(dir: impl AsRef<Path>) -> Result<Tablebase, TbError> {
        Self::open_dirs(&[dir.as_ref().to_path_buf()])
    }

    /// The tables of several folders, listed as Stockfish's `SyzygyPath` lists them: separated
    /// by `:` (`;` on Windows); empty entries are skipped. Every folder must exist.
    pub fn open_paths(list: &str) -> Result<Tablebase, TbError> {
        let dirs: Vec<PathBuf> = std::env::split_paths(list.trim())
            .filter(|p| !p.as_os_str().is_empty())
            .collect();
        if dirs.is_empty() {
            return Err(TbError::Io {
                path: PathBuf::from(list),
                err: std::io::Error::new(std::io::ErrorKind::NotFound, "no folder named"),
            });
        }
        Self::open_dirs(&dirs)
    }

    /// The tables of the folders `dirs`, the first folder's file first when two hold a set.
    pub fn open_dirs(dirs: &[PathBuf]) -> Result<Tablebase, TbError> {
        let mut files = HashMap::new();
        for dir in dirs {
            if !dir.is_dir() {
                return Err(TbError::Io {
                    err: std::io::Error::new(std::io::ErrorKind::NotFound, "no such folder"),
                    path: dir.clone(),
                });
            }
            let entries = std::fs::read_dir(dir).map_err(|err| TbError::Io {
                path: dir.clone(),
                err,
            })?;
            for e in entries.flatten() {
                let name = e.file_name();
                let Some(set) = name.to_str().and_then(|n| n.strip_suffix(".xqtb")) else {
                    continue;
                };
                if let Ok(m) = Material::parse(set) {
                    if m.canonical() == m && m.any_attacker() {
                        files.entry(m).or_insert_with(|| e.path());
                    }
                }
            }
        }
        Ok(Tablebase {
            dirs: dirs.to_vec(),
            files,
            tables: Mutex::new(HashMap::new()),
            cache: Arc::new(BlockCache::new(DEFAULT_CACHE_BYTES)),
        })
    }

    /// The same tables keeping at most `bytes` of inflated values (at least one block)
    /// instead of [`DEFAULT_CACHE_BYTES`]; for a tablebase not yet probed.
    pub fn with_cache_bytes(mut self, bytes: usize) -> Tablebase {
        self.cache = Arc::new(BlockCache::new(bytes));
        self.tables = Mutex::new(HashMap::new());
        self
    }

    /// The blocks of inflated values the tables keep at most, and hold now.
    pub fn cache_blocks(&self) -> (usize, usize) {
        (self.cache.capacity(), self.cache.len())
    }

    /// The folders, in the order they are searched.
    pub fn dirs(&self) -> &[PathBuf] {
        &self.dirs
    }

    /// The sets whose files were found when the folders were opened, by name.
    pub fn sets(&self) -> Vec<Material> {
        let mut v: Vec<Material> = self.files.keys().copied().collect();
        v.sort_by_key(|m| m.to_string());
        v
    }

    /// The file holding a canonical set's table, as found when the folders were opened.
    pub fn file(&self, m: &Material) -> Option<&Path> {
        self.files.get(m).map(PathBuf::as_path)
    }

    /// The largest number of pieces (generals included) of a set found.
    pub fn max_pieces(&self) -> u32 {
        self.files.keys().map(Material::pieces).max().unwrap_or(0)
    }

    /// Whether the position's material has a table among those found when opened (or needs
    /// none: no attacker on either side), so that [`Tablebase::probe`] answers without
    /// looking at the folders again. Cheap: what a search asks before probing.
    pub fn covers(&self, pos: &Position) -> bool {
        let m = Material::of_board(pos.board());
        !m.any_attacker() || self.files.contains_key(&m.canonical())
    }

    /// The table of a canonical material, opened on first use.
    pub fn table(&self, m: &Material) -> Result<Arc<TableFile>, TbError> {
        let mut t = self.tables.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(f) = t.get(m) {
            return Ok(f.clone());
        }
        // A file made after the folders were listed is found too.
        let path = match self.files.get(m) {
            Some(p) => p.clone(),
            None => {
                let candidates: Vec<PathBuf> =
                    self.dirs.iter().map(|d| d.join(file_name(m))).collect();
                match candidates.iter().find(|p| p.exists()) {
                    Some(p) => p.clone(),
                    None => {
                        return Err(TbError::Missing {
                            set: m.to_string(),
                            path: candidates[0].clone(),
                        })
                    }
                }
            }
        };
        let f = Arc::new(TableFile::open_cached(&path, self.cache.clone())?);
        if f.material() != m {
            return Err(TbError::Damaged {
                path,
                why: format!("it holds {}, not {m}", f.material()),
            });
        }
        t.insert(*m, f.clone());
        Ok(f)
    }

    /// The value of a position for the side to move.
    pub fn probe(&self, pos: &Position) -> Result<Value, TbError> {
        value_in(pos, |m| Ok(self.table(m)? as Arc<dyn Source>))
    }

    /// The value of a position for the side to move under the perpetual-check rule (an
    /// error for a table of format 1, which lacks it).
    pub fn probe_rules(&self, pos: &Position) -> Result<RuleValue, TbError> {
        rule_value_in(pos, |m| Ok(self.table(m)? as Arc<dyn Source>))
    }

    /// Every legal move with the value under the perpetual-check rule of the position it
    /// reaches (for the side to move there), best for the side to move first.
    pub fn probe_moves_rules(&self, pos: &Position) -> Result<Vec<(Move, RuleValue)>, TbError> {
        let mut out = Vec::new();
        for &m in pos.legal_moves().iter() {
            let mut child = pos.clone();
            child.play_unchecked(m);
            out.push((m, self.probe_rules(&child)?));
        }
        out.sort_by_key(|&(m, v)| (-v.parent().rank(), m.to_string()));
        Ok(out)
    }

    /// Every legal move with the value of the position it reaches (for the side to move
    /// there, as lichess gives it), best for the side to move first.
    pub fn probe_moves(&self, pos: &Position) -> Result<Vec<(Move, Value)>, TbError> {
        let mut out = Vec::new();
        for &m in pos.legal_moves().iter() {
            let mut child = pos.clone();
            child.play_unchecked(m);
            out.push((m, self.probe(&child)?));
        }
        out.sort_by_key(|&(m, v)| (-v.parent().rank(), m.to_string()));
        Ok(out)
    }
}

/// What [`build`] did for one set.
#[derive(Clone, Debug)]
pub struct Built {
    pub material: Material,
    /// `None` when the file was there already (and checked), so not generated again.
    pub stats: Option<Stats>,
    pub bytes: u64,
    pub path: PathBuf,
}

/// How a set's table is generated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// Value iteration over a move graph kept in memory ([`generate()`]): about 8 bytes an
    /// index and 4 a move.
    Graph,
    /// Retrograde analysis with an unmove generator and no graph ([`generate_lean`]):
    /// about 2 bytes an index. The same table, slower.
    Lean,
    /// The graph while its estimated memory fits the budget, else the lean method.
    Auto,
}

/// What [`build_with`] is told.
#[derive(Clone, Copy, Debug)]
pub struct BuildOptions {
    pub threads: usize,
    pub method: Method,
    /// The memory budget of [`Method::Auto`], in bytes.
    pub memory: u64,
}

impl Default for BuildOptions {
    fn default() -> BuildOptions {
        BuildOptions {
            threads: 2,
            method: Method::Auto,
            memory: DEFAULT_MEMORY_MB << 20,
        }
    }
}

/// The default memory budget of [`Method::Auto`], in MB.
pub const DEFAULT_MEMORY_MB: u64 = 4096;

/// Generates the sets named (and the smaller sets their captures lead to, first) into
/// `dir`, skipping sets whose file is already there and sound: an interrupted run resumes
/// at the set it was generating. The method is [`Method::Auto`] with the default budget.
pub fn build(
    names: &[String],
    dir: &Path,
    threads: usize,
    progress: &mut dyn FnMut(&str),
) -> Result<Vec<Built>, TbError> {
    let opts = BuildOptions {
        threads,
        ..BuildOptions::default()
    };
    build_with(names, dir, &opts, progress)
}

/// [`build`] with a method and a memory budget.
pub fn build_with(
    names: &[String],
    dir: &Path,
    opts: &BuildOptions,
    progress: &mut dyn FnMut(&str),
) -> Result<Vec<Built>, TbError> {
    let threads = opts.threads;
    let mut order: Vec<Material> = Vec::new();
    for n in names {
        let m = Material::parse(n)?.canonical();
        if !m.any_attacker() {
            return Err(TbError::BadName(MaterialError(format!(
                "{n}: a set without a chariot, horse, cannon or soldier is drawn by rule and \
                 needs no table"
            ))));
        }
        for d in generate::dependencies(&m).into_iter().chain([m]) {
            if !order.contains(&d) {
                order.push(d);
            }
        }
    }
    std::fs::create_dir_all(dir).map_err(|err| TbError::Io {
        path: dir.to_path_buf(),
        err,
    })?;
    let mut tables: HashMap<Material, Arc<dyn Source>> = HashMap::new();
    let mut out = Vec::new();
    for m in order {
        let path = dir.join(file_name(&m));
        let old = if path.exists() {
            let f = TableFile::open(&path)?;
            if f.version < 2 {
                // Its captures' values would lack the rule: made again.
                progress(&format!(
                    "{m}: {} is of format 1, without the perpetual-check rule: generating it again",
                    path.display()
                ));
                None
            } else {
                Some(f)
            }
        } else {
            None
        };
        let (values, stats, bytes) = if let Some(f) = old {
            let v = f.values()?;
            progress(&format!(
                "{m}: {} is there already, checked",
                path.display()
            ));
            (v, None, std::fs::metadata(&path).map_or(0, |md| md.len()))
        } else {
            let graph = generate::memory_estimate(&Indexer::new(m));
            let lean = match opts.method {
                Method::Graph => false,
                Method::Lean => true,
                Method::Auto => graph > opts.memory,
            };
            progress(&format!(
                "{m}: the {} method (the graph's estimated memory {} MB, budget {} MB)",
                if lean { "lean" } else { "graph" },
                graph >> 20,
                opts.memory >> 20
            ));
            let g = if lean {
                generate_lean(m, &tables, threads, progress)?
            } else {
                generate(m, &tables, threads, progress)?
            };
            let bytes = file::write(&path, &m, &g.values, &g.stats)?;
            progress(&format!("{m}: wrote {} ({bytes} bytes)", path.display()));
            (g.values, Some(g.stats), bytes)
        };
        tables.insert(
            m,
            Arc::new(MemTable {
                indexer: Indexer::new(m),
                values,
            }),
        );
        out.push(Built {
            material: m,
            stats,
            bytes,
            path,
        });
    }
    Ok(out)
}
