//! Match statistics: Elo difference with its 95% error, likelihood of superiority, and the
//! sequential probability ratio test (SPRT).
//!
//! The Elo and error follow cutechess-cli (the score's normal approximation over the trinomial
//! win/draw/loss distribution); the SPRT is fishtest's GSPRT, with the maximum-likelihood
//! distributions of Van den Bergh's method, on logistic Elo or on normalized Elo, over single
//! games (trinomial) or over the pairs of games that share an opening (pentanomial).
//!
//! Normalized Elo (Van den Bergh, as fishtest and fastchess use it) measures a difference in
//! units of the results' spread: with `t = (score - ½) / σ`, σ the standard deviation of one
//! game's points (trinomial) or of one pair's mean points (pentanomial),
//! `nElo = t · 800 / ln 10` for games and `t · 800 / ln 10 / √2` for pairs. Its SPRT tests
//! `t = t0` against `t = t1`, which does not depend on the draw rate.

/// Win, draw and loss counts from the first engine's point of view.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Wdl {
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
}

/// The two-sided 95% quantile of the normal distribution.
const Z95: f64 = 1.959_963_984_540_054;

/// Elo difference of a score fraction (0 < s < 1) under the logistic model.
pub fn elo_of_score(s: f64) -> f64 {
    -400.0 * (1.0 / s - 1.0).log10()
}

/// Expected score of an Elo difference under the logistic model.
pub fn score_of_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

impl Wdl {
    pub fn new(wins: u32, draws: u32, losses: u32) -> Wdl {
        Wdl {
            wins,
            draws,
            losses,
        }
    }
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }
    /// Points: a win 1, a draw ½.
    pub fn points(&self) -> f64 {
        self.wins as f64 + self.draws as f64 / 2.0
    }
    /// The score fraction (points per game); `None` before any game.
    pub fn score(&self) -> Option<f64> {
        let n = self.games();
        (n > 0).then(|| self.points() / n as f64)
    }
    /// The Elo difference; infinite after all wins or all losses, `None` before any game.
    pub fn elo(&self) -> Option<f64> {
        self.score().map(elo_of_score)
    }
    /// Standard deviation of the mean score (per-game variance over the sample / n).
    fn score_stdev(&self) -> Option<f64> {
        let n = self.games() as f64;
        let mu = self.score()?;
        let (w, d, l) = (
            self.wins as f64 / n,
            self.draws as f64 / n,
            self.losses as f64 / n,
        );
        let var = w * (1.0 - mu).powi(2) + d * (0.5 - mu).powi(2) + l * mu.powi(2);
        Some((var / n).sqrt())
    }
    /// Half the width of the 95% confidence interval of the Elo difference (cutechess-cli's
    /// "+/-"); `None` when it is undefined (no games, or a score of 0 or 1).
    pub fn elo_error(&self) -> Option<f64> {
        let mu = self.score()?;
        let sd = self.score_stdev()?;
        let (lo, hi) = (mu - Z95 * sd, mu + Z95 * sd);
        if !(lo > 0.0 && hi < 1.0) {
            return None;
        }
        Some((elo_of_score(hi) - elo_of_score(lo)) / 2.0)
    }
    /// Likelihood of superiority: the probability that the first engine is the stronger,
    /// from wins and losses (draws tell nothing). `None` without decisive games.
    pub fn los(&self) -> Option<f64> {
        let (w, l) = (self.wins as f64, self.losses as f64);
        if w + l == 0.0 {
            return None;
        }
        Some(0.5 + 0.5 * erf((w - l) / (2.0 * (w + l)).sqrt()))
    }
    /// The draw ratio.
    pub fn draw_ratio(&self) -> Option<f64> {
        let n = self.games();
        (n > 0).then(|| self.draws as f64 / n as f64)
    }
}

/// The error function, to about 1e-14 (series below 2.5, continued fraction of erfc above).
pub fn erf(x: f64) -> f64 {
    if x < 0.0 {
        return -erf(-x);
    }
    if x < 2.5 {
        // erf x = 2/sqrt(pi) * sum (-1)^n x^(2n+1) / (n! (2n+1))
        let mut term = x;
        let mut sum = x;
        let x2 = x * x;
        let mut n = 0.0;
        loop {
            n += 1.0;
            term *= -x2 / n;
            let t = term / (2.0 * n + 1.0);
            sum += t;
            if t.abs() <= 1e-17 * sum.abs() {
                break;
            }
        }
        return sum * 2.0 / std::f64::consts::PI.sqrt();
    }
    1.0 - erfc_cf(x)
}

/// erfc by its continued fraction (x >= 2), evaluated by the modified Lentz method.
fn erfc_cf(x: f64) -> f64 {
    // erfc x = exp(-x^2)/sqrt(pi) * 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + 2/(x + ...)))))
    let tiny = 1e-300;
    let mut f = x;
    let mut c = x;
    let mut d = 0.0;
    for k in 1..200 {
        let a = k as f64 / 2.0;
        d = x + a * d;
        if d.abs() < tiny {
            d = tiny;
        }
        c = x + a / c;
        if c.abs() < tiny {
            c = tiny;
        }
        d = 1.0 / d;
        let delta = c * d;
        f *= delta;
        if (delta - 1.0).abs() < 1e-16 {
            break;
        }
    }
    (-x * x).exp() / std::f64::consts::PI.sqrt() / f
}

/// The parameters of a sequential probability ratio test: H0 "the Elo difference is elo0"
/// against H1 "it is elo1", with error rates alpha (accepting H1 wrongly) and beta.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Sprt {
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
    /// What elo0 and elo1 are measured in.
    pub model: EloModel,
    /// Game pairs of earlier runs of the same test (`earlier=` counts), added to the pairs
    /// played for its log-likelihood ratio: a test stopped and continued with new seeds,
    /// as fishtest adds a test's runs. Zero unless given.
    pub earlier: Penta,
}

/// The unit of an SPRT's Elo bounds.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum EloModel {
    /// Logistic Elo: the bounds are expected scores `1 / (1 + 10^(-elo/400))`.
    Logistic,
    /// Normalized Elo (fishtest's and fastchess's default): the bounds are t-values.
    Normalized,
}

impl EloModel {
    pub fn name(self) -> &'static str {
        match self {
            EloModel::Logistic => "logistic",
            EloModel::Normalized => "normalized",
        }
    }
}

/// Where an SPRT stands.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SprtState {
    Continue,
    /// H0 accepted (the lower bound was crossed).
    H0,
    /// H1 accepted (the upper bound was crossed).
    H1,
}

impl Sprt {
    /// Checks the parameters: elo0 < elo1, 0 < alpha, beta and alpha + beta < 1.
    pub fn new(elo0: f64, elo1: f64, alpha: f64, beta: f64) -> Result<Sprt, String> {
        if !(elo0.is_finite() && elo1.is_finite() && elo0 < elo1) {
            return Err(format!(
                "SPRT needs elo0 < elo1 (got elo0={elo0} elo1={elo1})"
            ));
        }
        if !(alpha > 0.0 && beta > 0.0 && alpha + beta < 1.0) {
            return Err(format!(
                "SPRT needs alpha > 0, beta > 0 and alpha + beta < 1 (got alpha={alpha} beta={beta})"
            ));
        }
        Ok(Sprt {
            elo0,
            elo1,
            alpha,
            beta,
            model: EloModel::Logistic,
            earlier: Penta::default(),
        })
    }
    /// The same test with its bounds in another unit.
    pub fn with_model(self, model: EloModel) -> Sprt {
        Sprt { model, ..self }
    }
    /// The same test continued from earlier runs' game pairs.
    pub fn with_earlier(self, earlier: Penta) -> Sprt {
        Sprt { earlier, ..self }
    }
    /// The lower bound ln(beta / (1 - alpha)): below it H0 is accepted.
    pub fn lower_bound(&self) -> f64 {
        (self.beta / (1.0 - self.alpha)).ln()
    }
    /// The upper bound ln((1 - beta) / alpha): above it H1 is accepted.
    pub fn upper_bound(&self) -> f64 {
        ((1.0 - self.beta) / self.alpha).ln()
    }
    /// The log-likelihood ratio of single games' results (trinomial).
    pub fn llr(&self, r: &Wdl) -> f64 {
        match self.model {
            EloModel::Logistic => llr_logistic(self.elo0, self.elo1, r),
            EloModel::Normalized => {
                let c = 800.0 / std::f64::consts::LN_10;
                llr_normalized(&[r.losses, r.draws, r.wins], self.elo0 / c, self.elo1 / c)
            }
        }
    }
    /// The log-likelihood ratio of game pairs' results (pentanomial), the earlier runs'
    /// pairs added.
    pub fn llr_pairs(&self, p: &Penta) -> f64 {
        let p = &p.plus(&self.earlier);
        match self.model {
            EloModel::Logistic => llr_mean(&p.0, score_of_elo(self.elo0), score_of_elo(self.elo1)),
            EloModel::Normalized => {
                llr_normalized(&p.0, self.elo0 / NELO_PAIR, self.elo1 / NELO_PAIR)
            }
        }
    }
    /// Where the test stands with single games' results.
    pub fn state(&self, r: &Wdl) -> SprtState {
        self.decide(self.llr(r))
    }
    /// Where the test stands with game pairs' results.
    pub fn state_pairs(&self, p: &Penta) -> SprtState {
        self.decide(self.llr_pairs(p))
    }
    fn decide(&self, llr: f64) -> SprtState {
        if llr >= self.upper_bound() {
            SprtState::H1
        } else if llr <= self.lower_bound() {
            SprtState::H0
        } else {
            SprtState::Continue
        }
    }
}

/// The generalised log-likelihood ratio of H1 (score = s(elo1)) against H0 (score = s(elo0))
/// for trinomial results, each hypothesis' distribution being the maximum-likelihood one of
/// that expected score. Counts of zero are replaced by 1e-3, as fishtest does, so that the
/// ratio is defined from the first game on.
pub fn llr_logistic(elo0: f64, elo1: f64, r: &Wdl) -> f64 {
    llr_mean(
        &[r.losses, r.draws, r.wins],
        score_of_elo(elo0),
        score_of_elo(elo1),
    )
}

/// nElo per unit of t for game pairs: 800 / ln 10 / √2.
pub const NELO_PAIR: f64 = 800.0 / std::f64::consts::LN_10 / std::f64::consts::SQRT_2;

/// Counts of game pairs (the two games of one opening, each engine Red once) by the first
/// engine's points in the pair: 0, ½, 1, 1½, 2 (LL, LD, WL or DD, WD, WW).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Penta(pub [u32; 5]);

impl Penta {
    /// Adds a pair from the first engine's points in each game (0, ½ or 1).
    pub fn add(&mut self, a: f64, b: f64) {
        let k = ((a + b) * 2.0).round().clamp(0.0, 4.0) as usize;
        self.0[k] += 1;
    }
    pub fn pairs(&self) -> u32 {
        self.0.iter().sum()
    }
    /// These counts and `other`'s together.
    pub fn plus(&self, other: &Penta) -> Penta {
        Penta(std::array::from_fn(|i| self.0[i] + other.0[i]))
    }
    /// Reads counts written as `Ptnml(0-2)` prints them, `LL,LD,WL+DD,WD,WW` (five
    /// whole numbers separated by commas).
    pub fn parse(text: &str) -> Result<Penta, String> {
        let parts: Vec<&str> = text.split(',').map(str::trim).collect();
        if parts.len() != 5 {
            return Err(format!(
                "'{text}' is not five counts LL,LD,WL+DD,WD,WW (got {})",
                parts.len()
            ));
        }
        let mut p = Penta::default();
        for (i, part) in parts.iter().enumerate() {
            p.0[i] = part.parse().map_err(|_| {
                format!(
                    "'{part}' (count {} of '{text}') is not a whole number",
                    i + 1
                )
            })?;
        }
        Ok(p)
    }
    /// The mean score of a pair (0..1) and its per-pair variance.
    fn mean_var(&self) -> Option<(f64, f64)> {
        let n = self.pairs() as f64;
        if n == 0.0 {
            return None;
        }
        let mu: f64 = (0..5)
            .map(|i| self.0[i] as f64 * PAIR_SCORE[i])
            .sum::<f64>()
            / n;
        let var: f64 = (0..5)
            .map(|i| self.0[i] as f64 * (PAIR_SCORE[i] - mu).powi(2))
            .sum::<f64>()
            / n;
        Some((mu, var))
    }
    /// The score fraction; `None` before any pair.
    pub fn score(&self) -> Option<f64> {
        self.mean_var().map(|(mu, _)| mu)
    }
    /// The logistic Elo difference.
    pub fn elo(&self) -> Option<f64> {
        self.score().map(elo_of_score)
    }
    /// Half the width of the 95% interval of the Elo difference, from the pairs' variance
    /// (narrower than the trinomial one when the paired games are correlated).
    pub fn elo_error(&self) -> Option<f64> {
        let (mu, var) = self.mean_var()?;
        let sd = (var / self.pairs() as f64).sqrt();
        let (lo, hi) = (mu - Z95 * sd, mu + Z95 * sd);
        if !(lo > 0.0 && hi < 1.0) {
            return None;
        }
        Some((elo_of_score(hi) - elo_of_score(lo)) / 2.0)
    }
    /// Normalized Elo; `None` before any pair or when every pair scored the same.
    pub fn nelo(&self) -> Option<f64> {
        let (mu, var) = self.mean_var()?;
        (var > 0.0).then(|| (mu - 0.5) / var.sqrt() * NELO_PAIR)
    }
    /// Half the width of nElo's 95% interval, `nElo/t · 1.96 / √pairs` as fastchess reports
    /// it (the spread's own sampling error left out).
    pub fn nelo_error(&self) -> Option<f64> {
        self.nelo()?;
        Some(NELO_PAIR * Z95 / (self.pairs() as f64).sqrt())
    }
}

/// The first engine's mean points in a pair of each pentanomial class.
const PAIR_SCORE: [f64; 5] = [0.0, 0.25, 0.5, 0.75, 1.0];

/// The outcomes' scores for 3 (loss, draw, win) or 5 (pairs) classes.
fn outcome_scores(k: usize) -> &'static [f64] {
    if k == 3 {
        &[0.0, 0.5, 1.0]
    } else {
        &PAIR_SCORE
    }
}

/// The empirical distribution of counts, zero counts replaced by 1e-3 as fishtest does so
/// that the ratio is defined from the first result on; with the (regularised) sample size.
fn regularised(counts: &[u32]) -> (f64, Vec<f64>) {
    let c: Vec<f64> = counts.iter().map(|&v| (v as f64).max(1e-3)).collect();
    let n: f64 = c.iter().sum();
    (n, c.iter().map(|v| v / n).collect())
}

/// The root x of sum p_i g_i / (1 + x g_i) = 0 with every 1 + x g_i > 0, by bisection (the
/// sum decreases in x). `None` when the g_i do not straddle zero (no such distribution).
fn secular(p: &[f64], g: &[f64]) -> Option<f64> {
    let gmin = g.iter().cloned().fold(f64::INFINITY, f64::min);
    let gmax = g.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    if !(gmin < 0.0 && gmax > 0.0) {
        return None;
    }
    let (mut lo, mut hi) = (-1.0 / gmax, -1.0 / gmin);
    let f = |x: f64| -> f64 {
        p.iter()
            .zip(g)
            .map(|(pi, gi)| pi * gi / (1.0 + x * gi))
            .sum()
    };
    for _ in 0..300 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if f(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Some(0.5 * (lo + hi))
}

/// The distribution q closest to p (maximum likelihood) whose mean score is s:
/// q_i = p_i / (1 + x (a_i - s)).
fn mle_mean(p: &[f64], a: &[f64], s: f64) -> Vec<f64> {
    let g: Vec<f64> = a.iter().map(|ai| ai - s).collect();
    match secular(p, &g) {
        Some(x) => p
            .iter()
            .zip(&g)
            .map(|(pi, gi)| pi / (1.0 + x * gi))
            .collect(),
        None => p.to_vec(),
    }
}

/// The distribution q closest to p (maximum likelihood) whose t-value (mean − ½) / σ is t.
/// The constraint is not linear in q; it is linearised at the current q (σ's derivative in
/// q_i is (a_i − μ)² / 2σ), the linear problem solved as in [`mle_mean`], and repeated until
/// q stops moving. It starts from the uniform distribution, not from p: from a p with almost
/// no spread (every game lost) the first linearisation has no solution.
fn mle_t(p: &[f64], a: &[f64], t: f64) -> Vec<f64> {
    let mut q = vec![1.0 / p.len() as f64; p.len()];
    for _ in 0..300 {
        let mu: f64 = q.iter().zip(a).map(|(qi, ai)| qi * ai).sum();
        let var: f64 = q.iter().zip(a).map(|(qi, ai)| qi * (ai - mu).powi(2)).sum();
        let sigma = var.sqrt();
        if sigma <= 0.0 {
            break;
        }
        let g: Vec<f64> = a
            .iter()
            .map(|ai| ai - 0.5 - t * sigma * (1.0 + ((ai - mu) / sigma).powi(2)) / 2.0)
            .collect();
        let Some(x) = secular(p, &g) else { break };
        let next: Vec<f64> = p
            .iter()
            .zip(&g)
            .map(|(pi, gi)| pi / (1.0 + x * gi))
            .collect();
        let moved = next
            .iter()
            .zip(&q)
            .map(|(u, v)| (u - v).abs())
            .fold(0.0, f64::max);
        q = next;
        if moved < 1e-12 {
            break;
        }
    }
    q
}

/// n · Σ p_i ln(q1_i / q0_i): the generalised log-likelihood ratio of two fitted distributions.
fn llr_of(n: f64, p: &[f64], q0: &[f64], q1: &[f64]) -> f64 {
    n * p
        .iter()
        .zip(q0.iter().zip(q1))
        .map(|(pi, (a, b))| pi * (b / a).ln())
        .sum::<f64>()
}

/// The GSPRT's LLR of mean score s1 against s0, for 3 (loss, draw, win) or 5 (pair) counts.
pub fn llr_mean(counts: &[u32], s0: f64, s1: f64) -> f64 {
    if counts.iter().all(|&c| c == 0) {
        return 0.0;
    }
    let a = outcome_scores(counts.len());
    let (n, p) = regularised(counts);
    llr_of(n, &p, &mle_mean(&p, a, s0), &mle_mean(&p, a, s1))
}

/// The GSPRT's LLR of t-value t1 against t0 (normalized Elo), for 3 (loss, draw, win) or 5
/// (pair) counts.
pub fn llr_normalized(counts: &[u32], t0: f64, t1: f64) -> f64 {
    if counts.iter().all(|&c| c == 0) {
        return 0.0;
    }
    let a = outcome_scores(counts.len());
    let (n, p) = regularised(counts);
    llr_of(n, &p, &mle_t(&p, a, t0), &mle_t(&p, a, t1))
}

/// The usual quick approximation of the same LLR (normal model with the sample variance):
/// n (s1 - s0) (2 mean - s0 - s1) / (2 var). Used to cross-check [`llr_logistic`].
pub fn llr_normal_approx(elo0: f64, elo1: f64, r: &Wdl) -> Option<f64> {
    let n = r.games() as f64;
    let mu = r.score()?;
    let var = (r.wins as f64 * (1.0 - mu).powi(2)
        + r.draws as f64 * (0.5 - mu).powi(2)
        + r.losses as f64 * mu.powi(2))
        / n;
    if var <= 0.0 {
        return None;
    }
    let (s0, s1) = (score_of_elo(elo0), score_of_elo(elo1));
    Some(n * (s1 - s0) * (2.0 * mu - s0 - s1) / (2.0 * var))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn erf_values() {
        // Reference values of erf.
        for (x, e) in [
            (0.0, 0.0),
            (0.5, 0.520_499_877_813_046_5),
            (1.0, 0.842_700_792_949_714_9),
            (2.0, 0.995_322_265_018_952_7),
            (2.5, 0.999_593_047_982_555),
            (3.0, 0.999_977_909_503_001_4),
            (-1.0, -0.842_700_792_949_714_9),
        ] {
            assert!((erf(x) - e).abs() < 1e-13, "erf({x}) = {} not {e}", erf(x));
        }
    }
}
