//! Accounts, ratings and their security, against a real server on a loopback port (with the
//! client addresses, as `xiangqi serve` runs it) and real HTTP clients: registration and
//! log-in (no user enumeration), sessions that end on log-out and on a password change,
//! CSRF and Origin checks, log-in limits per account and per client, personal API tokens
//! acting for their account's seats and nobody else's, a rated game rated once (also across
//! a restart), profiles and leaderboards, and injection strings in every text field stored
//! and answered as they were given. Waits are bounded; nothing here measures speed.

use std::net::{IpAddr, SocketAddr};
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
    addr: SocketAddr,
    task: tokio::task::JoinHandle<()>,
}

fn data_dir(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!(
        "xiangqi-accounts-test-{}-{name}",
        std::process::id()
    ))
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

async fn server(name: &str) -> Server {
    start_on(fresh_store(&data_dir(name)).await).await
}

/// A client: its address (a loopback address of its own) and, once logged in, its cookie
/// and CSRF token.
#[derive(Clone, Default)]
struct Client {
    from: Option<IpAddr>,
    cookie: Option<String>,
    csrf: Option<String>,
    bearer: Option<String>,
    origin: Option<String>,
    headers: Vec<(String, String)>,
}

struct Answer {
    status: u16,
    json: Value,
    set_cookie: Option<String>,
    retry_after: Option<String>,
}

/// Sends a request from `c` on a connection of its own and reads its head; the body is read
/// after.
async fn raw(
    s: &Server,
    c: &Client,
    method: &str,
    path: &str,
    body: Option<Value>,
) -> client::Stream {
    let mut req = Request::new(method, path);
    if let Some(k) = &c.cookie {
        req = req.header("cookie", &format!("xq_session={k}"));
    }
    if let Some(t) = &c.csrf {
        req = req.header("x-csrf-token", t);
    }
    req = req.bearer(c.bearer.as_deref());
    if let Some(o) = &c.origin {
        req = req.header("origin", o);
    }
    for (k, v) in &c.headers {
        req = req.header(k, v);
    }
    let text = body.map(|v| v.to_string()).unwrap_or_default();
    let req = req.body("application/json", text);
    let conn = Conn::connect_from(s.addr, c.from)
        .await
        .expect("connect from the client's address");
    tokio::time::timeout(WAIT, conn.stream(&req))
        .await
        .unwrap_or_else(|_| panic!("{method} {path}: no answer within the wait"))
        .expect("response")
}

async fn call(s: &Server, c: &Client, method: &str, path: &str, body: Option<Value>) -> Answer {
    let res = raw(s, c, method, path, body).await;
    let status = res.status();
    let h = |n: &str| res.header(n).map(str::to_owned);
    let (set_cookie, retry_after) = (h("set-cookie"), h("retry-after"));
    let bytes = res.rest().await.expect("body");
    let json = serde_json::from_slice(&bytes)
        .unwrap_or(Value::String(String::from_utf8_lossy(&bytes).into_owned()));
    Answer {
        status,
        json,
        set_cookie,
        retry_after,
    }
}

fn cookie_value(set_cookie: &str) -> String {
    set_cookie
        .split(';')
        .next()
        .and_then(|kv| kv.trim().strip_prefix("xq_session="))
        .expect("the session cookie")
        .to_owned()
}

/// Logs `c` in with the answer of a register or log-in.
fn logged_in(a: &Answer) -> Client {
    assert_eq!(a.status, 200, "{}", a.json);
    Client {
        cookie: Some(cookie_value(a.set_cookie.as_deref().expect("Set-Cookie"))),
        csrf: Some(a.json["csrf"].as_str().expect("csrf").to_owned()),
        ..Client::default()
    }
}

async fn register(s: &Server, name: &str, password: &str) -> Client {
    let a = call(
        s,
        &Client::default(),
        "POST",
        "/api/account/register",
        Some(json!({"username": name, "password": password})),
    )
    .await;
    logged_in(&a)
}

async fn login(s: &Server, from: &Client, name: &str, password: &str) -> Answer {
    call(
        s,
        from,
        "POST",
        "/api/account/login",
        Some(json!({"username": name, "password": password})),
    )
    .await
}

async fn token(s: &Server, c: &Client) -> String {
    let a = call(
        s,
        c,
        "POST",
        "/api/account/tokens",
        Some(json!({"label": "bot"})),
    )
    .await;
    assert_eq!(a.status, 200, "{}", a.json);
    a.json["token"].as_str().unwrap().to_owned()
}

fn bearer(t: &str) -> Client {
    Client {
        bearer: Some(t.to_owned()),
        ..Client::default()
    }
}

/// A newline-delimited JSON stream being read.
struct Stream {
    body: client::Stream,
}

impl Stream {
    async fn open(s: &Server, c: &Client, method: &str, path: &str, body: Option<Value>) -> Stream {
        let res = raw(s, c, method, path, body).await;
        assert_eq!(res.status(), 200, "stream {path}");
        Stream { body: res }
    }

    async fn next(&mut self) -> Value {
        let deadline = tokio::time::Instant::now() + WAIT;
        loop {
            let line = tokio::time::timeout_at(deadline, self.body.next_line())
                .await
                .expect("a line within the wait")
                .expect("a line")
                .expect("the stream goes on");
            if !line.trim().is_empty() {
                return serde_json::from_str(&line).expect("a JSON line");
            }
        }
    }
}

#[tokio::test]
async fn register_log_in_and_out_with_cookies_and_csrf() {
    let s = server("basics").await;
    let guest = Client::default();
    // Malformed input is named.
    let a = call(
        &s,
        &guest,
        "POST",
        "/api/account/register",
        Some(json!({"username": "ann", "password": "short"})),
    )
    .await;
    assert_eq!(
        (a.status, a.json["field"].as_str()),
        (400, Some("password")),
        "{}",
        a.json
    );
    let a = call(
        &s,
        &guest,
        "POST",
        "/api/account/register",
        Some(json!({"username": "a", "password": "long enough"})),
    )
    .await;
    assert_eq!(
        (a.status, a.json["field"].as_str()),
        (400, Some("username")),
        "{}",
        a.json
    );
    let a = call(
        &s,
        &guest,
        "POST",
        "/api/account/register",
        Some(json!({"username": "ann"})),
    )
    .await;
    assert_eq!(a.status, 400);

    let a = call(
        &s,
        &guest,
        "POST",
        "/api/account/register",
        Some(json!({"username": "Ann", "password": "correct horse"})),
    )
    .await;
    assert_eq!(a.status, 200, "{}", a.json);
    let sc = a.set_cookie.clone().unwrap();
    assert!(
        sc.contains("HttpOnly") && sc.contains("SameSite=Lax") && sc.contains("Path=/"),
        "{sc}"
    );
    assert!(!sc.contains("Secure"), "plain http: not Secure: {sc}");
    let ann = logged_in(&a);
    // The same name in another case is taken.
    let a = call(
        &s,
        &guest,
        "POST",
        "/api/account/register",
        Some(json!({"username": "ANN", "password": "another one"})),
    )
    .await;
    assert_eq!(a.status, 409, "{}", a.json);

    let me = call(&s, &ann, "GET", "/api/account", None).await;
    assert_eq!(me.status, 200, "{}", me.json);
    assert_eq!(me.json["name"], "Ann");
    assert_eq!(me.json["csrf"], ann.csrf.clone().unwrap().as_str());
    assert_eq!(me.json["ratings"].as_array().unwrap().len(), 5);
    assert_eq!(me.json["ratings"][1]["speed"], "blitz");
    assert_eq!(me.json["ratings"][1]["rating"], 1500);
    assert_eq!(me.json["ratings"][1]["provisional"], true);
    assert_eq!(
        call(&s, &guest, "GET", "/api/account", None).await.status,
        401
    );

    // Behind https (X-Forwarded-Proto) the cookie is Secure.
    let https = Client {
        headers: vec![("x-forwarded-proto".into(), "https".into())],
        ..Client::default()
    };
    let a = login(&s, &https, "ann", "correct horse").await;
    assert_eq!(a.status, 200, "{}", a.json);
    assert!(a.set_cookie.unwrap().contains("; Secure"));

    // Unknown name and wrong password: the same answer.
    let wrong = login(&s, &guest, "ann", "wrong password").await;
    let unknown = login(&s, &guest, "nobody", "wrong password").await;
    assert_eq!((wrong.status, unknown.status), (401, 401));
    assert_eq!(wrong.json, unknown.json);
    assert!(wrong.set_cookie.is_none());

    // A change with the cookie needs the CSRF token, and the server's own origin.
    let no_csrf = Client {
        csrf: None,
        ..ann.clone()
    };
    let a = call(&s, &no_csrf, "POST", "/api/account/logout", None).await;
    assert_eq!(a.status, 403, "{}", a.json);
    let forged = Client {
        csrf: Some("0".repeat(32)),
        ..ann.clone()
    };
    assert_eq!(
        call(&s, &forged, "POST", "/api/account/logout", None)
            .await
            .status,
        403
    );
    let cross = Client {
        origin: Some("http://evil.example".into()),
        ..ann.clone()
    };
    assert_eq!(
        call(&s, &cross, "POST", "/api/account/logout", None)
            .await
            .status,
        403
    );
    let a = call(
        &s,
        &cross,
        "POST",
        "/api/account/login",
        Some(json!({"username": "ann", "password": "correct horse"})),
    )
    .await;
    assert_eq!(a.status, 403, "log-in from another site's page");
    let own = Client {
        origin: Some(format!("http://{}", s.addr)),
        ..ann.clone()
    };
    assert_eq!(
        call(&s, &own, "GET", "/api/account", None).await.status,
        200
    );
    // A cookie-authenticated seek without the CSRF token is refused too.
    let a = call(
        &s,
        &no_csrf,
        "POST",
        "/api/board/seek/AAAAAAAA/accept",
        None,
    )
    .await;
    assert_eq!(a.status, 403);

    // Log-out ends the session: the old cookie is a guest's.
    let a = call(&s, &ann, "POST", "/api/account/logout", None).await;
    assert_eq!(a.status, 200, "{}", a.json);
    assert!(a.set_cookie.unwrap().contains("Max-Age=0"));
    assert_eq!(
        call(&s, &ann, "GET", "/api/account", None).await.status,
        401
    );
    assert_eq!(
        call(&s, &ann, "POST", "/api/account/logout", None)
            .await
            .status,
        401
    );
    s.task.abort();
}

#[tokio::test]
async fn a_password_change_ends_every_session() {
    let s = server("password").await;
    let a1 = register(&s, "bo", "first password").await;
    let a2 = logged_in(&login(&s, &Client::default(), "BO", "first password").await);
    let tok = token(&s, &a1).await;
    let wrong = call(
        &s,
        &a1,
        "POST",
        "/api/account/password",
        Some(json!({"current": "not it at all", "new": "second password"})),
    )
    .await;
    assert_eq!(
        (wrong.status, wrong.json["field"].as_str()),
        (400, Some("current"))
    );
    let short = call(
        &s,
        &a1,
        "POST",
        "/api/account/password",
        Some(json!({"current": "first password", "new": "2short"})),
    )
    .await;
    assert_eq!(short.status, 400);
    let ok = call(
        &s,
        &a1,
        "POST",
        "/api/account/password",
        Some(json!({"current": "first password", "new": "second password"})),
    )
    .await;
    let a3 = logged_in(&ok);
    assert_eq!(
        call(&s, &a1, "GET", "/api/account", None).await.status,
        401,
        "this old session ended"
    );
    assert_eq!(
        call(&s, &a2, "GET", "/api/account", None).await.status,
        401,
        "the other session ended"
    );
    assert_eq!(
        call(&s, &a3, "GET", "/api/account", None).await.status,
        200,
        "the new session"
    );
    assert_eq!(
        login(&s, &Client::default(), "bo", "first password")
            .await
            .status,
        401
    );
    assert_eq!(
        login(&s, &Client::default(), "bo", "second password")
            .await
            .status,
        200
    );
    // API tokens are not sessions: they stay until revoked.
    assert_eq!(
        call(&s, &bearer(&tok), "GET", "/api/account", None)
            .await
            .status,
        200
    );
    s.task.abort();
}

fn at(i: u8) -> Client {
    Client {
        from: Some(IpAddr::from([127, 0, 0, i])),
        ..Client::default()
    }
}

#[tokio::test]
async fn log_ins_are_limited_per_account_and_per_client() {
    let s = server("limits").await;
    register(&s, "cy", "the right one").await;
    // Failures for one account from many addresses: after 5, even the right password waits.
    for i in 0..5 {
        let a = login(&s, &at(10 + i), "cy", "a wrong guess").await;
        assert_eq!(a.status, 401, "attempt {i}");
    }
    let a = login(&s, &at(20), "cy", "the right one").await;
    assert_eq!(a.status, 429, "{}", a.json);
    assert!(a.json["error"].as_str().unwrap().contains("this account"));
    assert!(a.retry_after.unwrap().parse::<u64>().unwrap() > 0);
    // Another account is not held up by it.
    register(&s, "dee", "another right one").await;
    assert_eq!(
        login(&s, &at(21), "dee", "another right one").await.status,
        200
    );
    // One client trying many accounts: 20 attempts, then it waits.
    let mut limited = None;
    for i in 0..25 {
        let a = login(&s, &at(30), &format!("nobody{i}"), "whatever it is").await;
        if a.status == 429 {
            limited = Some(i);
            assert!(a.json["error"].as_str().unwrap().contains("your address"));
            break;
        }
        assert_eq!(a.status, 401);
    }
    assert_eq!(
        limited,
        Some(20),
        "the 21st attempt from one address is refused"
    );
    // Another client is not.
    assert_eq!(
        login(&s, &at(31), "dee", "another right one").await.status,
        200
    );
    s.task.abort();
}

#[tokio::test]
async fn api_tokens_are_shown_once_and_nobody_reads_anothers() {
    let s = server("tokens").await;
    let ann = register(&s, "ann", "ann's password").await;
    let bo = register(&s, "bo", "bo's password").await;
    let created = call(
        &s,
        &ann,
        "POST",
        "/api/account/tokens",
        Some(json!({"label": "my bot"})),
    )
    .await;
    assert_eq!(created.status, 200, "{}", created.json);
    let t = created.json["token"].as_str().unwrap().to_owned();
    let id = created.json["id"].as_i64().unwrap();
    assert!(t.starts_with("xqt_") && t.len() == 68, "{t}");
    let list = call(&s, &ann, "GET", "/api/account/tokens", None).await;
    assert_eq!(list.json[0]["label"], "my bot");
    assert!(
        !list.json.to_string().contains(&t[4..]),
        "the list never shows a token"
    );
    // Bo sees none of Ann's tokens and cannot revoke them.
    let theirs = call(&s, &bo, "GET", "/api/account/tokens", None).await;
    assert_eq!(theirs.json, json!([]));
    let a = call(
        &s,
        &bo,
        "DELETE",
        &format!("/api/account/tokens/{id}"),
        None,
    )
    .await;
    assert_eq!(a.status, 404);
    // A token is an account for the API, but manages no tokens.
    let me = call(&s, &bearer(&t), "GET", "/api/account", None).await;
    assert_eq!((me.status, me.json["name"].as_str()), (200, Some("ann")));
    assert!(me.json.get("csrf").is_none());
    assert_eq!(
        call(&s, &bearer(&t), "GET", "/api/account/tokens", None)
            .await
            .status,
        403
    );
    assert_eq!(
        call(&s, &bearer(&t), "POST", "/api/account/tokens", None)
            .await
            .status,
        403
    );
    // Without the session's CSRF token no token is made.
    let no_csrf = Client {
        csrf: None,
        ..ann.clone()
    };
    assert_eq!(
        call(&s, &no_csrf, "POST", "/api/account/tokens", None)
            .await
            .status,
        403
    );
    // Revoked: refused from then on.
    let a = call(
        &s,
        &ann,
        "DELETE",
        &format!("/api/account/tokens/{id}"),
        None,
    )
    .await;
    assert_eq!(a.status, 200, "{}", a.json);
    let a = call(&s, &bearer(&t), "GET", "/api/account", None).await;
    assert_eq!(a.status, 401, "{}", a.json);
    assert_eq!(
        call(&s, &ann, "DELETE", "/api/account/tokens/x1", None)
            .await
            .status,
        400
    );
    s.task.abort();
}

async fn rating(s: &Server, name: &str, speed: &str) -> (i64, i64, i64) {
    let p = call(
        s,
        &Client::default(),
        "GET",
        &format!("/api/users/{name}"),
        None,
    )
    .await;
    assert_eq!(p.status, 200, "{}", p.json);
    let r = p.json["ratings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["speed"] == speed)
        .unwrap()
        .clone();
    (
        r["rating"].as_i64().unwrap(),
        r["rd"].as_i64().unwrap(),
        r["games"].as_i64().unwrap(),
    )
}

#[tokio::test]
async fn a_rated_game_between_accounts_is_rated_once() {
    let dir = data_dir("rated");
    let s = start_on(fresh_store(&dir).await).await;
    let ann = register(&s, "ann", "ann's password").await;
    let bo = register(&s, "bo", "bo's password").await;
    let cy = register(&s, "cy", "cy's password").await;
    let (ta, tb, tc) = (
        token(&s, &ann).await,
        token(&s, &bo).await,
        token(&s, &cy).await,
    );

    // A guest cannot open a rated seek.
    let a = call(
        &s,
        &Client::default(),
        "POST",
        "/api/board/seek",
        Some(json!({"rated": true})),
    )
    .await;
    assert_eq!(a.status, 400, "{}", a.json);
    // Ann (by her API token) seeks a rated 3+2 game as Red.
    let mut seek = Stream::open(&s, &bearer(&ta), "POST", "/api/board/seek",
        Some(json!({"rated": true, "color": "red", "clock": {"limit": 180, "increment": 2}, "name": "not my name"}))).await;
    let first = seek.next().await;
    let seek_id = first["id"].as_str().unwrap().to_owned();
    let lobby = call(&s, &Client::default(), "GET", "/api/board/game/none", None).await;
    assert_eq!(lobby.status, 404);
    // The lobby shows it rated, with her name and rating.
    let mut l = Stream::open(&s, &Client::default(), "GET", "/api/lobby/stream", None).await;
    let seeks = l.next().await;
    let sk = &seeks["seeks"][0];
    assert_eq!(
        (
            sk["rated"].as_bool(),
            sk["user"].as_str(),
            sk["name"].as_str(),
            sk["rating"].as_i64(),
            sk["provisional"].as_bool()
        ),
        (Some(true), Some("ann"), Some("ann"), Some(1500), Some(true)),
        "{seeks}"
    );
    // Guests and Ann herself cannot take it.
    let a = call(
        &s,
        &Client::default(),
        "POST",
        &format!("/api/board/seek/{seek_id}/accept"),
        None,
    )
    .await;
    assert_eq!(a.status, 401, "{}", a.json);
    let a = call(
        &s,
        &bearer(&ta),
        "POST",
        &format!("/api/board/seek/{seek_id}/accept"),
        None,
    )
    .await;
    assert_eq!(a.status, 409, "{}", a.json);
    // Bo takes it with his session (and its CSRF token).
    let a = call(
        &s,
        &bo,
        "POST",
        &format!("/api/board/seek/{seek_id}/accept"),
        None,
    )
    .await;
    assert_eq!(a.status, 200, "{}", a.json);
    assert_eq!(a.json["color"], "black");
    let id = a.json["id"].as_str().unwrap().to_owned();
    let granted = seek.next().await;
    assert_eq!(
        (granted["type"].as_str(), granted["id"].as_str()),
        (Some("gameStart"), Some(id.as_str()))
    );

    let full = call(
        &s,
        &Client::default(),
        "GET",
        &format!("/api/board/game/{id}"),
        None,
    )
    .await;
    assert_eq!(full.json["rated"], true, "{}", full.json);
    assert_eq!(full.json["speed"], "blitz");
    assert_eq!(full.json["red"]["user"], "ann");
    assert_eq!(full.json["black"]["user"], "bo");
    assert_eq!(full.json["red"]["rating"], 1500);
    assert_eq!(full.json["red"]["provisional"], true);

    // Each API token acts for its account's seat, and only that one.
    let mv = |m: &str| format!("/api/board/game/{id}/move/{m}");
    assert_eq!(
        call(&s, &bearer(&tb), "POST", &mv("h2e2"), None)
            .await
            .status,
        409,
        "not Black's turn"
    );
    let a = call(&s, &bearer(&tc), "POST", &mv("h2e2"), None).await;
    assert_eq!(a.status, 403, "Cy holds no seat: {}", a.json);
    assert_eq!(
        call(&s, &bearer("xqt_0000"), "POST", &mv("h2e2"), None)
            .await
            .status,
        401
    );
    assert_eq!(
        call(&s, &bearer(&ta), "POST", &mv("h2e2"), None)
            .await
            .status,
        200
    );
    assert_eq!(
        call(&s, &bearer(&tb), "POST", &mv("h9g7"), None)
            .await
            .status,
        200
    );
    // A player's stream by API token is that seat's.
    let mut ps = Stream::open(
        &s,
        &bearer(&tb),
        "GET",
        &format!("/api/board/game/stream/{id}"),
        None,
    )
    .await;
    let f = ps.next().await;
    assert_eq!(f["seat"], "black");
    // Cy cannot resign for anyone.
    assert_eq!(
        call(
            &s,
            &bearer(&tc),
            "POST",
            &format!("/api/board/game/{id}/resign"),
            None
        )
        .await
        .status,
        403
    );
    // Bo resigns: Ann wins; both ratings change once.
    assert_eq!(
        call(
            &s,
            &bearer(&tb),
            "POST",
            &format!("/api/board/game/{id}/resign"),
            None
        )
        .await
        .status,
        200
    );
    let (ra, rda, ga) = rating(&s, "ann", "blitz").await;
    let (rb, _, gb) = rating(&s, "bo", "blitz").await;
    assert!(ra > 1500 && rb < 1500, "{ra} {rb}");
    assert_eq!((ga, gb), (1, 1));
    assert!(rda < 350);
    assert_eq!(
        call(
            &s,
            &bearer(&ta),
            "POST",
            &format!("/api/board/game/{id}/resign"),
            None
        )
        .await
        .status,
        409
    );
    assert_eq!(rating(&s, "ann", "blitz").await, (ra, rda, 1), "rated once");
    let full = call(
        &s,
        &Client::default(),
        "GET",
        &format!("/api/board/game/{id}"),
        None,
    )
    .await;
    assert_eq!(
        full.json["red"]["ratingDiff"].as_i64(),
        Some(ra - 1500),
        "{}",
        full.json
    );
    assert_eq!(full.json["state"]["status"], "resign");

    // The profile: ratings, history, recent games, counts.
    let p = call(&s, &Client::default(), "GET", "/api/users/ANN", None).await;
    assert_eq!(p.json["name"], "ann");
    assert_eq!(
        p.json["counts"],
        json!({"wins": 1, "draws": 0, "losses": 0})
    );
    assert_eq!(p.json["history"][0]["rating"].as_i64(), Some(ra));
    assert_eq!(p.json["history"][0]["speed"], "blitz");
    let g = &p.json["recent"][0];
    assert_eq!(
        (
            g["id"].as_str(),
            g["result"].as_str(),
            g["opponent"].as_str(),
            g["rated"].as_bool(),
            g["color"].as_str()
        ),
        (
            Some(id.as_str()),
            Some("win"),
            Some("bo"),
            Some(true),
            Some("red")
        ),
        "{g}"
    );
    let p = call(&s, &Client::default(), "GET", "/api/users/bo", None).await;
    assert_eq!(p.json["counts"]["losses"], 1);
    assert_eq!(p.json["recent"][0]["result"], "loss");
    assert_eq!(
        call(&s, &Client::default(), "GET", "/api/users/nobody", None)
            .await
            .status,
        404
    );
    // The leaderboard.
    let lb = call(
        &s,
        &Client::default(),
        "GET",
        "/api/leaderboard/blitz",
        None,
    )
    .await;
    assert_eq!(lb.json["players"][0]["name"], "ann");
    assert_eq!(lb.json["players"][1]["name"], "bo");
    assert_eq!(lb.json["players"][0]["provisional"], true);
    assert_eq!(
        call(
            &s,
            &Client::default(),
            "GET",
            "/api/leaderboard/rapid",
            None
        )
        .await
        .json["players"],
        json!([])
    );
    assert_eq!(
        call(&s, &Client::default(), "GET", "/api/leaderboard/fast", None)
            .await
            .status,
        404
    );

    // A restart rates nothing again.
    s.task.abort();
    drop((seek, l, ps));
    let s = start(&dir).await;
    let full = call(
        &s,
        &Client::default(),
        "GET",
        &format!("/api/board/game/{id}"),
        None,
    )
    .await;
    assert_eq!(full.json["rated"], true);
    assert_eq!(rating(&s, "ann", "blitz").await, (ra, rda, 1));

    // A rated challenge names the opponent's account; guests get casual games as before.
    let a = call(
        &s,
        &Client::default(),
        "POST",
        "/api/challenge/open",
        Some(json!({"rated": true})),
    )
    .await;
    assert_eq!(a.status, 401);
    let a = call(
        &s,
        &bearer(&ta),
        "POST",
        "/api/challenge/open",
        Some(json!({"rated": true})),
    )
    .await;
    assert_eq!(
        (a.status, a.json["field"].as_str()),
        (400, Some("opponent"))
    );
    let a = call(
        &s,
        &bearer(&ta),
        "POST",
        "/api/challenge/open",
        Some(json!({"rated": true, "opponent": "ann"})),
    )
    .await;
    assert_eq!(a.status, 400, "not oneself");
    let a = call(
        &s,
        &bearer(&ta),
        "POST",
        "/api/challenge/open",
        Some(json!({"rated": true, "opponent": "Cy", "color": "black", "clock": {"limit": 60}})),
    )
    .await;
    assert_eq!(a.status, 200, "{}", a.json);
    let cid = a.json["id"].as_str().unwrap().to_owned();
    let full = call(
        &s,
        &Client::default(),
        "GET",
        &format!("/api/board/game/{cid}"),
        None,
    )
    .await;
    assert_eq!(
        (full.json["rated"].as_bool(), full.json["speed"].as_str()),
        (Some(true), Some("bullet"))
    );
    assert_eq!(
        (
            full.json["red"]["name"].as_str(),
            full.json["black"]["name"].as_str()
        ),
        (Some("cy"), Some("ann"))
    );
    // Cy's token plays Red; the seat token of the link does too.
    assert_eq!(
        call(
            &s,
            &bearer(&tc),
            "POST",
            &format!("/api/board/game/{cid}/move/h2e2"),
            None
        )
        .await
        .status,
        200
    );
    let tb_red = a.json["tokenBlack"].as_str().unwrap();
    assert_eq!(
        call(
            &s,
            &bearer(tb_red),
            "POST",
            &format!("/api/board/game/{cid}/move/h9g7"),
            None
        )
        .await
        .status,
        200
    );
    assert_eq!(
        call(
            &s,
            &bearer(&tb),
            "POST",
            &format!("/api/board/game/{cid}/resign"),
            None
        )
        .await
        .status,
        403,
        "Bo holds no seat"
    );
    let casual = call(
        &s,
        &Client::default(),
        "POST",
        "/api/challenge/open",
        Some(json!({"clock": {"limit": 300}})),
    )
    .await;
    assert_eq!(casual.status, 200);
    let cid = casual.json["id"].as_str().unwrap();
    let full = call(
        &s,
        &Client::default(),
        "GET",
        &format!("/api/board/game/{cid}"),
        None,
    )
    .await;
    assert_eq!(full.json["rated"], false);
    assert!(full.json["red"].get("user").is_none());
    s.task.abort();
}

const NASTY: [&str; 6] = [
    "'; DROP TABLE users; --",
    "\" OR \"1\"=\"1",
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "Robert'); DELETE FROM live_games;--",
    "{{7*7}} ${7*7} %s %n",
];

#[tokio::test]
async fn injection_strings_are_stored_and_answered_as_given() {
    let s = server("injection").await;
    let mut tokens = Vec::new();
    for (i, n) in NASTY.iter().enumerate() {
        let name: String = n.chars().take(30).collect();
        let c = register(&s, &name, &format!("{n} as a password")).await;
        let me = call(&s, &c, "GET", "/api/account", None).await;
        assert_eq!(me.json["name"].as_str(), Some(name.as_str()));
        // Logging in with the name (and the password) works: nothing was interpreted.
        assert_eq!(
            login(&s, &at(50 + i as u8), &name, &format!("{n} as a password"))
                .await
                .status,
            200
        );
        let t = call(
            &s,
            &c,
            "POST",
            "/api/account/tokens",
            Some(json!({"label": n})),
        )
        .await;
        assert_eq!(t.json["label"].as_str(), Some(*n));
        // The profile answers the name as it is.
        let p = call(
            &s,
            &Client::default(),
            "GET",
            &format!("/api/users/{}", percent(&name)),
            None,
        )
        .await;
        assert_eq!(
            (p.status, p.json["name"].as_str()),
            (200, Some(name.as_str())),
            "{}",
            p.json
        );
        tokens.push((name, t.json["token"].as_str().unwrap().to_owned()));
    }
    // Challenge fields: names, the opponent, a FEN.
    for n in NASTY {
        let a = call(
            &s,
            &Client::default(),
            "POST",
            "/api/challenge/open",
            Some(json!({"name": n, "red": n, "black": n})),
        )
        .await;
        assert_eq!(a.status, 200, "{}", a.json);
        let id = a.json["id"].as_str().unwrap();
        let full = call(
            &s,
            &Client::default(),
            "GET",
            &format!("/api/board/game/{id}"),
            None,
        )
        .await;
        assert_eq!(full.json["red"]["name"].as_str(), Some(n));
        assert_eq!(full.json["black"]["name"].as_str(), Some(n));
        let a = call(
            &s,
            &Client::default(),
            "POST",
            "/api/challenge/open",
            Some(json!({"fen": n})),
        )
        .await;
        assert_eq!(
            (a.status, a.json["field"].as_str()),
            (400, Some("fen")),
            "{}",
            a.json
        );
        let a = call(
            &s,
            &bearer(&tokens[0].1),
            "POST",
            "/api/challenge/open",
            Some(json!({"opponent": n})),
        )
        .await;
        // Each of them is an account's name (cut to 30 characters) or no player at all.
        assert!(a.status == 200 || a.status == 400, "{}", a.json);
    }
    // A rated challenge between two of them, with their names as they are.
    let (n0, t0) = &tokens[0];
    let (n2, _) = &tokens[2];
    let a = call(
        &s,
        &bearer(t0),
        "POST",
        "/api/challenge/open",
        Some(json!({"rated": true, "opponent": n2, "color": "red"})),
    )
    .await;
    assert_eq!(a.status, 200, "{}", a.json);
    let id = a.json["id"].as_str().unwrap();
    let full = call(
        &s,
        &Client::default(),
        "GET",
        &format!("/api/board/game/{id}"),
        None,
    )
    .await;
    assert_eq!(full.json["red"]["user"].as_str(), Some(n0.as_str()));
    assert_eq!(full.json["black"]["user"].as_str(), Some(n2.as_str()));
    // Seeks' names.
    let mut seek = Stream::open(
        &s,
        &Client::default(),
        "POST",
        "/api/board/seek",
        Some(json!({"name": NASTY[2]})),
    )
    .await;
    seek.next().await;
    let mut l = Stream::open(&s, &Client::default(), "GET", "/api/lobby/stream", None).await;
    assert_eq!(l.next().await["seeks"][0]["name"].as_str(), Some(NASTY[2]));
    // Every table is still there and whole.
    for (name, _) in &tokens {
        let p = call(
            &s,
            &Client::default(),
            "GET",
            &format!("/api/users/{}", percent(name)),
            None,
        )
        .await;
        assert_eq!(p.status, 200);
    }
    assert_eq!(
        call(
            &s,
            &Client::default(),
            "GET",
            "/api/leaderboard/correspondence",
            None
        )
        .await
        .status,
        200
    );
    s.task.abort();
}

fn percent(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// A rated game that ends on the server's clock (nobody acting) is rated too, once.
#[tokio::test]
async fn a_flag_that_falls_on_the_server_rates_the_game() {
    let s = server("flag").await;
    let ann = register(&s, "ann", "ann's password").await;
    register(&s, "bo", "bo's password").await;
    let bo = logged_in(&login(&s, &Client::default(), "bo", "bo's password").await);
    let (ta, tb) = (token(&s, &ann).await, token(&s, &bo).await);
    let a = call(&s, &bearer(&ta), "POST", "/api/challenge/open",
        Some(json!({"rated": true, "opponent": "bo", "color": "red", "clock": {"limit": 1, "increment": 0}}))).await;
    assert_eq!(a.status, 200, "{}", a.json);
    let id = a.json["id"].as_str().unwrap().to_owned();
    assert_eq!(
        call(
            &s,
            &bearer(&ta),
            "POST",
            &format!("/api/board/game/{id}/move/h2e2"),
            None
        )
        .await
        .status,
        200
    );
    assert_eq!(
        call(
            &s,
            &bearer(&tb),
            "POST",
            &format!("/api/board/game/{id}/move/h9g7"),
            None
        )
        .await
        .status,
        200
    );
    // Red's second of clock runs out with nobody connected.
    let mut st = Stream::open(
        &s,
        &Client::default(),
        "GET",
        &format!("/api/board/game/stream/{id}"),
        None,
    )
    .await;
    loop {
        let v = st.next().await;
        let status = if v["type"] == "gameFull" {
            v["state"]["status"].clone()
        } else {
            v["status"].clone()
        };
        if status == "outoftime" {
            break;
        }
    }
    let (rb, _, gb) = rating(&s, "bo", "bullet").await;
    let (ra, _, ga) = rating(&s, "ann", "bullet").await;
    assert!(rb > 1500 && ra < 1500 && ga == 1 && gb == 1, "{ra} {rb}");
    let full = call(
        &s,
        &Client::default(),
        "GET",
        &format!("/api/board/game/{id}"),
        None,
    )
    .await;
    assert_eq!(
        full.json["black"]["ratingDiff"].as_i64(),
        Some(rb - 1500),
        "{}",
        full.json
    );
    let p = call(&s, &Client::default(), "GET", "/api/users/ann", None).await;
    assert_eq!(
        p.json["counts"],
        json!({"wins": 0, "draws": 0, "losses": 1})
    );
    s.task.abort();
}
