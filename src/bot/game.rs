//! One game of the bot: its stream (`GET /api/bot/game/stream/{id}`: `gameFull`, then
//! `gameState` lines) read on a thread of its own and reopened after a loss, the engine
//! asked for a move whenever it is the bot's turn, the move posted (with `offeringDraw` when
//! the draw policy says so) and sent again after a failure until the stream shows the game
//! moved on, the resignation policy, and the game's log (one line per move, a PGN at the end).

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;
use xiangqi::game::{Game, Rules};
use xiangqi::{Color, Position, START_FEN};
use xiangqi_match::cli::EngineSpec;
use xiangqi_match::engine::{EngineProc, Failure, Reply};
use xiangqi_record::{GameRecord, GameResult, MoveNode};

use super::http::{Api, Backoff, HttpError};
use super::log;

/// A player of `gameFull` (`white`/`black`, or the server's own `red`/`black`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Player {
    pub name: String,
    /// The account's id (lowercase name); empty for a guest or the AI.
    pub id: String,
    pub title: Option<String>,
    pub rating: Option<i64>,
}

impl Player {
    fn from_json(v: Option<&Value>) -> Player {
        let Some(v) = v.filter(|v| v.is_object()) else {
            return Player::default();
        };
        let s = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
        let name = s("name")
            .or_else(|| s("username"))
            .or_else(|| v.get("aiLevel").map(|l| format!("AI level {l}")))
            .unwrap_or_default();
        let id = s("id")
            .or_else(|| s("user").map(|u| u.to_lowercase()))
            .unwrap_or_default();
        Player {
            name,
            id,
            title: s("title"),
            rating: v.get("rating").and_then(Value::as_i64),
        }
    }

    /// The name with the title and rating, as logs show it.
    pub fn describe(&self) -> String {
        let mut s = String::new();
        if let Some(t) = &self.title {
            s.push_str(t);
            s.push(' ');
        }
        s.push_str(if self.name.is_empty() {
            "?"
        } else {
            &self.name
        });
        if let Some(r) = self.rating {
            s.push_str(&format!(" ({r})"));
        }
        s
    }
}

/// A `gameState` (also the `state` of `gameFull`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct State {
    /// The moves from the start, in UCI (a0..i9).
    pub moves: Vec<String>,
    /// Time left (ms) for Red (lichess's `wtime`) and Black; `None` without a clock.
    pub time: [Option<u64>; 2],
    /// Increments (ms), when the state gives them (`winc`, `binc`).
    pub inc: [Option<u64>; 2],
    pub status: String,
    pub winner: Option<Color>,
    /// A draw offered by Red (`wdraw`) / Black (`bdraw`).
    pub draw_offer: [bool; 2],
}

/// A colour by lichess's name (`white` is Red) or ours.
pub fn color_of(s: &str) -> Option<Color> {
    match s {
        "white" | "red" => Some(Color::Red),
        "black" => Some(Color::Black),
        _ => None,
    }
}

fn ms(v: Option<&Value>) -> Option<u64> {
    v.and_then(Value::as_f64)
        .filter(|x| x.is_finite())
        .map(|x| x.max(0.0) as u64)
}

impl State {
    pub fn from_json(v: &Value) -> State {
        let moves = v
            .get("moves")
            .and_then(Value::as_str)
            .unwrap_or("")
            .split_whitespace()
            .map(str::to_string)
            .collect();
        let get = |a: &str, b: &str| ms(v.get(a).or_else(|| v.get(b)));
        let offer = v
            .get("drawOffer")
            .and_then(Value::as_str)
            .and_then(color_of);
        let flag = |k: &str| v.get(k).and_then(Value::as_bool).unwrap_or(false);
        State {
            moves,
            time: [get("wtime", "rtime"), get("btime", "btime")],
            inc: [get("winc", "rinc"), get("binc", "binc")],
            status: v
                .get("status")
                .and_then(Value::as_str)
                .unwrap_or("started")
                .to_string(),
            winner: v.get("winner").and_then(Value::as_str).and_then(color_of),
            draw_offer: [
                flag("wdraw") || offer == Some(Color::Red),
                flag("bdraw") || offer == Some(Color::Black),
            ],
        }
    }

    /// Whether the game goes on (lichess's `created` and `started`).
    pub fn ongoing(&self) -> bool {
        matches!(self.status.as_str(), "created" | "started")
    }

    /// The PGN result.
    pub fn result(&self) -> GameResult {
        match self.winner {
            Some(Color::Red) => GameResult::RedWins,
            Some(Color::Black) => GameResult::BlackWins,
            None if self.ongoing() || self.status == "aborted" => GameResult::Unknown,
            None => GameResult::Draw,
        }
    }
}

/// A `gameFull`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Full {
    pub id: String,
    /// The start position (`startpos` read as the standard one).
    pub initial_fen: String,
    /// Red (lichess's `white`) and Black.
    pub players: [Player; 2],
    /// `(initial, increment)` in ms.
    pub clock: Option<(u64, u64)>,
    pub rated: bool,
    pub speed: String,
    /// The side this stream's token holds, when the server says (the server's `seat`).
    pub seat: Option<Color>,
    pub state: State,
}

impl Full {
    pub fn from_json(v: &Value) -> Full {
        let fen = v
            .get("initialFen")
            .and_then(Value::as_str)
            .filter(|f| !f.is_empty() && *f != "startpos")
            .unwrap_or(START_FEN);
        let side = |a: &str, b: &str| Player::from_json(v.get(a).or_else(|| v.get(b)));
        let clock = v.get("clock").filter(|c| c.is_object()).map(|c| {
            (
                ms(c.get("initial")).unwrap_or(0),
                ms(c.get("increment")).unwrap_or(0),
            )
        });
        Full {
            id: v
                .get("id")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
            initial_fen: fen.to_string(),
            players: [side("white", "red"), side("black", "black")],
            clock,
            rated: v.get("rated").and_then(Value::as_bool).unwrap_or(false),
            speed: v
                .get("speed")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
            seat: v.get("seat").and_then(Value::as_str).and_then(color_of),
            state: State::from_json(v.get("state").unwrap_or(&Value::Null)),
        }
    }

    /// The bot's side: the server's `seat`, else the player whose id or name is the
    /// account's, else `hint` (the `color` of the event stream's `gameStart`).
    pub fn my_color(&self, me: &Me, hint: Option<Color>) -> Option<Color> {
        if let Some(s) = self.seat {
            return Some(s);
        }
        for c in [Color::Red, Color::Black] {
            let p = &self.players[c.index()];
            if (!p.id.is_empty() && p.id.eq_ignore_ascii_case(&me.id))
                || (!p.name.is_empty() && p.name.eq_ignore_ascii_case(&me.name))
            {
                return Some(c);
            }
        }
        hint
    }
}

/// A line of a game stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GameLine {
    Full(Box<Full>),
    State(State),
    /// Another line (`chatLine`, `opponentGone`, ...): its type.
    Other(String),
    KeepAlive,
}

impl GameLine {
    pub fn parse(line: &str) -> Result<GameLine, String> {
        if line.trim().is_empty() {
            return Ok(GameLine::KeepAlive);
        }
        let v: Value = serde_json::from_str(line)
            .map_err(|e| format!("a line that is not JSON ({e}): {line:.200}"))?;
        Ok(match v.get("type").and_then(Value::as_str) {
            Some("gameFull") => GameLine::Full(Box::new(Full::from_json(&v))),
            Some("gameState") => GameLine::State(State::from_json(&v)),
            Some(t) => GameLine::Other(t.to_string()),
            None => return Err(format!("a line without a type: {line:.200}")),
        })
    }
}

/// The account the bot plays as.
#[derive(Clone, Debug, Default)]
pub struct Me {
    pub id: String,
    pub name: String,
}

/// The game policy and where logs go (from the command line).
#[derive(Clone, Debug)]
pub struct Settings {
    pub move_overhead_ms: u64,
    pub corr_movetime_ms: u64,
    /// `(score, moves)`: resign at or below `score` cp for `moves` own moves in a row.
    pub resign: Option<(i32, u32)>,
    /// `(score, moves, pieces)`: offer/accept a draw within ±`score` cp for `moves` own moves
    /// in a row with at most `pieces` pieces on the board.
    pub draw: Option<(i32, u32, u32)>,
    pub log_dir: Option<PathBuf>,
}

/// Each side's time and increment for the engine's `go`, in ms, Red first: the state's
/// clocks (the increments from the state, else from `gameFull`), the bot's own time less
/// the move overhead and the time since the state arrived (at least 1 ms). `None` without a
/// clock.
pub fn engine_clocks(
    state: &State,
    clock: Option<(u64, u64)>,
    me: Color,
    overhead_ms: u64,
    since_ms: u64,
) -> Option<([u64; 2], [u64; 2])> {
    let [Some(r), Some(b)] = state.time else {
        return None;
    };
    let inc = clock.map(|c| c.1).unwrap_or(0);
    let incs = [state.inc[0].unwrap_or(inc), state.inc[1].unwrap_or(inc)];
    let mut t = [r, b];
    t[me.index()] = t[me.index()]
        .saturating_sub(overhead_ms)
        .saturating_sub(since_ms)
        .max(1);
    Some((t, incs))
}

/// The resignation and draw counters: own moves in a row within each threshold.
#[derive(Clone, Debug, Default)]
pub struct Scores {
    losing: u32,
    drawish: u32,
}

/// What to do with the engine's move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Move { offer_draw: bool },
    Resign,
}

impl Scores {
    /// Counts the score of the engine's move (the mover's view, cp; mates beyond any
    /// threshold) and says whether to play it, with a draw offer, or resign. A move without a
    /// score breaks both runs.
    pub fn verdict(&mut self, s: &Settings, score: Option<i32>, pieces: u32) -> Verdict {
        let Some(sc) = score else {
            self.losing = 0;
            self.drawish = 0;
            return Verdict::Move { offer_draw: false };
        };
        if let Some((r, n)) = s.resign {
            self.losing = if sc <= r { self.losing + 1 } else { 0 };
            if self.losing >= n {
                return Verdict::Resign;
            }
        }
        let mut offer_draw = false;
        if let Some((d, n, p)) = s.draw {
            self.drawish = if sc.abs() <= d { self.drawish + 1 } else { 0 };
            offer_draw = self.drawish >= n && pieces <= p;
        }
        Verdict::Move { offer_draw }
    }
}

/// What the stream's thread tells the game.
enum Msg {
    Line(GameLine, Instant),
    /// The stream broke or ended (and will be reopened): why.
    Lost(String),
    /// The stream cannot be opened: the game is gone or not the bot's (status, message).
    Gone(String),
}

/// Reads the game's stream on a thread, reopening it after a loss with backoff, until `done`
/// or the game's side hangs up.
fn spawn_stream(api: Arc<Api>, id: String, tx: Sender<Msg>, done: Arc<AtomicBool>) {
    std::thread::spawn(move || {
        let path = format!("/api/bot/game/stream/{id}");
        let mut backoff = Backoff::default();
        let mut refusals = 0;
        while !done.load(Ordering::Relaxed) {
            let why = match api.stream(&path) {
                Ok(mut lines) => {
                    backoff.reset();
                    refusals = 0;
                    loop {
                        match lines.next_line() {
                            Ok(Some(l)) => match GameLine::parse(&l) {
                                Ok(g) => {
                                    if tx.send(Msg::Line(g, Instant::now())).is_err() {
                                        return;
                                    }
                                }
                                Err(e) => log(&format!("[{id}] stream: {e}")),
                            },
                            Ok(None) => break "the stream ended".to_string(),
                            Err(e) => break format!("the stream broke: {e}"),
                        }
                    }
                }
                Err(e) if !e.transient() => {
                    // The game is not there (yet, just after a restart), or not the bot's:
                    // a few tries, then the game is given up.
                    refusals += 1;
                    if refusals >= 5 {
                        let _ = tx.send(Msg::Gone(e.to_string()));
                        return;
                    }
                    format!("the stream was refused: {e}")
                }
                Err(e) => format!("the stream could not be opened: {e}"),
            };
            if done.load(Ordering::Relaxed) {
                return;
            }
            if tx.send(Msg::Lost(why)).is_err() {
                return;
            }
            std::thread::sleep(backoff.next());
        }
    });
}

/// Everything a game needs.
pub struct GameCtx {
    pub api: Arc<Api>,
    pub id: String,
    pub me: Me,
    /// The side from `gameStart`, if it said.
    pub color_hint: Option<Color>,
    pub spec: Arc<EngineSpec>,
    pub settings: Arc<Settings>,
}

/// Milliseconds as a clock shows them: `2:58.1`.
fn clock_text(ms: u64) -> String {
    format!("{}:{:04.1}", ms / 60_000, (ms % 60_000) as f64 / 1000.0)
}

fn score_text(r: &Reply) -> String {
    match (r.mate, r.score) {
        (Some(m), _) => format!("mate {m}"),
        (None, Some(s)) => format!("{s:+} cp"),
        _ => "no score".into(),
    }
}

fn side_name(c: Color) -> &'static str {
    match c {
        Color::Red => "red",
        Color::Black => "black",
    }
}

/// A game played out.
struct Play {
    ctx: GameCtx,
    full: Option<Full>,
    state: State,
    /// When the last state arrived.
    state_at: Instant,
    me: Option<Color>,
    engine: Option<EngineProc>,
    engine_fails: u32,
    scores: Scores,
    /// The engine's comment for each of the bot's moves, by ply.
    comments: HashMap<usize, String>,
    /// Plies already logged.
    logged: usize,
    done: Arc<AtomicBool>,
}

/// Plays the game until it ends (or cannot go on); logs it and writes its PGN.
pub fn play(ctx: GameCtx) {
    let (tx, rx) = mpsc::channel();
    let done = Arc::new(AtomicBool::new(false));
    spawn_stream(ctx.api.clone(), ctx.id.clone(), tx, done.clone());
    let mut p = Play {
        ctx,
        full: None,
        state: State::default(),
        state_at: Instant::now(),
        me: None,
        engine: None,
        engine_fails: 0,
        scores: Scores::default(),
        comments: HashMap::new(),
        logged: 0,
        done,
    };
    p.run(&rx);
    p.done.store(true, Ordering::Relaxed);
    if let Some(e) = p.engine.take() {
        e.quit();
    }
    p.finish();
}

impl Play {
    fn tag(&self) -> String {
        format!("[{}]", self.ctx.id)
    }

    /// Takes a message; `false` when the game cannot go on.
    fn take(&mut self, m: Msg) -> bool {
        match m {
            Msg::Line(GameLine::Full(f), at) => {
                let first = self.full.is_none();
                self.me = f.my_color(&self.ctx.me, self.ctx.color_hint);
                if first {
                    let tc = match f.clock {
                        Some((i, inc)) => format!("{}+{}", i / 1000, inc / 1000),
                        None => "no clock".into(),
                    };
                    log(&format!(
                        "{} {} vs {}, {} {} {}, the bot plays {}",
                        self.tag(),
                        f.players[0].describe(),
                        f.players[1].describe(),
                        if f.rated { "rated" } else { "casual" },
                        f.speed,
                        tc,
                        self.me.map(side_name).unwrap_or("no side (watching)")
                    ));
                } else {
                    log(&format!(
                        "{} stream reopened: {} moves played, status {}",
                        self.tag(),
                        f.state.moves.len(),
                        f.state.status
                    ));
                }
                self.state = f.state.clone();
                self.state_at = at;
                self.full = Some(*f);
                self.log_moves();
            }
            Msg::Line(GameLine::State(s), at) => {
                self.state = s;
                self.state_at = at;
                self.log_moves();
            }
            Msg::Line(_, _) => {}
            Msg::Lost(why) => log(&format!("{} {why}; reconnecting", self.tag())),
            Msg::Gone(why) => {
                log(&format!(
                    "{} the game's stream: {why}; giving the game up",
                    self.tag()
                ));
                return false;
            }
        }
        true
    }

    /// The game so far, from the start position and the state's moves.
    fn game(&self) -> Result<Game, String> {
        let fen = self
            .full
            .as_ref()
            .map(|f| f.initial_fen.as_str())
            .unwrap_or(START_FEN);
        let start = Position::from_fen(fen).map_err(|e| format!("bad initialFen '{fen}': {e}"))?;
        Game::replay(start, Rules::default(), &self.state.moves).map_err(|e| e.to_string())
    }

    /// One line on stderr for each move not logged yet (the bot's own with the engine's
    /// score and time, when this process made them).
    fn log_moves(&mut self) {
        let n = self.state.moves.len();
        if n < self.logged {
            self.logged = n; // a takeback
        }
        let Ok(game) = self.game() else { return };
        let red_first = game.start().turn() == Color::Red;
        for ply in self.logged..n {
            let side = if (ply % 2 == 0) == red_first {
                Color::Red
            } else {
                Color::Black
            };
            let who = if Some(side) == self.me {
                "bot"
            } else {
                "opponent"
            };
            let extra = self
                .comments
                .get(&ply)
                .map(|c| format!(" {c}"))
                .unwrap_or_default();
            let clocks = match self.state.time {
                [Some(r), Some(b)] if ply + 1 == n => {
                    format!(" (red {} black {})", clock_text(r), clock_text(b))
                }
                _ => String::new(),
            };
            log(&format!(
                "{} ply {} {} {} {}{extra}{clocks}",
                self.tag(),
                ply + 1,
                side_name(side),
                self.state.moves[ply],
                who
            ));
        }
        self.logged = n;
    }

    /// Waits for the next message (`timeout`), then takes every one waiting, so that the bot
    /// acts on the newest state. `false` when the game cannot go on.
    fn pump(&mut self, rx: &Receiver<Msg>, timeout: Duration) -> bool {
        match rx.recv_timeout(timeout) {
            Ok(m) => {
                if !self.take(m) {
                    return false;
                }
            }
            Err(RecvTimeoutError::Timeout) => return true,
            Err(RecvTimeoutError::Disconnected) => return false,
        }
        while let Ok(m) = rx.try_recv() {
            if !self.take(m) {
                return false;
            }
        }
        true
    }

    fn run(&mut self, rx: &Receiver<Msg>) {
        // Moves the bot has posted, by the ply they were for: never twice for one ply.
        let mut posted: Option<usize> = None;
        // Moves refused (not a network failure) at the ply `refused.0`: the engine is asked
        // again, up to three times a ply, a second apart.
        let mut refused = (0usize, 0u32);
        loop {
            if !self.pump(rx, Duration::from_millis(500)) {
                return;
            }
            if self.full.is_none() {
                continue;
            }
            if !self.state.ongoing() {
                return;
            }
            let Some(me) = self.me else { continue };
            let game = match self.game() {
                Ok(g) => g,
                Err(e) => {
                    log(&format!("{} cannot follow the game: {e}", self.tag()));
                    continue;
                }
            };
            let ply = game.len();
            if game.position().turn() != me || posted == Some(ply) {
                continue;
            }
            let Some(reply) = self.think(&game, me) else {
                // The engine failed twice: the game is resigned.
                let _ = self.post_retrying(
                    rx,
                    &format!("/api/bot/game/{}/resign", self.ctx.id),
                    &[],
                    ply,
                );
                posted = Some(ply);
                continue;
            };
            // Whatever arrived meanwhile: if the game moved on, this move is for a position
            // that is gone.
            if !self.pump(rx, Duration::ZERO) {
                return;
            }
            if self.state.moves.len() != ply || !self.state.ongoing() {
                log(&format!(
                    "{} the game moved on while the engine thought; its move is dropped",
                    self.tag()
                ));
                continue;
            }
            let pos = game.position();
            let mv = reply
                .mv
                .as_deref()
                .ok_or_else(|| "the engine gave no move".to_string())
                .and_then(|t| {
                    let e = self.engine.as_ref().expect("thought");
                    e.parse_move(t)
                        .and_then(|u| u.to_move(pos).map_err(|e| e.to_string()))
                });
            let mv = match mv {
                Ok(m) => m,
                Err(e) => {
                    log(&format!(
                        "{} the engine's move is not legal in {}: {e}; resigning",
                        self.tag(),
                        pos.fen()
                    ));
                    let _ = self.post_retrying(
                        rx,
                        &format!("/api/bot/game/{}/resign", self.ctx.id),
                        &[],
                        ply,
                    );
                    posted = Some(ply);
                    continue;
                }
            };
            let pieces = pos.board().occupied().count();
            let verdict = self.scores.verdict(&self.ctx.settings, reply.score, pieces);
            posted = Some(ply);
            let id = self.ctx.id.clone();
            match verdict {
                Verdict::Resign => {
                    log(&format!(
                        "{} resigning: the engine's score {} is at or below the resignation threshold",
                        self.tag(),
                        score_text(&reply)
                    ));
                    let _ = self.post_retrying(rx, &format!("/api/bot/game/{id}/resign"), &[], ply);
                }
                Verdict::Move { offer_draw } => {
                    let mut comment = format!(
                        "{}, depth {}, {:.2} s",
                        score_text(&reply),
                        reply.depth.unwrap_or(0),
                        reply.elapsed_ms as f64 / 1000.0
                    );
                    if offer_draw {
                        comment.push_str(if self.state.draw_offer[(!me).index()] {
                            ", accepting the draw offer"
                        } else {
                            ", offering a draw"
                        });
                    }
                    self.comments.insert(ply, comment);
                    let path = format!(
                        "/api/bot/game/{id}/move/{mv}{}",
                        if offer_draw { "?offeringDraw=true" } else { "" }
                    );
                    if let Err(e) = self.post_retrying(rx, &path, &[], ply) {
                        if refused.0 != ply {
                            refused = (ply, 0);
                        }
                        refused.1 += 1;
                        log(&format!(
                            "{} the move {mv} was refused: {e}{}",
                            self.tag(),
                            if refused.1 < 3 {
                                "; asking the engine again"
                            } else {
                                ""
                            }
                        ));
                        if refused.1 < 3 {
                            std::thread::sleep(Duration::from_secs(1));
                            posted = None;
                        }
                    }
                }
            }
        }
    }

    /// Posts an action for the position at `ply`; after a network failure (or a 5xx, 429)
    /// tries again with backoff as long as the stream shows the game still at that ply.
    fn post_retrying(
        &mut self,
        rx: &Receiver<Msg>,
        path: &str,
        form: &[(&str, &str)],
        ply: usize,
    ) -> Result<(), HttpError> {
        let mut backoff = Backoff::default();
        loop {
            match self.ctx.api.post(path, form) {
                Ok(_) => return Ok(()),
                Err(e) if e.transient() => {
                    log(&format!("{} {path}: {e}; trying again", self.tag()));
                    let wait = backoff.next();
                    let until = Instant::now() + wait;
                    while Instant::now() < until {
                        if !self.pump(rx, until - Instant::now()) {
                            return Err(e);
                        }
                        if self.state.moves.len() != ply || !self.state.ongoing() {
                            log(&format!(
                                "{} the game moved on; not sending {path} again",
                                self.tag()
                            ));
                            return Ok(());
                        }
                    }
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// The engine, started (and its handshake done) when needed.
    fn engine(&mut self) -> Result<&mut EngineProc, Failure> {
        if self.engine.is_none() {
            let tag = format!("game {}", self.ctx.id);
            let mut e = EngineProc::start(
                self.ctx.spec.clone(),
                self.ctx.settings.log_dir.as_deref(),
                false,
                &tag,
                Arc::new(AtomicBool::new(false)),
            )?;
            e.init()?;
            self.engine = Some(e);
        }
        Ok(self.engine.as_mut().expect("started"))
    }

    /// The engine's answer for the position, on the server's clock. An engine that fails
    /// is started again once; `None` after a second failure.
    fn think(&mut self, game: &Game, me: Color) -> Option<Reply> {
        let since = self.state_at.elapsed().as_millis() as u64;
        let clocks = engine_clocks(
            &self.state,
            self.full.as_ref().and_then(|f| f.clock),
            me,
            self.ctx.settings.move_overhead_ms,
            since,
        );
        loop {
            let settings = self.ctx.settings.clone();
            let res = self.engine().and_then(|e| {
                let (go, wait) = match clocks {
                    Some((t, inc)) => (e.go_clock(me, t, inc, None), t[me.index()] + 10_000),
                    None => (
                        e.go_movetime(settings.corr_movetime_ms),
                        settings.corr_movetime_ms + 10_000,
                    ),
                };
                e.think(game.start(), &game.moves(), &go, wait, "reply with a move")
            });
            match res {
                Ok(r) => return Some(r),
                Err(f) => {
                    self.engine_fails += 1;
                    self.engine = None;
                    log(&format!("{} the engine {f}", self.ctx.id));
                    if self.engine_fails >= 2 {
                        return None;
                    }
                    log(&format!("{} starting the engine again", self.tag()));
                }
            }
        }
    }

    /// The end: a line on stderr and the PGN in the log folder.
    fn finish(&self) {
        let Some(full) = &self.full else {
            log(&format!(
                "{} ended before its stream gave the game",
                self.tag()
            ));
            return;
        };
        let result = self.state.result();
        log(&format!(
            "{} over: {}{}, {}",
            self.tag(),
            self.state.status,
            self.state
                .winner
                .map(|w| format!(", {} wins", side_name(w)))
                .unwrap_or_default(),
            result.as_pgn()
        ));
        let Some(dir) = &self.ctx.settings.log_dir else {
            return;
        };
        let game = match self.game() {
            Ok(g) => g,
            Err(e) => {
                log(&format!("{} no PGN: {e}", self.tag()));
                return;
            }
        };
        let mut record = GameRecord {
            start: game.start().clone(),
            ..GameRecord::default()
        };
        let mode = if full.rated { "Rated" } else { "Casual" };
        record.set_tag("Event", format!("{mode} {} game", full.speed));
        record.set_tag("Site", format!("{}/{}", self.ctx.api.base(), self.ctx.id));
        record.set_tag("Date", xiangqi_match::play::pgn_date());
        record.set_tag("Red", full.players[0].name.clone());
        record.set_tag("Black", full.players[1].name.clone());
        if let Some((i, inc)) = full.clock {
            record.set_tag("TimeControl", format!("{}+{}", i / 1000, inc / 1000));
        }
        record.set_tag("Termination", self.state.status.clone());
        record.result = result;
        record.moves = game
            .moves()
            .into_iter()
            .enumerate()
            .map(|(i, m)| {
                let mut n = MoveNode::new(m);
                n.comment = self.comments.get(&i).cloned();
                n
            })
            .collect();
        let mut text = String::new();
        xiangqi_record::pgn::write_game(&mut text, &record, xiangqi::notation::Notation::Iccs);
        let path = dir.join(format!("{}.pgn", self.ctx.id));
        match std::fs::write(&path, text) {
            Ok(()) => log(&format!("{} PGN written to {}", self.tag(), path.display())),
            Err(e) => log(&format!(
                "{} cannot write {}: {e}",
                self.tag(),
                path.display()
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A gameFull as lichess's Bot API sends it (with the fields of a chess game trimmed).
    const FULL: &str = r#"{"id":"5IrD6Gzz","variant":{"key":"standard","name":"Standard","short":"Std"},"speed":"blitz","perf":{"name":"Blitz"},"rated":true,"createdAt":1700000000000,"white":{"id":"thibot","name":"thibot","title":"BOT","rating":1789},"black":{"id":"leela","name":"leela","title":null,"rating":2390},"initialFen":"startpos","clock":{"initial":180000,"increment":2000},"type":"gameFull","state":{"type":"gameState","moves":"h2e2 h9g7","wtime":176000,"btime":178500,"winc":2000,"binc":2000,"wdraw":false,"bdraw":true,"status":"started"}}"#;

    #[test]
    fn reads_lichess_game_lines() {
        let GameLine::Full(f) = GameLine::parse(FULL).unwrap() else {
            panic!("not a gameFull")
        };
        assert_eq!(f.id, "5IrD6Gzz");
        assert_eq!(f.initial_fen, START_FEN);
        assert_eq!(f.players[0].describe(), "BOT thibot (1789)");
        assert_eq!(f.players[1].describe(), "leela (2390)");
        assert_eq!(f.clock, Some((180_000, 2000)));
        assert!(f.rated);
        assert_eq!(f.speed, "blitz");
        assert_eq!(f.state.moves, ["h2e2", "h9g7"]);
        assert_eq!(f.state.time, [Some(176_000), Some(178_500)]);
        assert_eq!(f.state.inc, [Some(2000), Some(2000)]);
        assert_eq!(f.state.draw_offer, [false, true]);
        assert!(f.state.ongoing());
        let me = |id: &str, name: &str| Me {
            id: id.into(),
            name: name.into(),
        };
        assert_eq!(f.my_color(&me("thibot", "thibot"), None), Some(Color::Red));
        assert_eq!(f.my_color(&me("x", "Leela"), None), Some(Color::Black));
        assert_eq!(
            f.my_color(&me("x", "y"), Some(Color::Black)),
            Some(Color::Black)
        );
        assert_eq!(f.my_color(&me("x", "y"), None), None);

        let end = r#"{"type":"gameState","moves":"h2e2 h9g7 h0g2","wtime":170000,"btime":0,"winc":2000,"binc":2000,"status":"outoftime","winner":"white"}"#;
        let GameLine::State(s) = GameLine::parse(end).unwrap() else {
            panic!()
        };
        assert!(!s.ongoing());
        assert_eq!(s.winner, Some(Color::Red));
        assert_eq!(s.result(), GameResult::RedWins);
        let draw = State::from_json(&serde_json::json!({"moves": "", "status": "draw"}));
        assert_eq!(draw.result(), GameResult::Draw);
        assert_eq!(draw.time, [None, None]);
        let aborted = State::from_json(&serde_json::json!({"status": "aborted"}));
        assert_eq!(aborted.result(), GameResult::Unknown);
        let chase =
            State::from_json(&serde_json::json!({"status": "perpetualChase", "winner": "black"}));
        assert_eq!(chase.result(), GameResult::BlackWins);

        // The server's own board-API names: red, rtime, drawOffer, seat.
        let ours = r#"{"type":"gameFull","id":"P7rJkgPF","clock":{"initial":60000,"increment":1000},"red":{"name":"ann","user":"Ann"},"black":{"name":"bot"},"initialFen":"rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1","state":{"moves":"","rtime":60000,"btime":60000,"status":"created","drawOffer":"red"},"seat":"black","rated":false,"speed":"bullet"}"#;
        let GameLine::Full(o) = GameLine::parse(ours).unwrap() else {
            panic!()
        };
        assert_eq!(o.players[0].id, "ann");
        assert_eq!(o.state.time, [Some(60_000), Some(60_000)]);
        assert_eq!(o.state.draw_offer, [true, false]);
        assert_eq!(o.my_color(&me("ann", "ann"), None), Some(Color::Black));

        assert_eq!(GameLine::parse("").unwrap(), GameLine::KeepAlive);
        assert_eq!(
            GameLine::parse(r#"{"type":"chatLine","username":"x","text":"hi","room":"player"}"#)
                .unwrap(),
            GameLine::Other("chatLine".into())
        );
        assert!(GameLine::parse("{oops").unwrap_err().contains("not JSON"));
        assert!(GameLine::parse("{}")
            .unwrap_err()
            .contains("without a type"));
    }

    #[test]
    fn clock_arithmetic() {
        let s = State {
            time: [Some(60_000), Some(45_000)],
            inc: [Some(2000), None],
            ..State::default()
        };
        // Black's own time less the overhead and the time since the state came; its missing
        // increment from gameFull's clock.
        assert_eq!(
            engine_clocks(&s, Some((60_000, 1000)), Color::Black, 500, 120),
            Some(([60_000, 44_380], [2000, 1000]))
        );
        // Red: Black's time untouched.
        assert_eq!(
            engine_clocks(&s, None, Color::Red, 1000, 0),
            Some(([59_000, 45_000], [2000, 0]))
        );
        // Never below 1 ms.
        let low = State {
            time: [Some(300), Some(0)],
            ..State::default()
        };
        assert_eq!(
            engine_clocks(&low, None, Color::Red, 500, 50),
            Some(([1, 0], [0, 0]))
        );
        // No clock: None (correspondence plays by --corr-movetime).
        assert_eq!(
            engine_clocks(&State::default(), None, Color::Red, 0, 0),
            None
        );
        assert_eq!(clock_text(178_500), "2:58.5");
        assert_eq!(clock_text(5_000), "0:05.0");
    }

    #[test]
    fn resign_and_draw_thresholds() {
        let s = Settings {
            move_overhead_ms: 0,
            corr_movetime_ms: 1,
            resign: Some((-1000, 3)),
            draw: Some((20, 2, 10)),
            log_dir: None,
        };
        let mut sc = Scores::default();
        let mv = |d| Verdict::Move { offer_draw: d };
        assert_eq!(sc.verdict(&s, Some(-1200), 32), mv(false));
        assert_eq!(sc.verdict(&s, Some(-99_990), 32), mv(false));
        // A move without a score breaks the run.
        assert_eq!(sc.verdict(&s, None, 32), mv(false));
        assert_eq!(sc.verdict(&s, Some(-1000), 32), mv(false));
        assert_eq!(sc.verdict(&s, Some(-1500), 32), mv(false));
        assert_eq!(sc.verdict(&s, Some(-1001), 32), Verdict::Resign);
        // Draws: within ±20 for 2 moves, and only with at most 10 pieces.
        let mut sc = Scores::default();
        assert_eq!(sc.verdict(&s, Some(5), 8), mv(false));
        assert_eq!(sc.verdict(&s, Some(-20), 12), mv(false));
        assert_eq!(sc.verdict(&s, Some(0), 10), mv(true));
        assert_eq!(sc.verdict(&s, Some(21), 10), mv(false));
        // Neither without the thresholds.
        let off = Settings {
            resign: None,
            draw: None,
            ..s
        };
        let mut sc = Scores::default();
        for _ in 0..10 {
            assert_eq!(sc.verdict(&off, Some(-5000), 4), mv(false));
            assert_eq!(sc.verdict(&off, Some(0), 4), mv(false));
        }
    }
}
