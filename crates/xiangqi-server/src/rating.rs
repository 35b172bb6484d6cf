//! Ratings: Glicko-2 (Mark Glickman, "Example of the Glicko-2 system", 2013), one rating per
//! speed as lichess keeps them.
//!
//! Every rated game is a rating period of its own for both players (as lichess rates): each
//! player's rating, deviation and volatility are updated against the opponent's values from
//! before the game. A rating is provisional while its deviation is above 110 (lichess's rule).

use std::f64::consts::PI;

/// Glicko-2's scale factor between the Glicko and the Glicko-2 scale.
const SCALE: f64 = 173.7178;
/// The system constant τ (how fast volatility may change); lichess uses 0.75.
pub const TAU: f64 = 0.75;
/// A new player's rating, deviation and volatility.
pub const START: Rating = Rating {
    rating: 1500.0,
    rd: 350.0,
    vol: 0.06,
};
/// Deviation above which a rating is provisional.
pub const PROVISIONAL_RD: f64 = 110.0;
/// The deviation stays within these bounds (lichess keeps it at least 45, at most 500; a
/// new player starts at the upper end here).
pub const MIN_RD: f64 = 45.0;
pub const MAX_RD: f64 = 350.0;

/// A Glicko-2 rating on the Glicko scale.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rating {
    pub rating: f64,
    pub rd: f64,
    pub vol: f64,
}

impl Default for Rating {
    fn default() -> Rating {
        START
    }
}

impl Rating {
    pub fn provisional(&self) -> bool {
        self.rd > PROVISIONAL_RD
    }
}

fn g(phi: f64) -> f64 {
    1.0 / (1.0 + 3.0 * phi * phi / (PI * PI)).sqrt()
}

fn expected(mu: f64, mu_j: f64, phi_j: f64) -> f64 {
    1.0 / (1.0 + (-g(phi_j) * (mu - mu_j)).exp())
}

/// The rating after one period against `games`: each the opponent's rating before the
/// period and the score (1 win, 0.5 draw, 0 loss). Without games only the deviation grows.
/// Glickman's steps 2-8, with the Illinois algorithm of step 5.
pub fn update(me: Rating, games: &[(Rating, f64)], tau: f64) -> Rating {
    let mu = (me.rating - 1500.0) / SCALE;
    let phi = me.rd / SCALE;
    if games.is_empty() {
        let phi_star = (phi * phi + me.vol * me.vol).sqrt();
        return Rating {
            rating: me.rating,
            rd: (phi_star * SCALE).min(MAX_RD),
            vol: me.vol,
        };
    }
    // Step 3 and 4: the estimated variance and improvement.
    let mut inv_v = 0.0;
    let mut sum = 0.0;
    for (opp, score) in games {
        let mu_j = (opp.rating - 1500.0) / SCALE;
        let phi_j = opp.rd / SCALE;
        let e = expected(mu, mu_j, phi_j);
        let gj = g(phi_j);
        inv_v += gj * gj * e * (1.0 - e);
        sum += gj * (score - e);
    }
    let v = 1.0 / inv_v;
    let delta = v * sum;
    // Step 5: the new volatility.
    let a = (me.vol * me.vol).ln();
    let f = |x: f64| {
        let ex = x.exp();
        let d = phi * phi + v + ex;
        ex * (delta * delta - phi * phi - v - ex) / (2.0 * d * d) - (x - a) / (tau * tau)
    };
    const EPS: f64 = 0.000_001;
    let mut big_a = a;
    let mut big_b = if delta * delta > phi * phi + v {
        (delta * delta - phi * phi - v).ln()
    } else {
        let mut k = 1.0;
        while f(a - k * tau) < 0.0 {
            k += 1.0;
        }
        a - k * tau
    };
    let mut fa = f(big_a);
    let mut fb = f(big_b);
    let mut rounds = 0;
    while (big_b - big_a).abs() > EPS && rounds < 1000 {
        let c = big_a + (big_a - big_b) * fa / (fb - fa);
        let fc = f(c);
        if fc * fb <= 0.0 {
            big_a = big_b;
            fa = fb;
        } else {
            fa /= 2.0;
        }
        big_b = c;
        fb = fc;
        rounds += 1;
    }
    let vol = (big_a / 2.0).exp();
    // Steps 6 to 8.
    let phi_star = (phi * phi + vol * vol).sqrt();
    let phi_new = 1.0 / (1.0 / (phi_star * phi_star) + 1.0 / v).sqrt();
    let mu_new = mu + phi_new * phi_new * sum;
    Rating {
        rating: SCALE * mu_new + 1500.0,
        rd: (SCALE * phi_new).clamp(MIN_RD, MAX_RD),
        vol,
    }
}

/// A game's speed, by its estimated duration `limit + 40 × increment` (lichess's classes;
/// ultrabullet is counted as bullet). A game without a clock is correspondence.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Speed {
    Bullet,
    Blitz,
    Rapid,
    Classical,
    Correspondence,
}

impl Speed {
    pub const ALL: [Speed; 5] = [
        Speed::Bullet,
        Speed::Blitz,
        Speed::Rapid,
        Speed::Classical,
        Speed::Correspondence,
    ];

    /// The speed of a time control in milliseconds (`None`: no clock).
    pub fn of(clock: Option<(u64, u64)>) -> Speed {
        let Some((limit, inc)) = clock else {
            return Speed::Correspondence;
        };
        let secs = (limit + 40 * inc) / 1000;
        match secs {
            0..180 => Speed::Bullet,
            180..480 => Speed::Blitz,
            480..1500 => Speed::Rapid,
            _ => Speed::Classical,
        }
    }

    pub const fn as_str(self) -> &'static str {
        match self {
            Speed::Bullet => "bullet",
            Speed::Blitz => "blitz",
            Speed::Rapid => "rapid",
            Speed::Classical => "classical",
            Speed::Correspondence => "correspondence",
        }
    }

    pub fn parse(s: &str) -> Option<Speed> {
        Speed::ALL.into_iter().find(|x| x.as_str() == s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(rating: f64, rd: f64) -> Rating {
        Rating {
            rating,
            rd,
            vol: 0.06,
        }
    }

    /// Glickman's worked example: 1500/200/0.06 beats 1400/30, loses to 1550/100 and to
    /// 1700/300, with τ = 0.5: 1464.06, RD 151.52, volatility 0.05999.
    #[test]
    fn glickmans_example() {
        let games = [
            (r(1400.0, 30.0), 1.0),
            (r(1550.0, 100.0), 0.0),
            (r(1700.0, 300.0), 0.0),
        ];
        let n = update(r(1500.0, 200.0), &games, 0.5);
        assert!((n.rating - 1464.06).abs() < 0.01, "rating {}", n.rating);
        assert!((n.rd - 151.52).abs() < 0.01, "rd {}", n.rd);
        assert!((n.vol - 0.05999).abs() < 0.000_01, "vol {}", n.vol);
    }

    #[test]
    fn a_win_raises_a_loss_lowers_and_deviation_shrinks() {
        let a = START;
        let b = START;
        let wa = update(a, &[(b, 1.0)], TAU);
        let lb = update(b, &[(a, 0.0)], TAU);
        assert!(wa.rating > 1500.0 && lb.rating < 1500.0);
        assert!(
            (wa.rating - 1500.0 + (lb.rating - 1500.0)).abs() < 1e-6,
            "symmetric"
        );
        assert!(wa.rd < 350.0 && wa.provisional());
        let d = update(a, &[(b, 0.5)], TAU);
        assert!((d.rating - 1500.0).abs() < 1e-6);
        // Many games bring the deviation under the provisional line.
        let mut x = START;
        for _ in 0..20 {
            x = update(x, &[(r(1500.0, 60.0), 0.5)], TAU);
        }
        assert!(!x.provisional(), "rd {}", x.rd);
        assert!(x.rd >= MIN_RD);
    }

    #[test]
    fn speeds_follow_lichess() {
        let s = |l: u64, i: u64| Speed::of(Some((l * 1000, i * 1000)));
        assert_eq!(s(60, 0), Speed::Bullet);
        assert_eq!(s(120, 1), Speed::Bullet); // 160 s
        assert_eq!(s(180, 0), Speed::Blitz);
        assert_eq!(s(300, 3), Speed::Blitz); // 420 s
        assert_eq!(s(300, 5), Speed::Rapid); // 500 s
        assert_eq!(s(900, 10), Speed::Rapid); // 1300 s
        assert_eq!(s(1500, 0), Speed::Classical);
        assert_eq!(Speed::of(None), Speed::Correspondence);
        for sp in Speed::ALL {
            assert_eq!(Speed::parse(sp.as_str()), Some(sp));
        }
    }
}
