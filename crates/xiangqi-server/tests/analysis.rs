//! The live analysis WebSocket (`/api/analysis`), through a real server on a loopback port
//! and a real WebSocket client: a search answers its best move, bad messages get an error
//! reply, a new `go` replaces a running search, `stop` ends one, and the number of sessions
//! open at once is bounded (per server).
//!
//! Searches that must be cut short are given ten minutes; the waits for their answers are a
//! minute, so an answer arriving means the search really was replaced or stopped (nothing
//! here measures speed).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{connect_async, MaybeTlsStream, WebSocketStream};
use xiangqi_server::engine::analysis::MAX_SESSIONS;
use xiangqi_server::{router, App, Store};

type Ws = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// The longest wait for one message.
const WAIT: Duration = Duration::from_secs(60);
/// A search long enough that only `stop` or a new `go` ends it within `WAIT`.
const LONG_MS: u64 = 600_000;

struct Server {
    addr: std::net::SocketAddr,
    app: Arc<App>,
    dir: PathBuf,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

async fn server(name: &str) -> Server {
    let dir = std::env::temp_dir().join(format!(
        "xiangqi-analysis-test-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    let app = Arc::new(App::new(Store::open(&dir).expect("open store")));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    let r = router(app.clone());
    tokio::spawn(async move { axum::serve(listener, r).await });
    Server { addr, app, dir }
}

async fn connect(s: &Server) -> Ws {
    let (ws, _) = connect_async(format!("ws://{}/api/analysis", s.addr))
        .await
        .expect("connect");
    ws
}

async fn send(ws: &mut Ws, v: Value) {
    ws.send(Message::Text(v.to_string().into()))
        .await
        .expect("send");
}

/// The next text message as JSON; `None` once the server has closed the connection.
async fn next(ws: &mut Ws) -> Option<Value> {
    loop {
        let m = tokio::time::timeout(WAIT, ws.next())
            .await
            .expect("a message within the wait")?;
        match m {
            Ok(Message::Text(t)) => return Some(serde_json::from_str(&t).expect("JSON")),
            Ok(Message::Close(_)) | Err(_) => return None,
            Ok(_) => continue,
        }
    }
}

/// Reads messages until one of `kind`, returning the `info` messages seen before it too.
async fn until(ws: &mut Ws, kind: &str) -> (Value, Vec<Value>) {
    let mut seen = Vec::new();
    loop {
        let v = next(ws).await.expect("the connection stays open");
        if v["type"] == kind {
            return (v, seen);
        }
        seen.push(v);
    }
}

fn start_legal() -> Vec<String> {
    xiangqi::Position::new()
        .legal_moves()
        .iter()
        .map(|m| m.to_string())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_search_answers_its_best_move_with_lines_before_it() {
    let s = server("best").await;
    let mut ws = connect(&s).await;
    send(
        &mut ws,
        json!({"type": "go", "id": 7, "moves": ["h2e2"], "multipv": 2, "movetime_ms": 300}),
    )
    .await;
    let (best, infos) = until(&mut ws, "bestmove").await;
    assert_eq!(best["id"], 7);
    // Black is to move after h2e2: the best move is one of Black's legal moves.
    let mut pos = xiangqi::Position::new();
    pos.play_unchecked(pos.parse_uci("h2e2").unwrap());
    let b = best["best"].as_str().expect("a best move");
    assert!(pos.parse_uci(b).is_ok(), "{b} is not legal for Black");
    assert!(!infos.is_empty(), "no info before the best move");
    for i in &infos {
        assert_eq!(i["type"], "info");
        assert_eq!(i["id"], 7);
        assert_eq!(i["turn"], "black");
        assert!(i["multipv"] == 1 || i["multipv"] == 2, "{i}");
        assert!(i["score"].get("cp").is_some() || i["score"].get("mate").is_some());
        let pv = i["pv"].as_array().unwrap();
        assert_eq!(i["pv_wxf"].as_array().unwrap().len(), pv.len());
        assert_eq!(i["pv_chinese"].as_array().unwrap().len(), pv.len());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_messages_get_an_error_reply_and_the_session_goes_on() {
    let s = server("bad").await;
    let mut ws = connect(&s).await;
    let cases = [
        (Message::Text("{".into()), "not valid JSON"),
        (
            Message::Text(json!({}).to_string().into()),
            "needs a 'type'",
        ),
        (
            Message::Text(json!({"type": "dance"}).to_string().into()),
            "unknown message type 'dance'",
        ),
        (
            Message::Text(json!({"type": "go", "fen": "9/9/9"}).to_string().into()),
            "bad FEN",
        ),
        (
            Message::Text(json!({"type": "go", "fen": 5}).to_string().into()),
            "'fen' must be a string",
        ),
        (
            Message::Text(
                json!({"type": "go", "moves": ["h2e2", "h2e2"]})
                    .to_string()
                    .into(),
            ),
            "moves[1] (h2e2)",
        ),
        (
            Message::Text(json!({"type": "go", "moves": [5]}).to_string().into()),
            "moves[0] must be a string",
        ),
        (
            Message::Text(json!({"type": "go", "multipv": 9}).to_string().into()),
            "'multipv'",
        ),
        (
            Message::Text(json!({"type": "go", "movetime_ms": 1}).to_string().into()),
            "'movetime_ms'",
        ),
    ];
    for (m, needle) in cases {
        ws.send(m).await.expect("send");
        let v = next(&mut ws).await.expect("an answer");
        assert_eq!(v["type"], "error", "{v}");
        let e = v["error"].as_str().unwrap();
        assert!(e.contains(needle), "error '{e}' should mention '{needle}'");
    }
    // The session still works after all that.
    send(&mut ws, json!({"type": "go", "id": 1, "movetime_ms": 50})).await;
    let (best, _) = until(&mut ws, "bestmove").await;
    assert!(start_legal().contains(&best["best"].as_str().unwrap().to_string()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_go_replaces_the_running_search_and_stop_ends_one() {
    let s = server("replace").await;
    let mut ws = connect(&s).await;
    send(
        &mut ws,
        json!({"type": "go", "id": 1, "movetime_ms": LONG_MS}),
    )
    .await;
    // Wait until the long search is surely running (its first line came).
    let first = next(&mut ws).await.unwrap();
    assert_eq!(
        (first["type"].as_str(), first["id"].as_u64()),
        (Some("info"), Some(1))
    );
    send(&mut ws, json!({"type": "go", "id": 2, "movetime_ms": 100})).await;
    // The first search ends (its best move may still be told) and the second one answers.
    let (best, seen) = until(&mut ws, "bestmove").await;
    let best = if best["id"] == 1 {
        until(&mut ws, "bestmove").await.0
    } else {
        assert!(seen.iter().all(|v| v["type"] == "info"));
        best
    };
    assert_eq!(best["id"], 2);
    // stop: a long search answers at once with what it has.
    send(
        &mut ws,
        json!({"type": "go", "id": 3, "movetime_ms": LONG_MS}),
    )
    .await;
    let first = next(&mut ws).await.unwrap();
    assert_eq!(first["id"], 3);
    send(&mut ws, json!({"type": "stop"})).await;
    let (best, _) = until(&mut ws, "bestmove").await;
    assert_eq!(best["id"], 3);
    assert!(start_legal().contains(&best["best"].as_str().unwrap().to_string()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_are_bounded_and_counted_out_when_closed() {
    let s = server("limit").await;
    let mut open = Vec::new();
    for _ in 0..MAX_SESSIONS {
        let mut ws = connect(&s).await;
        // A round trip, so the server has counted the session in.
        send(&mut ws, json!({"type": "dance"})).await;
        assert_eq!(next(&mut ws).await.unwrap()["type"], "error");
        open.push(ws);
    }
    assert_eq!(s.app.sessions.open(), MAX_SESSIONS);
    let mut extra = connect(&s).await;
    let v = next(&mut extra).await.expect("an error before closing");
    assert_eq!(v["type"], "error");
    assert!(v["error"]
        .as_str()
        .unwrap()
        .contains("too many analysis sessions"));
    assert!(
        next(&mut extra).await.is_none(),
        "the extra session is closed"
    );
    // Closing one lets a new one in (once the server has seen the close).
    let mut gone = open.pop().unwrap();
    gone.close(None).await.expect("close");
    drop(gone);
    let deadline = tokio::time::Instant::now() + WAIT;
    while s.app.sessions.open() >= MAX_SESSIONS {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the closed session is still counted"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let mut again = connect(&s).await;
    send(
        &mut again,
        json!({"type": "go", "id": 9, "movetime_ms": 50}),
    )
    .await;
    let (best, _) = until(&mut again, "bestmove").await;
    assert_eq!(best["id"], 9);
}

#[tokio::test]
async fn a_client_flooding_messages_is_told_and_closed() {
    let s = server("flood").await;
    let mut ws = connect(&s).await;
    // Far more stops than the allowance; the server answers the excess with an error and
    // closes, instead of queueing them.
    for _ in 0..200 {
        if ws
            .send(Message::Text(json!({"type": "stop"}).to_string().into()))
            .await
            .is_err()
        {
            break;
        }
    }
    let mut told = false;
    while let Some(v) = next(&mut ws).await {
        if v["type"] == "error"
            && v["error"]
                .as_str()
                .unwrap_or("")
                .contains("too many messages")
        {
            told = true;
        }
    }
    assert!(told, "the flood is refused with a message");
}
