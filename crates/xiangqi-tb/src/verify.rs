//! Checks of generated tables that do not trust the generator (docs/TABLEBASES.md,
//! "Verification"): a position's value against the values of the positions its legal moves
//! reach, in the tables' files, and against a plain depth-limited mate search of the rules
//! core that knows nothing of the tables. Used by the tests on small sets and by
//! `xiangqi tb verify` on the generated ones, whole or sampled.

use std::time::Instant;

use xiangqi::adjudicate::insufficient_material;
use xiangqi::Position;

use crate::{Indexer, Material, RuleValue, Tablebase, TbError, Value};

/// (a) `pos`'s standard value agrees with its moves': a win in `d` has a move to a loss in
/// `d - 1` and none to a shorter loss; a loss in `d` has only moves to wins, the longest in
/// `d - 1` (a loss in 0 has no move at all); a draw has no move to a loss and one to a draw.
/// `Err` says what disagrees.
pub fn check_moves(tb: &Tablebase, pos: &Position) -> Result<Value, String> {
    let v = tb.probe(pos).map_err(|e| e.to_string())?;
    let kids: Vec<Value> = tb
        .probe_moves(pos)
        .map_err(|e| e.to_string())?
        .into_iter()
        .map(|(_, c)| c)
        .collect();
    let fault = match v {
        Value::Win(d) if !kids.contains(&Value::Loss(d - 1)) => {
            Some(format!("won in {d} but no move to a loss in {}", d - 1))
        }
        Value::Win(d)
            if kids
                .iter()
                .any(|k| matches!(k, Value::Loss(e) if *e + 1 < d)) =>
        {
            Some(format!("won in {d} but a move reaches a faster loss"))
        }
        Value::Loss(d) if !kids.iter().all(|k| matches!(k, Value::Win(e) if *e < d)) => Some(
            format!("lost in {d} but a move reaches no win shorter than {d}"),
        ),
        Value::Loss(0) if !kids.is_empty() => Some("lost now but has a legal move".into()),
        Value::Loss(d) if d > 0 && !kids.contains(&Value::Win(d - 1)) => {
            Some(format!("lost in {d} but no move to a win in {}", d - 1))
        }
        Value::Draw if kids.iter().any(|k| matches!(k, Value::Loss(_))) => {
            Some("drawn but a move reaches a loss".into())
        }
        Value::Draw if !kids.contains(&Value::Draw) => Some("drawn but no move to a draw".into()),
        _ => None,
    };
    match fault {
        Some(f) => Err(format!("{}: {f} (moves: {kids:?})", pos.fen())),
        None => Ok(v),
    }
}

/// (a) under the perpetual-check rule, for a table with rule results: the rule-aware value's
/// standard part is the standard value; a win by rule has a move to a loss by rule; a loss
/// by rule has only moves to wins (by mate or by rule), one of them by rule; a draw has no
/// move to a loss of either kind and one to a draw. (Wins and losses by mate are
/// [`check_moves`]'s.)
pub fn check_rule_moves(tb: &Tablebase, pos: &Position) -> Result<RuleValue, String> {
    let v = tb.probe(pos).map_err(|e| e.to_string())?;
    let rv = tb.probe_rules(pos).map_err(|e| e.to_string())?;
    if rv.standard() != v {
        return Err(format!(
            "{}: {} by the rule but {} by the standard table",
            pos.fen(),
            rv.category(),
            v.category()
        ));
    }
    if rv.dtm().is_some() {
        return Ok(rv);
    }
    let kids: Vec<RuleValue> = tb
        .probe_moves_rules(pos)
        .map_err(|e| e.to_string())?
        .into_iter()
        .map(|(_, c)| c)
        .collect();
    let fault = match rv {
        RuleValue::WinByRule if !kids.contains(&RuleValue::LossByRule) => {
            Some("won by the rule but no move to a loss by the rule")
        }
        RuleValue::LossByRule
            if !kids
                .iter()
                .all(|k| matches!(k, RuleValue::Win(_) | RuleValue::WinByRule)) =>
        {
            Some("lost by the rule but a move reaches no win for the other side")
        }
        RuleValue::LossByRule if !kids.contains(&RuleValue::WinByRule) => {
            Some("lost by the rule but no move to a win by the rule")
        }
        RuleValue::Draw
            if kids
                .iter()
                .any(|k| matches!(k, RuleValue::Loss(_) | RuleValue::LossByRule)) =>
        {
            Some("drawn but a move reaches a loss")
        }
        RuleValue::Draw if !kids.contains(&RuleValue::Draw) => Some("drawn but no move to a draw"),
        _ => None,
    };
    match fault {
        Some(f) => Err(format!("{}: {f} (moves: {kids:?})", pos.fen())),
        None => Ok(rv),
    }
}

/// A depth-limited search's verdict for the side to move.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Found {
    /// Mates in this many plies (the fastest within the depth).
    Win(u16),
    /// Mated in this many plies whatever it does.
    Loss(u16),
    /// Can reach a position drawn by the material left (no attacker).
    DrawOrBetter,
    /// Not decided within the depth.
    Unknown,
}

/// A plain full-width mate search of the rules core to `depth` plies: no tables, no pruning
/// (a position with no legal move is lost, as the rules say; a capture leaving no attacker
/// draws unless it stalemates).
pub fn mate_search(pos: &Position, depth: u32) -> Found {
    if pos.has_no_legal_move() {
        return Found::Loss(0);
    }
    if depth == 0 {
        return Found::Unknown;
    }
    let mut best_win: Option<u16> = None;
    let mut longest_loss: u16 = 0;
    let mut all_lose = true;
    let mut draw = false;
    for &m in pos.legal_moves().iter() {
        let mut c = pos.clone();
        c.play_unchecked(m);
        if insufficient_material(c.board()) && !c.has_no_legal_move() {
            draw = true;
            all_lose = false;
            continue;
        }
        match mate_search(&c, depth - 1) {
            Found::Loss(e) => best_win = Some(best_win.map_or(e + 1, |b| b.min(e + 1))),
            Found::Win(e) => longest_loss = longest_loss.max(e + 1),
            _ => all_lose = false,
        }
    }
    if let Some(w) = best_win {
        Found::Win(w)
    } else if all_lose {
        Found::Loss(longest_loss)
    } else if draw {
        Found::DrawOrBetter
    } else {
        Found::Unknown
    }
}

/// (b) The table's value `v` against the search's verdict `f` to `depth`: a mate the search
/// finds has exactly the table's DTM; a position the search proves can reach a draw by the
/// material is never lost; a table DTM within the depth is found; a loss beyond it is not
/// (a longer win may stand beside a capture that draws at once, so a win beyond it may be
/// `DrawOrBetter`).
pub fn check_search(v: Value, f: Found, depth: u32) -> Result<(), String> {
    let agree = match f {
        Found::Win(d) => v == Value::Win(d),
        Found::Loss(d) => v == Value::Loss(d),
        Found::DrawOrBetter => !matches!(v, Value::Loss(_)),
        Found::Unknown => true,
    } && match v.dtm() {
        Some(d) if d as u32 <= depth => matches!(f, Found::Win(_) | Found::Loss(_)),
        Some(_) if matches!(v, Value::Loss(_)) => f == Found::Unknown,
        Some(_) => matches!(f, Found::Unknown | Found::DrawOrBetter),
        None => true,
    };
    if agree {
        Ok(())
    } else {
        Err(format!("the table says {v:?}, a {depth}-ply search {f:?}"))
    }
}

/// What to check of a set.
#[derive(Clone, Debug)]
pub struct VerifyOptions {
    /// Positions checked against their moves: `None` every legal one, else this many
    /// pseudo-random ones (indices drawn from `seed`, illegal ones skipped).
    pub samples: Option<u64>,
    /// Positions checked against the mate search (pseudo-random, half of them among those
    /// the table decides within `depth` plies when such are found, so that wins and losses
    /// are really compared).
    pub searched: u64,
    /// The search's depth in plies.
    pub depth: u32,
    pub seed: u64,
    /// The faults kept for the report (all are counted).
    pub keep_faults: usize,
}

impl Default for VerifyOptions {
    fn default() -> VerifyOptions {
        VerifyOptions {
            samples: Some(100_000),
            searched: 1_000,
            depth: 3,
            seed: 1,
            keep_faults: 10,
        }
    }
}

/// What [`verify_set`] found.
#[derive(Clone, Debug, Default)]
pub struct VerifyReport {
    pub material: Option<Material>,
    /// Positions checked against their moves, and their values by category.
    pub checked: u64,
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    /// Of those, checked under the rule too (0 for a table without rule results), and the
    /// wins and losses by the rule among them.
    pub rule_checked: u64,
    pub rule_wins: u64,
    pub rule_losses: u64,
    /// Positions compared with the search, and the wins and losses it proved among them.
    pub searched: u64,
    pub proved: u64,
    pub faults: u64,
    pub examples: Vec<String>,
    pub millis: u128,
}

/// A small pseudo-random generator (xorshift64*), so that a run can be repeated.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

/// A position in one of the orientations a probe must handle: as indexed, with colours
/// swapped (probed through the swapped table), or mirrored left to right.
fn oriented(pos: Position, r: u64) -> Position {
    match r % 3 {
        1 => pos.swap_colors(),
        2 => pos.flip_horizontal(),
        _ => pos,
    }
}

/// Checks the set `m` of `tb` (which must hold it and the smaller sets its captures reach):
/// (a) positions against their moves, with the rule results where the file has them, and
/// (b) positions against [`mate_search`]. `progress` gets a line now and then.
pub fn verify_set(
    tb: &Tablebase,
    m: Material,
    opts: &VerifyOptions,
    progress: &mut dyn FnMut(&str),
) -> Result<VerifyReport, TbError> {
    let m = m.canonical();
    let rules = tb.table(&m)?.version >= 2;
    let ix = Indexer::new(m);
    let started = Instant::now();
    let mut rep = VerifyReport {
        material: Some(m),
        ..VerifyReport::default()
    };
    let mut rng = Rng(opts.seed.max(1) ^ ix.size().rotate_left(17));
    let fault = |rep: &mut VerifyReport, what: String| {
        rep.faults += 1;
        if rep.examples.len() < opts.keep_faults {
            rep.examples.push(what);
        }
    };
    // Every index when the sample would be as large as the set.
    let all = opts.samples.is_none_or(|n| n >= ix.size());
    let total = if all {
        ix.size()
    } else {
        opts.samples.unwrap_or(0)
    };
    let mut next_index = 0u64;
    let mut tries = 0u64;
    while rep.checked < total && tries < total.saturating_mul(64).max(1 << 20) {
        tries += 1;
        let (i, r) = if all {
            if next_index == ix.size() {
                break;
            }
            next_index += 1;
            (next_index - 1, 0)
        } else {
            let r = rng.next();
            (r % ix.size(), r >> 40)
        };
        let Some(pos) = ix.position(i) else { continue };
        let pos = oriented(pos, r);
        rep.checked += 1;
        match check_moves(tb, &pos) {
            Ok(Value::Win(_)) => rep.wins += 1,
            Ok(Value::Draw) => rep.draws += 1,
            Ok(Value::Loss(_)) => rep.losses += 1,
            Err(e) => fault(&mut rep, e),
        }
        if rules {
            rep.rule_checked += 1;
            match check_rule_moves(tb, &pos) {
                Ok(RuleValue::WinByRule) => rep.rule_wins += 1,
                Ok(RuleValue::LossByRule) => rep.rule_losses += 1,
                Ok(_) => {}
                Err(e) => fault(&mut rep, format!("by the rule: {e}")),
            }
        }
        if rep.checked.is_multiple_of(100_000) {
            progress(&format!(
                "{m}: {} positions checked against their moves ({} faults, {:.1} s)",
                rep.checked,
                rep.faults,
                started.elapsed().as_secs_f64()
            ));
        }
    }
    // (b): the first half of the positions at random, the second among those the table
    // decides within the depth (looked for among a bounded number of tries).
    let mut tries = 0u64;
    while rep.searched < opts.searched && tries < opts.searched.saturating_mul(2_000) {
        tries += 1;
        let short = rep.searched >= opts.searched / 2;
        let r = rng.next();
        let Some(pos) = ix.position(r % ix.size()) else {
            continue;
        };
        let pos = oriented(pos, r >> 40);
        let v = tb.probe(&pos)?;
        if short && v.dtm().is_none_or(|d| d as u32 > opts.depth) {
            continue;
        }
        rep.searched += 1;
        let f = mate_search(&pos, opts.depth);
        if matches!(f, Found::Win(_) | Found::Loss(_)) {
            rep.proved += 1;
        }
        if let Err(e) = check_search(v, f, opts.depth) {
            fault(&mut rep, format!("{}: {e}", pos.fen()));
        }
    }
    rep.millis = started.elapsed().as_millis();
    Ok(rep)
}
