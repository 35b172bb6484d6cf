//! Strength levels for people: `Skill Level` 0-20, or `UCI_LimitStrength` with `UCI_Elo`.
//!
//! Inside, a strength is an *internal level*: a real number from 0 (beginner) to 20 (full
//! strength). Below 20 it limits the search (a node budget that doubles about every 1.4
//! internal levels, and a depth cap), searches several candidate lines (MultiPV) and picks
//! among them with random noise that shrinks as the level rises. Every quantity is a smooth
//! function of the internal level.
//!
//! The internal levels are not evenly spaced in playing strength, so the user's settings go
//! through a calibration measured by matches (`CALIBRATION`, docs/STRENGTH.md): `UCI_Elo`
//! is looked up in it directly, and `Skill Level` L means the Elo `ELO_MIN + L * (ELO_MAX -
//! ELO_MIN) / 20`, so that each step of `Skill Level` is the same number of Elo.

use crate::search::{RootMove, MATE_BOUND};

/// Measured strength of internal levels: (internal level, Elo) in increasing order, from
/// matches at up to 500,000 nodes a move (docs/STRENGTH.md, "Calibration"). The differences
/// are measured; the scale is anchored at internal level 0 = 600. Below 12 the points are a
/// weighted least-squares fit (Elo piecewise linear between these knots, 600 at 0 and 2300
/// at 12 held) to both chains of `Skill Level` steps measured with 200 games each
/// (2026-12-07: 21 steps, 4,200 games); from 12 up the older steps between internal levels
/// (9-30 games each). Levels below 20 play with the classical evaluation; the top entry is
/// full strength, with the embedded network (measured against level 16 with the gen2 net,
/// session 7; with gen3, 2026-12-06, the same within the error bars).
pub const CALIBRATION: [(f64, i32); 14] = [
    (0.0, 600),
    (1.864, 738),
    (3.93, 762),
    (5.0, 915),
    (6.0, 1051),
    (7.0, 1164),
    (8.0, 1315),
    (9.0, 1554),
    (10.0, 1761),
    (11.0, 1962),
    (12.0, 2300),
    (14.0, 2602),
    (16.0, 2895),
    (20.0, 3353),
];

/// The lowest and highest `UCI_Elo` values: the calibration's ends.
pub const ELO_MIN: i32 = CALIBRATION[0].1;
pub const ELO_MAX: i32 = CALIBRATION[CALIBRATION.len() - 1].1;

/// A strength level below full strength.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Skill {
    pub level: f64,
}

impl Skill {
    /// The level for the options, or None for full strength (`Skill Level` 20, or
    /// `UCI_Elo` at the table's top, which was measured at full strength).
    pub fn from_options(skill_level: i32, limit_strength: bool, elo: i32) -> Option<Skill> {
        if limit_strength && elo >= ELO_MAX {
            None
        } else if limit_strength {
            Some(Skill {
                level: elo_to_level(elo),
            })
        } else if skill_level < 20 {
            Some(Skill {
                level: elo_to_level(skill_level_elo(skill_level)),
            })
        } else {
            None
        }
    }

    /// Nodes the search may spend.
    pub fn node_cap(&self) -> u64 {
        (150.0 * 2f64.powf(self.level * 0.7)) as u64
    }

    /// Deepest iteration.
    pub fn depth_cap(&self) -> i32 {
        1 + (self.level * 0.8) as i32
    }

    /// Candidate lines searched.
    pub fn multipv(&self) -> usize {
        4 + ((20.0 - self.level) / 4.0) as usize
    }

    /// The largest random bonus (centipawns) a candidate can get: 280 at level 0, falling
    /// quadratically so that the strong levels are only lightly randomised.
    pub fn spread(&self) -> f64 {
        let w = 20.0 - self.level;
        0.7 * w * w
    }

    /// Picks a move among the searched candidates (`moves[..n]` sorted best first): each
    /// candidate's score plus a random bonus in `[0, spread)`; the highest total wins. A
    /// mate found is kept from level 8 up.
    pub fn pick(&self, moves: &[RootMove], rng: &mut Rng) -> usize {
        if moves.is_empty() {
            return 0;
        }
        if moves[0].score >= MATE_BOUND && self.level >= 8.0 {
            return 0;
        }
        let top = moves[0].score;
        let mut best = 0;
        let mut best_v = f64::MIN;
        for (i, rm) in moves.iter().enumerate() {
            let s = if rm.score <= -30000 {
                rm.prev_score
            } else {
                rm.score
            };
            // Lines far worse than the best are only chosen at the lowest levels.
            let s = s.max(top - 1000) as f64;
            let v = s + rng.unit() * self.spread();
            if v > best_v {
                best_v = v;
                best = i;
            }
        }
        best
    }
}

/// The Elo a `Skill Level` stands for: evenly spaced from `ELO_MIN` (0) to `ELO_MAX` (20).
pub fn skill_level_elo(skill_level: i32) -> i32 {
    let l = skill_level.clamp(0, 20);
    ELO_MIN + (ELO_MAX - ELO_MIN) * l / 20
}

/// Maps an Elo onto an internal level by linear interpolation between the measured points
/// of [`CALIBRATION`].
pub fn elo_to_level(elo: i32) -> f64 {
    let e = elo.clamp(ELO_MIN, ELO_MAX);
    for w in CALIBRATION.windows(2) {
        let ((l0, e0), (l1, e1)) = (w[0], w[1]);
        if e == e1 {
            // A measured point maps to its level exactly (no rounding of the division).
            return l1;
        }
        if e < e1 {
            return l0 + (l1 - l0) * (e - e0) as f64 / (e1 - e0) as f64;
        }
    }
    20.0
}

/// A small random-number generator (xorshift64*), seeded by the engine.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed | 1)
    }
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ladder_is_monotonic() {
        let mut prev: Option<Skill> = None;
        for l in 0..20 {
            let s = Skill::from_options(l, false, 0).unwrap();
            if let Some(p) = prev {
                assert!(s.node_cap() > p.node_cap());
                assert!(s.depth_cap() >= p.depth_cap());
                assert!(s.spread() < p.spread());
            }
            prev = Some(s);
        }
        assert!(Skill::from_options(20, false, 0).is_none());
        assert_eq!(Skill::from_options(20, true, ELO_MIN).unwrap().level, 0.0);
        assert!(Skill::from_options(0, true, ELO_MAX).is_none());
        assert!(Skill::from_options(0, true, ELO_MAX - 1).unwrap().level < 20.0);
        for w in CALIBRATION.windows(2) {
            assert!(
                w[0].0 < w[1].0 && w[0].1 < w[1].1,
                "calibration must increase"
            );
            assert_eq!(elo_to_level(w[0].1), w[0].0);
        }
        assert_eq!(skill_level_elo(0), ELO_MIN);
        assert_eq!(skill_level_elo(20), ELO_MAX);
    }

    #[test]
    fn rng_is_uniformish() {
        let mut r = Rng::new(42);
        let n = 10_000;
        let mean: f64 = (0..n).map(|_| r.unit()).sum::<f64>() / n as f64;
        assert!((mean - 0.5).abs() < 0.02);
    }
}
