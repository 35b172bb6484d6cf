//! The generator: value iteration over a set's positions with the rules core's legal moves.
//!
//! Pass 1 visits every index: an illegal one is marked, a position without legal moves is
//! lost now (checkmate and stalemate both lose), a capture is looked up in the smaller
//! set's table (generated before), and the indices of the other moves' positions are kept
//! (a compressed-row graph). Then round `n = 1, 2, ...` marks won in `n` plies every
//! position with a move to one lost in `n - 1`, and lost in `n` every position all of
//! whose moves reach positions won in at most `n - 1` (one in exactly `n - 1`). When a round
//! marks nothing and no capture's value is still to come, the positions left are draws:
//! neither side can force mate (repetition is a draw here: docs/TABLEBASES.md).

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;

use xiangqi::Position;

use crate::index::Indexer;
use crate::material::Material;
use crate::{value_in, Source, TbError, Value, ILLEGAL, MAX_DTM};

/// Positions per work unit.
const CHUNK: u64 = 1 << 14;

/// What a generation found and cost.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Indices in the table (both sides to move).
    pub positions: u64,
    /// Indices of no legal position.
    pub illegal: u64,
    /// Positions won, drawn and lost for the side to move.
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    /// The longest win or loss, in plies.
    pub max_dtm: u16,
    /// Rounds of the value iteration.
    pub rounds: u32,
    /// Moves inside the set kept between rounds.
    pub edges: u64,
    /// Bytes the generation held (values, graph and capture results).
    pub memory: u64,
    /// Wall-clock milliseconds.
    pub millis: u64,
}

/// A generated table.
pub struct Generated {
    pub material: Material,
    pub values: Vec<u8>,
    pub stats: Stats,
}

/// One work unit's positions: the graph of moves inside the set and what captures give.
#[derive(Default)]
struct Chunk {
    start: u64,
    /// `children[offsets[i]..offsets[i + 1]]` are position `start + i`'s moves in the set.
    offsets: Vec<u32>,
    children: Vec<u32>,
    /// The fastest win a capture gives (its DTM), 0 if none.
    cap_win: Vec<u8>,
    /// The slowest loss a capture gives, 0 if none.
    cap_loss: Vec<u8>,
    /// Whether a capture reaches a draw.
    cap_draw: Vec<bool>,
    /// The values known after pass 1.
    values: Vec<u8>,
}

/// The canonical materials a set's captures lead to that need a table (those with an
/// attacker left), smallest first, each once: generate them before the set.
pub fn dependencies(m: &Material) -> Vec<Material> {
    fn walk(m: &Material, out: &mut Vec<Material>) {
        for c in 0..2 {
            for r in 1..7 {
                if m.counts[c][r] > 0 {
                    let piece = xiangqi::Piece::from_index(c * 7 + r);
                    let sub = m.without(piece).canonical();
                    if sub.any_attacker() && !out.contains(&sub) {
                        walk(&sub, out);
                        out.push(sub);
                    }
                }
            }
        }
    }
    let mut out = Vec::new();
    walk(&m.canonical(), &mut out);
    out
}

/// Generates the table of `material` (canonical) on `threads` threads. `tables` has the
/// tables of its [`dependencies`]; `progress` gets a line now and then.
pub fn generate(
    material: Material,
    tables: &HashMap<Material, Arc<dyn Source>>,
    threads: usize,
    progress: &mut dyn FnMut(&str),
) -> Result<Generated, TbError> {
    let started = Instant::now();
    let material = material.canonical();
    let name = material.to_string();
    let indexer = Indexer::new(material);
    let size = indexer.size();
    if size >= u32::MAX as u64 {
        return Err(TbError::TooLarge {
            set: name,
            why: format!("{size} positions; this generator indexes at most 2^32"),
        });
    }
    for d in dependencies(&material) {
        if !tables.contains_key(&d) {
            return Err(TbError::Missing {
                set: d.to_string(),
                path: crate::file_name(&d).into(),
            });
        }
    }
    let threads = threads.max(1);
    let nchunks = size.div_ceil(CHUNK) as usize;
    progress(&format!(
        "{name}: {size} positions, {nchunks} chunks of {CHUNK}, {threads} threads"
    ));

    // Pass 1.
    let next = AtomicUsize::new(0);
    let failure = std::sync::Mutex::new(None::<TbError>);
    let mut chunks: Vec<Chunk> = Vec::with_capacity(nchunks);
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let c = next.fetch_add(1, Ordering::Relaxed);
                        if c >= nchunks {
                            break;
                        }
                        match first_pass(&indexer, tables, c as u64 * CHUNK, size) {
                            Ok(ch) => mine.push(ch),
                            Err(e) => {
                                *failure.lock().expect("lock") = Some(e);
                                break;
                            }
                        }
                    }
                    mine
                })
            })
            .collect();
        for h in handles {
            chunks.extend(h.join().expect("generator thread"));
        }
    });
    if let Some(e) = failure.into_inner().expect("lock") {
        return Err(e);
    }
    chunks.sort_by_key(|c| c.start);
    let mut values = Vec::with_capacity(size as usize);
    for c in &mut chunks {
        values.append(&mut c.values);
    }
    let edges: u64 = chunks.iter().map(|c| c.children.len() as u64).sum();
    let memory = size * 8 + edges * 4;
    let max_cap = chunks
        .iter()
        .flat_map(|c| c.cap_win.iter().chain(&c.cap_loss))
        .copied()
        .max()
        .unwrap_or(0) as u32;
    progress(&format!(
        "{name}: pass 1 done in {:.1} s, {edges} moves kept ({} MB held)",
        started.elapsed().as_secs_f64(),
        memory >> 20
    ));

    // The rounds.
    let mut n: u32 = 1;
    loop {
        if n > MAX_DTM as u32 {
            return Err(TbError::TooLarge {
                set: name,
                why: format!("a DTM above {MAX_DTM} plies does not fit the format"),
            });
        }
        let next = AtomicUsize::new(0);
        let vals = &values;
        let chunks_ref = &chunks;
        let mut updates: Vec<(u32, u8)> = Vec::new();
        std::thread::scope(|s| {
            let handles: Vec<_> = (0..threads)
                .map(|_| {
                    s.spawn(|| {
                        let mut mine = Vec::new();
                        loop {
                            let c = next.fetch_add(1, Ordering::Relaxed);
                            if c >= chunks_ref.len() {
                                break;
                            }
                            round(&chunks_ref[c], vals, n, &mut mine);
                        }
                        mine
                    })
                })
                .collect();
            for h in handles {
                updates.extend(h.join().expect("generator thread"));
            }
        });
        for &(i, v) in &updates {
            values[i as usize] = v;
        }
        if n.is_multiple_of(10) || updates.is_empty() {
            progress(&format!(
                "{name}: round {n}, {} positions decided ({:.1} s)",
                updates.len(),
                started.elapsed().as_secs_f64()
            ));
        }
        if updates.is_empty() && n >= max_cap {
            break;
        }
        n += 1;
    }
    drop(chunks);

    let mut st = Stats {
        positions: size,
        rounds: n,
        edges,
        memory,
        ..Stats::default()
    };
    for &b in &values {
        match Value::from_byte(b) {
            None => st.illegal += 1,
            Some(Value::Draw) => st.draws += 1,
            Some(Value::Win(d)) => {
                st.wins += 1;
                st.max_dtm = st.max_dtm.max(d);
            }
            Some(Value::Loss(d)) => {
                st.losses += 1;
                st.max_dtm = st.max_dtm.max(d);
            }
        }
    }
    st.millis = started.elapsed().as_millis() as u64;
    progress(&format!(
        "{name}: {} won, {} drawn, {} lost, {} illegal, longest {} plies, {:.1} s",
        st.wins,
        st.draws,
        st.losses,
        st.illegal,
        st.max_dtm,
        st.millis as f64 / 1000.0
    ));
    Ok(Generated {
        material,
        values,
        stats: st,
    })
}

/// Pass 1 over the positions `start..start + CHUNK`.
fn first_pass(
    indexer: &Indexer,
    tables: &HashMap<Material, Arc<dyn Source>>,
    start: u64,
    size: u64,
) -> Result<Chunk, TbError> {
    let end = (start + CHUNK).min(size);
    let len = (end - start) as usize;
    let mut ch = Chunk {
        start,
        offsets: Vec::with_capacity(len + 1),
        children: Vec::new(),
        cap_win: vec![0; len],
        cap_loss: vec![0; len],
        cap_draw: vec![false; len],
        values: vec![0; len],
    };
    ch.offsets.push(0);
    let mut moves = xiangqi::MoveList::new();
    for i in 0..len {
        let idx = start + i as u64;
        let Some(pos) = indexer.position(idx) else {
            ch.values[i] = ILLEGAL;
            ch.offsets.push(ch.children.len() as u32);
            continue;
        };
        pos.legal_moves_into(&mut moves);
        if moves.is_empty() {
            ch.values[i] = Value::Loss(0).to_byte();
        }
        for &m in moves.iter() {
            let mut child: Position = pos.clone();
            if child.play_unchecked(m).is_some() {
                let v = value_in(&child, |m| {
                    tables.get(m).cloned().ok_or_else(|| TbError::Missing {
                        set: m.to_string(),
                        path: crate::file_name(m).into(),
                    })
                })?;
                match v.parent() {
                    Value::Win(d) => {
                        let d = d.min(255) as u8;
                        if ch.cap_win[i] == 0 || d < ch.cap_win[i] {
                            ch.cap_win[i] = d;
                        }
                    }
                    Value::Loss(d) => ch.cap_loss[i] = ch.cap_loss[i].max(d.min(255) as u8),
                    Value::Draw => ch.cap_draw[i] = true,
                }
            } else {
                ch.children.push(indexer.index(&child) as u32);
            }
        }
        ch.offsets.push(ch.children.len() as u32);
    }
    Ok(ch)
}

/// Round `n` over one chunk: the positions decided in `n` plies, as (index, byte).
fn round(ch: &Chunk, values: &[u8], n: u32, out: &mut Vec<(u32, u8)>) {
    let odd = n % 2 == 1;
    for i in 0..ch.offsets.len() - 1 {
        let idx = ch.start as usize + i;
        if values[idx] != 0 {
            continue;
        }
        let kids = &ch.children[ch.offsets[i] as usize..ch.offsets[i + 1] as usize];
        if odd {
            // Won in n: a capture wins in n, or a move reaches a position lost in n - 1
            // (whose byte is n).
            if ch.cap_win[i] as u32 == n || kids.iter().any(|&c| values[c as usize] as u32 == n) {
                out.push((idx as u32, Value::Win(n as u16).to_byte()));
            }
        } else {
            // Lost in n: no capture draws or wins, every capture loses in at most n, every
            // move reaches a position won in at most n - 1 (byte at most n, odd DTM), and
            // one of them takes exactly that long.
            if ch.cap_draw[i] || ch.cap_win[i] != 0 || ch.cap_loss[i] as u32 > n {
                continue;
            }
            let mut longest = ch.cap_loss[i] as u32;
            let mut all = true;
            for &c in kids {
                let b = values[c as usize] as u32;
                if b == 0 || b == ILLEGAL as u32 || b > n || b % 2 == 1 {
                    // Unknown, a draw, or not a win for the opponent within n - 1.
                    all = false;
                    break;
                }
                longest = longest.max(b);
            }
            if all && longest == n {
                out.push((idx as u32, Value::Loss(n as u16).to_byte()));
            }
        }
    }
}
