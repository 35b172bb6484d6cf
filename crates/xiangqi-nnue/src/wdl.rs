//! The win/draw/loss model: how often a position with a given score and material is won,
//! drawn or lost, fitted on self-play results (the engine's `UCI_ShowWDL`).
//!
//! As Stockfish's model: the expected win rate of a score `v` (centipawns, side to move) is
//! `1 / (1 + exp((a - v) / b))`, the loss rate the same of `-v`, the draw rate the rest; `a`
//! (the score that wins half the time) and `b` (the spread) are cubic polynomials in the
//! material on the board. Material counts the attacking pieces of both sides, chariot 9,
//! cannon 4.5, horse 4, soldier 1 (80 at the start), clamped to 10..=80 and divided by 80.
//!
//! [`fit`] makes a model from data files: it bins the positions by material and score,
//! fits `a` and `b` by maximum likelihood in each material bin that has enough positions,
//! then fits the two cubics to those values by least squares weighted by the bins' sizes
//! (the method of Stockfish's WDL fitting scripts; the code is ours).

use xiangqi::{Board, Role};

use crate::data::Record;

/// The attacking material of both sides (chariot 9, cannon 4.5, horse 4, soldier 1), in
/// half points (so it is an integer): 160 at the start.
pub fn material_halves(board: &Board) -> u32 {
    board
        .pieces()
        .map(|(_, p)| match p.role {
            Role::Chariot => 18,
            Role::Cannon => 9,
            Role::Horse => 8,
            Role::Soldier => 2,
            _ => 0,
        })
        .sum()
}

/// The model's material variable: material (points) clamped to 10..=80, over 80.
pub fn material_x(board: &Board) -> f64 {
    x_of_halves(material_halves(board))
}

/// The material variable of a material in half points.
fn x_of_halves(halves: u32) -> f64 {
    (halves as f64 / 2.0).clamp(10.0, 80.0) / 80.0
}

/// The model the engine ships (`UCI_ShowWDL`; docs/STRENGTH.md, "Win/draw/loss from a
/// score", gives its data and command). `xiangqi-nnue wdl-fit` measures a new fit against it.
pub const SHIPPED: WdlModel = WdlModel {
    a: [-277.511, 1147.284, -1442.791, 714.341],
    b: [-75.826, -144.726, 463.858, 61.544],
};

/// Cubic polynomials in the material variable for `a` and `b`, highest power first.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct WdlModel {
    pub a: [f64; 4],
    pub b: [f64; 4],
}

fn cubic(c: &[f64; 4], x: f64) -> f64 {
    ((c[0] * x + c[1]) * x + c[2]) * x + c[3]
}

fn logistic(z: f64) -> f64 {
    1.0 / (1.0 + (-z).exp())
}

impl WdlModel {
    /// `a` and `b` at a material variable `x` (`b` kept above 1 cp).
    pub fn params(&self, x: f64) -> (f64, f64) {
        (cubic(&self.a, x), cubic(&self.b, x).max(1.0))
    }
    /// Win, draw and loss per mille for the side to move of a score in centipawns; they sum
    /// to 1000.
    pub fn wdl(&self, cp: i32, x: f64) -> [u32; 3] {
        let (a, b) = self.params(x);
        let v = cp as f64;
        let w = (1000.0 * logistic((v - a) / b)).round() as u32;
        let l = (1000.0 * logistic((-v - a) / b)).round() as u32;
        let l = l.min(1000 - w);
        [w, 1000 - w - l, l]
    }
    /// The mean negative log-likelihood (natural log, per position) of the results in
    /// `bins` under this model: lower is better; a model that always says a third each scores
    /// ln 3 = 1.0986. Each material row is taken at its own material variable and each score
    /// bin at its centre. `None` when `bins` holds no position.
    pub fn mean_nll(&self, bins: &WdlBins) -> Option<f64> {
        if bins.positions == 0 {
            return None;
        }
        let mut sum = 0.0;
        for (m, row) in bins.counts.iter().enumerate() {
            let (a, b) = self.params(x_of_halves(m as u32));
            let cells: Vec<(f64, [u64; 3])> = row
                .iter()
                .enumerate()
                .filter(|(_, c)| c.iter().any(|&n| n > 0))
                .map(|(k, c)| (bins.score_of_bin(k), *c))
                .collect();
            sum += nll(&cells, a, b);
        }
        Some(sum / bins.positions as f64)
    }
}

/// Counts of results by material bin (half points, 0..=160) and score bin.
#[derive(Clone, Debug)]
pub struct WdlBins {
    /// Score bins of `step` centipawns, from -limit to +limit.
    pub step: i32,
    pub limit: i32,
    /// counts[material][score bin] = [wins, draws, losses] of the side to move.
    counts: Vec<Vec<[u64; 3]>>,
    pub positions: u64,
}

impl WdlBins {
    pub fn new(step: i32, limit: i32) -> WdlBins {
        let nb = (2 * limit / step + 1) as usize;
        WdlBins {
            step,
            limit,
            counts: vec![vec![[0; 3]; nb]; 161],
            positions: 0,
        }
    }
    /// Adds a training position: its score, material and the game's result for the side to
    /// move.
    pub fn add(&mut self, r: &Record) {
        let own = r.result.score_for(r.turn);
        let outcome = if own == 1.0 {
            0
        } else if own == 0.5 {
            1
        } else {
            2
        };
        self.add_result(material_halves(&r.board), r.score as i32, outcome);
    }
    /// Adds one result (0 win, 1 draw, 2 loss for the side to move) of a position with
    /// `material_halves` and `score`; scores beyond the limit (nearly decided positions) are
    /// left out.
    pub fn add_result(&mut self, material_halves: u32, score: i32, outcome: usize) {
        if score.abs() > self.limit || outcome > 2 {
            return;
        }
        let m = (material_halves as usize).min(160);
        let k = ((score + self.limit + self.step / 2) / self.step) as usize;
        self.counts[m][k][outcome] += 1;
        self.positions += 1;
    }
    fn score_of_bin(&self, k: usize) -> f64 {
        (k as i32 * self.step - self.limit) as f64
    }
}

/// Negative log-likelihood of `a`, `b` over bins of (score, [w, d, l]).
fn nll(cells: &[(f64, [u64; 3])], a: f64, b: f64) -> f64 {
    if b < 1.0 {
        return f64::INFINITY;
    }
    let mut s = 0.0;
    for (v, [w, d, l]) in cells {
        let pw = logistic((v - a) / b).clamp(1e-12, 1.0);
        let pl = logistic((-v - a) / b).clamp(1e-12, 1.0);
        let pd = (1.0 - pw - pl).max(1e-12);
        s -= *w as f64 * pw.ln() + *d as f64 * pd.ln() + *l as f64 * pl.ln();
    }
    s
}

/// Minimises `f` over two variables from `start` by Nelder-Mead.
fn nelder_mead(f: impl Fn(f64, f64) -> f64, start: (f64, f64), scale: (f64, f64)) -> (f64, f64) {
    let mut pts = [
        start,
        (start.0 + scale.0, start.1),
        (start.0, start.1 + scale.1),
    ];
    let mut vals = pts.map(|p| f(p.0, p.1));
    for _ in 0..2000 {
        let mut idx = [0usize, 1, 2];
        idx.sort_by(|&i, &j| vals[i].total_cmp(&vals[j]));
        let (best, mid, worst) = (idx[0], idx[1], idx[2]);
        if (vals[worst] - vals[best]).abs() <= 1e-10 * vals[best].abs().max(1.0) {
            break;
        }
        let c = (
            (pts[best].0 + pts[mid].0) / 2.0,
            (pts[best].1 + pts[mid].1) / 2.0,
        );
        let at = |t: f64| {
            (
                c.0 + t * (pts[worst].0 - c.0),
                c.1 + t * (pts[worst].1 - c.1),
            )
        };
        let r = at(-1.0);
        let fr = f(r.0, r.1);
        if fr < vals[best] {
            let e = at(-2.0);
            let fe = f(e.0, e.1);
            if fe < fr {
                pts[worst] = e;
                vals[worst] = fe;
            } else {
                pts[worst] = r;
                vals[worst] = fr;
            }
        } else if fr < vals[mid] {
            pts[worst] = r;
            vals[worst] = fr;
        } else {
            let k = at(0.5);
            let fk = f(k.0, k.1);
            if fk < vals[worst] {
                pts[worst] = k;
                vals[worst] = fk;
            } else {
                for i in [mid, worst] {
                    pts[i] = (
                        (pts[i].0 + pts[best].0) / 2.0,
                        (pts[i].1 + pts[best].1) / 2.0,
                    );
                    vals[i] = f(pts[i].0, pts[i].1);
                }
            }
        }
    }
    let best = (0..3)
        .min_by(|&i, &j| vals[i].total_cmp(&vals[j]))
        .unwrap_or(0);
    pts[best]
}

/// One material bin's fitted `a` and `b`, with its number of positions.
#[derive(Copy, Clone, Debug)]
pub struct BinFit {
    /// The material variable of the bin.
    pub x: f64,
    pub a: f64,
    pub b: f64,
    pub positions: u64,
}

/// Solves the 4x4 normal equations of a weighted cubic least-squares fit.
fn cubic_fit(pts: &[(f64, f64, f64)]) -> Option<[f64; 4]> {
    // Unknowns c3..c0 (highest power first); rows of the normal matrix.
    let mut m = [[0.0f64; 5]; 4];
    for &(x, y, w) in pts {
        let basis = [x * x * x, x * x, x, 1.0];
        for i in 0..4 {
            for j in 0..4 {
                m[i][j] += w * basis[i] * basis[j];
            }
            m[i][4] += w * basis[i] * y;
        }
    }
    // Gaussian elimination with partial pivoting.
    for col in 0..4 {
        let piv = (col..4).max_by(|&i, &j| m[i][col].abs().total_cmp(&m[j][col].abs()))?;
        if m[piv][col].abs() < 1e-12 {
            return None;
        }
        m.swap(col, piv);
        let pivot_row = m[col];
        for (r, row) in m.iter_mut().enumerate() {
            if r != col {
                let f = row[col] / pivot_row[col];
                for (x, p) in row.iter_mut().zip(pivot_row.iter()).skip(col) {
                    *x -= f * p;
                }
            }
        }
    }
    Some([0, 1, 2, 3].map(|i| m[i][4] / m[i][i]))
}

/// What [`fit`] found: the model and the per-bin values it was made from.
#[derive(Clone, Debug)]
pub struct WdlFit {
    pub model: WdlModel,
    pub bins: Vec<BinFit>,
}

/// Fits the model to binned results: `a`, `b` by maximum likelihood in every material group
/// of `group` whole points of the clamped material (10-14, 15-19, ... for 5; below 10 counts
/// as 10) with at least `min_positions` positions, then the cubics. `None` when fewer than
/// four groups have enough data.
pub fn fit(bins: &WdlBins, group: usize, min_positions: u64) -> Option<WdlFit> {
    let group = group.max(1);
    let groups = 70 / group + 1;
    let width = bins.counts.first().map_or(0, Vec::len);
    // Per group: counts by score bin, positions, and the sum of their material.
    let mut acc: Vec<(Vec<[u64; 3]>, u64, f64)> = vec![(vec![[0; 3]; width], 0, 0.0); groups];
    for (m, row) in bins.counts.iter().enumerate() {
        let points = (m as f64 / 2.0).clamp(10.0, 80.0);
        let g = &mut acc[((points - 10.0) as usize / group).min(groups - 1)];
        for (i, c) in row.iter().enumerate() {
            let t = c[0] + c[1] + c[2];
            for (sum, v) in g.0[i].iter_mut().zip(c) {
                *sum += v;
            }
            g.1 += t;
            g.2 += t as f64 * points;
        }
    }
    let mut found = Vec::new();
    for (counts, n, material) in acc {
        if n < min_positions {
            continue;
        }
        let cells: Vec<(f64, [u64; 3])> = counts
            .iter()
            .enumerate()
            .filter(|(_, c)| c.iter().sum::<u64>() > 0)
            .map(|(i, c)| (bins.score_of_bin(i), *c))
            .collect();
        let (a, b) = nelder_mead(|a, b| nll(&cells, a, b), (300.0, 150.0), (50.0, 30.0));
        found.push(BinFit {
            x: material / n as f64 / 80.0,
            a,
            b,
            positions: n,
        });
    }
    if found.len() < 4 {
        return None;
    }
    let weighted = |f: fn(&BinFit) -> f64| -> Vec<(f64, f64, f64)> {
        found
            .iter()
            .map(|p| (p.x, f(p), p.positions as f64))
            .collect()
    };
    let a = cubic_fit(&weighted(|p| p.a))?;
    let b = cubic_fit(&weighted(|p| p.b))?;
    Some(WdlFit {
        model: WdlModel { a, b },
        bins: found,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const TRUTH: WdlModel = WdlModel {
        a: [0.0, 120.0, -60.0, 250.0],
        b: [0.0, 0.0, 80.0, 90.0],
    };

    /// `per_material` results at every tenth material (half points 20..=160) drawn from
    /// `truth` by a fixed-seed generator, scores uniform in -800..800.
    fn sample(truth: &WdlModel, per_material: usize) -> WdlBins {
        let mut bins = WdlBins::new(10, 1500);
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 11) as f64 / (1u64 << 53) as f64
        };
        for m in (20..=160u32).step_by(10) {
            let (a, b) = truth.params(x_of_halves(m));
            for _ in 0..per_material {
                let v = ((next() - 0.5) * 1600.0).round();
                let pw = logistic((v - a) / b);
                let pl = logistic((-v - a) / b);
                let u = next();
                let outcome = if u < pw {
                    0
                } else if u < pw + pl {
                    2
                } else {
                    1
                };
                bins.add_result(m, v as i32, outcome);
            }
        }
        bins
    }

    /// Results drawn from a known model (a fixed-seed generator) are fitted back to it.
    #[test]
    fn the_fit_recovers_a_known_model() {
        let truth = TRUTH;
        let bins = sample(&truth, 20_000);
        let f = fit(&bins, 1, 2000).expect("enough bins");
        for b in &f.bins {
            let (ta, tb) = truth.params(b.x);
            assert!((b.a - ta).abs() < 15.0, "a at {}: {} vs {ta}", b.x, b.a);
            assert!((b.b - tb).abs() < 15.0, "b at {}: {} vs {tb}", b.x, b.b);
            let (ma, mb) = f.model.params(b.x);
            assert!((ma - ta).abs() < 10.0, "model a at {}: {ma} vs {ta}", b.x);
            assert!((mb - tb).abs() < 10.0, "model b at {}: {mb} vs {tb}", b.x);
        }
        // The per-mille figures add up, and a higher score wins more.
        let x = 0.8;
        let [w, d, l] = f.model.wdl(100, x);
        assert_eq!(w + d + l, 1000);
        assert!(f.model.wdl(300, x)[0] > w && f.model.wdl(300, x)[2] < l);
        assert_eq!(f.model.wdl(0, x)[0], f.model.wdl(0, x)[2]);
    }

    /// The data's own model scores better than a shifted or a flatter one, the fit on the
    /// data at least as well as the model that made it (to rounding), a model that says a
    /// third each scores ln 3, and no data gives no figure.
    #[test]
    fn the_mean_log_likelihood_ranks_models() {
        let bins = sample(&TRUTH, 5_000);
        let nll = |m: &WdlModel| m.mean_nll(&bins).expect("positions");
        let truth = nll(&TRUTH);
        let shifted = WdlModel {
            a: [0.0, 120.0, -60.0, 330.0],
            ..TRUTH
        };
        let flatter = WdlModel {
            b: [0.0, 0.0, 80.0, 180.0],
            ..TRUTH
        };
        assert!(truth < nll(&shifted), "{truth} vs {}", nll(&shifted));
        assert!(truth < nll(&flatter), "{truth} vs {}", nll(&flatter));
        let fitted = fit(&bins, 1, 500).expect("enough bins").model;
        assert!(nll(&fitted) < truth + 1e-3, "{} vs {truth}", nll(&fitted));
        // An enormous spread, `a` = b ln 2: a third each whatever the score.
        let blind = WdlModel {
            a: [0.0, 0.0, 0.0, 1e9 * 2f64.ln()],
            b: [0.0, 0.0, 0.0, 1e9],
        };
        assert!((nll(&blind) - 3f64.ln()).abs() < 1e-6, "{}", nll(&blind));
        assert_eq!(TRUTH.mean_nll(&WdlBins::new(10, 1500)), None);
    }
}
