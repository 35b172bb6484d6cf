//! The engine's opening book: a file of sorted fixed-size entries, as Polyglot books are, so
//! that a probe is a binary search over the file read into memory.
//!
//! Layout (docs/EXPLORER.md, "The engine's book"; all numbers big-endian):
//!
//! - a 32-byte header: the magic `XQBOOK\0\0`, the version (u32, 1), the entry size (u32,
//!   32), the entry count (u64), the ply limit and the minimum games it was made with (u16,
//!   a reserved u16, u32; for information);
//! - the entries, 32 bytes each, sorted by key then move, no two alike: the position's
//!   16-byte key ([`crate::key`]: the canonical orientation's Zobrist key and an independent
//!   64-bit hash of its board and side to move), the stored move (u16, the core's packed
//!   form, in the canonical orientation), the weight (u16; a move's chance is its weight over
//!   the sum of its position's weights), the games (u32), the mover's score in half points (u32:
//!   2 a win, 1 a draw) and a learn field (u32, 0; reserved, as Polyglot's).
//!
//! A position and its mirror share entries, as in the explorer; in a position that is its
//! own mirror (the start) an entry stands for a move and its mirror, which share its weight
//! half and half. A probe answers only moves legal in the position it is asked about, so
//! neither a key collision nor a damaged or foreign entry can bring an illegal move.

use std::fmt;
use std::path::Path;

use xiangqi::{Move, Position};

use crate::key::{Keyed, PositionKey};

/// The first 8 bytes of a book file.
pub const MAGIC: [u8; 8] = *b"XQBOOK\0\0";
/// The format version this code reads and writes.
pub const VERSION: u32 = 1;
/// The header's length in bytes.
pub const HEADER_LEN: usize = 32;
/// An entry's length in bytes.
pub const ENTRY_LEN: usize = 32;

/// One entry: a move of a position with its weight and counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    pub key: PositionKey,
    /// The move as stored (canonical orientation; see [`Keyed::store`]).
    pub mv: Move,
    pub weight: u16,
    pub games: u32,
    /// The mover's score in half points (2 a win, 1 a draw).
    pub score: u32,
    pub learn: u32,
}

impl Entry {
    /// The entry for move `mv` of `pos`.
    pub fn new(pos: &Position, mv: Move, weight: u16, games: u32, score: u32) -> Entry {
        let k = Keyed::of(pos);
        Entry {
            key: k.key,
            mv: k.store(mv),
            weight,
            games,
            score,
            learn: 0,
        }
    }

    fn sort_key(&self) -> (PositionKey, u16) {
        (self.key, self.mv.to_u16())
    }

    fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.key.0);
        out.extend_from_slice(&self.mv.to_u16().to_be_bytes());
        out.extend_from_slice(&self.weight.to_be_bytes());
        out.extend_from_slice(&self.games.to_be_bytes());
        out.extend_from_slice(&self.score.to_be_bytes());
        out.extend_from_slice(&self.learn.to_be_bytes());
    }

    /// Decodes 32 bytes; `None` if the move is not a packed move.
    fn decode(b: &[u8]) -> Option<Entry> {
        let u16_at = |i: usize| u16::from_be_bytes([b[i], b[i + 1]]);
        let u32_at = |i: usize| u32::from_be_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
        let mut key = [0u8; 16];
        key.copy_from_slice(&b[..16]);
        Some(Entry {
            key: PositionKey(key),
            mv: Move::from_u16(u16_at(16))?,
            weight: u16_at(18),
            games: u32_at(20),
            score: u32_at(24),
            learn: u32_at(28),
        })
    }
}

/// What a book says of itself: the limits it was made with.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Header {
    pub max_ply: u16,
    pub min_games: u32,
}

/// Why a book file was refused: the file's name and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BookError(pub String);

impl fmt::Display for BookError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BookError {}

/// A book move of a position, as a probe answers it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BookMove {
    /// The move, in the probed position's orientation.
    pub mv: Move,
    /// The entry's weight.
    pub weight: u16,
    /// How many moves share the entry's weight (2 for a move and its mirror in a position
    /// that is its own mirror, else 1).
    pub share: u8,
    pub games: u32,
    /// The mover's score in half points.
    pub score: u32,
}

impl BookMove {
    /// The move's part of its position's total weight.
    pub fn chance_weight(&self) -> f64 {
        f64::from(self.weight) / f64::from(self.share)
    }
}

/// Encodes a book: the header and `entries` sorted. Two entries for the same move of the
/// same position are refused.
pub fn encode(mut entries: Vec<Entry>, header: Header) -> Result<Vec<u8>, BookError> {
    entries.sort_by_key(Entry::sort_key);
    if let Some(w) = entries
        .windows(2)
        .find(|w| w[0].sort_key() == w[1].sort_key())
    {
        return Err(BookError(format!(
            "two entries for the move {} of one position",
            w[0].mv
        )));
    }
    let mut out = Vec::with_capacity(HEADER_LEN + entries.len() * ENTRY_LEN);
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&VERSION.to_be_bytes());
    out.extend_from_slice(&(ENTRY_LEN as u32).to_be_bytes());
    out.extend_from_slice(&(entries.len() as u64).to_be_bytes());
    out.extend_from_slice(&header.max_ply.to_be_bytes());
    out.extend_from_slice(&0u16.to_be_bytes());
    out.extend_from_slice(&header.min_games.to_be_bytes());
    for e in &entries {
        e.encode(&mut out);
    }
    Ok(out)
}

/// A book read into memory.
#[derive(Clone, Debug)]
pub struct Book {
    bytes: Vec<u8>,
    len: usize,
    header: Header,
}

impl Book {
    /// Reads the book file at `path`.
    pub fn load(path: &Path) -> Result<Book, BookError> {
        let name = path.display().to_string();
        let bytes =
            std::fs::read(path).map_err(|e| BookError(format!("cannot read {name}: {e}")))?;
        Book::from_bytes(bytes, &name)
    }

    /// Checks and keeps a book's bytes; `name` names it in errors. The header must agree with
    /// the length, and the entries must be sorted, distinct and hold packed moves.
    pub fn from_bytes(bytes: Vec<u8>, name: &str) -> Result<Book, BookError> {
        let bad = |what: String| Err(BookError(format!("{name}: {what}")));
        if bytes.len() < HEADER_LEN || bytes[..8] != MAGIC {
            return bad("not a book file (it does not start with XQBOOK; make one with `xiangqi explorer book`)".into());
        }
        let u32_at =
            |i: usize| u32::from_be_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]]);
        let version = u32_at(8);
        if version != VERSION {
            return bad(format!(
                "book format version {version}; this program reads version {VERSION}"
            ));
        }
        let entry_len = u32_at(12);
        if entry_len as usize != ENTRY_LEN {
            return bad(format!(
                "entries of {entry_len} bytes in the header, not {ENTRY_LEN}"
            ));
        }
        let mut count = [0u8; 8];
        count.copy_from_slice(&bytes[16..24]);
        let count = u64::from_be_bytes(count);
        let body = (bytes.len() - HEADER_LEN) as u64;
        if body % ENTRY_LEN as u64 != 0 || body / ENTRY_LEN as u64 != count {
            return bad(format!(
                "the header says {count} entries but the file holds {body} bytes after it (truncated or damaged)"
            ));
        }
        let header = Header {
            max_ply: u16::from_be_bytes([bytes[24], bytes[25]]),
            min_games: u32_at(28),
        };
        let len = count as usize;
        let book = Book { bytes, len, header };
        let mut last: Option<(PositionKey, u16)> = None;
        for i in 0..len {
            let raw = book.raw(i);
            let Some(e) = Entry::decode(raw) else {
                let mv = u16::from_be_bytes([raw[16], raw[17]]);
                return bad(format!("entry {}: {mv:#06x} is not a move", i + 1));
            };
            if e.score > e.games.saturating_mul(2) {
                return bad(format!(
                    "entry {}: a score of {} half points in {} games",
                    i + 1,
                    e.score,
                    e.games
                ));
            }
            let k = e.sort_key();
            if last.is_some_and(|l| l >= k) {
                return bad(format!(
                    "entry {} is out of order (entries are sorted by key and move, each once)",
                    i + 1
                ));
            }
            last = Some(k);
        }
        Ok(book)
    }

    fn raw(&self, i: usize) -> &[u8] {
        let at = HEADER_LEN + i * ENTRY_LEN;
        &self.bytes[at..at + ENTRY_LEN]
    }

    /// Entry `i` (0-based, in file order).
    pub fn entry(&self, i: usize) -> Entry {
        // Every entry was checked when the book was read.
        Entry::decode(self.raw(i)).expect("entries are checked on reading")
    }

    /// How many entries the book holds.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn header(&self) -> Header {
        self.header
    }

    /// All the entries, sorted.
    pub fn entries(&self) -> impl Iterator<Item = Entry> + '_ {
        (0..self.len).map(|i| self.entry(i))
    }

    /// The book's moves of `pos` that are legal there, in the entries' order.
    pub fn probe(&self, pos: &Position) -> Vec<BookMove> {
        let k = Keyed::of(pos);
        // The first entry whose key is not below the position's (binary search).
        let (mut lo, mut hi) = (0, self.len);
        while lo < hi {
            let mid = (lo + hi) / 2;
            if self.raw(mid)[..16] < k.key.0[..] {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        let mut out = Vec::new();
        for i in lo..self.len {
            let e = self.entry(i);
            if e.key != k.key {
                break;
            }
            let mv = k.load(e.mv);
            if !pos.is_legal(mv) {
                continue;
            }
            let mirror = mv.flip_horizontal();
            let pair = k.symmetric && mirror != mv && pos.is_legal(mirror);
            let share = if pair { 2 } else { 1 };
            let m = BookMove {
                mv,
                weight: e.weight,
                share,
                games: e.games,
                score: e.score,
            };
            out.push(m);
            if pair {
                out.push(BookMove { mv: mirror, ..m });
            }
        }
        out
    }

    /// Chooses one of `moves` (a probe's answer, perhaps filtered) by weight: `unit` is a
    /// uniform number in [0, 1). `None` when none has weight.
    pub fn choose(moves: &[BookMove], unit: f64) -> Option<BookMove> {
        let total: f64 = moves.iter().map(BookMove::chance_weight).sum();
        if total <= 0.0 {
            return None;
        }
        let mut x = unit.clamp(0.0, 1.0) * total;
        for m in moves.iter().filter(|m| m.weight > 0) {
            x -= m.chance_weight();
            if x < 0.0 {
                return Some(*m);
            }
        }
        moves.iter().rev().find(|m| m.weight > 0).copied()
    }
}

/// The book that ships with the program: the named openings' table (`crate::openings`, 114
/// lines of opening theory up to 12 plies, docs/EXPLORER.md "Opening names") as a book. Each
/// move of a line is an entry of the position before it; its games are the number of the
/// table's lines through it (a line that transposes into another's counts its own moves), and
/// its weight that number scaled as `explorer book` scales (the most common move of a
/// position 65535), so the main lines come most often. The table has no results: the score is
/// a draw's for every line (half the points). `BookFile <openings>`, `xiangqi serve` and
/// `xiangqi play` without `--book` (their `--no-book` turns it off).
pub fn openings_book() -> Book {
    use std::collections::HashMap;
    let table = crate::openings::openings();
    let mut counts: HashMap<(PositionKey, u16), (Entry, u32)> = HashMap::new();
    let mut max_ply = 0u16;
    for o in table.iter() {
        let mut pos = Position::new();
        for (ply, text) in o.moves.split_whitespace().enumerate() {
            // (The table's lines were checked legal when it was read.)
            let Ok(mv) = pos.parse_uci(text) else { break };
            let e = Entry::new(&pos, mv, 0, 0, 0);
            counts.entry((e.key, e.mv.to_u16())).or_insert((e, 0)).1 += 1;
            pos.play_unchecked(mv);
            max_ply = max_ply.max(ply as u16 + 1);
        }
    }
    // Weights within each position: the lines through a move over the most through any.
    let mut most: HashMap<PositionKey, u32> = HashMap::new();
    for (e, n) in counts.values() {
        let m = most.entry(e.key).or_insert(0);
        *m = (*m).max(*n);
    }
    let entries: Vec<Entry> = counts
        .into_values()
        .map(|(mut e, n)| {
            let w = f64::from(n) / f64::from(most[&e.key]) * 65535.0;
            e.weight = (w.round() as u16).max(1);
            e.games = n;
            e.score = n;
            e
        })
        .collect();
    let bytes = encode(
        entries,
        Header {
            max_ply,
            min_games: 1,
        },
    )
    .expect("one entry a move and position");
    Book::from_bytes(bytes, "<openings>").expect("the openings' book reads back")
}

#[cfg(feature = "index")]
pub use build::{build, BuildOptions, Built, Weights};

#[cfg(feature = "index")]
mod build {
    use std::collections::{HashSet, VecDeque};

    use xiangqi::{Color, Position};

    use super::{Entry, Header};
    use crate::key::{Keyed, PositionKey};
    use crate::stats::MoveStats;
    use crate::{Db, Error, Explorer};

    /// How a move's weight is made from its counts.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum Weights {
        /// games × (the mover's score + 0.1): often played and scoring well.
        Results,
        /// The games alone.
        Games,
        /// Polyglot's: 2 × the mover's wins + draws.
        Points,
    }

    impl Weights {
        pub fn parse(s: &str) -> Option<Weights> {
            match s {
                "results" => Some(Weights::Results),
                "games" => Some(Weights::Games),
                "points" => Some(Weights::Points),
                _ => None,
            }
        }
    }

    /// What goes into a book.
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub struct BuildOptions {
        /// Moves played fewer times are left out (and not followed).
        pub min_games: u32,
        /// Moves are taken from positions before this ply (from the start position).
        pub max_ply: u16,
        pub weights: Weights,
        /// Moves whose mover scored below this (0 to 1) are not played: left out of the
        /// book, though the positions after them are followed (the opponent may play them).
        pub min_score: f64,
    }

    impl Default for BuildOptions {
        fn default() -> BuildOptions {
            BuildOptions {
                min_games: 3,
                max_ply: 20,
                weights: Weights::Results,
                min_score: 0.2,
            }
        }
    }

    /// A built book's entries and what it took.
    #[derive(Clone, Debug, Default)]
    pub struct Built {
        pub entries: Vec<Entry>,
        pub header: Header,
        /// Positions looked up.
        pub positions: u64,
    }

    /// The mover's score of a move's games in half points.
    pub fn half_points(s: &MoveStats, mover: Color) -> u64 {
        let wins = match mover {
            Color::Red => s.red,
            Color::Black => s.black,
        };
        2 * u64::from(wins) + u64::from(s.draws)
    }

    /// A move's raw weight.
    pub fn raw_weight(w: Weights, s: &MoveStats, mover: Color) -> f64 {
        let games = s.games() as f64;
        let points = half_points(s, mover) as f64;
        match w {
            Weights::Results => games * (points / (2.0 * games.max(1.0)) + 0.1),
            Weights::Games => games,
            Weights::Points => points,
        }
    }

    /// The stored weights of raw weights: scaled so that the largest is 65535, each at
    /// least 1 (a zero raw weight is left out before).
    pub fn scale(raw: &[f64]) -> Vec<u16> {
        let max = raw.iter().copied().fold(0.0, f64::max);
        raw.iter()
            .map(|&w| {
                if max <= 0.0 {
                    0
                } else {
                    ((w / max * 65535.0).round() as u16).max(1)
                }
            })
            .collect()
    }

    /// Walks the index from the start position: every move played at least `min_games`
    /// times in `db`, up to `max_ply`, is followed; those scoring well enough for their
    /// mover (with a weight above 0) are the book's entries. `progress` hears the positions
    /// looked up and the entries so far now and then.
    pub fn build(
        ex: &Explorer,
        db: &Db,
        o: &BuildOptions,
        progress: &mut dyn FnMut(u64, usize),
    ) -> Result<Built, Error> {
        let mut out = Built {
            header: Header {
                max_ply: o.max_ply,
                min_games: o.min_games,
            },
            ..Built::default()
        };
        let mut seen: HashSet<PositionKey> = HashSet::new();
        // Breadth first, so that a position is taken at the fewest plies it is reached in.
        let mut queue: VecDeque<(Position, u16)> = VecDeque::from([(Position::new(), 0)]);
        seen.insert(Keyed::of(&queue[0].0).key);
        while let Some((pos, ply)) = queue.pop_front() {
            if ply >= o.max_ply {
                continue;
            }
            let ans = ex.lookup(db, &pos)?;
            out.positions += 1;
            if out.positions % 1024 == 0 {
                progress(out.positions, out.entries.len());
            }
            let mover = pos.turn();
            let mut kept = Vec::new();
            for m in ans
                .moves
                .iter()
                .filter(|m| m.stats.games() >= u64::from(o.min_games))
            {
                let games = m.stats.games();
                let points = half_points(&m.stats, mover);
                let score = points as f64 / (2.0 * games as f64);
                let raw = raw_weight(o.weights, &m.stats, mover);
                if score >= o.min_score && raw > 0.0 {
                    kept.push((m.mv, raw, games, points));
                }
                let mut next = pos.clone();
                next.play_unchecked(m.mv);
                if ply + 1 < o.max_ply && seen.insert(Keyed::of(&next).key) {
                    queue.push_back((next, ply + 1));
                }
            }
            let raws: Vec<f64> = kept.iter().map(|k| k.1).collect();
            for ((mv, _, games, points), weight) in kept.into_iter().zip(scale(&raws)) {
                out.entries.push(Entry::new(
                    &pos,
                    mv,
                    weight,
                    games.min(u64::from(u32::MAX)) as u32,
                    points.min(u64::from(u32::MAX)) as u32,
                ));
            }
        }
        progress(out.positions, out.entries.len());
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mv(pos: &Position, s: &str) -> Move {
        pos.parse_uci(s).unwrap()
    }

    /// The shipped book: every line of the named openings' table is in it move by move, each
    /// move's games the number of lines through it (counted here by the moves' text, the
    /// mirror-free way), and the start's most common move is the central cannon.
    #[test]
    fn the_openings_book_holds_every_named_line() {
        use std::collections::HashMap;
        let book = openings_book();
        assert!(book.len() > 100, "{} entries", book.len());
        // Lines through each (position FEN, move) pair, a position and its mirror apart.
        let table = crate::openings::openings();
        let mut through: HashMap<(String, String), u32> = HashMap::new();
        for o in table.iter() {
            let mut pos = Position::new();
            for t in o.moves.split_whitespace() {
                let mv = pos.parse_uci(t).unwrap();
                *through.entry((pos.fen(), t.to_owned())).or_default() += 1;
                pos.play_unchecked(mv);
            }
        }
        for o in table.iter() {
            let mut pos = Position::new();
            for t in o.moves.split_whitespace() {
                let mv = pos.parse_uci(t).unwrap();
                let moves = book.probe(&pos);
                let hit = moves.iter().find(|m| m.mv == mv).unwrap_or_else(|| {
                    panic!("{} of {}: not in the book at {}", t, o.name, pos.fen())
                });
                // The mirror's lines count for the same entry.
                let mirror = pos.flip_horizontal();
                let mirrored = mv.flip_horizontal();
                let n = through
                    .get(&(pos.fen(), t.to_owned()))
                    .copied()
                    .unwrap_or(0)
                    + if mirror.fen() != pos.fen() {
                        through
                            .get(&(mirror.fen(), mirrored.to_string()))
                            .copied()
                            .unwrap_or(0)
                    } else if mirrored != mv {
                        through
                            .get(&(pos.fen(), mirrored.to_string()))
                            .copied()
                            .unwrap_or(0)
                    } else {
                        0
                    };
                assert_eq!(hit.games, n, "{} of {} at {}", t, o.name, pos.fen());
                assert_eq!(hit.score, hit.games, "a draw's score");
                pos.play_unchecked(mv);
            }
        }
        let start = book.probe(&Position::new());
        let best = start.iter().max_by_key(|m| m.weight).unwrap();
        assert_eq!(best.weight, 65535);
        assert!(
            ["h2e2", "b2e2"].contains(&best.mv.to_string().as_str()),
            "{}",
            best.mv
        );
        for m in ["c3c4", "g0e2", "b0c2"] {
            assert!(
                start.iter().any(|b| b.mv.to_string() == m),
                "{m} at the start"
            );
        }
    }

    #[test]
    fn a_book_round_trips_and_answers_mirrors() {
        let start = Position::new();
        let mut p = start.clone();
        p.play_unchecked(mv(&p, "h2e2"));
        let entries = vec![
            Entry::new(&start, mv(&start, "h2e2"), 300, 10, 12),
            Entry::new(&start, mv(&start, "c3c4"), 100, 4, 4),
            Entry::new(&p, mv(&p, "h9g7"), 7, 3, 3),
        ];
        let bytes = encode(entries, Header::default()).unwrap();
        assert_eq!(bytes.len(), HEADER_LEN + 3 * ENTRY_LEN);
        let book = Book::from_bytes(bytes, "t").unwrap();
        let at_start = book.probe(&start);
        let mut got: Vec<(String, u16, u8)> = at_start
            .iter()
            .map(|m| (m.mv.to_string(), m.weight, m.share))
            .collect();
        got.sort();
        assert_eq!(
            got,
            vec![
                ("b2e2".into(), 300, 2),
                ("c3c4".into(), 100, 2),
                ("g3g4".into(), 100, 2),
                ("h2e2".into(), 300, 2)
            ]
        );
        // After the mirror of h2e2 (b2e2) the book answers the mirror of h9g7 (b9c7).
        let mut q = start.clone();
        q.play_unchecked(mv(&q, "b2e2"));
        let a = book.probe(&q);
        assert_eq!(a.len(), 1);
        assert_eq!(a[0].mv.to_string(), "b9c7");
        assert_eq!(book.probe(&p)[0].mv.to_string(), "h9g7");
    }

    #[test]
    fn damaged_files_are_refused_with_the_reason() {
        let start = Position::new();
        let good = encode(
            vec![Entry::new(&start, mv(&start, "h2e2"), 1, 1, 2)],
            Header::default(),
        )
        .unwrap();
        let e = Book::from_bytes(b"hello".to_vec(), "x.bin").unwrap_err();
        assert!(e.0.starts_with("x.bin: not a book file"), "{e}");
        let mut v = good.clone();
        v[11] = 9;
        assert!(Book::from_bytes(v, "b")
            .unwrap_err()
            .0
            .contains("version 9"));
        let mut v = good.clone();
        v.pop();
        assert!(Book::from_bytes(v, "b")
            .unwrap_err()
            .0
            .contains("truncated"));
        let mut v = good.clone();
        v[HEADER_LEN + 16] = 0xff;
        assert!(Book::from_bytes(v, "b")
            .unwrap_err()
            .0
            .contains("entry 1: 0xff"));
        let mut v = good.clone();
        v[HEADER_LEN + 27] = 9;
        assert!(Book::from_bytes(v, "b").unwrap_err().0.contains("score"));
        let mut v = good.clone();
        v.extend_from_slice(&good[HEADER_LEN..]);
        v[23] = 2;
        assert!(Book::from_bytes(v, "b")
            .unwrap_err()
            .0
            .contains("entry 2 is out of order"));
    }

    #[test]
    fn choose_follows_the_weights() {
        let m = |w: u16, share: u8| BookMove {
            mv: Move::from_u16(w).unwrap(),
            weight: w,
            share,
            games: 1,
            score: 0,
        };
        let moves = [m(1, 1), m(0, 1), m(3, 1)];
        assert_eq!(Book::choose(&moves, 0.0).unwrap().weight, 1);
        assert_eq!(Book::choose(&moves, 0.2499).unwrap().weight, 1);
        assert_eq!(Book::choose(&moves, 0.25).unwrap().weight, 3);
        assert_eq!(Book::choose(&moves, 0.9999).unwrap().weight, 3);
        assert_eq!(Book::choose(&[m(0, 1)], 0.5), None);
        assert_eq!(Book::choose(&[], 0.5), None);
    }
}
