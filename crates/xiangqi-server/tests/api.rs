//! The HTTP API, through the real router (no network): games, moves, rulings, records,
//! validation of every kind of bad input, and durability across a reopened store.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use axum::body::Body;
use axum::http::{HeaderMap, Request, StatusCode};
use axum::Router;
use http_body_util::BodyExt;
use serde_json::{json, Value};
use tower::ServiceExt;
use xiangqi_server::{router, App, Store};

mod pg;

/// A data folder for one test, removed when the test ends.
struct TempDir(PathBuf);

impl std::ops::Deref for TempDir {
    type Target = std::path::Path;
    fn deref(&self) -> &std::path::Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
        if pg::api_on_postgres() {
            pg::drop_database_blocking(&pg::url().unwrap(), &pg_name(&self.0));
        }
    }
}

/// The PostgreSQL database of a test's data folder (with `XIANGQI_TEST_API_BACKEND=postgres`).
fn pg_name(dir: &std::path::Path) -> String {
    pg::db_name(&dir.file_name().unwrap().to_string_lossy())
}

fn temp_dir(name: &str) -> TempDir {
    static N: AtomicU32 = AtomicU32::new(0);
    let d = std::env::temp_dir().join(format!(
        "xiangqi-server-test-{}-{name}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst)
    ));
    let _ = std::fs::remove_dir_all(&d);
    TempDir(d)
}

fn shared() -> PathBuf {
    match std::env::var_os("XIANGQI_SHARED") {
        Some(p) => PathBuf::from(p),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"),
    }
}

/// The app on the store of folder `dir`: SQLite in it, or with
/// `XIANGQI_TEST_API_BACKEND=postgres` a PostgreSQL database named after it (opening it again
/// sees what was written, as with the file).
async fn app_at(dir: &std::path::Path) -> Router {
    let store = if pg::api_on_postgres() {
        let url = pg::database(&pg::url().unwrap(), &pg_name(dir)).await;
        Store::connect(&url).await.expect("connect to the store")
    } else {
        Store::open(dir).expect("open store")
    };
    router(Arc::new(App::new(store)))
}

struct Res {
    status: StatusCode,
    headers: HeaderMap,
    text: String,
    json: Value,
}

impl Res {
    /// A response header as text (`None` if it is absent).
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .get(name)
            .map(|v| v.to_str().expect("header is text"))
    }
}

async fn call(app: &Router, method: &str, uri: &str, body: impl Into<Body>) -> Res {
    let req = Request::builder()
        .method(method)
        .uri(uri)
        .header("content-type", "application/json")
        .body(body.into())
        .expect("request");
    let res = app.clone().oneshot(req).await.expect("response");
    let status = res.status();
    let headers = res.headers().clone();
    let bytes = res.into_body().collect().await.expect("body").to_bytes();
    let text = String::from_utf8_lossy(&bytes).to_string();
    let json = serde_json::from_str(&text).unwrap_or(Value::Null);
    Res {
        status,
        headers,
        text,
        json,
    }
}

async fn post(app: &Router, uri: &str, v: Value) -> Res {
    call(app, "POST", uri, v.to_string()).await
}
async fn get(app: &Router, uri: &str) -> Res {
    call(app, "GET", uri, Body::empty()).await
}

/// Asserts a JSON error with `status` whose message contains `needle`.
fn assert_error(r: &Res, status: StatusCode, needle: &str) {
    assert_eq!(r.status, status, "{}", r.text);
    let msg = r.json["error"]
        .as_str()
        .unwrap_or_else(|| panic!("no error field: {}", r.text));
    assert!(
        msg.contains(needle),
        "error '{msg}' should mention '{needle}'"
    );
}

async fn new_game(app: &Router, v: Value) -> i64 {
    let r = post(app, "/api/games", v).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    r.json["id"].as_i64().expect("id")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn play_moves_in_any_notation_and_read_them_back() {
    let dir = temp_dir("play");
    let app = app_at(&dir).await;
    let id = new_game(&app, json!({"mode": "two-player"})).await;
    let r = post(
        &app,
        &format!("/api/games/{id}/moves"),
        json!({"move": "h2e2", "ply": 0}),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.json["move"]["wxf"], "C2.5");
    assert_eq!(r.json["move"]["chinese"], "炮二平五");
    assert_eq!(r.json["move"]["iccs"], "H2-E2");
    assert_eq!(r.json["turn"], "black");
    assert_eq!(r.json["ply"], 1);
    assert!(r.json["legal"]
        .as_array()
        .unwrap()
        .iter()
        .any(|m| m == "h9g7"));
    // WXF and Chinese are read too
    let r = post(
        &app,
        &format!("/api/games/{id}/moves"),
        json!({"move": "H8+7"}),
    )
    .await;
    assert_eq!(r.json["move"]["uci"], "h9g7", "{}", r.text);
    let r = post(
        &app,
        &format!("/api/games/{id}/moves"),
        json!({"move": "马二进三"}),
    )
    .await;
    assert_eq!(r.json["move"]["uci"], "h0g2", "{}", r.text);
    let g = get(&app, &format!("/api/games/{id}")).await;
    let ucis: Vec<&str> = g.json["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["uci"].as_str().unwrap())
        .collect();
    assert_eq!(ucis, ["h2e2", "h9g7", "h0g2"]);
    // Each move reaching a named position carries its opening (the table in xiangqi-explorer).
    assert_eq!(
        g.json["moves"][0]["opening"],
        json!({"eco": null, "name": "Central Cannon", "nameZh": "中炮"})
    );
    assert_eq!(g.json["moves"][2]["opening"]["nameZh"], "中炮对进左马");
    assert_eq!(r.json["move"]["opening"]["nameZh"], "中炮对进左马");
    assert_eq!(g.json["outcome"], Value::Null);
    // FEN at a ply
    let f = get(&app, &format!("/api/games/{id}/fen?ply=1")).await;
    assert_eq!(
        f.json["fen"],
        "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_requests_get_json_errors_that_name_the_problem() {
    let dir = temp_dir("bad");
    let app = app_at(&dir).await;
    let id = new_game(&app, json!({})).await;
    let mv = format!("/api/games/{id}/moves");
    assert_error(
        &call(&app, "POST", &mv, "{").await,
        StatusCode::BAD_REQUEST,
        "not valid JSON",
    );
    assert_error(
        &call(&app, "POST", &mv, "[1]").await,
        StatusCode::BAD_REQUEST,
        "JSON object",
    );
    assert_error(
        &call(&app, "POST", &mv, vec![0xff, 0xfe]).await,
        StatusCode::BAD_REQUEST,
        "UTF-8",
    );
    assert_error(
        &post(&app, &mv, json!({})).await,
        StatusCode::BAD_REQUEST,
        "'move' is missing",
    );
    assert_error(
        &post(&app, &mv, json!({"mvoe": "h2e2"})).await,
        StatusCode::BAD_REQUEST,
        "unknown field 'mvoe'",
    );
    assert_error(
        &post(&app, &mv, json!({"move": 5})).await,
        StatusCode::BAD_REQUEST,
        "must be a string",
    );
    assert_error(
        &post(&app, &mv, json!({"move": "h2e2", "ply": -1})).await,
        StatusCode::BAD_REQUEST,
        "'ply'",
    );
    let r = post(&app, &mv, json!({"move": "a0a5"})).await;
    assert_error(&r, StatusCode::UNPROCESSABLE_ENTITY, "a0a5");
    assert_eq!(r.json["move"], "a0a5");
    assert_error(
        &post(&app, &mv, json!({"move": "e0e1x"})).await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "e0e1x",
    );
    assert_error(
        &post(&app, &mv, json!({"move": "zz"})).await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "zz",
    );
    assert_error(
        &post(&app, &mv, json!({"move": "x".repeat(100)})).await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "too long",
    );
    let r = post(&app, &mv, json!({"move": "h2e2", "ply": 3})).await;
    assert_error(&r, StatusCode::CONFLICT, "not 3");
    assert_eq!(r.json["ply"], 0);
    assert_error(
        &post(&app, "/api/games/abc/moves", json!({"move": "h2e2"})).await,
        StatusCode::BAD_REQUEST,
        "'abc'",
    );
    assert_error(
        &post(&app, "/api/games/0/moves", json!({"move": "h2e2"})).await,
        StatusCode::BAD_REQUEST,
        "'0'",
    );
    assert_error(
        &post(&app, "/api/games/999999/moves", json!({"move": "h2e2"})).await,
        StatusCode::NOT_FOUND,
        "999999",
    );
    assert_error(
        &get(&app, "/api/nothing").await,
        StatusCode::NOT_FOUND,
        "not found",
    );
    assert_error(
        &call(&app, "PUT", &mv, "{}").await,
        StatusCode::METHOD_NOT_ALLOWED,
        "not allowed",
    );
    let big = format!("{{\"move\": \"{}\"}}", "a".repeat(100_000));
    assert_error(
        &call(&app, "POST", &mv, big).await,
        StatusCode::PAYLOAD_TOO_LARGE,
        "too large",
    );
    // games
    assert_error(
        &post(&app, "/api/games", json!({"mode": "chess"})).await,
        StatusCode::BAD_REQUEST,
        "'mode'",
    );
    assert_error(
        &post(&app, "/api/games", json!({"level": 21})).await,
        StatusCode::BAD_REQUEST,
        "'level'",
    );
    assert_error(
        &post(&app, "/api/games", json!({"human": "green"})).await,
        StatusCode::BAD_REQUEST,
        "'human'",
    );
    assert_error(
        &post(&app, "/api/games", json!({"fen": "9/9/9"})).await,
        StatusCode::BAD_REQUEST,
        "bad FEN",
    );
    let r = post(&app, "/api/games", json!({"moves": ["h2e2", "h2e2"]})).await;
    assert_error(&r, StatusCode::UNPROCESSABLE_ENTITY, "h2e2");
    assert_eq!(r.json["index"], 1);
    // position
    assert_error(
        &get(&app, "/api/position").await,
        StatusCode::BAD_REQUEST,
        "'fen' is missing",
    );
    assert_error(
        &get(&app, "/api/position?fen=4k4/9/9/9/9/9/9/9/9/4K4%20w").await,
        StatusCode::BAD_REQUEST,
        "generals face each other",
    );
    assert_error(
        &get(&app, "/api/position?fen=%ZZ").await,
        StatusCode::BAD_REQUEST,
        "percent",
    );
    assert_error(
        &get(&app, "/api/games?limit=9999").await,
        StatusCode::BAD_REQUEST,
        "'limit'",
    );
    assert_error(
        &get(&app, "/api/games?sort=x").await,
        StatusCode::BAD_REQUEST,
        "'sort'",
    );
    assert_error(
        &get(&app, &format!("/api/games/{id}/pgn?notation=klingon")).await,
        StatusCode::BAD_REQUEST,
        "klingon",
    );
    assert_error(
        &get(&app, &format!("/api/games/{id}/fen?ply=5")).await,
        StatusCode::CONFLICT,
        "'ply'",
    );
    // Past the game's end is the game's state (409); a text that is no number is malformed.
    assert_error(
        &get(&app, &format!("/api/games/{id}/fen?ply=-1")).await,
        StatusCode::BAD_REQUEST,
        "'ply'",
    );
    assert_error(
        &post(&app, &format!("/api/games/{id}/takeback"), json!({})).await,
        StatusCode::CONFLICT,
        "cannot take back",
    );
    assert_error(
        &post(
            &app,
            &format!("/api/games/{id}/resign"),
            json!({"side": "blue"}),
        )
        .await,
        StatusCode::BAD_REQUEST,
        "'side'",
    );
    // import
    assert_error(
        &call(&app, "POST", "/api/import", "").await,
        StatusCode::BAD_REQUEST,
        "empty",
    );
    assert_error(
        &call(&app, "POST", "/api/import", "hello world").await,
        StatusCode::BAD_REQUEST,
        "not a record format",
    );
    assert_error(
        &call(&app, "POST", "/api/import", "rnbakabnr/9/9 w").await,
        StatusCode::BAD_REQUEST,
        "bad FEN",
    );
    // the game is untouched by all of that
    let g = get(&app, &format!("/api/games/{id}")).await;
    assert_eq!(g.json["moves"].as_array().unwrap().len(), 0);
}

/// Arbitrary bytes to every endpoint: never a server error, always a JSON answer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn junk_never_breaks_the_server() {
    let dir = temp_dir("junk");
    let app = app_at(&dir).await;
    let id = new_game(&app, json!({"mode": "two-player"})).await;
    let paths = [
        "/api/games".to_string(),
        format!("/api/games/{id}/moves"),
        format!("/api/games/{id}/takeback"),
        format!("/api/games/{id}/resign"),
        format!("/api/games/{id}/draw"),
        "/api/import".to_string(),
    ];
    let mut seed: u64 = 0x1234_5678;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let pieces = [
        "{",
        "}",
        "\"move\"",
        ":",
        "\"h2e2\"",
        ",",
        "\"ply\"",
        "-1",
        "1e99",
        "null",
        "[",
        "]",
        "\"fen\"",
        "\"mode\"",
        "\"computer\"",
        "\"plies\"",
        "99999999999999999999",
        "\"炮二平五\"",
        "\u{0}",
        "true",
        "\"side\"",
        "\"red\"",
        "[Event",
        "1.",
        "C2.5",
        "/",
    ];
    for i in 0..400 {
        let n = (next() % 12) as usize;
        let body: String = (0..n)
            .map(|_| pieces[(next() % pieces.len() as u64) as usize])
            .collect();
        let path = &paths[i % paths.len()];
        let r = call(&app, "POST", path, body.clone()).await;
        assert!(
            !r.status.is_server_error(),
            "{path} with {body:?} gave {}: {}",
            r.status,
            r.text
        );
        assert!(
            r.json.is_object(),
            "{path} with {body:?}: not JSON: {}",
            r.text
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn moves_survive_reopening_the_store() {
    let dir = temp_dir("reopen");
    let id;
    {
        let app = app_at(&dir).await;
        id = new_game(
            &app,
            json!({"mode": "computer", "human": "black", "level": 0}),
        )
        .await;
        let r = post(
            &app,
            &format!("/api/games/{id}/moves"),
            json!({"move": "h2e2"}),
        )
        .await;
        assert_error(&r, StatusCode::CONFLICT, "computer's turn");
        let r = post(
            &app,
            &format!("/api/games/{id}/computer-move"),
            json!({"ply": 0}),
        )
        .await;
        assert_eq!(r.status, StatusCode::OK, "{}", r.text);
        assert_eq!(r.json["turn"], "black");
        let legal = r.json["legal"][0].as_str().unwrap().to_string();
        let r = post(
            &app,
            &format!("/api/games/{id}/moves"),
            json!({"move": legal, "ply": 1}),
        )
        .await;
        assert_eq!(r.status, StatusCode::OK, "{}", r.text);
        let r = post(&app, &format!("/api/games/{id}/resign"), json!({})).await;
        assert_eq!(r.json["outcome"]["reason"], "resignation", "{}", r.text);
        assert_eq!(r.json["outcome"]["winner"], "red");
    }
    let app = app_at(&dir).await;
    let g = get(&app, &format!("/api/games/{id}")).await;
    assert_eq!(g.json["moves"].as_array().unwrap().len(), 2, "{}", g.text);
    assert_eq!(g.json["human"], "black");
    assert_eq!(g.json["outcome"]["reason"], "resignation");
    assert_eq!(g.json["outcome"]["text"], "Red wins: black resigned.");
    // a finished game takes no moves
    let r = post(&app, &format!("/api/games/{id}/computer-move"), json!({})).await;
    assert_error(&r, StatusCode::CONFLICT, "over");
    // taking back reopens it, in memory and in the store
    let r = post(
        &app,
        &format!("/api/games/{id}/takeback"),
        json!({"plies": 1}),
    )
    .await;
    assert_eq!(r.json["outcome"], Value::Null, "{}", r.text);
    let app = app_at(&dir).await;
    let g = get(&app, &format!("/api/games/{id}")).await;
    assert_eq!(g.json["outcome"], Value::Null, "{}", g.text);
    assert_eq!(g.json["moves"].as_array().unwrap().len(), 1);
    let list = get(&app, "/api/games").await;
    assert_eq!(list.json["total"], 1);
    assert_eq!(list.json["games"][0]["plies"], 1);
    // delete
    let r = call(&app, "DELETE", &format!("/api/games/{id}"), Body::empty()).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_error(
        &get(&app, &format!("/api/games/{id}")).await,
        StatusCode::NOT_FOUND,
        "no game",
    );
    assert_eq!(get(&app, "/api/games").await.json["total"], 0);
}

/// Plays `moves` in a new two-player game from `fen`; answers the last move's answer.
async fn play_line(app: &Router, fen: &str, moves: &str) -> Value {
    let id = new_game(app, json!({"mode": "two-player", "fen": fen})).await;
    let mut last = Value::Null;
    for m in moves.split(' ') {
        let r = post(app, &format!("/api/games/{id}/moves"), json!({ "move": m })).await;
        assert_eq!(r.status, StatusCode::OK, "{m}: {}", r.text);
        last = r.json;
    }
    last
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn repetition_rulings_are_explained_in_chinese_too() {
    let dir = temp_dir("zh");
    let app = app_at(&dir).await;
    // Red's chariot checks on every move.
    let last = play_line(
        &app,
        "9/4k4/9/9/9/9/9/9/2p6/3K1RBc1 w - - 0 1",
        "f0e0 e8f8 e0f0 f8e8 f0e0 e8f8 e0f0 f8e8",
    )
    .await;
    let o = &last["outcome"];
    assert_eq!(o["reason"], "perpetual-check", "{last}");
    assert!(
        o["text"]
            .as_str()
            .unwrap()
            .starts_with("Red loses by perpetual check"),
        "{o}"
    );
    let zh = o["text_zh"].as_str().unwrap();
    assert!(
        zh.starts_with("红方长将，判负：红方从第1回合（车四平五）到第4回合（车五平四）"),
        "{zh}"
    );
    assert!(zh.contains("每着都将军"), "{zh}");
    assert!(zh.contains("次出现"), "{zh}");
    // Neither side checks or chases: a draw.
    let last = play_line(
        &app,
        "3aka3/4n4/4b4/4C4/p3p3p/9/2c6/2C6/4K4/9 w - - 0 1",
        "c2g2 c3g3 g2c2 g3c3 c2g2 c3g3 g2c2 g3c3",
    )
    .await;
    let o = &last["outcome"];
    assert_eq!(o["result"], "draw", "{last}");
    assert_eq!(o["reason"], "repetition", "{last}");
    let zh = o["text_zh"].as_str().unwrap();
    assert!(
        zh.starts_with("双方不变作和：第4回合黑方走后的局面自上次吃子以来第3次出现"),
        "{zh}"
    );
    // The simple endings too.
    let id = new_game(&app, json!({"mode": "two-player"})).await;
    let r = post(
        &app,
        &format!("/api/games/{id}/resign"),
        json!({"side": "black"}),
    )
    .await;
    assert_eq!(
        r.json["outcome"]["text_zh"], "红方胜：黑方认输。",
        "{}",
        r.text
    );
    // Every language of the app, by its code.
    assert_eq!(
        r.json["outcome"]["texts"],
        json!({
            "en": "Red wins: black resigned.",
            "zh-Hans": "红方胜：黑方认输。",
            "zh-Hant": "紅方勝：黑方認輸。",
            "vi": "Đỏ thắng: Đen xin thua.",
        }),
        "{}",
        r.text
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn perpetual_chase_is_ruled_with_an_explanation() {
    let dir = temp_dir("chase");
    let app = app_at(&dir).await;
    let fen = "2bakabnr/9/r1n1c4/2p1p1p1p/PP7/9/4P1P1P/2C3NC1/9/1NBAKAB1R w - - 0 1";
    let id = new_game(&app, json!({"mode": "two-player", "fen": fen})).await;
    let mut last = Value::Null;
    for m in "c2a2 a7b7 a2b2 b7a7 b2a2 a7b7 a2b2 b7a7 b2a2".split(' ') {
        let r = post(
            &app,
            &format!("/api/games/{id}/moves"),
            json!({ "move": m }),
        )
        .await;
        assert_eq!(r.status, StatusCode::OK, "{m}: {}", r.text);
        last = r.json;
    }
    assert_eq!(last["outcome"]["reason"], "perpetual-chase");
    assert_eq!(last["outcome"]["winner"], "black");
    let text = last["outcome"]["text"].as_str().unwrap();
    assert!(text.starts_with("Red loses by perpetual chase"), "{text}");
    // The same account in Chinese, naming the chasing piece, the chased piece and its square.
    let zh = last["outcome"]["text_zh"].as_str().unwrap();
    assert!(zh.starts_with("红方长捉黑方的"), "{zh}");
    assert!(zh.contains("判负"), "{zh}");
    assert!(zh.contains("红方的炮捉黑方的车（先后位于b7、a7）"), "{zh}");
    assert!(
        zh.contains("从第2回合（炮九平八）到第5回合（炮八平九）每着都"),
        "{zh}"
    );
    assert_eq!(last["legal"].as_array().unwrap().len(), 0);
    let r = post(
        &app,
        &format!("/api/games/{id}/moves"),
        json!({"move": "a7b7"}),
    )
    .await;
    assert_error(&r, StatusCode::CONFLICT, "perpetual-chase");
    let pgn = get(&app, &format!("/api/games/{id}/pgn")).await;
    assert!(pgn.text.contains("[Result \"0-1\"]"), "{}", pgn.text);
    assert!(
        pgn.text.contains(&format!("[FEN \"{fen}\"]")),
        "{}",
        pgn.text
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn draw_offers_and_agreement() {
    let dir = temp_dir("draw");
    let app = app_at(&dir).await;
    let id = new_game(&app, json!({"mode": "two-player"})).await;
    let r = post(
        &app,
        &format!("/api/games/{id}/draw"),
        json!({"side": "red"}),
    )
    .await;
    assert_eq!(r.json["accepted"], true, "{}", r.text);
    assert_eq!(r.json["game"]["outcome"]["reason"], "agreement");
    // Against the computer, which is a chariot up: it declines.
    let id = new_game(
        &app,
        json!({"mode": "computer", "human": "red", "fen": "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/1NBAKABNR w - - 0 1"}),
    )
    .await;
    let r = post(&app, &format!("/api/games/{id}/draw"), json!({})).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.json["accepted"], false, "{}", r.text);
    assert_eq!(r.json["code"], "better", "{}", r.text);
    assert_eq!(
        get(&app, &format!("/api/games/{id}")).await.json["outcome"],
        Value::Null
    );
}

/// The computer accepts a draw only when its evaluation says dead equal or worse for it, and
/// never in the opening (issue 15: it accepted after one move at every level).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_computer_declines_draws_in_the_opening_and_when_better() {
    let dir = temp_dir("draw-computer");
    let app = app_at(&dir).await;
    // After one move, at every level: declined as too early, the game goes on.
    for level in [0, 10, 20] {
        let id = new_game(
            &app,
            json!({"mode": "computer", "human": "black", "level": level, "moves": ["h2e2"]}),
        )
        .await;
        let r = post(&app, &format!("/api/games/{id}/draw"), json!({})).await;
        assert_eq!(r.status, StatusCode::OK, "{}", r.text);
        assert_eq!(r.json["accepted"], false, "level {level}: {}", r.text);
        assert_eq!(r.json["code"], "opening", "{}", r.text);
        assert_eq!(
            get(&app, &format!("/api/games/{id}")).await.json["outcome"],
            Value::Null
        );
    }
    // Ten plies of a common opening, every piece still on the board: still the opening.
    let moves = [
        "h2e2", "h9g7", "h0g2", "i9h9", "i0h0", "b9c7", "b0c2", "c6c5", "c3c4", "h7i7",
    ];
    let id = new_game(
        &app,
        json!({"mode": "computer", "human": "red", "moves": moves}),
    )
    .await;
    let r = post(&app, &format!("/api/games/{id}/draw"), json!({})).await;
    assert_eq!(r.json["accepted"], false, "{}", r.text);
    assert_eq!(r.json["code"], "opening", "{}", r.text);
    // The computer (Black) has its general alone against a chariot: worse, it accepts.
    let id = new_game(
        &app,
        json!({"mode": "computer", "human": "red", "fen": "3k5/9/9/9/9/9/9/9/4R4/4K4 w - - 0 1"}),
    )
    .await;
    let r = post(&app, &format!("/api/games/{id}/draw"), json!({})).await;
    assert_eq!(r.json["accepted"], true, "{}", r.text);
    assert_eq!(r.json["code"], "not-better", "{}", r.text);
    assert_eq!(
        r.json["game"]["outcome"]["reason"], "agreement",
        "{}",
        r.text
    );
    // The computer (Red) has the chariot: it plays on.
    let id = new_game(
        &app,
        json!({"mode": "computer", "human": "black", "fen": "3k5/9/9/9/9/9/9/9/4R4/4K4 b - - 0 1"}),
    )
    .await;
    let r = post(&app, &format!("/api/games/{id}/draw"), json!({})).await;
    assert_eq!(r.json["accepted"], false, "{}", r.text);
    assert_eq!(r.json["code"], "better", "{}", r.text);
}

/// An imported game stops where the rules end it (issue 15: a repetition ending at ply 9
/// followed by 80,000 plies was accepted), and says so.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_import_stops_at_the_rules_ending_and_says_so() {
    let dir = temp_dir("import-ending");
    let app = app_at(&dir).await;
    // The cannon move, then horses out and back: the position after ply 1 comes back after
    // plies 5 and 9, a draw by repetition at ply 9; 80,000 more plies follow in the record.
    let cycle = ["h9g7", "h0g2", "g7h9", "g2h0"];
    let mut moves = vec!["h2e2"];
    for i in 0..80_008 {
        moves.push(cycle[i % 4]);
    }
    let pgn = format!("[Event \"long\"]\n\n{} *\n", moves.join(" "));
    let r = call(&app, "POST", "/api/import", pgn).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let g = &r.json["games"][0];
    assert_eq!(g["plies"], 9, "{}", r.text);
    let w = r.json["warnings"][0].as_str().expect("a warning");
    assert!(
        w.contains("game 1: imported as far as Red's move 5")
            && w.contains("repetition")
            && w.contains("the 80000 later plies"),
        "{w}"
    );
    let game = get(&app, &format!("/api/games/{}", g["id"])).await.json;
    assert_eq!(game["moves"].as_array().unwrap().len(), 9);
    assert_eq!(game["outcome"]["reason"], "repetition", "{game}");
    // The limit an import cuts at is the one game creation has: 2000 plies.
    let moves = vec!["h2e2"; 2001];
    let r = post(
        &app,
        "/api/games",
        json!({"mode": "two-player", "moves": moves}),
    )
    .await;
    assert_error(&r, StatusCode::BAD_REQUEST, "more than 2000 moves");
}

/// A binary upload is described by its first bytes, not echoed as garbage; a very long move
/// is not echoed whole.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_binary_upload_is_named_without_garbage() {
    let dir = temp_dir("import-binary");
    let app = app_at(&dir).await;
    let mut elf = vec![0x7f, b'E', b'L', b'F', 2, 1, 1, 0];
    elf.extend((0..200u8).map(|b| b.wrapping_mul(37)));
    let r = call(&app, "POST", "/api/import", elf).await;
    assert_error(
        &r,
        StatusCode::BAD_REQUEST,
        "binary data of no known record format (it starts with the bytes 7f 45 4c 46 02 01 01 00)",
    );
    // A 12,000-character move is named in a few words, not echoed whole.
    let long = "x".repeat(12_000);
    let r = post(
        &app,
        "/api/games",
        json!({"mode": "two-player", "moves": [long]}),
    )
    .await;
    assert_error(
        &r,
        StatusCode::UNPROCESSABLE_ENTITY,
        "(12000 characters) is too long to be a move",
    );
    assert!(r.json["error"].as_str().unwrap().len() < 80, "{}", r.text);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn import_answers_the_variations_it_dropped() {
    let dir = temp_dir("import-warnings");
    let app = app_at(&dir).await;
    let file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../xiangqi-record/tests/data/issue18/bad-variation.pgn"
    );
    let r = call(&app, "POST", "/api/import", std::fs::read(file).unwrap()).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    assert_eq!(r.json["games"].as_array().unwrap().len(), 2, "{}", r.text);
    assert_eq!(r.json["errors"][0]["game"], 2, "{}", r.text);
    let w = r.json["warnings"].as_array().expect("warnings");
    assert_eq!(w.len(), 1, "{}", r.text);
    let w = w[0].as_str().unwrap();
    assert!(w.contains("game 1, line 5") && w.contains("h2h9"), "{w}");
    // A clean file has none.
    let r = call(&app, "POST", "/api/import", "1. C2.5 H8+7 *\n").await;
    assert_eq!(r.json["warnings"], serde_json::json!([]), "{}", r.text);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn import_and_export_records() {
    let dir = temp_dir("import");
    let app = app_at(&dir).await;
    let pgn = "[Event \"Test\"]\n[Red \"A\"]\n[Black \"B\"]\n[Result \"1-0\"]\n\n1. C2.5 H8+7 2. H2+3 R9.8 1-0\n";
    let r = call(&app, "POST", "/api/import", pgn).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let id = r.json["games"][0]["id"].as_i64().unwrap();
    assert_eq!(r.json["games"][0]["red"], "A");
    assert_eq!(r.json["games"][0]["result"], "red-wins");
    for (notation, line) in [
        ("wxf", "1. C2.5 H8+7 2. H2+3 R9.8 1-0"),
        ("chinese", "1. 炮二平五 马8进7 2. 马二进三 车9平8 1-0"),
        ("iccs", "1. h2e2 h9g7 2. h0g2 i9h9 1-0"),
    ] {
        let r = get(
            &app,
            &format!("/api/games/{id}/pgn?notation={notation}&download=1"),
        )
        .await;
        assert_eq!(r.status, StatusCode::OK);
        assert!(r.text.contains(line), "{notation}: {}", r.text);
        assert!(r.text.contains("[Red \"A\"]"), "{}", r.text);
    }
    // the exported PGN imports again to the same moves
    let wxf = get(&app, &format!("/api/games/{id}/pgn?notation=wxf"))
        .await
        .text;
    let r = call(&app, "POST", "/api/import", wxf).await;
    let id2 = r.json["games"][0]["id"].as_i64().unwrap();
    let a = get(&app, &format!("/api/games/{id}")).await.json["moves"].clone();
    let b = get(&app, &format!("/api/games/{id2}")).await.json["moves"].clone();
    assert_eq!(a, b);
    // a FEN
    let r = call(
        &app,
        "POST",
        "/api/import",
        "3k5/9/9/9/9/9/9/9/4R4/4K4 w - - 0 1",
    )
    .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    assert_eq!(
        r.json["games"][0]["start_fen"],
        "3k5/9/9/9/9/9/9/9/4R4/4K4 w - - 0 1"
    );
    // an XQF file from the record set
    let xqf = shared().join("data/records/xqf/walker-game-test.xqf");
    let bytes = std::fs::read(&xqf).unwrap_or_else(|e| panic!("{}: {e}", xqf.display()));
    let r = call(&app, "POST", "/api/import", bytes).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let xid = r.json["games"][0]["id"].as_i64().unwrap();
    let g = get(&app, &format!("/api/games/{xid}")).await;
    assert!(
        !g.json["moves"].as_array().unwrap().is_empty(),
        "{}",
        g.text
    );
}

/// Many games played at once (their moves committed in shared groups): every confirmed move
/// is in the store afterwards, in order.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_games_share_commits_and_lose_nothing() {
    let dir = temp_dir("concurrent");
    let app = app_at(&dir).await;
    let mut tasks = Vec::new();
    for k in 0..24u64 {
        let app = app.clone();
        tasks.push(tokio::spawn(async move {
            let id = new_game(&app, json!({"mode": "two-player"})).await;
            let mut played = Vec::new();
            let mut legal: Vec<String> = Vec::new();
            let mut seed = k * 7919 + 1;
            for ply in 0..30 {
                if ply > 0 && legal.is_empty() {
                    break;
                }
                let mv = if ply == 0 {
                    "h2e2".to_string()
                } else {
                    seed = seed
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    legal[(seed >> 33) as usize % legal.len()].clone()
                };
                let r = post(
                    &app,
                    &format!("/api/games/{id}/moves"),
                    json!({"move": mv, "ply": ply}),
                )
                .await;
                assert_eq!(r.status, StatusCode::OK, "{}", r.text);
                legal = r.json["legal"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|m| m.as_str().unwrap().to_string())
                    .collect();
                played.push(mv);
            }
            (id, played)
        }));
    }
    let mut games = Vec::new();
    for t in tasks {
        games.push(t.await.expect("task"));
    }
    let app = app_at(&dir).await;
    for (id, played) in games {
        let g = get(&app, &format!("/api/games/{id}")).await;
        let stored: Vec<String> = g.json["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["uci"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(stored, played, "game {id}");
    }
}

/// Two tabs send a move for the same ply at once: one is stored, the other is refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn racing_moves_to_one_game_store_exactly_one() {
    let dir = temp_dir("race");
    let app = app_at(&dir).await;
    for _ in 0..10 {
        let id = new_game(&app, json!({"mode": "two-player"})).await;
        let uri = format!("/api/games/{id}/moves");
        let (a, b) = tokio::join!(
            post(&app, &uri, json!({"move": "h2e2", "ply": 0})),
            post(&app, &uri, json!({"move": "b2e2", "ply": 0}))
        );
        let oks = [&a, &b]
            .iter()
            .filter(|r| r.status == StatusCode::OK)
            .count();
        assert_eq!(oks, 1, "{} / {}", a.text, b.text);
        let refused = if a.status == StatusCode::OK { &b } else { &a };
        assert_error(refused, StatusCode::CONFLICT, "not 0");
        let g = get(&app, &format!("/api/games/{id}")).await;
        assert_eq!(g.json["moves"].as_array().unwrap().len(), 1);
    }
}

fn ucis(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|m| m["uci"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn analysis_keeps_the_replaced_line_as_a_variation() {
    let dir = temp_dir("lines");
    let app = app_at(&dir).await;
    let id = new_game(
        &app,
        json!({"mode": "analysis", "moves": ["h2e2", "h9g7", "h0g2"]}),
    )
    .await;
    // `at` past the main line's end is the game's state: 409, naming the field.
    let r = post(
        &app,
        &format!("/api/games/{id}/moves"),
        json!({"move": "b9c7", "at": 9, "ply": 3}),
    )
    .await;
    assert_error(&r, StatusCode::CONFLICT, "at most the number of moves (3)");
    assert_eq!(r.json["field"], "at");
    // Step back to after move 1 and play another move: the old line stays as a variation.
    let r = post(
        &app,
        &format!("/api/games/{id}/moves"),
        json!({"move": "b9c7", "at": 1, "ply": 3}),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(ucis(&r.json["moves"]), ["h2e2", "b9c7"]);
    assert_eq!(r.json["lines"].as_array().unwrap().len(), 1, "{}", r.text);
    assert_eq!(r.json["lines"][0]["ply"], 1);
    assert_eq!(ucis(&r.json["lines"][0]["moves"]), ["h9g7", "h0g2"]);
    assert_eq!(r.json["lines"][0]["uci"], json!(["h2e2", "h9g7", "h0g2"]));
    // Playing the main line's own move from there changes nothing.
    let same = post(
        &app,
        &format!("/api/games/{id}/moves"),
        json!({"move": "b9c7", "at": 1, "ply": 2}),
    )
    .await;
    assert_eq!(same.status, StatusCode::OK, "{}", same.text);
    assert_eq!(ucis(&same.json["moves"]), ["h2e2", "b9c7"]);
    assert_eq!(same.json["lines"], r.json["lines"]);
    // Another branch at the same point, then a branch inside the new main line.
    let r = post(
        &app,
        &format!("/api/games/{id}/moves"),
        json!({"move": "b7e7", "at": 1, "ply": 2}),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let r = post(
        &app,
        &format!("/api/games/{id}/moves"),
        json!({"move": "b0c2", "ply": 2}),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    // The PGN has the variations in parentheses.
    let pgn = get(&app, &format!("/api/games/{id}/pgn")).await;
    assert_eq!(pgn.status, StatusCode::OK);
    assert!(
        pgn.text
            .contains("1. h2e2 b7e7 (1... h9g7 2. h0g2) (1... b9c7) 2. b0c2 *"),
        "{}",
        pgn.text
    );

    // Durable: a reopened store has the lines.
    drop(app);
    let app = app_at(&dir).await;
    let g = get(&app, &format!("/api/games/{id}")).await;
    assert_eq!(ucis(&g.json["moves"]), ["h2e2", "b7e7", "b0c2"]);
    let lines: Vec<Value> = g.json["lines"].as_array().unwrap().clone();
    assert_eq!(lines.len(), 2, "{}", g.text);
    assert_eq!(lines[0]["uci"], json!(["h2e2", "h9g7", "h0g2"]));
    assert_eq!(lines[1]["uci"], json!(["h2e2", "b9c7"]));

    // Clicking into a variation makes it the main line; the old main line is kept.
    let r = post(
        &app,
        &format!("/api/games/{id}/promote"),
        json!({"line": ["h2e2", "h9g7", "h0g2"], "ply": 3}),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(ucis(&r.json["moves"]), ["h2e2", "h9g7", "h0g2"]);
    let uci_lines: Vec<Value> = r.json["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["uci"].clone())
        .collect();
    assert_eq!(
        uci_lines,
        [json!(["h2e2", "b9c7"]), json!(["h2e2", "b7e7", "b0c2"])]
    );
    assert_error(
        &post(
            &app,
            &format!("/api/games/{id}/promote"),
            json!({"line": ["h2e2", "a9a8"]}),
        )
        .await,
        StatusCode::CONFLICT,
        "no such alternative line",
    );

    // Re-importing the exported PGN keeps the variations.
    let pgn = get(&app, &format!("/api/games/{id}/pgn")).await.text;
    let r = call(&app, "POST", "/api/import", pgn.clone()).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let id2 = r.json["games"][0]["id"].as_i64().unwrap();
    let g2 = get(&app, &format!("/api/games/{id2}")).await;
    assert_eq!(ucis(&g2.json["moves"]), ["h2e2", "h9g7", "h0g2"]);
    let mut got: Vec<Value> = g2.json["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["uci"].clone())
        .collect();
    got.sort_by_key(|v| v.to_string());
    assert_eq!(
        got,
        [json!(["h2e2", "b7e7", "b0c2"]), json!(["h2e2", "b9c7"])],
        "{pgn}"
    );

    // Nested variations: imported as lines and exported nested again.
    let nested = "[Event \"n\"]\n\n1. h2e2 h9g7 (1... b9c7 2. h0g2 (2. b0c2 h7e7)) 2. h0g2 *\n";
    let r = call(&app, "POST", "/api/import", nested).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let id3 = r.json["games"][0]["id"].as_i64().unwrap();
    let g3 = get(&app, &format!("/api/games/{id3}")).await;
    let got: Vec<Value> = g3.json["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["uci"].clone())
        .collect();
    assert_eq!(
        got,
        [
            json!(["h2e2", "b9c7", "h0g2"]),
            json!(["h2e2", "b9c7", "b0c2", "h7e7"])
        ],
        "{}",
        g3.text
    );
    let pgn3 = get(&app, &format!("/api/games/{id3}/pgn")).await.text;
    assert!(
        pgn3.contains("1. h2e2 h9g7 (1... b9c7 2. h0g2 (2. b0c2 h7e7)) 2. h0g2 *"),
        "{pgn3}"
    );

    // Outside analysis, `at` is refused.
    let tp = new_game(
        &app,
        json!({"mode": "two-player", "moves": ["h2e2", "h9g7"]}),
    )
    .await;
    assert_error(
        &post(
            &app,
            &format!("/api/games/{tp}/moves"),
            json!({"move": "b9c7", "at": 1}),
        )
        .await,
        StatusCode::CONFLICT,
        "for analysis games",
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_data_file_from_before_variations_still_opens() {
    if pg::api_on_postgres() {
        eprintln!("skipped: an SQLite file's schema (XIANGQI_TEST_API_BACKEND=postgres)");
        return;
    }
    let dir = temp_dir("oldschema");
    std::fs::create_dir_all(&*dir).unwrap();
    {
        // The schema as the first release made it (no `lines` table).
        let c = rusqlite::Connection::open(dir.join("games.sqlite3")).unwrap();
        c.execute_batch(
            "CREATE TABLE games (id INTEGER PRIMARY KEY AUTOINCREMENT, created INTEGER NOT NULL,
             updated INTEGER NOT NULL, mode TEXT NOT NULL, human TEXT NOT NULL DEFAULT '',
             level INTEGER NOT NULL DEFAULT 0, start_fen TEXT NOT NULL,
             tags TEXT NOT NULL DEFAULT '{}', declared TEXT NOT NULL DEFAULT '',
             declared_ply INTEGER NOT NULL DEFAULT 0, result TEXT NOT NULL DEFAULT '',
             reason TEXT NOT NULL DEFAULT '', plies INTEGER NOT NULL DEFAULT 0);
             CREATE TABLE moves (game_id INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
             ply INTEGER NOT NULL, uci TEXT NOT NULL, PRIMARY KEY (game_id, ply)) WITHOUT ROWID;
             INSERT INTO games (created, updated, mode, start_fen, plies) VALUES (1, 1, 'analysis',
             'rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1', 2);
             INSERT INTO moves VALUES (1, 0, 'h2e2'), (1, 1, 'h9g7');",
        )
        .unwrap();
    }
    let app = app_at(&dir).await;
    let g = get(&app, "/api/games/1").await;
    assert_eq!(g.status, StatusCode::OK, "{}", g.text);
    assert_eq!(ucis(&g.json["moves"]), ["h2e2", "h9g7"]);
    assert_eq!(g.json["lines"], json!([]));
    // and takes variations from then on
    let r = post(
        &app,
        "/api/games/1/moves",
        json!({"move": "b9c7", "at": 1, "ply": 2}),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.json["lines"][0]["uci"], json!(["h2e2", "h9g7"]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn health_answers_ok_and_the_version() {
    let dir = temp_dir("health");
    let app = app_at(&dir).await;
    let r = get(&app, "/api/health").await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.header("content-type"), Some("application/json"));
    assert_eq!(
        r.json,
        json!({"ok": true, "version": env!("CARGO_PKG_VERSION")})
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pgn_download_is_an_attachment_named_after_the_game() {
    let dir = temp_dir("download");
    let app = app_at(&dir).await;
    let id = new_game(&app, json!({"moves": ["h2e2", "h9g7"]})).await;
    let pgn_type = Some("application/x-chess-pgn; charset=utf-8");
    let r = get(
        &app,
        &format!("/api/games/{id}/pgn?notation=wxf&download=1"),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.header("content-type"), pgn_type);
    let name = format!("attachment; filename=\"xiangqi-game-{id}.pgn\"");
    assert_eq!(r.header("content-disposition"), Some(name.as_str()));
    assert!(r.text.contains("C2.5"), "{}", r.text);
    // Shown, not downloaded, without download=1 (or with download=0).
    for q in ["", "?download=0", "?download=false"] {
        let r = get(&app, &format!("/api/games/{id}/pgn{q}")).await;
        assert_eq!(r.status, StatusCode::OK, "{}", r.text);
        assert_eq!(r.header("content-type"), pgn_type);
        assert_eq!(r.header("content-disposition"), None, "{q}");
    }
}

/// Every kind of malformed request names what is wrong: the field (with `field`), the query
/// parameter, or the list element (with `index`), and lists the names an endpoint knows.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_requests_name_the_field_parameter_or_element() {
    let dir = temp_dir("typed");
    let app = app_at(&dir).await;
    let id = new_game(&app, json!({"mode": "analysis"})).await;
    let mv = format!("/api/games/{id}/moves");
    let r = post(&app, &mv, json!({"mvoe": "h2e2"})).await;
    assert_error(
        &r,
        StatusCode::BAD_REQUEST,
        "unknown field 'mvoe' (expected one of: move, ply, at)",
    );
    assert_eq!(r.json["field"], "mvoe");
    // A name with backquotes and commas in it is named whole.
    let odd = "a`, expected `b";
    let r = post(&app, &mv, json!({ odd: 1 })).await;
    assert_error(
        &r,
        StatusCode::BAD_REQUEST,
        "unknown field 'a`, expected `b' (expected one of: move, ply, at)",
    );
    assert_eq!(r.json["field"], odd);
    for body in [json!({}), json!({"move": null})] {
        let r = post(&app, &mv, body).await;
        assert_error(&r, StatusCode::BAD_REQUEST, "field 'move' is missing");
        assert_eq!(r.json["field"], "move");
    }
    let r = post(&app, &mv, json!({"move": "h2e2", "at": "x"})).await;
    assert_error(
        &r,
        StatusCode::BAD_REQUEST,
        "field 'at' must be a whole number from 0 to 1000000, got \"x\"",
    );
    assert_eq!(r.json["field"], "at");
    let r = post(&app, "/api/games", json!({"moves": ["h2e2", 5]})).await;
    assert_error(&r, StatusCode::BAD_REQUEST, "moves[1] must be a string");
    assert_eq!(r.json["index"], 1);
    let r = post(&app, "/api/games", json!({"moves": "h2e2"})).await;
    assert_error(
        &r,
        StatusCode::BAD_REQUEST,
        "field 'moves' must be an array of moves",
    );
    let r = post(&app, "/api/games", json!({"mode": "chess"})).await;
    assert_error(
        &r,
        StatusCode::BAD_REQUEST,
        "field 'mode' must be computer, two-player or analysis, got 'chess'",
    );
    let promote = format!("/api/games/{id}/promote");
    let r = post(&app, &promote, json!({"line": ["h2e2", 7]})).await;
    assert_error(&r, StatusCode::BAD_REQUEST, "line[1] must be a string");
    assert_eq!(r.json["index"], 1);
    assert_error(
        &post(&app, &promote, json!({"line": null})).await,
        StatusCode::BAD_REQUEST,
        "field 'line' is missing",
    );
    assert_error(
        &get(&app, "/api/games?sort=x").await,
        StatusCode::BAD_REQUEST,
        "unknown query parameter 'sort' (expected one of: limit, offset)",
    );
    assert_error(
        &get(&app, "/api/games?limit=x").await,
        StatusCode::BAD_REQUEST,
        "query parameter 'limit' must be a whole number from 0 to 500, got 'x'",
    );
    assert_error(
        &get(&app, "/api/position").await,
        StatusCode::BAD_REQUEST,
        "query parameter 'fen' is missing",
    );
    assert_error(
        &call(&app, "POST", "/api/import?mode=computer", "x").await,
        StatusCode::BAD_REQUEST,
        "query parameter 'mode' must be two-player or analysis, got 'computer'",
    );
}
