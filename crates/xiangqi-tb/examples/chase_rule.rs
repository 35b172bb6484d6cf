//! Examines what the perpetual-chase rule could change in the tables, which apply only the
//! rule on perpetual check (docs/TABLEBASES.md, "Rules the tables assume").
//!
//! For each set named (and the smaller sets its captures lead to) the arena is the set's
//! standard draws and the moves between them, as the generator's perpetual-check arena. Each
//! move is marked when it gives check, and when it chases a piece of the other side (the
//! rules core's `chases`, the judgement `Game` makes). For each side X, X wins if from some
//! point on the other side checks or chases on every move while X does not check on every
//! move; X's captures into a smaller set's position so won count as wins, the other side's
//! captures into a position X does not so win as escapes. That is an upper bound on what the
//! two rules together give X:
//!
//! - a side that loses by perpetual chase must chase one and the same piece on every move,
//!   here any chase (or check) on every move will do;
//! - X's own chases, which make such a cycle a draw, are not held against it.
//!
//! It contains what the tables already give X by the perpetual-check rule (checked: the
//! program counts any position that is won by that rule and not by the bound, which would be
//! an error on one side or the other), and what it finds beyond that is the most the chase
//! rule could add. When that is nothing, the chase rule changes none of the set's draws.
//!
//! ```text
//! cargo run --release -p xiangqi-tb --example chase_rule -- [--mark-all] [--lower [--x-may-chase]] [--exact] DIR SET...
//! ```
//!
//! `--mark-all` checks the game itself: every move is marked as if it chased, so every draw
//! from which X can play on without checking on every move should be found won by X. With
//! `--exact` it also checks the exact game: the other side's every move then chases all of
//! X's pieces and X's none, so the exact game must win all of the bound's region.
//!
//! `--exact` judges, where the bound finds anything beyond the check rule or the check rule
//! finds wins, the exact game: the chased piece chosen during play, each side's own checks
//! and chases held against it as the rules core's `History::repetition_verdict` holds them
//! (see `Examiner::exact_game`). Its wins beyond the check rule's are what the chase rule
//! adds. It checks itself twice: the same game with every chase ignored must give exactly
//! the check rule's wins, and every check-rule win must be a win of the exact game.
//!
//! `--lower` adds, where the bound finds more than the check rule, a **lower bound**: for
//! each piece of X alone of its kind, the game in which the other side's marked moves are
//! those that chase that piece and X's those that check or chase; its wins are wins by the
//! rules (see `lower_bound`). It also shows, not counted, the same games for a kind X has
//! two of, and with the other side's plain checks marked as well (a cycle mixing checks
//! with chases is no offence by RULES.md §5.4). `--x-may-chase` marks only X's checks, a
//! looser game whose wins are no longer sure ones.

use std::collections::{HashMap, HashSet};

use xiangqi::adjudicate::{chases, PieceIds};
use xiangqi::{Color, Position, Role};
use xiangqi_tb::{
    orient, solve_parity_game, solve_rule_game, Indexer, Material, RuleValue, Tablebase, Value,
};

/// An edge's target node with these bits: the move gives check; it chases.
const CHECK: u32 = 1 << 31;
const CHASE: u32 = 1 << 30;
const NODE: u32 = CHASE - 1;

/// Per set (canonical material): for Red and Black of that material, the indices of the
/// standard draws that side wins by the bound.
type Won = [HashSet<u64>; 2];

struct Examiner<'a> {
    tb: &'a Tablebase,
    mark_all: bool,
    lower: bool,
    x_may_chase: bool,
    exact: bool,
    done: HashMap<Material, Won>,
    indexers: HashMap<Material, Indexer>,
    report: Vec<String>,
}

impl Examiner<'_> {
    /// Whether `x` (a real colour) wins the position `c` (in a smaller set) by the bound.
    fn won_by(&mut self, c: &Position, x: Color) -> bool {
        let (m, swapped) = orient(c);
        if !m.any_attacker() {
            return false; // drawn by the material left
        }
        let ix = self.indexers.entry(m).or_insert_with(|| Indexer::new(m));
        let i = ix.index(swapped.as_ref().unwrap_or(c));
        let side = if swapped.is_some() { !x } else { x };
        self.set(m)[side.index()].contains(&i)
    }

    fn set(&mut self, m: Material) -> &Won {
        if !self.done.contains_key(&m) {
            let w = self.solve_set(m);
            self.done.insert(m, w);
        }
        &self.done[&m]
    }

    fn solve_set(&mut self, m: Material) -> Won {
        let ix = Indexer::new(m);
        let mut node: HashMap<u64, u32> = HashMap::new();
        let mut positions = Vec::new();
        for i in 0..ix.size() {
            let Some(p) = ix.position(i) else { continue };
            if self.tb.probe(&p).expect("the set's table") == Value::Draw {
                node.insert(i, positions.len() as u32);
                positions.push((i, p));
            }
        }
        let n = positions.len();
        let mut offsets = vec![0u32];
        let mut edges = Vec::new();
        // Per edge: bit 0 the move checks, bit r a piece of role r is chased (for --lower).
        let mut flags: Vec<u8> = Vec::new();
        // Per node and per X: X's captures win (at X's nodes), or the other side has a
        // capture that escapes (at its nodes).
        let mut cap = vec![[false; 2]; n];
        for (v, (_, p)) in positions.iter().enumerate() {
            let ids = PieceIds::new(p.board());
            let mover = p.turn();
            for &mv in p.legal_moves().iter() {
                let mut c = p.clone();
                c.play_unchecked(mv);
                if p.piece_at(mv.to()).is_some() {
                    if self.tb.probe(&c).expect("the smaller table") != Value::Draw {
                        continue; // from a draw, only a loss for the mover
                    }
                    // As X = the mover: a win if X wins there; as X = the other side: an
                    // escape if X does not.
                    if self.won_by(&c, mover) {
                        cap[v][mover.index()] = true;
                    }
                    if !self.won_by(&c, !mover) {
                        cap[v][(!mover).index()] = true;
                    }
                    continue;
                }
                let Some(&to) = node.get(&ix.index(&c)) else {
                    continue; // a move to a decided position: a win for the opponent
                };
                let mut e = to;
                if c.is_check() {
                    e |= CHECK;
                }
                let mut f = c.is_check() as u8;
                let chased = self.mark_all || {
                    let mut after = ids.clone();
                    after.apply(mv);
                    let threats = chases(p, &ids, &c, &after);
                    for t in &threats {
                        f |= 1 << t.victim.role as u8;
                    }
                    !threats.is_empty()
                };
                if chased {
                    e |= CHASE;
                }
                edges.push(e);
                flags.push(f);
            }
            offsets.push(edges.len() as u32);
        }
        let mut won: Won = [HashSet::new(), HashSet::new()];
        for x in [Color::Red, Color::Black] {
            let w = solve(&positions, &offsets, &edges, &cap, x);
            let (mut new_x, mut new_o, mut missed, mut by_check) = (0u64, 0u64, 0u64, 0u64);
            let mut examples = Vec::new();
            // Won by X under the perpetual-check rule, as the table says (probed once).
            let by_rule: Vec<bool> = positions
                .iter()
                .map(
                    |(_, p)| match self.tb.probe_rules(p).expect("rule results") {
                        RuleValue::WinByRule => p.turn() == x,
                        RuleValue::LossByRule => p.turn() != x,
                        _ => false,
                    },
                )
                .collect();
            for (v, (i, p)) in positions.iter().enumerate() {
                let by_rule = by_rule[v];
                by_check += by_rule as u64;
                if w[v] && !by_rule && p.turn() == x && examples.len() < 3 {
                    examples.push(p.fen());
                }
                match (w[v], by_rule) {
                    (true, false) if p.turn() == x => new_x += 1,
                    (true, false) => new_o += 1,
                    (false, true) => missed += 1,
                    _ => {}
                }
                if w[v] {
                    won[x.index()].insert(*i);
                }
            }
            let chase_moves = edges.iter().filter(|&&e| e & CHASE != 0).count();
            self.report.push(format!(
                "{m}, {x:?} (as the table names it) winning: {n} standard draws, {chase_moves} chasing moves \
                 among them; won by the perpetual-check rule {by_check}; beyond those the chase \
                 rule could add at most {} ({x:?} to move {new_x}, the other {new_o}); won by the \
                 check rule but not by the bound: {missed}",
                new_x + new_o
            ));
            for fen in examples {
                self.report.push(format!("  e.g. {fen}"));
            }
            if self.lower && new_x + new_o > 0 {
                self.lower_bound(m, x, &positions, &offsets, &edges, &flags, &cap, &by_rule);
            }
            if self.exact && new_x + new_o + by_check > 0 {
                let arena = Upper {
                    ix: &ix,
                    node: &node,
                    positions: &positions,
                    won: &w,
                    cap: &cap,
                    by_rule: &by_rule,
                };
                self.exact_game(m, x, &arena);
            }
        }
        won
    }
}

impl Examiner<'_> {
    /// `--lower`: wins X surely has by the two rules, as the rules core rules a cycle
    /// (`History::repetition_verdict`: a side that checks on every move, else one that chases
    /// one and the same piece on every move, loses against a side that does neither). For
    /// each piece `v` of X alone of its kind (and, shown but not counted, each kind X has
    /// two of), the other side's moves that chase `v` (checking
    /// or not) are marked, and X's moves that check or chase anything: X wins where, from
    /// some point on, the other side can only chase `v` and X can again and again neither
    /// check nor chase. Each such win is one by the rules (X's condition is stricter than
    /// the rules', which only forbid X checking on every move or chasing one piece on every
    /// move); the union over `v`, with the check rule's wins, is a lower bound. (The captures
    /// into smaller sets are valued by the upper bound, which equals the check rule's wins
    /// in the sets this was run on.)
    #[allow(clippy::too_many_arguments)]
    fn lower_bound(
        &mut self,
        m: Material,
        x: Color,
        positions: &[(u64, Position)],
        offsets: &[u32],
        edges: &[u32],
        flags: &[u8],
        cap: &[[bool; 2]],
        by_rule: &[bool],
    ) {
        const MARK: u32 = CHECK;
        let x_node: Vec<bool> = positions.iter().map(|(_, p)| p.turn() == x).collect();
        let at_once: Vec<bool> = cap.iter().map(|c| c[x.index()]).collect();
        let board = positions[0].1.board();
        let mut any = vec![false; positions.len()];
        for role in Role::ALL.into_iter().filter(|&r| r != Role::General) {
            let n = board
                .pieces()
                .filter(|(_, pc)| pc.color == x && pc.role == role)
                .count();
            if n == 0 {
                continue;
            }
            let bit = 1u8 << role as u8;
            // Second, the other side's plain checks marked too: a cycle mixing them with
            // chases of the piece is no offence (RULES.md §5.4: one check and one chase
            // alternating is not perpetual anything), so those wins are shown, not counted.
            for with_checks in [false, true] {
                let o_mark = if with_checks { bit | 1 } else { bit };
                let marked: Vec<u32> = (0..positions.len())
                    .flat_map(|v| {
                        let xs = x_node[v];
                        (offsets[v] as usize..offsets[v + 1] as usize).map(move |k| (k, xs))
                    })
                    .map(|(k, xs)| {
                        let f = flags[k];
                        let mark = if !xs {
                            f & o_mark != 0
                        } else if self.x_may_chase {
                            f & 1 != 0
                        } else {
                            f != 0
                        };
                        (edges[k] & NODE) | if mark { MARK } else { 0 }
                    })
                    .collect();
                let (w, passes) =
                    solve_rule_game(&x_node, &at_once, offsets, &marked, NODE, [MARK, MARK]);
                let (mut new_x, mut new_o) = (0u64, 0u64);
                let mut examples = Vec::new();
                for (v, (_, p)) in positions.iter().enumerate() {
                    if !w[v] {
                        continue;
                    }
                    // Two pieces of a kind may take turns as the victim, which the rules do
                    // not forbid: such a role's wins are shown, not counted in the bound.
                    any[v] |= n == 1 && !with_checks;
                    if by_rule[v] {
                        continue;
                    }
                    tally(p, x, &mut new_x, &mut new_o, &mut examples);
                }
                let which = match (n, with_checks) {
                    (1, false) => String::from("its"),
                    (1, true) => String::from("its, or checking (not in the bound)"),
                    (_, false) => format!("either of its {n} (not in the bound)"),
                    (_, true) => format!("either of its {n}, or checking (not in the bound)"),
                };
                self.report.push(format!(
                    "  the other side chasing {x:?}'s {role:?}, {which}: {} wins beyond the \
                     check rule's ({x:?} to move {new_x}, the other {new_o}; {passes} passes)",
                    new_x + new_o
                ));
                for fen in examples {
                    self.report.push(format!("    e.g. {fen}"));
                }
            }
        }
        let union = (0..positions.len())
            .filter(|&v| any[v] && !by_rule[v])
            .count();
        self.report.push(format!(
            "  lower bound of {m}, {x:?} winning: {union} wins by the chase rule beyond the check rule's"
        ));
    }
}

/// The nodes X wins: the tables' repetition game ([`solve_rule_game`]) with X's checks
/// and the other side's checks and chases marked.
fn solve(
    positions: &[(u64, Position)],
    offsets: &[u32],
    edges: &[u32],
    cap: &[[bool; 2]],
    x: Color,
) -> Vec<bool> {
    let x_node: Vec<bool> = positions.iter().map(|(_, p)| p.turn() == x).collect();
    let at_once: Vec<bool> = cap.iter().map(|c| c[x.index()]).collect();
    solve_rule_game(
        &x_node,
        &at_once,
        offsets,
        edges,
        NODE,
        [CHECK, CHECK | CHASE],
    )
    .0
}

/// Counts a win beyond the check rule's: X to move or the other side, and the first three
/// with X to move as examples.
fn tally(p: &Position, x: Color, new_x: &mut u64, new_o: &mut u64, examples: &mut Vec<String>) {
    if p.turn() == x {
        *new_x += 1;
        if examples.len() < 3 {
            examples.push(p.fen());
        }
    } else {
        *new_o += 1;
    }
}

/// The upper bound's game on one set, for `--exact`: its nodes, and the nodes X wins there.
struct Upper<'a> {
    ix: &'a Indexer,
    node: &'a HashMap<u64, u32>,
    positions: &'a [(u64, Position)],
    won: &'a [bool],
    cap: &'a [[bool; 2]],
    by_rule: &'a [bool],
}

/// A move between two nodes of the upper bound's winning region, for `--exact`. Pieces are
/// named by their ordinal among their side's pieces other than the general, in square
/// order, in the node's position as indexed (so a move to a mirrored position renames them).
struct ExactMove {
    to: u32,
    check: bool,
    /// The other side's pieces this move chases, as named at `to`.
    victims: u8,
    /// Where each piece of Red and of Black at the source is named at `to`.
    rename: [[u8; 8]; 2],
}

/// The pieces of `color` other than the general, in square order.
fn named(p: &Position, color: Color) -> Vec<xiangqi::Square> {
    p.board()
        .pieces()
        .filter(|(_, pc)| pc.color == color && pc.role != Role::General)
        .map(|(sq, _)| sq)
        .collect()
}

fn rename_set(set: u8, map: &[u8; 8]) -> u8 {
    (0..8)
        .filter(|&k| set & (1 << k) != 0)
        .fold(0, |acc, k| acc | 1 << map[k])
}

impl Examiner<'_> {
    /// `--exact`: the repetition game as the rules core rules a cycle
    /// (`History::repetition_verdict`), with the victim of a chase chosen during play. Over
    /// the tail of an endless play each side has a grade: check (it checks on every move),
    /// chase (else, some one piece of the other side is chased by each of its moves: a move
    /// that checks and chases counts as a chase) or none; X wins when the other side's grade
    /// is the higher. The nodes are the upper bound's wins for X (outside them the other side
    /// escapes even the looser game) with a memory of each side's pieces chased on every
    /// move since its last "reset" (a move sharing no victim with that set starts it again),
    /// and whether a move without check came since the side's last counted reset. The grades
    /// read off which events recur: a side's grade is none when its resets after a move
    /// without check recur, chase when only its moves without check recur, check otherwise.
    /// With priorities 1 (nothing), X's move without check 2, the other side's 3, X's counted
    /// reset 4, the other side's 5, X wins a max-parity game on an even maximum. The same
    /// game with every chase ignored must give the perpetual-check rule's wins exactly: the
    /// program counts any difference.
    fn exact_game(&mut self, m: Material, x: Color, a: &Upper) {
        let started = std::time::Instant::now();
        let region: Vec<usize> = (0..a.positions.len()).filter(|&v| a.won[v]).collect();
        let mut place: HashMap<usize, u32> = HashMap::new();
        for (u, &v) in region.iter().enumerate() {
            place.insert(v, u as u32);
        }
        let x_node: Vec<bool> = region
            .iter()
            .map(|&v| a.positions[v].1.turn() == x)
            .collect();
        // At X's nodes a capture that wins; at the other's, a move out of the region or a
        // capture that escapes.
        let mut at_once: Vec<bool> = region.iter().map(|&v| a.cap[v][x.index()]).collect();
        let n = region.len();
        let mut moves: Vec<Vec<ExactMove>> = Vec::with_capacity(n);
        for (u, &v) in region.iter().enumerate() {
            let p = &a.positions[v].1;
            let ids = PieceIds::new(p.board());
            let before = [named(p, Color::Red), named(p, Color::Black)];
            let mut out = Vec::new();
            for &mv in p.legal_moves().iter() {
                if p.piece_at(mv.to()).is_some() {
                    continue; // valued by `cap`
                }
                let mut c = p.clone();
                c.play_unchecked(mv);
                let Some(&w) = a.node.get(&a.ix.index(&c)) else {
                    continue; // to a decided position: lost for the mover
                };
                let Some(&to) = place.get(&(w as usize)) else {
                    if !x_node[u] {
                        at_once[u] = true; // the other side leaves X's region
                    }
                    continue;
                };
                let mirrored = c.general(Color::Red).file().index() > 4;
                let fold = |sq: xiangqi::Square| if mirrored { sq.flip_horizontal() } else { sq };
                let target = &a.positions[w as usize].1;
                let after = [named(target, Color::Red), named(target, Color::Black)];
                let ordinal = |color: Color, sq: xiangqi::Square| {
                    after[color.index()]
                        .iter()
                        .position(|&s| s == fold(sq))
                        .expect("a piece is named in the next position") as u8
                };
                let mut rename = [[0u8; 8]; 2];
                for color in [Color::Red, Color::Black] {
                    for (k, &sq) in before[color.index()].iter().enumerate() {
                        let sq = if sq == mv.from() { mv.to() } else { sq };
                        rename[color.index()][k] = ordinal(color, sq);
                    }
                }
                let mut moved = ids.clone();
                moved.apply(mv);
                let victims = if self.mark_all {
                    // The check of the game: the other side's every move chases all of X's
                    // pieces, X's nothing.
                    if x_node[u] {
                        0
                    } else {
                        (1u8 << after[x.index()].len()) - 1
                    }
                } else {
                    chases(p, &ids, &c, &moved).iter().fold(0u8, |acc, t| {
                        acc | 1 << ordinal(t.victim.color, t.victim_square)
                    })
                };
                out.push(ExactMove {
                    to,
                    check: c.is_check(),
                    victims,
                    rename,
                });
            }
            moves.push(out);
        }
        let mut verdicts = Vec::new();
        for ignore_chases in [false, true] {
            let won = exact_product(x, &x_node, &at_once, &moves, n, ignore_chases);
            verdicts.push(won);
        }
        let (exact, check_only) = (&verdicts[0], &verdicts[1]);
        let differ = (0..n)
            .filter(|&u| check_only[u] != a.by_rule[region[u]])
            .count();
        // Every win by the check rule is one here too (the other side checking on every move
        // has the higher grade whatever X's chases).
        let lost = (0..n)
            .filter(|&u| a.by_rule[region[u]] && !exact[u])
            .count();
        if self.mark_all {
            // Then the exact game is the bound's: X wins all of the region.
            let short = exact.iter().filter(|&&w| !w).count();
            self.report.push(format!(
                "  exact game with every move of the other side chasing all of X's pieces: \
                 {short} of the bound's {n} wins not won"
            ));
        }
        let (mut new_x, mut new_o) = (0u64, 0u64);
        let mut examples = Vec::new();
        for u in 0..n {
            let (_, p) = &a.positions[region[u]];
            if !exact[u] || a.by_rule[region[u]] {
                continue;
            }
            tally(p, x, &mut new_x, &mut new_o, &mut examples);
        }
        // Under --mark-all the smaller sets' captures are valued by that looser game, so
        // the comparison with the check rule is made only without it.
        let differ = if self.mark_all {
            String::new()
        } else {
            format!(
                "; with chases ignored, positions differing from the check rule's wins: {differ}"
            )
        };
        self.report.push(format!(
            "  exact game of {m}, {x:?} winning, on the bound's {n} wins: {} wins by the chase \
             rule beyond the check rule's ({x:?} to move {new_x}, the other {new_o}); the check \
             rule's wins not won here: {lost}{differ}; {:.1} s",
            new_x + new_o,
            started.elapsed().as_secs_f64()
        ));
        for fen in examples {
            self.report.push(format!("    e.g. {fen}"));
        }
    }
}

/// Builds the product of the region with the memory of `Examiner::exact_game` and solves
/// it; whether X wins each region node from an empty memory (the winner does not depend on
/// the memory the play starts with: the conditions look only at what recurs).
fn exact_product(
    x: Color,
    x_node: &[bool],
    at_once: &[bool],
    moves: &[Vec<ExactMove>],
    region_size: usize,
    ignore_chases: bool,
) -> Vec<bool> {
    // A state: node, the chased set of the other side's moves (X's pieces), that of X's
    // moves (the other side's pieces), and the two "a move without check since" bits.
    type State = (u32, u8, u8, bool, bool);
    let mut id: HashMap<State, u32> = HashMap::new();
    let mut states: Vec<State> = Vec::new();
    for u in 0..region_size as u32 {
        id.insert((u, 0, 0, false, false), u);
        states.push((u, 0, 0, false, false));
    }
    let mut offsets = vec![0u32];
    let mut edges: Vec<(u32, u8)> = Vec::new();
    let mut k = 0;
    while k < states.len() {
        let (u, so, sx, bo, bx) = states[k];
        let xs = x_node[u as usize];
        let (xi, oi) = (x.index(), (!x).index());
        for mv in &moves[u as usize] {
            let victims = if ignore_chases { 0 } else { mv.victims };
            let (mut so, mut sx, mut bo, mut bx) = (
                rename_set(so, &mv.rename[xi]),
                rename_set(sx, &mv.rename[oi]),
                bo,
                bx,
            );
            let (set, seen, low, high) = if xs {
                (&mut sx, &mut bx, 2, 4)
            } else {
                (&mut so, &mut bo, 3, 5)
            };
            let reset = *set & victims == 0;
            *set = if reset { victims } else { *set & victims };
            *seen |= !mv.check;
            let prio = if reset && *seen {
                *seen = false;
                high
            } else if !mv.check {
                low
            } else {
                1
            };
            let next = (mv.to, so, sx, bo, bx);
            let t = *id.entry(next).or_insert_with(|| {
                states.push(next);
                states.len() as u32 - 1
            });
            edges.push((t, prio));
        }
        offsets.push(edges.len() as u32);
        k += 1;
    }
    let sx_node: Vec<bool> = states.iter().map(|s| x_node[s.0 as usize]).collect();
    let s_once: Vec<bool> = states.iter().map(|s| at_once[s.0 as usize]).collect();
    let won = solve_parity_game(&sx_node, &s_once, &offsets, &edges, 5);
    won[..region_size].to_vec()
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut flag = |name: &str| match args.iter().position(|a| a == name) {
        Some(k) => {
            args.remove(k);
            true
        }
        None => false,
    };
    let mark_all = flag("--mark-all");
    let lower = flag("--lower");
    // With --lower: X's chases allowed too (only its checks marked), a looser game whose
    // wins are no longer sure ones: a diagnostic of where the upper bound's wins come from.
    let x_may_chase = flag("--x-may-chase");
    let exact = flag("--exact");
    if args.len() < 2 || args[0].starts_with("--") || (x_may_chase && !lower) {
        eprintln!("usage: chase_rule [--mark-all] [--lower [--x-may-chase]] [--exact] DIR SET...");
        std::process::exit(2);
    }
    let tb = Tablebase::open(&args[0]).unwrap_or_else(|e| panic!("{e}"));
    let mut ex = Examiner {
        tb: &tb,
        mark_all,
        lower,
        x_may_chase,
        exact,
        done: HashMap::new(),
        indexers: HashMap::new(),
        report: Vec::new(),
    };
    for set in &args[1..] {
        let m = Material::parse(set)
            .unwrap_or_else(|e| panic!("{e}"))
            .canonical();
        let started = std::time::Instant::now();
        ex.set(m);
        for line in ex.report.drain(..) {
            println!("{line}");
        }
        println!("{set}: {:.1} s", started.elapsed().as_secs_f64());
    }
}
