//! Texel tuning of the evaluation weights (`eval::Weights`) on positions from finished games.
//!
//! ```text
//! # 1. Positions: quiet positions of games with a result, one "FEN;result" line each
//! #    (result from Red's view: 1, 0.5 or 0).
//! cargo run --release -p xiangqi-engine --example texel -- extract positions.txt games/*.pgn
//! # 2. Fit: finds the scale K, then moves each weight while the loss falls; prints the
//! #    weights as Rust to paste into `eval.rs`.
//! cargo run --release -p xiangqi-engine --example texel -- tune positions.txt
//! # 3. Fit the per-square corrections (`eval::PST_DELTA`, 700 numbers) by gradient descent
//! #    with an L2 penalty LAMBDA on them; prints the new `src/pst_delta.rs`.
//! cargo run --release -p xiangqi-engine --example texel -- tune-pst positions.txt 3e-9 1500
//! ```
//!
//! The loss is the mean squared difference between the game result and
//! `1 / (1 + 10^(-K * eval / 400))`, eval the static evaluation from Red's view. Positions
//! are "quiet": after the opening (ply 10 on), the side to move not in check, no capture
//! that wins material by exchange, and the move played from it not a capture.

use std::io::Write;

use xiangqi::{Color, Position, Role};
use xiangqi_engine::eval::{self, evaluate_with, Weights, NW, WEIGHT_NAMES};
use xiangqi_engine::movepick;
use xiangqi_record::detect::read_any;
use xiangqi_record::GameResult;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let r = match args.first().map(String::as_str) {
        Some("extract") if args.len() >= 3 => extract(&args[1], &args[2..]),
        Some("tune") if args.len() == 2 => tune(&args[1]),
        Some("tune-pst") if args.len() == 4 => match (args[2].parse(), args[3].parse()) {
            (Ok(lambda), Ok(epochs)) => tune_pst(&args[1], lambda, epochs),
            _ => Err("tune-pst: LAMBDA is a number, EPOCHS a count".into()),
        },
        _ => Err(
            "usage: texel extract OUT.txt GAMEFILE...  |  texel tune POSITIONS.txt  |  \
             texel tune-pst POSITIONS.txt LAMBDA EPOCHS"
                .into(),
        ),
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

/// The static evaluation of `pos` under `w`, from Red's view.
fn red_eval(pos: &Position, w: &Weights) -> f64 {
    let e = evaluate_with(pos, w) as f64;
    if pos.turn() == Color::Red {
        e
    } else {
        -e
    }
}

/// Mean squared error of the predicted results, on two threads.
fn loss(data: &[Sample], w: &Weights, k: f64) -> f64 {
    let half = data.len() / 2;
    let part = |chunk: &[Sample]| -> f64 {
        chunk
            .iter()
            .map(|s| {
                let e = red_eval(&s.pos, w);
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

/// Weights left alone: advisors and elephants are on the board in nearly every position
/// of nearly every game, so game results say little about their value and a fit drifts;
/// the tempo bonus is not a property of a position.
const FROZEN: [usize; 5] = [
    eval::W_ADVISOR_MG,
    eval::W_ADVISOR_EG,
    eval::W_ELEPHANT_MG,
    eval::W_ELEPHANT_EG,
    eval::W_TEMPO,
];

/// The positions split into the fitted ones and the held-out ones.
fn split(path: &str) -> Result<(Vec<Sample>, Vec<Sample>), String> {
    let mut all = load(path)?;
    // Every tenth block of 64 consecutive positions (about one game) is held out: the fit
    // stops when the held-out loss stops falling.
    let mut data = Vec::new();
    let mut held = Vec::new();
    for (i, s) in all.drain(..).enumerate() {
        if (i / 64) % 10 == 9 {
            held.push(s);
        } else {
            data.push(s);
        }
    }
    eprintln!("{} positions, {} held out", data.len(), held.len());
    Ok((data, held))
}

/// The scale K that fits the weights `w` best, and the loss with it.
fn fit_k(data: &[Sample], w: &Weights) -> (f64, f64) {
    let mut k = 1.0;
    let mut step = 0.5;
    let mut best = loss(data, w, k);
    while step > 0.005 {
        let mut moved = false;
        for cand in [k + step, k - step] {
            if cand <= 0.0 {
                continue;
            }
            let l = loss(data, w, cand);
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
    (k, best)
}

fn tune(path: &str) -> Result<(), String> {
    let (data, held) = split(path)?;
    let mut w = Weights::DEFAULT;
    let (k, mut best) = fit_k(&data, &w);
    let mut best_held = loss(&held, &w, k);
    let mut kept = w.clone();
    eprintln!("held-out loss {best_held:.6}");
    let steps: Vec<i32> = (0..NW)
        .map(|i| {
            // Percentages and material move in steps of 5, the small terms in steps of 1.
            if WEIGHT_NAMES[i].contains('%') || Weights::DEFAULT.0[i].abs() >= 100 {
                5
            } else {
                1
            }
        })
        .collect();
    let mut worse = 0;
    for pass in 1..=60 {
        let mut improved = false;
        for i in (0..NW).filter(|i| !FROZEN.contains(i)) {
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
        let h = loss(&held, &w, k);
        eprintln!("pass {pass}: loss {best:.6}, held-out {h:.6}");
        if h < best_held {
            best_held = h;
            kept = w.clone();
            worse = 0;
        } else {
            worse += 1;
        }
        if !improved || worse >= 3 {
            break;
        }
    }
    let w = kept;
    println!(
        "// Texel-tuned on {} positions ({} held out), K = {k:.3}, held-out loss {best_held:.6}",
        data.len(),
        held.len()
    );
    for (i, name) in WEIGHT_NAMES.iter().enumerate() {
        println!("{name:>28}: {:>5} (was {})", w.0[i], Weights::DEFAULT.0[i]);
    }
    Ok(())
}

/// A position reduced to what the per-square fit needs: its evaluation from Red's view
/// without the corrections being fitted, and the corrections' coefficients (+-phase share).
struct Linear {
    base: f64,
    result: f64,
    terms: Vec<(u16, f32)>,
}

fn linearize(samples: &[Sample]) -> Vec<Linear> {
    samples
        .iter()
        .map(|s| {
            let base = red_eval(&s.pos, &Weights::DEFAULT);
            let b = s.pos.board();
            let phase: i32 = b
                .pieces()
                .map(|(_, p)| eval::PHASE[p.role.index()])
                .sum::<i32>()
                .min(eval::PHASE_MAX);
            let mg = phase as f32 / eval::PHASE_MAX as f32;
            let mut terms = Vec::with_capacity(64);
            for (sq, p) in b.pieces() {
                let sign = if p.color == Color::Red { 1.0 } else { -1.0 };
                let slot = eval::pst_slot(p.color, p.role, sq) as u16;
                terms.push((2 * slot, sign * mg));
                terms.push((2 * slot + 1, sign * (1.0 - mg)));
            }
            Linear {
                base,
                result: s.result,
                terms,
            }
        })
        .collect()
}

/// Loss and (with `grad`) its gradient in the corrections `d` (mg, eg interleaved).
fn linear_loss(data: &[Linear], d: &[f64], k: f64, grad: Option<&mut [f64]>) -> f64 {
    let c = k * std::f64::consts::LN_10 / 400.0;
    let mut total = 0.0;
    let mut g = grad;
    for s in data {
        let e = s.base
            + s.terms
                .iter()
                .map(|&(i, w)| d[i as usize] * w as f64)
                .sum::<f64>();
        let p = 1.0 / (1.0 + (-c * e).exp());
        total += (s.result - p).powi(2);
        if let Some(g) = g.as_deref_mut() {
            let de = 2.0 * (p - s.result) * p * (1.0 - p) * c;
            for &(i, w) in &s.terms {
                g[i as usize] += de * w as f64;
            }
        }
    }
    total / data.len() as f64
}

/// Fits `eval::PST_DELTA` on top of its current values: Adam on the mean squared error plus
/// `lambda` times the sum of the squared changes, keeping the epoch with the lowest
/// held-out loss. Slots seen fewer than 50 times are left alone.
fn tune_pst(path: &str, lambda: f64, epochs: usize) -> Result<(), String> {
    let (data, held) = split(path)?;
    let (k, _) = fit_k(&data, &Weights::DEFAULT);
    let (data, held) = (linearize(&data), linearize(&held));
    let n = 2 * eval::PST_SLOTS;
    let mut seen = vec![0usize; n];
    for s in &data {
        for &(i, _) in &s.terms {
            seen[i as usize] += 1;
        }
    }
    // As in `tune`: the general, advisors and elephants stand on their few points in nearly
    // every position, so their corrections would only soak up material and drift.
    let fixed = [Role::General, Role::Advisor, Role::Elephant].map(|r| r.index());
    let free: Vec<bool> = (0..n)
        .map(|i| seen[i] >= 50 && !fixed.contains(&(i / 2 / 50)))
        .collect();
    let mut d = vec![0.0f64; n];
    let (mut m1, mut m2) = (vec![0.0f64; n], vec![0.0f64; n]);
    let (lr, b1, b2) = (1.0, 0.9, 0.999);
    let mut best_held = linear_loss(&held, &d, k, None);
    eprintln!("held-out loss {best_held:.6} before");
    let mut kept = d.clone();
    let mut kept_epoch = 0;
    for epoch in 1..=epochs {
        let mut g = vec![0.0f64; n];
        let l = linear_loss(&data, &d, k, Some(&mut g));
        for i in 0..n {
            if !free[i] {
                continue;
            }
            let gi = g[i] / data.len() as f64 + 2.0 * lambda * d[i];
            m1[i] = b1 * m1[i] + (1.0 - b1) * gi;
            m2[i] = b2 * m2[i] + (1.0 - b2) * gi * gi;
            let mh = m1[i] / (1.0 - b1.powi(epoch as i32));
            let vh = m2[i] / (1.0 - b2.powi(epoch as i32));
            d[i] -= lr * mh / (vh.sqrt() + 1e-12);
        }
        if epoch % 50 == 0 || epoch == epochs {
            let h = linear_loss(&held, &d, k, None);
            eprintln!("epoch {epoch}: loss {l:.6}, held-out {h:.6}");
            if h < best_held {
                best_held = h;
                kept = d.clone();
                kept_epoch = epoch;
            }
        }
    }
    println!(
        "// Per-square corrections (mg, eg) by eval::pst_slot: texel tune-pst on {} positions \
         ({} held out), K = {k:.3}, lambda {lambda}, epoch {kept_epoch}, held-out loss {best_held:.6}.",
        data.len(),
        held.len()
    );
    println!("[");
    for slot in 0..eval::PST_SLOTS {
        let old = eval::PST_DELTA[slot];
        let mg = old.0 as f64 + kept[2 * slot];
        let eg = old.1 as f64 + kept[2 * slot + 1];
        println!("    ({}, {}),", mg.round() as i16, eg.round() as i16);
    }
    println!("]");
    Ok(())
}
