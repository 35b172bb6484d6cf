//! Bots and the accounts' event stream, in the manner of lichess's Bot API (docs/API.md,
//! "Bots"): challenges between accounts (made, accepted, declined, cancelled), the lines of
//! `GET /api/stream/event` (`challenge`, `challengeCanceled`, `challengeDeclined`,
//! `gameStart`, `gameFinish`) and the limits on bots (moves and challenges per account, and
//! the pause of a bot that keeps losing on time).
//!
//! An account's lines go to every node (Redis, `Wire::User`, with several nodes), each node
//! giving them to the account's streams it holds; a challenge is kept in memory (one node)
//! or in the Redis hash `xq:challenges` (several), taken once (`HDEL`) when accepted,
//! declined or cancelled. Its game is an ordinary live game whose seats the two accounts
//! hold: the bot plays it with the board API's operations.

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;

use redis::AsyncCommands;
use serde::{Deserialize, Serialize};
use tokio::sync::broadcast;
use xiangqi::Color;

use super::error::{unavailable, OnlineError};
use super::playing::{game_view, NowPlaying};
use super::{lock, wall_ms, Hub, NewLive, NewSeats, RoomState};
use crate::online::clock::TimeControl;
use crate::online::cluster::{Wire, EVENTS};
use crate::online::corr::Days;
use crate::online::live::{LiveGame, Status};
use crate::online::lobby::SideWish;
use crate::online::token;
use crate::rating::Speed;

/// Where the challenges are kept with several nodes.
pub const CHALLENGES: &str = "xq:challenges";

/// A bot that lost on time this many games in a row is paused.
pub const TIMEOUTS_TO_PAUSE: u32 = 3;
/// How long the pause lasts (ms).
pub const PAUSE_MS: u64 = 10 * 60 * 1000;
/// The most challenges waiting for an answer, over all accounts.
pub const MAX_CHALLENGES: usize = 10_000;

/// A bot's moves: 60 at once, then 10 a second (lichess's bots play bullet).
pub const BOT_MOVES: (f64, f64) = (60.0, 10.0);
/// A bot's challenges (made, accepted): 20 at once, then one every 6 s.
pub const BOT_CHALLENGES: (f64, f64) = (20.0, 1.0 / 6.0);

/// Why a challenge is declined: lichess's reasons, with their keys and texts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub enum DeclineReason {
    Generic,
    Later,
    TooFast,
    TooSlow,
    TimeControl,
    Rated,
    Casual,
    Standard,
    Variant,
    NoBot,
    OnlyBot,
}

impl DeclineReason {
    pub const ALL: [DeclineReason; 11] = [
        DeclineReason::Generic,
        DeclineReason::Later,
        DeclineReason::TooFast,
        DeclineReason::TooSlow,
        DeclineReason::TimeControl,
        DeclineReason::Rated,
        DeclineReason::Casual,
        DeclineReason::Standard,
        DeclineReason::Variant,
        DeclineReason::NoBot,
        DeclineReason::OnlyBot,
    ];

    /// The key, as lichess writes it (`tooFast`).
    pub const fn key(self) -> &'static str {
        match self {
            DeclineReason::Generic => "generic",
            DeclineReason::Later => "later",
            DeclineReason::TooFast => "tooFast",
            DeclineReason::TooSlow => "tooSlow",
            DeclineReason::TimeControl => "timeControl",
            DeclineReason::Rated => "rated",
            DeclineReason::Casual => "casual",
            DeclineReason::Standard => "standard",
            DeclineReason::Variant => "variant",
            DeclineReason::NoBot => "noBot",
            DeclineReason::OnlyBot => "onlyBot",
        }
    }

    /// The text the challenger is shown (lichess's English).
    pub const fn text(self) -> &'static str {
        match self {
            DeclineReason::Generic => "I'm not accepting challenges at the moment.",
            DeclineReason::Later => "This is not the right time for me, please ask again later.",
            DeclineReason::TooFast => {
                "This time control is too fast for me, please challenge again with a slower game."
            }
            DeclineReason::TooSlow => {
                "This time control is too slow for me, please challenge again with a faster game."
            }
            DeclineReason::TimeControl => "I'm not accepting challenges with this time control.",
            DeclineReason::Rated => "Please send me a rated challenge instead.",
            DeclineReason::Casual => "Please send me a casual challenge instead.",
            DeclineReason::Standard => "I'm not accepting variant challenges right now.",
            DeclineReason::Variant => "I'm not willing to play this variant right now.",
            DeclineReason::NoBot => "I'm not accepting challenges from bots.",
            DeclineReason::OnlyBot => "I'm only accepting challenges from bots.",
        }
    }

    /// A key in any case (`toofast`, `tooFast`).
    pub fn parse(s: &str) -> Option<DeclineReason> {
        let s = s.trim();
        Self::ALL
            .into_iter()
            .find(|r| r.key().eq_ignore_ascii_case(s))
    }
}

/// An account in a challenge, as it was when the challenge was made.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Party {
    pub id: i64,
    pub name: String,
    pub bot: bool,
    pub rating: i64,
    pub provisional: bool,
}

/// A challenge waiting for its answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Challenge {
    pub id: String,
    pub from: Party,
    pub to: Party,
    pub rated: bool,
    /// The clock (ms), `None` without one.
    pub tc: Option<(u64, u64)>,
    pub days: Option<u32>,
    /// The challenger's side.
    pub color: SideWish,
    /// ms since 1970.
    pub created: i64,
    /// The start position, when not the usual one.
    #[serde(default)]
    pub fen: Option<String>,
}

impl Challenge {
    pub fn speed(&self) -> Speed {
        Speed::of(if self.days.is_some() { None } else { self.tc })
    }
}

/// An account of a challenge, as lichess shows it.
#[derive(Clone, Debug, Serialize, PartialEq, Eq, utoipa::ToSchema)]
pub struct ChallengeUser {
    /// The account's lower-case name.
    pub id: String,
    pub name: String,
    /// `BOT` for a bot account.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<&'static str>,
    pub rating: i64,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub provisional: bool,
    pub online: bool,
}

/// lichess's variant object: always standard (Xiangqi has no variants here).
#[derive(Clone, Debug, Serialize, PartialEq, Eq, utoipa::ToSchema)]
pub struct VariantJson {
    pub key: &'static str,
    pub name: &'static str,
    pub short: &'static str,
}

pub const STANDARD: VariantJson = VariantJson {
    key: "standard",
    name: "Standard",
    short: "Std",
};

/// A challenge's time control, as lichess's: `clock` (`limit`, `increment` in seconds,
/// `show`), `correspondence` (`daysPerTurn`) or `unlimited`.
#[derive(Clone, Debug, Serialize, PartialEq, Eq, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TimeControlJson {
    #[serde(rename = "type")]
    pub kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limit: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub increment: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub show: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub days_per_turn: Option<u32>,
}

/// The rating pool of a game, as lichess's `perf`.
#[derive(Clone, Debug, Serialize, PartialEq, Eq, utoipa::ToSchema)]
pub struct PerfJson {
    pub name: String,
}

/// A challenge, as lichess's challenge JSON.
#[derive(Clone, Debug, Serialize, PartialEq, Eq, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChallengeJson {
    pub id: String,
    /// The challenge's page (the game's, once accepted).
    pub url: String,
    /// `created`, `accepted`, `declined` or `canceled`.
    pub status: &'static str,
    pub challenger: ChallengeUser,
    pub dest_user: ChallengeUser,
    pub variant: VariantJson,
    pub rated: bool,
    pub speed: &'static str,
    pub time_control: TimeControlJson,
    /// The challenger's side as asked: `red`, `black` or `random`.
    pub color: &'static str,
    pub perf: PerfJson,
    /// `in` or `out`, from the viewer's side (in `GET /api/challenge`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub direction: Option<&'static str>,
    /// A declined challenge: why (lichess's text and key).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decline_reason: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decline_reason_key: Option<&'static str>,
}

fn user_json(p: &Party) -> ChallengeUser {
    ChallengeUser {
        id: p.name.to_lowercase(),
        name: p.name.clone(),
        title: p.bot.then_some("BOT"),
        rating: p.rating,
        provisional: p.provisional,
        online: true,
    }
}

fn capitalized(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

/// Minutes as lichess shows a clock's limit (`½`, `1.5`, `3`).
fn show_limit(ms: u64) -> String {
    match ms {
        250 => "¼".into(),
        500 => "½".into(),
        750 => "¾".into(),
        _ if ms.is_multiple_of(60_000) => (ms / 60_000).to_string(),
        _ => format!("{}", ms as f64 / 60_000.0),
    }
}

impl ChallengeJson {
    pub fn of(c: &Challenge, status: &'static str, viewer: Option<i64>) -> ChallengeJson {
        let time_control = match (c.days, c.tc) {
            (Some(d), _) => TimeControlJson {
                kind: "correspondence",
                limit: None,
                increment: None,
                show: None,
                days_per_turn: Some(d),
            },
            (None, Some((l, i))) => TimeControlJson {
                kind: "clock",
                limit: Some(l / 1000),
                increment: Some(i / 1000),
                show: Some(format!("{}+{}", show_limit(l), i / 1000)),
                days_per_turn: None,
            },
            (None, None) => TimeControlJson {
                kind: "unlimited",
                limit: None,
                increment: None,
                show: None,
                days_per_turn: None,
            },
        };
        let speed = c.speed();
        ChallengeJson {
            id: c.id.clone(),
            url: format!("/live/{}", c.id),
            status,
            challenger: user_json(&c.from),
            dest_user: user_json(&c.to),
            variant: STANDARD,
            rated: c.rated,
            speed: speed.as_str(),
            time_control,
            color: match c.color {
                SideWish::Red => "red",
                SideWish::Black => "black",
                SideWish::Random => "random",
            },
            perf: PerfJson {
                name: capitalized(speed.as_str()),
            },
            direction: viewer.map(|v| if v == c.from.id { "out" } else { "in" }),
            decline_reason: None,
            decline_reason_key: None,
        }
    }
}

/// A game's status as lichess's game object has it: its number and name.
#[derive(Clone, Debug, Serialize, PartialEq, Eq, utoipa::ToSchema)]
pub struct StatusJson {
    pub id: u16,
    pub name: &'static str,
}

/// lichess's status numbers; the Xiangqi endings get their own, from 70.
pub fn status_json(s: Status) -> StatusJson {
    let id = match s {
        Status::Created => 10,
        Status::Started => 20,
        Status::Aborted => 25,
        Status::Mate => 30,
        Status::Resign => 31,
        Status::Stalemate => 32,
        Status::Timeout => 33,
        Status::Draw => 34,
        Status::OutOfTime => 35,
        Status::Repetition => 70,
        Status::PerpetualCheck => 71,
        Status::PerpetualChase => 72,
        Status::MoveLimit => 73,
        Status::InsufficientMaterial => 74,
    };
    StatusJson {
        id,
        name: s.as_str(),
    }
}

/// Which APIs may play a game: lichess's `compat`.
#[derive(Clone, Debug, Serialize, PartialEq, Eq, utoipa::ToSchema)]
pub struct CompatJson {
    pub bot: bool,
    pub board: bool,
}

/// The game of `gameStart` and `gameFinish`, as lichess's: `nowPlaying`'s fields and more.
#[derive(Clone, Debug, Serialize, PartialEq, Eq, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct GameEventJson {
    /// The game's id (as `gameId`).
    pub id: String,
    #[serde(flatten)]
    pub game: NowPlaying,
    pub has_moved: bool,
    /// `friend` (a challenge) or `lobby` (a seek, an open challenge).
    pub source: &'static str,
    pub status: StatusJson,
    pub variant: VariantJson,
    pub compat: CompatJson,
    /// Once over: the winner's side (absent for a draw or an abort).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub winner: Option<&'static str>,
    /// Once a rated game is over: what it changed in the account's rating.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rating_diff: Option<i64>,
}

/// A line of `GET /api/stream/event`.
#[derive(Clone, Debug, Serialize, PartialEq, Eq, utoipa::ToSchema)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum UserEvent {
    GameStart { game: GameEventJson },
    GameFinish { game: GameEventJson },
    Challenge { challenge: ChallengeJson },
    ChallengeCanceled { challenge: ChallengeJson },
    ChallengeDeclined { challenge: ChallengeJson },
}

impl UserEvent {
    /// One line of newline-delimited JSON (with the newline).
    pub fn line(&self) -> String {
        let mut s = serde_json::to_string(self).expect("events serialize");
        s.push('\n');
        s
    }
}

/// A token bucket of one account.
#[derive(Debug)]
struct Bucket {
    tokens: f64,
    at: Instant,
}

/// The bots' state on this node: their limits' buckets, their losses on time in a row and
/// their pauses (with one node; Redis keeps the last two with several).
#[derive(Debug, Default)]
pub(super) struct Bots {
    buckets: HashMap<(i64, bool), Bucket>,
    flags: HashMap<i64, u32>,
    paused: HashMap<i64, i64>,
}

fn flags_key(user: i64) -> String {
    format!("xq:bot:flags:{user}")
}
fn pause_key(user: i64) -> String {
    format!("xq:bot:pause:{user}")
}

impl Hub {
    /// Every account's lines, as (account, line): a stream keeps its account's.
    pub fn user_events(&self) -> broadcast::Receiver<(i64, Arc<str>)> {
        self.users_tx.subscribe()
    }

    /// Tells account `user`'s streams, on every node.
    pub(super) fn tell_user(&self, user: i64, e: &UserEvent) {
        let line = e.line();
        match &self.cluster {
            Some(c) => c.publish(EVENTS.into(), &Wire::User { user, line }),
            None => {
                let _ = self.users_tx.send((user, line.into()));
            }
        }
    }

    /// A line for an account heard from Redis.
    pub(super) fn user_line(&self, user: i64, line: String) {
        let _ = self.users_tx.send((user, line.into()));
    }

    /// Turns the limits on bots on or off (`--no-rate-limits`).
    pub fn set_bot_limits(&self, on: bool) {
        self.bot_limits.store(on, Ordering::Relaxed);
    }

    /// Takes one of bot `user`'s moves (`moves`) or challenges from its bucket; `TooFast`
    /// (with the seconds to wait) when there is none.
    pub fn bot_take(&self, user: i64, moves: bool) -> Result<(), OnlineError> {
        if !self.bot_limits.load(Ordering::Relaxed) {
            return Ok(());
        }
        let (burst, per_second) = if moves { BOT_MOVES } else { BOT_CHALLENGES };
        let now = Instant::now();
        let mut b = lock(&self.bots);
        if b.buckets.len() > 100_000 {
            b.buckets.clear();
        }
        let e = b.buckets.entry((user, moves)).or_insert(Bucket {
            tokens: burst,
            at: now,
        });
        e.tokens = (e.tokens + now.duration_since(e.at).as_secs_f64() * per_second).min(burst);
        e.at = now;
        if e.tokens >= 1.0 {
            e.tokens -= 1.0;
            return Ok(());
        }
        Err(OnlineError::TooFast {
            what: if moves {
                "moves from this bot"
            } else {
                "challenges from this bot"
            },
            retry: ((1.0 - e.tokens) / per_second).ceil() as u64,
        })
    }

    /// Refuses a paused bot (it lost on time too often): `TooFast` with the time left.
    pub async fn bot_not_paused(&self, user: i64) -> Result<(), OnlineError> {
        let until = match &self.cluster {
            Some(c) => {
                let mut conn = c.conn();
                let v: Option<i64> = conn.get(pause_key(user)).await.map_err(unavailable)?;
                v.unwrap_or(0)
            }
            None => lock(&self.bots).paused.get(&user).copied().unwrap_or(0),
        };
        let left = until - wall_ms();
        if left > 0 {
            return Err(OnlineError::TooFast {
                what: "games lost on time in a row: this bot is paused from challenges",
                retry: (left as u64).div_ceil(1000),
            });
        }
        Ok(())
    }

    /// Counts a bot's game that ended: a loss on time (or by leaving) adds one to its losses
    /// on time in a row, and the third pauses it; any other end starts the count again.
    async fn count_flag(&self, user: i64, flagged: bool) {
        match &self.cluster {
            Some(c) => {
                let mut conn = c.conn();
                if !flagged {
                    let _: redis::RedisResult<()> = conn.del(flags_key(user)).await;
                    return;
                }
                let n: redis::RedisResult<u32> = conn.incr(flags_key(user), 1).await;
                if let Ok(n) = n {
                    if n >= TIMEOUTS_TO_PAUSE {
                        let until = wall_ms() + PAUSE_MS as i64;
                        let _: redis::RedisResult<()> = redis::pipe()
                            .cmd("SET")
                            .arg(pause_key(user))
                            .arg(until)
                            .arg("PX")
                            .arg(PAUSE_MS)
                            .ignore()
                            .del(flags_key(user))
                            .ignore()
                            .query_async(&mut conn)
                            .await;
                    }
                }
            }
            None => {
                let mut b = lock(&self.bots);
                if !flagged {
                    b.flags.remove(&user);
                    return;
                }
                let n = b.flags.entry(user).or_insert(0);
                *n += 1;
                if *n >= TIMEOUTS_TO_PAUSE {
                    b.flags.remove(&user);
                    b.paused.insert(user, wall_ms() + PAUSE_MS as i64);
                }
            }
        }
    }

    /// The game object of `gameStart`/`gameFinish` for `side`.
    async fn game_event(
        &self,
        id: &str,
        st: &RoomState,
        live: &LiveGame,
        side: Color,
    ) -> GameEventJson {
        let now = self.now();
        let mut g = game_view(id, live, st.seats.as_ref(), side, now, self.day_ms());
        let me = st
            .seats
            .as_ref()
            .and_then(|s| s.users[side.index()].as_ref());
        let them = st
            .seats
            .as_ref()
            .and_then(|s| s.users[(!side).index()].as_ref());
        if let Some(u) = them {
            if g.opponent.rating.is_none() {
                if let Ok(r) = self
                    .store
                    .rating_of(u.id, Speed::parse(g.speed).unwrap_or(Speed::Correspondence))
                    .await
                {
                    g.opponent.rating = Some(r.rating.round() as i64);
                }
            }
        }
        let status = live.status();
        GameEventJson {
            id: id.to_owned(),
            has_moved: live.game.moves().len() > side.index(),
            source: st.source,
            status: status_json(status),
            variant: STANDARD,
            compat: CompatJson {
                bot: true,
                board: true,
            },
            winner: live.winner().map(Color::name),
            rating_diff: me.and_then(|u| u.diff).map(|d| d.round() as i64),
            game: g,
        }
    }

    /// A new game with account seats: `gameStart` to each account.
    pub(super) async fn tell_started(&self, id: &str, st: &RoomState) {
        let Some(seats) = &st.seats else { return };
        for side in Color::ALL {
            if let Some(u) = &seats.users[side.index()] {
                let game = self.game_event(id, st, &st.live, side).await;
                self.tell_user(u.id, &UserEvent::GameStart { game });
            }
        }
    }

    /// A game that has just ended (aborted too): `gameFinish` to each account, and a bot's
    /// losses on time counted.
    pub(super) async fn tell_finished(&self, id: &str, st: &RoomState, next: &LiveGame) {
        if !next.is_over() || st.live.is_over() {
            return;
        }
        let Some(seats) = &st.seats else { return };
        let status = next.status();
        for side in Color::ALL {
            let Some(u) = &seats.users[side.index()] else {
                continue;
            };
            let game = self.game_event(id, st, next, side).await;
            self.tell_user(u.id, &UserEvent::GameFinish { game });
            if u.bot && status != Status::Aborted {
                let flagged = matches!(status, Status::OutOfTime | Status::Timeout)
                    && next.winner() == Some(!side);
                self.count_flag(u.id, flagged).await;
            }
        }
    }

    /// The lines a new event stream of `user` starts with: `gameStart` of each ongoing game,
    /// then `challenge` of each challenge to or from it.
    pub async fn first_events(self: &Arc<Self>, user: i64) -> Result<Vec<String>, OnlineError> {
        let mut out = Vec::new();
        for (id, _) in self.store.playing(user).await? {
            let room = lock(&self.rooms).get(&id).cloned();
            let line = match room {
                Some(room) => {
                    let st = room.state.lock().await;
                    let Some(side) = st.seats.as_ref().and_then(|s| {
                        Color::ALL
                            .into_iter()
                            .find(|c| s.users[c.index()].as_ref().is_some_and(|u| u.id == user))
                    }) else {
                        continue;
                    };
                    if st.live.is_over() {
                        continue;
                    }
                    let game = self.game_event(&id, &st, &st.live, side).await;
                    UserEvent::GameStart { game }.line()
                }
                None => {
                    // Held by another node: as `nowPlaying` shows it.
                    let Some(p) = self
                        .playing(user)
                        .await?
                        .into_iter()
                        .find(|p| p.game_id == id)
                    else {
                        continue;
                    };
                    let game = GameEventJson {
                        id: id.clone(),
                        has_moved: !p.last_move.is_empty(),
                        source: "friend",
                        status: status_json(Status::Started),
                        variant: STANDARD,
                        compat: CompatJson {
                            bot: true,
                            board: true,
                        },
                        winner: None,
                        rating_diff: None,
                        game: p,
                    };
                    UserEvent::GameStart { game }.line()
                }
            };
            out.push(line);
        }
        for c in self.challenges_of(user).await? {
            let challenge = ChallengeJson::of(&c, "created", None);
            out.push(UserEvent::Challenge { challenge }.line());
        }
        Ok(out)
    }

    /// The challenges to or from account `user`, oldest first.
    pub async fn challenges_of(&self, user: i64) -> Result<Vec<Challenge>, OnlineError> {
        let mut all: Vec<Challenge> = match &self.cluster {
            Some(c) => {
                let mut conn = c.conn();
                let v: Vec<String> = conn.hvals(CHALLENGES).await.map_err(unavailable)?;
                v.iter()
                    .filter_map(|s| serde_json::from_str(s).ok())
                    .collect()
            }
            None => lock(&self.challenges).values().cloned().collect(),
        };
        all.retain(|c| c.from.id == user || c.to.id == user);
        all.sort_by(|a, b| (a.created, &a.id).cmp(&(b.created, &b.id)));
        Ok(all)
    }

    async fn get_challenge(&self, id: &str) -> Result<Challenge, OnlineError> {
        let found = match &self.cluster {
            Some(c) => {
                let mut conn = c.conn();
                let v: Option<String> = conn.hget(CHALLENGES, id).await.map_err(unavailable)?;
                v.and_then(|s| serde_json::from_str(&s).ok())
            }
            None => lock(&self.challenges).get(id).cloned(),
        };
        found.ok_or_else(no_challenge)
    }

    /// Takes challenge `id` away; `NotFound` when another request took it first.
    async fn take_challenge(&self, id: &str) -> Result<(), OnlineError> {
        let gone = match &self.cluster {
            Some(c) => {
                let mut conn = c.conn();
                let n: i64 = conn.hdel(CHALLENGES, id).await.map_err(unavailable)?;
                n == 1
            }
            None => lock(&self.challenges).remove(id).is_some(),
        };
        if gone {
            Ok(())
        } else {
            Err(no_challenge())
        }
    }

    /// Makes a challenge from `from` to `to` (the caller checked who may challenge whom) and
    /// tells both accounts.
    // The fields of a challenge, as lichess's form has them.
    #[allow(clippy::too_many_arguments)]
    pub async fn challenge(
        &self,
        from: Party,
        to: Party,
        rated: bool,
        tc: Option<TimeControl>,
        days: Option<Days>,
        color: SideWish,
        fen: Option<String>,
    ) -> Result<Challenge, OnlineError> {
        if let Some(f) = fen.as_deref() {
            let p = xiangqi::Position::from_fen(f).map_err(|e| OnlineError::Bad {
                field: "fen",
                msg: format!("bad FEN: {e}"),
            })?;
            if xiangqi::Game::new(p).outcome().is_some() {
                return Err(OnlineError::Bad {
                    field: "fen",
                    msg: "the position is already decided".into(),
                });
            }
        }
        let c = Challenge {
            id: token::game_id()?,
            from,
            to,
            rated,
            tc: if days.is_some() {
                None
            } else {
                tc.map(|t| (t.initial, t.increment))
            },
            days: days.map(Days::get),
            color,
            created: wall_ms(),
            fen,
        };
        match &self.cluster {
            Some(cl) => {
                let mut conn = cl.conn();
                let n: usize = conn.hlen(CHALLENGES).await.map_err(unavailable)?;
                if n >= MAX_CHALLENGES {
                    return Err(OnlineError::Full("challenges"));
                }
                let body = serde_json::to_string(&c).map_err(|e| OnlineError::Bad {
                    field: "opponent",
                    msg: e.to_string(),
                })?;
                let _: () = conn
                    .hset(CHALLENGES, &c.id, body)
                    .await
                    .map_err(unavailable)?;
            }
            None => {
                let mut all = lock(&self.challenges);
                if all.len() >= MAX_CHALLENGES {
                    return Err(OnlineError::Full("challenges"));
                }
                all.insert(c.id.clone(), c.clone());
            }
        }
        let e = UserEvent::Challenge {
            challenge: ChallengeJson::of(&c, "created", None),
        };
        self.tell_user(c.to.id, &e);
        self.tell_user(c.from.id, &e);
        Ok(c)
    }

    /// Account `user` accepts challenge `id`: the game starts (`gameStart` to both).
    pub async fn accept_challenge(
        self: &Arc<Self>,
        id: &str,
        user: i64,
    ) -> Result<String, OnlineError> {
        let c = self.get_challenge(id).await?;
        if c.to.id != user {
            return Err(OnlineError::Forbidden(
                "only the challenged account can accept a challenge".into(),
            ));
        }
        self.take_challenge(id).await?;
        let from = match c.color {
            SideWish::Red => Color::Red,
            SideWish::Black => Color::Black,
            SideWish::Random => {
                let mut b = [0u8; 1];
                getrandom::fill(&mut b).map_err(|e| token::RandomError(e.to_string()))?;
                if b[0] & 1 == 0 {
                    Color::Red
                } else {
                    Color::Black
                }
            }
        };
        let mut names = [c.from.name.clone(), c.to.name.clone()];
        let mut users = [Some(c.from.id), Some(c.to.id)];
        if from == Color::Black {
            names.swap(0, 1);
            users.swap(0, 1);
        }
        let created = self
            .create_from(
                NewLive {
                    tc: c
                        .tc
                        .map(|(initial, increment)| TimeControl { initial, increment }),
                    days: c.days.and_then(|d| Days::new(d).ok()),
                    fen: c.fen.clone(),
                    names,
                    seats: Some(NewSeats {
                        users,
                        rated: c.rated,
                    }),
                },
                "friend",
                Some(c.id.clone()),
            )
            .await?;
        Ok(created.id)
    }

    /// Account `user` declines challenge `id`: the challenger is told why.
    pub async fn decline_challenge(
        &self,
        id: &str,
        user: i64,
        reason: DeclineReason,
    ) -> Result<(), OnlineError> {
        let c = self.get_challenge(id).await?;
        if c.to.id != user {
            return Err(OnlineError::Forbidden(
                "only the challenged account can decline a challenge".into(),
            ));
        }
        self.take_challenge(id).await?;
        let mut challenge = ChallengeJson::of(&c, "declined", None);
        challenge.decline_reason = Some(reason.text());
        challenge.decline_reason_key = Some(reason.key());
        let e = UserEvent::ChallengeDeclined { challenge };
        self.tell_user(c.from.id, &e);
        self.tell_user(c.to.id, &e);
        Ok(())
    }

    /// Account `user` cancels challenge `id` (its own, or one to it): both are told.
    pub async fn cancel_challenge(&self, id: &str, user: i64) -> Result<(), OnlineError> {
        let c = self.get_challenge(id).await?;
        if c.from.id != user && c.to.id != user {
            return Err(OnlineError::Forbidden(
                "only the challenger can cancel a challenge".into(),
            ));
        }
        self.take_challenge(id).await?;
        let e = UserEvent::ChallengeCanceled {
            challenge: ChallengeJson::of(&c, "canceled", None),
        };
        self.tell_user(c.to.id, &e);
        self.tell_user(c.from.id, &e);
        Ok(())
    }
}

fn no_challenge() -> OnlineError {
    OnlineError::NoChallenge
}
