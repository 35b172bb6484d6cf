//! The generator: value iteration over a set's positions with the rules core's legal moves.
//!
//! Pass 1 visits every index: an illegal one is marked, a position without legal moves is
//! lost now (checkmate and stalemate both lose), a capture is looked up in the smaller
//! set's table (generated before), and the indices of the other moves' positions are kept
//! (a compressed-row graph). Then round `n = 1, 2, ...` marks won in `n` plies every
//! position with a move to one lost in `n - 1`, and lost in `n` every position all of
//! whose moves reach positions won in at most `n - 1` (one in exactly `n - 1`). When a round
//! marks nothing and no capture's value is still to come, the positions left are draws:
//! neither side can force mate when repetition is a draw.
//!
//! Then the perpetual-check rule: on the drawn positions, with each kept move's "gives
//! check" bit, an infinite game is solved for each side by a nested fixed point
//! (`rule_game`): the drawn positions a side wins by the rule (the other side can avoid
//! mate only by checking on every move forever) are marked [`WIN_BY_RULE`] or
//! [`LOSS_BY_RULE`] for the side to move (docs/TABLEBASES.md, "Rules the tables assume").

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;

use xiangqi::Position;

use crate::index::Indexer;
use crate::material::Material;
use crate::{
    rule_value_in, RuleValue, Source, TbError, Value, ILLEGAL, LOSS_BY_RULE, MAX_DTM, WIN_BY_RULE,
};

/// Positions per work unit.
const CHUNK: u64 = 1 << 14;
/// The bit of a kept move's child index that says the move gives check.
const CHECK: u32 = 1 << 31;
/// A capture wins by the rule: it reaches a position lost by the rule for the side to move.
const CAP_RULE_WIN: u8 = 1;
/// A capture does not lose, even by the rule: it reaches a position that is not won (by
/// mate or by the rule) for the side to move there.
const CAP_SAFE: u8 = 2;

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
    /// Of the drawn positions, those won and lost by the perpetual-check rule for the side
    /// to move.
    pub rule_wins: u64,
    pub rule_losses: u64,
    /// The longest win or loss, in plies.
    pub max_dtm: u16,
    /// Rounds of the value iteration.
    pub rounds: u32,
    /// Moves inside the set kept between rounds.
    pub edges: u64,
    /// Bytes the generation held (values, graph and capture results; the lean method's
    /// values and counters).
    pub memory: u64,
    /// Whether the lean method made it ([`crate::retro`]), else the graph generator.
    pub lean: bool,
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
    /// [`CAP_RULE_WIN`] and [`CAP_SAFE`]: what captures give under the perpetual-check rule.
    cap_rule: Vec<u8>,
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

/// The bytes the graph generator would hold for a set: 8 an index and 4 a move inside the
/// set, the moves estimated from up to 4,096 positions spread over the indices.
pub fn memory_estimate(indexer: &Indexer) -> u64 {
    let size = indexer.size();
    let step = (size / 4096).max(1);
    let (mut seen, mut quiet) = (0u64, 0u64);
    let mut moves = xiangqi::MoveList::new();
    let mut idx = step / 2;
    while idx < size {
        seen += 1;
        if let Some(pos) = indexer.position(idx) {
            pos.legal_moves_into(&mut moves);
            quiet += moves
                .iter()
                .filter(|m| pos.piece_at(m.to()).is_none())
                .count() as u64;
        }
        idx += step;
    }
    size * 8 + (size as u128 * quiet as u128 / seen.max(1) as u128) as u64 * 4
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
    if size >= CHECK as u64 {
        return Err(TbError::TooLarge {
            set: name,
            why: format!("{size} positions; this generator indexes at most 2^31"),
        });
    }
    check_dependencies(&material, tables)?;
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
    let (rule_millis, rule_passes) = rule_game(&material, &chunks, &mut values);
    progress(&format!(
        "{name}: perpetual-check rule solved in {:.1} s ({rule_passes} passes)",
        rule_millis as f64 / 1000.0
    ));
    drop(chunks);

    let st = Stats {
        positions: size,
        rounds: n,
        edges,
        memory,
        ..Stats::default()
    };
    Ok(finish(material, values, st, started, progress))
}

/// Fails naming the first of `material`'s [`dependencies`] that `tables` lacks.
pub(crate) fn check_dependencies(
    material: &Material,
    tables: &HashMap<Material, Arc<dyn Source>>,
) -> Result<(), TbError> {
    for d in dependencies(material) {
        if !tables.contains_key(&d) {
            return Err(TbError::Missing {
                set: d.to_string(),
                path: crate::file_name(&d).into(),
            });
        }
    }
    Ok(())
}

/// The generated table of `values`: its counts taken into `st` ([`count`]), the time since
/// `started`, and the summary line told to `progress` (both generators end so).
pub(crate) fn finish(
    material: Material,
    values: Vec<u8>,
    mut st: Stats,
    started: Instant,
    progress: &mut dyn FnMut(&str),
) -> Generated {
    count(&values, &mut st);
    st.millis = started.elapsed().as_millis() as u64;
    progress(&format!(
        "{material}: {} won, {} drawn ({} won and {} lost by rule), {} lost, {} illegal, longest {} plies, {:.1} s",
        st.wins,
        st.draws,
        st.rule_wins,
        st.rule_losses,
        st.losses,
        st.illegal,
        st.max_dtm,
        st.millis as f64 / 1000.0
    ));
    Generated {
        material,
        values,
        stats: st,
    }
}

/// Counts a table's won, drawn, lost and illegal positions, those won and lost by the
/// perpetual-check rule and the longest DTM into `st`.
pub(crate) fn count(values: &[u8], st: &mut Stats) {
    for &b in values {
        match b {
            WIN_BY_RULE => st.rule_wins += 1,
            LOSS_BY_RULE => st.rule_losses += 1,
            _ => {}
        }
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
        cap_rule: vec![0; len],
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
                let rv = rule_value_in(&child, |m| {
                    tables.get(m).cloned().ok_or_else(|| TbError::Missing {
                        set: m.to_string(),
                        path: crate::file_name(m).into(),
                    })
                })?;
                match rv {
                    RuleValue::LossByRule => ch.cap_rule[i] |= CAP_RULE_WIN | CAP_SAFE,
                    RuleValue::Draw | RuleValue::Loss(_) => ch.cap_rule[i] |= CAP_SAFE,
                    RuleValue::WinByRule | RuleValue::Win(_) => {}
                }
                match rv.standard().parent() {
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
                let check = if child.is_check() { CHECK } else { 0 };
                ch.children.push(indexer.index(&child) as u32 | check);
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
            if ch.cap_win[i] as u32 == n
                || kids
                    .iter()
                    .any(|&c| values[(c & !CHECK) as usize] as u32 == n)
            {
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
                let b = values[(c & !CHECK) as usize] as u32;
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

/// The drawn positions (byte 0) and their moves among themselves: the arena of the
/// perpetual-check game.
struct Arena {
    /// The table index of each node.
    index: Vec<u32>,
    /// Whether Red moves at the node.
    red: Vec<bool>,
    /// What the node's captures give ([`CAP_RULE_WIN`], [`CAP_SAFE`]).
    cap: Vec<u8>,
    /// `edges[offsets[v]..offsets[v + 1]]`: node `v`'s moves to drawn positions, the child's
    /// node number with [`CHECK`] set when the move gives check. Moves to decided positions
    /// are left out: from a drawn position they reach only wins for the opponent.
    offsets: Vec<u32>,
    edges: Vec<u32>,
}

impl Arena {
    fn new(chunks: &[Chunk], values: &[u8]) -> Arena {
        let size = values.len();
        let half = (size / 2) as u32;
        let mut node = vec![u32::MAX; size];
        let mut index = Vec::new();
        for (i, &b) in values.iter().enumerate() {
            if b == 0 {
                node[i] = index.len() as u32;
                index.push(i as u32);
            }
        }
        let mut a = Arena {
            red: index.iter().map(|&i| i < half).collect(),
            cap: Vec::with_capacity(index.len()),
            offsets: Vec::with_capacity(index.len() + 1),
            edges: Vec::new(),
            index,
        };
        a.offsets.push(0);
        for ch in chunks {
            for i in 0..ch.offsets.len() - 1 {
                if values[ch.start as usize + i] != 0 {
                    continue;
                }
                a.cap.push(ch.cap_rule[i]);
                for &c in &ch.children[ch.offsets[i] as usize..ch.offsets[i + 1] as usize] {
                    let n = node[(c & !CHECK) as usize];
                    if n != u32::MAX {
                        a.edges.push(n | (c & CHECK));
                    }
                }
                a.offsets.push(a.edges.len() as u32);
            }
        }
        a
    }

    /// The nodes from which `red` (the side X) wins by the rule, and the passes over the
    /// arena it took: X wins if from some point on the opponent checks on every move and X
    /// does not, or a capture reaches a position X wins by the rule ([`solve_rule_game`],
    /// checks marked for both sides).
    fn solve(&self, red: bool) -> (Vec<bool>, u32) {
        let x_node: Vec<bool> = self.red.iter().map(|&r| r == red).collect();
        let at_once: Vec<bool> = x_node
            .iter()
            .zip(&self.cap)
            .map(|(&x, &c)| {
                if x {
                    c & CAP_RULE_WIN != 0
                } else {
                    c & CAP_SAFE != 0
                }
            })
            .collect();
        solve_rule_game(
            &x_node,
            &at_once,
            &self.offsets,
            &self.edges,
            !CHECK,
            [CHECK, CHECK],
        )
    }
}

/// The repetition game on an arena of drawn positions, as [`Arena`] builds it for the
/// perpetual-check rule: the nodes side X wins and the passes it took. Node `v` is X's to
/// move when `x_node[v]`; `at_once[v]` is a capture that wins for X at X's nodes, a capture
/// that escapes for the other side at its nodes. `edges[offsets[v]..offsets[v + 1]]` are the
/// node's moves: the target node in `e & node_bits`, the move "marked" (forbidden to repeat:
/// a check, or for the other side also a chase) when `e & marked[0]` at X's nodes, `e &
/// marked[1]` at the other's. X wins when from some point on the other side makes only
/// marked moves and X makes unmarked ones again and again: with X's marked moves priority
/// 1 and its others 2, the other side's marked moves 1 and its others 3, a max-parity game
/// won by X on an even maximum, solved by the nested fixed point
/// `W = μZ3. νZ2. μZ1. CPre(Z1 on priority 1, Z2 on 2, Z3 on 3)`: an X node is in if it
/// wins at once, or a marked move reaches Z1, or another move reaches Z2; an other-side node
/// is in if it has no escape, every marked move reaches Z1 and every other move Z3.
/// (crates/xiangqi-tb/examples/chase_rule.rs uses it for the chase rule.)
pub fn solve_rule_game(
    x_node: &[bool],
    at_once: &[bool],
    offsets: &[u32],
    edges: &[u32],
    node_bits: u32,
    marked: [u32; 2],
) -> (Vec<bool>, u32) {
    let n = x_node.len();
    let mut passes = 0;
    let mut z3 = vec![false; n];
    loop {
        let mut z2 = vec![true; n];
        loop {
            let mut z1 = vec![false; n];
            loop {
                passes += 1;
                let mut changed = false;
                for v in 0..n {
                    if z1[v] {
                        continue;
                    }
                    let es = &edges[offsets[v] as usize..offsets[v + 1] as usize];
                    let mark = marked[!x_node[v] as usize];
                    let target = |e: u32, other: &[bool]| {
                        let c = (e & node_bits) as usize;
                        if e & mark != 0 {
                            z1[c]
                        } else {
                            other[c]
                        }
                    };
                    let inside = if x_node[v] {
                        at_once[v] || es.iter().any(|&e| target(e, &z2))
                    } else {
                        !at_once[v] && es.iter().all(|&e| target(e, &z3))
                    };
                    if inside {
                        z1[v] = true;
                        changed = true;
                    }
                }
                if !changed {
                    break;
                }
            }
            if z1 == z2 {
                break;
            }
            z2 = z1;
        }
        if z2 == z3 {
            break;
        }
        z3 = z2;
    }
    (z3, passes)
}

/// A max-parity game with priorities `1..=top` on its edges: the nodes X wins. Node `v` is
/// X's to move when `x_node[v]`; `edges[offsets[v]..offsets[v + 1]]` are its moves, each a
/// target node and a priority; `at_once[v]` is a win for X at X's nodes and an escape for
/// the other side at its own. X wins a play when the highest priority it meets again and
/// again is even. Solved by the nested fixed point `σZtop … νZ2. μZ1. CPre`, σ = ν on even
/// priorities and μ on odd ones, an edge of priority p leading into Zp: with priorities 1-3
/// it is [`solve_rule_game`]'s game; crates/xiangqi-tb/examples/chase_rule.rs solves the
/// perpetual-chase ruling's five-priority game with it. The iteration is the plain one
/// (each inner fixed point computed again from its start), meant for arenas of thousands of
/// nodes, not for a whole set.
pub fn solve_parity_game(
    x_node: &[bool],
    at_once: &[bool],
    offsets: &[u32],
    edges: &[(u32, u8)],
    top: usize,
) -> Vec<bool> {
    struct Game<'a> {
        x_node: &'a [bool],
        at_once: &'a [bool],
        offsets: &'a [u32],
        edges: &'a [(u32, u8)],
    }
    impl Game<'_> {
        fn level(&self, p: usize, z: &mut [Vec<bool>]) -> Vec<bool> {
            let n = self.x_node.len();
            if p == 0 {
                return (0..n)
                    .map(|v| {
                        let es =
                            &self.edges[self.offsets[v] as usize..self.offsets[v + 1] as usize];
                        let into = |&(t, q): &(u32, u8)| z[q as usize][t as usize];
                        if self.x_node[v] {
                            self.at_once[v] || es.iter().any(into)
                        } else {
                            !self.at_once[v] && es.iter().all(into)
                        }
                    })
                    .collect();
            }
            z[p] = vec![p.is_multiple_of(2); n];
            loop {
                let next = self.level(p - 1, z);
                if next == z[p] {
                    return next;
                }
                z[p] = next;
            }
        }
    }
    let game = Game {
        x_node,
        at_once,
        offsets,
        edges,
    };
    let mut z = vec![Vec::new(); top + 1];
    game.level(top, &mut z)
}

/// Marks the drawn positions won or lost by the perpetual-check rule (bytes [`WIN_BY_RULE`]
/// and [`LOSS_BY_RULE`] for the side to move); returns the milliseconds and passes it took.
/// A side with no attacker never checks, so the other side cannot win by the rule there.
fn rule_game(material: &Material, chunks: &[Chunk], values: &mut [u8]) -> (u64, u32) {
    let started = Instant::now();
    let arena = Arena::new(chunks, values);
    let mut passes = 0;
    for x in [xiangqi::Color::Red, xiangqi::Color::Black] {
        if !material.has_attacker(!x) {
            continue;
        }
        let red = x == xiangqi::Color::Red;
        let (won, p) = arena.solve(red);
        passes += p;
        for (v, &w) in won.iter().enumerate() {
            if w {
                let i = arena.index[v] as usize;
                debug_assert_eq!(values[i], 0, "both sides win by the rule");
                values[i] = if arena.red[v] == red {
                    WIN_BY_RULE
                } else {
                    LOSS_BY_RULE
                };
            }
        }
    }
    (started.elapsed().as_millis() as u64, passes)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small random generator for the tests (xorshift).
    struct Rng(u64);
    impl Rng {
        fn below(&mut self, n: u64) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0 % n
        }
    }

    /// Zielonka's recursive algorithm on a max-parity game with priorities on nodes, every
    /// node having a move: the nodes player 0 (even) wins. An independent oracle.
    fn zielonka(owner: &[u8], prio: &[u8], succ: &[Vec<usize>], alive: &[bool]) -> Vec<bool> {
        let n = owner.len();
        let Some(d) = (0..n).filter(|&v| alive[v]).map(|v| prio[v]).max() else {
            return vec![false; n];
        };
        let i = d % 2; // the player this priority favours
        let attr = |target: &[bool], player: u8, alive: &[bool]| {
            let mut a = target.to_vec();
            loop {
                let mut changed = false;
                for v in 0..n {
                    if !alive[v] || a[v] {
                        continue;
                    }
                    let mut ss = succ[v].iter().filter(|&&w| alive[w]);
                    let inside = if owner[v] == player {
                        ss.any(|&w| a[w])
                    } else {
                        ss.all(|&w| a[w])
                    };
                    if inside {
                        a[v] = true;
                        changed = true;
                    }
                }
                if !changed {
                    return a;
                }
            }
        };
        let top: Vec<bool> = (0..n).map(|v| alive[v] && prio[v] == d).collect();
        let a = attr(&top, i, alive);
        let rest: Vec<bool> = (0..n).map(|v| alive[v] && !a[v]).collect();
        let w0 = zielonka(owner, prio, succ, &rest);
        // What the other player (1 - i) wins in the rest.
        let opp: Vec<bool> = (0..n).map(|v| rest[v] && (w0[v] != (i == 0))).collect();
        if !opp.iter().any(|&b| b) {
            // Player i wins everything alive.
            return (0..n).map(|v| alive[v] && i == 0).collect();
        }
        let b = attr(&opp, 1 - i, alive);
        let rest: Vec<bool> = (0..n).map(|v| alive[v] && !b[v]).collect();
        let w = zielonka(owner, prio, succ, &rest);
        (0..n)
            .map(|v| {
                if b[v] {
                    i == 1 // won by the other player, 1 - i
                } else {
                    rest[v] && w[v]
                }
            })
            .collect()
    }

    /// The edge-priority game turned into Zielonka's node-priority one: each edge becomes a
    /// node of its priority; the game nodes get priority 0; an X node that wins at once, an
    /// other-side node that escapes, and dead ends go to sinks won by the right player.
    fn by_zielonka(
        x_node: &[bool],
        at_once: &[bool],
        offsets: &[u32],
        edges: &[(u32, u8)],
    ) -> Vec<bool> {
        let n = x_node.len();
        let (win, lose) = (n + edges.len(), n + edges.len() + 1);
        let total = lose + 1;
        let mut owner = vec![0u8; total];
        let mut prio = vec![0u8; total];
        let mut succ = vec![Vec::new(); total];
        for v in 0..n {
            owner[v] = if x_node[v] { 0 } else { 1 };
            for k in offsets[v] as usize..offsets[v + 1] as usize {
                succ[v].push(n + k);
                prio[n + k] = edges[k].1;
                succ[n + k].push(edges[k].0 as usize);
            }
            if at_once[v] {
                succ[v].push(if x_node[v] { win } else { lose });
            }
            if succ[v].is_empty() {
                succ[v].push(if x_node[v] { lose } else { win });
            }
        }
        prio[win] = 2;
        succ[win].push(win);
        prio[lose] = 1;
        succ[lose].push(lose);
        zielonka(&owner, &prio, &succ, &vec![true; total])[..n].to_vec()
    }

    #[test]
    fn parity_game_agrees_with_zielonka_and_with_the_rule_game() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let mut x_wins = 0;
        for round in 0..400 {
            let n = 2 + rng.below(14) as usize;
            let top = if round % 2 == 0 { 3 } else { 5 };
            let x_node: Vec<bool> = (0..n).map(|_| rng.below(2) == 0).collect();
            let at_once: Vec<bool> = (0..n).map(|_| rng.below(8) == 0).collect();
            let mut offsets = vec![0u32];
            let mut edges = Vec::new();
            for &xs in &x_node {
                for _ in 0..rng.below(4) {
                    let q = if top == 3 {
                        // The rule game's: marked 1, else 2 for X and 3 for the other side.
                        if rng.below(2) == 0 {
                            1
                        } else if xs {
                            2
                        } else {
                            3
                        }
                    } else {
                        1 + rng.below(5) as u8
                    };
                    edges.push((rng.below(n as u64) as u32, q));
                }
                offsets.push(edges.len() as u32);
            }
            let got = solve_parity_game(&x_node, &at_once, &offsets, &edges, top as usize);
            assert_eq!(
                got,
                by_zielonka(&x_node, &at_once, &offsets, &edges),
                "round {round}"
            );
            x_wins += got.iter().filter(|&&w| w).count();
            if top == 3 {
                const MARK: u32 = 1 << 31;
                let marked: Vec<u32> = edges
                    .iter()
                    .map(|&(t, q)| t | if q == 1 { MARK } else { 0 })
                    .collect();
                let (rule, _) =
                    solve_rule_game(&x_node, &at_once, &offsets, &marked, MARK - 1, [MARK, MARK]);
                assert_eq!(got, rule, "round {round}");
            }
        }
        assert!(x_wins > 100, "the random games are not all lost: {x_wins}");
    }
}
