//! Correspondence: days per move instead of a clock, as on lichess.
//!
//! Each turn gives the side to move until a *deadline*, that many days after the turn began;
//! a side that has not moved by its deadline loses on time (or the game is aborted if it is
//! a side's first move). The deadline is absolute wall-clock time (ms since 1970), stored with
//! the game, so a restart or a move to another node keeps it; only a deadline that passed (or
//! nearly) while the server was down is moved forward, to [`restore_floor`] from the restart.
//!
//! The length of a day is the server's setting (`XIANGQI_DAY_MS`, 86,400,000 ms, shorter only
//! in tests), passed in here: this module is pure.

/// The days per move a correspondence game may have (lichess's choices).
pub const DAYS: [u32; 7] = [1, 2, 3, 5, 7, 10, 14];

/// A real day in ms.
pub const DAY_MS: u64 = 86_400_000;

/// A correspondence time control: days per move.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Days(u32);

impl Days {
    /// `days` if it is one of [`DAYS`]; the error names the field `days`.
    pub fn new(days: u32) -> Result<Days, String> {
        if DAYS.contains(&days) {
            Ok(Days(days))
        } else {
            Err(format!(
                "days must be one of 1, 2, 3, 5, 7, 10 or 14 (days per move), not {days}"
            ))
        }
    }

    /// A stored value, as [`Days::new`] checks it.
    pub fn get(self) -> u32 {
        self.0
    }

    /// The time each turn gives, with days of `day_ms`.
    pub fn per_turn(self, day_ms: u64) -> u64 {
        u64::from(self.0).saturating_mul(day_ms)
    }
}

/// The deadline of a turn that begins at `wall` (ms since 1970).
pub fn deadline(days: Days, day_ms: u64, wall: i64) -> i64 {
    wall.saturating_add(i64::try_from(days.per_turn(day_ms)).unwrap_or(i64::MAX))
}

/// How far from a restart a deadline is at least put: an hour of a real day (a 24th of the
/// configured day), so a player whose time ran out while the server was down still has a
/// moment to move.
pub fn restore_floor(day_ms: u64) -> i64 {
    i64::try_from(day_ms / 24).unwrap_or(i64::MAX)
}

/// A stored deadline as a restart at `wall` keeps it: unchanged unless it is earlier than
/// `wall` + [`restore_floor`], then moved to that.
pub fn restored(deadline: i64, day_ms: u64, wall: i64) -> i64 {
    deadline.max(wall.saturating_add(restore_floor(day_ms)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_lichess_choices_of_days() {
        for d in DAYS {
            assert_eq!(Days::new(d).unwrap().get(), d);
        }
        for d in [0, 4, 6, 8, 15, 30, u32::MAX] {
            let e = Days::new(d).unwrap_err();
            assert!(e.starts_with("days must be"), "{e}");
            assert!(e.ends_with(&format!("not {d}")), "{e}");
        }
    }

    #[test]
    fn a_turn_lasts_its_days() {
        let three = Days::new(3).unwrap();
        assert_eq!(deadline(three, DAY_MS, 1_000), 1_000 + 3 * 86_400_000);
        assert_eq!(deadline(three, 2_000, 1_000), 7_000);
        assert_eq!(deadline(Days::new(14).unwrap(), u64::MAX, 5), i64::MAX);
    }

    #[test]
    fn a_restart_moves_only_a_deadline_within_the_hour() {
        let now = 10_000_000;
        assert_eq!(restore_floor(DAY_MS), 3_600_000);
        // Passed while down: an hour from the restart.
        assert_eq!(restored(now - 5, DAY_MS, now), now + 3_600_000);
        // Within the hour: the hour.
        assert_eq!(restored(now + 60_000, DAY_MS, now), now + 3_600_000);
        // Later: kept.
        assert_eq!(restored(now + 7_200_000, DAY_MS, now), now + 7_200_000);
        // With a test's 2.4-second day, a tenth of a second.
        assert_eq!(restored(0, 2_400, now), now + 100);
    }
}
