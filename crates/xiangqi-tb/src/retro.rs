//! The memory-lean generator: retrograde analysis with an unmove generator, no move graph.
//!
//! It keeps two bytes per index: the value (as the graph generator's, [`crate::Value`]'s
//! byte) and a counter. Initialisation visits every index as the graph generator's pass 1
//! does (illegal indices, positions without a legal move lost in 0, captures valued from the
//! smaller sets' tables) but keeps of the moves inside the set only their number. The
//! counter byte holds that number for a position that can still lose; for one a capture
//! saves, it holds the fastest capture win (`WIN_BASE` + (DTM − 1) / 2) or `NO_LOSS` (a
//! capture draws). Round `n` then scans for the positions decided in round `n − 1` (byte
//! `n`) and walks their predecessors ([`predecessors`]): in an odd round every undecided
//! predecessor of a position lost in `n − 1` is won in `n` (and so is every undecided
//! position whose best capture wins in `n`); in an even round every predecessor of a
//! position won in `n − 1` has its counter lowered, and one whose counter reaches zero has
//! all its moves refuted: it is lost in `max(n, slowest capture loss)`, decided in that
//! round (the capture loss is found again by generating its moves). So every position is
//! decided in the round equal to its DTM, as in the graph generator, and the bytes are the
//! same.
//!
//! The perpetual-check rule is solved on the drawn positions as the graph generator's
//! `Arena` does, with each drawn position's moves generated again in every pass instead of
//! kept (the counter bytes, free by then, hold what its captures give under the rule).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use xiangqi::position::can_stand_on;
use xiangqi::{Board, Color, MoveList, Position, Role, Square};

use crate::generate::{Generated, Stats};
use crate::index::Indexer;
use crate::material::Material;
use crate::{
    rule_value_in, RuleValue, Source, TbError, Value, ILLEGAL, LOSS_BY_RULE, MAX_DTM, WIN_BY_RULE,
};

/// Positions per work unit.
const CHUNK: u64 = 1 << 14;
/// Counter byte: the position's best capture wins in `2 × (byte − WIN_BASE) + 1` plies.
const WIN_BASE: u8 = 128;
/// Counter byte: a capture draws (and none wins): the position cannot be lost.
const NO_LOSS: u8 = 255;
/// A capture wins by the perpetual-check rule (as in generate.rs).
const CAP_RULE_WIN: u8 = 1;
/// A capture does not lose, even by the rule.
const CAP_SAFE: u8 = 2;

const HORSE: [(i8, i8); 8] = [
    (1, 2),
    (2, 1),
    (2, -1),
    (1, -2),
    (-1, -2),
    (-2, -1),
    (-2, 1),
    (-1, 2),
];
const ORTHO: [(i8, i8); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];
const DIAG: [(i8, i8); 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];

/// Appends to `out` the indices of the positions (of `indexer`'s set, with the side that
/// did not move in `q` to move) from which a non-capturing move reaches a position whose
/// index is `q`'s, once per such move. `q` must have Red's general on file d or e (as
/// [`Indexer::position`] gives it); with it on file d, the mirror image of `q` has the same
/// index and its predecessors are included. The indices are not checked legal: a caller
/// keeps those of legal positions (the side not to move not in check, generals not facing).
pub fn predecessors(indexer: &Indexer, q: &Position, out: &mut Vec<u64>) {
    let mover = !q.turn();
    unmoves(indexer, q.board(), mover, out);
    if q.general(Color::Red).file().index() == 3 {
        unmoves(indexer, &q.board().flip_horizontal(), mover, out);
    }
}

/// The predecessors of the placement `b` by `mover`'s non-capturing unmoves whose Red
/// general stands on file d or e (the others are another index's, counted from its mirror).
fn unmoves(indexer: &Indexer, b: &Board, mover: Color, out: &mut Vec<u64>) {
    let mut work = b.clone();
    let empty = |s: Square| b.piece_at(s).is_none();
    for (sq, piece) in b.pieces() {
        if piece.color != mover {
            continue;
        }
        let mut push = |from: Square| {
            work.remove(sq);
            work.put(from, piece);
            if work
                .general(Color::Red)
                .is_some_and(|k| k.file().index() <= 4)
            {
                out.push(indexer.index_board(&work, mover));
            }
            work.remove(from);
            work.put(sq, piece);
        };
        match piece.role {
            Role::Chariot | Role::Cannon => {
                // A non-capturing move of either is a slide over empty points.
                for (df, dr) in ORTHO {
                    let mut s = sq;
                    while let Some(t) = s.offset(df, dr) {
                        if !empty(t) {
                            break;
                        }
                        push(t);
                        s = t;
                    }
                }
            }
            Role::Horse => {
                for (df, dr) in HORSE {
                    // The horse went from `from` by (df, dr); its leg is the point next to
                    // `from` along the longer step.
                    let Some(from) = sq.offset(-df, -dr) else {
                        continue;
                    };
                    let leg = if df.abs() == 2 {
                        from.offset(df / 2, 0)
                    } else {
                        from.offset(0, dr / 2)
                    };
                    if empty(from) && leg.is_some_and(empty) {
                        push(from);
                    }
                }
            }
            Role::Elephant => {
                for (df, dr) in DIAG {
                    let (Some(from), Some(eye)) =
                        (sq.offset(-2 * df, -2 * dr), sq.offset(-df, -dr))
                    else {
                        continue;
                    };
                    if empty(from) && empty(eye) && can_stand_on(piece, from) {
                        push(from);
                    }
                }
            }
            Role::Advisor | Role::General => {
                let steps = if piece.role == Role::Advisor {
                    DIAG
                } else {
                    ORTHO
                };
                for (df, dr) in steps {
                    if let Some(from) = sq.offset(df, dr) {
                        if empty(from) && can_stand_on(piece, from) {
                            push(from);
                        }
                    }
                }
            }
            Role::Soldier => {
                // Forward from the point behind; sideways only along a rank across the river.
                if let Some(from) = sq.offset(0, -mover.forward()) {
                    if empty(from) && can_stand_on(piece, from) {
                        push(from);
                    }
                }
                if sq.rank().relative_to(mover) >= 5 {
                    for df in [1, -1] {
                        if let Some(from) = sq.offset(df, 0) {
                            if empty(from) && can_stand_on(piece, from) {
                                push(from);
                            }
                        }
                    }
                }
            }
        }
    }
}

/// What a position's captures give and how many other moves it has.
#[derive(Default)]
struct Caps {
    /// The fastest win a capture gives (its DTM), 0 if none.
    win: u8,
    /// The slowest loss a capture gives, 0 if none.
    loss: u8,
    /// Whether a capture reaches a draw.
    draw: bool,
    /// [`CAP_RULE_WIN`] and [`CAP_SAFE`].
    rule: u8,
    /// The moves inside the set.
    quiet: u32,
}

/// The captures of `pos` (whose legal moves are `moves`) valued from the smaller tables, as
/// the graph generator's pass 1 values them.
fn caps(
    pos: &Position,
    moves: &MoveList,
    tables: &HashMap<Material, Arc<dyn Source>>,
) -> Result<Caps, TbError> {
    let mut c = Caps::default();
    for &m in moves.iter() {
        if pos.piece_at(m.to()).is_none() {
            c.quiet += 1;
            continue;
        }
        let mut child = pos.clone();
        child.play_unchecked(m);
        let rv = rule_value_in(&child, |m| {
            tables.get(m).cloned().ok_or_else(|| TbError::Missing {
                set: m.to_string(),
                path: crate::file_name(m).into(),
            })
        })?;
        match rv {
            RuleValue::LossByRule => c.rule |= CAP_RULE_WIN | CAP_SAFE,
            RuleValue::Draw | RuleValue::Loss(_) => c.rule |= CAP_SAFE,
            RuleValue::WinByRule | RuleValue::Win(_) => {}
        }
        match rv.standard().parent() {
            Value::Win(d) => {
                let d = d.min(255) as u8;
                if c.win == 0 || d < c.win {
                    c.win = d;
                }
            }
            Value::Loss(d) => c.loss = c.loss.max(d.min(255) as u8),
            Value::Draw => c.draw = true,
        }
    }
    Ok(c)
}

/// The bytes a generation of `size` indices holds with this method (values and counters).
pub fn memory_estimate(size: u64) -> u64 {
    // Two bytes an index, and while the perpetual-check rule is solved five bitsets (the
    // arena, the three fixed points and a copy).
    2 * size + 5 * size.div_ceil(64) * 8
}

/// Runs `work(chunk)` for every chunk of `0..size` on `threads` threads, stopping at the
/// first error.
fn par_chunks<F>(size: u64, threads: usize, work: F) -> Result<(), TbError>
where
    F: Fn(u64, u64) -> Result<(), TbError> + Sync,
{
    let nchunks = size.div_ceil(CHUNK) as usize;
    let next = AtomicUsize::new(0);
    let failure = Mutex::new(None::<TbError>);
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let c = next.fetch_add(1, Ordering::Relaxed);
                if c >= nchunks {
                    break;
                }
                let start = c as u64 * CHUNK;
                if let Err(e) = work(start, (start + CHUNK).min(size)) {
                    *failure.lock().expect("lock") = Some(e);
                    next.store(nchunks, Ordering::Relaxed);
                    break;
                }
            });
        }
    });
    match failure.into_inner().expect("lock") {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// Generates the table of `material` (canonical) by retrograde analysis without a move
/// graph, on `threads` threads; the same table as [`crate::generate()`]'s. `tables` has the
/// tables of its [`dependencies`](crate::generate::dependencies).
pub fn generate_lean(
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
    if size >= 1 << 40 {
        return Err(TbError::TooLarge {
            set: name,
            why: format!("{size} positions"),
        });
    }
    crate::generate::check_dependencies(&material, tables)?;
    let threads = threads.max(1);
    let memory = memory_estimate(size);
    progress(&format!(
        "{name}: {size} positions, lean method (no move graph, {} MB), {threads} threads",
        memory >> 20
    ));
    let values: Vec<AtomicU8> = (0..size).map(|_| AtomicU8::new(0)).collect();
    let counters: Vec<AtomicU8> = (0..size).map(|_| AtomicU8::new(NO_LOSS)).collect();
    // Positions lost when their slowest capture loss comes, by that DTM.
    let deferred: Mutex<Vec<Vec<u64>>> = Mutex::new(vec![Vec::new(); 256]);
    let max_cap = AtomicU64::new(0);
    let edges = AtomicU64::new(0);

    // Initialisation.
    par_chunks(size, threads, |start, end| {
        let mut moves = MoveList::new();
        let mut late = Vec::new();
        let mut cap_max = 0u8;
        let mut kept = 0u64;
        for idx in start..end {
            let i = idx as usize;
            let Some(pos) = indexer.position(idx) else {
                values[i].store(ILLEGAL, Ordering::Relaxed);
                continue;
            };
            pos.legal_moves_into(&mut moves);
            if moves.is_empty() {
                values[i].store(Value::Loss(0).to_byte(), Ordering::Relaxed);
                continue;
            }
            let c = caps(&pos, &moves, tables)?;
            cap_max = cap_max.max(c.win).max(c.loss);
            kept += c.quiet as u64;
            let counter = if c.win != 0 {
                WIN_BASE + (c.win - 1) / 2
            } else if c.draw {
                NO_LOSS
            } else {
                if c.quiet >= WIN_BASE as u32 {
                    return Err(TbError::TooLarge {
                        set: material.to_string(),
                        why: format!(
                            "{} has {} moves; the lean method counts 127",
                            pos.fen(),
                            c.quiet
                        ),
                    });
                }
                if c.quiet == 0 {
                    late.push((idx, c.loss));
                }
                c.quiet as u8
            };
            counters[i].store(counter, Ordering::Relaxed);
        }
        max_cap.fetch_max(cap_max as u64, Ordering::Relaxed);
        edges.fetch_add(kept, Ordering::Relaxed);
        let mut d = deferred.lock().expect("lock");
        for (idx, l) in late {
            d[l as usize].push(idx);
        }
        Ok(())
    })?;
    let max_cap = max_cap.into_inner() as u32;
    let edges = edges.into_inner();
    progress(&format!(
        "{name}: initialised in {:.1} s, {edges} moves inside the set counted",
        started.elapsed().as_secs_f64()
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
        let decided = AtomicU64::new(0);
        let now = std::mem::take(&mut deferred.lock().expect("lock")[n as usize]);
        for &idx in &now {
            debug_assert_eq!(values[idx as usize].load(Ordering::Relaxed), 0);
            values[idx as usize].store(Value::Loss(n as u16).to_byte(), Ordering::Relaxed);
            decided.fetch_add(1, Ordering::Relaxed);
        }
        let odd = n % 2 == 1;
        let win_n = Value::Win(n as u16).to_byte();
        let loss_n = Value::Loss(n as u16).to_byte();
        let cap_code = if odd {
            WIN_BASE + ((n - 1) / 2) as u8
        } else {
            0
        };
        par_chunks(size, threads, |start, end| {
            let mut preds = Vec::new();
            let mut moves = MoveList::new();
            let mut late = Vec::new();
            let mut count = 0u64;
            for idx in start..end {
                let i = idx as usize;
                let b = values[i].load(Ordering::Relaxed) as u32;
                if odd && b == 0 && counters[i].load(Ordering::Relaxed) == cap_code {
                    if values[i]
                        .compare_exchange(0, win_n, Ordering::Relaxed, Ordering::Relaxed)
                        .is_ok()
                    {
                        count += 1;
                    }
                    continue;
                }
                if b != n {
                    continue;
                }
                let q = indexer.position(idx).expect("a decided index is legal");
                preds.clear();
                predecessors(&indexer, &q, &mut preds);
                for &p in &preds {
                    let pi = p as usize;
                    if odd {
                        // Lost in n - 1: its undecided predecessors win in n.
                        if values[pi]
                            .compare_exchange(0, win_n, Ordering::Relaxed, Ordering::Relaxed)
                            .is_ok()
                        {
                            count += 1;
                        }
                        continue;
                    }
                    // Won in n - 1: one more move of the predecessor refuted.
                    if values[pi].load(Ordering::Relaxed) != 0
                        || counters[pi].load(Ordering::Relaxed) >= WIN_BASE
                    {
                        continue;
                    }
                    let before = counters[pi].fetch_sub(1, Ordering::Relaxed);
                    debug_assert!(before > 0, "counter below zero at {p}");
                    if before != 1 {
                        continue;
                    }
                    // Every move refuted: lost in n, or later if a capture resists longer.
                    let pos = indexer.position(p).expect("a counted index is legal");
                    pos.legal_moves_into(&mut moves);
                    let c = caps(&pos, &moves, tables)?;
                    if c.loss as u32 > n {
                        late.push((p, c.loss));
                    } else {
                        values[pi].store(loss_n, Ordering::Relaxed);
                        count += 1;
                    }
                }
            }
            decided.fetch_add(count, Ordering::Relaxed);
            if !late.is_empty() {
                let mut d = deferred.lock().expect("lock");
                for (idx, l) in late {
                    d[l as usize].push(idx);
                }
            }
            Ok(())
        })?;
        let decided = decided.into_inner();
        if n.is_multiple_of(10) || decided == 0 {
            progress(&format!(
                "{name}: round {n}, {decided} positions decided ({:.1} s)",
                started.elapsed().as_secs_f64()
            ));
        }
        if decided == 0 && n >= max_cap {
            break;
        }
        n += 1;
    }

    // The perpetual-check rule on the drawn positions, the counters now holding what the
    // drawn positions' captures give under the rule.
    let rule_started = Instant::now();
    par_chunks(size, threads, |start, end| {
        let mut moves = MoveList::new();
        for idx in start..end {
            let i = idx as usize;
            if values[i].load(Ordering::Relaxed) != 0 {
                continue;
            }
            let pos = indexer.position(idx).expect("a drawn index is legal");
            pos.legal_moves_into(&mut moves);
            counters[i].store(caps(&pos, &moves, tables)?.rule, Ordering::Relaxed);
        }
        Ok(())
    })?;
    progress(&format!(
        "{name}: the drawn positions' captures valued under the rule in {:.1} s",
        rule_started.elapsed().as_secs_f64()
    ));
    let arena = Arena {
        indexer: &indexer,
        values: &values,
        cap: &counters,
        threads,
    };
    let mut rule_passes = 0;
    for x in [Color::Red, Color::Black] {
        if !material.has_attacker(!x) {
            continue;
        }
        let red = x == Color::Red;
        let (won, p) = arena.solve(red);
        rule_passes += p;
        let half = size / 2;
        for (w, word) in won.0.iter().enumerate() {
            let mut bits = word.load(Ordering::Relaxed);
            while bits != 0 {
                let i = w * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let v = &values[i];
                debug_assert_eq!(v.load(Ordering::Relaxed), 0, "both sides win by the rule");
                let x_moves = ((i as u64) < half) == red;
                v.store(
                    if x_moves { WIN_BY_RULE } else { LOSS_BY_RULE },
                    Ordering::Relaxed,
                );
            }
        }
    }
    progress(&format!(
        "{name}: perpetual-check rule solved in {:.1} s ({rule_passes} passes, moves generated again)",
        rule_started.elapsed().as_secs_f64()
    ));
    drop(counters);
    let values: Vec<u8> = values.into_iter().map(AtomicU8::into_inner).collect();

    let st = Stats {
        positions: size,
        rounds: n,
        edges,
        memory,
        lean: true,
        ..Stats::default()
    };
    Ok(crate::generate::finish(
        material, values, st, started, progress,
    ))
}

/// A bit per index.
struct Bits(Vec<AtomicU64>);

impl Bits {
    fn new(size: u64) -> Bits {
        Bits((0..size.div_ceil(64)).map(|_| AtomicU64::new(0)).collect())
    }
    fn get(&self, i: u64) -> bool {
        self.0[(i / 64) as usize].load(Ordering::Relaxed) & (1 << (i % 64)) != 0
    }
    fn set(&self, i: u64) {
        self.0[(i / 64) as usize].fetch_or(1 << (i % 64), Ordering::Relaxed);
    }
    fn same(&self, o: &Bits) -> bool {
        self.0
            .iter()
            .zip(&o.0)
            .all(|(a, b)| a.load(Ordering::Relaxed) == b.load(Ordering::Relaxed))
    }
    fn copy(&self) -> Bits {
        Bits(
            self.0
                .iter()
                .map(|a| AtomicU64::new(a.load(Ordering::Relaxed)))
                .collect(),
        )
    }
}

/// The perpetual-check game on the drawn positions (bytes 0, and [`WIN_BY_RULE`] and
/// [`LOSS_BY_RULE`] once one side's game is solved), the moves generated when needed.
struct Arena<'a> {
    indexer: &'a Indexer,
    values: &'a [AtomicU8],
    /// What each drawn position's captures give ([`CAP_RULE_WIN`], [`CAP_SAFE`]).
    cap: &'a [AtomicU8],
    threads: usize,
}

impl Arena<'_> {
    fn inside(&self, i: u64) -> bool {
        matches!(
            self.values[i as usize].load(Ordering::Relaxed),
            0 | WIN_BY_RULE | LOSS_BY_RULE
        )
    }

    /// The nodes from which `red` (the side X) wins by the rule, and the passes it took: the
    /// graph generator's `Arena::solve` (generate.rs documents the fixed point).
    fn solve(&self, red: bool) -> (Bits, u32) {
        let size = self.indexer.size();
        let half = size / 2;
        let all = Bits::new(size);
        for i in 0..size {
            if self.inside(i) {
                all.set(i);
            }
        }
        let mut passes = 0;
        let mut z3 = Bits::new(size);
        loop {
            let mut z2 = all.copy();
            loop {
                let z1 = Bits::new(size);
                loop {
                    passes += 1;
                    let changed = AtomicBool::new(false);
                    let _ = par_chunks(size, self.threads, |start, end| {
                        let mut moves = MoveList::new();
                        for i in start..end {
                            if !all.get(i) || z1.get(i) {
                                continue;
                            }
                            let cap = self.cap[i as usize].load(Ordering::Relaxed);
                            let x = (i < half) == red;
                            // Cheap cases first, then the moves.
                            if x && cap & CAP_RULE_WIN != 0 {
                                z1.set(i);
                                changed.store(true, Ordering::Relaxed);
                                continue;
                            }
                            if !x && cap & CAP_SAFE != 0 {
                                continue;
                            }
                            let pos = self.indexer.position(i).expect("a drawn index is legal");
                            pos.legal_moves_into(&mut moves);
                            let mut any = false;
                            let mut every = true;
                            for &m in moves.iter() {
                                if pos.piece_at(m.to()).is_some() {
                                    continue;
                                }
                                let mut child = pos.clone();
                                child.play_unchecked(m);
                                let c = self.indexer.index(&child);
                                if !all.get(c) {
                                    continue;
                                }
                                let hit = if child.is_check() {
                                    z1.get(c)
                                } else if x {
                                    z2.get(c)
                                } else {
                                    z3.get(c)
                                };
                                if x && hit {
                                    any = true;
                                    break;
                                }
                                if !x && !hit {
                                    every = false;
                                    break;
                                }
                            }
                            if (x && any) || (!x && every) {
                                z1.set(i);
                                changed.store(true, Ordering::Relaxed);
                            }
                        }
                        Ok(())
                    });
                    if !changed.into_inner() {
                        break;
                    }
                }
                if z1.same(&z2) {
                    break;
                }
                z2 = z1;
            }
            if z2.same(&z3) {
                break;
            }
            z3 = z2;
        }
        (z3, passes)
    }
}
