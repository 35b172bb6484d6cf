//! The hub: the live games in memory, each a *room* with its state behind a lock and a
//! broadcast channel to its streams; the lobby's seeks; the timers that end games on time.
//!
//! Every change to a room goes the same way: lock the room, apply the operation to a copy of
//! the live game, commit the change to the store, then keep the copy and tell every stream.
//! So a move is durable before anyone sees it confirmed, and a failed write changes nothing.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};
use tokio::sync::{broadcast, oneshot};
use xiangqi::{Color, Game, Position, Rules};

use super::clock::{Snapshot, TimeControl};
use super::events::{self, Event};
use super::live::{End, LiveGame, Refusal, Status};
use super::lobby::{Lobby, Seek, SideWish};
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
#[derive(Clone, Debug, PartialEq, Eq)]
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

pub struct Room {
    pub id: String,
    state: tokio::sync::Mutex<RoomState>,
    tx: broadcast::Sender<Msg>,
    watchers: AtomicUsize,
}

struct RoomState {
    live: LiveGame,
    keys: [SeatKey; 2],
    created: i64,
    rematch: Option<String>,
    timer: Option<tokio::task::AbortHandle>,
    /// The accounts of the seats (`None`: two guests).
    seats: Option<SeatsRow>,
}

/// The most live games in memory, and seeks in the lobby, at once.
pub const MAX_ROOMS: usize = 100_000;
/// How long a timer waits before storing a game's end again after the store failed.
const STORE_RETRY_MS: u64 = 1000;
/// How often a stream sends a keep-alive blank line.
pub const KEEP_ALIVE: Duration = Duration::from_secs(5);
/// The longest name a player may give.
pub const MAX_NAME: usize = 40;

pub struct Hub {
    store: Store,
    epoch: Instant,
    rooms: Mutex<HashMap<String, Arc<Room>>>,
    lobby: Mutex<Lobby>,
    lobby_tx: broadcast::Sender<Arc<str>>,
    /// Seeks waiting to be taken: where to send the creator's seat.
    waiting: Mutex<HashMap<String, oneshot::Sender<SeatGrant>>>,
}

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

/// Rebuilds a live game from its stored row and moves.
fn restore(row: &LiveRow, moves: &[String], now: u64) -> Result<LiveGame, StoreError> {
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
    let snapshot = row.times.map(|t| Snapshot {
        remaining: [t[0], t[1]],
        quota: [t[2], t[3]],
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

impl Hub {
    pub fn new(store: Store) -> Arc<Hub> {
        Arc::new(Hub {
            store,
            epoch: Instant::now(),
            rooms: Mutex::new(HashMap::new()),
            lobby: Mutex::new(Lobby::default()),
            lobby_tx: broadcast::channel(64).0,
            waiting: Mutex::new(HashMap::new()),
        })
    }

    /// The hub's monotonic time in ms.
    pub fn now(&self) -> u64 {
        self.epoch.elapsed().as_millis() as u64
    }

    fn new_room(&self, id: String, st: RoomState) -> Arc<Room> {
        Arc::new(Room {
            id,
            state: tokio::sync::Mutex::new(st),
            tx: broadcast::channel(256).0,
            watchers: AtomicUsize::new(0),
        })
    }

    /// Brings back every unfinished live game after a restart; their clocks run again from
    /// now. Returns how many.
    pub async fn resume_all(self: &Arc<Self>) -> Result<usize, StoreError> {
        let rows = self.store.unfinished_live().await?;
        let n = rows.len();
        for (row, moves) in rows {
            let seats = self.store.live_seats(&row.id).await?;
            let room = self.room_of(&row, &moves, seats)?;
            let mut st = room.state.lock().await;
            self.schedule(&room, &mut st);
        }
        Ok(n)
    }

    fn room_of(
        &self,
        row: &LiveRow,
        moves: &[String],
        seats: Option<SeatsRow>,
    ) -> Result<Arc<Room>, StoreError> {
        let live = restore(row, moves, self.now())?;
        let st = RoomState {
            live,
            keys: [SeatKey(row.keys[0].clone()), SeatKey(row.keys[1].clone())],
            created: row.created,
            rematch: (!row.rematch.is_empty()).then(|| row.rematch.clone()),
            timer: None,
            seats,
        };
        let room = self.new_room(row.id.clone(), st);
        lock(&self.rooms).insert(row.id.clone(), room.clone());
        Ok(room)
    }

    /// The room of game `id`, from memory or the store.
    pub async fn room(&self, id: &str) -> Result<Arc<Room>, OnlineError> {
        if !token::is_game_id(id) {
            return Err(OnlineError::NotFound);
        }
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
        Ok(self.room_of(&row, &moves, seats)?)
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
            },
        );
        lock(&self.rooms).insert(id, room.clone());
        {
            let mut st = room.state.lock().await;
            self.schedule(&room, &mut st);
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

    fn send(room: &Room, to: Option<Color>, e: &Event) {
        let _ = room.tx.send(Msg {
            to,
            line: e.line().into(),
        });
    }

    fn state_event(live: &LiveGame, now: u64) -> Event {
        Event::GameState(events::state(live, now, live.end_text_zh()))
    }

    fn crowd(room: &Room, live: &LiveGame) -> Event {
        Event::Crowd {
            red: live.is_connected(Color::Red),
            black: live.is_connected(Color::Black),
            watchers: room.watchers.load(Ordering::Relaxed),
        }
    }

    /// Sets the room's timer for its next deadline (flag fall, first-move limit).
    fn schedule(self: &Arc<Self>, room: &Arc<Room>, st: &mut RoomState) {
        self.schedule_after(room, st, 0);
    }

    /// The same, but not sooner than `at_least` ms from now (a retry after the store failed).
    fn schedule_after(self: &Arc<Self>, room: &Arc<Room>, st: &mut RoomState, at_least: u64) {
        if let Some(t) = st.timer.take() {
            t.abort();
        }
        let Some(wait) = st.live.next_deadline(self.now()) else {
            return;
        };
        let wait = wait.max(at_least);
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
                    self.schedule_after(room, &mut st, STORE_RETRY_MS);
                    return;
                }
            }
        }
        self.schedule(room, &mut st);
    }

    /// A seat's action in game `id`.
    pub async fn act(
        self: &Arc<Self>,
        id: &str,
        cred: Option<Credential<'_>>,
        action: Action,
    ) -> Result<(), OnlineError> {
        let room = self.room(id).await?;
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
                    return self.rematch(&room, &mut st).await;
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
        self.commit(&room, &mut st, rate, w).await?;
        st.live = next;
        Self::send(&room, None, &Self::state_event(&st.live, now));
        self.schedule(&room, &mut st);
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
        let room = self.room(id).await?;
        let mut st = room.state.lock().await;
        let seat = match cred {
            Some(_) => Some(Self::seat_of(&st, cred)?),
            None => None,
        };
        let rx = room.tx.subscribe();
        let now = self.now();
        let mut full = self.full_event(&room, &st);
        if let Event::GameFull { seat: you, .. } = &mut full {
            *you = seat.map(Color::name);
        }
        let first = full.line();
        match seat {
            Some(s) => {
                st.live.connect(s);
                Self::send(
                    &room,
                    Some(!s),
                    &Event::OpponentGone {
                        gone: false,
                        claim_win_in_seconds: None,
                    },
                );
            }
            None => {
                room.watchers.fetch_add(1, Ordering::Relaxed);
            }
        }
        Self::send(&room, None, &Self::crowd(&room, &st.live));
        let mut extra = Vec::new();
        if let Some(s) = seat {
            if !st.live.is_over() && !st.live.is_connected(!s) {
                extra.push(self.gone_event(&st.live, !s, now).line());
            }
        }
        if let Some(r) = &st.rematch {
            extra.push(Event::Rematch { id: r.clone() }.line());
        }
        drop(st);
        Ok(Subscription {
            first,
            extra,
            rx,
            guard: Guard {
                hub: self.clone(),
                room,
                seat,
            },
        })
    }

    fn gone_event(&self, live: &LiveGame, gone: Color, now: u64) -> Event {
        let left = live.grace_period().saturating_sub(live.gone_for(gone, now));
        Event::OpponentGone {
            gone: true,
            claim_win_in_seconds: Some(left.div_ceil(1000)),
        }
    }

    async fn leave(self: &Arc<Self>, room: Arc<Room>, seat: Option<Color>) {
        let mut st = room.state.lock().await;
        let now = self.now();
        match seat {
            Some(s) => {
                st.live.disconnect(s, now);
                if !st.live.is_connected(s) && !st.live.is_over() {
                    Self::send(&room, Some(!s), &self.gone_event(&st.live, s, now));
                    // Tell the opponent again when a claim becomes possible.
                    let grace = st.live.grace_period();
                    let hub = Arc::downgrade(self);
                    let weak = Arc::downgrade(&room);
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
            }
            None => {
                room.watchers.fetch_sub(1, Ordering::Relaxed);
            }
        }
        Self::send(&room, None, &Self::crowd(&room, &st.live));
    }

    /// The current `gameFull` line of a room (after a lagging stream missed lines).
    pub async fn full_line(&self, room: &Room) -> String {
        let st = room.state.lock().await;
        self.full_event(room, &st).line()
    }

    // ---- the lobby ----

    fn lobby_line(&self) -> Arc<str> {
        let l = lock(&self.lobby);
        let v = serde_json::json!({ "type": "seeks", "seeks": l.list() });
        format!("{v}\n").into()
    }

    fn lobby_changed(&self) {
        let _ = self.lobby_tx.send(self.lobby_line());
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
        if !lock(&self.lobby).add(seek.clone()) {
            return Err(OnlineError::Full("seeks"));
        }
        lock(&self.waiting).insert(id.clone(), tx);
        self.lobby_changed();
        Ok((
            seek,
            rx,
            SeekGuard {
                hub: self.clone(),
                id,
            },
        ))
    }

    /// Takes seek `id`: creates the game and hands each player a seat.
    pub async fn accept(
        self: &Arc<Self>,
        id: &str,
        name: String,
        taker: Option<Seeker>,
    ) -> Result<SeatGrant, OnlineError> {
        {
            let l = lock(&self.lobby);
            let s = l
                .list()
                .iter()
                .find(|s| s.id == id)
                .ok_or(OnlineError::NotFound)?;
            if s.rated && taker.is_none() {
                return Err(OnlineError::NeedsAccount);
            }
            if s.user_id.is_some() && s.user_id == taker.as_ref().map(|t| t.id) {
                return Err(OnlineError::OwnSeek);
            }
        }
        let name = taker.as_ref().map_or(name, |t| t.name.clone());
        let seek = lock(&self.lobby).remove(id).ok_or(OnlineError::NotFound)?;
        let waiting = lock(&self.waiting).remove(id);
        self.lobby_changed();
        let Some(creator) = waiting else {
            return Err(OnlineError::NotFound);
        };
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
        let grant = SeatGrant {
            id: created.id.clone(),
            color: creator_color,
            token: mine,
        };
        if creator.send(grant).is_err() {
            // The creator left in the meantime: nobody will play that seat.
            let _ = self.act(&created.id, None, Action::Abort).await;
            return Err(OnlineError::NotFound);
        }
        Ok(SeatGrant {
            id: created.id,
            color: !creator_color,
            token: theirs,
        })
    }

    fn withdraw(&self, id: &str) {
        let gone = lock(&self.lobby).remove(id).is_some();
        lock(&self.waiting).remove(id);
        if gone {
            self.lobby_changed();
        }
    }

    /// What a room looks like now, for tests and the API: status and whether it ended.
    pub async fn status(&self, id: &str) -> Result<Status, OnlineError> {
        let room = self.room(id).await?;
        let st = room.state.lock().await;
        Ok(st.live.status())
    }

    /// When the room was created (ms since the epoch).
    pub async fn created(&self, id: &str) -> Result<i64, OnlineError> {
        let room = self.room(id).await?;
        let st = room.state.lock().await;
        Ok(st.created)
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

/// A stream's connection to a room; dropping it tells the room the stream left.
pub struct Guard {
    hub: Arc<Hub>,
    room: Arc<Room>,
    seat: Option<Color>,
}

impl Drop for Guard {
    fn drop(&mut self) {
        let hub = self.hub.clone();
        let room = self.room.clone();
        let seat = self.seat;
        if let Ok(rt) = tokio::runtime::Handle::try_current() {
            rt.spawn(async move { hub.leave(room, seat).await });
        }
    }
}

/// An open stream of a room: the first lines, then what the room broadcasts.
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
    pub fn room(&self) -> &Arc<Room> {
        &self.guard.room
    }
}
