//! Game chat through the HTTP API, with a real server on a loopback port and real HTTP
//! clients (on SQLite, or PostgreSQL with `XIANGQI_TEST_API_BACKEND=postgres`): the players'
//! and the spectators' rooms and who reads and writes each, lines in the store before they
//! are streamed and in one order, the history, every refusal (length, empty, the rate limit's
//! 429, a spectator in the players' room, anonymous writers, an unknown game), blocks and the
//! chat preference. Waits are bounded; nothing here measures speed.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use xiangqi_server::client::{self, Conn, Request};
use xiangqi_server::{router, App, Store};

mod pg;

use pg::fresh_store;

const WAIT: Duration = Duration::from_secs(30);

struct Server {
    addr: std::net::SocketAddr,
    app: Arc<App>,
}

async fn server(name: &str) -> Server {
    let dir: PathBuf =
        std::env::temp_dir().join(format!("xiangqi-chat-test-{}-{name}", std::process::id()));
    let store: Store = fresh_store(&dir).await;
    let app = Arc::new(App::new(store));
    app.hub.resume_all().await.expect("resume");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    let r = router(app.clone());
    tokio::spawn(async move {
        let _ = axum::serve(listener, r).await;
    });
    Server { addr, app }
}

/// Who sends a request: a seat's token, or an account's session cookie and CSRF token.
#[derive(Clone, Default)]
struct Who {
    bearer: Option<String>,
    cookie: Option<String>,
    csrf: Option<String>,
}

fn seat(t: &str) -> Who {
    Who {
        bearer: Some(t.to_owned()),
        ..Who::default()
    }
}

fn nobody() -> Who {
    Who::default()
}

async fn raw(s: &Server, w: &Who, method: &str, path: &str, body: Option<Value>) -> client::Stream {
    let mut req = Request::new(method, path).bearer(w.bearer.as_deref());
    if let Some(k) = &w.cookie {
        req = req.header("cookie", &format!("xq_session={k}"));
    }
    if let Some(t) = &w.csrf {
        req = req.header("x-csrf-token", t);
    }
    let req = req.body(
        "application/json",
        body.map(|v| v.to_string()).unwrap_or_default(),
    );
    let c = Conn::connect(s.addr).await.expect("connect");
    tokio::time::timeout(WAIT, c.stream(&req))
        .await
        .unwrap_or_else(|_| panic!("{method} {path}: no answer within the wait"))
        .expect("response")
}

/// A request's status, JSON answer and `Retry-After`.
async fn call(
    s: &Server,
    w: &Who,
    method: &str,
    path: &str,
    body: Option<Value>,
) -> (u16, Value, Option<String>) {
    let res = raw(s, w, method, path, body).await;
    let status = res.status();
    let retry = res.header("retry-after").map(str::to_owned);
    let bytes = res.rest().await.expect("body");
    let v = serde_json::from_slice(&bytes)
        .unwrap_or(Value::String(String::from_utf8_lossy(&bytes).into_owned()));
    (status, v, retry)
}

async fn register(s: &Server, name: &str) -> Who {
    let res = raw(
        s,
        &nobody(),
        "POST",
        "/api/account/register",
        Some(json!({"username": name, "password": "correct horse"})),
    )
    .await;
    assert_eq!(res.status(), 200, "register {name}");
    let cookie = res
        .header("set-cookie")
        .and_then(|c| c.split(';').next())
        .and_then(|kv| kv.trim().strip_prefix("xq_session="))
        .expect("the session cookie")
        .to_owned();
    let v: Value = serde_json::from_slice(&res.rest().await.unwrap()).unwrap();
    Who {
        bearer: None,
        cookie: Some(cookie),
        csrf: Some(v["csrf"].as_str().unwrap().to_owned()),
    }
}

struct Game {
    id: String,
    red: String,
    black: String,
}

async fn game(s: &Server, w: &Who, body: Value) -> Game {
    let (st, v, _) = call(s, w, "POST", "/api/challenge/open", Some(body)).await;
    assert_eq!(st, 200, "{v}");
    Game {
        id: v["id"].as_str().unwrap().to_owned(),
        red: v["tokenRed"].as_str().unwrap().to_owned(),
        black: v["tokenBlack"].as_str().unwrap().to_owned(),
    }
}

async fn say(
    s: &Server,
    g: &Game,
    w: &Who,
    room: &str,
    text: &str,
) -> (u16, Value, Option<String>) {
    call(
        s,
        w,
        "POST",
        &format!("/api/board/game/{}/chat", g.id),
        Some(json!({"room": room, "text": text})),
    )
    .await
}

async fn history(s: &Server, g: &Game, w: &Who) -> Vec<String> {
    let (st, v, _) = call(s, w, "GET", &format!("/api/board/game/{}/chat", g.id), None).await;
    assert_eq!(st, 200, "{v}");
    v.as_array()
        .unwrap()
        .iter()
        .map(|l| l["text"].as_str().unwrap().to_owned())
        .collect()
}

struct Stream {
    body: client::Stream,
    all: String,
}

impl Stream {
    async fn open(s: &Server, g: &Game, w: &Who) -> Stream {
        let res = raw(
            s,
            w,
            "GET",
            &format!("/api/board/game/stream/{}", g.id),
            None,
        )
        .await;
        assert_eq!(res.status(), 200);
        let mut st = Stream {
            body: res,
            all: String::new(),
        };
        assert_eq!(st.next().await["type"], "gameFull");
        st
    }

    async fn next(&mut self) -> Value {
        let deadline = tokio::time::Instant::now() + WAIT;
        loop {
            let line = tokio::time::timeout_at(deadline, self.body.next_line())
                .await
                .unwrap_or_else(|_| panic!("no line within the wait; read:\n{}", self.all))
                .expect("a line")
                .expect("the stream goes on");
            self.all.push_str(&line);
            self.all.push('\n');
            if !line.trim().is_empty() {
                return serde_json::from_str(&line).expect("a JSON line");
            }
        }
    }

    /// The texts of the chat lines read until the `gameState` with `moves` (a marker).
    async fn chat_until(&mut self, moves: &str) -> Vec<String> {
        let mut out = Vec::new();
        loop {
            let v = self.next().await;
            if v["type"] == "chatLine" {
                out.push(v["text"].as_str().unwrap().to_owned());
            }
            if v["type"] == "gameState" && v["moves"] == moves {
                return out;
            }
        }
    }
}

async fn play(s: &Server, g: &Game, token: &str, m: &str) {
    let (st, v, _) = call(
        s,
        &seat(token),
        "POST",
        &format!("/api/board/game/{}/move/{m}", g.id),
        None,
    )
    .await;
    assert_eq!(st, 200, "{m}: {v}");
}

#[tokio::test]
async fn players_and_spectators_each_read_their_own_room() {
    let s = server("rooms").await;
    let g = game(&s, &nobody(), json!({})).await;
    let ann = register(&s, "ann").await;
    let bo = register(&s, "bo").await;
    let mut red = Stream::open(&s, &g, &seat(&g.red)).await;
    let mut black = Stream::open(&s, &g, &seat(&g.black)).await;
    let mut watcher = Stream::open(&s, &g, &nobody()).await;
    let mut ann_watching = Stream::open(&s, &g, &ann).await;

    // Text is kept as written: a client shows it as text.
    let (st, v, _) = say(
        &s,
        &g,
        &seat(&g.red),
        "player",
        "  <script>alert(1)</script> hi ",
    )
    .await;
    assert_eq!(st, 200, "{v}");
    let (st, _, _) = say(&s, &g, &seat(&g.black), "player", "<b>hi</b>").await;
    assert_eq!(st, 200);
    let (st, v, _) = say(&s, &g, &ann, "spectator", "go red").await;
    assert_eq!(st, 200, "{v}");
    let (st, _, _) = say(&s, &g, &bo, "spectator", "go black").await;
    assert_eq!(st, 200);
    play(&s, &g, &g.red, "h2e2").await;

    let players = ["<script>alert(1)</script> hi", "<b>hi</b>"];
    let spectators = ["go red", "go black"];
    assert_eq!(red.chat_until("h2e2").await, players);
    assert_eq!(black.chat_until("h2e2").await, players);
    assert_eq!(watcher.chat_until("h2e2").await, spectators);
    assert_eq!(ann_watching.chat_until("h2e2").await, spectators);

    // The lines are stored, numbered in the order they were taken.
    let rows = s.app.store.chat_lines(&g.id).await.unwrap();
    let seqs: Vec<i64> = rows.iter().map(|r| r.seq).collect();
    assert_eq!(seqs, [0, 1, 2, 3]);
    assert_eq!(rows[0].seat, "red");
    assert_eq!(rows[0].author, "Red");
    assert_eq!(rows[2].user.as_deref(), Some("ann"));
    assert_eq!(rows[2].room, "spectator");

    // Each reads its rooms' history.
    assert_eq!(history(&s, &g, &seat(&g.red)).await, players);
    assert_eq!(history(&s, &g, &nobody()).await, spectators);
    assert_eq!(history(&s, &g, &ann).await, spectators);

    // After the end the players read the spectators' room too, and its new lines.
    let (st, _, _) = call(
        &s,
        &seat(&g.black),
        "POST",
        &format!("/api/board/game/{}/resign", g.id),
        None,
    )
    .await;
    assert_eq!(st, 200);
    let (st, _, _) = say(&s, &g, &ann, "spectator", "gg").await;
    assert_eq!(st, 200);
    let v = loop {
        let v = red.next().await;
        if v["type"] == "chatLine" {
            break v;
        }
    };
    assert_eq!(v["text"], "gg");
    assert_eq!(v["room"], "spectator");
    assert_eq!(v["username"], "ann");
    assert_eq!(v["user"], "ann");
    assert_eq!(v["seq"], 4);
    assert_eq!(
        history(&s, &g, &seat(&g.red)).await,
        [players[0], players[1], spectators[0], spectators[1], "gg"]
    );
}

#[tokio::test]
async fn a_line_is_stored_before_any_stream_has_it() {
    let s = server("durable").await;
    let g = game(&s, &nobody(), json!({})).await;
    let mut black = Stream::open(&s, &g, &seat(&g.black)).await;
    for i in 0..3 {
        let text = format!("line {i}");
        let (st, _, _) = say(&s, &g, &seat(&g.red), "player", &text).await;
        assert_eq!(st, 200);
        let v = loop {
            let v = black.next().await;
            if v["type"] == "chatLine" {
                break v;
            }
        };
        assert_eq!(v["text"], text.as_str());
        assert_eq!(v["seq"], i);
        // Read from the store as soon as the stream had it.
        let rows = s.app.store.chat_lines(&g.id).await.unwrap();
        assert_eq!(rows.last().map(|r| r.text.as_str()), Some(text.as_str()));
    }
}

#[tokio::test]
async fn every_refusal_names_what_is_wrong() {
    let s = server("refusals").await;
    let g = game(&s, &nobody(), json!({})).await;
    let ann = register(&s, "ann").await;
    let red = seat(&g.red);

    let (st, v, _) = say(&s, &g, &red, "player", &"x".repeat(141)).await;
    assert_eq!(st, 422);
    assert_eq!(v["field"], "text");
    assert!(
        v["error"]
            .as_str()
            .unwrap()
            .contains("at most 140 characters"),
        "{v}"
    );
    let (st, v, _) = say(&s, &g, &red, "player", &"好".repeat(140)).await;
    assert_eq!(st, 200, "{v}");
    let (st, v, _) = say(&s, &g, &red, "player", " \t\u{7} ").await;
    assert_eq!(st, 422);
    assert_eq!(v["field"], "text");
    assert_eq!(v["error"], "a chat line is empty");
    let (st, v, _) = call(
        &s,
        &red,
        "POST",
        &format!("/api/board/game/{}/chat", g.id),
        Some(json!({"room": "player"})),
    )
    .await;
    assert_eq!((st, &v["field"]), (400, &json!("text")));
    let (st, v, _) = say(&s, &g, &red, "lobby", "hi").await;
    assert_eq!(st, 400, "{v}");

    // Who may write where.
    let (st, v, _) = say(&s, &g, &ann, "player", "let me in").await;
    assert_eq!(st, 403, "{v}");
    let (st, v, _) = say(&s, &g, &nobody(), "player", "hi").await;
    assert_eq!(st, 401, "{v}");
    let (st, v, _) = say(&s, &g, &nobody(), "spectator", "hi").await;
    assert_eq!(st, 401, "{v}");
    assert!(
        v["error"].as_str().unwrap().contains("needs an account"),
        "{v}"
    );
    let (st, v, _) = say(&s, &g, &seat("not-a-seat-token"), "player", "hi").await;
    assert_eq!(st, 403, "{v}");
    let (st, v, _) = call(
        &s,
        &seat("not-a-seat-token"),
        "GET",
        &format!("/api/board/game/{}/chat", g.id),
        None,
    )
    .await;
    assert_eq!(st, 403, "{v}");
    let unknown = Game {
        id: "Zz9Zz9Zz".into(),
        red: String::new(),
        black: String::new(),
    };
    let (st, _, _) = say(&s, &unknown, &red, "player", "hi").await;
    assert_eq!(st, 404);
    let (st, _, _) = call(&s, &nobody(), "GET", "/api/board/game/Zz9Zz9Zz/chat", None).await;
    assert_eq!(st, 404);

    // The rate limit: 5 lines in 10 s (one went above), then 429 with when to try again.
    for i in 0..4 {
        let (st, v, _) = say(&s, &g, &red, "player", &format!("n{i}")).await;
        assert_eq!(st, 200, "{i}: {v}");
    }
    let (st, v, retry) = say(&s, &g, &red, "player", "one too many").await;
    assert_eq!(st, 429, "{v}");
    let retry: u64 = retry.expect("Retry-After").parse().unwrap();
    assert!((1..=10).contains(&retry), "{retry}");
    assert!(
        v["error"].as_str().unwrap().contains("too many chat lines"),
        "{v}"
    );
    // Per writer: the other seat and a spectator still write.
    let (st, _, _) = say(&s, &g, &seat(&g.black), "player", "me too").await;
    assert_eq!(st, 200);
    let (st, _, _) = say(&s, &g, &ann, "spectator", "and me").await;
    assert_eq!(st, 200);
    let texts: Vec<String> = s
        .app
        .store
        .chat_lines(&g.id)
        .await
        .unwrap()
        .into_iter()
        .map(|r| r.text)
        .collect();
    assert!(!texts
        .iter()
        .any(|t| t == "one too many" || t == "let me in"));
}

#[tokio::test]
async fn a_player_writes_in_the_spectators_room_only_after_the_game() {
    let s = server("player-as-spectator").await;
    let ann = register(&s, "ann").await;
    let _bo = register(&s, "bo").await;
    let g = game(&s, &ann, json!({"opponent": "bo", "color": "red"})).await;
    // Ann holds Red with her session: she writes in the players' room without the token.
    let (st, v, _) = say(&s, &g, &ann, "player", "hello bo").await;
    assert_eq!(st, 200, "{v}");
    let (st, v, _) = say(&s, &g, &ann, "spectator", "hello all").await;
    assert_eq!(st, 403, "{v}");
    let (st, _, _) = call(
        &s,
        &seat(&g.red),
        "POST",
        &format!("/api/board/game/{}/abort", g.id),
        None,
    )
    .await;
    assert_eq!(st, 200);
    let (st, v, _) = say(&s, &g, &ann, "spectator", "hello all").await;
    assert_eq!(st, 200, "{v}");
    let rows = s.app.store.chat_lines(&g.id).await.unwrap();
    assert_eq!(rows[0].user.as_deref(), Some("ann"));
    assert_eq!(rows[0].seat, "red");
}

#[tokio::test]
async fn a_block_hides_lines_and_challenges_and_chat_can_be_off() {
    let s = server("blocks").await;
    let g = game(&s, &nobody(), json!({})).await;
    let cy = register(&s, "cy").await;
    let di = register(&s, "di").await;
    let ed = register(&s, "ed").await;

    let (st, v, _) = call(&s, &di, "POST", "/api/rel/block/CY", None).await;
    assert_eq!(st, 200, "{v}");
    let (st, _, _) = call(&s, &di, "POST", "/api/rel/block/cy", None).await;
    assert_eq!(st, 200, "a second block changes nothing");
    let (st, v, _) = call(&s, &di, "POST", "/api/rel/block/nobody-here", None).await;
    assert_eq!(st, 404, "{v}");
    let (st, v, _) = call(&s, &di, "POST", "/api/rel/block/di", None).await;
    assert_eq!(st, 400, "{v}");
    let (st, _, _) = call(&s, &nobody(), "POST", "/api/rel/block/cy", None).await;
    assert_eq!(st, 401);
    let (_, me, _) = call(&s, &di, "GET", "/api/account", None).await;
    assert_eq!(me["blocking"], json!(["cy"]));
    assert_eq!(me["chat"], true);

    let mut di_watching = Stream::open(&s, &g, &di).await;
    let mut anon = Stream::open(&s, &g, &nobody()).await;
    assert_eq!(say(&s, &g, &cy, "spectator", "from cy").await.0, 200);
    assert_eq!(say(&s, &g, &ed, "spectator", "from ed").await.0, 200);
    play(&s, &g, &g.red, "h2e2").await;
    assert_eq!(di_watching.chat_until("h2e2").await, ["from ed"]);
    assert_eq!(anon.chat_until("h2e2").await, ["from cy", "from ed"]);
    assert_eq!(history(&s, &g, &di).await, ["from ed"]);
    assert_eq!(history(&s, &g, &nobody()).await, ["from cy", "from ed"]);

    // A blocked account's challenge is refused.
    let (st, v, _) = call(
        &s,
        &cy,
        "POST",
        "/api/challenge/open",
        Some(json!({"opponent": "di"})),
    )
    .await;
    assert_eq!(st, 403, "{v}");
    assert_eq!(v["field"], "opponent");
    let (st, _, _) = call(&s, &di, "POST", "/api/rel/unblock/cy", None).await;
    assert_eq!(st, 200);
    assert_eq!(
        history(&s, &g, &di).await,
        ["from cy", "from ed"],
        "unblocked: shown again"
    );
    let (st, v, _) = call(
        &s,
        &cy,
        "POST",
        "/api/challenge/open",
        Some(json!({"opponent": "di"})),
    )
    .await;
    assert_eq!(st, 200, "{v}");

    // Chat off: no lines in the history or on a stream.
    let (st, v, _) = call(
        &s,
        &di,
        "POST",
        "/api/account/preferences",
        Some(json!({"chat": false})),
    )
    .await;
    assert_eq!(st, 200, "{v}");
    let (st, v, _) = call(
        &s,
        &di,
        "POST",
        "/api/account/preferences",
        Some(json!({"chat": "maybe"})),
    )
    .await;
    assert_eq!(st, 400, "{v}");
    let (_, me, _) = call(&s, &di, "GET", "/api/account", None).await;
    assert_eq!(me["chat"], false);
    // The app's language, kept with the account: none until chosen; a code not one of the
    // four is refused by its field; choosing it keeps the chat preference.
    assert!(me.get("lang").is_none(), "{me}");
    for (lang, status) in [("zh-TW", 400), ("vi", 200), ("", 400), ("zh-Hant", 200)] {
        let (st, v, _) = call(
            &s,
            &di,
            "POST",
            "/api/account/preferences",
            Some(json!({"lang": lang})),
        )
        .await;
        assert_eq!(st, status, "{lang}: {v}");
        if status == 400 {
            assert_eq!(v["field"], "lang", "{v}");
            assert!(
                v["error"]
                    .as_str()
                    .unwrap()
                    .contains("en, zh-Hans, zh-Hant or vi"),
                "{v}"
            );
        }
    }
    let (_, me, _) = call(&s, &di, "GET", "/api/account", None).await;
    assert_eq!(me["lang"], "zh-Hant");
    assert_eq!(me["chat"], false);
    assert!(history(&s, &g, &di).await.is_empty());
    let mut off = Stream::open(&s, &g, &di).await;
    assert_eq!(say(&s, &g, &ed, "spectator", "unseen").await.0, 200);
    play(&s, &g, &g.black, "h9g7").await;
    assert!(off.chat_until("h2e2 h9g7").await.is_empty());
}
