//! The hub: the live games in memory, each a *room* with its state behind a lock and a
//! broadcast channel to its streams; the lobby's seeks; the timers that end games on time.
//!
//! Every change to a room goes the same way: lock the room, apply the operation to a copy of
//! the live game, commit the change to the store, then keep the copy and tell every stream.
//! So a move is durable before anyone sees it confirmed, and a failed write changes nothing.
//!
//! With several nodes (`cluster`, `--redis`) a game's room is held by its owner only; the
//! other nodes keep just the game's *channel* (the broadcast to their streams and how many
//! streams they have) and forward what their clients ask to the owner. Every operation is
//! an [`Op`] that runs on the owner (`local_op`), here or on another node; without Redis
//! the hub is its own owner of every game.
//!
//! The files, one job each: `codec` (a live game to and from its stored row), `ownership`
//! (restores, heartbeats, leases, take-overs, sweeps), `remote` (operations run on or
//! forwarded to the owner), `actions` (new games, moves, offers, and their commits),
//! `timers` (deadlines), `presence` (streams counted on every node, grace periods),
//! `fanout` (what the streams are told), `seeks` (the lobby), `ended` (games that end, for the
//! explorer), `error` (refusals).

mod actions;
mod bots;
mod chat;
mod codec;
mod ended;
mod error;
mod fanout;
mod ownership;
mod playing;
mod presence;
mod remote;
mod seeks;
mod timers;

pub use bots::{
    Challenge, ChallengeJson, DeclineReason, GameEventJson, Party, UserEvent, BOT_CHALLENGES,
    BOT_MOVES, PAUSE_MS, TIMEOUTS_TO_PAUSE,
};
pub use chat::{clean_chat, ChatRoom, CHAT_BURST, CHAT_WINDOW_MS, MAX_CHAT};
pub use ended::Ended;
pub use error::OnlineError;
pub use playing::{NowPlaying, Opponent};
pub use presence::{Guard, Subscription};
pub use seeks::SeekGuard;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};
use tokio::sync::{broadcast, oneshot};
use xiangqi::Color;

use super::clock::TimeControl;
use super::cluster::{self, Cluster, LEASE_VALID};
use super::corr::{Days, DAY_MS};
use super::live::{LiveGame, Status};
use super::lobby::Lobby;
use super::token::Token;
use crate::store::accounts::SeatsRow;
use crate::store::Store;
use ownership::Route;

/// The hex SHA-256 of a seat token: what the store keeps, compared in constant time.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeatKey(String);

impl SeatKey {
    pub fn of(token: &str) -> SeatKey {
        let d = Sha256::digest(token.as_bytes());
        SeatKey(d.iter().map(|b| format!("{b:02x}")).collect())
    }

    /// Whether `candidate` is the token this key was made from.
    pub fn admits(&self, candidate: &str) -> bool {
        let c = SeatKey::of(candidate);
        let (a, b) = (self.0.as_bytes(), c.0.as_bytes());
        a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
    }
}

/// What a seat asks of its game.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Action {
    Move(String),
    Resign,
    Abort,
    Draw(bool),
    Takeback(bool),
    ClaimVictory,
    ClaimDraw,
    Rematch(bool),
}

/// A new live game.
#[derive(Clone, Debug)]
pub struct NewLive {
    pub tc: Option<TimeControl>,
    /// Correspondence: days per move (then `tc` is not used).
    pub days: Option<Days>,
    pub fen: Option<String>,
    /// Red's and Black's names.
    pub names: [String; 2],
    /// The accounts that hold the seats, if any.
    pub seats: Option<NewSeats>,
}

/// The accounts of a new game's seats (Red's, Black's), and whether it is rated (only
/// between two accounts).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NewSeats {
    pub users: [Option<i64>; 2],
    pub rated: bool,
}

/// Who acts for a seat: the seat's own token, or an account (its session or personal API
/// token) that holds the seat.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Credential<'a> {
    Seat(&'a str),
    Account(i64),
}

/// An account opening a seek.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Seeker {
    pub id: i64,
    pub name: String,
}

/// A created game: its id and the two seat tokens (shown once, to the creator).
#[derive(Debug)]
pub struct Created {
    pub id: String,
    pub tokens: [Token; 2],
}

/// A seat handed to one player (a seek's creator or taker).
#[derive(Debug)]
pub struct SeatGrant {
    pub id: String,
    pub color: Color,
    pub token: Token,
}

/// Which streams of a room a line is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum To {
    All,
    /// One seat's streams.
    Seat(Color),
    /// Both seats' streams (the players' chat room).
    Players,
    /// The spectators' streams only (their chat room while the game goes on).
    Spectators,
}

impl To {
    /// Whether a stream of `seat` (`None`: a spectator's) gets the line.
    pub fn admits(self, seat: Option<Color>) -> bool {
        match self {
            To::All => true,
            To::Seat(c) => seat == Some(c),
            To::Players => seat.is_some(),
            To::Spectators => seat.is_none(),
        }
    }

    /// As a line between nodes carries it (`None`: everyone).
    pub fn name(self) -> Option<&'static str> {
        match self {
            To::All => None,
            To::Seat(c) => Some(c.name()),
            To::Players => Some("players"),
            To::Spectators => Some("spectators"),
        }
    }

    /// The audience a line between nodes names; `None`: a word this node does not know.
    pub fn parse(s: Option<&str>) -> Option<To> {
        match s {
            None => Some(To::All),
            Some("players") => Some(To::Players),
            Some("spectators") => Some(To::Spectators),
            Some(c) => color_of(c).map(To::Seat),
        }
    }
}

impl From<Option<Color>> for To {
    fn from(c: Option<Color>) -> To {
        c.map_or(To::All, To::Seat)
    }
}

/// One line for the streams of a room, and whom it is for.
#[derive(Clone, Debug)]
pub struct Msg {
    pub to: To,
    pub line: Arc<str>,
    /// A chat line (a stream of an account with chat off drops it), and its author's
    /// account (a stream of an account that blocks it drops it).
    pub chat: bool,
    pub author: Option<i64>,
}

impl Msg {
    /// A line that is not chat.
    pub fn plain(to: To, line: Arc<str>) -> Msg {
        Msg {
            to,
            line,
            chat: false,
            author: None,
        }
    }
}

/// How long Redis remembers a game's last owner (s): what a take-over charges is found
/// through it; a game taken over later than this after its last take-over or start charges
/// nothing for the time before.
const OWNER_TTL: u64 = 86_400;

/// A sweep every this many renewals.
const SWEEP_EVERY: u64 = {
    let n = cluster::SWEEP.as_millis() / cluster::TICK.as_millis();
    if n == 0 {
        1
    } else {
        n as u64
    }
};

/// How often a single node stores its heartbeat (the cluster's nodes beat in Redis).
const BEAT: Duration = Duration::from_millis(500);

/// The most live games in memory, and seeks in the lobby, at once.
pub const MAX_ROOMS: usize = 100_000;

/// How long a timer waits before storing a game's end again after the store failed.
const STORE_RETRY_MS: u64 = 1000;

/// How often a stream sends a keep-alive blank line.
pub const KEEP_ALIVE: Duration = Duration::from_secs(5);

/// The longest name a player may give.
pub const MAX_NAME: usize = 40;

fn wall_ms() -> i64 {
    crate::games::now()
}

/// The length of a correspondence day: `XIANGQI_DAY_MS` (a test-only knob: whole ms, more
/// than 0), else a real day.
fn day_ms_setting() -> u64 {
    match std::env::var("XIANGQI_DAY_MS") {
        Err(_) => DAY_MS,
        Ok(v) => match v.trim().parse::<u64>() {
            Ok(ms) if ms > 0 => ms,
            _ => {
                eprintln!(
                    "xiangqi serve: XIANGQI_DAY_MS must be a whole number of ms above 0, not \
                     '{v}': correspondence days are real days"
                );
                DAY_MS
            }
        },
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// A player's name as given, trimmed and shortened; a default when empty.
pub fn clean_name(name: Option<&str>, default: &str) -> String {
    let n: String = name
        .unwrap_or("")
        .trim()
        .chars()
        .filter(|c| !c.is_control())
        .take(MAX_NAME)
        .collect();
    if n.is_empty() {
        default.to_owned()
    } else {
        n
    }
}

/// A game's streams on this node: the broadcast they read and how many there are (Red's,
/// Black's, spectators'). Every node that has streams of a game has its channel; only the
/// owner has its room.
pub struct Channel {
    tx: broadcast::Sender<Msg>,
    local: Mutex<[u32; 3]>,
    version: AtomicU64,
}

pub struct Room {
    pub id: String,
    state: tokio::sync::Mutex<RoomState>,
    chan: Arc<Channel>,
    cluster: Option<Arc<Cluster>>,
    /// Until when (hub ms) this node may act for the game without asking Redis.
    valid_until: AtomicU64,
    over: AtomicBool,
    /// Taken out of Redis's set of unfinished games (once it ended).
    released: AtomicBool,
}

struct RoomState {
    live: LiveGame,
    keys: [SeatKey; 2],
    created: i64,
    rematch: Option<String>,
    timer: Option<tokio::task::AbortHandle>,
    /// The accounts of the seats (`None`: two guests).
    seats: Option<SeatsRow>,
    /// Each node's streams of the game (version of its count, count), this node's too.
    presence: HashMap<String, (u64, [u32; 3])>,
    /// The chat's last lines (read from the store when first needed).
    chat: Option<std::collections::VecDeque<crate::store::chat::ChatRow>>,
    /// When each writer (by `chat::writer_key`) wrote its recent lines (hub ms).
    chat_times: HashMap<String, std::collections::VecDeque<u64>>,
    /// How the game was made, as lichess's `source`: `friend` (a challenge) or `lobby`.
    source: &'static str,
}

impl RoomState {
    fn totals(&self) -> [u32; 3] {
        let mut t = [0; 3];
        for (_, c) in self.presence.values() {
            for k in 0..3 {
                t[k] += c[k];
            }
        }
        t
    }
}

pub struct Hub {
    store: Store,
    epoch: Instant,
    /// The wall time (ms since 1970) of `epoch`: correspondence deadlines are wall time.
    epoch_wall: i64,
    /// The length of a correspondence day in ms (`XIANGQI_DAY_MS`; a real day but in tests).
    day_ms: AtomicU64,
    rooms: Mutex<HashMap<String, Arc<Room>>>,
    channels: Mutex<HashMap<String, Arc<Channel>>>,
    lobby: Mutex<Lobby>,
    lobby_tx: broadcast::Sender<Arc<str>>,
    /// Seeks waiting to be taken: where to send the creator's seat.
    waiting: Mutex<HashMap<String, oneshot::Sender<SeatGrant>>>,
    cluster: Option<Arc<Cluster>>,
    /// This node's id (Redis's name for it; "local" alone).
    node: String,
    /// One take-over of a game at a time on this node.
    taking: Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>,
    /// The lobby's line as Redis has it (several nodes).
    shared_lobby: Mutex<Arc<str>>,
    /// When a Redis failure was last logged (hub ms), to log one a second at most.
    said: AtomicU64,
    /// Nodes without a heartbeat at the last sweep.
    suspects: Mutex<Vec<String>>,
    /// A single node: its previous run's last heartbeat in the store (wall ms), read when it
    /// started again; what a game restored from the store charges its side to move up to.
    last_run: Mutex<Option<i64>>,
    /// Where the games this node ends are told (`ended_games`).
    ended: Mutex<Option<tokio::sync::mpsc::UnboundedSender<Ended>>>,
    /// The accounts' event streams on this node: (account, line).
    users_tx: broadcast::Sender<(i64, Arc<str>)>,
    /// The challenges waiting for an answer (one node; Redis keeps them with several).
    challenges: Mutex<HashMap<String, Challenge>>,
    /// The bots' limits and pauses.
    bots: Mutex<bots::Bots>,
    bot_limits: AtomicBool,
}

fn color_of(s: &str) -> Option<Color> {
    match s {
        "red" => Some(Color::Red),
        "black" => Some(Color::Black),
        _ => None,
    }
}

fn slot(seat: Option<Color>) -> usize {
    seat.map_or(2, Color::index)
}

impl Hub {
    fn build(store: Store, cluster: Option<Arc<Cluster>>) -> Hub {
        let node = cluster
            .as_ref()
            .map_or_else(|| "local".to_owned(), |c| c.node.clone());
        Hub {
            store,
            epoch: Instant::now(),
            epoch_wall: wall_ms(),
            day_ms: AtomicU64::new(day_ms_setting()),
            rooms: Mutex::new(HashMap::new()),
            channels: Mutex::new(HashMap::new()),
            lobby: Mutex::new(Lobby::default()),
            lobby_tx: broadcast::channel(64).0,
            waiting: Mutex::new(HashMap::new()),
            cluster,
            node,
            taking: Mutex::new(HashMap::new()),
            shared_lobby: Mutex::new(crate::online::lobby::SeeksLine::line(&[]).into()),
            said: AtomicU64::new(0),
            suspects: Mutex::new(Vec::new()),
            last_run: Mutex::new(None),
            ended: Mutex::new(None),
            users_tx: broadcast::channel(4096).0,
            challenges: Mutex::new(HashMap::new()),
            bots: Mutex::new(bots::Bots::default()),
            bot_limits: AtomicBool::new(true),
        }
    }

    /// The hub of a single node.
    pub fn new(store: Store) -> Arc<Hub> {
        Arc::new(Hub::build(store, None))
    }

    /// A hub that shares its live games with other nodes through `cluster` (in a runtime: it
    /// starts the pub/sub listener and the renewals).
    pub fn clustered(store: Store, cluster: Arc<Cluster>) -> Arc<Hub> {
        let hub = Arc::new(Hub::build(store, Some(cluster.clone())));
        cluster.listen(Arc::downgrade(&hub));
        let weak = Arc::downgrade(&hub);
        tokio::spawn(async move {
            let mut n = 0u64;
            let mut next = tokio::time::Instant::now();
            loop {
                next += cluster::TICK;
                tokio::time::sleep_until(next).await;
                let Some(h) = weak.upgrade() else { return };
                h.renew_tick().await;
                n += 1;
                if n.is_multiple_of(SWEEP_EVERY) {
                    h.sweep().await;
                }
            }
        });
        let h = hub.clone();
        tokio::spawn(async move { h.refresh_lobby().await });
        hub
    }

    /// This node's id.
    pub fn node(&self) -> &str {
        &self.node
    }

    /// The length of a correspondence day (ms).
    pub fn day_ms(&self) -> u64 {
        self.day_ms.load(Ordering::Relaxed)
    }

    /// Sets the length of a correspondence day for games made or restored from now on: a
    /// test-only knob (as `XIANGQI_DAY_MS`), so a test sees a game end on time in seconds.
    pub fn set_day_ms(&self, ms: u64) {
        self.day_ms.store(ms.max(1), Ordering::Relaxed);
    }

    /// The wall time (ms since 1970) of the hub's monotonic 0.
    pub(super) fn epoch_wall(&self) -> i64 {
        self.epoch_wall
    }

    /// The hub's monotonic time in ms.
    pub fn now(&self) -> u64 {
        self.epoch.elapsed().as_millis() as u64
    }

    fn log_redis(&self, what: &str, e: &dyn std::fmt::Display) {
        self.log_limited(&format!("redis: {what}"), e);
    }

    /// Logs a failure of a background task, one a second at most.
    fn log_limited(&self, what: &str, e: &dyn std::fmt::Display) {
        let now = self.now() + 1_000;
        let last = self.said.load(Ordering::Relaxed);
        if now >= last + 1_000 {
            self.said.store(now, Ordering::Relaxed);
            eprintln!("xiangqi serve: {what}: {e}");
        }
    }

    fn channel(&self, id: &str) -> Arc<Channel> {
        lock(&self.channels)
            .entry(id.to_owned())
            .or_insert_with(|| {
                Arc::new(Channel {
                    tx: broadcast::channel(256).0,
                    local: Mutex::new([0; 3]),
                    version: AtomicU64::new(0),
                })
            })
            .clone()
    }

    /// Forgets the channel of `id` when nothing uses it (a stream that could not open).
    fn drop_idle_channel(&self, id: &str) {
        let mut m = lock(&self.channels);
        if let Some(c) = m.get(id) {
            if c.tx.receiver_count() == 0 && *lock(&c.local) == [0; 3] {
                m.remove(id);
            }
        }
    }

    fn new_room(&self, id: String, st: RoomState) -> Arc<Room> {
        let over = st.live.is_over();
        Arc::new(Room {
            chan: self.channel(&id),
            id,
            state: tokio::sync::Mutex::new(st),
            cluster: self.cluster.clone(),
            valid_until: AtomicU64::new(if self.cluster.is_some() {
                self.now() + LEASE_VALID
            } else {
                u64::MAX
            }),
            over: AtomicBool::new(over),
            released: AtomicBool::new(false),
        })
    }

    /// What a room looks like now, for tests and the API: status and whether it ended.
    pub async fn status(self: &Arc<Self>, id: &str) -> Result<Status, OnlineError> {
        match self.route(id).await? {
            Route::Local(room) => Ok(room.state.lock().await.live.status()),
            Route::Remote(n) => Err(OnlineError::Unavailable(format!(
                "game {id} is on node {n}"
            ))),
        }
    }

    /// When the room was created (ms since the epoch).
    pub async fn created(self: &Arc<Self>, id: &str) -> Result<i64, OnlineError> {
        match self.route(id).await? {
            Route::Local(room) => Ok(room.state.lock().await.created),
            Route::Remote(n) => Err(OnlineError::Unavailable(format!(
                "game {id} is on node {n}"
            ))),
        }
    }
}
