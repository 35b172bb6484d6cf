//! Games that have just ended, told to whoever listens: the opening explorer's site database
//! (`xiangqi serve` adds each one there). An aborted game has no result and is not told.

use tokio::sync::mpsc;
use xiangqi::{Color, Move, Position};

use super::{lock, wall_ms, Hub, RoomState};
use crate::online::live::{LiveGame, Status};
use crate::rating::Speed;
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
        let _ = tx.send(ended_of(id, st, next, wall_ms()));
    }

    /// Tells the listener again of the games that ended since shortly before this node's
    /// last heartbeat before its restart (`resume_all` reads it): one that ended as the node
    /// stopped may have been stored without reaching the listener. The listener's adds are
    /// idempotent (the explorer counts a game once), so a game told twice counts once.
    /// Answers how many were told; none on a first start, with several nodes, or without a
    /// listener.
    pub async fn tell_ended_again(&self) -> Result<usize, StoreError> {
        let Some(last) = *lock(&self.last_run) else {
            return Ok(0);
        };
        if self.cluster.is_some() || lock(&self.ended).is_none() {
            return Ok(0);
        }
        let rows = self.store.ended_live_since(last - RETELL_MS).await?;
        let mut n = 0;
        for (row, moves) in rows {
            let seats = self.store.live_seats(&row.id).await?;
            let room = self.room_of(&row, &moves, seats, 0)?;
            let st = room.state.lock().await;
            if st.live.status() == Status::Aborted || !st.live.is_over() {
                continue;
            }
            let e = ended_of(&row.id, &st, &st.live, row.updated);
            drop(st);
            let guard = lock(&self.ended);
            let Some(tx) = guard.as_ref() else { break };
            if tx.send(e).is_ok() {
                n += 1;
            }
        }
        Ok(n)
    }
}

/// How long before the last heartbeat games are told again: the listener adds what came in
/// meanwhile at once, so a game ended this long before the stop was added (or its add failed
/// and was logged).
const RETELL_MS: i64 = 60_000;

/// The game `next` (room `id`, seats in `st`) as it ended at `at` (wall ms).
fn ended_of(id: &str, st: &RoomState, next: &LiveGame, at: i64) -> Ended {
    let seat = |i: usize| st.seats.as_ref().and_then(|s| s.users[i].as_ref());
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
