//! The transposition table: shared by all search threads without locks.
//!
//! Each entry is two 64-bit words, `key ^ data` and `data`; a reader accepts an entry only
//! when the two agree with the key it looks for, so a torn write by another thread reads as
//! a miss instead of corrupting the search. Entries live in buckets of four; a new entry
//! replaces the same key, else the entry of least worth (shallow and from older searches).

use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};

use xiangqi::Move;

/// What a stored score means relative to the true value.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Bound {
    /// The true value is at most the score (fail low).
    Upper = 1,
    /// The true value is at least the score (fail high).
    Lower = 2,
    /// The score is exact.
    Exact = 3,
}

/// One probed entry.
#[derive(Copy, Clone, Debug)]
pub struct TtEntry {
    pub mv: Option<Move>,
    pub score: i32,
    pub eval: i32,
    pub depth: i32,
    pub bound: Bound,
}

const BUCKET: usize = 4;

/// A lock-free hash table of search results.
pub struct TranspositionTable {
    slots: Vec<[AtomicU64; 2]>,
    buckets: usize,
    generation: AtomicU8,
}

impl TranspositionTable {
    /// A table of about `mb` mebibytes (at least one bucket).
    ///
    /// # Panics
    /// If the memory cannot be had; see [`TranspositionTable::try_new`].
    pub fn new(mb: usize) -> TranspositionTable {
        TranspositionTable::try_new(mb).expect("hash table allocation")
    }

    /// A table of about `mb` mebibytes, or an error naming the size if the memory cannot be
    /// reserved.
    pub fn try_new(mb: usize) -> Result<TranspositionTable, String> {
        let bytes = mb.max(1).saturating_mul(1024 * 1024);
        let buckets = (bytes / (16 * BUCKET)).max(1);
        let mut slots = Vec::new();
        slots
            .try_reserve_exact(buckets * BUCKET)
            .map_err(|_| format!("cannot allocate a {mb} MiB hash table"))?;
        slots.resize_with(buckets * BUCKET, || [AtomicU64::new(0), AtomicU64::new(0)]);
        Ok(TranspositionTable {
            slots,
            buckets,
            generation: AtomicU8::new(0),
        })
    }

    /// Forgets everything.
    pub fn clear(&self) {
        for s in &self.slots {
            s[0].store(0, Ordering::Relaxed);
            s[1].store(0, Ordering::Relaxed);
        }
        self.generation.store(0, Ordering::Relaxed);
    }

    /// Starts a new search: older entries become cheaper to replace.
    pub fn new_search(&self) {
        let g = self.generation.load(Ordering::Relaxed);
        self.generation
            .store(g.wrapping_add(1) & 0x3f, Ordering::Relaxed);
    }

    #[inline]
    fn bucket(&self, key: u64) -> usize {
        (((key as u128) * (self.buckets as u128)) >> 64) as usize * BUCKET
    }

    /// Looks a position up.
    pub fn probe(&self, key: u64) -> Option<TtEntry> {
        let b = self.bucket(key);
        for s in &self.slots[b..b + BUCKET] {
            let data = s[1].load(Ordering::Relaxed);
            let k = s[0].load(Ordering::Relaxed) ^ data;
            if k == key && data != 0 {
                return Some(unpack(data));
            }
        }
        None
    }

    /// Stores a result; `mv` None keeps a move already stored for the same key.
    pub fn store(
        &self,
        key: u64,
        mv: Option<Move>,
        score: i32,
        eval: i32,
        depth: i32,
        bound: Bound,
    ) {
        let b = self.bucket(key);
        let gen = self.generation.load(Ordering::Relaxed);
        let mut victim = b;
        let mut worst = i32::MAX;
        for i in b..b + BUCKET {
            let s = &self.slots[i];
            let data = s[1].load(Ordering::Relaxed);
            let k = s[0].load(Ordering::Relaxed) ^ data;
            if data == 0 || k == key {
                victim = i;
                if k == key && data != 0 {
                    let old = unpack(data);
                    // Keep a deeper exact result of the same position unless this one is exact.
                    if bound != Bound::Exact && old.depth > depth + 3 && old_gen(data) == gen {
                        return;
                    }
                    let mv = mv.or(old.mv);
                    return self.write(i, key, mv, score, eval, depth, bound, gen);
                }
                break;
            }
            let age = (gen.wrapping_sub(old_gen(data)) & 0x3f) as i32;
            let worth = unpack(data).depth - 8 * age;
            if worth < worst {
                worst = worth;
                victim = i;
            }
        }
        self.write(victim, key, mv, score, eval, depth, bound, gen);
    }

    #[allow(clippy::too_many_arguments)]
    fn write(
        &self,
        i: usize,
        key: u64,
        mv: Option<Move>,
        score: i32,
        eval: i32,
        depth: i32,
        bound: Bound,
        gen: u8,
    ) {
        let data = pack(mv, score, eval, depth, bound, gen);
        self.slots[i][0].store(key ^ data, Ordering::Relaxed);
        self.slots[i][1].store(data, Ordering::Relaxed);
    }

    /// Permille of a sample of entries written in the current search.
    pub fn hashfull(&self) -> u32 {
        let gen = self.generation.load(Ordering::Relaxed);
        let n = self.slots.len().min(1000);
        let used = self.slots[..n]
            .iter()
            .filter(|s| {
                let d = s[1].load(Ordering::Relaxed);
                d != 0 && old_gen(d) == gen
            })
            .count();
        (used * 1000 / n.max(1)) as u32
    }
}

// data layout: move 16 | score 16 | eval 16 | depth 8 | bound 2 | generation 6
fn pack(mv: Option<Move>, score: i32, eval: i32, depth: i32, bound: Bound, gen: u8) -> u64 {
    let m = mv.map_or(0xffff, |m| m.to_u16()) as u64;
    let s = (score.clamp(-32000, 32000) as i16 as u16) as u64;
    let e = (eval.clamp(-32000, 32000) as i16 as u16) as u64;
    let d = (depth.clamp(-100, 127) as i8 as u8) as u64;
    m | s << 16 | e << 32 | d << 48 | (bound as u64) << 56 | ((gen & 0x3f) as u64) << 58
}

fn old_gen(data: u64) -> u8 {
    (data >> 58) as u8 & 0x3f
}

fn unpack(data: u64) -> TtEntry {
    let m = (data & 0xffff) as u16;
    TtEntry {
        mv: if m == 0xffff { None } else { Move::from_u16(m) },
        score: (data >> 16) as u16 as i16 as i32,
        eval: (data >> 32) as u16 as i16 as i32,
        depth: (data >> 48) as u8 as i8 as i32,
        bound: match (data >> 56) & 3 {
            1 => Bound::Upper,
            2 => Bound::Lower,
            _ => Bound::Exact,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use xiangqi::Square;

    #[test]
    fn store_and_probe() {
        let tt = TranspositionTable::new(1);
        let m = Move::new(Square::B2, Square::E2);
        tt.store(0x1234_5678_9abc_def0, Some(m), -250, 17, 9, Bound::Lower);
        let e = tt.probe(0x1234_5678_9abc_def0).unwrap();
        assert_eq!(e.mv, Some(m));
        assert_eq!(
            (e.score, e.eval, e.depth, e.bound),
            (-250, 17, 9, Bound::Lower)
        );
        assert!(tt.probe(0x1234_5678_9abc_def1).is_none());
        tt.store(0x1234_5678_9abc_def0, None, 30, 17, 10, Bound::Exact);
        assert_eq!(tt.probe(0x1234_5678_9abc_def0).unwrap().mv, Some(m));
        assert_eq!(tt.hashfull(), 0);
        let mut k = 1u64;
        for _ in 0..200_000 {
            k = k
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            tt.store(k, None, 0, 0, 1, Bound::Upper);
        }
        assert!(tt.hashfull() > 900, "{}", tt.hashfull());
        tt.clear();
        assert!(tt.probe(0x1234_5678_9abc_def0).is_none());
    }
}
