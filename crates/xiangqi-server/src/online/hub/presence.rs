//! Streams and presence: a game's streams opened and counted on every node; grace periods.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::broadcast;
use xiangqi::Color;

use super::error::OnlineError;
use super::{color_of, lock, slot, Channel, Credential, Hub, Msg, Room, RoomState};
use crate::online::cluster::{Op, Payload, WireCred};
use crate::online::events::Event;
use crate::online::live::LiveGame;
use crate::online::token;

/// A stream's connection to a game; dropping it tells the game's owner the stream left.
pub struct Guard {
    hub: Arc<Hub>,
    id: String,
    chan: Arc<Channel>,
    seat: Option<Color>,
}

impl Drop for Guard {
    fn drop(&mut self) {
        let hub = self.hub.clone();
        let chan = self.chan.clone();
        let id = std::mem::take(&mut self.id);
        let seat = self.seat;
        if let Ok(rt) = tokio::runtime::Handle::try_current() {
            rt.spawn(async move { hub.leave(id, chan, seat).await });
        }
    }
}

/// An open stream of a game: the first lines, then what the game broadcasts.
pub struct Subscription {
    pub first: String,
    pub extra: Vec<String>,
    pub rx: broadcast::Receiver<Msg>,
    pub guard: Guard,
}

impl Subscription {
    pub fn seat(&self) -> Option<Color> {
        self.guard.seat
    }
    pub fn id(&self) -> &str {
        &self.guard.id
    }
}

impl Hub {
    /// Opens a stream of game `id`: a player's with its token, else a spectator's.
    pub async fn subscribe(
        self: &Arc<Self>,
        id: &str,
        cred: Option<Credential<'_>>,
    ) -> Result<Subscription, OnlineError> {
        if !token::is_game_id(id) {
            return Err(OnlineError::NotFound);
        }
        let chan = self.channel(id);
        let rx = chan.tx.subscribe();
        let joined = self
            .call(
                id,
                Op::Join {
                    cred: cred.map(WireCred::of),
                },
            )
            .await;
        let p = match joined {
            Ok(p) => p,
            Err(e) => {
                drop(rx);
                self.drop_idle_channel(id);
                return Err(e);
            }
        };
        let seat = p.seat.as_deref().and_then(color_of);
        {
            let mut l = lock(&chan.local);
            l[slot(seat)] += 1;
            chan.version.fetch_add(1, Ordering::Relaxed);
        }
        self.report(id).await;
        Ok(Subscription {
            first: p.first,
            extra: p.extra,
            rx,
            guard: Guard {
                hub: self.clone(),
                id: id.to_owned(),
                chan,
                seat,
            },
        })
    }

    /// The first lines of a stream opening on room (the owner's part of `subscribe`).
    pub(super) async fn join_local(
        self: &Arc<Self>,
        room: &Arc<Room>,
        cred: Option<Credential<'_>>,
    ) -> Result<Payload, OnlineError> {
        let st = room.state.lock().await;
        let seat = match cred {
            Some(_) => Some(Self::seat_of(&st, cred)?),
            None => None,
        };
        let now = self.now();
        let mut full = self.full_event(room, &st);
        if let Event::GameFull { seat: you, .. } = &mut full {
            *you = seat.map(Color::name);
        }
        let mut extra = Vec::new();
        if let Some(s) = seat {
            if !st.live.is_over() && !st.live.is_connected(!s) {
                extra.push(self.gone_event(&st.live, !s, now).line());
            }
        }
        if let Some(r) = &st.rematch {
            extra.push(Event::Rematch { id: r.clone() }.line());
        }
        Ok(Payload {
            first: full.line(),
            extra,
            seat: seat.map(|c| c.name().to_owned()),
        })
    }

    /// Tells the owner of `id` how many streams of it this node has.
    pub(super) async fn report(self: &Arc<Self>, id: &str) {
        let Some(chan) = lock(&self.channels).get(id).cloned() else {
            return;
        };
        let (version, counts) = {
            let l = lock(&chan.local);
            (chan.version.load(Ordering::Relaxed), *l)
        };
        if let Err(e) = self.call(id, Op::Presence { version, counts }).await {
            if !matches!(e, OnlineError::NotFound) {
                eprintln!("xiangqi serve: live game {id}: cannot report its streams: {e}");
            }
        }
    }

    /// Node `node` has `counts` streams of the room (version `version`): who is connected.
    pub(super) fn presence(
        self: &Arc<Self>,
        room: &Arc<Room>,
        st: &mut RoomState,
        node: String,
        version: u64,
        counts: [u32; 3],
    ) {
        let old = st.totals();
        let e = st.presence.entry(node).or_insert((0, [0; 3]));
        if version < e.0 || (version == e.0 && version != 0 && e.1 == counts) {
            return;
        }
        *e = (version, counts);
        let new = st.totals();
        let now = self.now();
        for s in Color::ALL {
            let (o, n) = (old[s.index()], new[s.index()]);
            if n > o {
                for _ in o..n {
                    st.live.connect(s);
                }
                Self::send(
                    room,
                    Some(!s),
                    &Event::OpponentGone {
                        gone: false,
                        claim_win_in_seconds: None,
                    },
                );
            } else if n < o {
                for _ in n..o {
                    st.live.disconnect(s, now);
                }
                if n == 0 && !st.live.is_over() {
                    Self::send(room, Some(!s), &self.gone_event(&st.live, s, now));
                    if st.live.corr.is_none() {
                        self.remind(room, s, st.live.grace_period());
                    }
                }
            }
        }
        if old != new {
            Self::send(room, None, &Self::crowd(st));
        }
    }

    /// A dead node's streams are gone; a count it sent before is taken as new.
    pub(super) fn forget_node(self: &Arc<Self>, room: &Arc<Room>, st: &mut RoomState, node: &str) {
        let v = st.presence.get(node).map_or(0, |e| e.0);
        self.presence(room, st, node.to_owned(), v + 1, [0; 3]);
        st.presence.remove(node);
    }

    /// Tells the opponent again when a claim becomes possible.
    pub(super) fn remind(self: &Arc<Self>, room: &Arc<Room>, s: Color, grace: u64) {
        let hub = Arc::downgrade(self);
        let weak = Arc::downgrade(room);
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(grace)).await;
            let (Some(hub), Some(room)) = (hub.upgrade(), weak.upgrade()) else {
                return;
            };
            let st = room.state.lock().await;
            let now = hub.now();
            if !st.live.is_over()
                && !st.live.is_connected(s)
                && st.live.gone_for(s, now) >= st.live.grace_period()
            {
                Self::send(&room, Some(!s), &hub.gone_event(&st.live, s, now));
            }
        });
    }

    pub(super) fn gone_event(&self, live: &LiveGame, gone: Color, now: u64) -> Event {
        let left = live.grace_period().saturating_sub(live.gone_for(gone, now));
        Event::OpponentGone {
            gone: true,
            // Correspondence: players come back days later; nothing to claim.
            claim_win_in_seconds: live.corr.is_none().then(|| left.div_ceil(1000)),
        }
    }

    pub(super) async fn leave(
        self: &Arc<Self>,
        id: String,
        chan: Arc<Channel>,
        seat: Option<Color>,
    ) {
        {
            let mut l = lock(&chan.local);
            let k = slot(seat);
            l[k] = l[k].saturating_sub(1);
            chan.version.fetch_add(1, Ordering::Relaxed);
        }
        self.report(&id).await;
    }

    /// The current `gameFull` line of game `id` (after a lagging stream missed lines).
    pub async fn full(self: &Arc<Self>, id: &str) -> Result<String, OnlineError> {
        Ok(self.call(id, Op::Full).await?.first)
    }
}
