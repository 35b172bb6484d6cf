//! Makes `openings/balanced.epd`: positions a few moves into common openings whose evaluation
//! by our engine (a fixed-depth search) is within ±N centipawns.
//!
//! usage: xiangqi-gen-openings [--depth D] [--max-cp N] [--branch3 K] [--branch4 K] [-o FILE]
//!
//! Lines: the common first moves of Red (炮二平五, 相三进五, 兵七进一, 马二进三, 炮二平四,
//! 过宫炮 ...) times the common replies of Black; then, from each of those, our engine's best K
//! third moves (MultiPV), and its best K replies to each. Every position reached (after 2, 3
//! and 4 plies) is searched to depth D and kept if its score is within the bound; mirror
//! images and repeated positions are kept once. The output is deterministic.

use std::collections::HashSet;

use xiangqi::notation::Notation;
use xiangqi::{Color, Move, Position};
use xiangqi_engine::{Engine, Event, Limits, Score};

/// Red's common first moves.
const RED_FIRST: &[&str] = &[
    "h2e2", // 炮二平五 central cannon
    "g0e2", // 相三进五 elephant opening
    "c3c4", // 兵七进一 pawn opening
    "h0g2", // 马二进三 horse opening
    "h2f2", // 炮二平四 (士角炮)
    "h2d2", // 炮二平六 过宫炮 (cross-palace cannon)
    "g3g4", // 兵三进一
    "b2e2", // 炮八平五
    "c0e2", // 相七进五
    "f0e1", // 仕四进五
    "h2g2", // 炮二平三
    "b2f2", // 炮八平四 (过宫炮 from the left)
];

/// Black's common replies (those legal after each first move are used).
const BLACK_REPLY: &[&str] = &[
    "h9g7", // 马8进7
    "b9c7", // 马2进3
    "h7e7", // 炮8平5
    "b7e7", // 炮2平5
    "g6g5", // 卒7进1
    "c6c5", // 卒3进1
    "g9e7", // 象7进5
    "c9e7", // 象3进5
    "h7f7", // 炮8平6
    "b7d7", // 炮2平4
    "d9e8", // 士4进5
    "f9e8", // 士6进5
];

struct Args {
    depth: i32,
    max_cp: i32,
    branch3: usize,
    branch4: usize,
    out: Option<String>,
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        depth: 8,
        max_cp: 50,
        branch3: 2,
        branch4: 2,
        out: None,
    };
    let v: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    while i < v.len() {
        let val = |i: usize| {
            v.get(i + 1)
                .ok_or_else(|| format!("{} needs a value", v[i]))
        };
        let n = |i: usize| -> Result<i64, String> {
            let s = val(i)?;
            s.parse()
                .map_err(|_| format!("{}: '{s}' is not a number", v[i]))
        };
        match v[i].as_str() {
            "--depth" => a.depth = n(i)? as i32,
            "--max-cp" => a.max_cp = n(i)? as i32,
            "--branch3" => a.branch3 = n(i)? as usize,
            "--branch4" => a.branch4 = n(i)? as usize,
            "-o" => a.out = Some(val(i)?.clone()),
            other => return Err(format!("unknown argument '{other}'")),
        }
        i += 2;
    }
    Ok(a)
}

/// The best `k` moves with their scores (side to move's view, centipawns; mates far out).
fn top_moves(engine: &mut Engine, pos: &Position, depth: i32, k: usize) -> Vec<(Move, i32)> {
    if k == 0 {
        return Vec::new();
    }
    engine
        .set_option("MultiPV", &k.to_string())
        .expect("MultiPV is an option");
    engine
        .set_position(pos.clone(), &[])
        .expect("legal position");
    let (_, events) = engine.search(Limits::depth(depth));
    let mut best: Vec<Option<(i32, Move, i32)>> = vec![None; k];
    for e in events {
        if let Event::Info(info) = e {
            let Some(&m) = info.pv.first() else { continue };
            let cp = match info.score {
                Score::Cp(c) => c,
                Score::Mate(n) if n > 0 => 30_000 - n,
                Score::Mate(n) => -30_000 - n,
            };
            let slot = info.multipv.saturating_sub(1);
            if slot < k && info.bound.is_none() {
                best[slot] = Some((info.depth, m, cp));
            }
        }
    }
    best.into_iter()
        .flatten()
        .map(|(_, m, cp)| (m, cp))
        .collect()
}

fn main() {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("xiangqi-gen-openings: {e}");
            std::process::exit(2);
        }
    };
    let mut engine = Engine::new();
    engine.set_option("Hash", "32").expect("Hash is an option");
    engine.set_seed(1);

    // Lines to evaluate, in order.
    let start = Position::new();
    let mut lines: Vec<Vec<Move>> = Vec::new();
    let play = |line: &[Move]| {
        let mut p = start.clone();
        for &m in line {
            p.play_unchecked(m);
        }
        p
    };
    for r in RED_FIRST {
        let m1 = start.parse_uci(r).expect("legal first move");
        let p1 = play(&[m1]);
        for b in BLACK_REPLY {
            if let Ok(m2) = p1.parse_uci(b) {
                lines.push(vec![m1, m2]);
            }
        }
    }
    let two = lines.clone();
    for l in &two {
        let p = play(l);
        for (m3, _) in top_moves(&mut engine, &p, args.depth, args.branch3) {
            let mut l3 = l.clone();
            l3.push(m3);
            lines.push(l3.clone());
            let p3 = play(&l3);
            for (m4, _) in top_moves(&mut engine, &p3, args.depth, args.branch4) {
                let mut l4 = l3.clone();
                l4.push(m4);
                lines.push(l4);
            }
        }
    }

    let mut seen = HashSet::new();
    let mut out = String::new();
    out.push_str(&format!(
        "# Balanced Xiangqi openings for `xiangqi match`, made by xiangqi-gen-openings\n\
         # (crates/xiangqi-match/src/bin/gen_openings.rs) with: --depth {} --max-cp {} --branch3 {} --branch4 {}\n\
         # Each line: FEN; c0 the moves from the start (ICCS); c1 the same in Chinese notation;\n\
         # ce our engine's score at depth {} from the side to move's view (|ce| <= {}).\n",
        args.depth, args.max_cp, args.branch3, args.branch4, args.depth, args.max_cp
    ));
    let (mut kept, mut dropped) = (0, 0);
    for l in &lines {
        let p = play(l);
        let mirror = p.flip_horizontal();
        if !seen.insert(p.key()) || seen.contains(&mirror.key()) {
            continue;
        }
        let score = top_moves(&mut engine, &p, args.depth, 1)
            .first()
            .map(|&(_, s)| s)
            .unwrap_or(0);
        let red = if p.turn() == Color::Red {
            score
        } else {
            -score
        };
        if score.abs() > args.max_cp {
            dropped += 1;
            eprintln!("dropped ({red:+} cp for Red): {}", iccs(l));
            continue;
        }
        kept += 1;
        out.push_str(&format!(
            "{} c0 \"{}\"; c1 \"{}\"; ce {};\n",
            p.fen(),
            iccs(l),
            chinese(&start, l),
            score
        ));
    }
    eprintln!(
        "{kept} positions kept, {dropped} dropped (|score| > {})",
        args.max_cp
    );
    match &args.out {
        Some(f) => {
            if let Err(e) = std::fs::write(f, &out) {
                eprintln!("xiangqi-gen-openings: cannot write {f}: {e}");
                std::process::exit(1);
            }
        }
        None => print!("{out}"),
    }
}

fn iccs(l: &[Move]) -> String {
    l.iter()
        .map(|m| m.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

fn chinese(start: &Position, l: &[Move]) -> String {
    let mut p = start.clone();
    let mut v = Vec::new();
    for &m in l {
        v.push(Notation::Chinese.write(&p, m));
        p.play_unchecked(m);
    }
    v.join(" ")
}
