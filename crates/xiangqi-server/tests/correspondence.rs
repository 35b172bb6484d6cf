//! Correspondence games through the HTTP API, with a real server on a loopback port: a
//! challenge and a seek with `days`, the `gameFull` shape, refusals of a bad `days`, a game
//! lost on time after its (test-short) day, the deadline over a restart, and an account's
//! "your turn" list (`GET /api/account/playing`). Waits are bounded; nothing measures speed.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use xiangqi_server::client::{self, Conn, Request};
use xiangqi_server::{router, App, Store};

mod pg;

use pg::{fresh_store, store_at};

const WAIT: Duration = Duration::from_secs(30);
const DAY: i64 = 86_400_000;

struct Server {
    addr: SocketAddr,
    task: tokio::task::JoinHandle<()>,
}

fn data_dir(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("xiangqi-corr-test-{}-{name}", std::process::id()))
}

/// A server on `store` whose correspondence days last `day_ms` (set before it restores).
async fn start_on(store: Store, day_ms: u64) -> Server {
    let app = Arc::new(App::new(store));
    app.hub.set_day_ms(day_ms);
    app.hub.resume_all().await.expect("resume");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    let r = router(app);
    let task = tokio::spawn(async move {
        let _ = axum::serve(
            listener,
            r.into_make_service_with_connect_info::<SocketAddr>(),
        )
        .await;
    });
    Server { addr, task }
}

fn wall() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

/// A request (with a bearer token, seat or account) and its status and JSON.
async fn call(
    s: &Server,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: Value,
) -> (u16, Value) {
    let res = send(s, method, path, token, body).await;
    let status = res.status();
    let bytes = res.rest().await.expect("body");
    let v = serde_json::from_slice(&bytes)
        .unwrap_or(Value::String(String::from_utf8_lossy(&bytes).into_owned()));
    (status, v)
}

async fn send(
    s: &Server,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: Value,
) -> client::Stream {
    let text = if body.is_null() {
        String::new()
    } else {
        body.to_string()
    };
    let req = Request::new(method, path)
        .bearer(token)
        .body("application/json", text);
    let c = Conn::connect(s.addr).await.expect("connect");
    tokio::time::timeout(WAIT, c.stream(&req))
        .await
        .unwrap_or_else(|_| panic!("{method} {path}: no answer within the wait"))
        .expect("response")
}

/// The next non-blank line of a stream, as JSON.
async fn next(st: &mut client::Stream) -> Value {
    loop {
        let line = tokio::time::timeout(WAIT, st.next_line())
            .await
            .expect("a line within the wait")
            .expect("a line")
            .expect("the stream goes on");
        if !line.trim().is_empty() {
            return serde_json::from_str(&line).expect("JSON");
        }
    }
}

async fn full(s: &Server, id: &str) -> Value {
    let (st, v) = call(
        s,
        "GET",
        &format!("/api/board/game/{id}"),
        None,
        Value::Null,
    )
    .await;
    assert_eq!(st, 200, "{v}");
    v
}

async fn play(s: &Server, id: &str, m: &str, token: &str) -> (u16, Value) {
    call(
        s,
        "POST",
        &format!("/api/board/game/{id}/move/{m}"),
        Some(token),
        Value::Null,
    )
    .await
}

/// An open challenge: id, Red's and Black's tokens.
async fn challenge(s: &Server, token: Option<&str>, body: Value) -> (String, String, String) {
    let (st, v) = call(s, "POST", "/api/challenge/open", token, body).await;
    assert_eq!(st, 200, "{v}");
    let t = |k: &str| v[k].as_str().unwrap().to_owned();
    (t("id"), t("tokenRed"), t("tokenBlack"))
}

#[tokio::test]
async fn a_correspondence_challenge_and_seek_in_lichess_shape() {
    let dir = data_dir("shape");
    let s = start_on(fresh_store(&dir).await, DAY as u64).await;
    let t0 = wall();
    let (id, red, black) = challenge(&s, None, json!({"days": 3})).await;
    let g = full(&s, &id).await;
    assert_eq!(g["clock"], Value::Null, "{g}");
    assert_eq!(
        (g["daysPerTurn"].as_u64(), g["speed"].as_str()),
        (Some(3), Some("correspondence")),
        "{g}"
    );
    let d0 = g["state"]["deadline"].as_i64().expect("a deadline");
    assert!((t0 + 3 * DAY..=wall() + 3 * DAY).contains(&d0), "{d0}");
    assert_eq!(
        (g["state"]["rtime"].clone(), g["state"]["btime"].clone()),
        (Value::Null, Value::Null)
    );
    // Each move gives the other side three days from the move.
    assert_eq!(play(&s, &id, "h2e2", &red).await.0, 200);
    let t1 = wall();
    let d1 = full(&s, &id).await["state"]["deadline"].as_i64().unwrap();
    assert!(
        d1 >= t1 - 1_000 + 3 * DAY && d1 <= wall() + 3 * DAY && d1 >= d0,
        "{d0} {d1}"
    );
    assert_eq!(play(&s, &id, "h9g7", &black).await.0, 200);
    // No victory claimed against a player who left: they have until the deadline.
    let (st, v) = call(
        &s,
        "POST",
        &format!("/api/board/game/{id}/claim-victory"),
        Some(&red),
        Value::Null,
    )
    .await;
    assert_eq!(st, 409, "{v}");
    assert!(
        v["error"].as_str().unwrap().contains("correspondence"),
        "{v}"
    );
    // Abort before both have moved.
    let (id2, red2, _) = challenge(&s, None, json!({"days": 14})).await;
    assert_eq!(play(&s, &id2, "h2e2", &red2).await.0, 200);
    let (st, _) = call(
        &s,
        "POST",
        &format!("/api/board/game/{id2}/abort"),
        Some(&red2),
        Value::Null,
    )
    .await;
    assert_eq!(st, 200);
    let g2 = full(&s, &id2).await;
    assert_eq!(g2["state"]["status"], "aborted");
    assert!(g2["state"].get("deadline").is_none(), "{g2}");

    // A bad `days` is refused, naming the field; a form too.
    for bad in [
        json!({"days": 4}),
        json!({"days": 0}),
        json!({"days": 2.5}),
        json!({"days": "x"}),
        json!({"days": 3, "clock": {"limit": 60, "increment": 0}}),
    ] {
        for path in ["/api/challenge/open", "/api/board/seek"] {
            let (st, v) = call(&s, "POST", path, None, bad.clone()).await;
            assert_eq!(
                (st, v["field"].as_str()),
                (400, Some("days")),
                "{path} {bad}: {v}"
            );
        }
    }
    let req = Request::new("POST", "/api/challenge/open")
        .body("application/x-www-form-urlencoded", "days=30".to_owned());
    let res = Conn::connect(s.addr)
        .await
        .unwrap()
        .stream(&req)
        .await
        .unwrap();
    assert_eq!(res.status(), 400);
    let v: Value = serde_json::from_slice(&res.rest().await.unwrap()).unwrap();
    assert_eq!(v["field"], "days", "{v}");
    assert!(v["error"].as_str().unwrap().contains("not 30"), "{v}");

    // A seek with days: the lobby shows them, the game taken has them.
    let mut seek = send(
        &s,
        "POST",
        "/api/board/seek",
        None,
        json!({"days": 7, "name": "Ann"}),
    )
    .await;
    assert_eq!(seek.status(), 200);
    let seek_id = next(&mut seek).await["id"].as_str().unwrap().to_owned();
    let mut lobby = send(&s, "GET", "/api/lobby/stream", None, Value::Null).await;
    let l = next(&mut lobby).await;
    let sk = &l["seeks"][0];
    assert_eq!(
        (sk["days"].as_u64(), sk["limit"].clone()),
        (Some(7), Value::Null),
        "{l}"
    );
    let (st, v) = call(
        &s,
        "POST",
        &format!("/api/board/seek/{seek_id}/accept"),
        None,
        json!({"name": "Bo"}),
    )
    .await;
    assert_eq!(st, 200, "{v}");
    let g = full(&s, v["id"].as_str().unwrap()).await;
    assert_eq!(g["daysPerTurn"], 7, "{g}");
    assert_eq!(next(&mut seek).await["type"], "gameStart");
    s.task.abort();
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn a_correspondence_game_is_lost_on_time_after_its_day() {
    let dir = data_dir("flag");
    // A day of 1.5 s: the test does not wait for real days.
    let s = start_on(fresh_store(&dir).await, 1_500).await;
    let (id, red, black) = challenge(&s, None, json!({"days": 1})).await;
    let (untouched, _, _) = challenge(&s, None, json!({"days": 1})).await;
    assert_eq!(play(&s, &id, "h2e2", &red).await.0, 200);
    assert_eq!(play(&s, &id, "h9g7", &black).await.0, 200);
    // Nobody is connected; Red's day runs out on the server.
    let mut st = send(
        &s,
        "GET",
        &format!("/api/board/game/stream/{id}"),
        None,
        Value::Null,
    )
    .await;
    loop {
        let v = next(&mut st).await;
        let state = if v["type"] == "gameFull" {
            v["state"].clone()
        } else {
            v.clone()
        };
        if state["status"] == "outoftime" {
            assert_eq!(state["winner"], "black", "{state}");
            break;
        }
    }
    assert_eq!(play(&s, &id, "h0g2", &red).await.0, 409);
    // A game nobody moved in is aborted at its first deadline, not lost.
    let mut st = send(
        &s,
        "GET",
        &format!("/api/board/game/stream/{untouched}"),
        None,
        Value::Null,
    )
    .await;
    loop {
        let v = next(&mut st).await;
        let state = if v["type"] == "gameFull" {
            v["state"].clone()
        } else {
            v.clone()
        };
        if state["status"] == "aborted" {
            break;
        }
    }
    s.task.abort();
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn the_deadline_is_kept_over_a_restart_and_moved_forward_when_it_passed() {
    let dir = data_dir("restart");
    // Days of 3 s on the first run.
    let s = start_on(fresh_store(&dir).await, 3_000).await;
    let (short, red, black) = challenge(&s, None, json!({"days": 1})).await;
    let (long, lred, lblack) = challenge(&s, None, json!({"days": 14})).await;
    for (id, r, b) in [(&short, &red, &black), (&long, &lred, &lblack)] {
        assert_eq!(play(&s, id, "h2e2", r).await.0, 200);
        assert_eq!(play(&s, id, "h9g7", b).await.0, 200);
    }
    let kept = full(&s, &long).await["state"]["deadline"].as_i64().unwrap();
    let passed = full(&s, &short).await["state"]["deadline"]
        .as_i64()
        .unwrap();
    s.task.abort();
    drop(s);
    // Down past the short game's deadline.
    let wait = (passed - wall() + 500).max(0) as u64;
    tokio::time::sleep(Duration::from_millis(wait)).await;
    // Back with days of 240 s: a deadline that passed is moved to a 24th of that (10 s) on.
    let restart = wall();
    let s = start_on(store_at(&dir).await, 240_000).await;
    let g = full(&s, &short).await;
    assert_eq!(g["state"]["status"], "started", "not ended at once: {g}");
    let moved = g["state"]["deadline"].as_i64().unwrap();
    assert!(
        (restart + 10_000..=wall() + 10_000).contains(&moved),
        "{passed} -> {moved}"
    );
    let g = full(&s, &long).await;
    assert_eq!(g["state"]["deadline"].as_i64(), Some(kept), "{g}");
    // Red still moves with its seat's token; Black gets a new turn of a (240 s) day.
    assert_eq!(play(&s, &short, "h0g2", &red).await.0, 200);
    let d = full(&s, &short).await["state"]["deadline"]
        .as_i64()
        .unwrap();
    assert!(d >= restart + 240_000, "{d}");
    s.task.abort();
    let _ = std::fs::remove_dir_all(&dir);
}

/// Registers `name` and answers a personal API token of the account.
async fn account(s: &Server, name: &str) -> String {
    let res = send(
        s,
        "POST",
        "/api/account/register",
        None,
        json!({"username": name, "password": "a long password"}),
    )
    .await;
    assert_eq!(res.status(), 200);
    let cookie = res
        .header("set-cookie")
        .unwrap()
        .split(';')
        .next()
        .unwrap()
        .to_owned();
    let v: Value = serde_json::from_slice(&res.rest().await.unwrap()).unwrap();
    let req = Request::new("POST", "/api/account/tokens")
        .header("cookie", &cookie)
        .header("x-csrf-token", v["csrf"].as_str().unwrap())
        .body("application/json", json!({"label": "t"}).to_string());
    let res = Conn::connect(s.addr)
        .await
        .unwrap()
        .stream(&req)
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let v: Value = serde_json::from_slice(&res.rest().await.unwrap()).unwrap();
    v["token"].as_str().unwrap().to_owned()
}

async fn playing(s: &Server, token: &str) -> Vec<Value> {
    let (st, v) = call(s, "GET", "/api/account/playing", Some(token), Value::Null).await;
    assert_eq!(st, 200, "{v}");
    v["nowPlaying"].as_array().unwrap().clone()
}

#[tokio::test]
async fn the_your_turn_list_puts_the_accounts_turn_first() {
    let dir = data_dir("playing");
    let s = start_on(fresh_store(&dir).await, DAY as u64).await;
    let ann = account(&s, "Ann").await;
    let bo = account(&s, "bo").await;
    let (st, v) = call(&s, "GET", "/api/account/playing", None, Value::Null).await;
    assert_eq!(st, 401, "{v}");
    // Ann: Red in a rated 3-day game, Black in a casual 1-day game, Red in a 10+0 game.
    let (rated, ..) = challenge(
        &s,
        Some(&ann),
        json!({"days": 3, "rated": true, "opponent": "bo", "color": "red"}),
    )
    .await;
    let (one, ..) = challenge(
        &s,
        Some(&ann),
        json!({"days": 1, "opponent": "bo", "color": "black"}),
    )
    .await;
    let (clock, ..) = challenge(
        &s,
        Some(&ann),
        json!({"clock": {"limit": 600, "increment": 0}, "opponent": "bo", "color": "red"}),
    )
    .await;
    let list = playing(&s, &ann).await;
    let ids: Vec<&str> = list.iter().map(|g| g["gameId"].as_str().unwrap()).collect();
    // Her turn in the rated game (3 days) and the clock game (600 s), least time first; not
    // in the 1-day game (Red, Bo, is to move).
    assert_eq!(
        ids,
        [clock.as_str(), rated.as_str(), one.as_str()],
        "{list:?}"
    );
    let g = &list[1];
    assert_eq!(
        (
            g["color"].as_str(),
            g["isMyTurn"].as_bool(),
            g["speed"].as_str(),
            g["perf"].as_str(),
            g["rated"].as_bool(),
            g["lastMove"].as_str()
        ),
        (
            Some("red"),
            Some(true),
            Some("correspondence"),
            Some("correspondence"),
            Some(true),
            Some("")
        ),
        "{g}"
    );
    assert_eq!(g["fullId"], format!("{rated}r"));
    assert_eq!(
        g["fen"],
        "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"
    );
    let left = g["secondsLeft"].as_u64().unwrap();
    assert!((3 * 86_400 - 60..=3 * 86_400).contains(&left), "{left}");
    assert_eq!(
        (
            g["opponent"]["id"].as_str(),
            g["opponent"]["username"].as_str(),
            g["opponent"]["rating"].as_i64()
        ),
        (Some("bo"), Some("bo"), Some(1500)),
        "{g}"
    );
    assert_eq!(list[0]["secondsLeft"], 600);
    assert_eq!(
        (list[2]["isMyTurn"].as_bool(), list[2]["color"].as_str()),
        (Some(false), Some("black"))
    );
    // Bo's list: his turn in the 1-day game only.
    let bl = playing(&s, &bo).await;
    assert_eq!(bl[0]["gameId"], one.as_str());
    assert_eq!(bl[0]["isMyTurn"], true);
    assert_eq!(bl.iter().filter(|g| g["isMyTurn"] == true).count(), 1);
    // Ann moves in the rated game (with her account's token): it is no longer her turn.
    assert_eq!(play(&s, &rated, "h2e2", &ann).await.0, 200);
    let list = playing(&s, &ann).await;
    let g = list.iter().find(|g| g["gameId"] == rated.as_str()).unwrap();
    assert_eq!(
        (g["isMyTurn"].as_bool(), g["lastMove"].as_str()),
        (Some(false), Some("h2e2"))
    );
    assert_eq!(list.iter().filter(|g| g["isMyTurn"] == true).count(), 1);
    assert_eq!(
        playing(&s, &bo)
            .await
            .iter()
            .filter(|g| g["isMyTurn"] == true)
            .count(),
        2
    );
    s.task.abort();
    let _ = std::fs::remove_dir_all(&dir);
}
