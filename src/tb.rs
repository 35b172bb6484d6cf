//! `xiangqi tb`: generate endgame tablebases and probe them (docs/TABLEBASES.md).

use std::io::Write;

use xiangqi_tb::{
    build_with, verify_set, BuildOptions, Material, Method, RuleValue, TableFile, Tablebase,
    TbError, Value, VerifyOptions,
};

use crate::cli::{TbCommand, TbGenerateArgs, TbListArgs, TbProbeArgs, TbVerifyArgs};
use crate::Fail;

pub fn cmd_tb(cmd: &TbCommand) -> Result<(), Fail> {
    match cmd {
        TbCommand::Generate(a) => generate(a),
        TbCommand::Probe(a) => probe(a),
        TbCommand::Verify(a) => verify(a),
        TbCommand::List(a) => list(a),
    }
}

/// `tb list`: a line a table, the counts of its file's header (no block is inflated), smaller sets
/// first; a file that cannot be read gets a line saying why, and the exit status is then 1.
fn list(a: &TbListArgs) -> Result<(), Fail> {
    let tb = Tablebase::open_paths(&a.tb).map_err(|e| Fail::input(format!("tb list: {e}")))?;
    let mut sets = tb.sets();
    sets.sort_by_key(|m| (m.pieces(), m.to_string()));
    let found = sets.len();
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "set positions won drawn lost illegal max-dtm won-by-rule lost-by-rule format bytes"
    )
    .ok();
    let (mut listed, mut changed, mut damaged) = (0, 0, 0);
    for m in sets {
        let Some(path) = tb.file(&m) else { continue };
        let t = match TableFile::open(path) {
            Ok(t) => t,
            Err(e) => {
                damaged += 1;
                writeln!(out, "{m} unreadable: {e}").ok();
                continue;
            }
        };
        let [won, drawn, lost, illegal] = t.counts;
        let [rule_won, rule_lost] = t.rule_counts;
        let changes = rule_won + rule_lost > 0;
        changed += changes as usize;
        if a.changed && !changes {
            continue;
        }
        listed += 1;
        // Format 1 files were made before the rule: their rule counts are unknown, not 0.
        let rule = if t.version >= 2 {
            format!("{rule_won} {rule_lost}")
        } else {
            "- -".to_string()
        };
        let bytes = std::fs::metadata(path).map_or(0, |md| md.len());
        writeln!(
            out,
            "{m} {} {won} {drawn} {lost} {illegal} {} {rule} {} {bytes}",
            t.positions(),
            t.max_dtm,
            t.version
        )
        .ok();
    }
    eprintln!(
        "{listed} tables listed; the perpetual-check rule changes results in {changed} of the {} read",
        found - damaged
    );
    if damaged > 0 {
        return Err(Fail(format!("tb list: {damaged} files unreadable"), 1));
    }
    Ok(())
}

/// `tb verify`: a line a set on stdout, the faults found after it; exit status 1 when any.
fn verify(a: &TbVerifyArgs) -> Result<(), Fail> {
    let samples = match a.samples.as_str() {
        "all" => None,
        n => Some(n.parse::<u64>().map_err(|_| {
            Fail::input(format!(
                "tb verify: --samples {n:?}: a number of positions or `all`"
            ))
        })?),
    };
    let mut sets = Vec::new();
    for s in &a.sets {
        sets.push(Material::parse(s).map_err(|e| Fail::input(format!("tb verify: {e}")))?);
    }
    let tb = Tablebase::open(&a.tb).map_err(|e| Fail::input(format!("tb verify: {e}")))?;
    let opts = VerifyOptions {
        samples,
        searched: a.searched,
        depth: a.depth,
        seed: a.seed,
        ..VerifyOptions::default()
    };
    let mut progress = |line: &str| eprintln!("{line}");
    let mut out = std::io::stdout().lock();
    let mut faults = 0;
    for m in sets {
        let r = verify_set(&tb, m, &opts, &mut progress)
            .map_err(|e| Fail::input(format!("tb verify: {e}")))?;
        let set = r.material.map_or(m.to_string(), |c| c.to_string());
        let rule = if r.rule_checked > 0 {
            format!(
                ", {} under the rule too ({} won and {} lost by it)",
                r.rule_checked, r.rule_wins, r.rule_losses
            )
        } else {
            String::new()
        };
        writeln!(
            out,
            "{set}: {} positions checked against their moves ({} won, {} drawn, {} lost){rule}; \
             {} against a {}-ply mate search ({} mates proved); {} faults; {:.1} s",
            r.checked,
            r.wins,
            r.draws,
            r.losses,
            r.searched,
            a.depth,
            r.proved,
            r.faults,
            r.millis as f64 / 1000.0
        )
        .ok();
        for e in &r.examples {
            writeln!(out, "  fault: {e}").ok();
        }
        faults += r.faults;
    }
    if faults > 0 {
        return Err(Fail(format!("tb verify: {faults} faults found"), 1));
    }
    Ok(())
}

fn generate(a: &TbGenerateArgs) -> Result<(), Fail> {
    let mut progress = |line: &str| eprintln!("{line}");
    let opts = BuildOptions {
        threads: a.threads as usize,
        method: match a.method.as_str() {
            "graph" => Method::Graph,
            "lean" => Method::Lean,
            _ => Method::Auto,
        },
        memory: a.memory << 20,
    };
    let built = build_with(&a.sets, &a.output, &opts, &mut progress)
        .map_err(|e| Fail::input(format!("tb generate: {e}")))?;
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "set positions won drawn lost illegal max-dtm seconds bytes won-by-rule lost-by-rule method memory-mb"
    )
    .ok();
    for b in built {
        match b.stats {
            Some(s) => writeln!(
                out,
                "{} {} {} {} {} {} {} {:.1} {} {} {} {} {}",
                b.material,
                s.positions,
                s.wins,
                s.draws,
                s.losses,
                s.illegal,
                s.max_dtm,
                s.millis as f64 / 1000.0,
                b.bytes,
                s.rule_wins,
                s.rule_losses,
                if s.lean { "lean" } else { "graph" },
                s.memory >> 20
            ),
            None => writeln!(out, "{} (already there) {} bytes", b.material, b.bytes),
        }
        .ok();
    }
    Ok(())
}

fn show(v: Value) -> String {
    match v.dtm() {
        Some(d) => format!("{} {d}", v.category()),
        None => v.category().to_string(),
    }
}

fn probe(a: &TbProbeArgs) -> Result<(), Fail> {
    let pos = crate::parse_fen(&a.fen)?;
    let tb = Tablebase::open(&a.tb).map_err(|e| Fail::input(format!("tb probe: {e}")))?;
    let fail = |e: xiangqi_tb::TbError| Fail::input(format!("tb probe: {e}"));
    let v = tb.probe(&pos).map_err(fail)?;
    let moves = tb.probe_moves(&pos).map_err(fail)?;
    // The perpetual-check rule's results, shown where they differ from the standard ones
    // (a table of format 1 has none).
    let (rv, rule_moves): (Option<RuleValue>, Vec<_>) = match tb.probe_rules(&pos) {
        Ok(rv) => (Some(rv), tb.probe_moves_rules(&pos).map_err(fail)?),
        Err(TbError::NoRuleResults { .. }) => (None, Vec::new()),
        Err(e) => return Err(fail(e)),
    };
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "set {}",
        xiangqi_tb::Material::of_board(pos.board()).canonical()
    )
    .ok();
    writeln!(out, "category {}", v.category()).ok();
    if let Some(d) = v.dtm() {
        writeln!(out, "dtm {d}").ok();
    }
    if let Some(rv) = rv.filter(|rv| RuleValue::from(rv.standard()) != *rv) {
        writeln!(out, "rules {}", rv.category()).ok();
    }
    for (m, child) in moves {
        // As lichess: the category of the position after the move, for the side to move there;
        // then the category under the perpetual-check rule where it differs.
        let rule = rule_moves
            .iter()
            .find(|(rm, _)| *rm == m)
            .map(|&(_, rv)| rv)
            .filter(|rv| RuleValue::from(rv.standard()) != *rv);
        match rule {
            Some(rv) => writeln!(out, "{m} {} {}", show(child), rv.category()),
            None => writeln!(out, "{m} {}", show(child)),
        }
        .ok();
    }
    Ok(())
}
