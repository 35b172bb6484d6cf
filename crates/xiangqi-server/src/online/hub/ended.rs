//! Games that have just ended, told to whoever listens: the opening explorer's site database
//! (`xiangqi serve` adds each one there). An aborted game has no result and is not told.

use tokio::sync::mpsc;
use xiangqi::{Color, Move, Position};

use super::{lock, wall_ms, Hub, RoomState};
use crate::online::live::{LiveGame, Status};
use crate::rating::Speed;

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
        let seat = |i: usize| st.seats.as_ref().and_then(|s| s.users[i].as_ref());
        let tc = next.clock.as_ref().map(|c| c.time_control());
        let _ = tx.send(Ended {
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
            at: wall_ms(),
        });
    }
}
