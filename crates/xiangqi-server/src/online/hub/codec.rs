//! The row codec: a live game as the store keeps it, and back, charging a restored clock.

use xiangqi::{Color, Game, Position, Rules};

use super::{wall_ms, SeatKey};
use crate::online::clock::{Snapshot, TimeControl};
use crate::online::corr::{self, Days};
use crate::online::live::{End, LiveGame};
use crate::store::live::{LiveChange, LiveEnd, LiveRow};
use crate::store::StoreError;

pub(super) fn declared_of(live: &LiveGame) -> Option<LiveEnd> {
    use xiangqi::game::Detail;
    match live.end()? {
        End::Aborted => Some(LiveEnd::Aborted),
        End::Claimed { winner } => Some(LiveEnd::Claimed(*winner)),
        End::Ruled(r) => match r.detail {
            Detail::Resignation { loser } => Some(LiveEnd::Resigned(loser)),
            Detail::Agreement => Some(LiveEnd::Agreed),
            // Replayed by `Game::flag`, which also finds whether it is a draw.
            Detail::Time { loser } => Some(LiveEnd::Flagged(loser)),
            Detail::TimeNoMate { flagged } => Some(LiveEnd::Flagged(flagged)),
            // The moves themselves end the game: nothing to keep beyond them.
            _ => None,
        },
    }
}

pub(super) fn change_of(live: &LiveGame, now: u64) -> LiveChange {
    LiveChange {
        updated: wall_ms(),
        times: live.clock.as_ref().map(|c| {
            let s = c.snapshot(now);
            [s.remaining[0], s.remaining[1], s.quota[0], s.quota[1]]
        }),
        declared: declared_of(live),
        status: live.status().as_str().to_owned(),
        winner: live.winner().map_or("", Color::name).to_owned(),
        deadline: live.corr.and_then(|c| c.deadline),
    }
}

/// What a game restored from the store charges its side to move (ms): the time from its
/// last stored change to `beat`, the last moment the node that ran its clock was known alive
/// (a restarted single node's own last heartbeat, or a dead owner's on a take-over); the time
/// after that, while no node ran the clock, is charged to nobody.
pub(super) fn charge(beat: Option<i64>, row: &LiveRow) -> u64 {
    match beat {
        Some(b) if b > row.updated => (b - row.updated) as u64,
        _ => 0,
    }
}

/// Rebuilds a live game from its stored row and moves.
///
/// `charge` ms are taken from the side to move's stored time when its clock was running (a
/// game taken over from a dead node: the time it thought while that node lived).
///
/// A correspondence game keeps its wall-clock deadline, but one earlier than an hour (a 24th
/// of `day.0`, the length of a day) from now is moved to that (`corr::restored`): a deadline
/// that passed while the server was down is not enforced at once. `day.1` is the wall time of
/// the monotonic `now` 0.
pub(super) fn restore(
    row: &LiveRow,
    moves: &[String],
    now: u64,
    charge: u64,
    day: (u64, i64),
) -> Result<LiveGame, StoreError> {
    let corrupt = |what: String| StoreError::Corrupt(format!("live game {}: {what}", row.id));
    let start = Position::from_fen(&row.start_fen).map_err(|e| corrupt(e.to_string()))?;
    let mut game =
        Game::replay(start, Rules::default(), moves).map_err(|e| corrupt(e.to_string()))?;
    let mut end = None;
    match row.declared {
        None => {}
        Some(LiveEnd::Aborted) => end = Some(End::Aborted),
        Some(LiveEnd::Claimed(winner)) => end = Some(End::Claimed { winner }),
        Some(LiveEnd::Resigned(loser)) => game.resign(loser),
        Some(LiveEnd::Agreed) => game.agree_draw(),
        Some(LiveEnd::Flagged(side)) => game.flag(side),
    }
    let tc = row
        .clock
        .map(|(initial, increment)| TimeControl { initial, increment });
    let running = end.is_none() && game.outcome().is_none() && moves.len() >= 2;
    let turn = game.position().turn().index();
    let snapshot = row.times.map(|t| {
        let mut remaining = [t[0], t[1]];
        if running {
            remaining[turn] = remaining[turn].saturating_sub(charge);
        }
        Snapshot {
            remaining,
            quota: [t[2], t[3]],
        }
    });
    let mut live = LiveGame::restore(game, tc, snapshot, row.names.clone(), end, now);
    if let Some(d) = row.days {
        let days = Days::new(d).map_err(corrupt)?;
        let (day_ms, epoch) = day;
        let wall = epoch.saturating_add(now as i64);
        let deadline = row.deadline.map(|d| corr::restored(d, day_ms, wall));
        live.set_correspondence(days, day_ms, epoch, deadline, now);
    }
    Ok(live)
}

/// The stored row of a new live game, created at `created` (wall ms).
pub(super) fn row_of(
    id: &str,
    live: &LiveGame,
    keys: &[SeatKey; 2],
    created: i64,
    now: u64,
) -> LiveRow {
    let change = change_of(live, now);
    LiveRow {
        id: id.to_owned(),
        created,
        updated: created,
        start_fen: live.game.start().fen(),
        clock: live
            .clock
            .as_ref()
            .map(|c| (c.time_control().initial, c.time_control().increment)),
        names: live.names.clone(),
        keys: [keys[0].0.clone(), keys[1].0.clone()],
        times: change.times,
        declared: change.declared,
        status: change.status,
        winner: change.winner,
        rematch: String::new(),
        days: live.corr.map(|c| c.days.get()),
        deadline: change.deadline,
    }
}
