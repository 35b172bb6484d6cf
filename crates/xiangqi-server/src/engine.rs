//! The engine behind the app: computer moves and live analysis over a WebSocket. Every
//! search runs on threads of its own (the engine's search thread, driven from a plain
//! thread), never on the async runtime; results come back over channels.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::Arc;

use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::response::Response;
use serde_json::{json, Value};
use tokio::sync::{mpsc as tmpsc, oneshot};
use xiangqi::notation::Notation;
use xiangqi::{Move, Position};
use xiangqi_engine::{Engine, Event, Limits, Score};

/// One search to a fixed time at a skill level; answers the best move and the score of
/// the first line (from the side to move's view).
pub async fn search_once(
    start: Position,
    moves: Vec<Move>,
    level: i32,
    movetime_ms: u64,
) -> Result<(Option<Move>, Option<Score>), String> {
    let (tx, rx) = oneshot::channel();
    std::thread::Builder::new()
        .name("computer-move".into())
        .spawn(move || {
            let mut engine = Engine::new();
            let r = (|| {
                engine.set_option("Hash", "16")?;
                engine.set_option("Skill Level", &level.clamp(0, 20).to_string())?;
                engine
                    .set_position(start, &moves)
                    .map_err(|e| format!("engine: {}", e.0))?;
                let (best, events) = engine.search(Limits {
                    movetime: Some(movetime_ms),
                    ..Limits::default()
                });
                let score = events.iter().rev().find_map(|e| match e {
                    Event::Info(i) if i.multipv <= 1 => Some(i.score),
                    _ => None,
                });
                Ok((best, score))
            })();
            let _ = tx.send(r);
        })
        .map_err(|e| format!("cannot start an engine thread: {e}"))?;
    rx.await
        .map_err(|_| "the engine thread stopped without an answer".to_string())?
}

pub fn score_json(s: Score) -> Value {
    match s {
        Score::Cp(cp) => json!({ "cp": cp }),
        Score::Mate(n) => json!({ "mate": n }),
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

pub async fn ws_handler(ws: WebSocketUpgrade) -> Response {
    ws.max_message_size(64 * 1024)
        .max_frame_size(64 * 1024)
        .on_upgrade(session)
}

fn parse_go(v: &Value) -> Result<Command, String> {
    let id = v.get("id").and_then(Value::as_u64).unwrap_or(0);
    let fen = match v.get("fen") {
        None | Some(Value::Null) => xiangqi::START_FEN,
        Some(Value::String(s)) => s.as_str(),
        Some(_) => return Err("field 'fen' must be a string".into()),
    };
    let start = Position::from_fen(fen.trim()).map_err(|e| format!("bad FEN '{fen}': {e}"))?;
    let mut pos = start.clone();
    let mut moves = Vec::new();
    match v.get("moves") {
        None | Some(Value::Null) => {}
        Some(Value::Array(a)) => {
            if a.len() > 2000 {
                return Err("field 'moves' has more than 2000 moves".into());
            }
            for (i, m) in a.iter().enumerate() {
                let s = m
                    .as_str()
                    .ok_or_else(|| format!("moves[{i}] must be a string"))?;
                let mv = pos
                    .parse_uci(s)
                    .map_err(|e| format!("moves[{i}] ({s}): {e}"))?;
                pos.play_unchecked(mv);
                moves.push(mv);
            }
        }
        Some(_) => return Err("field 'moves' must be an array of coordinate moves".into()),
    }
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
        start: Box::new(start),
        moves,
        multipv,
        movetime_ms,
    })
}

/// Analysis sessions open at once (each has its own engine and hash table).
static SESSIONS: AtomicUsize = AtomicUsize::new(0);
/// The most analysis sessions served at once; more are told so and closed.
pub const MAX_SESSIONS: usize = 8;

struct SessionGuard;
impl Drop for SessionGuard {
    fn drop(&mut self) {
        SESSIONS.fetch_sub(1, Ordering::SeqCst);
    }
}

async fn session(mut socket: WebSocket) {
    if SESSIONS.fetch_add(1, Ordering::SeqCst) >= MAX_SESSIONS {
        SESSIONS.fetch_sub(1, Ordering::SeqCst);
        let msg = json!({"type": "error", "error": format!("too many analysis sessions (at most {MAX_SESSIONS}); close another tab")});
        let _ = socket.send(Message::Text(msg.to_string().into())).await;
        let _ = socket.send(Message::Close(None)).await;
        return;
    }
    let _guard = SessionGuard;
    let (cmd_tx, cmd_rx) = mpsc::channel::<Command>();
    let (out_tx, mut out_rx) = tmpsc::unbounded_channel::<Value>();
    let driver = {
        let out_tx = out_tx.clone();
        std::thread::Builder::new()
            .name("analysis".into())
            .spawn(move || drive(cmd_rx, out_tx))
    };
    if driver.is_err() {
        let _ = socket
            .send(Message::Text(
                json!({"type": "error", "error": "cannot start the analysis engine"})
                    .to_string()
                    .into(),
            ))
            .await;
        return;
    }
    loop {
        tokio::select! {
            msg = socket.recv() => {
                let Some(Ok(msg)) = msg else { break };
                let text = match msg {
                    Message::Text(t) => t.to_string(),
                    Message::Close(_) => break,
                    _ => continue,
                };
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
                    let m = json!({"type": "error", "error": e}).to_string();
                    if socket.send(Message::Text(m.into())).await.is_err() { break; }
                }
            }
            out = out_rx.recv() => {
                let Some(v) = out else { break };
                if socket.send(Message::Text(v.to_string().into())).await.is_err() { break; }
            }
        }
    }
    // Dropping the command channel ends the driver, which stops its search.
    drop(cmd_tx);
}

fn drive(rx: mpsc::Receiver<Command>, out: tmpsc::UnboundedSender<Value>) {
    let mut engine = Engine::new();
    let _ = engine.set_option("Hash", "32");
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
                    let _ = out.send(json!({"type": "error", "id": id, "error": e.0}));
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
                            json!({
                                "type": "info",
                                "id": id,
                                "depth": i.depth,
                                "multipv": i.multipv,
                                "score": score_json(i.score),
                                "nodes": i.nodes,
                                "nps": i.nps,
                                "time_ms": i.time_ms,
                                "pv": i.pv.iter().map(|m| m.to_string()).collect::<Vec<_>>(),
                                "pv_wxf": wxf,
                                "pv_chinese": chinese,
                                "turn": root.turn().name(),
                            })
                        }
                        Event::Message(_) => return,
                        Event::BestMove { best, .. } => json!({
                            "type": "bestmove",
                            "id": id,
                            "best": best.map(|m| m.to_string()),
                        }),
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
