//! The server's clock for a live game: Fischer increment, every move timed on the server.
//!
//! The server is the only clock. A move is charged from the moment the server sent out the
//! previous move (the turn began) to the moment the move reached it, less a lag allowance:
//!
//! - Each move is credited up to [`LAG_CREDIT_MAX`] (300 ms) of its time, but never more than
//!   the mover's *lag quota*. The quota starts at [`LAG_QUOTA_START`] (1 s), is refilled by
//!   [`LAG_QUOTA_GAIN`] (100 ms) after every move and holds at most [`LAG_QUOTA_MAX`] (1 s).
//!   So a player on a slow line is not punished for a few slow round trips, and nobody is given
//!   more than 100 ms a move in the long run (lichess gives a similar, lag-measured credit).
//! - The clocks start with the second move: each side's first move is free of the clock, as on
//!   lichess; before that either side may abort. A side that does not make its first move in
//!   [`first_move_limit`] lets the game be aborted by the server.
//! - The increment is added after the move, the credit before the flag is judged: a move that
//!   arrives within the credit of a fallen flag stands.
//! - A flag falls when the side to move's time reaches zero; the caller asks
//!   [`Clock::until_flag`] when to look, so a game ends on time with nobody connected.
//! - When the server stops, the clocks stop: [`Clock::snapshot`] is stored with every move and
//!   [`Clock::resume`] starts the side to move's time again from the restart, so the time the
//!   server was down is not charged to anyone.
//!
//! Times are milliseconds; "now" is a monotonic millisecond count the caller supplies (the
//! server's `Instant` since start), which keeps this module free of real time and testable.

use xiangqi::Color;

/// The most a single move is credited for lag.
pub const LAG_CREDIT_MAX: u64 = 300;
/// The lag quota each side starts with.
pub const LAG_QUOTA_START: u64 = 1_000;
/// The lag quota refilled after each move.
pub const LAG_QUOTA_GAIN: u64 = 100;
/// The most lag quota a side can hold.
pub const LAG_QUOTA_MAX: u64 = 1_000;

/// A time control: initial time and increment per move, in milliseconds.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct TimeControl {
    pub initial: u64,
    pub increment: u64,
}

impl TimeControl {
    /// The largest initial time accepted (3 hours) and increment (3 minutes).
    pub const MAX_INITIAL: u64 = 3 * 3600 * 1000;
    pub const MAX_INCREMENT: u64 = 180 * 1000;

    /// A time control from seconds, as the challenge API takes it (`clock.limit`,
    /// `clock.increment`); the error names the field that is out of range.
    pub fn from_seconds(limit: f64, increment: f64) -> Result<TimeControl, String> {
        let ms = |v: f64, name: &str, max: u64| -> Result<u64, String> {
            if !v.is_finite() || v < 0.0 || v * 1000.0 > max as f64 {
                return Err(format!(
                    "{name} must be between 0 and {} seconds, not {v}",
                    max / 1000
                ));
            }
            Ok((v * 1000.0).round() as u64)
        };
        let tc = TimeControl {
            initial: ms(limit, "clock.limit", Self::MAX_INITIAL)?,
            increment: ms(increment, "clock.increment", Self::MAX_INCREMENT)?,
        };
        if tc.initial == 0 && tc.increment == 0 {
            return Err("clock.limit and clock.increment cannot both be 0".into());
        }
        Ok(tc)
    }

    /// The expected length of a game of 40 moves a side, lichess's measure of speed.
    pub fn estimate(&self) -> u64 {
        self.initial + 40 * self.increment
    }

    /// How long a player who left may be away before the other may claim the game:
    /// 15 s in games estimated under 3 minutes, 30 s under 15 minutes, 60 s beyond.
    pub fn grace_period(&self) -> u64 {
        match self.estimate() {
            e if e < 180_000 => 15_000,
            e if e < 900_000 => 30_000,
            _ => 60_000,
        }
    }
}

/// How long a side may take over its first move (when the clock does not yet run) before the
/// game may be aborted: 30 s, or the whole initial time if that is shorter but at least 10 s.
pub fn first_move_limit(tc: Option<TimeControl>) -> u64 {
    match tc {
        Some(tc) => tc.initial.clamp(10_000, 30_000),
        None => 30_000,
    }
}

/// What the clocks hold between moves: stored with each move so a restart resumes them.
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Snapshot {
    /// Red's and Black's remaining time.
    pub remaining: [u64; 2],
    /// Red's and Black's lag quota.
    pub quota: [u64; 2],
}

/// The result of timing a move.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Press {
    /// The move counts; the mover was charged `charged` ms after `credited` ms of lag credit.
    Moved { charged: u64, credited: u64 },
    /// The mover's flag had fallen before the move arrived: the move does not count.
    Flagged,
}

/// A running clock for one game.
#[derive(Clone, Debug)]
pub struct Clock {
    tc: TimeControl,
    remaining: [u64; 2],
    quota: [u64; 2],
    /// The side whose time runs and since when; `None` while the clock is stopped (before
    /// the second move, after the end).
    running: Option<(Color, u64)>,
}

fn idx(c: Color) -> usize {
    c.index()
}

impl Clock {
    pub fn new(tc: TimeControl) -> Clock {
        Clock {
            tc,
            remaining: [tc.initial; 2],
            quota: [LAG_QUOTA_START; 2],
            running: None,
        }
    }

    /// A clock as stored, stopped; [`Clock::resume`] sets it running again.
    pub fn from_snapshot(tc: TimeControl, s: Snapshot) -> Clock {
        Clock {
            tc,
            remaining: s.remaining,
            quota: s.quota,
            running: None,
        }
    }

    pub fn time_control(&self) -> TimeControl {
        self.tc
    }

    pub fn snapshot(&self, now: u64) -> Snapshot {
        Snapshot {
            remaining: [
                self.remaining(Color::Red, now),
                self.remaining(Color::Black, now),
            ],
            quota: self.quota,
        }
    }

    /// Whether a side's time is running.
    pub fn running(&self) -> Option<Color> {
        self.running.map(|(c, _)| c)
    }

    /// A side's time left at `now`, counting down while it runs.
    pub fn remaining(&self, color: Color, now: u64) -> u64 {
        let r = self.remaining[idx(color)];
        match self.running {
            Some((c, since)) if c == color => r.saturating_sub(now.saturating_sub(since)),
            _ => r,
        }
    }

    /// Starts (or restarts after a server restart) `turn`'s time at `now`.
    pub fn resume(&mut self, turn: Color, now: u64) {
        self.running = Some((turn, now));
    }

    /// Stops the clock (the game ended), keeping the times as they are at `now`.
    pub fn stop(&mut self, now: u64) {
        if let Some((c, _)) = self.running {
            self.remaining[idx(c)] = self.remaining(c, now);
        }
        self.running = None;
    }

    /// The side whose flag has fallen at `now`, if any. A fallen flag is judged with the
    /// lag credit the side could still be given, so the server's flag check agrees with
    /// [`Clock::press`] for a move arriving at the same moment.
    pub fn flagged(&self, now: u64) -> Option<Color> {
        let (c, since) = self.running?;
        let used = now.saturating_sub(since);
        let credit = self.credit(c, used);
        (used.saturating_sub(credit) >= self.remaining[idx(c)]).then_some(c)
    }

    /// How long from `now` until the running side's flag falls (with its lag credit), or
    /// `None` if no time runs.
    pub fn until_flag(&self, now: u64) -> Option<u64> {
        let (c, since) = self.running?;
        let r = self.remaining[idx(c)];
        // The flag falls at the first `used` with used - credit(used) >= r; credit(used) is
        // min(used, cap), so that is r + cap.
        let cap = LAG_CREDIT_MAX.min(self.quota[idx(c)]);
        let fall = since + r + cap;
        Some(fall.saturating_sub(now))
    }

    fn credit(&self, c: Color, used: u64) -> u64 {
        used.min(LAG_CREDIT_MAX).min(self.quota[idx(c)])
    }

    /// Times a move by the running side arriving at `now`: charges it (less the lag credit),
    /// adds the increment and starts the other side's time. With the clock stopped (the first
    /// move of each side) nothing is charged, and from the second move on the other side's
    /// time starts: call with `start_after` true when the clock should run after this move.
    pub fn press(&mut self, mover: Color, now: u64, start_after: bool) -> Press {
        let mut result = Press::Moved {
            charged: 0,
            credited: 0,
        };
        if let Some((c, since)) = self.running {
            debug_assert_eq!(c, mover, "the clock runs for the side to move");
            let i = idx(c);
            let used = now.saturating_sub(since);
            let credited = self.credit(c, used);
            let charged = used - credited;
            if charged >= self.remaining[i] {
                return Press::Flagged;
            }
            self.remaining[i] = self.remaining[i] - charged + self.tc.increment;
            self.quota[i] = (self.quota[i] - credited + LAG_QUOTA_GAIN).min(LAG_QUOTA_MAX);
            result = Press::Moved { charged, credited };
        }
        self.running = start_after.then_some((mover.other(), now));
        result
    }

    /// Gives `color` extra time (a takeback accepted gives back nothing; this is for the
    /// opponent's "give time", which lichess offers): capped at the initial time plus a minute.
    pub fn give_time(&mut self, color: Color, ms: u64) {
        let i = idx(color);
        self.remaining[i] = (self.remaining[i] + ms).min(self.tc.initial + 60_000);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tc(initial: u64, increment: u64) -> TimeControl {
        TimeControl { initial, increment }
    }

    #[test]
    fn first_moves_are_free_then_time_runs_with_increment() {
        let mut c = Clock::new(tc(60_000, 2_000));
        // Red's first move: the clock does not run; Black's first move starts Red's time.
        assert_eq!(
            c.press(Color::Red, 5_000, false),
            Press::Moved {
                charged: 0,
                credited: 0
            }
        );
        assert_eq!(c.running(), None);
        assert_eq!(
            c.press(Color::Black, 9_000, true),
            Press::Moved {
                charged: 0,
                credited: 0
            }
        );
        assert_eq!(c.running(), Some(Color::Red));
        assert_eq!(c.remaining(Color::Red, 12_000), 57_000);
        // Red moves after 4 s: 300 ms credited, 3.7 s charged, 2 s added.
        assert_eq!(
            c.press(Color::Red, 13_000, true),
            Press::Moved {
                charged: 3_700,
                credited: 300
            }
        );
        assert_eq!(c.remaining(Color::Red, 20_000), 60_000 - 3_700 + 2_000);
        assert_eq!(c.running(), Some(Color::Black));
        assert_eq!(c.remaining(Color::Black, 14_000), 59_000);
    }

    #[test]
    fn lag_quota_limits_the_credit_over_many_moves() {
        let mut c = Clock::new(tc(600_000, 0));
        c.resume(Color::Red, 0);
        let mut now = 0;
        let mut credited_total = 0;
        for i in 0..40 {
            now += 1_000;
            let mover = if i % 2 == 0 { Color::Red } else { Color::Black };
            match c.press(mover, now, true) {
                Press::Moved { credited, .. } => credited_total += credited,
                Press::Flagged => panic!("no flag"),
            }
        }
        // 20 moves a side: at most the starting quota plus 100 ms a move each.
        assert!(credited_total <= 2 * (LAG_QUOTA_START + 20 * LAG_QUOTA_GAIN));
        assert!(credited_total >= 2 * 20 * LAG_QUOTA_GAIN);
        assert!(c.snapshot(now).quota.iter().all(|&q| q <= LAG_QUOTA_MAX));
    }

    #[test]
    fn a_move_within_the_credit_of_the_flag_stands_and_later_it_does_not() {
        let mut c = Clock::new(tc(1_000, 0));
        c.resume(Color::Red, 0);
        assert_eq!(c.until_flag(0), Some(1_300));
        assert_eq!(c.flagged(1_299), None);
        assert_eq!(c.flagged(1_300), Some(Color::Red));
        let mut late = c.clone();
        assert_eq!(late.press(Color::Red, 1_300, true), Press::Flagged);
        assert_eq!(
            c.press(Color::Red, 1_299, true),
            Press::Moved {
                charged: 999,
                credited: 300
            }
        );
        assert_eq!(c.remaining(Color::Red, 5_000), 1);
    }

    #[test]
    fn a_restart_does_not_charge_the_time_the_server_was_down() {
        let mut c = Clock::new(tc(60_000, 0));
        c.resume(Color::Red, 0);
        let snap = c.snapshot(10_000);
        assert_eq!(snap.remaining, [50_000, 60_000]);
        // The server comes back at a much later monotonic time.
        let mut back = Clock::from_snapshot(c.time_control(), snap);
        back.resume(Color::Red, 1_000_000);
        assert_eq!(back.remaining(Color::Red, 1_000_000), 50_000);
        assert_eq!(back.remaining(Color::Red, 1_005_000), 45_000);
    }

    #[test]
    fn stop_freezes_the_times() {
        let mut c = Clock::new(tc(60_000, 0));
        c.resume(Color::Black, 100);
        c.stop(2_100);
        assert_eq!(c.running(), None);
        assert_eq!(c.remaining(Color::Black, 99_999), 58_000);
        assert_eq!(c.until_flag(99_999), None);
        assert_eq!(c.flagged(99_999), None);
    }

    #[test]
    fn time_controls_are_read_from_seconds_with_named_errors() {
        assert_eq!(
            TimeControl::from_seconds(300.0, 3.0),
            Ok(tc(300_000, 3_000))
        );
        assert_eq!(TimeControl::from_seconds(0.5, 0.0), Ok(tc(500, 0)));
        let e = TimeControl::from_seconds(-1.0, 0.0).unwrap_err();
        assert!(e.contains("clock.limit"), "{e}");
        let e = TimeControl::from_seconds(60.0, f64::NAN).unwrap_err();
        assert!(e.contains("clock.increment"), "{e}");
        assert!(TimeControl::from_seconds(0.0, 0.0).is_err());
        assert!(TimeControl::from_seconds(1e30, 0.0).is_err());
    }

    #[test]
    fn grace_period_is_shorter_in_fast_games() {
        assert_eq!(tc(60_000, 0).grace_period(), 15_000);
        assert_eq!(tc(300_000, 3_000).grace_period(), 30_000);
        assert_eq!(tc(1_800_000, 0).grace_period(), 60_000);
        assert_eq!(first_move_limit(Some(tc(5_000, 0))), 10_000);
        assert_eq!(first_move_limit(Some(tc(600_000, 0))), 30_000);
    }
}
