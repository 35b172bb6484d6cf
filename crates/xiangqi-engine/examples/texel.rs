//! Texel tuning of the evaluation weights (`eval::Weights`) on positions from finished games.
//!
//! ```text
//! # 1. Positions: quiet positions of games with a result, one "FEN;result" line each
//! #    (result from Red's view: 1, 0.5 or 0).
//! cargo run --release -p xiangqi-engine --example texel -- extract positions.txt games/*.pgn
//! # 2. Fit: finds the scale K, then moves each weight while the loss falls; prints the
//! #    weights as Rust to paste into `eval.rs`.
//! cargo run --release -p xiangqi-engine --example texel -- tune positions.txt
//! ```
//!
//! The loss is the mean squared difference between the game result and
//! `1 / (1 + 10^(-K * eval / 400))`, eval the static evaluation from Red's view. Positions
//! are "quiet": after the opening (ply 10 on), the side to move not in check, no capture
//! that wins material by exchange, and the move played from it not a capture.

use std::io::Write;

use xiangqi::{Color, Position};
use xiangqi_engine::eval::{evaluate_with, Weights, NW, WEIGHT_NAMES};
use xiangqi_engine::movepick;
use xiangqi_record::detect::read_any;
use xiangqi_record::GameResult;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let r = match args.first().map(String::as_str) {
        Some("extract") if args.len() >= 3 => extract(&args[1], &args[2..]),
        Some("tune") if args.len() == 2 => tune(&args[1]),
        _ => Err("usage: texel extract OUT.txt GAMEFILE...  |  texel tune POSITIONS.txt".into()),
    };
    if let Err(e) = r {
        eprintln!("texel: {e}");
        std::process::exit(1);
    }
}

fn quiet(pos: &Position) -> bool {
    !pos.is_check()
        && movepick::captures(pos)
            .iter()
            .all(|&m| !movepick::see_ge(pos, m, 1))
}

fn extract(out: &str, files: &[String]) -> Result<(), String> {
    let mut w = std::io::BufWriter::new(
        std::fs::File::create(out).map_err(|e| format!("cannot create {out}: {e}"))?,
    );
    let (mut games, mut positions) = (0, 0);
    for f in files {
        let bytes = std::fs::read(f).map_err(|e| format!("cannot read {f}: {e}"))?;
        let all = match read_any(&bytes) {
            Ok(a) => a,
            Err(e) => {
                eprintln!("skipping {f}: {e}");
                continue;
            }
        };
        for g in all.games.into_iter().flatten() {
            let result = match g.result {
                GameResult::RedWins => "1",
                GameResult::BlackWins => "0",
                GameResult::Draw => "0.5",
                GameResult::Unknown => continue,
            };
            games += 1;
            let mut pos = g.start.clone();
            for (ply, m) in g.mainline().enumerate() {
                if ply >= 10 && !pos.is_capture(m) && quiet(&pos) {
                    writeln!(w, "{};{result}", pos.fen()).map_err(|e| e.to_string())?;
                    positions += 1;
                }
                if !pos.is_legal(m) {
                    break;
                }
                pos.play_unchecked(m);
            }
        }
    }
    w.flush().map_err(|e| e.to_string())?;
    eprintln!("{games} games, {positions} positions written to {out}");
    Ok(())
}

struct Sample {
    pos: Position,
    result: f64,
}

fn load(path: &str) -> Result<Vec<Sample>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))?;
    let mut v = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let (fen, r) = line
            .rsplit_once(';')
            .ok_or_else(|| format!("{path}:{}: expected FEN;result", i + 1))?;
        let pos = Position::from_fen(fen).map_err(|e| format!("{path}:{}: {e}", i + 1))?;
        let result: f64 = r
            .trim()
            .parse()
            .map_err(|_| format!("{path}:{}: bad result '{r}'", i + 1))?;
        v.push(Sample { pos, result });
    }
    Ok(v)
}

/// Mean squared error of the predicted results, on two threads.
fn loss(data: &[Sample], w: &Weights, k: f64) -> f64 {
    let half = data.len() / 2;
    let part = |chunk: &[Sample]| -> f64 {
        chunk
            .iter()
            .map(|s| {
                let e = evaluate_with(&s.pos, w) as f64;
                let e = if s.pos.turn() == Color::Red { e } else { -e };
                let p = 1.0 / (1.0 + 10f64.powf(-k * e / 400.0));
                (s.result - p).powi(2)
            })
            .sum()
    };
    let total = std::thread::scope(|sc| {
        let a = sc.spawn(|| part(&data[..half]));
        let b = part(&data[half..]);
        a.join().expect("loss thread") + b
    });
    total / data.len() as f64
}

fn tune(path: &str) -> Result<(), String> {
    let data = load(path)?;
    eprintln!("{} positions", data.len());
    let mut w = Weights::DEFAULT;
    // The scale K that fits the current weights best.
    let mut k = 1.0;
    let mut step = 0.5;
    let mut best = loss(&data, &w, k);
    while step > 0.005 {
        let mut moved = false;
        for cand in [k + step, k - step] {
            if cand <= 0.0 {
                continue;
            }
            let l = loss(&data, &w, cand);
            if l < best {
                best = l;
                k = cand;
                moved = true;
                break;
            }
        }
        if !moved {
            step /= 2.0;
        }
    }
    eprintln!("K = {k:.3}, loss {best:.6}");
    let steps: Vec<i32> = (0..NW)
        .map(|i| {
            let v = Weights::DEFAULT.0[i].abs();
            if WEIGHT_NAMES[i].contains('%') {
                5
            } else if v >= 100 {
                5
            } else {
                1
            }
        })
        .collect();
    for pass in 1..=30 {
        let mut improved = false;
        for i in 0..NW {
            for dir in [1, -1] {
                let mut cand = w.clone();
                cand.0[i] += dir * steps[i];
                let l = loss(&data, &cand, k);
                if l < best {
                    best = l;
                    w = cand;
                    improved = true;
                    break;
                }
            }
        }
        eprintln!("pass {pass}: loss {best:.6}");
        if !improved {
            break;
        }
    }
    println!(
        "// Texel-tuned on {} positions, K = {k:.3}, loss {best:.6}",
        data.len()
    );
    for i in 0..NW {
        println!(
            "{:>28}: {:>5} (was {})",
            WEIGHT_NAMES[i],
            w.0[i],
            Weights::DEFAULT.0[i]
        );
    }
    Ok(())
}
