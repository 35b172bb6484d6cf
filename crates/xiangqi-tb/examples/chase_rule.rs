//! Examines what the perpetual-chase rule could change in sets of one attacker against
//! advisors and elephants (docs/TABLEBASES.md, "Rules the tables assume"), which the tables
//! do not model. Such a defender never checks, but its advisors and elephants may chase the
//! attacker (an advisor or elephant attacking a chariot, horse or cannon is a chase even when
//! the victim is defended, RULES.md §6), and a defender that could hold a draw only by
//! chasing the attacker on every move forever would lose by the Asian rules.
//!
//! For each set named (the attacker's side Red, as the tables name it; one attacker, nothing
//! else on its side; only advisors and elephants on the other), and the smaller sets its
//! captures lead to, the arena is the set's standard draws and the moves between them, as
//! the generator's perpetual-check arena; a defender's move is marked when it chases the
//! attacker (the rules core's `chases`, the same judgement `Game` makes, with the attacker
//! the only piece it can chase). The attacker wins if from some point on the defender chases
//! on every move while the attacker does not check on every move: an upper bound on the
//! wins the rule adds, since the attacker's own chases of advisors and elephants, which would
//! draw such a cycle, are not counted against it. The attacker's captures into a smaller
//! set's position won by this bound count as wins; the defender's capture of the attacker
//! ends the game drawn. So if it finds no position, the chase rule changes none of the set's
//! draws; positions it finds may change.
//!
//! ```text
//! cargo run --release -p xiangqi-tb --example chase_rule -- [--mark-all] DIR SET...
//! ```
//!
//! `--mark-all` checks the game itself: every defender move is marked as if it chased, so
//! every draw from which the attacker can play on without checking on every move should be
//! found won.

use std::collections::HashMap;

use xiangqi::adjudicate::{chases, PieceIds};
use xiangqi::{Color, Position};
use xiangqi_tb::{Indexer, Material, Tablebase, Value};

/// An edge's target node, with this bit when the move is "forbidden" for its mover: a check
/// by the attacker's side, a chase of the attacker by the defender.
const MARK: u32 = 1 << 31;

struct Arena {
    index: Vec<u64>,
    red: Vec<bool>,
    /// The attacker's side has a capture into a smaller set's position it wins (by the
    /// bound); the defender has a capture of the attacker.
    cap: Vec<bool>,
    offsets: Vec<u32>,
    edges: Vec<u32>,
}

/// The set's canonical material and index of a position.
fn locate(pos: &Position) -> (Material, u64) {
    let m = Material::of_board(pos.board());
    if m.needs_swap() {
        let s = pos.swap_colors();
        let m = m.swapped();
        (m, Indexer::new(m).index(&s))
    } else {
        (m, Indexer::new(m).index(pos))
    }
}

/// The indices of the set's positions the attacker wins by the bound, after the smaller sets'.
fn solve_set(
    mark_all: bool,
    tb: &Tablebase,
    m: Material,
    done: &mut HashMap<Material, Vec<u64>>,
    report: &mut Vec<String>,
) -> Vec<u64> {
    if let Some(w) = done.get(&m) {
        return w.clone();
    }
    let ix = Indexer::new(m);
    let mut node = HashMap::new();
    let mut positions = Vec::new();
    for i in 0..ix.size() {
        let Some(p) = ix.position(i) else { continue };
        if tb.probe(&p).expect("the set's table") == Value::Draw {
            node.insert(i, positions.len() as u32);
            positions.push((i, p));
        }
    }
    // The smaller sets first: the attacker's captures of advisors and elephants.
    let mut smaller: HashMap<Material, std::collections::HashSet<u64>> = HashMap::new();
    let mut a = Arena {
        index: Vec::new(),
        red: Vec::new(),
        cap: Vec::new(),
        offsets: vec![0],
        edges: Vec::new(),
    };
    for (i, p) in &positions {
        let red = p.turn() == Color::Red;
        let mut cap = false;
        let ids = PieceIds::new(p.board());
        for &mv in p.legal_moves().iter() {
            let mut c = p.clone();
            c.play_unchecked(mv);
            if p.piece_at(mv.to()).is_some() {
                let (cm, ci) = locate(&c);
                if !cm.any_attacker() {
                    cap |= !red; // the defender took the attacker: a dead draw
                } else if red && tb.probe(&c).expect("the smaller table") == Value::Draw {
                    let won = smaller.entry(cm).or_insert_with(|| {
                        solve_set(mark_all, tb, cm, done, report)
                            .into_iter()
                            .collect()
                    });
                    cap |= won.contains(&ci);
                }
                continue;
            }
            let Some(&to) = node.get(&ix.index(&c)) else {
                continue; // a move to a decided position: a win for the opponent
            };
            let marked = if red {
                c.is_check()
            } else if mark_all {
                true
            } else {
                let mut after = ids.clone();
                after.apply(mv);
                chases(p, &ids, &c, &after)
                    .iter()
                    .any(|t| t.victim.color == Color::Red)
            };
            a.edges.push(to | if marked { MARK } else { 0 });
        }
        a.index.push(*i);
        a.red.push(red);
        a.cap.push(cap);
        a.offsets.push(a.edges.len() as u32);
    }
    let won = solve(&a);
    let (mut by_red, mut by_black) = (0u64, 0u64);
    let mut out = Vec::new();
    for (v, &w) in won.iter().enumerate() {
        if w {
            out.push(a.index[v]);
            if a.red[v] {
                by_red += 1;
            } else {
                by_black += 1;
            }
        }
    }
    let chase_edges = (0..a.index.len())
        .filter(|&v| !a.red[v])
        .flat_map(|v| &a.edges[a.offsets[v] as usize..a.offsets[v + 1] as usize])
        .filter(|&&e| e & MARK != 0)
        .count();
    report.push(format!(
        "{m}: {} standard draws, {} defender moves among them chase the attacker; \
         the attacker could win by the chase rule in at most {} (attacker to move {by_red}, \
         defender to move {by_black})",
        a.index.len(),
        chase_edges,
        by_red + by_black
    ));
    done.insert(m, out.clone());
    out
}

/// The nodes Red (the attacker's side) wins: `μZ3. νZ2. μZ1.` as the generator's
/// perpetual-check game (generate.rs, `Arena::solve`), Red's marked moves priority 1 and its
/// others 2, Black's marked moves 1 and its others 3.
fn solve(a: &Arena) -> Vec<bool> {
    let n = a.index.len();
    let mut z3 = vec![false; n];
    loop {
        let mut z2 = vec![true; n];
        loop {
            let mut z1 = vec![false; n];
            loop {
                let mut changed = false;
                for v in 0..n {
                    if z1[v] {
                        continue;
                    }
                    let es = &a.edges[a.offsets[v] as usize..a.offsets[v + 1] as usize];
                    let target = |e: u32, other: &[bool]| {
                        let c = (e & !MARK) as usize;
                        if e & MARK != 0 {
                            z1[c]
                        } else {
                            other[c]
                        }
                    };
                    let inside = if a.red[v] {
                        a.cap[v] || es.iter().any(|&e| target(e, &z2))
                    } else {
                        !a.cap[v] && es.iter().all(|&e| target(e, &z3))
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
            return z3;
        }
        z3 = z2;
    }
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mark_all = args.first().is_some_and(|a| a == "--mark-all");
    if mark_all {
        args.remove(0);
    }
    if args.len() < 2 {
        eprintln!("usage: chase_rule [--mark-all] DIR SET...");
        std::process::exit(2);
    }
    let tb = Tablebase::open(&args[0]).unwrap_or_else(|e| panic!("{e}"));
    let mut done = HashMap::new();
    for set in &args[1..] {
        let m = Material::parse(set)
            .unwrap_or_else(|e| panic!("{e}"))
            .canonical();
        let name = m.to_string();
        let red_side = 1 + name[1..].find('K').expect("two generals");
        assert!(
            red_side == 2 && !m.has_attacker(Color::Black) && m.attackers() == 1,
            "{set}: a general and one attacker against advisors and elephants only"
        );
        let mut report = Vec::new();
        let started = std::time::Instant::now();
        solve_set(mark_all, &tb, m, &mut done, &mut report);
        for line in report {
            println!("{line}");
        }
        println!("{set}: {:.1} s", started.elapsed().as_secs_f64());
    }
}
