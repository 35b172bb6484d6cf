//! Live analysis over a WebSocket (`/api/analysis`): each connection has its own engine,
//! driven from a plain thread; results come back over channels.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::Arc;

use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::State;
use axum::response::Response;
use serde_json::Value;
use tokio::sync::mpsc as tmpsc;
use xiangqi::notation::Notation;
use xiangqi::{Game, Move, Position};
use xiangqi_engine::{Engine, Event, Limits, Score};

use crate::App;

/// A score as the API writes it: `{"cp": 35}` or `{"mate": 3}`.
#[derive(serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ScoreJson {
    Cp(i32),
    Mate(i32),
}

impl From<Score> for ScoreJson {
    fn from(s: Score) -> ScoreJson {
        match s {
            Score::Cp(cp) => ScoreJson::Cp(cp),
            Score::Mate(n) => ScoreJson::Mate(n),
        }
    }
}

/// What the server sends a WebSocket client.
#[derive(serde::Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum Reply {
    /// A finished iteration's line (score from the side to move's view; `turn` says whose).
    Info {
        id: u64,
        depth: i32,
        multipv: usize,
        score: ScoreJson,
        nodes: u64,
        nps: u64,
        time_ms: u64,
        pv: Vec<String>,
        pv_wxf: Vec<String>,
        pv_chinese: Vec<String>,
        turn: &'static str,
    },
    /// The search's answer.
    Bestmove { id: u64, best: Option<String> },
    /// A message that could not be acted on.
    Error {
        #[serde(skip_serializing_if = "Option::is_none")]
        id: Option<u64>,
        error: String,
    },
}

impl Reply {
    fn error(e: impl Into<String>) -> Reply {
        Reply::Error {
            id: None,
            error: e.into(),
        }
    }

    fn text(&self) -> Message {
        // Serializing these plain structs cannot fail.
        Message::Text(serde_json::to_string(self).unwrap_or_default().into())
    }
}

/// What a WebSocket client asks of its analysis engine.
enum Command {
    Go {
        id: u64,
        start: Box<Position>,
        moves: Vec<Move>,
        multipv: usize,
        movetime_ms: u64,
    },
    Stop,
}

pub async fn ws_handler(State(app): State<Arc<App>>, ws: WebSocketUpgrade) -> Response {
    ws.max_message_size(64 * 1024)
        .max_frame_size(64 * 1024)
        .on_upgrade(move |socket| session(socket, app))
}

fn parse_go(v: &Value) -> Result<Command, String> {
    let id = v.get("id").and_then(Value::as_u64).unwrap_or(0);
    let fen = match v.get("fen") {
        None | Some(Value::Null) => xiangqi::START_FEN,
        Some(Value::String(s)) => s.as_str(),
        Some(_) => return Err("field 'fen' must be a string".into()),
    };
    let moves: Vec<&str> = match v.get("moves") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(a)) => {
            if a.len() > 2000 {
                return Err("field 'moves' has more than 2000 moves".into());
            }
            a.iter()
                .enumerate()
                .map(|(i, m)| {
                    m.as_str()
                        .ok_or_else(|| format!("moves[{i}] must be a string"))
                })
                .collect::<Result<_, _>>()?
        }
        Some(_) => return Err("field 'moves' must be an array of coordinate moves".into()),
    };
    let game = Game::from_uci(fen.trim(), moves).map_err(|e| match e {
        xiangqi::ReplayError::Fen(e) => format!("bad FEN '{fen}': {e}"),
        xiangqi::ReplayError::Move { index, text, error } => {
            format!("moves[{index}] ({text}): {error}")
        }
    })?;
    let multipv = match v.get("multipv") {
        None | Some(Value::Null) => 1,
        Some(x) => {
            x.as_u64()
                .filter(|n| (1..=8).contains(n))
                .ok_or("field 'multipv' must be a whole number from 1 to 8")? as usize
        }
    };
    let movetime_ms = match v.get("movetime_ms") {
        None | Some(Value::Null) => 60_000,
        Some(x) => x
            .as_u64()
            .filter(|n| (10..=600_000).contains(n))
            .ok_or("field 'movetime_ms' must be a whole number from 10 to 600000")?,
    };
    Ok(Command::Go {
        id,
        start: Box::new(game.start().clone()),
        moves: game.moves(),
        multipv,
        movetime_ms,
    })
}

/// The most analysis sessions served at once; more are told so and closed.
pub const MAX_SESSIONS: usize = 8;

/// The analysis sessions open at once (each has its own engine and hash table).
#[derive(Default)]
pub struct Sessions(AtomicUsize);

impl Sessions {
    /// Counts a new session in, unless `MAX_SESSIONS` are open; it is counted out when the
    /// guard is dropped.
    fn enter(app: &Arc<App>) -> Option<SessionGuard> {
        let n = &app.sessions.0;
        if n.fetch_add(1, Ordering::SeqCst) >= MAX_SESSIONS {
            n.fetch_sub(1, Ordering::SeqCst);
            return None;
        }
        Some(SessionGuard(app.clone()))
    }

    /// The sessions open now.
    pub fn open(&self) -> usize {
        self.0.load(Ordering::SeqCst)
    }
}

struct SessionGuard(Arc<App>);
impl Drop for SessionGuard {
    fn drop(&mut self) {
        self.0.sessions.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// A WebSocket client may send this many messages at once ...
pub const MESSAGE_BURST: f64 = 40.0;
/// ... and then this many a second.
pub const MESSAGES_PER_SECOND: f64 = 20.0;

async fn session(mut socket: WebSocket, app: Arc<App>) {
    let Some(_guard) = Sessions::enter(&app) else {
        let msg = Reply::error(format!(
            "too many analysis sessions (at most {MAX_SESSIONS}); close another tab"
        ));
        let _ = socket.send(msg.text()).await;
        let _ = socket.send(Message::Close(None)).await;
        return;
    };
    let (cmd_tx, cmd_rx) = mpsc::channel::<Command>();
    let (out_tx, mut out_rx) = tmpsc::unbounded_channel::<Reply>();
    let driver = {
        let out_tx = out_tx.clone();
        let tb = app.tablebase.clone();
        std::thread::Builder::new()
            .name("analysis".into())
            .spawn(move || drive(cmd_rx, out_tx, tb))
    };
    if driver.is_err() {
        let _ = socket
            .send(Reply::error("cannot start the analysis engine").text())
            .await;
        return;
    }
    // At most MESSAGE_BURST messages at once, then MESSAGES_PER_SECOND: a client sending
    // faster is told so and closed (a page sends a message when the position changes).
    let mut allowance = MESSAGE_BURST;
    let mut last = std::time::Instant::now();
    loop {
        tokio::select! {
            msg = socket.recv() => {
                let Some(Ok(msg)) = msg else { break };
                let text = match msg {
                    Message::Text(t) => t.to_string(),
                    Message::Close(_) => break,
                    _ => continue,
                };
                let now = std::time::Instant::now();
                allowance = (allowance + now.duration_since(last).as_secs_f64() * MESSAGES_PER_SECOND)
                    .min(MESSAGE_BURST);
                last = now;
                if allowance < 1.0 {
                    let e = format!(
                        "too many messages (at most {MESSAGES_PER_SECOND} a second); closing"
                    );
                    let _ = socket.send(Reply::error(e).text()).await;
                    let _ = socket.send(Message::Close(None)).await;
                    break;
                }
                allowance -= 1.0;
                let reply = match serde_json::from_str::<Value>(&text) {
                    Err(e) => Some(format!("not valid JSON: {e}")),
                    Ok(v) => match v.get("type").and_then(Value::as_str) {
                        Some("go") => match parse_go(&v) {
                            Ok(c) => { let _ = cmd_tx.send(c); None }
                            Err(e) => Some(e),
                        },
                        Some("stop") => { let _ = cmd_tx.send(Command::Stop); None }
                        Some(t) => Some(format!("unknown message type '{t}' (expected go or stop)")),
                        None => Some("a message needs a 'type': go or stop".into()),
                    },
                };
                if let Some(e) = reply {
                    if socket.send(Reply::error(e).text()).await.is_err() { break; }
                }
            }
            out = out_rx.recv() => {
                let Some(v) = out else { break };
                if socket.send(v.text()).await.is_err() { break; }
            }
        }
    }
    // Dropping the command channel ends the driver, which stops its search.
    drop(cmd_tx);
}

fn drive(
    rx: mpsc::Receiver<Command>,
    out: tmpsc::UnboundedSender<Reply>,
    tb: Option<Arc<xiangqi_tb::Tablebase>>,
) {
    let mut engine = Engine::new();
    let _ = engine.set_option("Hash", "32");
    // With `--tb`, the analysis knows the endgames the tables hold.
    engine.set_tablebase(tb, "--tb");
    while let Ok(cmd) = rx.recv() {
        match cmd {
            Command::Stop => engine.stop(),
            Command::Go {
                id,
                start,
                moves,
                multipv,
                movetime_ms,
            } => {
                engine.stop();
                engine.wait();
                let _ = engine.set_option("MultiPV", &multipv.to_string());
                if let Err(e) = engine.set_position(*start, &moves) {
                    let _ = out.send(Reply::Error {
                        id: Some(id),
                        error: e.0,
                    });
                    continue;
                }
                let root = engine.position().clone();
                let out = out.clone();
                let cb = Arc::new(move |e: Event| {
                    let v = match e {
                        Event::Info(i) => {
                            let mut pos = root.clone();
                            let mut wxf = Vec::new();
                            let mut chinese = Vec::new();
                            for &m in &i.pv {
                                if !pos.is_legal(m) {
                                    break;
                                }
                                wxf.push(Notation::Wxf.write(&pos, m));
                                chinese.push(Notation::Chinese.write(&pos, m));
                                pos.play_unchecked(m);
                            }
                            Reply::Info {
                                id,
                                depth: i.depth,
                                multipv: i.multipv,
                                score: ScoreJson::from(i.score),
                                nodes: i.nodes,
                                nps: i.nps,
                                time_ms: i.time_ms,
                                pv: i.pv.iter().map(|m| m.to_string()).collect(),
                                pv_wxf: wxf,
                                pv_chinese: chinese,
                                turn: root.turn().name(),
                            }
                        }
                        Event::Message(_) => return,
                        Event::BestMove { best, .. } => Reply::Bestmove {
                            id,
                            best: best.map(|m| m.to_string()),
                        },
                    };
                    let _ = out.send(v);
                });
                engine.go(
                    Limits {
                        movetime: Some(movetime_ms),
                        ..Limits::default()
                    },
                    cb,
                );
            }
        }
    }
    engine.stop();
    engine.wait();
}
