//! The index file: its tables, adding games, and looking a position up.
//!
//! Tables (redb):
//! - `moves`: entry key -> `MoveStats` (44 bytes). An entry key is a database prefix, the
//!   position's 16-byte key and the stored move (2 bytes, big-endian), so a position's moves
//!   are one range: masters `[0]`, site `[1, speed, band]`, player
//!   `[2, name hash (8 bytes), colour]`.
//! - `games`: game id -> its `GameMeta` (the header a top game is shown with).
//! - `seen`: a game's fingerprint (its start, moves and result, and its players' names and
//!   date, as a 128-bit FNV-1a hash) -> its id, so a game added twice counts once.
//! - `meta`: the format version, the ply limit the file was made with, the next game id.

use std::collections::HashMap;
use std::fmt;
use std::path::Path;

use redb::{Database, ReadableDatabase, ReadableTable, TableDefinition};
use xiangqi::{Color, Move, Position};

use crate::key::{fnv1a64, KeyWalk, Keyed, PositionKey, FNV_OFFSET};
use crate::stats::{GameRef, MoveStats, Outcome};

const MOVES: TableDefinition<&[u8], &[u8]> = TableDefinition::new("moves");
const GAMES: TableDefinition<u64, &[u8]> = TableDefinition::new("games");
const SEEN: TableDefinition<u128, u64> = TableDefinition::new("seen");
const META: TableDefinition<&str, u64> = TableDefinition::new("meta");

/// The index format's version (`meta.version`); a file of another version is refused.
const VERSION: u64 = 1;

/// The lower bounds of the site database's rating bands (a game's band is its players'
/// mean rating), as lichess's explorer has them.
pub const RATING_BANDS: [u16; 9] = [0, 1000, 1200, 1400, 1600, 1800, 2000, 2200, 2500];

/// The speeds of the site database, by the names the server's `rating::Speed` has (the
/// server converts by name: the explorer is below the server and cannot import it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Speed {
    Bullet,
    Blitz,
    Rapid,
    Classical,
    Correspondence,
}

impl Speed {
    pub const ALL: [Speed; 5] = [
        Speed::Bullet,
        Speed::Blitz,
        Speed::Rapid,
        Speed::Classical,
        Speed::Correspondence,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Speed::Bullet => "bullet",
            Speed::Blitz => "blitz",
            Speed::Rapid => "rapid",
            Speed::Classical => "classical",
            Speed::Correspondence => "correspondence",
        }
    }

    pub fn parse(s: &str) -> Option<Speed> {
        Speed::ALL.into_iter().find(|x| x.as_str() == s)
    }

    fn code(self) -> u8 {
        self as u8
    }
}

/// The band index of a mean rating.
fn band_of(rating: u16) -> u8 {
    RATING_BANDS.iter().rposition(|&b| rating >= b).unwrap_or(0) as u8
}

/// What went wrong: the file (opening, a damaged or foreign file) or a game given to add.
#[derive(Debug)]
pub enum Error {
    /// The storage failed (I/O, a damaged file).
    Storage(String),
    /// The file is an index of another version or was made with other options.
    Incompatible(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Storage(e) => write!(f, "the explorer index: {e}"),
            Error::Incompatible(e) => write!(f, "the explorer index: {e}"),
        }
    }
}

impl std::error::Error for Error {}

macro_rules! storage_errors {
    ($($t:ty),*) => {$(
        impl From<$t> for Error {
            fn from(e: $t) -> Error {
                Error::Storage(e.to_string())
            }
        }
    )*};
}
storage_errors!(
    redb::CursorError,
    std::io::Error,
    redb::DatabaseError,
    redb::TransactionError,
    redb::TableError,
    redb::StorageError,
    redb::CommitError
);

/// How an index is made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// Moves past this ply of a game are not indexed (lichess indexes 50).
    pub max_ply: u16,
}

impl Default for Options {
    fn default() -> Options {
        Options { max_ply: 50 }
    }
}

/// A game's header as the explorer shows a top or recent game.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct GameMeta {
    pub red: String,
    pub black: String,
    pub red_rating: Option<u16>,
    pub black_rating: Option<u16>,
    pub outcome: Option<Outcome>,
    /// `yyyymmdd`, or 0 when not known (a month or day not known is 00).
    pub date: u32,
    pub event: String,
    /// Where the game is: a site game's id, or a record's file and number.
    pub source: String,
}

impl GameMeta {
    /// The players' mean rating when both are known, else the one known, else 0.
    pub fn rating(&self) -> u16 {
        match (self.red_rating, self.black_rating) {
            (Some(a), Some(b)) => ((u32::from(a) + u32::from(b)) / 2) as u16,
            (Some(a), None) | (None, Some(a)) => a,
            (None, None) => 0,
        }
    }

    fn encode(&self) -> Vec<u8> {
        let mut b = Vec::with_capacity(64);
        for s in [&self.red, &self.black, &self.event, &self.source] {
            b.extend_from_slice(&(s.len() as u32).to_le_bytes());
            b.extend_from_slice(s.as_bytes());
        }
        for r in [self.red_rating, self.black_rating] {
            b.extend_from_slice(&r.map_or(0u32, |r| u32::from(r) + 1).to_le_bytes());
        }
        b.push(match self.outcome {
            None => 0,
            Some(Outcome::RedWins) => 1,
            Some(Outcome::Draw) => 2,
            Some(Outcome::BlackWins) => 3,
        });
        b.extend_from_slice(&self.date.to_le_bytes());
        b
    }

    fn decode(mut b: &[u8]) -> Option<GameMeta> {
        fn take<'a>(b: &mut &'a [u8], n: usize) -> Option<&'a [u8]> {
            let (h, t) = (b.get(..n)?, b.get(n..)?);
            *b = t;
            Some(h)
        }
        fn u32_of(b: &mut &[u8]) -> Option<u32> {
            Some(u32::from_le_bytes(take(b, 4)?.try_into().ok()?))
        }
        let mut text = || -> Option<String> {
            let n = u32_of(&mut b)? as usize;
            String::from_utf8(take(&mut b, n)?.to_vec()).ok()
        };
        let (red, black, event, source) = (text()?, text()?, text()?, text()?);
        let rating = |v: u32| (v > 0).then(|| (v - 1) as u16);
        let red_rating = rating(u32_of(&mut b)?);
        let black_rating = rating(u32_of(&mut b)?);
        let outcome = match take(&mut b, 1)?[0] {
            0 => None,
            1 => Some(Outcome::RedWins),
            2 => Some(Outcome::Draw),
            3 => Some(Outcome::BlackWins),
            _ => return None,
        };
        let date = u32_of(&mut b)?;
        Some(GameMeta {
            red,
            black,
            red_rating,
            black_rating,
            outcome,
            date,
            event,
            source,
        })
    }
}

/// Which databases a game goes into.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// The masters database (an operator's records).
    Masters,
    /// The site database, under its speed and its rating band; and the player database of
    /// each seat held by an account (`None`: a guest).
    Site {
        speed: Speed,
        accounts: [Option<String>; 2],
    },
}

/// A game to add: its header, start, main line, and databases.
#[derive(Clone, Debug)]
pub struct NewGame {
    pub meta: GameMeta,
    pub start: Position,
    pub moves: Vec<Move>,
    pub target: Target,
}

/// What an `add` did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Added {
    /// Games indexed.
    pub games: u64,
    /// Games already in the index (or twice in the batch), not counted again.
    pub duplicates: u64,
    /// Games without a result (not indexed: the explorer counts results).
    pub unfinished: u64,
    /// Games whose moves stop being legal; indexed up to the last legal move.
    pub cut: u64,
    /// (position, move) counts added.
    pub entries: u64,
}

impl std::ops::AddAssign for Added {
    fn add_assign(&mut self, o: Added) {
        self.games += o.games;
        self.duplicates += o.duplicates;
        self.unfinished += o.unfinished;
        self.cut += o.cut;
        self.entries += o.entries;
    }
}

/// Which database a lookup reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Db {
    Masters,
    /// The site's games of these speeds and rating bands (indices into `RATING_BANDS`);
    /// empty lists mean all.
    Site {
        speeds: Vec<Speed>,
        bands: Vec<u8>,
    },
    /// One account's games as `color`.
    Player {
        name: String,
        color: Color,
    },
}

/// One move of a looked-up position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveAnswer {
    /// The move, in the looked-up position's orientation.
    pub mv: Move,
    pub stats: MoveStats,
}

/// A looked-up position: its totals and its moves, most played first.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Answer {
    pub total: MoveStats,
    pub moves: Vec<MoveAnswer>,
}

impl Answer {
    /// The highest-rated games of the position (one per move, at most `n`), best first.
    pub fn top_games(&self, n: usize) -> Vec<(Move, GameRef)> {
        self.games_by(n, |m| m.top, |g| (u32::from(g.rating), g.date, g.id))
    }

    /// The most recent games of the position (one per move, at most `n`), newest first.
    pub fn recent_games(&self, n: usize) -> Vec<(Move, GameRef)> {
        self.games_by(n, |m| m.recent, |g| (g.date, 0, g.id))
    }

    /// One game per move (`pick`), the `n` greatest by `rank` first.
    fn games_by(
        &self,
        n: usize,
        pick: impl Fn(&MoveStats) -> GameRef,
        rank: impl Fn(&GameRef) -> (u32, u32, u64),
    ) -> Vec<(Move, GameRef)> {
        let mut v: Vec<(Move, GameRef)> = self
            .moves
            .iter()
            .map(|m| (m.mv, pick(&m.stats)))
            .filter(|(_, g)| g.id != 0)
            .collect();
        v.sort_by_key(|(_, g)| std::cmp::Reverse(rank(g)));
        v.truncate(n);
        v
    }
}

/// An entry key: up to 28 bytes (the longest, a player entry), kept inline.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct EntryKey {
    len: u8,
    bytes: [u8; 28],
}

impl EntryKey {
    fn new(prefix: &[u8], pos: &PositionKey, mv: Option<Move>) -> EntryKey {
        let mut k = EntryKey {
            len: 0,
            bytes: [0; 28],
        };
        k.push(prefix);
        k.push(&pos.0);
        if let Some(m) = mv {
            k.push(&m.to_u16().to_be_bytes());
        }
        k
    }
    fn push(&mut self, b: &[u8]) {
        let at = self.len as usize;
        self.bytes[at..at + b.len()].copy_from_slice(b);
        self.len += b.len() as u8;
    }
    fn as_slice(&self) -> &[u8] {
        &self.bytes[..self.len as usize]
    }
    /// Two numbers that order as the key's bytes do (compared faster): the bytes padded with
    /// zeros (as they are stored), then the length, big-endian.
    #[inline]
    fn order(&self) -> (u128, u128) {
        let mut hi = [0u8; 16];
        hi.copy_from_slice(&self.bytes[..16]);
        let mut lo = [0u8; 16];
        lo[..12].copy_from_slice(&self.bytes[16..]);
        lo[15] = self.len;
        (u128::from_be_bytes(hi), u128::from_be_bytes(lo))
    }
}

/// FNV-1a, 64 bits, of a player's name (case and surrounding space ignored).
fn name_hash(name: &str) -> [u8; 8] {
    fnv1a64(FNV_OFFSET, name.trim().to_lowercase().as_bytes()).to_be_bytes()
}

fn color_code(c: Color) -> u8 {
    match c {
        Color::Red => 0,
        Color::Black => 1,
    }
}

/// The prefixes a game's entries go under.
fn prefixes(g: &NewGame) -> Vec<Vec<u8>> {
    match &g.target {
        Target::Masters => vec![vec![0]],
        Target::Site { speed, accounts } => {
            let mut v = vec![vec![1, speed.code(), band_of(g.meta.rating())]];
            for (name, color) in accounts.iter().zip([Color::Red, Color::Black]) {
                if let Some(name) = name {
                    let mut p = vec![2];
                    p.extend_from_slice(&name_hash(name));
                    p.push(color_code(color));
                    v.push(p);
                }
            }
            v
        }
    }
}

/// A game's identity: start, moves, result, and the players' names and date.
fn fingerprint(g: &NewGame) -> u128 {
    let mut h: u128 = 0x6c62_272e_07bb_0142_62b8_2175_6295_c58d;
    let mut eat = |bytes: &[u8]| {
        for &b in bytes {
            h ^= u128::from(b);
            h = h.wrapping_mul(0x0000_0000_0100_0000_0000_0000_0000_013b);
        }
    };
    eat(&g.start.key().to_le_bytes());
    for m in &g.moves {
        eat(&m.to_u16().to_le_bytes());
    }
    eat(&[g.meta.outcome.map_or(0, |o| o as u8 + 1)]);
    for name in [&g.meta.red, &g.meta.black] {
        eat(name.trim().to_lowercase().as_bytes());
        eat(&[0]);
    }
    eat(&g.meta.date.to_le_bytes());
    h
}

/// A batch of games keyed: every entry it adds to with the batch's summed counts, in the
/// entries' key order (as bytes), each entry once.
pub struct KeyedBatch {
    entries: Vec<(EntryKey, MoveStats)>,
    /// Games whose moves stop being legal (keyed up to the last legal move).
    pub cut: u64,
}

impl KeyedBatch {
    /// How many entries the batch adds to.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entries as the index stores them: the key's bytes and the counts to add.
    pub fn entries(&self) -> impl Iterator<Item = (&[u8], &MoveStats)> {
        self.entries.iter().map(|(k, s)| (k.as_slice(), s))
    }
}

/// Keys `games` (each with its id in the index): every (position, move) of a game's main
/// line up to `max_ply` plies under each database prefix it goes into, the counts summed per
/// entry. Done on two threads when the batch is large enough (the result does not depend on
/// it: the entries are sorted and summed, and `MoveStats::add` picks the top and recent game
/// by rating, date and id whatever the order).
pub fn key_games(games: &[(u64, &NewGame)], max_ply: u16) -> KeyedBatch {
    key_games_with(games, max_ply, Moves::Check)
}

/// Whether the keying checks that each move is legal before it plays it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Moves {
    /// A game is keyed up to its first illegal move (counted as cut).
    Check,
    /// Every move was played legally already (by a record reader): not checked again.
    Legal,
}

/// [`key_games`], the moves checked or not.
fn key_games_with(games: &[(u64, &NewGame)], max_ply: u16, moves: Moves) -> KeyedBatch {
    let threads = if games.len() >= 512 {
        std::thread::available_parallelism().map_or(1, |n| n.get().min(2))
    } else {
        1
    };
    let chunk = games.len().div_ceil(threads).max(1);
    let mut parts: Vec<(Vec<(EntryKey, MoveStats)>, u64)> = if threads == 1 {
        vec![key_chunk(games, max_ply, moves)]
    } else {
        std::thread::scope(|s| {
            let handles: Vec<_> = games
                .chunks(chunk)
                .map(|c| s.spawn(move || key_chunk(c, max_ply, moves)))
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("keying a batch does not panic"))
                .collect()
        })
    };
    let cut = parts.iter().map(|p| p.1).sum();
    let entries = if parts.len() == 1 {
        parts.pop().map(|p| p.0).unwrap_or_default()
    } else {
        merge_sorted(parts.into_iter().map(|p| p.0).collect())
    };
    KeyedBatch { entries, cut }
}

/// Sorts `v` by key and sums the counts of equal keys.
fn sort_and_sum(mut v: Vec<(EntryKey, MoveStats)>) -> Vec<(EntryKey, MoveStats)> {
    v.sort_unstable_by_key(|e| e.0.order());
    let mut out: Vec<(EntryKey, MoveStats)> = Vec::with_capacity(v.len());
    for (k, s) in v {
        match out.last_mut() {
            Some(last) if last.0 == k => last.1.add(&s),
            _ => out.push((k, s)),
        }
    }
    out
}

/// Merges lists sorted by `sort_and_sum` into one, summing equal keys (a stable sort of
/// sorted runs is a merge).
fn merge_sorted(lists: Vec<Vec<(EntryKey, MoveStats)>>) -> Vec<(EntryKey, MoveStats)> {
    let mut all: Vec<(EntryKey, MoveStats)> = Vec::with_capacity(lists.iter().map(Vec::len).sum());
    for l in lists {
        all.extend(l);
    }
    all.sort_by_key(|e| e.0.order());
    let mut out: Vec<(EntryKey, MoveStats)> = Vec::with_capacity(all.len());
    for (k, s) in all {
        match out.last_mut() {
            Some(last) if last.0 == k => last.1.add(&s),
            _ => out.push((k, s)),
        }
    }
    out
}

/// One thread's share of [`key_games`]: its sorted, summed entries and its cut games.
fn key_chunk(
    games: &[(u64, &NewGame)],
    max_ply: u16,
    moves: Moves,
) -> (Vec<(EntryKey, MoveStats)>, u64) {
    let mut cut = 0;
    let mut v: Vec<(EntryKey, MoveStats)> =
        Vec::with_capacity(games.len() * usize::from(max_ply.min(64)));
    for &(id, g) in games {
        let Some(outcome) = g.meta.outcome else {
            continue;
        };
        let one = MoveStats::one(
            outcome,
            GameRef {
                id,
                rating: g.meta.rating(),
                date: g.meta.date,
            },
        );
        let prefixes = prefixes(g);
        let mut walk = KeyWalk::new(&g.start);
        for (ply, &m) in g.moves.iter().enumerate() {
            if ply >= usize::from(max_ply) {
                break;
            }
            if moves == Moves::Check && !walk.position().is_legal(m) {
                cut += 1;
                break;
            }
            let k = walk.keyed();
            let stored_move = k.store(m);
            for p in &prefixes {
                v.push((EntryKey::new(p, &k.key, Some(stored_move)), one));
            }
            walk.play(m);
        }
    }
    (sort_and_sum(v), cut)
}

/// Games to key, each with its id in the index.
type Fresh<'g> = Vec<(u64, &'g NewGame)>;

/// Numbers the games of `games` new to the index (a finished game not seen before) and
/// stores their headers and fingerprints in `tx`, in order: the games to key, with their ids.
fn register<'g>(
    tx: &redb::WriteTransaction,
    games: &'g [NewGame],
) -> Result<(Fresh<'g>, Added), Error> {
    let mut added = Added::default();
    let mut meta = tx.open_table(META)?;
    let mut next_id = meta.get("next_id")?.map_or(1, |v| v.value());
    let mut seen = tx.open_table(SEEN)?;
    let mut stored = tx.open_table(GAMES)?;
    let mut fresh: Fresh<'g> = Vec::with_capacity(games.len());
    for g in games {
        if g.meta.outcome.is_none() {
            added.unfinished += 1;
            continue;
        }
        let fp = fingerprint(g);
        if seen.get(fp)?.is_some() {
            added.duplicates += 1;
            continue;
        }
        let id = next_id;
        next_id += 1;
        seen.insert(fp, id)?;
        stored.insert(id, g.meta.encode().as_slice())?;
        added.games += 1;
        fresh.push((id, g));
    }
    meta.insert("next_id", next_id)?;
    Ok((fresh, added))
}

/// A build from nothing: batches of games are numbered and stored as [`Explorer::add`] does,
/// but their keyed entries are kept as sorted runs in files beside the index (not merged into
/// it batch by batch); [`finish`](BulkLoad::finish) merges the runs, summing equal keys, and
/// writes the entries into the empty table in key order with a cursor (no reads, full
/// leaves), then commits everything at once. The index then holds exactly what adding the
/// same batches one by one makes (`MoveStats::add` does not depend on the order), but in one
/// transaction: a build stopped before `finish` leaves the index as it was (empty), and the
/// runs are removed.
pub struct BulkLoad<'a> {
    ex: &'a Explorer,
    tx: Option<redb::WriteTransaction>,
    runs: Vec<std::path::PathBuf>,
    added: Added,
}

/// A run's record: the key's length, the key, the counts (`STATS_LEN` bytes).
fn write_run(path: &Path, entries: &[(EntryKey, MoveStats)]) -> Result<(), Error> {
    use std::io::Write;
    let mut w = std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(path)?);
    for (k, s) in entries {
        w.write_all(&[k.len])?;
        w.write_all(k.as_slice())?;
        w.write_all(&s.encode())?;
    }
    w.flush()?;
    Ok(())
}

/// A sorted run read back, one entry ahead.
struct RunReader {
    r: std::io::BufReader<std::fs::File>,
    head: Option<(EntryKey, MoveStats)>,
}

impl RunReader {
    fn open(path: &Path) -> Result<RunReader, Error> {
        let r = std::io::BufReader::with_capacity(1 << 20, std::fs::File::open(path)?);
        let mut run = RunReader { r, head: None };
        run.advance()?;
        Ok(run)
    }

    fn advance(&mut self) -> Result<(), Error> {
        use std::io::Read;
        let mut len = [0u8; 1];
        match self.r.read_exact(&mut len) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
                self.head = None;
                return Ok(());
            }
            Err(e) => return Err(e.into()),
        }
        let mut k = EntryKey {
            len: len[0],
            bytes: [0; 28],
        };
        let n = usize::from(len[0]);
        if n > k.bytes.len() {
            return Err(Error::Storage("a damaged bulk-load run".into()));
        }
        self.r.read_exact(&mut k.bytes[..n])?;
        let mut v = [0u8; crate::stats::STATS_LEN];
        self.r.read_exact(&mut v)?;
        let s = MoveStats::decode(&v).ok_or_else(|| Error::Storage("a damaged run".into()))?;
        self.head = Some((k, s));
        Ok(())
    }
}

impl BulkLoad<'_> {
    /// Numbers and stores `games` (as [`Explorer::add`]), keys them and keeps their entries
    /// as a sorted run; nothing is committed until [`finish`](BulkLoad::finish).
    pub fn add(&mut self, games: &[NewGame]) -> Result<Added, Error> {
        self.add_with(games, Moves::Check)
    }

    /// [`add`](BulkLoad::add) for games whose every move was played legally already, as a
    /// record reader plays them (`xiangqi_record`'s readers refuse or cut a game at an
    /// illegal move): their moves are not checked again. A move that is not legal there
    /// makes wrong entries (or a panic), never a cut game.
    pub fn add_legal(&mut self, games: &[NewGame]) -> Result<Added, Error> {
        self.add_with(games, Moves::Legal)
    }

    fn add_with(&mut self, games: &[NewGame], moves: Moves) -> Result<Added, Error> {
        let tx = self.tx.as_ref().expect("a bulk load is open until finish");
        let (fresh, mut added) = register(tx, games)?;
        let batch = key_games_with(&fresh, self.ex.options.max_ply, moves);
        added.cut = batch.cut;
        added.entries = batch.entries.len() as u64;
        if !batch.entries.is_empty() {
            let run = self
                .ex
                .path
                .with_extension(format!("run-{}", self.runs.len()));
            self.runs.push(run.clone());
            write_run(&run, &batch.entries)?;
        }
        self.added += added;
        Ok(added)
    }

    /// Merges the runs into the empty table in key order and commits. What was added in all
    /// (`entries`: the batches' entries, before the runs were summed together).
    ///
    /// The runs are merged on a thread of their own, which hands the summed entries, encoded,
    /// in batches to this one, which writes them into the table: the merge and the B-tree's
    /// writing overlap.
    pub fn finish(mut self) -> Result<Added, Error> {
        let tx = self.tx.take().expect("a bulk load is open until finish");
        {
            let readers = self
                .runs
                .iter()
                .map(|p| RunReader::open(p))
                .collect::<Result<Vec<_>, _>>()?;
            let mut moves = tx.open_table(MOVES)?;
            let mut cursor = moves.upper_bound_mut(std::ops::Bound::<&[u8]>::Unbounded)?;
            let (send, merged) = std::sync::mpsc::sync_channel::<Vec<Merged>>(4);
            std::thread::scope(|s| -> Result<(), Error> {
                let merger = s.spawn(move || merge_runs(readers, &send));
                // On an error here `merged` is dropped, and the merger stops at its next send.
                for batch in merged {
                    for (k, v) in &batch {
                        cursor.insert_before(k.as_slice(), v.as_slice())?;
                    }
                }
                merger.join().expect("merging the runs does not panic")
            })?;
            cursor.close()?;
        }
        tx.commit()?;
        Ok(self.added)
    }
}

/// A merged entry: its key and its summed counts, encoded.
type Merged = (EntryKey, [u8; crate::stats::STATS_LEN]);

/// Entries handed from the merge to the writing at a time.
const MERGED_BATCH: usize = 4096;

/// Merges sorted runs into `out` in key order, summing equal keys, in batches. Stops early
/// (without an error) when the receiving side is gone.
fn merge_runs(
    mut readers: Vec<RunReader>,
    out: &std::sync::mpsc::SyncSender<Vec<Merged>>,
) -> Result<(), Error> {
    // The smallest key first: a min-heap on the key's order (as its bytes), then the run.
    type Head = std::cmp::Reverse<((u128, u128), usize)>;
    let head = |k: &EntryKey, i: usize| -> Head { std::cmp::Reverse((k.order(), i)) };
    let mut heap: std::collections::BinaryHeap<Head> = readers
        .iter()
        .enumerate()
        .filter_map(|(i, r)| r.head.as_ref().map(|(k, _)| head(k, i)))
        .collect();
    let mut batch: Vec<Merged> = Vec::with_capacity(MERGED_BATCH);
    let mut pending: Option<(EntryKey, MoveStats)> = None;
    while let Some(std::cmp::Reverse((_, i))) = heap.pop() {
        let (k, s) = readers[i].head.expect("a run in the heap has a head");
        readers[i].advance()?;
        if let Some((next, _)) = &readers[i].head {
            heap.push(head(next, i));
        }
        match &mut pending {
            Some((pk, ps)) if *pk == k => ps.add(&s),
            _ => {
                if let Some((pk, ps)) = pending.replace((k, s)) {
                    batch.push((pk, ps.encode()));
                    if batch.len() == MERGED_BATCH {
                        let full = std::mem::replace(&mut batch, Vec::with_capacity(MERGED_BATCH));
                        if out.send(full).is_err() {
                            return Ok(());
                        }
                    }
                }
            }
        }
    }
    if let Some((pk, ps)) = pending {
        batch.push((pk, ps.encode()));
    }
    let _ = out.send(batch);
    Ok(())
}

impl Drop for BulkLoad<'_> {
    fn drop(&mut self) {
        for r in &self.runs {
            let _ = std::fs::remove_file(r);
        }
    }
}

/// An opening explorer index in one file.
pub struct Explorer {
    db: Database,
    options: Options,
    /// The file, whose folder holds a bulk load's sorted runs while it lasts.
    path: std::path::PathBuf,
}

impl Explorer {
    /// Opens the index at `path`, making it when missing with `options`. An index made with
    /// another ply limit, or of another format version, is refused.
    pub fn open(path: &Path, options: Options) -> Result<Explorer, Error> {
        Explorer::setup(Database::create(path)?, path, Some(options))
    }

    /// Opens an existing index with the options it was made with.
    pub fn open_existing(path: &Path) -> Result<Explorer, Error> {
        if !path.exists() {
            return Err(Error::Storage(format!("{} does not exist", path.display())));
        }
        Explorer::setup(Database::open(path)?, path, None)
    }

    /// Checks (or, for a new file and `wanted` options, writes) the file's version and ply
    /// limit, and makes the tables.
    fn setup(db: Database, path: &Path, wanted: Option<Options>) -> Result<Explorer, Error> {
        let tx = db.begin_write()?;
        let options;
        {
            let mut meta = tx.open_table(META)?;
            let version = meta.get("version")?.map(|v| v.value());
            match (version, wanted) {
                (None, Some(o)) => {
                    meta.insert("version", VERSION)?;
                    meta.insert("max_ply", u64::from(o.max_ply))?;
                    meta.insert("next_id", 1)?;
                    options = o;
                }
                (None, None) => {
                    return Err(Error::Incompatible(format!(
                        "{} is not an explorer index",
                        path.display()
                    )))
                }
                (Some(VERSION), _) => {
                    let ply = meta.get("max_ply")?.map_or(0, |v| v.value());
                    if let Some(o) = wanted.filter(|o| u64::from(o.max_ply) != ply) {
                        return Err(Error::Incompatible(format!(
                            "{} was made with a ply limit of {ply}, not {}",
                            path.display(),
                            o.max_ply
                        )));
                    }
                    options = Options {
                        max_ply: ply as u16,
                    };
                }
                (Some(v), _) => {
                    return Err(Error::Incompatible(format!(
                        "{} is of format version {v}; this program reads version {VERSION}",
                        path.display()
                    )))
                }
            }
            tx.open_table(MOVES)?;
            tx.open_table(GAMES)?;
            tx.open_table(SEEN)?;
        }
        tx.commit()?;
        Ok(Explorer {
            db,
            options,
            path: path.to_path_buf(),
        })
    }

    pub fn options(&self) -> Options {
        self.options
    }

    /// Adds `games` in one transaction: all of them or, on a storage error, none.
    ///
    /// The games new to the index are numbered and their headers stored first (in order),
    /// then their moves are keyed on up to two threads ([`key_games`]) and the batch's summed
    /// counts are merged into the stored entries in key order.
    pub fn add(&self, games: &[NewGame]) -> Result<Added, Error> {
        self.add_marked(games, None)
    }

    /// [`add`](Explorer::add) for games whose every move was played legally already (see
    /// [`BulkLoad::add_legal`]): their moves are not checked again.
    pub fn add_legal(&self, games: &[NewGame]) -> Result<Added, Error> {
        self.add_with(games, None, Moves::Legal)
    }

    /// Like [`add`](Explorer::add), and sets the mark `name` to `value` in the same
    /// transaction (see [`mark`](Explorer::mark)): a reader that records how far it has read
    /// its source with the games it added never loses a game to a crash between the two.
    pub fn add_marked(&self, games: &[NewGame], mark: Option<(&str, u64)>) -> Result<Added, Error> {
        self.add_with(games, mark, Moves::Check)
    }

    fn add_with(
        &self,
        games: &[NewGame],
        mark: Option<(&str, u64)>,
        moves: Moves,
    ) -> Result<Added, Error> {
        let tx = self.db.begin_write()?;
        if let Some((name, value)) = mark {
            tx.open_table(META)?
                .insert(format!("mark:{name}").as_str(), value)?;
        }
        let (fresh, mut added) = register(&tx, games)?;
        let batch = key_games_with(&fresh, self.options.max_ply, moves);
        added.cut = batch.cut;
        added.entries = batch.entries.len() as u64;
        {
            let mut moves = tx.open_table(MOVES)?;
            for (k, delta) in &batch.entries {
                let mut s = match moves.get(k.as_slice())? {
                    Some(v) => MoveStats::decode(v.value()).ok_or_else(|| {
                        Error::Storage("a damaged entry (not 44 bytes)".to_string())
                    })?,
                    None => MoveStats::default(),
                };
                s.add(delta);
                moves.insert(k.as_slice(), s.encode().as_slice())?;
            }
        }
        tx.commit()?;
        Ok(added)
    }

    /// The value of mark `name`, set by [`add_marked`](Explorer::add_marked), if it was ever
    /// set: e.g. how far the server's site database has read the games ended in its store.
    pub fn mark(&self, name: &str) -> Result<Option<u64>, Error> {
        let tx = self.db.begin_read()?;
        let meta = tx.open_table(META)?;
        let v = meta
            .get(format!("mark:{name}").as_str())?
            .map(|v| v.value());
        Ok(v)
    }

    /// Whether the index holds no entries (a build from nothing may then use [`BulkLoad`]).
    pub fn is_empty(&self) -> Result<bool, Error> {
        use redb::ReadableTableMetadata;
        let tx = self.db.begin_read()?;
        Ok(tx.open_table(MOVES)?.is_empty()?)
    }

    /// Starts a bulk load into this index, which must hold no entries yet: the games of every
    /// [`BulkLoad::add`] go in at [`BulkLoad::finish`] in one transaction, their entries
    /// written in key order without reading any (see [`BulkLoad`]).
    pub fn bulk_load(&self) -> Result<BulkLoad<'_>, Error> {
        if !self.is_empty()? {
            return Err(Error::Incompatible(format!(
                "{} already holds entries: a bulk load is for a new index",
                self.path.display()
            )));
        }
        Ok(BulkLoad {
            ex: self,
            tx: Some(self.db.begin_write()?),
            runs: Vec::new(),
            added: Added::default(),
        })
    }

    /// The moves of `pos` in `db`.
    pub fn lookup(&self, db: &Db, pos: &Position) -> Result<Answer, Error> {
        let k = Keyed::of(pos);
        let prefixes: Vec<Vec<u8>> = match db {
            Db::Masters => vec![vec![0]],
            Db::Site { speeds, bands } => {
                let speeds = if speeds.is_empty() {
                    Speed::ALL.to_vec()
                } else {
                    speeds.clone()
                };
                let bands: Vec<u8> = if bands.is_empty() {
                    (0..RATING_BANDS.len() as u8).collect()
                } else {
                    bands.clone()
                };
                speeds
                    .iter()
                    .flat_map(|s| bands.iter().map(move |&b| vec![1, s.code(), b]))
                    .collect()
            }
            Db::Player { name, color } => {
                let mut p = vec![2];
                p.extend_from_slice(&name_hash(name));
                p.push(color_code(*color));
                vec![p]
            }
        };
        let tx = self.db.begin_read()?;
        let table = tx.open_table(MOVES)?;
        let mut by_move: HashMap<u16, MoveStats> = HashMap::new();
        for p in &prefixes {
            let from = EntryKey::new(p, &k.key, None);
            let mut lo = from;
            lo.push(&[0, 0]);
            let mut hi = from;
            hi.push(&[0xff, 0xff]);
            for r in table.range(lo.as_slice()..=hi.as_slice())? {
                let (key, value) = r?;
                let key = key.value();
                let mv = u16::from_be_bytes([key[key.len() - 2], key[key.len() - 1]]);
                let s = MoveStats::decode(value.value())
                    .ok_or_else(|| Error::Storage("a damaged entry (not 44 bytes)".into()))?;
                by_move.entry(mv).or_default().add(&s);
            }
        }
        let mut answer = Answer::default();
        for (mv, stats) in by_move {
            let Some(stored) = Move::from_u16(mv) else {
                return Err(Error::Storage(format!("a damaged move {mv:#06x}")));
            };
            let mv = k.load(stored);
            if !pos.is_legal(mv) {
                // Only a 128-bit key collision could bring a move of another position.
                continue;
            }
            answer.total.add(&stats);
            answer.moves.push(MoveAnswer { mv, stats });
        }
        answer.moves.sort_by(|a, b| {
            b.stats
                .games()
                .cmp(&a.stats.games())
                .then(a.mv.to_u16().cmp(&b.mv.to_u16()))
        });
        Ok(answer)
    }

    /// The header of game `id`.
    pub fn game(&self, id: u64) -> Result<Option<GameMeta>, Error> {
        let tx = self.db.begin_read()?;
        let t = tx.open_table(GAMES)?;
        let answer = match t.get(id)? {
            None => Ok(None),
            Some(v) => GameMeta::decode(v.value())
                .map(Some)
                .ok_or_else(|| Error::Storage(format!("game {id}'s header is damaged"))),
        };
        answer
    }

    /// How many games and entries the index holds.
    pub fn counts(&self) -> Result<(u64, u64), Error> {
        use redb::ReadableTableMetadata;
        let tx = self.db.begin_read()?;
        Ok((tx.open_table(GAMES)?.len()?, tx.open_table(MOVES)?.len()?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_header_round_trips() {
        let m = GameMeta {
            red: "许银川".into(),
            black: "吕钦".into(),
            red_rating: Some(2650),
            black_rating: None,
            outcome: Some(Outcome::Draw),
            date: 19_990_300,
            event: "全国个人赛".into(),
            source: "a.pgn#3".into(),
        };
        assert_eq!(GameMeta::decode(&m.encode()), Some(m.clone()));
        assert_eq!(m.rating(), 2650);
        assert_eq!(GameMeta::decode(&m.encode()[..5]), None);
    }

    #[test]
    fn entry_keys_order_as_their_bytes() {
        // Keys of every length the index makes (and their bare position prefixes), with bytes
        // that share prefixes and zeros, compared both ways.
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut byte = || {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            [0u8, 1, 2, 0xff, (seed >> 56) as u8][(seed >> 33) as usize % 5]
        };
        let mut keys = Vec::new();
        for _ in 0..3000 {
            let prefix: Vec<u8> = match byte() % 3 {
                0 => vec![0],
                1 => vec![1, byte(), byte()],
                _ => (0..10).map(|_| byte()).collect(),
            };
            let pos = PositionKey(std::array::from_fn(|_| byte()));
            let mv = Move::from_u16(u16::from_be_bytes([byte() & 0x7f, byte()]));
            keys.push(EntryKey::new(&prefix, &pos, mv));
            keys.push(EntryKey::new(&prefix, &pos, None));
        }
        for a in &keys {
            for b in keys.iter().step_by(7) {
                assert_eq!(a.order().cmp(&b.order()), a.as_slice().cmp(b.as_slice()));
            }
        }
    }

    #[test]
    fn bands() {
        assert_eq!(band_of(0), 0);
        assert_eq!(band_of(999), 0);
        assert_eq!(band_of(1000), 1);
        assert_eq!(band_of(1500), 3);
        assert_eq!(band_of(3000), 8);
    }
}
