//! Online play through the board API, with a real server on a loopback port and real HTTP
//! clients: open challenges, two players' moves and offers, the streams of the players and of
//! a spectator, every wrong-token case, clocks with a short time control and a flag that
//! falls with nobody connected, abort, rematch, the lobby's seeks, and a restart of the
//! server on the same data folder. Waits are bounded; nothing here measures speed.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use xiangqi_server::client::{self, Conn, Request};
use xiangqi_server::{router, App, Store};

mod pg;

use pg::{fresh_store, store_at};

const WAIT: Duration = Duration::from_secs(30);

struct Server {
    addr: std::net::SocketAddr,
    app: Arc<App>,
    task: tokio::task::JoinHandle<()>,
}

fn data_dir(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("xiangqi-online-test-{}-{name}", std::process::id()));
    dir
}

async fn start(dir: &std::path::Path) -> Server {
    start_on(store_at(dir).await).await
}

async fn start_on(store: Store) -> Server {
    let app = Arc::new(App::new(store));
    app.hub.resume_all().await.expect("resume");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    let r = router(app.clone());
    let task = tokio::spawn(async move {
        let _ = axum::serve(listener, r).await;
    });
    Server { addr, app, task }
}

async fn server(name: &str) -> Server {
    start_on(fresh_store(&data_dir(name)).await).await
}

/// Sends a request on a connection of its own and reads its head; the body is read after.
async fn send(
    s: &Server,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: Option<(&str, String)>,
) -> client::Stream {
    let (ctype, text) = body.unwrap_or(("application/json", String::new()));
    let req = Request::new(method, path).bearer(token).body(ctype, text);
    let c = Conn::connect(s.addr).await.expect("connect");
    tokio::time::timeout(WAIT, c.stream(&req))
        .await
        .unwrap_or_else(|_| panic!("{method} {path}: no answer within the wait"))
        .expect("response")
}

/// A request and its JSON answer.
async fn call(
    s: &Server,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: Value,
) -> (u16, Value) {
    let body = (!body.is_null()).then(|| ("application/json", body.to_string()));
    let res = send(s, method, path, token, body).await;
    let status = res.status();
    let bytes = res.rest().await.expect("body");
    let v = serde_json::from_slice(&bytes)
        .unwrap_or(Value::String(String::from_utf8_lossy(&bytes).into_owned()));
    (status, v)
}

/// `GET /api/board/game/{id}`: its status and the game.
async fn game_full(s: &Server, id: &str) -> (u16, Value) {
    call(
        s,
        "GET",
        &format!("/api/board/game/{id}"),
        None,
        Value::Null,
    )
    .await
}

async fn post(s: &Server, path: &str, token: Option<&str>) -> (u16, Value) {
    call(s, "POST", path, token, Value::Null).await
}

/// A newline-delimited JSON stream being read.
struct Stream {
    body: client::Stream,
    all: String,
}

impl Stream {
    async fn open(s: &Server, path: &str, token: Option<&str>) -> Stream {
        let res = send(s, "GET", path, token, None).await;
        assert_eq!(res.status(), 200, "stream {path}");
        assert_eq!(
            res.header("content-type"),
            Some("application/x-ndjson"),
            "stream content type"
        );
        Stream::of(res)
    }

    fn of(body: client::Stream) -> Stream {
        Stream {
            body,
            all: String::new(),
        }
    }

    /// The next non-blank line as JSON (keep-alive blank lines do not count as an answer).
    async fn next(&mut self) -> Value {
        let deadline = tokio::time::Instant::now() + WAIT;
        loop {
            let line = tokio::time::timeout_at(deadline, self.body.next_line())
                .await
                .unwrap_or_else(|_| panic!("no line within the wait; read so far:\n{}", self.all))
                .expect("a line")
                .expect("the stream goes on");
            self.all.push_str(&line);
            self.all.push('\n');
            if !line.trim().is_empty() {
                return serde_json::from_str(&line).expect("a JSON line");
            }
        }
    }

    /// Reads until a line of `kind` satisfying `ok` comes (within the wait).
    async fn until(&mut self, kind: &str, ok: impl Fn(&Value) -> bool) -> Value {
        let deadline = tokio::time::Instant::now() + WAIT;
        loop {
            let v = tokio::time::timeout_at(deadline, self.next())
                .await
                .unwrap_or_else(|_| panic!("no {kind} line as expected; read:\n{}", self.all));
            if v["type"] == kind && ok(&v) {
                return v;
            }
        }
    }

    /// Reads until the `gameState` with these moves.
    async fn moves(&mut self, moves: &str) -> Value {
        self.until("gameState", |v| v["moves"] == moves).await
    }
}

struct Challenge {
    id: String,
    red: String,
    black: String,
}

async fn challenge(s: &Server, body: Value) -> Challenge {
    let (st, v) = call(s, "POST", "/api/challenge/open", None, body).await;
    assert_eq!(st, 200, "{v}");
    Challenge {
        id: v["id"].as_str().unwrap().to_owned(),
        red: v["tokenRed"].as_str().unwrap().to_owned(),
        black: v["tokenBlack"].as_str().unwrap().to_owned(),
    }
}

fn mv(c: &Challenge, m: &str) -> String {
    format!("/api/board/game/{}/move/{}", c.id, m)
}

fn path(c: &Challenge, what: &str) -> String {
    format!("/api/board/game/{}/{}", c.id, what)
}

#[tokio::test]
async fn open_challenge_answers_the_seats_links_and_tokens() {
    let s = server("challenge").await;
    let (st, v) = call(
        &s,
        "POST",
        "/api/challenge/open",
        None,
        json!({"clock": {"limit": 300, "increment": 3}, "color": "black", "name": "Bo"}),
    )
    .await;
    assert_eq!(st, 200, "{v}");
    let id = v["id"].as_str().unwrap();
    assert_eq!(id.len(), 8);
    assert_eq!(v["url"], format!("/live/{id}"));
    let red = v["tokenRed"].as_str().unwrap();
    assert_eq!(red.len(), 32);
    assert!(red.bytes().all(|b| b.is_ascii_hexdigit()));
    assert_ne!(v["tokenRed"], v["tokenBlack"]);
    assert_eq!(v["urlRed"], format!("/live/{id}#seat={red}"));
    assert_eq!(v["color"], "black");
    let (st, g) = call(
        &s,
        "GET",
        &format!("/api/board/game/{id}"),
        None,
        Value::Null,
    )
    .await;
    assert_eq!(st, 200);
    assert_eq!(g["type"], "gameFull");
    assert_eq!(g["clock"], json!({"initial": 300_000, "increment": 3_000}));
    assert_eq!(g["black"]["name"], "Bo");
    assert_eq!(g["red"]["name"], "Red");
    assert_eq!(g["state"]["status"], "created");
    assert!(!g.to_string().contains(red), "no token in the game's state");

    // Form-encoded, as lichess's API takes it.
    let res = send(
        &s,
        "POST",
        "/api/challenge/open",
        None,
        Some((
            "application/x-www-form-urlencoded",
            "clock.limit=60&clock.increment=0&color=red".into(),
        )),
    )
    .await;
    assert_eq!(res.status(), 200);

    // Bad requests name their field.
    for (body, field) in [
        (json!({"color": "blue"}), "color"),
        (json!({"clock": {"limit": -5}}), "clock.limit"),
        (
            json!({"clock": {"limit": 60, "increment": "x"}}),
            "clock.increment",
        ),
        (json!({"fen": "rnbakabnr/9/9 w"}), "fen"),
        (json!({"colour": "red"}), "colour"),
        (
            json!({"clock": {"limit": null, "increment": ""}}),
            "clock.increment",
        ),
        (json!({"clock": {"limit": "60"}}), "clock.limit"),
    ] {
        let (st, v) = call(&s, "POST", "/api/challenge/open", None, body.clone()).await;
        assert_eq!(st, 400, "{body}: {v}");
        assert_eq!(v["field"], field, "{body}: {v}");
    }
    let (st, _) = call(&s, "GET", "/api/board/game/NOSUCHID", None, Value::Null).await;
    assert_eq!(st, 404);
    let (st, _) = call(&s, "GET", "/api/board/game/..%2F..", None, Value::Null).await;
    assert_eq!(st, 404);
    s.task.abort();
}

#[tokio::test]
async fn two_players_and_a_spectator_see_every_move() {
    let s = server("play").await;
    let c = challenge(&s, json!({})).await;
    let mut red = Stream::open(
        &s,
        &format!("/api/board/game/stream/{}", c.id),
        Some(&c.red),
    )
    .await;
    let mut black = Stream::open(
        &s,
        &format!("/api/board/game/stream/{}", c.id),
        Some(&c.black),
    )
    .await;
    let mut watcher = Stream::open(&s, &format!("/api/board/game/stream/{}", c.id), None).await;
    for (st, seat) in [
        (&mut red, Value::from("red")),
        (&mut black, Value::from("black")),
        (&mut watcher, Value::Null),
    ] {
        let full = st.next().await;
        assert_eq!(full["type"], "gameFull");
        assert_eq!(full["state"]["moves"], "");
        assert_eq!(full["clock"], Value::Null);
        // A player's stream says which seat its token holds; a spectator's does not.
        assert_eq!(full["seat"], seat);
    }
    watcher
        .until("crowd", |v| {
            v["red"] == true && v["black"] == true && v["watchers"] == 1
        })
        .await;

    // Moves in UCI, WXF and Chinese.
    assert_eq!(post(&s, &mv(&c, "h2e2"), Some(&c.red)).await.0, 200);
    assert_eq!(post(&s, &mv(&c, "H8%2B7"), Some(&c.black)).await.0, 200);
    let chinese = "%E9%A9%AC%E4%BA%8C%E8%BF%9B%E4%B8%89"; // 马二进三
    assert_eq!(post(&s, &mv(&c, chinese), Some(&c.red)).await.0, 200);
    for st in [&mut red, &mut black, &mut watcher] {
        let v = st.moves("h2e2 h9g7 h0g2").await;
        assert_eq!(v["status"], "started");
    }
    // Wrong turns, wrong tokens, bad moves.
    let (st, v) = post(&s, &mv(&c, "a9a8"), Some(&c.red)).await;
    assert_eq!(st, 409, "{v}");
    assert!(v["error"].as_str().unwrap().contains("not your turn"));
    let (st, v) = post(&s, &mv(&c, "a9a5"), Some(&c.black)).await;
    assert_eq!(st, 422, "{v}");
    assert!(v["error"].as_str().unwrap().contains("a9a5"), "{v}");
    assert_eq!(post(&s, &mv(&c, "a9a8"), None).await.0, 401);
    let other = challenge(&s, json!({})).await;
    assert_eq!(post(&s, &mv(&c, "a9a8"), Some(&other.black)).await.0, 403);
    assert_eq!(post(&s, &mv(&c, "a9a8"), Some("0123")).await.0, 403);
    let res = send(&s, "POST", &mv(&c, "a9a8"), None, None).await;
    assert_eq!(res.status(), 401);
    let bad_scheme = Conn::connect(s.addr)
        .await
        .unwrap()
        .send(&Request::post(&mv(&c, "a9a8")).header("authorization", "Basic abc"))
        .await
        .unwrap()
        .status;
    assert_eq!(bad_scheme, 401);
    assert_eq!(post(&s, &path(&c, "dance"), Some(&c.black)).await.0, 404);
    assert_eq!(
        post(&s, &path(&c, "draw/maybe"), Some(&c.black)).await.0,
        404
    );

    // Too late to abort; a draw offered, declined by a move, offered again and accepted.
    let (st, v) = post(&s, &path(&c, "abort"), Some(&c.black)).await;
    assert_eq!(st, 409, "{v}");
    assert_eq!(post(&s, &path(&c, "draw/yes"), Some(&c.black)).await.0, 200);
    red.until("gameState", |v| v["drawOffer"] == "black").await;
    assert_eq!(post(&s, &path(&c, "draw/no"), Some(&c.red)).await.0, 200);
    red.until("gameState", |v| v.get("drawOffer").is_none())
        .await;
    // A takeback asked for and granted.
    assert_eq!(post(&s, &mv(&c, "b9c7"), Some(&c.black)).await.0, 200);
    assert_eq!(
        post(&s, &path(&c, "takeback/yes"), Some(&c.black)).await.0,
        200
    );
    red.until("gameState", |v| v["takebackOffer"] == "black")
        .await;
    assert_eq!(
        post(&s, &path(&c, "takeback/yes"), Some(&c.red)).await.0,
        200
    );
    red.moves("h2e2 h9g7 h0g2").await;
    // Draw by agreement.
    assert_eq!(post(&s, &path(&c, "draw/yes"), Some(&c.black)).await.0, 200);
    assert_eq!(post(&s, &path(&c, "draw/yes"), Some(&c.red)).await.0, 200);
    let end = watcher.until("gameState", |v| v["status"] == "draw").await;
    assert!(end.get("winner").is_none());
    assert_eq!(end["text"], "Draw by agreement.");
    assert!(end["textZh"].as_str().is_some_and(|t| !t.is_empty()));
    assert_eq!(end["texts"]["en"], "Draw by agreement.");
    assert_eq!(end["texts"]["zh-Hans"], end["textZh"]);
    assert_eq!(end["texts"]["zh-Hant"], "雙方同意和棋。");
    assert_eq!(end["texts"]["vi"], "Hòa do hai bên đồng ý.");
    let (st, _) = post(&s, &mv(&c, "b9c7"), Some(&c.black)).await;
    assert_eq!(st, 409, "the game is over");

    // Rematch, colours swapped: the old Red token now holds Black.
    assert_eq!(
        post(&s, &path(&c, "rematch/yes"), Some(&c.red)).await.0,
        200
    );
    assert_eq!(
        post(&s, &path(&c, "rematch/yes"), Some(&c.black)).await.0,
        200
    );
    let r = watcher.until("rematch", |_| true).await;
    let id2 = r["id"].as_str().unwrap().to_owned();
    assert_ne!(id2, c.id);
    let c2 = Challenge {
        id: id2,
        red: c.black.clone(),
        black: c.red.clone(),
    };
    let (st, v) = post(&s, &mv(&c2, "h2e2"), Some(&c.red)).await;
    assert_eq!(st, 409, "old Red is Black now: {v}");
    assert_eq!(post(&s, &mv(&c2, "h2e2"), Some(&c2.red)).await.0, 200);
    // Abort is possible before each side's first move.
    assert_eq!(post(&s, &path(&c2, "abort"), Some(&c2.black)).await.0, 200);
    let (_, g) = game_full(&s, &c2.id).await;
    assert_eq!(g["state"]["status"], "aborted");

    // Resignation in another game; no token ever appeared in any stream.
    let c3 = challenge(&s, json!({})).await;
    assert_eq!(post(&s, &path(&c3, "resign"), Some(&c3.black)).await.0, 200);
    let (_, g) = game_full(&s, &c3.id).await;
    assert_eq!(g["state"]["status"], "resign");
    assert_eq!(g["state"]["winner"], "red");
    for t in [&c.red, &c.black] {
        assert!(!watcher.all.contains(t.as_str()));
        assert!(!red.all.contains(t.as_str()));
    }
    s.task.abort();
}

#[tokio::test]
async fn clocks_run_on_the_server_and_a_flag_falls_with_nobody_connected() {
    let s = server("clock").await;
    let c = challenge(&s, json!({"clock": {"limit": 1, "increment": 0}})).await;
    // The first move of each side is free of the clock.
    assert_eq!(post(&s, &mv(&c, "h2e2"), Some(&c.red)).await.0, 200);
    assert_eq!(post(&s, &mv(&c, "h9g7"), Some(&c.black)).await.0, 200);
    let (_, g) = game_full(&s, &c.id).await;
    assert_eq!(
        g["state"]["btime"], 1_000,
        "Black's first move cost nothing"
    );
    assert!(g["state"]["rtime"].as_u64().unwrap() <= 1_000);
    // Nobody is connected; Red's second of time (and its lag credit) runs out on the server.
    let mut watcher = Stream::open(&s, &format!("/api/board/game/stream/{}", c.id), None).await;
    let end = watcher
        .until("gameState", |v| v["status"] == "outoftime")
        .await;
    assert_eq!(end["winner"], "black");
    assert_eq!(end["rtime"], 0);
    assert!(end["text"].as_str().unwrap().contains("time"), "{end}");
    let (st, _) = post(&s, &mv(&c, "h0g2"), Some(&c.red)).await;
    assert_eq!(st, 409);
    // A claim needs the opponent gone for the grace period.
    let c2 = challenge(&s, json!({"clock": {"limit": 60, "increment": 1}})).await;
    let _black = Stream::open(
        &s,
        &format!("/api/board/game/stream/{}", c2.id),
        Some(&c2.black),
    )
    .await;
    let (st, v) = post(&s, &path(&c2, "claim-victory"), Some(&c2.red)).await;
    assert_eq!(st, 409, "{v}");
    assert!(
        v["error"].as_str().unwrap().contains("not been gone"),
        "{v}"
    );
    s.task.abort();
}

#[tokio::test]
async fn a_restart_brings_back_moves_and_clocks() {
    let dir = data_dir("restart");
    let s = start_on(fresh_store(&dir).await).await;
    let c = challenge(&s, json!({"clock": {"limit": 600, "increment": 5}})).await;
    for (m, t) in [("h2e2", &c.red), ("h9g7", &c.black), ("h0g2", &c.red)] {
        assert_eq!(post(&s, &mv(&c, m), Some(t)).await.0, 200);
    }
    // Black thinks 1.5 s before the server stops, and the server is down 2 s: Black is
    // charged the 1.5 s (up to the node's last heartbeat, at most 0.5 s before the stop), not
    // the 2 s.
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    let (_, before) = game_full(&s, &c.id).await;
    s.task.abort();
    drop(s);
    tokio::time::sleep(Duration::from_millis(2_000)).await;
    let s = start(&dir).await;
    let (st, after) = game_full(&s, &c.id).await;
    assert_eq!(st, 200, "{after}");
    assert_eq!(after["state"]["moves"], "h2e2 h9g7 h0g2");
    assert_eq!(after["state"]["status"], "started");
    let b0 = before["state"]["btime"].as_i64().unwrap();
    let b1 = after["state"]["btime"].as_i64().unwrap();
    assert!(b0 <= 600_000 - 1_400, "btime before the stop {b0}");
    assert!(
        (b1 - b0).abs() <= 1_000,
        "btime {b0} before the stop, {b1} after"
    );
    assert_eq!(after["state"]["rtime"], before["state"]["rtime"]);
    // The seats' tokens still hold them.
    assert_eq!(post(&s, &mv(&c, "b9c7"), Some(&c.black)).await.0, 200);
    s.task.abort();
    let _ = std::fs::remove_dir_all(&dir);
    let _ = s.app;
}

#[tokio::test]
async fn the_lobby_lists_seeks_until_taken_or_withdrawn() {
    let s = server("lobby").await;
    let mut lobby = Stream::open(&s, "/api/lobby/stream", None).await;
    let first = lobby.next().await;
    assert_eq!(first, json!({"type": "seeks", "seeks": []}));
    // A seek is an open request whose answer streams.
    let res = send(
        &s,
        "POST",
        "/api/board/seek",
        None,
        Some((
            "application/json",
            json!({"clock": {"limit": 180, "increment": 2}, "color": "red", "name": "Ann"})
                .to_string(),
        )),
    )
    .await;
    assert_eq!(res.status(), 200);
    let mut seeker = Stream::of(res);
    let seek = seeker.next().await;
    assert_eq!(seek["type"], "seek");
    let seek_id = seek["id"].as_str().unwrap().to_owned();
    let listed = lobby
        .until("seeks", |v| v["seeks"].as_array().unwrap().len() == 1)
        .await;
    assert_eq!(listed["seeks"][0]["name"], "Ann");
    assert_eq!(listed["seeks"][0]["limit"], 180);
    // Taken: both get a seat.
    let (st, taker) = call(
        &s,
        "POST",
        &format!("/api/board/seek/{seek_id}/accept"),
        None,
        json!({"name": "Bo"}),
    )
    .await;
    assert_eq!(st, 200, "{taker}");
    assert_eq!(taker["color"], "black");
    let start = seeker.until("gameStart", |_| true).await;
    assert_eq!(start["color"], "red");
    assert_eq!(start["id"], taker["id"]);
    lobby
        .until("seeks", |v| v["seeks"].as_array().unwrap().is_empty())
        .await;
    let id = taker["id"].as_str().unwrap();
    let (st, _) = post(
        &s,
        &format!("/api/board/game/{id}/move/h2e2"),
        Some(start["token"].as_str().unwrap()),
    )
    .await;
    assert_eq!(st, 200);
    let (st, _) = call(
        &s,
        "POST",
        &format!("/api/board/seek/{seek_id}/accept"),
        None,
        json!({}),
    )
    .await;
    assert_eq!(st, 404, "a seek is taken once");
    // A seek whose creator leaves goes from the lobby.
    let res = send(&s, "POST", "/api/board/seek", None, None).await;
    let mut seeker = Stream::of(res);
    seeker.next().await;
    lobby
        .until("seeks", |v| v["seeks"].as_array().unwrap().len() == 1)
        .await;
    drop(seeker);
    lobby
        .until("seeks", |v| v["seeks"].as_array().unwrap().is_empty())
        .await;
    s.task.abort();
}

#[tokio::test]
async fn clients_over_a_limit_get_429_and_when_to_try_again() {
    use xiangqi_server::online::limits::{limit, Limits, Rate, RateLimits};
    let app = Arc::new(App::new(fresh_store(&data_dir("limits")).await));
    let limits = RateLimits::new(Limits {
        create: Rate {
            burst: 3.0,
            per_second: 0.01,
        },
        act: Rate {
            burst: 2.0,
            per_second: 0.01,
        },
        streams: 2,
    });
    let r = router(app.clone()).layer(axum::middleware::from_fn_with_state(limits, limit));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let task = tokio::spawn(async move {
        let _ = axum::serve(
            listener,
            r.into_make_service_with_connect_info::<std::net::SocketAddr>(),
        )
        .await;
    });
    let s = Server { addr, app, task };
    let c = challenge(&s, json!({})).await;
    challenge(&s, json!({})).await;
    challenge(&s, json!({})).await;
    let res = send(&s, "POST", "/api/challenge/open", None, None).await;
    assert_eq!(res.status(), 429);
    assert!(res.header("retry-after").unwrap().parse::<u64>().unwrap() >= 1);
    let body = res.rest().await.unwrap();
    let v: Value = serde_json::from_slice(&body).unwrap();
    assert!(v["error"].as_str().unwrap().contains("new games"), "{v}");
    // Actions have their own bucket.
    assert_eq!(post(&s, &mv(&c, "h2e2"), Some(&c.red)).await.0, 200);
    assert_eq!(post(&s, &mv(&c, "h9g7"), Some(&c.black)).await.0, 200);
    assert_eq!(post(&s, &mv(&c, "h0g2"), Some(&c.red)).await.0, 429);
    // Two streams at once; a third waits until one closes.
    let a = Stream::open(&s, &format!("/api/board/game/stream/{}", c.id), None).await;
    let _b = Stream::open(&s, "/api/lobby/stream", None).await;
    let res = send(&s, "GET", "/api/lobby/stream", None, None).await;
    assert_eq!(res.status(), 429);
    drop(a);
    let mut ok = false;
    for _ in 0..100 {
        let res = send(&s, "GET", "/api/lobby/stream", None, None).await;
        if res.status() == 200 {
            ok = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(ok, "a closed stream frees its slot");
    s.task.abort();
    let _ = std::fs::remove_dir_all(data_dir("limits"));
}

#[tokio::test]
async fn a_player_who_leaves_can_be_claimed_against_after_the_grace_period() {
    let s = server("claim").await;
    // 1+0: estimated under 3 minutes, so the grace period is 15 s.
    let c = challenge(&s, json!({"clock": {"limit": 60, "increment": 0}})).await;
    let stream = format!("/api/board/game/stream/{}", c.id);
    let mut red = Stream::open(&s, &stream, Some(&c.red)).await;
    let black = Stream::open(&s, &stream, Some(&c.black)).await;
    red.until("crowd", |v| v["black"] == true).await;
    assert_eq!(post(&s, &mv(&c, "h2e2"), Some(&c.red)).await.0, 200);
    assert_eq!(post(&s, &mv(&c, "h9g7"), Some(&c.black)).await.0, 200);
    // Black goes away: Red is told when a claim becomes possible.
    drop(black);
    let gone = red.until("opponentGone", |v| v["gone"] == true).await;
    let wait = gone["claimWinInSeconds"].as_u64().unwrap();
    assert!((14..=15).contains(&wait), "{gone}");
    let (st, v) = post(&s, &path(&c, "claim-victory"), Some(&c.red)).await;
    assert_eq!(st, 409, "too early: {v}");
    red.until("opponentGone", |v| v["claimWinInSeconds"] == 0)
        .await;
    assert_eq!(
        post(&s, &path(&c, "claim-victory"), Some(&c.red)).await.0,
        200
    );
    let end = red.until("gameState", |v| v["status"] == "timeout").await;
    assert_eq!(end["winner"], "red");
    assert_eq!(
        end["text"],
        "Red wins: Black left the game and did not come back in time."
    );
    s.task.abort();
}
