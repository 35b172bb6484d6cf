//! The `online` mode: live games between people through the board API, on loopback only.
//!
//! `xiangqi-loadgen online --url http://127.0.0.1:PORT --games N --rate R --seconds S
//! [--moves M] [--senders K] [--plies P] [--seed X] [--server-pid PID]`
//!
//! 1. Opens N games (`POST /api/challenge/open`, no clock) over K keep-alive connections.
//! 2. Opens both players' streams of every game (`GET /api/board/game/stream/{id}` with the
//!    seat's bearer token): 2N connections that stay open, read as chunked ndjson.
//! 3. Plays R moves a second in all (the games take turns: a game is ready for its next move
//!    when the previous one was answered and the opponent's stream has it) for S seconds or M
//!    moves, whichever comes first. Each move is `POST /api/board/game/{id}/move/{uci}` by
//!    the side to move, over the K connections: a random legal move (seeded xorshift per
//!    game) that does not end the game; a game that ends anyway or reaches P plies is
//!    resigned and replaced by a new one with new streams.
//! 4. Waits (at most 5 s) for the moves in flight, then checks that every stream saw every
//!    move of its game exactly once and in order (the `moves` of each `gameState` against
//!    the moves played), and prints what it measured: the latency from a move's POST being
//!    written to the opponent's stream holding the `gameState` with it, the POST's own
//!    round trip, moves/s, errors, and with `--server-pid` the server's RSS (from
//!    /proc/PID/status) before and after the streams were opened, its open file descriptors
//!    and its CPU time.
//!
//! `--url` given twice (or more) splits the clients over several nodes (`xiangqi serve
//! --redis`): games are opened on each in turn, Red's stream and moves go to the first node,
//! Black's to the second (so every move is relayed across nodes), with `--senders`
//! connections to each node.
//!
//! `--baseline` (with `--server-pid`) instead only opens 2N keep-alive connections that each
//! make one `GET /api/health` and then stay idle, and prints what they cost the server: what
//! any HTTP connection costs, to set against the streams' figure.
//!
//! `--bots` plays the same games between bot accounts through lichess's Bot API (see
//! `bots.rs`): 2N bots made first, each with its event stream open, the games started by a
//! challenge and its acceptance, moves and streams on `/api/bot/game/...`.
//!
//! Every phase is bounded in time (opening: 120 s at most each), the playing loop by S and M.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Deserialize;
use serde_json::Value;
use tokio::sync::{mpsc, oneshot, Mutex, Semaphore};
use xiangqi::{Color, Game, Position};

use crate::{ask, loopback};

#[path = "bots.rs"]
mod bots;
use xiangqi_server::client::{self, Conn, Request};

const USAGE: &str =
    "usage: xiangqi-loadgen online --url http://127.0.0.1:PORT [--url URL2 ...] [--games N] \
[--rate MOVES_PER_S] [--seconds S] [--moves M] [--senders K] [--plies P] [--seed X] \
[--server-pid PID] [--threads T] [--baseline] [--bots]";

/// How long opening the games, or their streams, may take before the run gives up.
const OPEN_LIMIT: Duration = Duration::from_secs(120);
/// How long the run waits for the moves in flight after the playing time.
const DRAIN_LIMIT: Duration = Duration::from_secs(5);
/// At most this many streams are being opened at once.
const OPENING_AT_ONCE: usize = 64;

pub struct Args {
    addr: SocketAddr,
    host: String,
    /// Every node's address and host (the first is `addr`, `host`).
    nodes: Vec<(SocketAddr, String)>,
    games: usize,
    rate: f64,
    seconds: u64,
    moves: u64,
    senders: usize,
    plies: usize,
    seed: u64,
    server_pid: Option<u32>,
    threads: usize,
    /// Only measure what 2N plain keep-alive connections cost the server.
    baseline: bool,
    /// Bot accounts play the games, through the Bot API.
    bots: bool,
}

fn parse_args(args: &[String]) -> Result<Args, String> {
    let mut urls = Vec::new();
    let mut a = Args {
        addr: SocketAddr::from(([127, 0, 0, 1], 0)),
        host: String::new(),
        nodes: Vec::new(),
        games: 100,
        rate: 100.0,
        seconds: 10,
        moves: 1_000_000,
        senders: 16,
        plies: 300,
        seed: 1,
        server_pid: None,
        threads: 1,
        baseline: false,
        bots: false,
    };
    let mut i = 0;
    while i < args.len() {
        let name = args[i].as_str();
        let v = args
            .get(i + 1)
            .cloned()
            .ok_or_else(|| format!("{name} needs a value\n{USAGE}"));
        let num = |v: Result<String, String>| -> Result<f64, String> {
            let v = v?;
            v.parse::<f64>()
                .map_err(|_| format!("{name}: '{v}' is not a number"))
        };
        match name {
            "--url" => urls.push(v?),
            "--games" => a.games = num(v)? as usize,
            "--rate" => a.rate = num(v)?,
            "--seconds" => a.seconds = num(v)? as u64,
            "--moves" => a.moves = num(v)? as u64,
            "--senders" => a.senders = num(v)? as usize,
            "--plies" => a.plies = num(v)? as usize,
            "--seed" => a.seed = num(v)? as u64,
            "--server-pid" => a.server_pid = Some(num(v)? as u32),
            "--threads" => a.threads = num(v)? as usize,
            "--baseline" => {
                a.baseline = true;
                i += 1;
                continue;
            }
            "--bots" => {
                a.bots = true;
                i += 1;
                continue;
            }
            "-h" | "--help" => return Err(USAGE.into()),
            other => return Err(format!("unknown argument '{other}'\n{USAGE}")),
        }
        i += 2;
    }
    if urls.is_empty() {
        return Err(format!("--url is needed (http://127.0.0.1:PORT)\n{USAGE}"));
    }
    for u in &urls {
        a.nodes.push(loopback(u)?);
    }
    (a.addr, a.host) = a.nodes[0].clone();
    if a.games == 0 || a.games > 10_000 {
        return Err("--games must be from 1 to 10000".into());
    }
    if !(a.rate > 0.0 && a.rate <= 50_000.0) {
        return Err("--rate must be above 0 and at most 50000 moves/s".into());
    }
    if a.seconds == 0 || a.seconds > 600 {
        return Err("--seconds must be from 1 to 600".into());
    }
    if a.moves == 0 || a.moves > 10_000_000 {
        return Err("--moves must be from 1 to 10000000".into());
    }
    if a.senders == 0 || a.senders > 1024 {
        return Err("--senders must be from 1 to 1024".into());
    }
    if a.plies < 2 || a.plies > 1000 {
        return Err("--plies must be from 2 to 1000".into());
    }
    if a.threads == 0 || a.threads > 64 {
        return Err("--threads must be from 1 to 64".into());
    }
    let need = if a.bots { 4 } else { 2 } * a.games + a.senders * a.nodes.len() + 64;
    if let Some(limit) = open_files_limit() {
        if limit < need as u64 {
            return Err(format!(
                "{} games need about {need} file descriptors here, but the limit is {limit}: \
                 raise it first (ulimit -n {})",
                a.games,
                need.next_power_of_two().max(4096)
            ));
        }
    }
    Ok(a)
}

/// The soft limit on open files of this process, from /proc/self/limits.
fn open_files_limit() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = s.lines().find(|l| l.starts_with("Max open files"))?;
    line["Max open files".len()..]
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// A field of /proc/PID/status in kB (`VmRSS`).
fn status_kb(pid: u32, field: &str) -> Option<u64> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = s.lines().find(|l| l.starts_with(field))?;
    line[field.len()..]
        .trim_start_matches(':')
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// How many file descriptors process `pid` has open.
fn open_fds(pid: u32) -> Option<usize> {
    Some(std::fs::read_dir(format!("/proc/{pid}/fd")).ok()?.count())
}

/// User + system CPU time of process `pid`, in seconds (clock ticks taken as 100 a second,
/// Linux's USER_HZ).
fn cpu_seconds(pid: u32) -> Option<f64> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name may hold spaces: the fields after it start after the last ')'.
    let rest = &s[s.rfind(')')? + 1..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let utime: f64 = f.get(11)?.parse().ok()?;
    let stime: f64 = f.get(12)?.parse().ok()?;
    Some((utime + stime) / 100.0)
}

// ---- requests over the shared keep-alive connections ----

enum Reply {
    Once(oneshot::Sender<Answer>),
    Game(mpsc::UnboundedSender<GameMsg>),
}

/// A request's answer and its round trip (µs).
type Answer = (Result<(u16, Value), String>, u32);

struct Job {
    method: &'static str,
    path: String,
    bearer: Option<Arc<str>>,
    body: &'static str,
    /// Where to note when the request was written (µs since the run's epoch).
    sent_at: Option<Arc<AtomicU64>>,
    reply: Reply,
}

pub struct Ctx {
    args: Args,
    /// With `--bots`: the bots, two a game (`bots.rs`).
    bots: Vec<bots::Bot>,
    epoch: Instant,
    /// One queue of requests per node.
    jobs: Vec<mpsc::UnboundedSender<Job>>,
    /// Round robin over the nodes for the requests outside games (opening one).
    turn: AtomicUsize,
    ready: mpsc::UnboundedSender<usize>,
    opening: Semaphore,
    opened: AtomicUsize,
    open_failed: AtomicUsize,
}

impl Ctx {
    fn micros(&self) -> u64 {
        self.epoch.elapsed().as_micros() as u64
    }

    /// The games' endpoints: the Bot API's or the board API's.
    fn games_path(&self) -> &'static str {
        if self.args.bots {
            "/api/bot/game"
        } else {
            "/api/board/game"
        }
    }

    async fn ask(
        &self,
        path: String,
        bearer: Option<Arc<str>>,
        body: &'static str,
    ) -> Result<(u16, Value), String> {
        let (tx, rx) = oneshot::channel();
        let node = self.turn.fetch_add(1, Ordering::Relaxed) % self.jobs.len();
        self.jobs[node]
            .send(Job {
                method: "POST",
                path,
                bearer,
                body,
                sent_at: None,
                reply: Reply::Once(tx),
            })
            .map_err(|_| "the senders stopped".to_string())?;
        rx.await
            .map_err(|_| "the sender dropped the request".to_string())?
            .0
    }
}

async fn sender(ctx: Arc<Ctx>, node: usize, jobs: Arc<Mutex<mpsc::UnboundedReceiver<Job>>>) {
    let (addr, host) = ctx.args.nodes[node].clone();
    let mut conn: Option<Conn> = None;
    loop {
        let job = { jobs.lock().await.recv().await };
        let Some(job) = job else { return };
        if conn.is_none() {
            conn = Conn::connect(addr).await.ok().map(|c| c.with_host(&host));
        }
        let t = Instant::now();
        let answer = match conn.as_mut() {
            None => Err(format!("cannot connect to {addr}")),
            Some(c) => {
                if let Some(at) = &job.sent_at {
                    at.store(ctx.micros(), Ordering::SeqCst);
                }
                ask(c, job.method, &job.path, job.bearer.as_deref(), job.body).await
            }
        };
        if answer.is_err() {
            conn = None;
        }
        let us = t.elapsed().as_micros().min(u32::MAX as u128) as u32;
        match job.reply {
            Reply::Once(tx) => {
                let _ = tx.send((answer, us));
            }
            Reply::Game(tx) => {
                let _ = tx.send(GameMsg::Answered(answer, us));
            }
        }
    }
}

// ---- a game stream: chunked ndjson ----

struct GameStream {
    body: client::Stream,
}

impl GameStream {
    async fn open(ctx: &Ctx, node: usize, id: &str, token: &str) -> Result<GameStream, String> {
        let (addr, host) = &ctx.args.nodes[node];
        let req = Request::get(&format!("{}/stream/{id}", ctx.games_path())).bearer(Some(token));
        let body = Conn::connect(*addr)
            .await?
            .with_host(host)
            .stream(&req)
            .await?;
        if body.status() != 200 {
            return Err(format!("stream of {id}: status {}", body.status()));
        }
        if !body
            .header("transfer-encoding")
            .is_some_and(|v| v.contains("chunked"))
        {
            return Err(format!("stream of {id}: not chunked"));
        }
        Ok(GameStream { body })
    }

    /// The next line that is not blank (keep-alive); `None` when the server ended the stream.
    /// Cancel-safe: what was read is kept in the buffers.
    async fn next_line(&mut self) -> Result<Option<String>, String> {
        loop {
            match self.body.next_line().await? {
                Some(l) if l.trim().is_empty() => continue,
                other => return Ok(other),
            }
        }
    }
}

// ---- one game ----

#[derive(Deserialize)]
struct Line {
    #[serde(rename = "type")]
    kind: String,
    moves: Option<String>,
    status: Option<String>,
    state: Option<StateLine>,
}

#[derive(Deserialize)]
struct StateLine {
    moves: String,
    status: String,
}

enum GameMsg {
    Go,
    Answered(Result<(u16, Value), String>, u32),
    Stop,
}

/// What one game task counted.
#[derive(Default)]
struct Tally {
    /// Latency (µs) from a move's POST written to the opponent's stream holding it.
    to_opponent: Vec<u32>,
    /// The POST's round trip (µs).
    post: Vec<u32>,
    confirmed: u64,
    http_errors: u64,
    transport_errors: u64,
    stream_errors: u64,
    lines: u64,
    lost: u64,
    duplicated: u64,
    out_of_order: u64,
    mismatched: u64,
    resyncs: u64,
    /// Moves answered 200 that a stream had not shown by the end.
    unseen: u64,
    games_replaced: u64,
    ended_unexpectedly: u64,
    stalled_at_end: u64,
    first_errors: Vec<String>,
}

impl Tally {
    fn note(&mut self, e: String) {
        if self.first_errors.len() < 5 {
            self.first_errors.push(e);
        }
    }

    fn merge(&mut self, o: Tally) {
        self.to_opponent.extend(o.to_opponent);
        self.post.extend(o.post);
        self.confirmed += o.confirmed;
        self.http_errors += o.http_errors;
        self.transport_errors += o.transport_errors;
        self.stream_errors += o.stream_errors;
        self.lines += o.lines;
        self.lost += o.lost;
        self.duplicated += o.duplicated;
        self.out_of_order += o.out_of_order;
        self.mismatched += o.mismatched;
        self.resyncs += o.resyncs;
        self.unseen += o.unseen;
        self.games_replaced += o.games_replaced;
        self.ended_unexpectedly += o.ended_unexpectedly;
        self.stalled_at_end += o.stalled_at_end;
        for e in o.first_errors {
            self.note(e);
        }
    }
}

pub struct Created {
    id: String,
    tokens: [Arc<str>; 2],
}

/// Game `idx`'s next game: an open challenge's seats, or its bots' challenge accepted.
async fn create_game(ctx: &Ctx, idx: usize) -> Result<Created, String> {
    if ctx.args.bots {
        return bots::challenge(ctx, idx).await;
    }
    let (status, v) = ctx
        .ask("/api/challenge/open".into(), None, "{}")
        .await
        .map_err(|e| format!("opening a game: {e}"))?;
    if status != 200 {
        return Err(format!("opening a game: {status} {v}"));
    }
    let field = |k: &str| {
        v[k].as_str()
            .map(String::from)
            .ok_or_else(|| format!("opening a game: no '{k}' in {v}"))
    };
    Ok(Created {
        id: field("id")?,
        tokens: [field("tokenRed")?.into(), field("tokenBlack")?.into()],
    })
}

/// A game in play: the moves as the server should have them, and what each stream saw.
struct Play {
    id: String,
    tokens: [Arc<str>; 2],
    game: Game,
    /// The moves played, joined by spaces; `ends[n]` is where the first n end.
    joined: String,
    ends: Vec<usize>,
    /// How many moves each stream (Red's, Black's) has shown.
    seen: [usize; 2],
    /// Moves answered 200.
    confirmed: usize,
    /// A move's answer is awaited.
    awaiting_answer: bool,
    /// The latency of the move in flight is still to be taken (from the opponent's stream).
    timing: bool,
    /// The game ended: replace it at its next turn.
    finished: bool,
    /// Something went wrong (an error answer, a stream that ended, moves that do not match):
    /// stop waiting for its streams and replace it.
    broken: bool,
    sent_at: Arc<AtomicU64>,
}

impl Play {
    fn new(c: Created) -> Play {
        Play {
            id: c.id,
            tokens: c.tokens,
            game: Game::new(Position::new()),
            joined: String::new(),
            ends: vec![0],
            seen: [0, 0],
            confirmed: 0,
            awaiting_answer: false,
            timing: false,
            finished: false,
            broken: false,
            sent_at: Arc::new(AtomicU64::new(0)),
        }
    }

    /// The moves played (the one in flight included).
    fn played(&self) -> usize {
        self.ends.len() - 1
    }

    /// A move is in flight: its answer, or a stream's showing it, is awaited.
    fn in_flight(&self) -> bool {
        self.awaiting_answer || (!self.broken && self.seen.iter().any(|&s| s < self.played()))
    }

    /// A stream's line. Returns whether the game is now ready for its next move.
    fn on_line(&mut self, side: Color, line: &[u8], now_us: u64, t: &mut Tally) -> bool {
        t.lines += 1;
        let l: Line = match serde_json::from_slice(line) {
            Ok(l) => l,
            Err(e) => {
                t.stream_errors += 1;
                t.note(format!("game {}: unreadable line: {e}", self.id));
                return false;
            }
        };
        let (moves, status) = match l.kind.as_str() {
            "gameState" => match (l.moves, l.status) {
                (Some(m), Some(s)) => (m, s),
                _ => {
                    t.stream_errors += 1;
                    return false;
                }
            },
            // A stream gets gameFull first, and again only if it fell behind.
            "gameFull" => {
                t.resyncs += 1;
                match l.state {
                    Some(s) => (s.moves, s.status),
                    None => return false,
                }
            }
            _ => return false,
        };
        let k = side.index();
        let n = if moves.is_empty() {
            0
        } else {
            moves.split(' ').count()
        };
        let seen = self.seen[k];
        if n > self.ends.len() - 1 || moves != self.joined[..self.ends[n]] {
            t.mismatched += 1;
            t.note(format!(
                "game {}: {}'s stream shows moves '{moves}', played '{}'",
                self.id,
                side.name(),
                self.joined
            ));
            self.finished = true;
            self.broken = true;
            return false;
        }
        let full = l.kind == "gameFull";
        if n == seen + 1 {
            self.seen[k] = n;
        } else if n == seen {
            if !full && (status == "started" || status == "created") {
                t.duplicated += 1;
            }
        } else if n > seen + 1 {
            t.lost += (n - seen - 1) as u64;
            self.seen[k] = n;
        } else {
            t.out_of_order += 1;
            self.seen[k] = n;
        }
        // The move in flight is ply `last`; Red made it when `last` is odd (Red starts).
        let last = self.played();
        let mover = if last % 2 == 1 {
            Color::Red
        } else {
            Color::Black
        };
        if self.timing && side != mover && self.seen[k] >= last {
            let sent = self.sent_at.load(Ordering::SeqCst);
            t.to_opponent
                .push(now_us.saturating_sub(sent).min(u32::MAX as u64) as u32);
            self.timing = false;
        }
        if status != "started" && status != "created" && !self.finished {
            t.ended_unexpectedly += 1;
            self.finished = true;
        }
        !self.in_flight()
    }

    /// Chooses the side to move's next move: random, legal, not ending the game if possible.
    fn choose(&mut self, rng: &mut u64) -> Option<String> {
        let legal = self.game.position().legal_moves();
        if legal.is_empty() {
            return None;
        }
        let n = legal.len();
        let start = (xorshift(rng) % n as u64) as usize;
        let mut fallback = None;
        for j in 0..n {
            let m = legal[(start + j) % n];
            self.game.push_unchecked(m);
            let ends = self.game.outcome().is_some();
            self.game.pop();
            if !ends {
                return Some(m.to_string());
            }
            fallback.get_or_insert(m);
        }
        fallback.map(|m| m.to_string())
    }

    fn push(&mut self, uci: &str) {
        let m = self.game.position().parse_uci(uci).expect("a legal move");
        self.game.push_unchecked(m);
        if !self.joined.is_empty() {
            self.joined.push(' ');
        }
        self.joined.push_str(uci);
        self.ends.push(self.joined.len());
    }

    fn pop(&mut self) {
        self.game.pop();
        self.ends.pop();
        self.joined.truncate(*self.ends.last().unwrap_or(&0));
    }

    /// Adds what the end of the run found: moves answered but not shown on a stream.
    fn finish_tally(&self, t: &mut Tally) {
        for s in self.seen {
            t.unseen += self.confirmed.saturating_sub(s) as u64;
        }
        if self.in_flight() {
            t.stalled_at_end += 1;
        }
    }
}

fn xorshift(s: &mut u64) -> u64 {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    *s
}

async fn open_streams(
    ctx: &Ctx,
    id: &str,
    tokens: &[Arc<str>; 2],
) -> Result<[GameStream; 2], String> {
    let _permit = ctx.opening.acquire().await.map_err(|e| e.to_string())?;
    // Red on the first node, Black on the second (with several).
    let n = ctx.jobs.len();
    let red = GameStream::open(ctx, 0, id, &tokens[0]).await?;
    let black = GameStream::open(ctx, 1 % n, id, &tokens[1]).await?;
    Ok([red, black])
}

/// One game, kept going for the whole run: opens its streams, plays a move whenever the
/// scheduler says so, checks every line its streams get.
async fn game_task(
    ctx: Arc<Ctx>,
    idx: usize,
    first: Created,
    me: mpsc::UnboundedSender<GameMsg>,
    mut inbox: mpsc::UnboundedReceiver<GameMsg>,
) -> Tally {
    let mut t = Tally::default();
    let mut rng = (ctx.args.seed ^ 0x9e37_79b9_7f4a_7c15)
        .wrapping_add((idx as u64 + 1).wrapping_mul(0x2545_f491_4f6c_dd1d))
        | 1;
    let mut play = Play::new(first);
    let [mut red, mut black] =
        match open_streams(&ctx, &play.id.clone(), &play.tokens.clone()).await {
            Ok(s) => s,
            Err(e) => {
                ctx.open_failed.fetch_add(1, Ordering::SeqCst);
                t.stream_errors += 1;
                t.note(e);
                return t;
            }
        };
    ctx.opened.fetch_add(2, Ordering::SeqCst);
    let _ = ctx.ready.send(idx);
    let mut stopping: Option<Instant> = None;
    loop {
        if let Some(since) = stopping {
            let settled = !play.in_flight() && play.seen == [play.confirmed; 2];
            if settled || since.elapsed() >= DRAIN_LIMIT || play.broken {
                break;
            }
        }
        let wait = match stopping {
            Some(since) => DRAIN_LIMIT.saturating_sub(since.elapsed()),
            None => Duration::from_secs(3600),
        };
        tokio::select! {
            r = red.next_line() => {
                if !on_stream(&ctx, &mut play, Color::Red, r, &mut t) {
                    continue;
                }
                if stopping.is_none() { let _ = ctx.ready.send(idx); }
            }
            r = black.next_line() => {
                if !on_stream(&ctx, &mut play, Color::Black, r, &mut t) {
                    continue;
                }
                if stopping.is_none() { let _ = ctx.ready.send(idx); }
            }
            m = inbox.recv() => match m {
                None => break,
                Some(GameMsg::Stop) => stopping = Some(Instant::now()),
                Some(GameMsg::Answered(answer, us)) => {
                    play.awaiting_answer = false;
                    match answer {
                        Ok((200, _)) => {
                            play.confirmed += 1;
                            t.confirmed += 1;
                            t.post.push(us);
                        }
                        Ok((s, v)) => {
                            t.http_errors += 1;
                            t.note(format!("game {}: move answered {s} {v}", play.id));
                            play.timing = false;
                            play.pop();
                            play.finished = true;
                            play.broken = true;
                        }
                        Err(e) => {
                            t.transport_errors += 1;
                            t.note(format!("game {}: move: {e}", play.id));
                            play.timing = false;
                            play.finished = true;
                            play.broken = true;
                        }
                    }
                    if !play.in_flight() && stopping.is_none() {
                        let _ = ctx.ready.send(idx);
                    }
                }
                Some(GameMsg::Go) => {
                    if stopping.is_some() || play.in_flight() {
                        continue;
                    }
                    if play.finished || play.game.len() >= ctx.args.plies {
                        // Resign (if it still goes on) and start a new game with new streams.
                        if !play.finished {
                            let side = play.game.position().turn();
                            let path = format!("{}/{}/resign", ctx.games_path(), play.id);
                            let _ = ctx.ask(path, Some(play.tokens[side.index()].clone()), "").await;
                        }
                        play.finish_tally(&mut t);
                        let created = match create_game(&ctx, idx).await {
                            Ok(c) => c,
                            Err(e) => { t.note(e); t.http_errors += 1; break; }
                        };
                        play = Play::new(created);
                        match open_streams(&ctx, &play.id.clone(), &play.tokens.clone()).await {
                            Ok([r, b]) => { red = r; black = b; }
                            Err(e) => { t.stream_errors += 1; t.note(e); break; }
                        }
                        t.games_replaced += 1;
                        let _ = ctx.ready.send(idx);
                        continue;
                    }
                    let Some(uci) = play.choose(&mut rng) else {
                        play.finished = true;
                        let _ = ctx.ready.send(idx);
                        continue;
                    };
                    play.push(&uci);
                    play.awaiting_answer = true;
                    play.timing = true;
                    let side = !play.game.position().turn();
                    let job = Job {
                        method: "POST",
                        path: format!("{}/{}/move/{uci}", ctx.games_path(), play.id),
                        bearer: Some(play.tokens[side.index()].clone()),
                        body: "",
                        sent_at: Some(play.sent_at.clone()),
                        reply: Reply::Game(me.clone()),
                    };
                    // Each player's moves go to its own node.
                    let node = side.index() % ctx.jobs.len();
                    if ctx.jobs[node].send(job).is_err() {
                        break;
                    }
                }
            },
            _ = tokio::time::sleep(wait), if stopping.is_some() => {}
        }
    }
    play.finish_tally(&mut t);
    t
}

/// Handles what a stream gave; returns whether the game just became ready.
fn on_stream(
    ctx: &Ctx,
    play: &mut Play,
    side: Color,
    r: Result<Option<String>, String>,
    t: &mut Tally,
) -> bool {
    match r {
        Ok(Some(line)) => {
            let was = play.in_flight();
            let ready = play.on_line(side, line.as_bytes(), ctx.micros(), t);
            was && ready
        }
        Ok(None) | Err(_) => {
            if !play.broken {
                t.stream_errors += 1;
                t.note(format!(
                    "game {}: {}'s stream ended: {:?}",
                    play.id,
                    side.name(),
                    r.err()
                ));
                play.finished = true;
                play.broken = true;
            }
            false
        }
    }
}

fn pct(v: &[u32], p: f64) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    let i = ((v.len() as f64 * p).ceil() as usize).clamp(1, v.len()) - 1;
    v[i] as f64 / 1000.0
}

fn kb_line(label: &str, kb: Option<u64>) -> String {
    match kb {
        Some(k) => format!("{label} {:.1} MiB", k as f64 / 1024.0),
        None => format!("{label} ?"),
    }
}

pub fn main() {
    let all: Vec<String> = std::env::args().skip(2).collect();
    let args = match parse_args(&all) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("xiangqi-loadgen online: {e}");
            std::process::exit(2);
        }
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(args.threads)
        .enable_all()
        .build()
        .expect("runtime");
    let ok = rt.block_on(run(args));
    std::process::exit(if ok { 0 } else { 1 });
}

/// `--baseline`: the server's memory for 2N keep-alive connections that each made one
/// `GET /api/health` and then stay idle, for comparison with the streams' figure.
async fn baseline(args: &Args) -> bool {
    let Some(pid) = args.server_pid else {
        eprintln!("xiangqi-loadgen online: --baseline needs --server-pid");
        return false;
    };
    let n = 2 * args.games;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let rss0 = status_kb(pid, "VmRSS");
    let mut conns = Vec::with_capacity(n);
    for _ in 0..n {
        let Ok(c) = Conn::connect(args.addr).await else {
            eprintln!("xiangqi-loadgen: cannot connect to {}", args.addr);
            return false;
        };
        let mut c = c.with_host(&args.host);
        match ask(&mut c, "GET", "/api/health", None, "").await {
            Ok((200, _)) => conns.push(c),
            other => {
                eprintln!("xiangqi-loadgen: GET /api/health: {other:?}");
                return false;
            }
        }
    }
    tokio::time::sleep(Duration::from_secs(1)).await;
    let rss1 = status_kb(pid, "VmRSS");
    let fds = open_fds(pid);
    if let (Some(r0), Some(r1)) = (rss0, rss1) {
        println!(
            "baseline: {n} idle keep-alive connections (one GET /api/health each): server RSS \
             {:.1} -> {:.1} MiB = {:.1} KiB per connection; open fds {}",
            r0 as f64 / 1024.0,
            r1 as f64 / 1024.0,
            r1.saturating_sub(r0) as f64 / n as f64,
            fds.map_or("?".into(), |x| x.to_string())
        );
    }
    drop(conns);
    true
}

async fn run(args: Args) -> bool {
    if args.baseline {
        return baseline(&args).await;
    }
    let pid = args.server_pid;
    let (jobs_tx, jobs_rx): (Vec<_>, Vec<_>) = (0..args.nodes.len())
        .map(|_| mpsc::unbounded_channel())
        .unzip();
    let (ready_tx, mut ready_rx) = mpsc::unbounded_channel();
    // 0. with --bots, the bots and their event streams
    let events = Arc::new(bots::Events::default());
    let mut bot_list = Vec::new();
    let mut bots_secs = 0.0;
    if args.bots {
        let t = Instant::now();
        let made = tokio::time::timeout(
            OPEN_LIMIT,
            bots::make(&args.nodes, 2 * args.games, args.seed),
        )
        .await
        .unwrap_or_else(|_| Err(format!("the bots were not made in {OPEN_LIMIT:?}")));
        bot_list = match made {
            Ok(b) => b,
            Err(e) => {
                eprintln!("xiangqi-loadgen: {e}; stopping");
                return false;
            }
        };
        if let Err(e) = bots::open_events(&args.nodes, &bot_list, &events, OPEN_LIMIT).await {
            eprintln!("xiangqi-loadgen: {e}; stopping");
            return false;
        }
        bots_secs = t.elapsed().as_secs_f64();
    }
    let ctx = Arc::new(Ctx {
        bots: bot_list,
        args,
        epoch: Instant::now(),
        jobs: jobs_tx,
        turn: AtomicUsize::new(0),
        ready: ready_tx,
        opening: Semaphore::new(OPENING_AT_ONCE),
        opened: AtomicUsize::new(0),
        open_failed: AtomicUsize::new(0),
    });
    let a = &ctx.args;
    for (node, rx) in jobs_rx.into_iter().enumerate() {
        let rx = Arc::new(Mutex::new(rx));
        for _ in 0..a.senders {
            tokio::spawn(sender(ctx.clone(), node, rx.clone()));
        }
    }

    // 1. the games
    let rss0 = pid.and_then(|p| status_kb(p, "VmRSS"));
    let fds0 = pid.and_then(open_fds);
    let t0 = Instant::now();
    let mut pending = Vec::with_capacity(a.games);
    for idx in 0..a.games {
        let c = ctx.clone();
        pending.push(tokio::spawn(async move { create_game(&c, idx).await }));
    }
    let mut created = Vec::with_capacity(a.games);
    let all_created = tokio::time::timeout(OPEN_LIMIT, async {
        for p in pending {
            match p.await {
                Ok(Ok(c)) => created.push(c),
                Ok(Err(e)) => eprintln!("xiangqi-loadgen: {e}"),
                Err(e) => eprintln!("xiangqi-loadgen: {e}"),
            }
        }
    })
    .await;
    if all_created.is_err() || created.len() < a.games {
        eprintln!(
            "xiangqi-loadgen: opened {} of {} games in {:.1} s; stopping",
            created.len(),
            a.games,
            t0.elapsed().as_secs_f64()
        );
        return false;
    }
    let games_secs = t0.elapsed().as_secs_f64();
    tokio::time::sleep(Duration::from_millis(500)).await;
    let rss1 = pid.and_then(|p| status_kb(p, "VmRSS"));

    // 2. the streams
    let t1 = Instant::now();
    let mut inboxes = Vec::with_capacity(a.games);
    let mut tasks = Vec::with_capacity(a.games);
    for (idx, c) in created.into_iter().enumerate() {
        let (tx, rx) = mpsc::unbounded_channel();
        inboxes.push(tx.clone());
        tasks.push(tokio::spawn(game_task(ctx.clone(), idx, c, tx, rx)));
    }
    let want = 2 * a.games;
    let opened_in = loop {
        let done = ctx.opened.load(Ordering::SeqCst) + 2 * ctx.open_failed.load(Ordering::SeqCst);
        if done >= want {
            break Some(t1.elapsed().as_secs_f64());
        }
        if t1.elapsed() >= OPEN_LIMIT {
            break None;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    };
    let opened = ctx.opened.load(Ordering::SeqCst);
    let Some(streams_secs) = opened_in.filter(|_| opened == want) else {
        eprintln!("xiangqi-loadgen: opened {opened} of {want} streams; stopping");
        return false;
    };
    // Let the first lines (gameFull, crowd) be read and the server settle, then measure.
    tokio::time::sleep(Duration::from_secs(1)).await;
    let rss2 = pid.and_then(|p| status_kb(p, "VmRSS"));
    let fds2 = pid.and_then(open_fds);
    let cpu0 = pid.and_then(cpu_seconds);
    let self_cpu0 = cpu_seconds(std::process::id());

    // 3. the moves
    let t2 = Instant::now();
    let deadline = t2 + Duration::from_secs(a.seconds);
    let mut issued = 0u64;
    let mut waited_for_game = 0u64;
    let backlog_cap = ((a.rate / 10.0) as u64).max(1);
    let mut skipped = 0u64;
    'play: while Instant::now() < deadline && issued < a.moves {
        let due = ((t2.elapsed().as_secs_f64() * a.rate) as u64).min(a.moves);
        if due > issued + backlog_cap {
            skipped += due - issued - backlog_cap;
            issued = due - backlog_cap;
        }
        while issued < due {
            let idx = match ready_rx.try_recv() {
                Ok(i) => i,
                Err(_) => {
                    waited_for_game += 1;
                    match tokio::time::timeout_at(deadline.into(), ready_rx.recv()).await {
                        Ok(Some(i)) => i,
                        _ => break 'play,
                    }
                }
            };
            if inboxes[idx].send(GameMsg::Go).is_ok() {
                issued += 1;
            }
        }
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    let play_secs = t2.elapsed().as_secs_f64();
    let cpu1 = pid.and_then(cpu_seconds);
    let self_cpu1 = cpu_seconds(std::process::id());
    let fds3 = pid.and_then(open_fds);
    for tx in &inboxes {
        let _ = tx.send(GameMsg::Stop);
    }

    // 4. the reckoning
    let mut t = Tally::default();
    for task in tasks {
        match tokio::time::timeout(DRAIN_LIMIT + Duration::from_secs(5), task).await {
            Ok(Ok(x)) => t.merge(x),
            Ok(Err(e)) => t.note(format!("a game task failed: {e}")),
            Err(_) => t.note("a game task did not stop in time".into()),
        }
    }
    let rss3 = pid.and_then(|p| status_kb(p, "VmRSS"));
    let n = a.games;
    // Every game started gives both bots a gameStart, every game replaced (resigned or ended)
    // a gameFinish; the event streams may lag the game streams a little.
    let starts_due = 2 * (n as u64 + t.games_replaced);
    let finishes_due = 2 * t.games_replaced;
    let events_ok = if a.bots {
        let since = Instant::now();
        let settled = || {
            events.game_start.load(Ordering::SeqCst) == starts_due
                && events.game_finish.load(Ordering::SeqCst) == finishes_due
        };
        while !settled() && since.elapsed() < DRAIN_LIMIT {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        let ok = settled() && events.ended.load(Ordering::SeqCst) == 0;
        println!(
            "bots: {} made (registered, token, upgraded) with their event streams open in \
             {bots_secs:.2} s; event streams ended early {}; event lines {} (unreadable {}): \
             gameStart {} of {starts_due}, gameFinish {} of {finishes_due}: {}",
            ctx.bots.len(),
            events.ended.load(Ordering::SeqCst),
            events.lines.load(Ordering::SeqCst),
            events.unreadable.load(Ordering::SeqCst),
            events.game_start.load(Ordering::SeqCst),
            events.game_finish.load(Ordering::SeqCst),
            if ok {
                "every game's start and end reached both bots"
            } else {
                "EVENTS MISSING OR EXTRA"
            }
        );
        ok
    } else {
        true
    };
    let senders = a.senders * a.nodes.len();
    let conns = 2 * n + senders;
    println!(
        "games: {n} opened in {games_secs:.2} s; streams: {want} opened in {streams_secs:.2} s; \
         connections held by this client: {conns} ({want} streams + {senders} senders, {} node(s))",
        a.nodes.len()
    );
    if let Some(p) = pid {
        println!(
            "server (pid {p}): {}, {} after the games, {} after the streams, {} after the run; \
             open fds {} -> {} (streams open) -> {} (end of play)",
            kb_line("RSS", rss0),
            kb_line("", rss1).trim(),
            kb_line("", rss2).trim(),
            kb_line("", rss3).trim(),
            fds0.map_or("?".into(), |x| x.to_string()),
            fds2.map_or("?".into(), |x| x.to_string()),
            fds3.map_or("?".into(), |x| x.to_string()),
        );
        if let (Some(r0), Some(r1), Some(r2)) = (rss0, rss1, rss2) {
            println!(
                "server memory: {:.1} KiB per game (no stream), {:.1} KiB per idle stream connection",
                r1.saturating_sub(r0) as f64 / n as f64,
                r2.saturating_sub(r1) as f64 / want as f64,
            );
        }
    }
    let confirmed = t.confirmed;
    println!(
        "moves: {confirmed} answered 200 in {play_secs:.2} s = {:.0} moves/s (asked {:.0}); \
         moves due while no game was ready: {waited_for_game}, dropped from the schedule: {skipped}",
        confirmed as f64 / play_secs,
        a.rate
    );
    if let (Some(c0), Some(c1)) = (cpu0, cpu1) {
        let per = if confirmed > 0 {
            (c1 - c0) / confirmed as f64 * 1e6
        } else {
            0.0
        };
        println!(
            "server CPU while playing: {:.2} s ({:.0}% of one core), {per:.0} µs per move",
            c1 - c0,
            (c1 - c0) / play_secs * 100.0
        );
    }
    if let (Some(c0), Some(c1)) = (self_cpu0, self_cpu1) {
        println!(
            "this client's CPU while playing: {:.2} s ({:.0}% of one core)",
            c1 - c0,
            (c1 - c0) / play_secs * 100.0
        );
    }
    println!(
        "errors: http {}, transport {}, stream {}; games replaced {} (ended by the rules or \
         the server {}, the rest at {} plies)",
        t.http_errors,
        t.transport_errors,
        t.stream_errors,
        t.games_replaced,
        t.ended_unexpectedly,
        a.plies
    );
    t.to_opponent.sort_unstable();
    t.post.sort_unstable();
    for (what, v) in [
        (
            "POST sent -> opponent's stream has the move",
            &t.to_opponent,
        ),
        ("POST round trip", &t.post),
    ] {
        println!(
            "{what}: {} samples, ms p50 {:.2}  p90 {:.2}  p99 {:.2}  p99.9 {:.2}  max {:.2}",
            v.len(),
            pct(v, 0.50),
            pct(v, 0.90),
            pct(v, 0.99),
            pct(v, 0.999),
            pct(v, 1.0)
        );
    }
    // Every stream opens with gameFull: more than one a stream means a stream fell behind.
    let streams_opened = (want as u64) + 2 * t.games_replaced;
    let resyncs = t.resyncs.saturating_sub(streams_opened);
    let intact = t.lost == 0
        && t.duplicated == 0
        && t.out_of_order == 0
        && t.mismatched == 0
        && t.unseen == 0
        && resyncs == 0;
    println!(
        "streams: {} lines read; moves lost {}, duplicated {}, out of order {}, not matching \
         the moves played {}, answered but never shown {}, resent as gameFull {}; games still \
         waiting at the end {}: {}",
        t.lines,
        t.lost,
        t.duplicated,
        t.out_of_order,
        t.mismatched,
        t.unseen,
        resyncs,
        t.stalled_at_end,
        if intact {
            "every stream saw every move of its game once, in order"
        } else {
            "MOVES LOST, DUPLICATED OR OUT OF ORDER"
        }
    );
    for e in &t.first_errors {
        eprintln!("xiangqi-loadgen: {e}");
    }
    intact && events_ok && t.http_errors == 0 && t.transport_errors == 0 && t.stream_errors == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn play() -> Play {
        Play::new(Created {
            id: "AbCd1234".into(),
            tokens: ["r".into(), "b".into()],
        })
    }

    fn state(moves: &str) -> Vec<u8> {
        format!("{{\"type\":\"gameState\",\"moves\":\"{moves}\",\"status\":\"started\"}}\n")
            .into_bytes()
    }

    #[test]
    fn each_move_once_in_order_is_checked() {
        let mut p = play();
        let mut t = Tally::default();
        p.push("h2e2");
        p.awaiting_answer = true;
        p.timing = true;
        assert!(!p.on_line(Color::Red, &state("h2e2"), 10, &mut t));
        // Black's stream is the opponent's: the latency is taken there.
        assert!(t.to_opponent.is_empty());
        p.awaiting_answer = false;
        assert!(p.on_line(Color::Black, &state("h2e2"), 25, &mut t));
        assert_eq!(t.to_opponent, vec![25]);
        p.on_line(Color::Black, &state("h2e2"), 30, &mut t);
        assert_eq!(t.duplicated, 1);
        p.push("h9g7");
        p.push("b0c2");
        p.on_line(Color::Red, &state("h2e2 h9g7 b0c2"), 40, &mut t);
        assert_eq!(t.lost, 1);
        p.on_line(Color::Red, &state("h2e2"), 50, &mut t);
        assert_eq!(t.out_of_order, 1);
        assert_eq!(t.mismatched, 0);
        p.on_line(Color::Black, &state("h2e2 h9g8"), 60, &mut t);
        assert_eq!(t.mismatched, 1);
        assert!(p.broken);
    }

    #[test]
    fn the_chosen_moves_do_not_end_the_game() {
        let mut p = play();
        let mut rng = 7;
        for _ in 0..200 {
            let m = p.choose(&mut rng).unwrap();
            p.push(&m);
            assert!(p.game.outcome().is_none());
        }
        assert_eq!(p.joined.split(' ').count(), 200);
    }
}
