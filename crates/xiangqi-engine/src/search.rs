//! The search: iterative deepening over a principal-variation alpha-beta search with
//! aspiration windows, transposition table, quiescence search, null-move pruning, reverse
//! futility and futility pruning, late-move reductions and pruning, check extension,
//! mate-distance pruning, and repetition rulings (perpetual check) inside the tree.
//! Several threads search the same tree sharing the hash table (lazy SMP).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use xiangqi::adjudicate::{insufficient_material, History, Verdict, COUNTED_CHECKS};
use xiangqi::game::Rules;
use xiangqi::{Color, Move, MoveList, Position, Role};

use crate::eval::{evaluate, DRAW};
use crate::movepick::{self, history_index, is_bad_capture_score, see_ge, Picker};
use crate::timeman::{Clock, Limits, TimeManager};
use crate::tt::{Bound, TranspositionTable};
use xiangqi_tb::{Material, RuleValue, Tablebase, Value};

pub const MAX_PLY: usize = 120;
pub const MATE: i32 = 30000;
pub const INF: i32 = 31000;
/// Scores at or beyond this are mates (or wins by rule) at a known distance.
pub const MATE_BOUND: i32 = MATE - 2 * MAX_PLY as i32;
/// A position the tablebases win by the rule on perpetual check (a standard draw where
/// the opponent can only avoid mate by checking forever) scores this less its ply: above
/// every evaluation, below the mates, printed in centipawns as Stockfish prints its
/// tablebase wins (no distance to mate is known).
pub const TB_WIN: i32 = 20000;
/// Scores at or beyond this (and below [`MATE_BOUND`]) are tablebase wins by the rule.
pub const TB_WIN_BOUND: i32 = TB_WIN - 2 * MAX_PLY as i32;

pub fn mate_in(ply: usize) -> i32 {
    MATE - ply as i32
}
pub fn mated_in(ply: usize) -> i32 {
    -MATE + ply as i32
}

/// A score as UCI prints it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Score {
    /// Centipawns from the side to move's view.
    Cp(i32),
    /// Mate in this many moves (negative: being mated).
    Mate(i32),
}

impl Score {
    pub fn from_internal(v: i32) -> Score {
        if v >= MATE_BOUND {
            Score::Mate((MATE - v + 1) / 2)
        } else if v <= -MATE_BOUND {
            Score::Mate(-(MATE + v + 1) / 2)
        } else {
            Score::Cp(v)
        }
    }
}

/// One position on the path from the game's last capture to the current node.
#[derive(Copy, Clone, Debug, Default)]
pub struct Frame {
    pub key: u64,
    /// The side to move is in check (the move that led here gave check).
    pub checked: bool,
    /// Plies back to the last capture or null move (positions before cannot repeat this one).
    pub window: u32,
    /// The move that led here (None at the game's start and after a null move).
    pub mv: Option<Move>,
    /// Plies counted towards the move limit since the last capture (RULES.md §4.3: checks
    /// beyond a side's tenth do not count), as the rules core's `History` counts them; set
    /// from the root on.
    pub counted: u32,
    /// Checks given by Red and Black since the last capture.
    pub checks: [u32; 2],
}

impl Frame {
    /// The move-limit count and checks after a move by `mover` from this frame (RULES.md
    /// §4.3, as the rules core's `History::push` counts): a capture starts again from 0; a
    /// check beyond the mover's tenth since the last capture does not count.
    pub fn limit_after(&self, mover: Color, capture: bool, checked: bool) -> (u32, [u32; 2]) {
        if capture {
            return (0, [0, 0]);
        }
        let mut checks = self.checks;
        checks[mover.index()] += u32::from(checked);
        let counts = !checked || checks[mover.index()] <= COUNTED_CHECKS;
        (self.counted + u32::from(counts), checks)
    }
}

/// What a search thread needs from the outside.
pub struct Shared {
    pub tt: Arc<TranspositionTable>,
    pub stop: Arc<AtomicBool>,
    pub pondering: Arc<AtomicBool>,
    pub clock: Arc<Clock>,
    pub limits: Limits,
    pub time: TimeManager,
    pub nodes: Vec<AtomicU64>,
    pub multipv: usize,
    /// Depth cap from a strength level (in addition to the limits).
    pub depth_cap: Option<i32>,
    /// Node cap from a strength level (in addition to the limits).
    pub node_cap: Option<u64>,
    /// The rules of the game: the move limit and the chase rule.
    pub rules: Rules,
    /// The network to evaluate with (`None`: the classical evaluation).
    pub nnue: Option<Arc<xiangqi_nnue::QuantisedNet>>,
    /// Fill [`SearchInfo::wdl`] (`UCI_ShowWDL`).
    pub show_wdl: bool,
    /// The endgame tablebases to probe (`TbPath`).
    pub tb: Option<Arc<Tablebase>>,
    /// Probe below the root only at this depth or more, or just after a capture.
    pub tb_probe_depth: i32,
    /// The root has a table and `TbProbeRoot` is on: `root_probe` has ranked its moves, so
    /// the tables' results under the rule on perpetual check score the search's nodes only
    /// when this is false (with it, the search, with its repetition rulings, finds the way);
    /// and where both sides have attackers the root moves' positions are searched, not
    /// probed, so that a repetition ruling one ply further (a perpetual check or chase the
    /// tables ignore) is seen before the tables' distance is trusted.
    pub root_has_table: bool,
    /// Positions whose value came from the tables (root probes included).
    pub tbhits: AtomicU64,
}

impl Shared {
    pub fn total_nodes(&self) -> u64 {
        self.nodes.iter().map(|n| n.load(Ordering::Relaxed)).sum()
    }
    fn node_limit(&self) -> Option<u64> {
        match (self.limits.nodes, self.node_cap) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
    fn depth_limit(&self) -> i32 {
        let d = self.limits.depth.unwrap_or(MAX_PLY as i32 - 10);
        d.min(self.depth_cap.unwrap_or(i32::MAX))
            .clamp(1, MAX_PLY as i32 - 10)
    }
}

/// A root move with its latest score and principal variation.
#[derive(Clone, Debug)]
pub struct RootMove {
    pub mv: Move,
    pub score: i32,
    pub prev_score: i32,
    /// The score is only a bound (the last aspiration search failed).
    pub bound: Option<Bound>,
    pub seldepth: usize,
    pub pv: Vec<Move>,
}

/// A finished iteration's report for one PV line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchInfo {
    pub depth: i32,
    pub seldepth: i32,
    pub multipv: usize,
    pub score: Score,
    /// `Some(Lower)` prints `lowerbound`, `Some(Upper)` prints `upperbound`.
    pub bound: Option<Bound>,
    pub nodes: u64,
    pub nps: u64,
    pub hashfull: u32,
    /// Positions valued by the endgame tablebases so far.
    pub tbhits: u64,
    pub time_ms: u64,
    pub pv: Vec<Move>,
    /// Win, draw and loss per mille for the side to move, from the score and the root's
    /// material (the fitted model of [`crate::wdl`]); with `UCI_ShowWDL` only.
    pub wdl: Option<[u32; 3]>,
}

/// What a search thread learns about moves beyond one position: the move-ordering
/// histories. They are kept from one search of a game to the next, as Stockfish keeps
/// them, and forgotten at `ucinewgame` (`Engine::new_game`).
pub(crate) struct Histories {
    history: Vec<i32>,
    counter: Vec<Option<Move>>,
    cont: Vec<i16>,
    capture_hist: Vec<i16>,
}

impl Histories {
    pub(crate) fn new() -> Histories {
        Histories {
            history: vec![0; 2 * 8100],
            counter: vec![None; 2 * 8100],
            cont: vec![0; PIECE_TO * PIECE_TO],
            capture_hist: vec![0; PIECE_TO * 7],
        }
    }
}

pub(crate) struct Worker<'a> {
    id: usize,
    shared: &'a Shared,
    pub(crate) root_moves: Vec<RootMove>,
    root: Position,
    /// The game's positions before the root, one per history frame (for rulings).
    game: &'a [Position],
    stack: Vec<Frame>,
    base: usize,
    killers: Vec<[Option<Move>; 2]>,
    history: Vec<i32>,
    /// The quiet move that last refuted each move of the opponent (by side, from, to).
    counter: Vec<Option<Move>>,
    /// Continuation history: how well a quiet move (piece, target) did after the move
    /// (piece, target) one or two plies before, indexed by `cont_index`.
    cont: Vec<i16>,
    /// The (piece, target) index of the move that led to each ply (`NO_PIECE_TO` after a
    /// null move or when unknown).
    moved: Vec<u16>,
    /// Capture history: how well captures did, by (moving piece, target) and victim role.
    capture_hist: Vec<i16>,
    /// The move left out at each ply by a singular-extension search.
    excluded: Vec<Option<Move>>,
    static_eval: Vec<i32>,
    pv: Vec<[Move; MAX_PLY + 1]>,
    pv_len: Vec<usize>,
    nodes: u64,
    seldepth: usize,
    root_depth: i32,
    pv_idx: usize,
    lmr: Vec<[u8; 64]>,
    pub(crate) completed_depth: i32,
    /// The accumulators, one per ply, when evaluating with a network.
    nnue: Option<crate::nnue::Stack>,
}

const NO_MOVE: Move = Move::new(xiangqi::Square::A0, xiangqi::Square::A0);
/// Number of (piece, target) pairs.
const PIECE_TO: usize = 14 * 90;
const NO_PIECE_TO: u16 = u16::MAX;

/// The (piece, target) index of move `m` played in `pos` (before or after the move: the
/// piece is looked for on the origin first, then on the target).
fn piece_to(pos: &Position, m: Move) -> u16 {
    let piece = pos.piece_at(m.from()).or_else(|| pos.piece_at(m.to()));
    piece.map_or(NO_PIECE_TO, |p| (p.index() * 90 + m.to().index()) as u16)
}

/// The capture-history index of capture `m` in `pos`.
#[inline]
fn capture_index(pos: &Position, m: Move) -> usize {
    let victim = pos.piece_at(m.to()).map_or(0, |p| p.role.index());
    let pt = piece_to(pos, m);
    if pt == NO_PIECE_TO {
        victim
    } else {
        pt as usize * 7 + victim
    }
}

/// Adds `bonus` to a history entry, keeping it within +-16384 (the older value decays).
fn update_cont(h: &mut i16, bonus: i32) {
    let v = *h as i32;
    *h = (v + bonus - v * bonus.abs() / 16384) as i16;
}

impl<'a> Worker<'a> {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        id: usize,
        shared: &'a Shared,
        root: Position,
        history: &[Frame],
        game: &'a [Position],
        root_frame: Frame,
        root_moves: Vec<Move>,
        histories: Histories,
    ) -> Worker<'a> {
        let Histories {
            history: hist,
            counter,
            cont,
            capture_hist,
        } = histories;
        debug_assert_eq!(history.len(), game.len());
        let root_move = root_frame.mv;
        let mut stack = history.to_vec();
        stack.push(root_frame);
        let base = stack.len() - 1;
        let mut moved = vec![NO_PIECE_TO; MAX_PLY + 4];
        moved[0] = root_move.map_or(NO_PIECE_TO, |m| piece_to(&root, m));
        stack.resize(base + MAX_PLY + 4, Frame::default());
        let mut lmr = vec![[0u8; 64]; 64];
        for (d, row) in lmr.iter_mut().enumerate().skip(1) {
            for (n, r) in row.iter_mut().enumerate().skip(1) {
                let v = 0.5 + (d as f64).ln() * (n as f64).ln() / 1.8;
                *r = v.max(0.0) as u8;
            }
        }
        Worker {
            id,
            shared,
            root_moves: root_moves
                .into_iter()
                .map(|mv| RootMove {
                    mv,
                    score: -INF,
                    prev_score: -INF,
                    bound: None,
                    seldepth: 0,
                    pv: vec![mv],
                })
                .collect(),
            root: root.clone(),
            game,
            stack,
            base,
            killers: vec![[None; 2]; MAX_PLY + 4],
            history: hist,
            counter,
            cont,
            moved,
            excluded: vec![None; MAX_PLY + 4],
            capture_hist,
            static_eval: vec![0; MAX_PLY + 4],
            pv: vec![[NO_MOVE; MAX_PLY + 1]; MAX_PLY + 2],
            pv_len: vec![0; MAX_PLY + 2],
            nodes: 0,
            seldepth: 0,
            root_depth: 0,
            pv_idx: 0,
            lmr,
            completed_depth: 0,
            nnue: shared.nnue.as_ref().map(|net| {
                crate::nnue::Stack::new(
                    crate::nnue::Nnue::new(net.clone()),
                    root.board(),
                    MAX_PLY + 4,
                )
            }),
        }
    }

    /// The histories this search learnt, for the next search of the game.
    pub(crate) fn into_histories(self) -> Histories {
        Histories {
            history: self.history,
            counter: self.counter,
            cont: self.cont,
            capture_hist: self.capture_hist,
        }
    }

    fn stopped(&self) -> bool {
        self.shared.stop.load(Ordering::Relaxed)
    }

    /// Counts a node; the main thread checks the clock and node limit now and then.
    #[inline]
    fn count_node(&mut self) {
        self.nodes += 1;
        if self.nodes & 1023 == 0 {
            self.shared.nodes[self.id].store(self.nodes, Ordering::Relaxed);
            if self.id == 0 {
                self.check_limits();
            }
        }
    }

    fn check_limits(&self) {
        if let Some(n) = self.shared.node_limit() {
            if self.shared.total_nodes() >= n {
                self.shared.stop.store(true, Ordering::Relaxed);
            }
        }
        if self.shared.pondering.load(Ordering::Relaxed) {
            return;
        }
        if let Some(max) = self.shared.time.maximum {
            if self.root_depth > 1 && self.shared.clock.elapsed() >= max {
                self.shared.stop.store(true, Ordering::Relaxed);
            }
        }
    }

    fn flush_nodes(&self) {
        self.shared.nodes[self.id].store(self.nodes, Ordering::Relaxed);
    }

    /// Iterative deepening. The main thread (id 0) reports through `report` after each
    /// completed PV line and decides when to stop; helpers search until told to stop.
    pub(crate) fn iterate(&mut self, report: &mut dyn FnMut(&Worker, i32)) {
        let max_depth = self.shared.depth_limit();
        let multipv = self.shared.multipv.min(self.root_moves.len()).max(1);
        let mut last_best: Option<Move> = None;
        let mut stable = 0;
        let mut last_score = -INF;
        for depth in 1..=max_depth {
            if self.stopped() {
                break;
            }
            if self.id > 0 && skip_depth(self.id, depth) {
                continue;
            }
            self.root_depth = depth;
            for rm in &mut self.root_moves {
                rm.prev_score = if rm.score == -INF {
                    rm.prev_score
                } else {
                    rm.score
                };
            }
            for pv_idx in 0..multipv {
                self.pv_idx = pv_idx;
                self.seldepth = 0;
                for rm in &mut self.root_moves[pv_idx..] {
                    rm.score = -INF;
                }
                let prev = self.root_moves[pv_idx].prev_score;
                let mut delta = 25;
                let (mut alpha, mut beta) = if depth >= 4 && prev.abs() < TB_WIN_BOUND {
                    ((prev - delta).max(-INF), (prev + delta).min(INF))
                } else {
                    (-INF, INF)
                };
                loop {
                    let root = self.root.clone();
                    let score = self.search(&root, alpha, beta, depth, 0, true, false);
                    sort_root(&mut self.root_moves[pv_idx..]);
                    if self.stopped() {
                        break;
                    }
                    if score <= alpha {
                        beta = (alpha + beta) / 2;
                        alpha = (score - delta).max(-INF);
                        self.root_moves[pv_idx].bound = Some(Bound::Upper);
                    } else if score >= beta {
                        beta = (score + delta).min(INF);
                        self.root_moves[pv_idx].bound = Some(Bound::Lower);
                    } else {
                        self.root_moves[pv_idx].bound = None;
                        break;
                    }
                    delta += delta / 2 + 5;
                    if delta > 1000 {
                        alpha = -INF;
                        beta = INF;
                    }
                }
                sort_root(&mut self.root_moves[..=pv_idx]);
                if self.stopped() {
                    break;
                }
                if self.id == 0 {
                    report(self, depth);
                }
            }
            if self.stopped() {
                break;
            }
            self.completed_depth = depth;
            if self.id != 0 {
                continue;
            }
            // Stop conditions of the main thread.
            let best = &self.root_moves[0];
            if let Some(m) = self.shared.limits.mate {
                if best.score >= MATE_BOUND && (MATE - best.score + 1) / 2 <= m {
                    break;
                }
            }
            if last_best == Some(best.mv) {
                stable += 1;
            } else {
                stable = 0;
            }
            last_best = Some(best.mv);
            let score_before = last_score;
            last_score = best.score;
            if !self.shared.pondering.load(Ordering::Relaxed) {
                let fixed = self.shared.limits.movetime.is_some();
                if let (Some(opt), false) = (self.shared.time.optimum, fixed) {
                    // Spend less when the best move is stable, more when it keeps changing.
                    let mut factor = match stable {
                        0 => 1.3,
                        1 => 1.0,
                        2 => 0.85,
                        _ => 0.7,
                    };
                    // A falling score: think longer to find a way out.
                    if score_before != -INF && best.score < score_before - 30 {
                        factor *= 1.3;
                    }
                    let target = opt.mul_f64(factor);
                    let elapsed = self.shared.clock.elapsed();
                    // Another iteration takes longer than all before it: do not start one
                    // that cannot finish.
                    if elapsed >= target.mul_f64(0.6) {
                        break;
                    }
                }
                if self.root_moves.len() == 1 && self.shared.time.optimum.is_some() && depth >= 4 {
                    break;
                }
            }
        }
        self.flush_nodes();
    }

    /// The PV line being searched (MultiPV).
    pub(crate) fn pv_index(&self) -> usize {
        self.pv_idx
    }

    /// Information for a PV line after an iteration.
    pub(crate) fn info(&self, depth: i32, idx: usize) -> SearchInfo {
        let rm = &self.root_moves[idx];
        let elapsed = self.shared.clock.elapsed();
        let nodes = self.shared.total_nodes().max(self.nodes);
        let ms = elapsed.as_millis() as u64;
        let searched = rm.score != -INF;
        let score = if searched { rm.score } else { rm.prev_score };
        let score = Score::from_internal(score.clamp(-MATE, MATE));
        SearchInfo {
            depth: if searched || depth == 1 {
                depth
            } else {
                depth - 1
            }
            .max(1),
            seldepth: rm.seldepth.max(1) as i32,
            multipv: idx + 1,
            score,
            bound: if idx == self.pv_idx { rm.bound } else { None },
            nodes,
            nps: nodes * 1000 / ms.max(1),
            hashfull: self.shared.tt.hashfull(),
            tbhits: self.shared.tbhits.load(Ordering::Relaxed),
            time_ms: ms,
            pv: rm.pv.clone(),
            wdl: self
                .shared
                .show_wdl
                .then(|| crate::wdl::wdl(score, self.root.board())),
        }
    }

    /// The position's frame index in the stack.
    #[inline]
    fn idx(&self, ply: usize) -> usize {
        self.base + ply
    }

    /// The static evaluation of `pos` at `ply`: the network's when one is in use, else the
    /// classical one.
    #[inline]
    fn evaluate(&self, pos: &Position, ply: usize) -> i32 {
        match &self.nnue {
            None => evaluate(pos),
            Some(n) => n
                .evaluate(ply, pos.board(), pos.turn())
                .clamp(-TB_WIN_BOUND + 1, TB_WIN_BOUND - 1),
        }
    }

    fn push_child(
        &mut self,
        ply: usize,
        parent: &Position,
        child: &Position,
        m: Move,
        capture: bool,
        checked: bool,
    ) {
        if let Some(n) = &mut self.nnue {
            let piece = child.piece_at(m.to()).expect("the moved piece");
            n.make(
                ply,
                child.board(),
                piece,
                m.from(),
                m.to(),
                parent.piece_at(m.to()),
            );
        }
        self.moved[ply + 1] = piece_to(child, m);
        let parent = self.stack[self.idx(ply)];
        let i = self.idx(ply + 1);
        let (counted, checks) = parent.limit_after(!child.turn(), capture, checked);
        self.stack[i] = Frame {
            key: child.key(),
            checked,
            window: if capture { 0 } else { parent.window + 1 },
            mv: Some(m),
            counted,
            checks,
        };
    }

    /// The position of stack frame `j` (a game position or one on the current path).
    fn position_at(&self, j: usize) -> Option<Position> {
        if j < self.base {
            return self.game.get(j).cloned();
        }
        let mut p = self.root.clone();
        for k in self.base + 1..=j {
            p.play_unchecked(self.stack[k].mv?);
        }
        Some(p)
    }

    /// The rules core's ruling on the cycle from frame `j` to frame `i` (same position):
    /// perpetual check, then perpetual chase (RULES.md §5-6), followed by piece identity.
    fn rule_cycle(&self, j: usize, i: usize) -> Option<Verdict> {
        let mut h = History::new(self.position_at(j)?);
        for k in j + 1..=i {
            h.push(self.stack[k].mv?);
        }
        h.repetition_verdict(2, self.shared.rules.chase_rule)
    }

    /// A ruling if the position at `ply` repeats an earlier one (judged at the first
    /// repetition): the side that checks or chases perpetually loses; otherwise a draw.
    fn repetition(&self, ply: usize) -> Option<i32> {
        let i = self.idx(ply);
        let cur = self.stack[i];
        let window = (cur.window as usize).min(i);
        if window < 4 {
            return None;
        }
        let mut j = i - 4;
        loop {
            if self.stack[j].key == cur.key {
                if let Some(v) = self.rule_cycle(j, i) {
                    let us = if (i - self.base).is_multiple_of(2) {
                        self.root.turn()
                    } else {
                        !self.root.turn()
                    };
                    return Some(match v.winner {
                        None => DRAW,
                        Some(w) if w == us => mate_in(ply),
                        Some(_) => mated_in(ply),
                    });
                }
                // Fallback (moves not known): perpetual check only. Positions j+1..=i were produced by the moves of the cycle. Those at i, i-2,
                // .. were made by the opponent; i-1, i-3, .. by the side to move.
                let them_check = (j + 2..=i).step_by(2).all(|k| self.stack[k].checked);
                let us_check = (j + 1..i).step_by(2).all(|k| self.stack[k].checked);
                return Some(match (us_check, them_check) {
                    (false, true) => mate_in(ply),
                    (true, false) => mated_in(ply),
                    _ => DRAW,
                });
            }
            if j < 2 || i - j + 2 > window {
                return None;
            }
            j -= 2;
        }
    }

    /// The tables' score of `pos` at `ply` (below the root), when it has one the rules do
    /// not contradict: probed only where the material has a table and either a capture just
    /// changed it into one, or `depth` is at least `TbProbeDepth`, or `pos` is a root move's
    /// position.
    fn tb_probe(&self, pos: &Position, ply: usize, depth: i32) -> Option<i32> {
        let tb = self.shared.tb.as_ref()?;
        if pos.board().occupied().count() > tb.max_pieces() {
            return None;
        }
        let frame = self.stack[self.idx(ply)];
        if !(frame.window == 0 || ply == 1 || depth >= self.shared.tb_probe_depth) {
            return None;
        }
        if !tb.covers(pos) {
            return None;
        }
        let material = Material::of_board(pos.board());
        if ply == 1
            && self.shared.root_has_table
            && material.has_attacker(Color::Red)
            && material.has_attacker(Color::Black)
        {
            return None;
        }
        let value = tb.probe(pos).ok()?;
        let limit = self
            .shared
            .rules
            .move_limit
            .map(|l| l.saturating_sub(frame.counted));
        let v = match tb_score(value, &material, ply, limit) {
            Some(v) => v,
            // Where both sides have attackers a standard draw may be decided by the rule
            // on perpetual check, which the tables of format 2 keep.
            None if value == Value::Draw && !self.shared.root_has_table => {
                rule_score(tb.probe_rules(pos).ok()?, ply)?
            }
            None => return None,
        };
        self.shared.tbhits.fetch_add(1, Ordering::Relaxed);
        Some(v)
    }

    fn update_pv(&mut self, ply: usize, m: Move) {
        self.pv[ply][0] = m;
        let n = self.pv_len[ply + 1];
        for k in 0..n {
            self.pv[ply][k + 1] = self.pv[ply + 1][k];
        }
        self.pv_len[ply] = n + 1;
    }

    #[allow(clippy::too_many_arguments)]
    fn search(
        &mut self,
        pos: &Position,
        mut alpha: i32,
        mut beta: i32,
        mut depth: i32,
        ply: usize,
        pv_node: bool,
        cut_node: bool,
    ) -> i32 {
        let root = ply == 0;
        self.pv_len[ply] = 0;
        if depth <= 0 {
            return self.qsearch(pos, alpha, beta, ply, pv_node, true);
        }
        self.count_node();
        if self.seldepth < ply + 1 {
            self.seldepth = ply + 1;
        }
        let in_check = self.stack[self.idx(ply)].checked;

        if !root {
            if self.stopped() {
                return 0;
            }
            if let Some(v) = self.repetition(ply) {
                return v;
            }
            // The rules' endings (RULES.md §4.3-4.4), in the rules core's order: no legal
            // move loses before the move limit or bare material draws.
            let counted = self.stack[self.idx(ply)].counted;
            let limit = matches!(self.shared.rules.move_limit, Some(l) if counted >= l);
            if limit || insufficient_material(pos.board()) {
                if pos.has_no_legal_move() {
                    return mated_in(ply);
                }
                return DRAW;
            }
            if ply >= MAX_PLY - 1 {
                return if in_check { 0 } else { self.evaluate(pos, ply) };
            }
            // Mate distance pruning.
            alpha = alpha.max(mated_in(ply));
            beta = beta.min(mate_in(ply + 1));
            if alpha >= beta {
                return alpha;
            }
            if let Some(v) = self.tb_probe(pos, ply, depth) {
                return v;
            }
        }

        let key = pos.key();
        let excluded = self.excluded[ply];
        let tte = self.shared.tt.probe(key);
        let tt_move = if root {
            Some(self.root_moves[self.pv_idx].mv)
        } else {
            tte.and_then(|e| e.mv).filter(|&m| pos.is_legal(m))
        };
        if let Some(e) = tte {
            if !pv_node && excluded.is_none() && e.depth >= depth {
                let s = score_from_tt(e.score, ply);
                let cut = match e.bound {
                    Bound::Exact => true,
                    Bound::Lower => s >= beta,
                    Bound::Upper => s <= alpha,
                };
                if cut {
                    return s;
                }
            }
        }

        let static_eval = if in_check {
            -INF
        } else if let Some(e) = tte {
            e.eval
        } else {
            self.evaluate(pos, ply)
        };
        self.static_eval[ply] = static_eval;
        let improving = !in_check && ply >= 2 && static_eval > self.static_eval[ply - 2];
        self.killers[ply + 1] = [None; 2];

        if !pv_node
            && !in_check
            && excluded.is_none()
            && beta.abs() < TB_WIN_BOUND
            && alpha.abs() < TB_WIN_BOUND
        {
            // Reverse futility pruning.
            if depth <= 7
                && static_eval - 85 * (depth - improving as i32) >= beta
                && static_eval.abs() < TB_WIN_BOUND
            {
                return static_eval;
            }
            // Razoring: hopeless at low depth, verify with quiescence.
            if depth <= 3 && static_eval + 250 * depth < alpha {
                let v = self.qsearch(pos, alpha, alpha + 1, ply, false, false);
                if v <= alpha {
                    return v;
                }
            }
            // Null move pruning.
            let b = pos.board();
            let us = b.by_color(pos.turn());
            let pieces =
                (b.by_role(Role::Chariot) | b.by_role(Role::Horse) | b.by_role(Role::Cannon)) & us;
            if depth >= 3
                && static_eval >= beta
                && beta.abs() < TB_WIN_BOUND
                && pieces.any()
                && self.stack[self.idx(ply)].mv.is_some()
            {
                let r = 3 + depth / 4 + ((static_eval - beta) / 200).min(3);
                let mut child = pos.clone();
                child.play_null();
                let i = self.idx(ply + 1);
                // A null move is no ply of the game: the move-limit count stays.
                let parent = self.stack[self.idx(ply)];
                self.stack[i] = Frame {
                    key: child.key(),
                    checked: false,
                    window: 0,
                    mv: None,
                    ..parent
                };
                self.moved[ply + 1] = NO_PIECE_TO;
                if let Some(n) = &mut self.nnue {
                    n.make_null(ply);
                }
                let v = -self.search(
                    &child,
                    -beta,
                    -beta + 1,
                    depth - r,
                    ply + 1,
                    false,
                    !cut_node,
                );
                if self.stopped() {
                    return 0;
                }
                if v >= beta {
                    return if v >= TB_WIN_BOUND { beta } else { v };
                }
            }
        }

        // Internal iterative reduction: without a hash move this node was not searched before.
        if tt_move.is_none() && depth >= 5 && (pv_node || cut_node) {
            depth -= 1;
        }

        let moves = if root {
            let mut l = MoveList::new();
            for rm in &self.root_moves[self.pv_idx..] {
                l.push(rm.mv);
            }
            l
        } else {
            pos.legal_moves()
        };
        if moves.is_empty() {
            // Checkmate and stalemate both lose.
            return mated_in(ply);
        }
        let turn = pos.turn().index();
        // Continuation-history rows of this node (ordering, reductions, updates).
        let (c1, c2) = self.cont_rows(ply);
        let mut picker = if root {
            // Root moves keep the order of the last iteration.
            let mut p = Picker::captures(pos, moves, None);
            p.keep_order();
            p
        } else {
            let prev = self.stack[self.idx(ply)].mv;
            let counter = prev.and_then(|p| self.counter[history_index(turn, p)]);
            let (hist, cont, capt) = (&self.history, &self.cont, &self.capture_hist);
            Picker::new(
                pos,
                moves,
                tt_move,
                self.killers[ply],
                counter,
                |m| quiet_stat(hist, cont, c1, c2, turn, piece_to(pos, m), m),
                |m| capt[capture_index(pos, m)] as i32,
            )
        };

        let orig_alpha = alpha;
        let mut best = -INF;
        let mut best_move: Option<Move> = None;
        let mut move_count = 0;
        let mut quiets: [Move; 64] = [NO_MOVE; 64];
        let mut nquiets = 0;
        let mut captures: [Move; 32] = [NO_MOVE; 32];
        let mut ncaptures = 0;
        let mut skip_quiets = false;

        while let Some((m, order)) = picker.pick() {
            if Some(m) == excluded {
                continue;
            }
            let capture = pos.piece_at(m.to()).is_some();
            let mut child = pos.clone();
            child.play_unchecked(m);
            let gives_check = child.is_check();
            if skip_quiets && !capture && !gives_check {
                continue;
            }
            move_count += 1;

            // Pruning at shallow depth, once a move has been found not to lose by mate.
            if !root && best > -TB_WIN_BOUND && alpha < TB_WIN_BOUND && !in_check {
                let lmr_depth = (depth - self.reduction(depth, move_count) as i32).max(0);
                if !capture && !gives_check {
                    if move_count >= (3 + depth * depth) as usize / (2 - improving as usize) {
                        skip_quiets = true;
                        continue;
                    }
                    if lmr_depth <= 6 && static_eval + 120 + 100 * lmr_depth <= alpha {
                        continue;
                    }
                    if lmr_depth <= 4 && !see_ge(pos, m, -25 * lmr_depth * lmr_depth) {
                        continue;
                    }
                } else if capture
                    && depth <= 6
                    && is_bad_capture_score(order)
                    && !see_ge(pos, m, -110 * depth)
                {
                    continue;
                }
            }

            // Check extension (bounded so perpetual checks cannot blow up the tree).
            let mut extension =
                if gives_check && (ply as i32) < 2 * self.root_depth && see_ge(pos, m, 0) {
                    1
                } else {
                    0
                };
            // Singular extension: the hash move is much better than every other move (a
            // search without it fails low well below its score), so it gets one ply more;
            // if even without it the node fails high, several moves refute it (multi-cut).
            if !root
                && Some(m) == tt_move
                && excluded.is_none()
                && depth >= 7
                && (ply as i32) < 2 * self.root_depth
            {
                if let Some(e) = tte {
                    let s = score_from_tt(e.score, ply);
                    if e.depth >= depth - 3 && e.bound != Bound::Upper && s.abs() < TB_WIN_BOUND {
                        let sbeta = s - 2 * depth;
                        self.excluded[ply] = Some(m);
                        let v = self.search(
                            pos,
                            sbeta - 1,
                            sbeta,
                            (depth - 1) / 2,
                            ply,
                            false,
                            cut_node,
                        );
                        self.excluded[ply] = None;
                        if self.stopped() {
                            return 0;
                        }
                        if v < sbeta {
                            extension = 1;
                        } else if sbeta >= beta {
                            return sbeta;
                        }
                    }
                }
            }
            let new_depth = depth - 1 + extension;
            self.push_child(ply, pos, &child, m, capture, gives_check);

            let mut v;
            if move_count == 1 {
                v = -self.search(&child, -beta, -alpha, new_depth, ply + 1, pv_node, false);
            } else {
                // Late move reductions for quiet moves.
                let mut r = 0;
                if depth >= 3 && move_count > 1 + 2 * pv_node as usize && !capture {
                    r = self.reduction(depth, move_count) as i32;
                    if pv_node {
                        r -= 1;
                    }
                    if cut_node {
                        r += 1;
                    }
                    if !improving {
                        r += 1;
                    }
                    if gives_check || in_check {
                        r -= 1;
                    }
                    if order >= movepick::KILLER {
                        r -= 1;
                    }
                    let stat = quiet_stat(
                        &self.history,
                        &self.cont,
                        c1,
                        c2,
                        turn,
                        self.moved[ply + 1],
                        m,
                    );
                    r -= (stat / 10000).clamp(-2, 2);
                    r = r.clamp(0, new_depth - 1);
                }
                v = -self.search(
                    &child,
                    -alpha - 1,
                    -alpha,
                    new_depth - r,
                    ply + 1,
                    false,
                    true,
                );
                if v > alpha && r > 0 {
                    v = -self.search(
                        &child,
                        -alpha - 1,
                        -alpha,
                        new_depth,
                        ply + 1,
                        false,
                        !cut_node,
                    );
                }
                if v > alpha && pv_node && (root || v < beta) {
                    v = -self.search(&child, -beta, -alpha, new_depth, ply + 1, true, false);
                }
            }
            if self.stopped() {
                return 0;
            }

            if root {
                let seldepth = self.seldepth;
                let pv_tail: Vec<Move> = self.pv[1][..self.pv_len[1]].to_vec();
                let rm = self
                    .root_moves
                    .iter_mut()
                    .find(|r| r.mv == m)
                    .expect("root move");
                if move_count == 1 || v > alpha {
                    rm.score = v;
                    rm.seldepth = seldepth;
                    rm.pv.clear();
                    rm.pv.push(m);
                    rm.pv.extend(pv_tail);
                } else {
                    rm.score = -INF;
                }
            }

            if v > best {
                best = v;
                if v > alpha {
                    best_move = Some(m);
                    if pv_node {
                        self.update_pv(ply, m);
                    }
                    if v >= beta {
                        break;
                    }
                    alpha = v;
                }
            }
            if Some(m) != best_move {
                if !capture && nquiets < quiets.len() {
                    quiets[nquiets] = m;
                    nquiets += 1;
                } else if capture && ncaptures < captures.len() {
                    captures[ncaptures] = m;
                    ncaptures += 1;
                }
            }
        }

        if let (Some(bm), true) = (best_move, best >= beta) {
            let bonus = (depth * depth * 16).min(1600);
            if pos.piece_at(bm.to()).is_some() {
                update_cont(&mut self.capture_hist[capture_index(pos, bm)], bonus);
            }
            for &c in &captures[..ncaptures] {
                update_cont(&mut self.capture_hist[capture_index(pos, c)], -bonus);
            }
        }
        if let Some(bm) = best_move {
            if best >= beta && pos.piece_at(bm.to()).is_none() {
                // A quiet move refuted this node: remember it.
                if self.killers[ply][0] != Some(bm) {
                    self.killers[ply][1] = self.killers[ply][0];
                    self.killers[ply][0] = Some(bm);
                }
                if let Some(p) = self.stack[self.idx(ply)].mv {
                    self.counter[history_index(turn, p)] = Some(bm);
                }
                let bonus = (depth * depth * 16).min(1600);
                update_history(&mut self.history[history_index(turn, bm)], bonus);
                let pt = piece_to(pos, bm) as usize;
                for row in [c1, c2].into_iter().flatten() {
                    update_cont(&mut self.cont[row + pt], bonus);
                }
                for &q in &quiets[..nquiets] {
                    update_history(&mut self.history[history_index(turn, q)], -bonus);
                    let pt = piece_to(pos, q) as usize;
                    for row in [c1, c2].into_iter().flatten() {
                        update_cont(&mut self.cont[row + pt], -bonus);
                    }
                }
            }
        }

        if excluded.is_none() && (!root || self.pv_idx == 0) {
            let bound = if best >= beta {
                Bound::Lower
            } else if pv_node && best > orig_alpha {
                Bound::Exact
            } else {
                Bound::Upper
            };
            self.shared.tt.store(
                key,
                best_move,
                score_to_tt(best, ply),
                if in_check { 0 } else { static_eval },
                depth,
                bound,
            );
        }
        best
    }

    /// The continuation-history rows for the moves one and two plies before `ply`.
    fn cont_rows(&self, ply: usize) -> (Option<usize>, Option<usize>) {
        let row = |v: u16| (v != NO_PIECE_TO).then(|| v as usize * PIECE_TO);
        let c1 = row(self.moved[ply]);
        let c2 = if ply >= 1 {
            row(self.moved[ply - 1])
        } else {
            None
        };
        (c1, c2)
    }

    fn reduction(&self, depth: i32, n: usize) -> u8 {
        self.lmr[(depth as usize).min(63)][n.min(63)]
    }

    fn qsearch(
        &mut self,
        pos: &Position,
        mut alpha: i32,
        beta: i32,
        ply: usize,
        pv_node: bool,
        checks: bool,
    ) -> i32 {
        self.count_node();
        self.pv_len[ply] = 0;
        if self.seldepth < ply + 1 {
            self.seldepth = ply + 1;
        }
        if self.stopped() {
            return 0;
        }
        let in_check = self.stack[self.idx(ply)].checked;
        if ply >= MAX_PLY - 1 {
            return if in_check { 0 } else { self.evaluate(pos, ply) };
        }
        if let Some(v) = self.repetition(ply) {
            return v;
        }
        if let Some(v) = self.tb_probe(pos, ply, 0) {
            return v;
        }
        let key = pos.key();
        let tte = self.shared.tt.probe(key);
        if let Some(e) = tte {
            if !pv_node {
                let s = score_from_tt(e.score, ply);
                let cut = match e.bound {
                    Bound::Exact => true,
                    Bound::Lower => s >= beta,
                    Bound::Upper => s <= alpha,
                };
                if cut {
                    return s;
                }
            }
        }
        let tt_move = tte.and_then(|e| e.mv);

        let mut best;
        let stand_pat;
        let moves = if in_check {
            best = -INF;
            stand_pat = -INF;
            let l = pos.legal_moves();
            if l.is_empty() {
                return mated_in(ply);
            }
            l
        } else {
            stand_pat = match tte {
                Some(e) => e.eval,
                None => self.evaluate(pos, ply),
            };
            if stand_pat >= beta {
                return stand_pat;
            }
            if stand_pat > alpha {
                alpha = stand_pat;
            }
            best = stand_pat;
            let mut list = movepick::captures(pos);
            if checks {
                // At the horizon, quiet moves that check directly are searched too.
                movepick::add_quiet_checks(pos, &mut list);
            }
            list
        };
        let tt_move = tt_move.filter(|m| moves.contains(m));
        let mut picker = Picker::captures(pos, moves, tt_move);
        let mut best_move = None;
        let mut searched = 0;
        while let Some((m, _)) = picker.pick() {
            let victim = pos.piece_at(m.to());
            if !in_check && victim.is_none() {
                // A quiet check: only if it does not lose the checking piece.
                if !see_ge(pos, m, 0) {
                    continue;
                }
            } else if !in_check {
                let gain = victim.map_or(0, |p| crate::eval::SEE_VALUE[p.role.index()]);
                // Delta pruning: even winning the piece cannot lift the score to alpha.
                if stand_pat + gain + 200 <= alpha {
                    continue;
                }
                if !see_ge(pos, m, 0) {
                    continue;
                }
            } else if best > -TB_WIN_BOUND
                && victim.is_none()
                && searched >= 2
                && !see_ge(pos, m, 0)
            {
                continue;
            }
            let mut child = pos.clone();
            child.play_unchecked(m);
            let checked = child.is_check();
            self.push_child(ply, pos, &child, m, victim.is_some(), checked);
            searched += 1;
            let v = -self.qsearch(&child, -beta, -alpha, ply + 1, pv_node, false);
            if self.stopped() {
                return 0;
            }
            if v > best {
                best = v;
                if v > alpha {
                    best_move = Some(m);
                    if pv_node {
                        self.update_pv(ply, m);
                    }
                    if v >= beta {
                        break;
                    }
                    alpha = v;
                }
            }
        }
        let bound = if best >= beta {
            Bound::Lower
        } else {
            Bound::Upper
        };
        if best_move.is_some() || tte.is_none() {
            self.shared.tt.store(
                key,
                best_move,
                score_to_tt(best, ply),
                if in_check { 0 } else { stand_pat },
                0,
                bound,
            );
        }
        best
    }
}

/// The ordering statistic of a quiet move: its butterfly history plus its continuation
/// histories after the last two moves.
#[inline]
fn quiet_stat(
    hist: &[i32],
    cont: &[i16],
    c1: Option<usize>,
    c2: Option<usize>,
    turn: usize,
    pt: u16,
    m: Move,
) -> i32 {
    let mut s = hist[history_index(turn, m)];
    if pt != NO_PIECE_TO {
        for row in [c1, c2].into_iter().flatten() {
            s += cont[row + pt as usize] as i32;
        }
    }
    s
}

/// The search score of a table's value at `ply`, or `None` where the rules may say
/// otherwise (docs/TABLEBASES.md, "In the engine"):
///
/// - a win or loss is a mate at exactly its DTM (the tables' mates never repeat a position,
///   so the repetition rulings cannot change them), unless the move limit comes first:
///   `plies_left` is what remains of it (`None`: no limit), and a DTM that does not fit is
///   not trusted;
/// - a draw is trusted only in sets where one side has no attacker (it cannot give check,
///   so no perpetual check can decide them); where both sides have one, the tables ignore
///   the perpetual check and chase rulings that may make a "draw" a loss, and the search
///   decides.
pub fn tb_score(value: Value, m: &Material, ply: usize, plies_left: Option<u32>) -> Option<i32> {
    match value {
        Value::Win(d) | Value::Loss(d) => {
            let d = d as usize;
            if plies_left.is_some_and(|l| d as u32 >= l) || ply + d >= 2 * MAX_PLY {
                return None;
            }
            Some(if matches!(value, Value::Win(_)) {
                mate_in(ply + d)
            } else {
                mated_in(ply + d)
            })
        }
        Value::Draw => {
            let both = m.has_attacker(Color::Red) && m.has_attacker(Color::Black);
            (!both).then_some(DRAW)
        }
    }
}

/// The search score at `ply` of a standard draw's value under the rule on perpetual check
/// (a set where both sides have attackers): a win or loss by the rule scores
/// [`TB_WIN`] less the ply (from the loser's side its negation); a draw under the rule too
/// stays `None`, since the tables ignore the perpetual chase ruling that may still decide
/// it, and the search decides. The rule's results are trusted whatever remains of the
/// move limit, as at the root: the tables keep no distance for them.
pub fn rule_score(value: RuleValue, ply: usize) -> Option<i32> {
    match value {
        RuleValue::WinByRule => Some(TB_WIN - ply as i32),
        RuleValue::LossByRule => Some(-TB_WIN + ply as i32),
        _ => None,
    }
}

/// What [`root_probe`] decided.
pub struct RootProbe {
    /// The root's value in the tables.
    pub value: Value,
    /// Positions probed (the root and every move's).
    pub probes: u64,
    /// The `info string` line saying what was done.
    pub message: String,
}

/// Root probing: when the root's material has a table, keeps of `moves` those the tables
/// say are best: from a win the fastest mates, from a loss the longest defences, from a
/// draw the moves that keep the draw (the search then chooses among them, with the
/// repetition rulings the tables ignore); from a loss where both sides have attackers, all
/// of them (the longest table defence may be a perpetual check), and from a draw lost by
/// the rule on perpetual check, all of them too (its drawing moves are the checks the
/// ruling loses; a table loss far off may resist longer). `plies_left` is what remains of
/// the move limit:
/// a win or loss whose DTM does not fit in it is left to the search (only moves to
/// table losses are dropped from a won or drawn root). `None` when nothing is known.
pub fn root_probe(
    tb: &Tablebase,
    root: &Position,
    moves: &mut Vec<Move>,
    plies_left: Option<u32>,
) -> Option<RootProbe> {
    let m = Material::of_board(root.board());
    if !m.any_attacker() || !tb.covers(root) || moves.is_empty() {
        return None;
    }
    let value = tb.probe(root).ok()?;
    let mut scored = Vec::with_capacity(moves.len());
    for &mv in moves.iter() {
        let mut child = root.clone();
        child.play_unchecked(mv);
        scored.push((mv, tb.probe(&child).ok()?.parent()));
    }
    let probes = 1 + scored.len() as u64;
    let best = scored.iter().map(|(_, v)| v.rank()).max()?;
    let fits = |v: Value| {
        v.dtm()
            .is_none_or(|d| plies_left.is_none_or(|l| (d as u32) < l))
    };
    let best_value = scored.iter().find(|(_, v)| v.rank() == best)?.1;
    let before = moves.len();
    // Where the loser has an attacker too, its longest table defence may be a perpetual
    // check, which the rules lose at once: the search chooses among all the moves (their
    // positions are probed, and the repetition rulings come first).
    let both = m.has_attacker(Color::Red) && m.has_attacker(Color::Black);
    // A standard draw's value under the rule on perpetual check, where the tables keep it.
    let mut rule = None;
    // Likewise from a standard draw lost by the rule: its drawing moves are the checks that
    // the ruling loses (with no distance the tables keep), its other moves table losses at a
    // known distance; the search weighs the ruling, which it sees in its tree, against the
    // longest of those (an opponent must find the mate, and needs nothing to be given the
    // ruling).
    let lost_by_rule = both
        && best_value == Value::Draw
        && fits(best_value)
        && tb.probe_rules(root).ok() == Some(RuleValue::LossByRule);
    let kept: Vec<Move> = if both && matches!(best_value, Value::Loss(_)) {
        moves.clone()
    } else if lost_by_rule {
        rule = Some(RuleValue::LossByRule);
        moves.clone()
    } else if fits(best_value) {
        match best_value {
            // The fastest mate, or the longest resistance.
            Value::Win(_) | Value::Loss(_) => scored
                .iter()
                .filter(|(_, v)| v.rank() == best)
                .map(|&(mv, _)| mv)
                .collect(),
            Value::Draw => {
                let draws: Vec<Move> = scored
                    .iter()
                    .filter(|(_, v)| *v == Value::Draw)
                    .map(|&(mv, _)| mv)
                    .collect();
                match by_rule(tb, root, &draws) {
                    Some((kept, v)) => {
                        rule = Some(v);
                        kept
                    }
                    None => draws,
                }
            }
        }
    } else {
        // The move limit may come first: only drop the moves to table losses.
        scored
            .iter()
            .filter(|(_, v)| !matches!(v, Value::Loss(_)) || best < 0)
            .map(|&(mv, _)| mv)
            .collect()
    };
    *moves = kept;
    let set = m.canonical();
    let what = match (best_value, rule) {
        (Value::Win(d), _) => format!("win, mate in {d} plies"),
        (Value::Draw, Some(RuleValue::WinByRule)) => {
            "draw, won by the rule on perpetual check".to_string()
        }
        (Value::Draw, Some(RuleValue::LossByRule)) => {
            "draw, lost by the rule on perpetual check".to_string()
        }
        (Value::Draw, _) => "draw".to_string(),
        (Value::Loss(d), _) => format!("loss, mated in {d} plies"),
    };
    Some(RootProbe {
        value,
        probes,
        message: format!(
            "tablebase {set}: {what}; {} of {before} moves kept",
            moves.len()
        ),
    })
}

/// Of a standard draw's drawing `moves`, those the rule on perpetual check says are best
/// (the tables' rule-aware results, which the rules core's `Game` applies): from a position
/// won by the rule, the moves to positions the opponent loses by it (the search then finds
/// the way, quiet moves included: the tables keep no distance for these wins); from one
/// still drawn, the moves that keep it drawn (not those into a position the opponent wins by
/// the rule); from one lost by the rule, all of them (the search chooses). With the mover's
/// value by the rule; `None` when the tables keep no rule-aware results.
fn by_rule(tb: &Tablebase, root: &Position, moves: &[Move]) -> Option<(Vec<Move>, RuleValue)> {
    let mut scored = Vec::with_capacity(moves.len());
    for &mv in moves {
        let mut child = root.clone();
        child.play_unchecked(mv);
        scored.push((mv, tb.probe_rules(&child).ok()?.parent()));
    }
    let best = scored.iter().map(|(_, v)| v.rank()).max()?;
    let value = scored.iter().find(|(_, v)| v.rank() == best)?.1;
    let kept = match value {
        RuleValue::LossByRule => moves.to_vec(),
        _ => scored
            .iter()
            .filter(|(_, v)| v.rank() == best)
            .map(|&(mv, _)| mv)
            .collect(),
    };
    Some((kept, value))
}

fn update_history(h: &mut i32, bonus: i32) {
    *h += bonus - *h * bonus.abs() / 16384;
}

fn sort_root(moves: &mut [RootMove]) {
    moves.sort_by_key(|m| std::cmp::Reverse(m.score));
}

/// Mates and tablebase wins by the rule are stored from the node (their distance from the
/// root would be wrong at another ply).
fn score_to_tt(v: i32, ply: usize) -> i32 {
    if v >= TB_WIN_BOUND {
        v + ply as i32
    } else if v <= -TB_WIN_BOUND {
        v - ply as i32
    } else {
        v
    }
}

fn score_from_tt(v: i32, ply: usize) -> i32 {
    if v >= TB_WIN_BOUND {
        v - ply as i32
    } else if v <= -TB_WIN_BOUND {
        v + ply as i32
    } else {
        v
    }
}

/// Helper threads skip some depths so that they spread over more depths than the main
/// thread (each helper its own pattern of block sizes and phases).
fn skip_depth(id: usize, depth: i32) -> bool {
    const SIZE: [i32; 20] = [1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4];
    const PHASE: [i32; 20] = [0, 1, 0, 1, 2, 3, 0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5, 6, 7];
    let i = (id - 1) % 20;
    ((depth + PHASE[i]) / SIZE[i]) % 2 != 0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The search's move-limit count follows the rules core's along games full of checks
    /// (so that a side passes its tenth check since the last capture).
    #[test]
    fn move_limit_count_agrees_with_the_rules_core() {
        let mut rng = crate::skill::Rng::new(0x2545_f491_4f6c_dd1d);
        let mut next = |n: usize| (rng.next_u64() % n as u64) as usize;
        let mut beyond_tenth = 0;
        for _ in 0..20 {
            let mut pos = Position::new();
            let mut h = History::new(pos.clone());
            let mut frame = Frame::default();
            for _ in 0..300 {
                let moves: Vec<Move> = pos.legal_moves().iter().copied().collect();
                if moves.is_empty() {
                    break;
                }
                // Prefer checks, then quiet moves; capture only now and then.
                let gives_check = |m: Move| {
                    let mut c = pos.clone();
                    c.play_unchecked(m);
                    c.is_check()
                };
                let quiet: Vec<Move> = moves
                    .iter()
                    .copied()
                    .filter(|&m| pos.board().piece_at(m.to()).is_none())
                    .collect();
                let checks: Vec<Move> = quiet.iter().copied().filter(|&m| gives_check(m)).collect();
                let m = if !checks.is_empty() && next(4) > 0 {
                    checks[next(checks.len())]
                } else if !quiet.is_empty() && next(30) > 0 {
                    quiet[next(quiet.len())]
                } else {
                    moves[next(moves.len())]
                };
                let mover = pos.turn();
                let capture = pos.play_unchecked(m).is_some();
                h.push(m);
                (frame.counted, frame.checks) = frame.limit_after(mover, capture, pos.is_check());
                assert_eq!(frame.counted, h.move_limit_count());
                for c in [Color::Red, Color::Black] {
                    assert_eq!(frame.checks[c.index()], h.checks_since_capture(c));
                }
                if frame.checks.iter().any(|&c| c > COUNTED_CHECKS) {
                    beyond_tenth += 1;
                }
            }
        }
        assert!(beyond_tenth > 0, "no game passed a side's tenth check");
    }
}
