//! Operations run on a game's owner: here, or forwarded to the owning node and answered.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::error::{remote_of, OnlineError};
use super::ownership::Route;
use super::{lock, Hub, Msg, Room, To};
use crate::online::cluster::{CallError, Op, Payload, Remote, Wire, WireCred, CALL_DEADLINE};

impl Hub {
    /// Runs `op` on game `id`'s owner: here, or forwarded (again, through an owner's death,
    /// until [`CALL_DEADLINE`]).
    pub(super) async fn call(self: &Arc<Self>, id: &str, op: Op) -> Result<Payload, OnlineError> {
        let deadline = Instant::now() + CALL_DEADLINE;
        let redis_deadline = Instant::now() + Duration::from_secs(2);
        let mut last: String;
        loop {
            match self.route(id).await {
                Ok(Route::Local(room)) => {
                    let node = self.node.clone();
                    return self.local_op(room, &node, op).await;
                }
                Ok(Route::Remote(node)) => {
                    let c = self.cluster.as_ref().expect("remote only with a cluster");
                    match c.request(&node, id, op.clone()).await {
                        Ok(p) => return Ok(p),
                        Err(CallError::Refused(r)) => return Err(OnlineError::Remote(r)),
                        Err(CallError::Retry(m)) => last = m,
                    }
                }
                // Redis itself is away: answer soon (the client tries again).
                Err(OnlineError::Unavailable(m)) => {
                    if Instant::now() >= redis_deadline {
                        return Err(OnlineError::Unavailable(m));
                    }
                    last = m
                }
                Err(e) => return Err(e),
            }
            if Instant::now() >= deadline {
                return Err(OnlineError::Unavailable(format!(
                    "the live game's node cannot be reached ({last}); try again"
                )));
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// `op` on a room this node owns, asked by node `from`.
    pub(super) async fn local_op(
        self: &Arc<Self>,
        room: Arc<Room>,
        from: &str,
        op: Op,
    ) -> Result<Payload, OnlineError> {
        match op {
            Op::Act { cred, action } => {
                let cred = cred.as_ref().map(WireCred::as_credential);
                self.act_local(&room, cred, action).await?;
                Ok(Payload::default())
            }
            Op::Join { cred } => {
                let cred = cred.as_ref().map(WireCred::as_credential);
                self.join_local(&room, cred).await
            }
            Op::Full => {
                let st = room.state.lock().await;
                let line = self.full_event(&room, &st);
                Ok(Payload {
                    first: line.line(),
                    ..Payload::default()
                })
            }
            Op::Presence { version, counts } => {
                let mut st = room.state.lock().await;
                self.presence(&room, &mut st, from.to_owned(), version, counts);
                Ok(Payload::default())
            }
            Op::Seat { .. } => Err(OnlineError::NotFound),
            Op::Chat {
                cred,
                account,
                room: chat_room,
                text,
            } => {
                let cred = cred.as_ref().map(WireCred::as_credential);
                self.chat_local(&room, cred, account, chat_room, text)
                    .await?;
                Ok(Payload::default())
            }
            Op::ChatLines { cred } => {
                let cred = cred.as_ref().map(WireCred::as_credential);
                self.chat_lines_local(&room, cred).await
            }
        }
    }

    /// A request from another node.
    pub(crate) fn on_wire(self: Arc<Self>, w: Wire) {
        match w {
            Wire::Req {
                from,
                rid,
                game,
                op,
            } => {
                tokio::spawn(async move {
                    let res = match op {
                        Op::Seat {
                            game: g,
                            color,
                            token,
                        } => self.seat_arrived(&game, g, &color, token),
                        op => match self.owned(&game) {
                            Some(room) => self.local_op(room, &from, op).await.map_err(remote_of),
                            None => Err(Remote {
                                status: 0,
                                msg: format!("node {} does not own game {game}", self.node),
                                field: None,
                                retry: None,
                            }),
                        },
                    };
                    if let Some(c) = &self.cluster {
                        c.reply(&from, rid, res);
                    }
                });
            }
            Wire::Line {
                from,
                game,
                to,
                line,
                chat,
                author,
            } => {
                if from == self.node {
                    return;
                }
                let chan = lock(&self.channels).get(&game).cloned();
                if let Some(ch) = chan {
                    let Some(to) = To::parse(to.as_deref()) else {
                        return;
                    };
                    let _ = ch.tx.send(Msg {
                        to,
                        line: line.into(),
                        chat,
                        author,
                    });
                }
            }
            Wire::Owner { from, game } => {
                if from == self.node {
                    return;
                }
                // Another node took it: a room of ours is stale.
                if let Some(r) = lock(&self.rooms).remove(&game) {
                    r.valid_until.store(0, Ordering::Relaxed);
                }
                if lock(&self.channels).contains_key(&game) {
                    tokio::spawn(async move { self.report(&game).await });
                }
            }
            Wire::Lobby => {
                tokio::spawn(async move { self.refresh_lobby().await });
            }
            Wire::User { user, line } => self.user_line(user, line),
            Wire::Rep { .. } => {}
        }
    }

    /// The pub/sub connection was opened again: streams may have missed lines, owners may
    /// have missed counts.
    pub(crate) fn on_reconnect(self: Arc<Self>) {
        tokio::spawn(async move {
            let ids: Vec<String> = lock(&self.channels).keys().cloned().collect();
            for id in ids {
                if self.owned(&id).is_none() {
                    if let Ok(p) = self.call(&id, Op::Full).await {
                        if let Some(ch) = lock(&self.channels).get(&id) {
                            let _ = ch.tx.send(Msg::plain(To::All, p.first.into()));
                        }
                    }
                }
                self.report(&id).await;
            }
            self.refresh_lobby().await;
        });
    }
}
