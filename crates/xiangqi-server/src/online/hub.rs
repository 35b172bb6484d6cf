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

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use redis::AsyncCommands;
use sha2::{Digest, Sha256};
use tokio::sync::{broadcast, oneshot};
use xiangqi::{Color, Game, Position, Rules};

use super::clock::{Snapshot, TimeControl};
use super::cluster::{
    self, beat_key, lease_key, owner_key, CallError, Cluster, Op, Payload, Remote, Wire, WireCred,
    BEATS, CALL_DEADLINE, EVENTS, GAMES, LEASE_TTL, LEASE_VALID, SEEKS,
};
use super::events::{self, Event};
use super::live::{End, LiveGame, Refusal, Status};
use super::lobby::{Lobby, Seek, SideWish, MAX_SEEKS};
use super::token::{self, RandomError, Token};
use crate::accounts::rating::Speed;
use crate::store::accounts::{AccountWrite, SeatsRow};
use crate::store::live::{LiveChange, LiveRow, LiveWrite};
use crate::store::{Store, StoreError, Write};

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

/// Why the hub refuses a request; the API maps each to its HTTP status.
#[derive(Debug)]
pub enum OnlineError {
    /// No such live game (404).
    NotFound,
    /// A seat's action without a token (401).
    NoToken,
    /// A token that is not a seat's of this game (403).
    WrongToken,
    /// The game refuses the operation (409 or 422).
    Refused(Refusal),
    /// A malformed request (400), naming the field.
    Bad {
        field: &'static str,
        msg: String,
    },
    /// Too many seeks or games open (503).
    Full(&'static str),
    /// A rated seek taken without an account (401).
    NeedsAccount,
    /// An account taking its own seek (409).
    OwnSeek,
    Store(StoreError),
    Random(RandomError),
    /// Refused by the game's owner on another node (its HTTP status and message).
    Remote(Remote),
    /// The game's node or Redis cannot be reached now (503).
    Unavailable(String),
}

impl std::fmt::Display for OnlineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OnlineError::NotFound => f.write_str("no such live game"),
            OnlineError::NoToken => {
                f.write_str("this needs a seat's token (Authorization: Bearer TOKEN)")
            }
            OnlineError::WrongToken => f.write_str("this token holds no seat in this game"),
            OnlineError::Refused(r) => r.fmt(f),
            OnlineError::Bad { msg, .. } => f.write_str(msg),
            OnlineError::Full(what) => write!(f, "too many {what} open; try again later"),
            OnlineError::NeedsAccount => f.write_str(
                "a rated seek can be taken only by an account: log in (or send a personal API token)",
            ),
            OnlineError::OwnSeek => f.write_str("this is your own seek"),
            OnlineError::Store(e) => e.fmt(f),
            OnlineError::Random(e) => e.fmt(f),
            OnlineError::Remote(r) => f.write_str(&r.msg),
            OnlineError::Unavailable(m) => f.write_str(m),
        }
    }
}

impl From<StoreError> for OnlineError {
    fn from(e: StoreError) -> OnlineError {
        OnlineError::Store(e)
    }
}
impl From<RandomError> for OnlineError {
    fn from(e: RandomError) -> OnlineError {
        OnlineError::Random(e)
    }
}
impl From<Refusal> for OnlineError {
    fn from(r: Refusal) -> OnlineError {
        OnlineError::Refused(r)
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

/// One line for the streams of a room: to everyone, or to one seat's streams only.
#[derive(Clone, Debug)]
pub struct Msg {
    pub to: Option<Color>,
    pub line: Arc<str>,
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

fn declared_of(live: &LiveGame) -> String {
    use xiangqi::game::Detail;
    match live.end() {
        None => String::new(),
        Some(End::Aborted) => "aborted".into(),
        Some(End::Claimed { winner: Some(w) }) => format!("claim-{}", w.name()),
        Some(End::Claimed { winner: None }) => "claim-draw".into(),
        Some(End::Ruled(r)) => match r.detail {
            Detail::Resignation { loser } => format!("resign-{}", loser.name()),
            Detail::Agreement => "draw".into(),
            // Replayed by `Game::flag`, which also finds whether it is a draw.
            Detail::Time { loser } => format!("flag-{}", loser.name()),
            Detail::TimeNoMate { flagged } => format!("flag-{}", flagged.name()),
            // The moves themselves end the game: nothing to keep beyond them.
            _ => String::new(),
        },
    }
}

fn change_of(live: &LiveGame, now: u64) -> LiveChange {
    LiveChange {
        updated: wall_ms(),
        times: live.clock.as_ref().map(|c| {
            let s = c.snapshot(now);
            [s.remaining[0], s.remaining[1], s.quota[0], s.quota[1]]
        }),
        declared: declared_of(live),
        status: live.status().as_str().to_owned(),
        winner: live.winner().map_or("", Color::name).to_owned(),
    }
}

/// What a game restored from the store charges its side to move (ms): the time from its
/// last stored change to `beat`, the last moment the node that ran its clock was known alive
/// (a restarted single node's own last heartbeat, or a dead owner's on a take-over); the time
/// after that, while no node ran the clock, is charged to nobody.
fn charge(beat: Option<i64>, row: &LiveRow) -> u64 {
    match beat {
        Some(b) if b > row.updated => (b - row.updated) as u64,
        _ => 0,
    }
}

/// Rebuilds a live game from its stored row and moves.
///
/// `charge` ms are taken from the side to move's stored time when its clock was running (a
/// game taken over from a dead node: the time it thought while that node lived).
fn restore(row: &LiveRow, moves: &[String], now: u64, charge: u64) -> Result<LiveGame, StoreError> {
    let corrupt = |what: String| StoreError::Corrupt(format!("live game {}: {what}", row.id));
    let start = Position::from_fen(&row.start_fen).map_err(|e| corrupt(e.to_string()))?;
    let mut game =
        Game::replay(start, Rules::default(), moves).map_err(|e| corrupt(e.to_string()))?;
    let side = |s: &str| match s {
        "red" => Ok(Color::Red),
        "black" => Ok(Color::Black),
        _ => Err(corrupt(format!("declared end '{}'", row.declared))),
    };
    let mut end = None;
    match row
        .declared
        .split_once('-')
        .unwrap_or((row.declared.as_str(), ""))
    {
        ("", _) => {}
        ("aborted", _) => end = Some(End::Aborted),
        ("claim", "draw") => end = Some(End::Claimed { winner: None }),
        ("claim", w) => {
            end = Some(End::Claimed {
                winner: Some(side(w)?),
            })
        }
        ("resign", w) => game.resign(side(w)?),
        ("draw", _) => game.agree_draw(),
        ("flag", w) => game.flag(side(w)?),
        _ => return Err(corrupt(format!("declared end '{}'", row.declared))),
    }
    let tc = row
        .clock
        .map(|(initial, increment)| TimeControl { initial, increment });
    let running = end.is_none() && game.outcome().is_none() && moves.len() >= 2;
    let turn = game.position().turn().index();
    let snapshot = row.times.map(|t| {
        let mut remaining = [t[0], t[1]];
        if running {
            remaining[turn] = remaining[turn].saturating_sub(charge);
        }
        Snapshot {
            remaining,
            quota: [t[2], t[3]],
        }
    });
    Ok(LiveGame::restore(
        game,
        tc,
        snapshot,
        row.names.clone(),
        end,
        now,
    ))
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

/// Where an operation on a game runs.
enum Route {
    Local(Arc<Room>),
    Remote(String),
}

/// The seek as Redis keeps it (with the node whose client waits for its seat).
#[derive(serde::Serialize, serde::Deserialize)]
struct SharedSeek {
    id: String,
    name: String,
    tc: Option<(u64, u64)>,
    color: SideWish,
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
    node: String,
    at: i64,
}

impl SharedSeek {
    fn seek(&self) -> Seek {
        let tc = self
            .tc
            .map(|(initial, increment)| TimeControl { initial, increment });
        let mut s = Seek::new(self.id.clone(), self.name.clone(), tc, self.color);
        s.rated = self.rated;
        s.user = self.user.clone();
        s.rating = self.rating;
        s.provisional = self.provisional;
        s.user_id = self.user_id;
        s
    }
}

pub struct Hub {
    store: Store,
    epoch: Instant,
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
}

fn unavailable(e: redis::RedisError) -> OnlineError {
    OnlineError::Unavailable(format!(
        "the live games' Redis cannot be reached ({e}); try again"
    ))
}

/// A refusal as another node is told it.
fn remote_of(e: OnlineError) -> Remote {
    let (status, field) = match &e {
        OnlineError::NotFound => (404, None),
        OnlineError::NoToken | OnlineError::NeedsAccount => (401, None),
        OnlineError::OwnSeek => (409, None),
        OnlineError::WrongToken => (403, None),
        OnlineError::Refused(r) => (r.status_code(), None),
        OnlineError::Bad { field, .. } => (400, Some(field.to_string())),
        OnlineError::Full(_) | OnlineError::Unavailable(_) => (503, None),
        OnlineError::Store(_) | OnlineError::Random(_) => (500, None),
        OnlineError::Remote(r) => (r.status, r.field.clone()),
    };
    Remote {
        status,
        msg: e.to_string(),
        field,
    }
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
        let empty = serde_json::json!({ "type": "seeks", "seeks": [] });
        Hub {
            store,
            epoch: Instant::now(),
            rooms: Mutex::new(HashMap::new()),
            channels: Mutex::new(HashMap::new()),
            lobby: Mutex::new(Lobby::default()),
            lobby_tx: broadcast::channel(64).0,
            waiting: Mutex::new(HashMap::new()),
            cluster,
            node,
            taking: Mutex::new(HashMap::new()),
            shared_lobby: Mutex::new(format!("{empty}\n").into()),
            said: AtomicU64::new(0),
            suspects: Mutex::new(Vec::new()),
            last_run: Mutex::new(None),
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

    /// Stores that this single node is alive now (its heartbeat; a failure is logged).
    async fn beat(&self) {
        let w = Write::Beat {
            node: self.node.clone(),
            at: wall_ms(),
        };
        if let Err(e) = self.store.write(w).await {
            self.log_limited("storing the heartbeat", &e);
        }
    }

    /// A single node's heartbeat in the store, every [`BEAT`], while the hub lives.
    fn start_beats(self: &Arc<Self>) {
        let weak = Arc::downgrade(self);
        tokio::spawn(async move {
            let mut next = tokio::time::Instant::now();
            loop {
                next += BEAT;
                tokio::time::sleep_until(next).await;
                let Some(h) = weak.upgrade() else { return };
                h.beat().await;
            }
        });
    }

    /// Brings back every unfinished live game after a restart. The side to move is charged
    /// for its turn up to this node's last heartbeat before it stopped (within [`BEAT`] of
    /// the stop), as on a take-over from a dead node; then the clocks run from now. Starts
    /// the heartbeat. Returns how many. With several nodes, only those no other node owns.
    pub async fn resume_all(self: &Arc<Self>) -> Result<usize, StoreError> {
        let rows = self.store.unfinished_live().await?;
        let mut n = 0;
        if self.cluster.is_some() {
            // Taken side by side: a take-over may wait for a previous owner.
            let tasks: Vec<_> = rows
                .into_iter()
                .map(|(row, _)| {
                    let h = self.clone();
                    tokio::spawn(async move { (h.take(&row.id).await, row.id) })
                })
                .collect();
            for t in tasks {
                match t.await {
                    Ok((Ok(Ok(_)), _)) => n += 1,
                    Ok((Ok(Err(_)), _)) => {}
                    Ok((Err(OnlineError::Store(e)), _)) => return Err(e),
                    Ok((Err(e), id)) => eprintln!("xiangqi serve: live game {id}: {e}"),
                    Err(e) => eprintln!("xiangqi serve: resuming a live game: {e}"),
                }
            }
            return Ok(n);
        }
        // Until its last beat before it stopped, the node ran the clocks: that much of each
        // turn is charged (as on a take-over, `charge`); the time it was down is nobody's.
        let last = self.store.last_beat(&self.node).await?;
        *lock(&self.last_run) = last;
        self.beat().await;
        self.start_beats();
        for (row, moves) in rows {
            let seats = self.store.live_seats(&row.id).await?;
            let room = self.room_of(&row, &moves, seats, charge(last, &row))?;
            let mut st = room.state.lock().await;
            self.schedule(&room, &mut st, 0);
            n += 1;
        }
        Ok(n)
    }

    fn room_of(
        &self,
        row: &LiveRow,
        moves: &[String],
        seats: Option<SeatsRow>,
        charge: u64,
    ) -> Result<Arc<Room>, StoreError> {
        let live = restore(row, moves, self.now(), charge)?;
        let st = RoomState {
            live,
            keys: [SeatKey(row.keys[0].clone()), SeatKey(row.keys[1].clone())],
            created: row.created,
            rematch: (!row.rematch.is_empty()).then(|| row.rematch.clone()),
            timer: None,
            seats,
            presence: HashMap::new(),
        };
        let room = self.new_room(row.id.clone(), st);
        lock(&self.rooms).insert(row.id.clone(), room.clone());
        Ok(room)
    }

    /// The room of game `id` on a single node, from memory or the store.
    async fn room_single(self: &Arc<Self>, id: &str) -> Result<Arc<Room>, OnlineError> {
        if let Some(r) = lock(&self.rooms).get(id) {
            return Ok(r.clone());
        }
        let (row, moves) = self
            .store
            .load_live(id)
            .await?
            .ok_or(OnlineError::NotFound)?;
        let seats = self.store.live_seats(id).await?;
        // Another request may have loaded it meanwhile: keep the first.
        if let Some(r) = lock(&self.rooms).get(id) {
            return Ok(r.clone());
        }
        let last = *lock(&self.last_run);
        let room = self.room_of(&row, &moves, seats, charge(last, &row))?;
        let counts = *lock(&room.chan.local);
        if counts != [0; 3] {
            let mut st = room.state.lock().await;
            let node = self.node.clone();
            self.presence(&room, &mut st, node, 0, counts);
        }
        Ok(room)
    }

    /// The room of `id` if this node owns it now.
    fn owned(&self, id: &str) -> Option<Arc<Room>> {
        let r = lock(&self.rooms).get(id).cloned()?;
        (r.valid_until.load(Ordering::Relaxed) > self.now()).then_some(r)
    }

    async fn route(self: &Arc<Self>, id: &str) -> Result<Route, OnlineError> {
        if !token::is_game_id(id) {
            return Err(OnlineError::NotFound);
        }
        let Some(c) = &self.cluster else {
            return Ok(Route::Local(self.room_single(id).await?));
        };
        if let Some(r) = self.owned(id) {
            return Ok(Route::Local(r));
        }
        let mut conn = c.conn();
        let owner: Option<String> = conn.get(lease_key(id)).await.map_err(unavailable)?;
        match owner {
            Some(o) if o != self.node => Ok(Route::Remote(o)),
            _ => match self.take(id).await? {
                Ok(room) => Ok(Route::Local(room)),
                Err(owner) => Ok(Route::Remote(owner)),
            },
        }
    }

    /// Takes game `id` over (its lease is free, or already this node's): loads it from the
    /// store and becomes its owner. `Err(owner)` when another node holds it.
    async fn take(self: &Arc<Self>, id: &str) -> Result<Result<Arc<Room>, String>, OnlineError> {
        let Some(c) = self.cluster.clone() else {
            return Ok(Ok(self.room_single(id).await?));
        };
        let one = lock(&self.taking).entry(id.to_owned()).or_default().clone();
        let _one = one.lock().await;
        if let Some(r) = self.owned(id) {
            return Ok(Ok(r));
        }
        let mut conn = c.conn();
        // The previous owner, and its last heartbeat: until then the clock ran.
        let prev: Option<String> = conn.get(owner_key(id)).await.map_err(unavailable)?;
        let (beat, alive): (Option<i64>, bool) = match &prev {
            Some(p) => {
                let (b, a): (Option<i64>, bool) = redis::pipe()
                    .hget(BEATS, p)
                    .exists(beat_key(p))
                    .query_async(&mut conn)
                    .await
                    .map_err(unavailable)?;
                (b, a)
            }
            None => (None, false),
        };
        // Nobody ever owned it: is there such a game at all (before any lease is made)?
        if prev.is_none() && self.store.load_live(id).await?.is_none() {
            return Err(OnlineError::NotFound);
        }
        let set: Option<String> = redis::cmd("SET")
            .arg(lease_key(id))
            .arg(&self.node)
            .arg("NX")
            .arg("PX")
            .arg(LEASE_TTL)
            .query_async(&mut conn)
            .await
            .map_err(unavailable)?;
        if set.is_none() {
            let owner: Option<String> = conn.get(lease_key(id)).await.map_err(unavailable)?;
            match owner {
                Some(o) if o == self.node => {}
                Some(o) => return Ok(Err(o)),
                // Expired in between: try again from the start.
                None => return Ok(Err(self.node.clone())),
            }
        }
        // A lease missing while its owner may still act on it (Redis lost its keys, or the
        // owner is alive): wait until that owner has surely stopped taking its lease as
        // valid; it writes nothing after that, so the store is then up to date.
        let mine = prev.as_deref() == Some(self.node.as_str());
        if !mine && (prev.is_none() || alive) {
            tokio::time::sleep(Duration::from_millis(LEASE_VALID + 50)).await;
        }
        let t0 = self.now();
        let codes = c.renew(&[id.to_owned()]).await.map_err(unavailable)?;
        if codes.first().copied().unwrap_or(0) == 0 {
            let owner: Option<String> = conn.get(lease_key(id)).await.map_err(unavailable)?;
            return Ok(Err(owner.unwrap_or_else(|| self.node.clone())));
        }
        let Some((row, moves)) = self.store.load_live(id).await? else {
            let _: redis::RedisResult<()> = conn.del(lease_key(id)).await;
            let _: redis::RedisResult<()> = conn.srem(GAMES, id).await;
            return Err(OnlineError::NotFound);
        };
        // A room kept from before (the lease lapsed while Redis was away): keep its clock if
        // the store has nothing newer.
        let kept = lock(&self.rooms).get(id).cloned();
        if let Some(room) = kept {
            let mut st = room.state.lock().await;
            if st.live.game.len() == moves.len()
                && st.live.status().as_str() == row.status
                && st.rematch.as_deref().unwrap_or("") == row.rematch
            {
                room.valid_until.store(t0 + LEASE_VALID, Ordering::Relaxed);
                let _: redis::RedisResult<()> =
                    conn.set_ex(owner_key(id), &self.node, OWNER_TTL).await;
                self.schedule(&room, &mut st, 0);
                drop(st);
                c.publish(
                    EVENTS.into(),
                    &Wire::Owner {
                        from: self.node.clone(),
                        game: id.to_owned(),
                    },
                );
                return Ok(Ok(room));
            }
            if let Some(t) = st.timer.take() {
                t.abort();
            }
        }
        let charge = charge(beat, &row);
        let seats = self.store.live_seats(id).await?;
        let room = self.room_of(&row, &moves, seats, charge)?;
        room.valid_until.store(t0 + LEASE_VALID, Ordering::Relaxed);
        let _: redis::RedisResult<()> = conn.set_ex(owner_key(id), &self.node, OWNER_TTL).await;
        if room.over.load(Ordering::Relaxed) {
            let _: redis::RedisResult<()> = conn.srem(GAMES, id).await;
            room.released.store(true, Ordering::Relaxed);
        } else {
            let _: redis::RedisResult<()> = conn.sadd(GAMES, id).await;
        }
        {
            let mut st = room.state.lock().await;
            let counts = *lock(&room.chan.local);
            let v = room.chan.version.load(Ordering::Relaxed);
            self.presence(&room, &mut st, self.node.clone(), v, counts);
            self.schedule(&room, &mut st, 0);
            if room.chan.tx.receiver_count() > 0 || prev.is_some() {
                let full = self.full_event(&room, &st);
                Self::send(&room, None, &full);
            }
        }
        c.publish(
            EVENTS.into(),
            &Wire::Owner {
                from: self.node.clone(),
                game: id.to_owned(),
            },
        );
        if prev.is_some() && prev.as_deref() != Some(&self.node) {
            eprintln!(
                "xiangqi serve: live game {id}: taken over from node {} (charged {charge} ms)",
                prev.as_deref().unwrap_or("?")
            );
        }
        Ok(Ok(room))
    }

    /// Runs `op` on game `id`'s owner: here, or forwarded (again, through an owner's death,
    /// until [`CALL_DEADLINE`]).
    async fn call(self: &Arc<Self>, id: &str, op: Op) -> Result<Payload, OnlineError> {
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
    async fn local_op(
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
            } => {
                if from == self.node {
                    return;
                }
                let chan = lock(&self.channels).get(&game).cloned();
                if let Some(ch) = chan {
                    let to = match to.as_deref() {
                        None => None,
                        Some(s) => match color_of(s) {
                            Some(c) => Some(c),
                            None => return,
                        },
                    };
                    let _ = ch.tx.send(Msg {
                        to,
                        line: line.into(),
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
                            let _ = ch.tx.send(Msg {
                                to: None,
                                line: p.first.into(),
                            });
                        }
                    }
                }
                self.report(&id).await;
            }
            self.refresh_lobby().await;
        });
    }

    /// Renews this node's leases; drops the games another node holds now.
    async fn renew_tick(self: &Arc<Self>) {
        let Some(c) = self.cluster.clone() else {
            return;
        };
        let rooms: Vec<Arc<Room>> = lock(&self.rooms).values().cloned().collect();
        let (open, done): (Vec<_>, Vec<_>) = rooms
            .into_iter()
            .partition(|r| !r.over.load(Ordering::Relaxed));
        let ids: Vec<String> = open.iter().map(|r| r.id.clone()).collect();
        let t0 = self.now();
        match c.renew(&ids).await {
            Ok(codes) => {
                for (room, code) in open.into_iter().zip(codes) {
                    match code {
                        1 => room.valid_until.store(t0 + LEASE_VALID, Ordering::Relaxed),
                        2 => {
                            // Found without a lease: ours again, but check the store first.
                            room.valid_until.store(0, Ordering::Relaxed);
                            let h = self.clone();
                            tokio::spawn(async move {
                                if let Err(e) = h.take(&room.id).await {
                                    eprintln!("xiangqi serve: live game {}: {e}", room.id);
                                }
                            });
                        }
                        _ => {
                            room.valid_until.store(0, Ordering::Relaxed);
                            lock(&self.rooms).remove(&room.id);
                            let mut st = room.state.lock().await;
                            if let Some(t) = st.timer.take() {
                                t.abort();
                            }
                        }
                    }
                }
            }
            Err(e) => self.log_redis("cannot renew the leases", &e),
        }
        let ended: Vec<String> = done
            .iter()
            .filter(|r| !r.released.load(Ordering::Relaxed))
            .map(|r| r.id.clone())
            .collect();
        if !ended.is_empty() {
            let mut conn = c.conn();
            let r: redis::RedisResult<()> = conn.srem(GAMES, &ended).await;
            if r.is_ok() {
                for room in &done {
                    room.released.store(true, Ordering::Relaxed);
                }
            }
        }
    }

    /// Takes over the games without an owner; forgets the streams and seeks of dead nodes.
    async fn sweep(self: &Arc<Self>) {
        let Some(c) = self.cluster.clone() else {
            return;
        };
        let mut conn = c.conn();
        let mut ids: Vec<String> = match conn.smembers(GAMES).await {
            Ok(v) => v,
            Err(e) => return self.log_redis("cannot read the live games", &e),
        };
        // Games this node has streams of, in case Redis lost the set.
        for id in lock(&self.channels).keys() {
            if !ids.contains(id) {
                ids.push(id.clone());
            }
        }
        ids.retain(|id| self.owned(id).is_none());
        for chunk in ids.chunks(500) {
            let keys: Vec<String> = chunk.iter().map(|i| lease_key(i)).collect();
            let leases: Vec<Option<String>> = match conn.mget(&keys).await {
                Ok(v) => v,
                Err(e) => return self.log_redis("cannot read the leases", &e),
            };
            for (id, lease) in chunk.iter().zip(leases) {
                if lease.is_none() {
                    let h = self.clone();
                    let id = id.clone();
                    tokio::spawn(async move {
                        match h.take(&id).await {
                            Ok(_) | Err(OnlineError::NotFound) => {}
                            Err(e) => eprintln!("xiangqi serve: live game {id}: {e}"),
                        }
                    });
                }
            }
        }
        // The nodes other nodes' counts and seeks come from: are they alive?
        let rooms: Vec<Arc<Room>> = lock(&self.rooms).values().cloned().collect();
        let mut nodes: Vec<String> = Vec::new();
        let mut per_room = Vec::new();
        for room in rooms {
            if let Ok(st) = room.state.try_lock() {
                let others: Vec<String> = st
                    .presence
                    .iter()
                    .filter(|(n, (_, c))| **n != self.node && *c != [0; 3])
                    .map(|(n, _)| n.clone())
                    .collect();
                for n in &others {
                    if !nodes.contains(n) {
                        nodes.push(n.clone());
                    }
                }
                if !others.is_empty() {
                    per_room.push((room.clone(), others));
                }
            }
        }
        let seeks: HashMap<String, String> = conn.hgetall(SEEKS).await.unwrap_or_default();
        let mut seek_nodes = Vec::new();
        for (id, v) in &seeks {
            if let Ok(s) = serde_json::from_str::<SharedSeek>(v) {
                if !nodes.contains(&s.node) {
                    nodes.push(s.node.clone());
                }
                seek_nodes.push((id.clone(), s.node));
            }
        }
        if nodes.is_empty() {
            return;
        }
        let keys: Vec<String> = nodes.iter().map(|n| beat_key(n)).collect();
        let Ok(beats) = conn.mget::<_, Vec<Option<String>>>(&keys).await else {
            return;
        };
        // Dead: without a heartbeat at two sweeps in a row (after a restart of Redis every
        // node's heartbeat is missing until its next renewal).
        let missing: Vec<String> = nodes
            .iter()
            .zip(beats)
            .filter(|(_, b)| b.is_none())
            .map(|(n, _)| n.clone())
            .collect();
        let dead: Vec<String> = {
            let mut suspects = lock(&self.suspects);
            let dead = missing
                .iter()
                .filter(|n| suspects.contains(n))
                .cloned()
                .collect();
            *suspects = missing;
            dead
        };
        if dead.is_empty() {
            return;
        }
        for (room, others) in per_room {
            let mut st = room.state.lock().await;
            for n in others.iter().filter(|n| dead.contains(n)) {
                self.forget_node(&room, &mut st, n);
            }
        }
        let gone: Vec<String> = seek_nodes
            .into_iter()
            .filter(|(_, n)| dead.contains(n))
            .map(|(id, _)| id)
            .collect();
        if !gone.is_empty() {
            let _: redis::RedisResult<()> = conn.hdel(SEEKS, &gone).await;
            c.publish(EVENTS.into(), &Wire::Lobby);
            self.refresh_lobby().await;
        }
    }

    /// Creates a live game; the caller hands out the tokens.
    pub async fn create(self: &Arc<Self>, new: NewLive) -> Result<Created, OnlineError> {
        if lock(&self.rooms).len() >= MAX_ROOMS {
            return Err(OnlineError::Full("live games"));
        }
        let start = match new.fen.as_deref().map(str::trim) {
            None | Some("") => Position::new(),
            Some(f) => Position::from_fen(f).map_err(|e| OnlineError::Bad {
                field: "fen",
                msg: format!("bad FEN: {e}"),
            })?,
        };
        let game = Game::new(start);
        if game.outcome().is_some() {
            return Err(OnlineError::Bad {
                field: "fen",
                msg: "the position is already decided".into(),
            });
        }
        let id = token::game_id()?;
        let tokens = [Token::generate()?, Token::generate()?];
        let keys = [
            SeatKey::of(tokens[0].as_str()),
            SeatKey::of(tokens[1].as_str()),
        ];
        let live = LiveGame::new(game, new.tc, new.names, self.now());
        self.open_room(id.clone(), live, keys, new.seats).await?;
        Ok(Created { id, tokens })
    }

    /// Stores a new live game, puts its room in memory and sets its timer.
    async fn open_room(
        self: &Arc<Self>,
        id: String,
        live: LiveGame,
        keys: [SeatKey; 2],
        seats: Option<NewSeats>,
    ) -> Result<Arc<Room>, OnlineError> {
        let now = self.now();
        if let Some(c) = &self.cluster {
            // The lease first: the game is this node's before anyone can ask for it.
            let mut conn = c.conn();
            let _: () = redis::pipe()
                .cmd("SET")
                .arg(lease_key(&id))
                .arg(&self.node)
                .arg("PX")
                .arg(LEASE_TTL)
                .ignore()
                .set_ex(owner_key(&id), &self.node, OWNER_TTL)
                .ignore()
                .sadd(GAMES, &id)
                .ignore()
                .query_async(&mut conn)
                .await
                .map_err(unavailable)?;
        }
        let created = wall_ms();
        let change = change_of(&live, now);
        let row = LiveRow {
            id: id.clone(),
            created,
            updated: created,
            start_fen: live.game.start().fen(),
            clock: live
                .clock
                .as_ref()
                .map(|c| (c.time_control().initial, c.time_control().increment)),
            names: live.names.clone(),
            keys: [keys[0].0.clone(), keys[1].0.clone()],
            times: change.times,
            declared: change.declared,
            status: change.status,
            winner: change.winner,
            rematch: String::new(),
        };
        let speed = Speed::of(row.clock);
        let create = Write::Live(LiveWrite::Create { row, moves: vec![] });
        let seats = match seats {
            Some(s) if s.users.iter().any(Option::is_some) => {
                let seats = Write::Account(AccountWrite::Seats {
                    game_id: id.clone(),
                    users: s.users,
                    // Rated only between two accounts.
                    rated: s.rated && s.users.iter().all(Option::is_some),
                    speed,
                });
                self.store.write(Write::Batch(vec![create, seats])).await?;
                self.store.live_seats(&id).await?
            }
            _ => {
                self.store.write(create).await?;
                None
            }
        };
        let room = self.new_room(
            id.clone(),
            RoomState {
                live,
                keys,
                created,
                rematch: None,
                timer: None,
                seats,
                presence: HashMap::new(),
            },
        );
        room.valid_until.store(
            if self.cluster.is_some() {
                now + LEASE_VALID
            } else {
                u64::MAX
            },
            Ordering::Relaxed,
        );
        lock(&self.rooms).insert(id, room.clone());
        {
            let mut st = room.state.lock().await;
            self.schedule(&room, &mut st, 0);
        }
        Ok(room)
    }

    fn seat_of(st: &RoomState, cred: Option<Credential<'_>>) -> Result<Color, OnlineError> {
        let cred = cred.ok_or(OnlineError::NoToken)?;
        Color::ALL
            .into_iter()
            .find(|&c| match cred {
                Credential::Seat(t) => st.keys[c.index()].admits(t),
                Credential::Account(uid) => st
                    .seats
                    .as_ref()
                    .is_some_and(|s| s.users[c.index()].as_ref().is_some_and(|u| u.id == uid)),
            })
            .ok_or(OnlineError::WrongToken)
    }

    /// The write that rates a game that has just ended, when it is rated.
    fn rating_write(id: &str, st: &RoomState, next: &LiveGame) -> Option<Write> {
        if !next.is_over() || st.live.is_over() {
            return None;
        }
        let seats = st.seats.as_ref()?;
        if !seats.rated || seats.rated_at.is_some() || next.status() == Status::Aborted {
            return None;
        }
        let score_red = match next.winner() {
            Some(Color::Red) => 1.0,
            Some(Color::Black) => 0.0,
            None => 0.5,
        };
        Some(Write::Account(AccountWrite::Rate {
            game_id: id.to_owned(),
            score_red,
            at: wall_ms(),
        }))
    }

    /// Writes a change of a room, with the ratings when it ends a rated game; then the room's
    /// accounts are read again (their new ratings).
    async fn commit(
        &self,
        room: &Room,
        st: &mut RoomState,
        rate: Option<Write>,
        w: LiveWrite,
    ) -> Result<(), StoreError> {
        match rate {
            Some(r) => {
                self.store
                    .write(Write::Batch(vec![Write::Live(w), r]))
                    .await?;
                match self.store.live_seats(&room.id).await {
                    Ok(s) => st.seats = s,
                    Err(e) => eprintln!(
                        "xiangqi serve: live game {}: cannot read its new ratings: {e}",
                        room.id
                    ),
                }
            }
            None => {
                self.store.write(Write::Live(w)).await?;
            }
        }
        Ok(())
    }

    /// The `gameFull` event of a room, with its accounts and ratings.
    fn full_event(&self, room: &Room, st: &RoomState) -> Event {
        let mut full = events::full(&room.id, &st.live, self.now(), st.live.end_text_zh());
        if let (
            Event::GameFull {
                red,
                black,
                rated,
                speed,
                ..
            },
            Some(seats),
        ) = (&mut full, st.seats.as_ref())
        {
            *rated = seats.rated;
            *speed = Some(seats.speed.as_str());
            for (p, u) in [(red, &seats.users[0]), (black, &seats.users[1])] {
                if let Some(u) = u {
                    p.user = Some(u.name.clone());
                    if let Some((r, rd)) = u.before {
                        p.rating = Some(r.round() as i64);
                        p.provisional = Some(rd > crate::accounts::rating::PROVISIONAL_RD);
                    }
                    p.rating_diff = u.diff.map(|d| d.round() as i64);
                }
            }
        }
        if let Event::GameFull { speed, .. } = &mut full {
            if speed.is_none() {
                let tc = st.live.clock.as_ref().map(|c| {
                    let t = c.time_control();
                    (t.initial, t.increment)
                });
                *speed = Some(Speed::of(tc).as_str());
            }
        }
        full
    }

    /// Sends a line to the room's streams, on every node.
    fn send(room: &Room, to: Option<Color>, e: &Event) {
        let line: Arc<str> = e.line().into();
        if let Some(c) = &room.cluster {
            c.publish(
                EVENTS.into(),
                &Wire::Line {
                    from: c.node.clone(),
                    game: room.id.clone(),
                    to: to.map(|c| c.name().to_owned()),
                    line: line.to_string(),
                },
            );
        }
        let _ = room.chan.tx.send(Msg { to, line });
    }

    fn state_event(live: &LiveGame, now: u64) -> Event {
        Event::GameState(events::state(live, now, live.end_text_zh()))
    }

    fn crowd(st: &RoomState) -> Event {
        Event::Crowd {
            red: st.live.is_connected(Color::Red),
            black: st.live.is_connected(Color::Black),
            watchers: st.totals()[2] as usize,
        }
    }

    /// Sets the room's timer for its next deadline (flag fall, first-move limit), at least
    /// `min_wait` ms away.
    fn schedule(self: &Arc<Self>, room: &Arc<Room>, st: &mut RoomState, min_wait: u64) {
        if let Some(t) = st.timer.take() {
            t.abort();
        }
        let Some(wait) = st.live.next_deadline(self.now()) else {
            return;
        };
        let wait = wait.max(min_wait);
        let hub = Arc::downgrade(self);
        let room = Arc::downgrade(room);
        let task = tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(wait + 1)).await;
            if let (Some(hub), Some(room)) = (hub.upgrade(), room.upgrade()) {
                hub.on_timer(&room).await;
            }
        });
        st.timer = Some(task.abort_handle());
    }

    async fn on_timer(self: &Arc<Self>, room: &Arc<Room>) {
        let mut st = room.state.lock().await;
        // This task is the room's timer: don't let `schedule` abort it from under us.
        st.timer = None;
        let now = self.now();
        if room.valid_until.load(Ordering::Relaxed) <= now {
            // Not sure of the lease (Redis away): look again soon; a new owner has its own.
            if lock(&self.rooms)
                .get(&room.id)
                .is_some_and(|r| Arc::ptr_eq(r, room))
            {
                self.schedule(room, &mut st, 250);
            }
            return;
        }
        let mut next = st.live.clone();
        if next.tick(now) {
            let w = LiveWrite::Update {
                id: room.id.clone(),
                change: change_of(&next, now),
            };
            let rate = Self::rating_write(&room.id, &st, &next);
            match self.commit(room, &mut st, rate, w).await {
                Ok(_) => {
                    st.live = next;
                    room.over.store(st.live.is_over(), Ordering::Relaxed);
                    Self::send(room, None, &Self::state_event(&st.live, now));
                }
                Err(e) => {
                    eprintln!(
                        "xiangqi serve: live game {}: cannot store its end (trying again in \
                         {STORE_RETRY_MS} ms): {e}",
                        room.id
                    );
                    // The deadline has passed: without a pause the timer would fire again at
                    // once, as long as the database is away.
                    self.schedule(room, &mut st, STORE_RETRY_MS);
                    return;
                }
            }
        }
        self.schedule(room, &mut st, 0);
    }

    /// A seat's action in game `id`.
    pub async fn act(
        self: &Arc<Self>,
        id: &str,
        cred: Option<Credential<'_>>,
        action: Action,
    ) -> Result<(), OnlineError> {
        self.call(
            id,
            Op::Act {
                cred: cred.map(WireCred::of),
                action,
            },
        )
        .await
        .map(|_| ())
    }

    async fn act_local(
        self: &Arc<Self>,
        room: &Arc<Room>,
        cred: Option<Credential<'_>>,
        action: Action,
    ) -> Result<(), OnlineError> {
        let mut st = room.state.lock().await;
        let seat = Self::seat_of(&st, cred)?;
        let now = self.now();
        let mut next = st.live.clone();
        let before = next.game.len();
        let result = match &action {
            Action::Move(m) => next.play(seat, m, now).map(|_| ()),
            Action::Resign => next.resign(seat, now),
            Action::Abort => next.abort(seat, now),
            Action::Draw(true) => next.draw_yes(seat, now),
            Action::Draw(false) => next.draw_no(seat),
            Action::Takeback(true) => next.takeback_yes(seat, now),
            Action::Takeback(false) => next.takeback_no(seat),
            Action::ClaimVictory => next.claim(seat, true, now),
            Action::ClaimDraw => next.claim(seat, false, now),
            Action::Rematch(true) => match next.rematch_yes(seat) {
                Ok(true) => {
                    drop(next);
                    return self.rematch(room, &mut st).await;
                }
                Ok(false) => Ok(()),
                Err(e) => Err(e),
            },
            Action::Rematch(false) => next.rematch_no(seat),
        };
        // A refused move can still have changed the game: a flag that fell before it came.
        let ended_now = next.is_over() && !st.live.is_over();
        if let Err(r) = &result {
            if !ended_now {
                return Err(r.clone().into());
            }
        }
        let change = change_of(&next, now);
        let after = next.game.len();
        let w = if after == before + 1 {
            LiveWrite::Move {
                id: room.id.clone(),
                ply: before as i64,
                uci: next.game.moves()[before].to_string(),
                change,
            }
        } else if after < before {
            LiveWrite::Truncate {
                id: room.id.clone(),
                ply: after as i64,
                change,
            }
        } else {
            LiveWrite::Update {
                id: room.id.clone(),
                change,
            }
        };
        let rate = Self::rating_write(&room.id, &st, &next);
        self.commit(room, &mut st, rate, w).await?;
        st.live = next;
        room.over.store(st.live.is_over(), Ordering::Relaxed);
        Self::send(room, None, &Self::state_event(&st.live, now));
        self.schedule(room, &mut st, 0);
        result.map_err(OnlineError::from)
    }

    /// Both players asked for a rematch: a new game, colours swapped (each player's token
    /// now holds the other seat), announced on the old game's streams.
    async fn rematch(
        self: &Arc<Self>,
        room: &Arc<Room>,
        st: &mut RoomState,
    ) -> Result<(), OnlineError> {
        if let Some(id) = &st.rematch {
            Self::send(room, None, &Event::Rematch { id: id.clone() });
            return Ok(());
        }
        let id = token::game_id()?;
        let now = self.now();
        let tc = st.live.clock.as_ref().map(|c| c.time_control());
        let names = [st.live.names[1].clone(), st.live.names[0].clone()];
        let keys = [st.keys[1].clone(), st.keys[0].clone()];
        let live = LiveGame::new(Game::new(st.live.game.start().clone()), tc, names, now);
        let seats = st.seats.as_ref().map(|s| {
            let u = |c: usize| s.users[c].as_ref().map(|u| u.id);
            NewSeats {
                users: [u(1), u(0)],
                rated: s.rated,
            }
        });
        self.open_room(id.clone(), live, keys, seats).await?;

        self.store
            .write(Write::Live(LiveWrite::Rematch {
                id: room.id.clone(),
                rematch: id.clone(),
            }))
            .await?;
        st.rematch = Some(id.clone());
        st.live.rematch_offer = None;
        Self::send(room, None, &Self::state_event(&st.live, now));
        Self::send(room, None, &Event::Rematch { id });
        Ok(())
    }

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
    async fn join_local(
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
    async fn report(self: &Arc<Self>, id: &str) {
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
    fn presence(
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
                    self.remind(room, s, st.live.grace_period());
                }
            }
        }
        if old != new {
            Self::send(room, None, &Self::crowd(st));
        }
    }

    /// A dead node's streams are gone; a count it sent before is taken as new.
    fn forget_node(self: &Arc<Self>, room: &Arc<Room>, st: &mut RoomState, node: &str) {
        let v = st.presence.get(node).map_or(0, |e| e.0);
        self.presence(room, st, node.to_owned(), v + 1, [0; 3]);
        st.presence.remove(node);
    }

    /// Tells the opponent again when a claim becomes possible.
    fn remind(self: &Arc<Self>, room: &Arc<Room>, s: Color, grace: u64) {
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

    fn gone_event(&self, live: &LiveGame, gone: Color, now: u64) -> Event {
        let left = live.grace_period().saturating_sub(live.gone_for(gone, now));
        Event::OpponentGone {
            gone: true,
            claim_win_in_seconds: Some(left.div_ceil(1000)),
        }
    }

    async fn leave(self: &Arc<Self>, id: String, chan: Arc<Channel>, seat: Option<Color>) {
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

    // ---- the lobby ----

    fn lobby_line(&self) -> Arc<str> {
        if self.cluster.is_some() {
            return lock(&self.shared_lobby).clone();
        }
        let l = lock(&self.lobby);
        let v = serde_json::json!({ "type": "seeks", "seeks": l.list() });
        format!("{v}\n").into()
    }

    fn lobby_changed(&self) {
        match &self.cluster {
            Some(c) => c.publish(EVENTS.into(), &Wire::Lobby),
            None => {
                let _ = self.lobby_tx.send(self.lobby_line());
            }
        }
    }

    /// Rereads the seeks from Redis and tells this node's lobby streams.
    async fn refresh_lobby(&self) {
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
        let v = serde_json::json!({ "type": "seeks", "seeks": list });
        let line: Arc<str> = format!("{v}\n").into();
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
        let mut seek = Seek::new(id.clone(), name, tc, color);
        seek.rated = rated;
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

    /// Takes seek `id` out of the lobby: its creator's name, time control and side wish, and
    /// the node the creator waits on. `None` if it is gone (taken by someone else).
    /// Refuses a seek to this taker: a rated one to a guest, one's own.
    fn may_take(s: &Seek, taker: Option<&Seeker>) -> Result<(), OnlineError> {
        if s.rated && taker.is_none() {
            return Err(OnlineError::NeedsAccount);
        }
        if s.user_id.is_some() && s.user_id == taker.map(|t| t.id) {
            return Err(OnlineError::OwnSeek);
        }
        Ok(())
    }

    async fn take_seek(
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
    fn seat_arrived(
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
    async fn abort_unplayed(self: &Arc<Self>, id: &str) -> Result<(), OnlineError> {
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

    fn withdraw(self: &Arc<Self>, id: &str) {
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
