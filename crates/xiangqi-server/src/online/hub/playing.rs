//! An account's ongoing games, for `GET /api/account/playing` (lichess's `nowPlaying`): the
//! games where it is the account's turn first, least time left first.

use std::sync::Arc;

use serde::Serialize;
use xiangqi::Color;

use super::codec::restore;
use super::error::OnlineError;
use super::{lock, Hub};
use crate::online::live::LiveGame;
use crate::rating::Speed;
use crate::store::accounts::SeatsRow;

/// The opponent in a game of `nowPlaying`.
#[derive(Clone, Debug, Serialize, PartialEq, Eq, utoipa::ToSchema)]
pub struct Opponent {
    /// The opponent's account (its lower-case name), `null` for a guest.
    #[schema(required)]
    pub id: Option<String>,
    /// The account's name, or the guest's.
    pub username: String,
    /// The account's rating of the game's speed, `null` for a guest.
    #[schema(required)]
    pub rating: Option<i64>,
}

/// One ongoing game of an account.
#[derive(Clone, Debug, Serialize, PartialEq, Eq, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct NowPlaying {
    pub game_id: String,
    /// The game's id and the account's side's letter (`r` or `b`).
    pub full_id: String,
    /// The account's side, `red` or `black`.
    pub color: &'static str,
    /// The position now.
    pub fen: String,
    /// The last move (UCI), `""` before the first.
    pub last_move: String,
    pub is_my_turn: bool,
    /// The account's time left in seconds: to its deadline in a correspondence game (while it
    /// is its turn, else a whole turn's days), on its clock in a real-time game; `null`
    /// without either.
    #[schema(required)]
    pub seconds_left: Option<u64>,
    /// `bullet`, `blitz`, `rapid`, `classical` or `correspondence`.
    pub speed: &'static str,
    /// The rating pool: the speed.
    pub perf: &'static str,
    pub rated: bool,
    /// Correspondence: days per move.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub days_per_turn: Option<u32>,
    pub opponent: Opponent,
}

/// What an ongoing game shows of itself to one side.
fn now_playing(
    id: &str,
    live: &LiveGame,
    seats: Option<&SeatsRow>,
    side: Color,
    now: u64,
    day_ms: u64,
) -> Option<NowPlaying> {
    if live.is_over() {
        return None;
    }
    Some(game_view(id, live, seats, side, now, day_ms))
}

/// What a game shows of itself to one side (ongoing or over), as `nowPlaying`'s object.
pub(super) fn game_view(
    id: &str,
    live: &LiveGame,
    seats: Option<&SeatsRow>,
    side: Color,
    now: u64,
    day_ms: u64,
) -> NowPlaying {
    let is_my_turn = live.turn() == side;
    let seconds_left = match (&live.corr, live.times(now)) {
        (Some(c), _) if is_my_turn => c.left(now).map(|ms| ms / 1000),
        (Some(c), _) => Some(c.days.per_turn(day_ms) / 1000),
        (None, Some(t)) => Some(t[side.index()] / 1000),
        (None, None) => None,
    };
    let speed = seats.map_or_else(
        || {
            Speed::of(live.clock.as_ref().map(|c| {
                let t = c.time_control();
                (t.initial, t.increment)
            }))
        },
        |s| s.speed,
    );
    let them = seats.and_then(|s| s.users[(!side).index()].as_ref());
    NowPlaying {
        game_id: id.to_owned(),
        full_id: format!("{id}{}", &side.name()[..1]),
        color: side.name(),
        fen: live.game.position().fen(),
        last_move: live
            .game
            .moves()
            .last()
            .map_or_else(String::new, |m| m.to_string()),
        is_my_turn,
        seconds_left,
        speed: speed.as_str(),
        perf: speed.as_str(),
        rated: seats.is_some_and(|s| s.rated),
        days_per_turn: live.corr.map(|c| c.days.get()),
        opponent: Opponent {
            id: them.map(|u| u.name.to_lowercase()),
            username: them.map_or_else(|| live.names[(!side).index()].clone(), |u| u.name.clone()),
            rating: them.and_then(|u| u.before.map(|(r, _)| r.round() as i64)),
        },
    }
}

impl Hub {
    /// Account `user`'s ongoing live games: its turn first, then by time left (least first).
    pub async fn playing(self: &Arc<Self>, user: i64) -> Result<Vec<NowPlaying>, OnlineError> {
        let games = self.store.playing(user).await?;
        let mut out = Vec::with_capacity(games.len());
        for (id, side) in games {
            let room = lock(&self.rooms).get(&id).cloned();
            let mut p = match room {
                Some(room) => {
                    let st = room.state.lock().await;
                    let now = self.now();
                    now_playing(&id, &st.live, st.seats.as_ref(), side, now, self.day_ms())
                }
                // Held by another node (or not yet restored): as the store has it.
                None => {
                    let Some((row, moves)) = self.store.load_live(&id).await? else {
                        continue;
                    };
                    let seats = self.store.live_seats(&id).await?;
                    let now = self.now();
                    let live = restore(&row, &moves, now, 0, (self.day_ms(), self.epoch_wall()))?;
                    now_playing(&id, &live, seats.as_ref(), side, now, self.day_ms())
                }
            };
            if let Some(p) = p.as_mut() {
                if p.opponent.id.is_some() && p.opponent.rating.is_none() {
                    // A casual game keeps no rating: the account's rating of the speed now.
                    let seats = self.store.live_seats(&id).await?;
                    if let Some(u) = seats.and_then(|s| s.users[(!side).index()].clone()) {
                        let speed = Speed::parse(p.speed).unwrap_or(Speed::Correspondence);
                        let r = self.store.rating_of(u.id, speed).await?;
                        p.opponent.rating = Some(r.rating.round() as i64);
                    }
                }
            }
            out.extend(p);
        }
        out.sort_by_key(|p| (!p.is_my_turn, p.seconds_left.unwrap_or(u64::MAX)));
        Ok(out)
    }
}
