//! Strength levels for people: `Skill Level` 0-20, or `UCI_LimitStrength` with `UCI_Elo`.
//!
//! A level is a real number from 0 (beginner) to 20 (full strength). Below 20 it limits the
//! search (a node budget that doubles about every 1.4 levels, and a depth cap), searches
//! several candidate lines (MultiPV) and picks among them with random noise that shrinks as
//! the level rises. Every quantity is a smooth function of the level, so `UCI_Elo` can map
//! onto a fractional level. The Elo scale is not calibrated yet (see docs/STRENGTH.md).

use crate::search::{RootMove, MATE_BOUND};

/// The lowest and highest `UCI_Elo` values.
pub const ELO_MIN: i32 = 600;
pub const ELO_MAX: i32 = 2600;

/// A strength level below full strength.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Skill {
    pub level: f64,
}

impl Skill {
    /// The level for the options, or None for full strength.
    pub fn from_options(skill_level: i32, limit_strength: bool, elo: i32) -> Option<Skill> {
        if limit_strength {
            Some(Skill {
                level: elo_to_level(elo),
            })
        } else if skill_level < 20 {
            Some(Skill {
                level: skill_level.clamp(0, 20) as f64,
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

/// Maps `UCI_Elo` onto a level: 100 Elo per level from `ELO_MIN` (level 0).
pub fn elo_to_level(elo: i32) -> f64 {
    let e = elo.clamp(ELO_MIN, ELO_MAX);
    (e - ELO_MIN) as f64 / (ELO_MAX - ELO_MIN) as f64 * 20.0
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
        assert_eq!(Skill::from_options(0, true, ELO_MAX).unwrap().level, 20.0);
        assert_eq!(elo_to_level(1600), 10.0);
    }

    #[test]
    fn rng_is_uniformish() {
        let mut r = Rng::new(42);
        let n = 10_000;
        let mean: f64 = (0..n).map(|_| r.unit()).sum::<f64>() / n as f64;
        assert!((mean - 0.5).abs() < 0.02);
    }
}
