//! Search limits and time management.

use std::time::{Duration, Instant};

use xiangqi::{Color, Move};

/// What a `go` command asks for. All fields optional; nothing set means "search until stopped"
/// only when `infinite` is set, else a default depth applies (see [`Limits::is_unbounded`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    /// Remaining clock time of Red / Black in milliseconds.
    pub time: [Option<u64>; 2],
    /// Increment per move of Red / Black in milliseconds.
    pub inc: [Option<u64>; 2],
    pub movestogo: Option<u32>,
    pub depth: Option<i32>,
    pub nodes: Option<u64>,
    /// Fixed time for this move in milliseconds.
    pub movetime: Option<u64>,
    /// Search for a mate in this many moves.
    pub mate: Option<i32>,
    pub infinite: bool,
    pub ponder: bool,
    /// Only these root moves are considered (empty: all).
    pub searchmoves: Vec<Move>,
}

impl Limits {
    /// A search to a fixed depth.
    pub fn depth(d: i32) -> Limits {
        Limits {
            depth: Some(d),
            ..Limits::default()
        }
    }
    /// A search of a fixed time in milliseconds.
    pub fn movetime(ms: u64) -> Limits {
        Limits {
            movetime: Some(ms),
            ..Limits::default()
        }
    }
    /// A search of about a fixed number of nodes.
    pub fn nodes(n: u64) -> Limits {
        Limits {
            nodes: Some(n),
            ..Limits::default()
        }
    }
    /// Whether nothing but `stop` (or `ponderhit`) ends this search.
    pub fn is_unbounded(&self) -> bool {
        self.infinite || self.ponder
    }
}

/// How long this move may take: a soft target checked between iterations and a hard limit
/// checked inside the search.
#[derive(Clone, Debug)]
pub struct TimeManager {
    pub optimum: Option<Duration>,
    pub maximum: Option<Duration>,
}

impl TimeManager {
    /// Allocates time for the side `turn` from the limits, keeping `overhead_ms` in hand for
    /// communication delays.
    pub fn new(limits: &Limits, turn: Color, overhead_ms: u64) -> TimeManager {
        if let Some(mt) = limits.movetime {
            let t = Duration::from_millis(mt.saturating_sub(overhead_ms).max(1));
            return TimeManager {
                optimum: Some(t),
                maximum: Some(t),
            };
        }
        let Some(time) = limits.time[turn.index()] else {
            return TimeManager {
                optimum: None,
                maximum: None,
            };
        };
        let inc = limits.inc[turn.index()].unwrap_or(0);
        // Games last about 60 moves a side; most are decided in the middlegame, so plan for
        // 26 more moves unless told otherwise.
        let mtg = limits.movestogo.unwrap_or(26).clamp(1, 50) as u64;
        // What we may spend without running out: the clock less a safety margin per move.
        // Clocks and increments may be anything up to u64::MAX: no step may overflow.
        let usable = time.saturating_sub(overhead_ms.saturating_mul(2 + mtg.min(10)));
        let base = (usable / mtg).saturating_add(inc / 10 * 9);
        let optimum = base.min(usable / 5 * 2);
        let maximum = optimum.saturating_mul(4).min(usable / 5 * 3).max(optimum);
        let floor = |ms: u64| Duration::from_millis(ms.max(1));
        TimeManager {
            optimum: Some(floor(optimum)),
            maximum: Some(floor(maximum)),
        }
    }
}

/// A stopwatch that can be restarted (on `ponderhit` the clock starts running for us).
#[derive(Debug)]
pub struct Clock {
    start: std::sync::Mutex<Instant>,
}

impl Clock {
    pub fn new() -> Clock {
        Clock {
            start: std::sync::Mutex::new(Instant::now()),
        }
    }
    pub fn restart(&self) {
        *self.start.lock().unwrap_or_else(|e| e.into_inner()) = Instant::now();
    }
    pub fn elapsed(&self) -> Duration {
        self.start
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .elapsed()
    }
}

impl Default for Clock {
    fn default() -> Clock {
        Clock::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allocations_stay_inside_the_clock() {
        for time in [100u64, 1000, 10_000, 60_000, 600_000] {
            for inc in [0u64, 100, 2000] {
                for mtg in [None, Some(1), Some(10), Some(40)] {
                    let l = Limits {
                        time: [Some(time), Some(1)],
                        inc: [Some(inc), None],
                        movestogo: mtg,
                        ..Limits::default()
                    };
                    let tm = TimeManager::new(&l, Color::Red, 30);
                    let (o, m) = (tm.optimum.unwrap(), tm.maximum.unwrap());
                    assert!(o <= m, "{time} {inc} {mtg:?}");
                    assert!(
                        m.as_millis() as u64 <= (time * 3 / 5).max(1),
                        "{time} {inc} {mtg:?}"
                    );
                }
            }
        }
        // Values as large as a GUI can send them do not overflow.
        for big in [u64::MAX, u64::MAX - 1, u64::MAX / 2] {
            let l = Limits {
                time: [Some(big), Some(big)],
                inc: [Some(big), Some(big)],
                movestogo: Some(u32::MAX),
                ..Limits::default()
            };
            let tm = TimeManager::new(&l, Color::Red, 5000);
            assert!(tm.optimum.unwrap() <= tm.maximum.unwrap());
            assert!(TimeManager::new(&Limits::movetime(big), Color::Red, 5000)
                .maximum
                .is_some());
        }
        let tm = TimeManager::new(&Limits::movetime(500), Color::Black, 20);
        assert_eq!(tm.maximum, Some(Duration::from_millis(480)));
        assert!(TimeManager::new(&Limits::depth(5), Color::Red, 20)
            .maximum
            .is_none());
    }
}
