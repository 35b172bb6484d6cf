//! Match statistics: Elo difference with its 95% error, likelihood of superiority, and the
//! sequential probability ratio test (SPRT).
//!
//! The Elo and error follow cutechess-cli (the score's normal approximation over the trinomial
//! win/draw/loss distribution); the SPRT is fishtest's GSPRT on logistic Elo, with the
//! maximum-likelihood trinomial distributions of Van den Bergh's method.

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
        })
    }
    /// The lower bound ln(beta / (1 - alpha)): below it H0 is accepted.
    pub fn lower_bound(&self) -> f64 {
        (self.beta / (1.0 - self.alpha)).ln()
    }
    /// The upper bound ln((1 - beta) / alpha): above it H1 is accepted.
    pub fn upper_bound(&self) -> f64 {
        ((1.0 - self.beta) / self.alpha).ln()
    }
    /// The log-likelihood ratio of the results (fishtest's `LLR_logistic`).
    pub fn llr(&self, r: &Wdl) -> f64 {
        llr_logistic(self.elo0, self.elo1, r)
    }
    pub fn state(&self, r: &Wdl) -> SprtState {
        let llr = self.llr(r);
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
    if r.games() == 0 {
        return 0.0;
    }
    let counts = [r.losses, r.draws, r.wins].map(|c| (c as f64).max(1e-3));
    let n: f64 = counts.iter().sum();
    let p = counts.map(|c| c / n);
    let a = [0.0, 0.5, 1.0];
    let (s0, s1) = (score_of_elo(elo0), score_of_elo(elo1));
    let x0 = mle_multiplier(&p, &a, s0);
    let x1 = mle_multiplier(&p, &a, s1);
    let mut sum = 0.0;
    for i in 0..3 {
        // q_i = p_i / (1 + x (a_i - s)); ln(q1/q0) = ln(1 + x0 d0) - ln(1 + x1 d1)
        sum += p[i] * ((1.0 + x0 * (a[i] - s0)).ln() - (1.0 + x1 * (a[i] - s1)).ln());
    }
    n * sum
}

/// The Lagrange multiplier x of the maximum-likelihood distribution q_i = p_i / (1 + x(a_i - s))
/// whose mean is s: the root of sum p_i (a_i - s) / (1 + x (a_i - s)) = 0, by bisection.
fn mle_multiplier(p: &[f64; 3], a: &[f64; 3], s: f64) -> f64 {
    let d = a.map(|ai| ai - s);
    let (dmin, dmax) = (d[0], d[2]); // s is strictly between 0 and 1
                                     // 1 + x d_i > 0 for all i: x in (-1/dmax, -1/dmin).
    let (mut lo, mut hi) = (-1.0 / dmax, -1.0 / dmin);
    let f = |x: f64| -> f64 { (0..3).map(|i| p[i] * d[i] / (1.0 + x * d[i])).sum() };
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        // f decreases in x.
        if f(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
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
