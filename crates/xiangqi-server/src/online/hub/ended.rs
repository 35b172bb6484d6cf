//! Games that have just ended, told to whoever listens: the opening explorer's site database
//! (`xiangqi serve` adds each one there). An aborted game has no result and is not told.

use tokio::sync::mpsc;
use xiangqi::{Color, Move, Position};

use super::codec::restore;
use super::{lock, wall_ms, Hub, RoomState};
use crate::online::live::{LiveGame, Status};
use crate::rating::Speed;
use crate::store::accounts::SeatsRow;
use crate::store::StoreError;

/// A game that has just ended, stored.
#[derive(Clone, Debug)]
pub struct Ended {
    pub id: String,
    pub start: Position,
    pub moves: Vec<Move>,
    /// `None`: a draw.
    pub winner: Option<Color>,
    /// Red's and Black's names, accounts (`None`: a guest) and ratings before the game (in a
    /// rated game).
    pub names: [String; 2],
    pub accounts: [Option<String>; 2],
    pub ratings: [Option<u16>; 2],
    pub speed: Speed,
    /// When it ended (wall ms).
    pub at: i64,
}

impl Hub {
    /// The games this node ends from now on, one message each (a second call replaces the
    /// first listener).
    pub fn ended_games(&self) -> mpsc::UnboundedReceiver<Ended> {
        let (tx, rx) = mpsc::unbounded_channel();
        *lock(&self.ended) = Some(tx);
        rx
    }

    /// Called once the write of `next` is committed: tells the listener if it ends the game.
    pub(super) fn tell_ended(&self, id: &str, st: &RoomState, next: &LiveGame) {
        if !next.is_over() || st.live.is_over() || next.status() == Status::Aborted {
            return;
        }
        let guard = lock(&self.ended);
        let Some(tx) = guard.as_ref() else { return };
        let _ = tx.send(ended_of(id, st.seats.as_ref(), next, wall_ms()));
    }

    /// The games stored as ended (not aborted) after `(updated, id)` in the order of when
    /// they were last written (wall ms) and their ids, at most `limit`, as [`Ended`] values
    /// (`at` is when the end was written). Read from the store alone, so on any node, whoever
    /// played them: a node's opening explorer follows the games that end on other nodes
    /// with it.
    pub async fn ended_after(
        &self,
        updated: i64,
        id: &str,
        limit: u32,
    ) -> Result<Vec<Ended>, StoreError> {
        let rows = self.store.ended_live_after(updated, id, limit).await?;
        let mut out = Vec::with_capacity(rows.len());
        for (row, moves) in rows {
            let seats = self.store.live_seats(&row.id).await?;
            let live = restore(
                &row,
                &moves,
                self.now(),
                0,
                (self.day_ms(), self.epoch_wall()),
            )?;
            if live.status() == Status::Aborted || !live.is_over() {
                continue;
            }
            out.push(ended_of(&row.id, seats.as_ref(), &live, row.updated));
        }
        Ok(out)
    }
}

/// The game `next` (room `id`, its seats) as it ended at `at` (wall ms).
fn ended_of(id: &str, seats: Option<&SeatsRow>, next: &LiveGame, at: i64) -> Ended {
    let seat = |i: usize| seats.and_then(|s| s.users[i].as_ref());
    let tc = next.clock.as_ref().map(|c| c.time_control());
    Ended {
        id: id.to_owned(),
        start: next.game.start().clone(),
        moves: next.game.moves(),
        winner: next.winner(),
        names: next.names.clone(),
        accounts: [0, 1].map(|i| seat(i).map(|u| u.name.clone())),
        ratings: [0, 1].map(|i| {
            seat(i)
                .and_then(|u| u.before)
                .map(|(r, _)| r.round().clamp(0.0, f64::from(u16::MAX)) as u16)
        }),
        speed: Speed::of(tc.map(|t| (t.initial, t.increment))),
        at,
    }
}
