//! The lobby: seeks opened, taken and withdrawn, shared through Redis when clustered.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use redis::AsyncCommands;
use tokio::sync::{broadcast, oneshot};
use xiangqi::Color;

use super::codec::change_of;
use super::error::{unavailable, OnlineError};
use super::{color_of, lock, wall_ms, Hub, NewLive, NewSeats, SeatGrant, Seeker};
use crate::online::clock::TimeControl;
use crate::online::cluster::{Op, Payload, Remote, Wire, EVENTS, SEEKS};
use crate::online::corr::Days;
use crate::online::lobby::{Seek, SeeksLine, SideWish, MAX_SEEKS};
use crate::online::token::{self, RandomError, Token};
use crate::rating::Speed;
use crate::store::live::LiveWrite;
use crate::store::Write;

/// The seek as Redis keeps it (with the node whose client waits for its seat).
#[derive(serde::Serialize, serde::Deserialize)]
pub(super) struct SharedSeek {
    id: String,
    name: String,
    tc: Option<(u64, u64)>,
    color: SideWish,
    #[serde(default)]
    days: Option<u32>,
    #[serde(default)]
    rated: bool,
    #[serde(default)]
    user: Option<String>,
    #[serde(default)]
    rating: Option<i64>,
    #[serde(default)]
    provisional: Option<bool>,
    #[serde(default)]
    user_id: Option<i64>,
    pub(super) node: String,
    at: i64,
}

impl SharedSeek {
    fn seek(&self) -> Seek {
        let tc = self
            .tc
            .map(|(initial, increment)| TimeControl { initial, increment });
        let mut s = Seek::new(self.id.clone(), self.name.clone(), tc, self.color);
        s.rated = self.rated;
        s.days = self.days.filter(|&d| Days::new(d).is_ok());
        s.user = self.user.clone();
        s.rating = self.rating;
        s.provisional = self.provisional;
        s.user_id = self.user_id;
        s
    }
}

/// Removes a seek from the lobby when its creator's connection ends.
pub struct SeekGuard {
    hub: Arc<Hub>,
    id: String,
}

impl Drop for SeekGuard {
    fn drop(&mut self) {
        self.hub.withdraw(&self.id);
    }
}

impl Hub {
    pub(super) fn lobby_line(&self) -> Arc<str> {
        if self.cluster.is_some() {
            return lock(&self.shared_lobby).clone();
        }
        let l = lock(&self.lobby);
        SeeksLine::line(l.list()).into()
    }

    pub(super) fn lobby_changed(&self) {
        match &self.cluster {
            Some(c) => c.publish(EVENTS.into(), &Wire::Lobby),
            None => {
                let _ = self.lobby_tx.send(self.lobby_line());
            }
        }
    }

    /// Rereads the seeks from Redis and tells this node's lobby streams.
    pub(super) async fn refresh_lobby(&self) {
        let Some(c) = &self.cluster else {
            return;
        };
        let mut conn = c.conn();
        let all: Vec<String> = match conn.hvals(SEEKS).await {
            Ok(v) => v,
            Err(e) => return self.log_redis("cannot read the seeks", &e),
        };
        let mut seeks: Vec<SharedSeek> = all
            .iter()
            .filter_map(|s| serde_json::from_str(s).ok())
            .collect();
        seeks.sort_by(|a, b| (a.at, &a.id).cmp(&(b.at, &b.id)));
        let list: Vec<Seek> = seeks.iter().map(SharedSeek::seek).collect();
        let line: Arc<str> = SeeksLine::line(&list).into();
        let changed = {
            let mut l = lock(&self.shared_lobby);
            let changed = **l != *line;
            *l = line.clone();
            changed
        };
        if changed {
            let _ = self.lobby_tx.send(line);
        }
    }

    /// The lobby's stream: the seeks now, then the seeks after every change.
    pub fn lobby(&self) -> (Arc<str>, broadcast::Receiver<Arc<str>>) {
        let rx = self.lobby_tx.subscribe();
        (self.lobby_line(), rx)
    }

    /// Opens a seek; it lasts while the returned guard lives. The receiver gets the
    /// creator's seat when someone takes it.
    pub async fn seek(
        self: &Arc<Self>,
        name: String,
        tc: Option<TimeControl>,
        days: Option<Days>,
        color: SideWish,
        seeker: Option<Seeker>,
        rated: bool,
    ) -> Result<(Seek, oneshot::Receiver<SeatGrant>, SeekGuard), OnlineError> {
        if rated && seeker.is_none() {
            return Err(OnlineError::Bad {
                field: "rated",
                msg: "a rated seek needs an account: log in (or send a personal API token)".into(),
            });
        }
        let id = token::game_id()?;
        let tc = if days.is_some() { None } else { tc };
        let mut seek = Seek::new(id.clone(), name, tc, color);
        seek.rated = rated;
        seek.days = days.map(Days::get);
        if let Some(u) = seeker {
            let speed = Speed::of(tc.map(|t| (t.initial, t.increment)));
            let r = self.store.rating_of(u.id, speed).await?;
            seek.name = u.name.clone();
            seek.user = Some(u.name);
            seek.user_id = Some(u.id);
            seek.rating = Some(r.rating.round() as i64);
            seek.provisional = Some(r.provisional());
        }
        let (tx, rx) = oneshot::channel();
        match &self.cluster {
            Some(c) => {
                let mut conn = c.conn();
                let n: usize = conn.hlen(SEEKS).await.map_err(unavailable)?;
                if n >= MAX_SEEKS {
                    return Err(OnlineError::Full("seeks"));
                }
                let shared = SharedSeek {
                    id: id.clone(),
                    name: seek.name.clone(),
                    tc: tc.map(|t| (t.initial, t.increment)),
                    color,
                    days: seek.days,
                    rated: seek.rated,
                    user: seek.user.clone(),
                    rating: seek.rating,
                    provisional: seek.provisional,
                    user_id: seek.user_id,
                    node: self.node.clone(),
                    at: wall_ms(),
                };
                let body = serde_json::to_string(&shared).map_err(|e| OnlineError::Bad {
                    field: "name",
                    msg: e.to_string(),
                })?;
                lock(&self.waiting).insert(id.clone(), tx);
                let r: redis::RedisResult<()> = conn.hset(SEEKS, &id, body).await;
                if let Err(e) = r {
                    lock(&self.waiting).remove(&id);
                    return Err(unavailable(e));
                }
                self.lobby_changed();
                self.refresh_lobby().await;
            }
            None => {
                if !lock(&self.lobby).add(seek.clone()) {
                    return Err(OnlineError::Full("seeks"));
                }
                lock(&self.waiting).insert(id.clone(), tx);
                self.lobby_changed();
            }
        }
        Ok((
            seek,
            rx,
            SeekGuard {
                hub: self.clone(),
                id,
            },
        ))
    }

    /// Refuses a seek to this taker: a rated one to a guest, one's own.
    pub(super) fn may_take(s: &Seek, taker: Option<&Seeker>) -> Result<(), OnlineError> {
        if s.rated && taker.is_none() {
            return Err(OnlineError::NeedsAccount);
        }
        if s.user_id.is_some() && s.user_id == taker.map(|t| t.id) {
            return Err(OnlineError::OwnSeek);
        }
        Ok(())
    }

    /// Takes seek `id` out of the lobby: its creator's name, time control and side wish, and
    /// the node the creator waits on. `None` if it is gone (taken by someone else).
    pub(super) async fn take_seek(
        &self,
        id: &str,
        taker: Option<&Seeker>,
    ) -> Result<Option<(Seek, String)>, OnlineError> {
        let Some(c) = &self.cluster else {
            let mut l = lock(&self.lobby);
            let s = l
                .list()
                .iter()
                .find(|s| s.id == id)
                .ok_or(OnlineError::NotFound)?;
            Self::may_take(s, taker)?;
            let seek = l.remove(id);
            return Ok(seek.map(|s| (s, self.node.clone())));
        };
        let mut conn = c.conn();
        let body: Option<String> = conn.hget(SEEKS, id).await.map_err(unavailable)?;
        let Some(body) = body else { return Ok(None) };
        let s: SharedSeek = serde_json::from_str(&body)
            .map_err(|e| OnlineError::Unavailable(format!("a seek in Redis is unreadable: {e}")))?;
        let seek = s.seek();
        Self::may_take(&seek, taker)?;
        let gone: i64 = conn.hdel(SEEKS, id).await.map_err(unavailable)?;
        if gone == 0 {
            return Ok(None);
        }
        Ok(Some((seek, s.node)))
    }

    /// The creator's seat of seek `seek`, sent from the taker's node.
    pub(super) fn seat_arrived(
        &self,
        seek: &str,
        game: String,
        color: &str,
        token: String,
    ) -> Result<Payload, Remote> {
        let gone = || Remote {
            status: 404,
            msg: "the seek's creator has left".into(),
            field: None,
            retry: None,
        };
        let tx = lock(&self.waiting).remove(seek).ok_or_else(gone)?;
        let color = color_of(color).ok_or_else(gone)?;
        let token = Token::parse(&token).ok_or_else(gone)?;
        tx.send(SeatGrant {
            id: game,
            color,
            token,
        })
        .map_err(|_| gone())?;
        Ok(Payload::default())
    }

    /// Takes seek `id`: creates the game and hands each player a seat.
    pub async fn accept(
        self: &Arc<Self>,
        id: &str,
        name: String,
        taker: Option<Seeker>,
    ) -> Result<SeatGrant, OnlineError> {
        let name = taker.as_ref().map_or(name, |t| t.name.clone());
        let (seek, node) = self
            .take_seek(id, taker.as_ref())
            .await?
            .ok_or(OnlineError::NotFound)?;
        self.lobby_changed();
        if self.cluster.is_some() {
            self.refresh_lobby().await;
        }
        let creator_color = match seek.color {
            SideWish::Red => Color::Red,
            SideWish::Black => Color::Black,
            SideWish::Random => {
                let mut b = [0u8; 1];
                getrandom::fill(&mut b).map_err(|e| RandomError(e.to_string()))?;
                if b[0] & 1 == 0 {
                    Color::Red
                } else {
                    Color::Black
                }
            }
        };
        let names = match creator_color {
            Color::Red => [seek.name.clone(), name],
            Color::Black => [name, seek.name.clone()],
        };
        let taker_id = taker.map(|t| t.id);
        let users = match creator_color {
            Color::Red => [seek.user_id, taker_id],
            Color::Black => [taker_id, seek.user_id],
        };
        let created = self
            .create(NewLive {
                tc: seek.tc,
                days: seek.days.and_then(|d| Days::new(d).ok()),
                fen: None,
                names,
                seats: Some(NewSeats {
                    users,
                    rated: seek.rated,
                }),
            })
            .await?;
        let [red, black] = created.tokens;
        let (mine, theirs) = match creator_color {
            Color::Red => (red, black),
            Color::Black => (black, red),
        };
        let delivered = if node == self.node {
            let creator = lock(&self.waiting).remove(id);
            creator.is_some_and(|tx| {
                tx.send(SeatGrant {
                    id: created.id.clone(),
                    color: creator_color,
                    token: mine,
                })
                .is_ok()
            })
        } else {
            let c = self
                .cluster
                .as_ref()
                .expect("another node only with a cluster");
            let op = Op::Seat {
                game: created.id.clone(),
                color: creator_color.name().to_owned(),
                token: mine.as_str().to_owned(),
            };
            c.request(&node, id, op).await.is_ok()
        };
        if !delivered {
            // The creator left in the meantime: nobody will play that seat.
            let _ = self.abort_unplayed(&created.id).await;
            return Err(OnlineError::NotFound);
        }
        Ok(SeatGrant {
            id: created.id,
            color: !creator_color,
            token: theirs,
        })
    }

    /// Aborts a game this node just created (a seek whose creator left).
    pub(super) async fn abort_unplayed(self: &Arc<Self>, id: &str) -> Result<(), OnlineError> {
        let Some(room) = lock(&self.rooms).get(id).cloned() else {
            return Err(OnlineError::NotFound);
        };
        let mut st = room.state.lock().await;
        let now = self.now();
        let mut next = st.live.clone();
        next.abort(Color::Red, now)?;
        let w = LiveWrite::Update {
            id: room.id.clone(),
            change: change_of(&next, now),
        };
        self.store.write(Write::Live(w)).await?;
        st.live = next;
        room.over.store(true, Ordering::Relaxed);
        Self::send(&room, None, &Self::state_event(&st.live, now));
        self.schedule(&room, &mut st, 0);
        Ok(())
    }

    pub(super) fn withdraw(self: &Arc<Self>, id: &str) {
        lock(&self.waiting).remove(id);
        match &self.cluster {
            Some(c) => {
                let c = c.clone();
                let id = id.to_owned();
                let hub = self.clone();
                if let Ok(rt) = tokio::runtime::Handle::try_current() {
                    rt.spawn(async move {
                        let mut conn = c.conn();
                        let n: redis::RedisResult<i64> = conn.hdel(SEEKS, &id).await;
                        if matches!(n, Ok(1)) {
                            hub.lobby_changed();
                            hub.refresh_lobby().await;
                        }
                    });
                }
            }
            None => {
                let gone = lock(&self.lobby).remove(id).is_some();
                if gone {
                    self.lobby_changed();
                }
            }
        }
    }
}
