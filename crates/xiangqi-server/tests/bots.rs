//! lichess's Bot API on a real server on a loopback port with real HTTP clients (on SQLite,
//! or PostgreSQL with `XIANGQI_TEST_API_BACKEND=postgres`): the upgrade to a bot, the event
//! stream (`challenge`, `challengeDeclined`, `challengeCanceled`, `gameStart`, `gameFinish`),
//! two bots playing each other to a result, a bot against a person's board-API client, a bot
//! reconnecting to its game, every wrong token and wrong kind of account, the bots
//! preference and the per-bot limits. Waits are bounded; nothing here measures speed.

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
        std::env::temp_dir().join(format!("xiangqi-bots-test-{}-{name}", std::process::id()));
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

struct Stream {
    body: client::Stream,
    all: String,
}

impl Stream {
    async fn open(s: &Server, w: &Who, path: &str) -> Stream {
        let res = raw(s, w, "GET", path, None).await;
        assert_eq!(res.status(), 200, "{path}");
        Stream {
            body: res,
            all: String::new(),
        }
    }

    /// The next line of type `kind` (others are skipped).
    async fn until(&mut self, kind: &str) -> Value {
        loop {
            let v = self.next().await;
            if v["type"] == kind {
                return v;
            }
        }
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
}

/// An account with a personal API token (as `Who` with the bearer).
async fn account(s: &Server, name: &str) -> Who {
    let w = register(s, name).await;
    let (st, v, _) = call(
        s,
        &w,
        "POST",
        "/api/account/tokens",
        Some(json!({"label": "bot"})),
    )
    .await;
    assert_eq!(st, 200, "{v}");
    Who {
        bearer: Some(v["token"].as_str().unwrap().to_owned()),
        cookie: None,
        csrf: None,
    }
}

async fn bot(s: &Server, name: &str) -> Who {
    let w = account(s, name).await;
    let (st, v, _) = call(s, &w, "POST", "/api/bot/account/upgrade", None).await;
    assert_eq!(st, 200, "{v}");
    w
}

async fn post(s: &Server, w: &Who, path: &str, body: Option<Value>) -> (u16, Value) {
    let (st, v, _) = call(s, w, "POST", path, body).await;
    (st, v)
}

/// `from` challenges `to`; `to` reads it on its event stream and accepts; both get
/// `gameStart`. Answers the game's id and the challenger's colour.
async fn start(
    s: &Server,
    from: &Who,
    to: &Who,
    to_name: &str,
    events: [&mut Stream; 2],
    body: Value,
) -> (String, String) {
    let [ef, et] = events;
    let (st, c) = post(s, from, &format!("/api/challenge/{to_name}"), Some(body)).await;
    assert_eq!(st, 200, "{c}");
    let id = c["id"].as_str().unwrap().to_owned();
    assert_eq!(c["status"], "created");
    assert_eq!(c["variant"]["key"], "standard");
    let seen = et.until("challenge").await;
    assert_eq!(seen["challenge"]["id"], id.as_str());
    assert_eq!(seen["challenge"]["destUser"]["id"], to_name.to_lowercase());
    let (st, v) = post(s, to, &format!("/api/challenge/{id}/accept"), None).await;
    assert_eq!(st, 200, "{v}");
    let a = et.until("gameStart").await;
    let b = ef.until("gameStart").await;
    assert_eq!(
        a["game"]["gameId"],
        id.as_str(),
        "the game has the challenge's id"
    );
    assert_eq!(b["game"]["id"], id.as_str());
    assert_eq!(a["game"]["source"], "friend");
    assert_ne!(a["game"]["color"], b["game"]["color"]);
    (id, b["game"]["color"].as_str().unwrap().to_owned())
}

#[tokio::test]
async fn two_bots_play_each_other_to_a_result() {
    let s = server("two-bots").await;
    let a = bot(&s, "AlphaBot").await;
    let b = bot(&s, "BetaBot").await;
    let (st, me, _) = call(&s, &a, "GET", "/api/account", None).await;
    assert_eq!(st, 200);
    assert_eq!(me["title"], "BOT");
    let (_, prof, _) = call(&s, &a, "GET", "/api/users/alphabot", None).await;
    assert_eq!(prof["title"], "BOT");
    let mut ea = Stream::open(&s, &a, "/api/stream/event").await;
    let mut eb = Stream::open(&s, &b, "/api/stream/event").await;
    let (id, a_color) = start(
        &s,
        &a,
        &b,
        "betabot",
        [&mut ea, &mut eb],
        json!({"clock.limit": 300, "clock.increment": 2, "color": "white", "rated": true}),
    )
    .await;
    assert_eq!(a_color, "red", "lichess's white is red");
    let mut ga = Stream::open(&s, &a, &format!("/api/bot/game/stream/{id}")).await;
    let full = ga.until("gameFull").await;
    assert_eq!(full["red"]["title"], "BOT");
    assert_eq!(full["black"]["title"], "BOT");
    assert_eq!(full["rated"], true);
    let mut gb = Stream::open(&s, &b, &format!("/api/bot/game/stream/{id}")).await;
    gb.until("gameFull").await;
    let line = ["h2e2", "h9g7", "h0g2", "i9h9"];
    for (i, m) in line.iter().enumerate() {
        let who = if i % 2 == 0 { &a } else { &b };
        let (st, v) = post(&s, who, &format!("/api/bot/game/{id}/move/{m}"), None).await;
        assert_eq!(st, 200, "{m}: {v}");
        let seen = gb.until("gameState").await;
        assert_eq!(seen["moves"], line[..=i].join(" "));
    }
    // A draw offered with a move (lichess's offeringDraw), declined by the other's move.
    let (st, v) = post(
        &s,
        &a,
        &format!("/api/bot/game/{id}/move/b0c2?offeringDraw=true"),
        None,
    )
    .await;
    assert_eq!(st, 200, "{v}");
    assert_eq!(
        gb.until("gameState").await["moves"],
        "h2e2 h9g7 h0g2 i9h9 b0c2"
    );
    let offer = gb.until("gameState").await;
    assert_eq!(offer["drawOffer"], "red", "{offer}");
    let (st, v) = post(&s, &b, &format!("/api/bot/game/{id}/resign"), None).await;
    assert_eq!(st, 200, "{v}");
    let mut end = ga.until("gameState").await;
    while end["status"] == "started" {
        end = ga.until("gameState").await;
    }
    assert_eq!(end["status"], "resign");
    assert_eq!(end["winner"], "red");
    // Rated in the people's pools, but not on the leaderboard (as on lichess).
    let (st, lb, _) = call(&s, &a, "GET", "/api/leaderboard/blitz", None).await;
    assert_eq!(st, 200);
    assert!(!lb.to_string().contains("AlphaBot"), "{lb}");
    for e in [&mut ea, &mut eb] {
        let f = e.until("gameFinish").await;
        assert_eq!(f["game"]["id"], id.as_str());
        assert_eq!(f["game"]["status"]["name"], "resign");
        assert_eq!(f["game"]["winner"], "red");
        assert!(f["game"]["ratingDiff"].is_i64(), "{f}");
    }
}

#[tokio::test]
async fn a_bot_plays_a_person_on_the_board_api_and_comes_back_after_a_disconnect() {
    let s = server("bot-person").await;
    let b = bot(&s, "Robo").await;
    let p = account(&s, "Pat").await;
    let mut eb = Stream::open(&s, &b, "/api/stream/event").await;
    let mut ep = Stream::open(&s, &p, "/api/stream/event").await;
    let (id, p_color) = start(
        &s,
        &p,
        &b,
        "robo",
        [&mut ep, &mut eb],
        json!({"clock": {"limit": 600, "increment": 5}, "color": "red"}),
    )
    .await;
    assert_eq!(p_color, "red");
    let mut pg_ = Stream::open(&s, &p, &format!("/api/board/game/stream/{id}")).await;
    pg_.until("gameFull").await;
    {
        let mut gb = Stream::open(&s, &b, &format!("/api/bot/game/stream/{id}")).await;
        gb.until("gameFull").await;
        let (st, v) = post(&s, &p, &format!("/api/board/game/{id}/move/h2e2"), None).await;
        assert_eq!(st, 200, "{v}");
        assert_eq!(gb.until("gameState").await["moves"], "h2e2");
        let (st, v) = post(&s, &b, &format!("/api/bot/game/{id}/move/h9g7"), None).await;
        assert_eq!(st, 200, "{v}");
        let (st, v) = post(&s, &p, &format!("/api/board/game/{id}/move/h0g2"), None).await;
        assert_eq!(st, 200, "{v}");
        // The bot's connection drops here.
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let mut gb = Stream::open(&s, &b, &format!("/api/bot/game/stream/{id}")).await;
    let full = gb.until("gameFull").await;
    assert_eq!(full["state"]["moves"], "h2e2 h9g7 h0g2");
    let (rt, bt) = (
        full["state"]["rtime"].as_u64().unwrap(),
        full["state"]["btime"].as_u64().unwrap(),
    );
    assert!(rt <= 605_000 && rt > 590_000, "red's clock {rt}");
    assert!(
        bt < 605_000 && bt > 590_000,
        "black's clock runs on its turn: {bt}"
    );
    // The ongoing game comes first on a new event stream.
    let mut again = Stream::open(&s, &b, "/api/stream/event").await;
    let g = again.until("gameStart").await;
    assert_eq!(g["game"]["gameId"], id.as_str());
    assert_eq!(g["game"]["isMyTurn"], true);
    assert_eq!(g["game"]["opponent"]["username"], "Pat");
    // Wrong kinds of token on each API.
    let (st, v) = post(&s, &b, &format!("/api/board/game/{id}/move/i9h9"), None).await;
    assert_eq!(
        (st, v["error"].as_str().unwrap()),
        (403, "This API endpoint is not for Bot accounts.")
    );
    let (st, v) = post(&s, &p, &format!("/api/bot/game/{id}/move/i9h9"), None).await;
    assert_eq!(st, 403, "{v}");
    assert!(v["error"]
        .as_str()
        .unwrap()
        .starts_with("This endpoint only works for bot accounts"));
    let (st, _) = post(
        &s,
        &Who::default(),
        &format!("/api/bot/game/{id}/move/i9h9"),
        None,
    )
    .await;
    assert_eq!(st, 401);
    let seat = Who {
        bearer: Some("0123456789abcdef0123456789abcdef".into()),
        ..Who::default()
    };
    let (st, _) = post(&s, &seat, &format!("/api/bot/game/{id}/move/i9h9"), None).await;
    assert_eq!(st, 401);
    let revoked = Who {
        bearer: Some(format!("xqt_{}", "0".repeat(64))),
        ..Who::default()
    };
    let (st, _) = post(&s, &revoked, &format!("/api/bot/game/{id}/resign"), None).await;
    assert_eq!(st, 401);
    let res = raw(&s, &p, "GET", &format!("/api/bot/game/stream/{id}"), None).await;
    assert_eq!(res.status(), 403);
    let res = raw(&s, &Who::default(), "GET", "/api/stream/event", None).await;
    assert_eq!(res.status(), 401);
    let other = bot(&s, "Stranger").await;
    let (st, _) = post(&s, &other, &format!("/api/bot/game/{id}/resign"), None).await;
    assert_eq!(st, 403, "a bot holding no seat");
    // The bot resigns; the person's board stream sees it.
    let (st, v) = post(&s, &b, &format!("/api/bot/game/{id}/resign"), None).await;
    assert_eq!(st, 200, "{v}");
    loop {
        let end = pg_.until("gameState").await;
        if end["status"] != "started" {
            assert_eq!(end["status"], "resign");
            break;
        }
    }
    assert_eq!(ep.until("gameFinish").await["game"]["winner"], "red");
}

#[tokio::test]
async fn upgrades_challenges_declined_cancelled_and_refused() {
    let s = server("challenges").await;
    let p = account(&s, "Quinn").await;
    let q = account(&s, "Rae").await;
    // An account that has played cannot become a bot.
    let (st, v) = post(&s, &p, "/api/challenge/rae", Some(json!({}))).await;
    assert_eq!(st, 200, "{v}");
    let cid = v["id"].as_str().unwrap().to_owned();
    let (st, _) = post(&s, &q, &format!("/api/challenge/{cid}/accept"), None).await;
    assert_eq!(st, 200);
    let (st, v) = post(&s, &p, "/api/bot/account/upgrade", None).await;
    assert_eq!(
        (st, v["error"].as_str().unwrap()),
        (400, "You already have games played. Make a new account.")
    );
    let (st, _) = post(&s, &Who::default(), "/api/bot/account/upgrade", None).await;
    assert_eq!(st, 401);

    let b = bot(&s, "Declinator").await;
    let mut eb = Stream::open(&s, &b, "/api/stream/event").await;
    let mut ep = Stream::open(&s, &p, "/api/stream/event").await;
    // Declined with a reason: the challenger's stream says why.
    let (st, c) = post(
        &s,
        &p,
        "/api/challenge/declinator",
        Some(json!({"days": 3})),
    )
    .await;
    assert_eq!(st, 200, "{c}");
    assert_eq!(c["timeControl"]["type"], "correspondence");
    let id = c["id"].as_str().unwrap();
    let (st, v, _) = call(&s, &b, "GET", "/api/challenge", None).await;
    assert_eq!(st, 200);
    assert_eq!(v["in"][0]["id"], id, "{v}");
    assert_eq!(v["in"][0]["direction"], "in");
    eb.until("challenge").await;
    let (st, v) = post(
        &s,
        &b,
        &format!("/api/challenge/{id}/decline"),
        Some(json!({"reason": "nope"})),
    )
    .await;
    assert_eq!((st, v["field"].as_str()), (400, Some("reason")));
    let (st, v) = post(
        &s,
        &b,
        &format!("/api/challenge/{id}/decline"),
        Some(json!({"reason": "tooSlow"})),
    )
    .await;
    assert_eq!(st, 200, "{v}");
    let d = ep.until("challengeDeclined").await;
    assert_eq!(d["challenge"]["id"], id);
    assert_eq!(d["challenge"]["declineReasonKey"], "tooSlow");
    assert_eq!(
        d["challenge"]["declineReason"],
        "This time control is too slow for me, please challenge again with a faster game."
    );
    let (st, _) = post(&s, &b, &format!("/api/challenge/{id}/accept"), None).await;
    assert_eq!(st, 404, "answered once");
    // Cancelled by the challenger: the challenged's stream is told.
    let (st, c) = post(
        &s,
        &p,
        "/api/challenge/declinator",
        Some(json!({"clock.limit": 60, "clock.increment": 1})),
    )
    .await;
    assert_eq!(st, 200);
    let id = c["id"].as_str().unwrap();
    assert_eq!(c["timeControl"]["show"], "1+1");
    assert_eq!(c["speed"], "bullet");
    let (st, _) = post(&s, &q, &format!("/api/challenge/{id}/cancel"), None).await;
    assert_eq!(st, 403, "a third account");
    let (st, _) = post(
        &s,
        &b,
        &format!("/api/challenge/{id}/accept"),
        Some(json!({})),
    )
    .await;
    assert!(st == 200 || st == 404);
    // (Accepted above: cancel the next one instead.)
    let (st, c) = post(&s, &p, "/api/challenge/declinator", Some(json!({}))).await;
    assert_eq!(st, 200);
    let id = c["id"].as_str().unwrap().to_owned();
    let (st, _) = post(&s, &p, &format!("/api/challenge/{id}/cancel"), None).await;
    assert_eq!(st, 200);
    loop {
        let e = eb.next().await;
        if e["type"] == "challengeCanceled" {
            assert_eq!(e["challenge"]["id"], id.as_str());
            break;
        }
    }
    // Bad input.
    let (st, v) = post(
        &s,
        &p,
        "/api/challenge/declinator",
        Some(json!({"variant": "crazyhouse"})),
    )
    .await;
    assert_eq!((st, v["field"].as_str()), (400, Some("variant")), "{v}");
    let (st, _) = post(
        &s,
        &p,
        "/api/challenge/declinator",
        Some(json!({"variant": "xiangqi"})),
    )
    .await;
    assert_eq!(st, 200);
    let (st, _) = post(&s, &p, "/api/challenge/nobody-here", Some(json!({}))).await;
    assert_eq!(st, 404);
    let (st, _) = post(&s, &p, "/api/challenge/quinn", Some(json!({}))).await;
    assert_eq!(st, 400);
    // A person who takes no challenges from bots.
    let (st, _, _) = call(
        &s,
        &q,
        "POST",
        "/api/account/preferences",
        Some(json!({"bots": false})),
    )
    .await;
    assert_eq!(st, 200);
    let (_, me, _) = call(&s, &q, "GET", "/api/account", None).await;
    assert_eq!(me["bots"], false);
    let (st, v) = post(&s, &b, "/api/challenge/rae", Some(json!({}))).await;
    assert_eq!(st, 403, "{v}");
    assert!(v["error"].as_str().unwrap().contains("noBot"), "{v}");
    let (st, v) = post(&s, &b, "/api/challenge/quinn", Some(json!({}))).await;
    assert_eq!(st, 200, "{v}");
}

#[tokio::test]
async fn a_bot_over_its_limits_gets_429() {
    let s = server("limits").await;
    let b = bot(&s, "Spammy").await;
    let _p = account(&s, "Target").await;
    let mut last = (0, None);
    for _ in 0..25 {
        let (st, _, retry) = call(&s, &b, "POST", "/api/challenge/target", Some(json!({}))).await;
        last = (st, retry);
        if st == 429 {
            break;
        }
    }
    assert_eq!(last.0, 429, "challenges are limited per bot");
    assert!(last.1.is_some(), "with Retry-After");
}

#[tokio::test]
async fn a_bot_that_loses_on_time_three_times_in_a_row_is_paused() {
    let s = server("pause").await;
    let b = bot(&s, "Sleepy").await;
    let p = account(&s, "Waiter").await;
    let mut eb = Stream::open(&s, &b, "/api/stream/event").await;
    let mut ep = Stream::open(&s, &p, "/api/stream/event").await;
    for round in 0..3 {
        let (id, _) = start(
            &s,
            &b,
            &p,
            "waiter",
            [&mut eb, &mut ep],
            json!({"clock.limit": 1, "clock.increment": 0, "color": "red"}),
        )
        .await;
        let (st, v) = post(&s, &b, &format!("/api/bot/game/{id}/move/h2e2"), None).await;
        assert_eq!(st, 200, "{v}");
        let (st, v) = post(&s, &p, &format!("/api/board/game/{id}/move/h9g7"), None).await;
        assert_eq!(st, 200, "{v}");
        // The bot does not move: its flag falls.
        let f = eb.until("gameFinish").await;
        assert_eq!(
            f["game"]["status"]["name"], "outoftime",
            "round {round}: {f}"
        );
        assert_eq!(f["game"]["winner"], "black");
    }
    let (st, v, retry) = call(&s, &b, "POST", "/api/challenge/waiter", Some(json!({}))).await;
    assert_eq!(st, 429, "{v}");
    assert!(v["error"].as_str().unwrap().contains("paused"), "{v}");
    let retry: u64 = retry.expect("Retry-After").parse().unwrap();
    assert!(retry > 500 && retry <= 600, "{retry}");
    // A challenge to it cannot be accepted either.
    let (st, c) = post(&s, &p, "/api/challenge/sleepy", Some(json!({}))).await;
    assert_eq!(st, 200);
    let id = c["id"].as_str().unwrap();
    let (st, _) = post(&s, &b, &format!("/api/challenge/{id}/accept"), None).await;
    assert_eq!(st, 429);
}

/// `xiangqi-loadgen online --bots` (the load run of docs/PERFORMANCE.md, "Bot games") against
/// a real server: it registers, tokens and upgrades its bots, opens their event streams, starts
/// every game by a challenge and its acceptance, plays through the Bot API, replaces the games
/// that reach their plies (so gameFinish is checked too), and exits 0 only when every stream saw
/// every move once, in order, and every game's start and end reached both bots.
#[tokio::test]
async fn the_load_generator_plays_bot_games_through_the_bot_api() {
    let s = server("loadgen").await;
    s.app.accounts.set_limits(false);
    s.app.hub.set_bot_limits(false);
    let url = format!("http://{}", s.addr);
    let out = tokio::task::spawn_blocking(move || {
        std::process::Command::new(env!("CARGO_BIN_EXE_xiangqi-loadgen"))
            .args(["online", "--url", &url, "--bots", "--games", "4"])
            .args([
                "--rate",
                "40",
                "--seconds",
                "2",
                "--plies",
                "6",
                "--seed",
                "3",
            ])
            .output()
            .expect("run xiangqi-loadgen")
    })
    .await
    .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{text}\n{err}");
    assert!(text.contains("bots: 8 made"), "{text}");
    assert!(
        text.contains("every game's start and end reached both bots"),
        "{text}"
    );
    assert!(
        text.contains("errors: http 0, transport 0, stream 0"),
        "{text}"
    );
    assert!(
        text.contains("every stream saw every move of its game once"),
        "{text}"
    );
}
