//! Several server nodes sharing live games over Redis (`xiangqi serve --redis redis://...`),
//! in the manner of lichess's lila-ws: the database keeps every game, Redis carries what is
//! live between the nodes, and one node at a time is a game's *owner*.
//!
//! # The design
//!
//! - **Ownership by lease.** The owner of game `G` holds the key `xq:lease:G` (its node id,
//!   random per process) with an expiry of [`LEASE_TTL`]. Every [`TICK`] the node renews the
//!   leases of all its unfinished games in one Lua script, which also refreshes the node's
//!   heartbeat (`xq:beat:NODE`, with the same expiry, and its time in the hash `xq:beats`)
//!   and the set of unfinished games `xq:games`. Only the owner holds the game's state in
//!   memory, applies its players' actions and runs its clock and timers. A node treats its
//!   lease as valid for [`LEASE_VALID`] after the start of the renewal that extended it
//!   (less than the expiry), so a node cut off from Redis stops acting before another can
//!   take the game.
//! - **A command at a non-owner is forwarded.** An action, a stream opening (`Join`), a
//!   `gameFull` request and a node's presence count are requests: published on the owner's
//!   channel `xq:node:OWNER`, answered on the asker's. A request nobody receives (the owner
//!   is gone) or not answered in [`REPLY_TIMEOUT`] is tried again until [`CALL_DEADLINE`];
//!   then the client gets `503`. A game without a lease is taken by whichever node needs it
//!   first (`SET NX`), which loads it from the database.
//! - **Events by pub/sub.** The owner publishes every line for a game's streams on
//!   `xq:events`; every node relays the lines of the games it has streams of to them. All
//!   nodes hear all games' lines (one channel, no per-game subscriptions to keep in step
//!   across reconnections); a node drops those it has no stream for.
//! - **Take-over.** Every node sweeps `xq:games` every [`SWEEP`] for games without a lease
//!   (their owner died) and takes them: it loads the game from the database, charges the side
//!   to move for the time from the last stored change up to the dead owner's last heartbeat
//!   (the clock ran while the owner lived; the time after, when nobody could move, is charged
//!   to nobody, so fairness is lost by at most the heartbeat interval), announces itself
//!   (`Owner`), and every node sends it its stream counts so it knows who is connected. The
//!   streams on the surviving nodes stay open and get a fresh `gameFull` line.
//! - **Durability.** The owner commits every change to the database before it publishes it or
//!   answers; a new owner reads the game from the database, so a confirmed move is never lost.
//!   A node's lease is only valid while its renewals succeed, so two owners never act at once
//!   (and the moves' primary key `(game, ply)` refuses a second write of a ply).
//! - **Redis restarts.** Commands go through a `ConnectionManager`, which reconnects; the
//!   pub/sub connection is reopened in a loop. While Redis is away, actions are answered
//!   `503` (no lease can be checked); afterwards the owners' next renewal sets their leases
//!   again (a lease found missing is taken again and the game reloaded from the database),
//!   and every node refreshes its streams with a `gameFull` line and resends its counts.
//! - **The lobby.** Seeks are kept in the hash `xq:seeks` (with the node whose client waits
//!   for the seat); a change is announced on `xq:events` and every node rereads the hash.
//!   Taking a seek is `HDEL` (one node wins); the taker's node creates the game and sends the
//!   creator's seat to the creator's node as a request. Seeks of a dead node are dropped by
//!   the sweep.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::AsyncCommands;
use serde::{Deserialize, Serialize};
use tokio::sync::{mpsc, oneshot};

use super::hub::{Action, Credential, Hub};

/// How long a lease (and a node's heartbeat) lives without renewal, ms.
pub const LEASE_TTL: u64 = 1_500;
/// How long after a renewal began a node takes its lease as still valid, ms.
pub const LEASE_VALID: u64 = 1_000;
/// How often a node renews its leases and heartbeat.
pub const TICK: Duration = Duration::from_millis(250);
/// How often a node looks for games without an owner.
pub const SWEEP: Duration = Duration::from_millis(500);
/// How long a forwarded request waits for its answer.
pub const REPLY_TIMEOUT: Duration = Duration::from_millis(1_500);
/// How long a request is tried (through an owner's death) before it is answered `503`.
pub const CALL_DEADLINE: Duration = Duration::from_secs(6);

/// The channel every node hears.
pub const EVENTS: &str = "xq:events";

pub fn lease_key(id: &str) -> String {
    format!("xq:lease:{id}")
}
pub fn owner_key(id: &str) -> String {
    format!("xq:owner:{id}")
}
pub fn beat_key(node: &str) -> String {
    format!("xq:beat:{node}")
}
pub fn node_channel(node: &str) -> String {
    format!("xq:node:{node}")
}
pub const GAMES: &str = "xq:games";
pub const BEATS: &str = "xq:beats";
pub const SEEKS: &str = "xq:seeks";

/// What goes over Redis between nodes.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "t")]
pub enum Wire {
    /// A request to the owner of `game` (or to a seek's node).
    Req {
        from: String,
        rid: u64,
        game: String,
        op: Op,
    },
    /// The answer to request `rid`.
    Rep {
        rid: u64,
        res: Result<Payload, Remote>,
    },
    /// A line for the streams of `game` (`to`: one seat's streams only).
    Line {
        from: String,
        game: String,
        to: Option<String>,
        line: String,
        /// A chat line, and its author's account (streams drop it for a viewer with chat off
        /// or who blocks that account).
        #[serde(default)]
        chat: bool,
        #[serde(default)]
        author: Option<i64>,
    },
    /// `from` took game `game` over: send it your stream counts.
    Owner { from: String, game: String },
    /// The seeks changed.
    Lobby,
    /// A line for account `user`'s event streams (`GET /api/stream/event`).
    User { user: i64, line: String },
}

/// A request.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum Op {
    Act {
        cred: Option<WireCred>,
        action: Action,
    },
    /// A stream opens: check the token, answer the first lines and the seat.
    Join { cred: Option<WireCred> },
    /// The `gameFull` line.
    Full,
    /// The asking node's streams of the game: Red's, Black's, spectators'.
    Presence { version: u64, counts: [u32; 3] },
    /// A chat line: written by the seat of `cred`, or by `account` (id, name) in the
    /// spectators' room.
    Chat {
        cred: Option<WireCred>,
        account: Option<(i64, String)>,
        room: super::hub::ChatRoom,
        text: String,
    },
    /// The chat lines `cred` may read (`None`: a spectator), as `chatLine` lines.
    ChatLines { cred: Option<WireCred> },
    /// The creator's seat of seek `game`, taken on another node.
    Seat {
        game: String,
        color: String,
        token: String,
    },
}

/// Who acts, as a request carries it: a seat's token, or an account's id (the asking node
/// checked the account's own token).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum WireCred {
    Seat(String),
    Account(i64),
}

impl WireCred {
    pub fn of(c: Credential<'_>) -> WireCred {
        match c {
            Credential::Seat(t) => WireCred::Seat(t.to_owned()),
            Credential::Account(id) => WireCred::Account(id),
        }
    }

    pub fn as_credential(&self) -> Credential<'_> {
        match self {
            WireCred::Seat(t) => Credential::Seat(t),
            WireCred::Account(id) => Credential::Account(*id),
        }
    }
}

/// What a request answers.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Payload {
    pub first: String,
    pub extra: Vec<String>,
    pub seat: Option<String>,
}

/// A refusal from another node: the HTTP status, the message, the field.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Remote {
    /// The HTTP status; 0: "I do not own this game" (the asker routes again).
    pub status: u16,
    pub msg: String,
    pub field: Option<String>,
    /// Seconds to wait before trying again (a limit reached: `429`).
    #[serde(default)]
    pub retry: Option<u64>,
}

/// Why a forwarded request did not get an answer.
#[derive(Debug)]
pub enum CallError {
    /// Try again: nobody received it, no answer in time, or not the owner.
    Retry(String),
    /// The owner answered with a refusal.
    Refused(Remote),
}

/// The renewal: extends this node's leases (1), takes back those found missing (2), or
/// reports them held by another node (0); refreshes the heartbeat and the set of games.
const RENEW: &str = r#"
local me, ttl, now = ARGV[1], tonumber(ARGV[2]), ARGV[3]
redis.call('SET', 'xq:beat:' .. me, now, 'PX', ttl)
redis.call('HSET', 'xq:beats', me, now)
local out = {}
for i, k in ipairs(KEYS) do
  local v = redis.call('GET', k)
  if v == me then
    redis.call('PEXPIRE', k, ttl)
    out[i] = 1
  elseif not v then
    redis.call('SET', k, me, 'PX', ttl)
    out[i] = 2
  else
    out[i] = 0
  end
  if out[i] > 0 then
    redis.call('SADD', 'xq:games', string.sub(k, 10))
  end
end
return out
"#;

/// A node's link to Redis.
pub struct Cluster {
    pub node: String,
    pub url: String,
    client: redis::Client,
    conn: ConnectionManager,
    out: mpsc::UnboundedSender<(String, String)>,
    pending: Mutex<HashMap<u64, oneshot::Sender<Result<Payload, Remote>>>>,
    next: AtomicU64,
    renew: redis::Script,
    /// Set when the pub/sub connection is up (reopened: the hub refreshes its streams).
    epoch: Instant,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Wall-clock ms since the Unix epoch.
pub fn wall_ms() -> i64 {
    crate::games::now()
}

impl Cluster {
    /// Connects to Redis at `url`; fails with a message naming it.
    pub async fn connect(url: &str) -> Result<Arc<Cluster>, String> {
        let bad = |e: redis::RedisError| format!("--redis {url}: {e}");
        let client = redis::Client::open(url).map_err(bad)?;
        let cfg = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(Duration::from_secs(1)))
            .set_response_timeout(Some(Duration::from_secs(1)))
            .set_number_of_retries(1)
            .set_max_delay(Duration::from_millis(500));
        let conn = tokio::time::timeout(
            Duration::from_secs(5),
            client.get_connection_manager_with_config(cfg),
        )
        .await
        .map_err(|_| format!("--redis {url}: no answer in 5 s"))?
        .map_err(bad)?;
        let node = super::token::game_id().map_err(|e| e.to_string())?;
        let (out, rx) = mpsc::unbounded_channel();
        let c = Arc::new(Cluster {
            node,
            url: url.to_owned(),
            client,
            conn,
            out,
            pending: Mutex::new(HashMap::new()),
            next: AtomicU64::new(1),
            renew: redis::Script::new(RENEW),
            epoch: Instant::now(),
        });
        tokio::spawn(publisher(c.conn.clone(), rx));
        Ok(c)
    }

    /// A connection for commands (it reconnects by itself).
    pub fn conn(&self) -> ConnectionManager {
        self.conn.clone()
    }

    /// Queues `w` for `channel`, in order with everything this node publishes.
    pub fn publish(&self, channel: String, w: &Wire) {
        if let Ok(s) = serde_json::to_string(w) {
            let _ = self.out.send((channel, s));
        }
    }

    /// Sends request `op` for `game` to `node` and waits for its answer.
    pub async fn request(&self, node: &str, game: &str, op: Op) -> Result<Payload, CallError> {
        let rid = self.next.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        lock(&self.pending).insert(rid, tx);
        let w = Wire::Req {
            from: self.node.clone(),
            rid,
            game: game.to_owned(),
            op,
        };
        let forget = || {
            lock(&self.pending).remove(&rid);
        };
        let body = serde_json::to_string(&w).map_err(|e| CallError::Retry(e.to_string()))?;
        let mut conn = self.conn.clone();
        let heard: redis::RedisResult<i64> = conn.publish(node_channel(node), body).await;
        match heard {
            Ok(0) => {
                forget();
                return Err(CallError::Retry(format!("node {node} does not listen")));
            }
            Ok(_) => {}
            Err(e) => {
                forget();
                return Err(CallError::Retry(format!("redis: {e}")));
            }
        }
        match tokio::time::timeout(REPLY_TIMEOUT, rx).await {
            Ok(Ok(Ok(p))) => Ok(p),
            Ok(Ok(Err(r))) if r.status == 0 => Err(CallError::Retry(r.msg)),
            Ok(Ok(Err(r))) => Err(CallError::Refused(r)),
            _ => {
                forget();
                Err(CallError::Retry(format!("node {node} did not answer")))
            }
        }
    }

    /// Answers request `rid` of node `to`.
    pub fn reply(&self, to: &str, rid: u64, res: Result<Payload, Remote>) {
        self.publish(node_channel(to), &Wire::Rep { rid, res });
    }

    fn answered(&self, rid: u64, res: Result<Payload, Remote>) {
        if let Some(tx) = lock(&self.pending).remove(&rid) {
            let _ = tx.send(res);
        }
    }

    /// Renews the leases of `games`: per game 1 (extended), 2 (taken again), 0 (lost).
    pub async fn renew(&self, games: &[String]) -> redis::RedisResult<Vec<i64>> {
        let mut inv = self.renew.prepare_invoke();
        for g in games {
            inv.key(lease_key(g));
        }
        inv.arg(&self.node).arg(LEASE_TTL).arg(wall_ms());
        let mut conn = self.conn.clone();
        inv.invoke_async(&mut conn).await
    }

    /// Starts the pub/sub loop, which hands what it hears to `hub`.
    pub fn listen(self: &Arc<Self>, hub: Weak<Hub>) {
        let c = self.clone();
        tokio::spawn(async move {
            let mut first = true;
            let mut said = false;
            loop {
                match c.client.get_async_pubsub().await {
                    Ok(mut ps) => {
                        let ok = ps.subscribe(node_channel(&c.node)).await.is_ok()
                            && ps.subscribe(EVENTS).await.is_ok();
                        if ok {
                            if !first {
                                eprintln!("xiangqi serve: redis: listening again");
                            }
                            said = false;
                            let Some(h) = hub.upgrade() else { return };
                            if !first {
                                h.clone().on_reconnect();
                            }
                            first = false;
                            drop(h);
                            let mut s = ps.into_on_message();
                            while let Some(m) = s.next().await {
                                let Ok(body) = m.get_payload::<String>() else {
                                    continue;
                                };
                                let Ok(w) = serde_json::from_str::<Wire>(&body) else {
                                    continue;
                                };
                                let Some(h) = hub.upgrade() else { return };
                                match w {
                                    Wire::Rep { rid, res } => c.answered(rid, res),
                                    w => h.on_wire(w),
                                }
                            }
                            eprintln!("xiangqi serve: redis: the pub/sub connection closed");
                        }
                    }
                    Err(e) => {
                        if !said {
                            eprintln!("xiangqi serve: redis: cannot listen: {e}");
                            said = true;
                        }
                    }
                }
                if hub.strong_count() == 0 {
                    return;
                }
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        });
    }

    /// ms since this node's link was made.
    pub fn uptime(&self) -> u64 {
        self.epoch.elapsed().as_millis() as u64
    }
}

/// Sends what the node publishes, in order, many at a time in one pipeline.
async fn publisher(mut conn: ConnectionManager, mut rx: mpsc::UnboundedReceiver<(String, String)>) {
    let mut said = false;
    while let Some(first) = rx.recv().await {
        let mut p = redis::pipe();
        p.publish(first.0, first.1).ignore();
        let mut n = 1;
        while n < 512 {
            match rx.try_recv() {
                Ok((ch, s)) => {
                    p.publish(ch, s).ignore();
                    n += 1;
                }
                Err(_) => break,
            }
        }
        match p.query_async::<()>(&mut conn).await {
            Ok(()) => said = false,
            Err(e) => {
                if !said {
                    eprintln!("xiangqi serve: redis: {n} lines not published: {e}");
                    said = true;
                }
            }
        }
    }
}
