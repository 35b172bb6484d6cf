//! Records shown whole: an imported record keeps its comments (main line, variations, before
//! the first move), NAGs, tags and variations; they can be edited; the export has them all.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use axum::Router;
use http_body_util::BodyExt;
use serde_json::{json, Value};
use tower::ServiceExt;
use xiangqi_record::GameRecord;
use xiangqi_server::lines::{tree_lines, tree_notes};
use xiangqi_server::{router, App, Store};

mod pg;

struct TempDir(PathBuf);

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
        "xiangqi-records-test-{}-{name}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst)
    ));
    let _ = std::fs::remove_dir_all(&d);
    TempDir(d)
}

fn record_file(rel: &str) -> Vec<u8> {
    let root = match std::env::var_os("XIANGQI_SHARED") {
        Some(p) => PathBuf::from(p),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"),
    };
    let p = root.join("data/records").join(rel);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The app on the store of `dir`: SQLite in it, or with `XIANGQI_TEST_API_BACKEND=postgres`
/// a PostgreSQL database named after it.
async fn app_at(dir: &TempDir) -> Router {
    let store = if pg::api_on_postgres() {
        let url = pg::database(&pg::url().unwrap(), &pg_name(&dir.0)).await;
        Store::connect(&url).await.expect("connect to the store")
    } else {
        Store::open(&dir.0).expect("open store")
    };
    router(Arc::new(App::new(store)))
}

async fn call(
    app: &Router,
    method: &str,
    uri: &str,
    body: impl Into<Body>,
) -> (StatusCode, String, Value) {
    let req = Request::builder()
        .method(method)
        .uri(uri)
        .header("content-type", "application/json")
        .body(body.into())
        .unwrap();
    let res = app.clone().oneshot(req).await.unwrap();
    let status = res.status();
    let bytes = res.into_body().collect().await.unwrap().to_bytes();
    let text = String::from_utf8_lossy(&bytes).to_string();
    let json = serde_json::from_str(&text).unwrap_or(Value::Null);
    (status, text, json)
}

async fn import(app: &Router, bytes: Vec<u8>) -> i64 {
    let (st, text, json) = call(app, "POST", "/api/import", bytes).await;
    assert_eq!(st, StatusCode::CREATED, "{text}");
    json["games"][0]["id"].as_i64().unwrap()
}

fn read_one(bytes: &[u8]) -> GameRecord {
    let all = xiangqi_record::detect::read_any(bytes).expect("the record reads");
    all.games
        .into_iter()
        .next()
        .unwrap()
        .expect("its first game reads")
}

/// A record's comments by path, its NAGs by path, and its lines.
#[allow(clippy::type_complexity)]
fn whole(
    rec: &GameRecord,
) -> (
    BTreeMap<String, String>,
    BTreeMap<String, Vec<u8>>,
    BTreeSet<String>,
) {
    let mut comments = BTreeMap::new();
    let mut nags = BTreeMap::new();
    for (p, n) in tree_notes(rec.comment.as_deref(), &rec.moves) {
        if !n.text.is_empty() {
            comments.insert(p.clone(), n.text.replace("\r\n", "\n").trim().to_string());
        }
        if !n.nags.is_empty() {
            nags.insert(p, n.nags);
        }
    }
    let lines = tree_lines(&rec.moves)
        .iter()
        .map(|l| xiangqi_server::lines::line_text(l))
        .collect();
    (comments, nags, lines)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_imported_xqf_keeps_its_comments_variations_and_tags_and_exports_them() {
    let dir = temp_dir("xqf");
    let app = app_at(&dir).await;
    // 七星聚会: a comment before the first move, comments in the main line and in variations.
    let bytes = record_file("xqf/eleeye-xqfexamb.xqf");
    let original = read_one(&bytes);
    let (comments, _, lines) = whole(&original);
    assert!(
        comments.contains_key(""),
        "the record has a comment before the first move"
    );
    assert!(comments.len() > 5);
    let id = import(&app, bytes).await;
    let (_, text, g) = call(&app, "GET", &format!("/api/games/{id}"), Body::empty()).await;
    // The comments, by path, in the game's JSON.
    let notes = g["notes"]
        .as_object()
        .unwrap_or_else(|| panic!("notes: {text}"));
    let got: BTreeMap<String, String> = notes
        .iter()
        .map(|(k, v)| (k.clone(), v["comment"].as_str().unwrap().trim().to_string()))
        .collect();
    assert_eq!(got, comments);
    // One is on a variation's move (a path that leaves the main line).
    let main: Vec<&str> = g["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["uci"].as_str().unwrap())
        .collect();
    assert!(
        got.keys().any(|p| !main.join(" ").starts_with(p.as_str())),
        "a comment inside a variation"
    );
    assert_eq!(g["tags"]["Title"], "七星聚会");
    assert_eq!(g["tags"]["Author"], "过河象");
    assert_eq!(g["tags"]["Result"], "1/2-1/2");
    // The export has the comments and every variation (read back, the same tree).
    for notation in ["iccs", "wxf", "chinese"] {
        let (st, pgn, _) = call(
            &app,
            "GET",
            &format!("/api/games/{id}/pgn?notation={notation}"),
            Body::empty(),
        )
        .await;
        assert_eq!(st, StatusCode::OK);
        assert!(pgn.contains("[Title \"七星聚会\"]"), "{pgn}");
        let back = read_one(pgn.as_bytes());
        let (c2, _, l2) = whole(&back);
        assert_eq!(c2, comments, "{notation}: comments exported");
        assert_eq!(l2, lines, "{notation}: variations exported");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_98_variation_xqf_is_imported_whole() {
    let dir = temp_dir("xqf98");
    let app = app_at(&dir).await;
    let bytes = record_file("xqf/hbsxcjp-hard-feixiangju-zu7jin1.xqf");
    let original = read_one(&bytes);
    let (comments, _, lines) = whole(&original);
    assert_eq!(lines.len(), 98, "the record's variations");
    let id = import(&app, bytes).await;
    let (_, pgn, _) = call(
        &app,
        "GET",
        &format!("/api/games/{id}/pgn?notation=chinese"),
        Body::empty(),
    )
    .await;
    let (c2, _, l2) = whole(&read_one(pgn.as_bytes()));
    assert_eq!(l2, lines);
    assert_eq!(c2, comments);
    assert!(pgn.contains("[Event \"飞相局对挺7卒\"]"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pgn_tags_comments_and_nags_are_kept() {
    let dir = temp_dir("pgn");
    let app = app_at(&dir).await;
    // A CCGC game: Event, Round, Date, Site, Red, Black, ECCO, Opening, Variation, Result.
    let id = import(&app, record_file("pgn-chinese/eleeye-ccgc-01.pgn")).await;
    let (_, _, g) = call(&app, "GET", &format!("/api/games/{id}"), Body::empty()).await;
    for tag in [
        "Event", "Round", "Date", "Site", "Red", "Black", "ECCO", "Opening", "Result",
    ] {
        assert!(g["tags"][tag].is_string(), "tag {tag}: {}", g["tags"]);
    }
    assert_eq!(g["tags"]["ECCO"], "C48");
    // NAGs and comments of a PGN, in the main line and in a variation.
    let pgn = "[Event \"x\"]\n[Opening \"中炮\"]\n\n{before} 1. h2e2 $1 {good} h9g7 (1... h7e7 {same} $2) 2. h0g2 *\n";
    let id = import(&app, pgn.as_bytes().to_vec()).await;
    let (_, _, g) = call(&app, "GET", &format!("/api/games/{id}"), Body::empty()).await;
    assert_eq!(
        g["notes"],
        json!({
            "": {"comment": "before", "nags": []},
            "h2e2": {"comment": "good", "nags": [1]},
            "h2e2 h7e7": {"comment": "same", "nags": [2]},
        })
    );
    let (_, out, _) = call(
        &app,
        "GET",
        &format!("/api/games/{id}/pgn?notation=iccs"),
        Body::empty(),
    )
    .await;
    assert!(out.contains("[Opening \"中炮\"]"), "{out}");
    let back = read_one(out.as_bytes());
    assert_eq!(whole(&back), whole(&read_one(pgn.as_bytes())), "{out}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn comments_are_edited_at_any_move_and_survive_a_restart() {
    let dir = temp_dir("edit");
    let id;
    {
        let app = app_at(&dir).await;
        id = import(
            &app,
            b"1. h2e2 h9g7 (1... h7e7 2. h0g2) 2. h0g2 *\n".to_vec(),
        )
        .await;
        let uri = format!("/api/games/{id}/note");
        // On a main-line move, on a variation's move, before the first move.
        for (path, text) in [
            (json!(["h2e2", "h9g7"]), "the horse"),
            (
                json!(["h2e2", "h7e7", "h0g2"]),
                "in the line\r\nsecond line",
            ),
            (json!([]), "a game"),
        ] {
            let (st, body, _) = call(
                &app,
                "POST",
                &uri,
                json!({"path": path, "comment": text}).to_string(),
            )
            .await;
            assert_eq!(st, StatusCode::OK, "{body}");
        }
        // Changed, then NAGs only, then removed.
        let (st, _, g) = call(
            &app,
            "POST",
            &uri,
            json!({"path": ["h2e2", "h9g7"], "comment": "  the horse, again "}).to_string(),
        )
        .await;
        assert_eq!(st, StatusCode::OK);
        assert_eq!(g["notes"]["h2e2 h9g7"]["comment"], "the horse, again");
        assert_eq!(
            g["notes"]["h2e2 h7e7 h0g2"]["comment"],
            "in the line\nsecond line"
        );
        let (_, _, g) = call(
            &app,
            "POST",
            &uri,
            json!({"path": ["h2e2"], "nags": [3]}).to_string(),
        )
        .await;
        assert_eq!(g["notes"]["h2e2"], json!({"comment": "", "nags": [3]}));
        let (_, _, g) = call(
            &app,
            "POST",
            &uri,
            json!({"path": ["h2e2"], "comment": "", "nags": []}).to_string(),
        )
        .await;
        assert!(g["notes"].get("h2e2").is_none(), "{}", g["notes"]);

        // Refusals: a move the game does not have, too long a comment, no path, junk.
        let (st, body, _) = call(
            &app,
            "POST",
            &uri,
            json!({"path": ["h2e2", "a9a8"], "comment": "x"}).to_string(),
        )
        .await;
        assert_eq!(st, StatusCode::CONFLICT, "{body}");
        assert!(body.contains("no such move"), "{body}");
        let long = "象".repeat(20_001);
        let (st, body, _) = call(
            &app,
            "POST",
            &uri,
            json!({"path": [], "comment": long}).to_string(),
        )
        .await;
        assert_eq!(st, StatusCode::BAD_REQUEST, "{body}");
        assert!(body.contains("20001 characters"), "{body}");
        let (st, body, _) = call(&app, "POST", &uri, json!({"comment": "x"}).to_string()).await;
        assert_eq!(st, StatusCode::BAD_REQUEST);
        assert!(body.contains("'path'"), "{body}");
        let (st, body, _) = call(&app, "POST", &uri, json!({"path": "h2e2"}).to_string()).await;
        assert_eq!(st, StatusCode::BAD_REQUEST, "{body}");
        let (st, _, _) = call(
            &app,
            "POST",
            "/api/games/99999/note",
            json!({"path": []}).to_string(),
        )
        .await;
        assert_eq!(st, StatusCode::NOT_FOUND);
    }
    // A new server on the same data folder has them; the export too.
    let app = app_at(&dir).await;
    let (_, _, g) = call(&app, "GET", &format!("/api/games/{id}"), Body::empty()).await;
    assert_eq!(g["notes"][""]["comment"], "a game");
    assert_eq!(g["notes"]["h2e2 h9g7"]["comment"], "the horse, again");
    let (_, pgn, _) = call(
        &app,
        "GET",
        &format!("/api/games/{id}/pgn?notation=iccs"),
        Body::empty(),
    )
    .await;
    assert!(pgn.contains("{a game}"), "{pgn}");
    assert!(pgn.contains("{the horse, again}"), "{pgn}");
    assert!(pgn.contains("{in the line"), "{pgn}");
    // Promoting the line keeps its comment on the same move.
    let (st, body, g) = call(
        &app,
        "POST",
        &format!("/api/games/{id}/promote"),
        json!({"line": ["h2e2", "h7e7", "h0g2"]}).to_string(),
    )
    .await;
    assert_eq!(st, StatusCode::OK, "{body}");
    assert_eq!(
        g["notes"]["h2e2 h7e7 h0g2"]["comment"],
        "in the line\nsecond line"
    );
    // Deleting the game deletes its notes with it.
    let (st, _, _) = call(&app, "DELETE", &format!("/api/games/{id}"), Body::empty()).await;
    assert_eq!(st, StatusCode::OK);
}
