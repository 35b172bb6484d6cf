//! Game review through the real router: started in the background, followed, stored with the
//! game (read back after reopening the store), cancelled; refusals name the problem.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use axum::Router;
use http_body_util::BodyExt;
use serde_json::{json, Value};
use tower::ServiceExt;
use xiangqi_server::{router, App, Store};

struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn temp_dir(name: &str) -> TempDir {
    let d = std::env::temp_dir().join(format!("xiangqi-review-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    TempDir(d)
}

fn app_at(dir: &std::path::Path) -> Router {
    router(Arc::new(App::new(Store::open(dir).expect("open store"))))
}

async fn call(app: &Router, method: &str, uri: &str, body: Option<Value>) -> (StatusCode, Value) {
    let req = Request::builder()
        .method(method)
        .uri(uri)
        .header("content-type", "application/json")
        .body(body.map_or(Body::empty(), |v| Body::from(v.to_string())))
        .expect("request");
    let res = app.clone().oneshot(req).await.expect("response");
    let status = res.status();
    let bytes = res.into_body().collect().await.expect("body").to_bytes();
    let text = String::from_utf8_lossy(&bytes).to_string();
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

/// Polls the review until it is no longer running.
async fn wait_review(app: &Router, id: i64) -> Value {
    for _ in 0..600 {
        let (s, v) = call(app, "GET", &format!("/api/games/{id}/review"), None).await;
        assert_eq!(s, StatusCode::OK, "{v}");
        if v["state"] != "running" {
            return v;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the review did not finish");
}

async fn two_player(app: &Router, moves: &[&str]) -> i64 {
    let (s, v) = call(
        app,
        "POST",
        "/api/games",
        Some(json!({"mode": "two-player", "moves": moves})),
    )
    .await;
    assert_eq!(s, StatusCode::CREATED, "{v}");
    v["id"].as_i64().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_review_finds_the_planted_blunder_and_is_kept_with_the_game() {
    let dir = temp_dir("blunder");
    let app = app_at(&dir.0);
    // 2. C5+4?? loses the cannon to the knight.
    let id = two_player(&app, &["h2e2", "h9g7", "e2e6", "g7e6", "h0g2"]).await;
    let (s, v) = call(&app, "GET", &format!("/api/games/{id}/review"), None).await;
    assert_eq!(
        (s, v["state"].as_str()),
        (StatusCode::OK, Some("none")),
        "{v}"
    );
    let (s, v) = call(
        &app,
        "POST",
        &format!("/api/games/{id}/review"),
        Some(json!({"depth": 8})),
    )
    .await;
    assert_eq!(s, StatusCode::ACCEPTED, "{v}");
    let v = wait_review(&app, id).await;
    assert_eq!(v["state"], "done", "{v}");
    assert_eq!(v["stale"], false);
    let r = &v["review"];
    assert_eq!(r["depth"], 8);
    let moves = r["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 5);
    for m in moves {
        assert!(
            m["eval_text"].as_str().is_some_and(|t| !t.is_empty()),
            "{m}"
        );
        assert!(m["red_win"].as_f64().is_some());
    }
    assert_eq!(moves[2]["kind"], "blunder", "{r}");
    assert_eq!(moves[2]["move"], "e2e6");
    assert!(moves[2]["better"][0].as_str().is_some_and(|b| b != "e2e6"));
    assert!(moves[2]["better_chinese"][0].as_str().is_some());
    // The planted blunder at least (the pool's engines may have searched other games before).
    assert!(r["red"]["blunders"].as_u64().unwrap() >= 1, "{r}");
    assert!(r["red"]["accuracy"].as_f64().unwrap() < r["black"]["accuracy"].as_f64().unwrap());

    // Kept with the game: a new server over the same file answers it.
    drop(app);
    let app = app_at(&dir.0);
    let (_, v) = call(&app, "GET", &format!("/api/games/{id}/review"), None).await;
    assert_eq!(v["state"], "done", "{v}");
    assert_eq!(v["review"]["moves"][2]["kind"], "blunder");
    // A move more: the stored review is of another line now.
    let (s, _) = call(
        &app,
        "POST",
        &format!("/api/games/{id}/moves"),
        Some(json!({"move": "i9h9"})),
    )
    .await;
    assert_eq!(s, StatusCode::OK);
    let (_, v) = call(&app, "GET", &format!("/api/games/{id}/review"), None).await;
    assert_eq!(v["stale"], true, "{v}");
    // Deleting the game deletes its review.
    let (s, _) = call(&app, "DELETE", &format!("/api/games/{id}"), None).await;
    assert_eq!(s, StatusCode::OK);
    let (s, _) = call(&app, "GET", &format!("/api/games/{id}/review"), None).await;
    assert_eq!(s, StatusCode::NOT_FOUND);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_review_can_be_cancelled_and_bad_requests_are_refused() {
    let dir = temp_dir("cancel");
    let app = app_at(&dir.0);
    let line: Vec<&str> = [
        "h2e2", "h9g7", "h0g2", "i9h9", "i0h0", "b9c7", "b0c2", "a9b9", "a0b0", "b7b3",
    ]
    .into_iter()
    .cycle()
    .take(10)
    .collect();
    let id = two_player(&app, &line).await;
    let (s, v) = call(
        &app,
        "POST",
        &format!("/api/games/{id}/review"),
        Some(json!({"depth": 16})),
    )
    .await;
    assert_eq!(s, StatusCode::ACCEPTED, "{v}");
    assert_eq!(v["state"], "running");
    assert_eq!(v["total"], 11);
    let (s, v) = call(&app, "DELETE", &format!("/api/games/{id}/review"), None).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let v = wait_review(&app, id).await;
    assert_eq!(v["state"], "cancelled", "{v}");
    assert!(v.get("review").is_none());
    let (s, v) = call(&app, "DELETE", &format!("/api/games/{id}/review"), None).await;
    assert_eq!(s, StatusCode::CONFLICT, "{v}");
    assert!(v["error"].as_str().unwrap().contains("no review"));

    for (body, needle) in [
        (json!({"depth": 0}), "depth"),
        (json!({"depth": 17}), "depth"),
        (json!({"depth": "8"}), "depth"),
        (json!({"deep": 8}), "deep"),
    ] {
        let (s, v) = call(&app, "POST", &format!("/api/games/{id}/review"), Some(body)).await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        assert!(v.to_string().contains(needle), "{v}");
    }
    let (s, _) = call(&app, "POST", "/api/games/99999/review", None).await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    let empty = two_player(&app, &[]).await;
    let (s, v) = call(&app, "POST", &format!("/api/games/{empty}/review"), None).await;
    assert_eq!(s, StatusCode::CONFLICT, "{v}");
    // A game against the computer still being played is not reviewed.
    let (_, g) = call(
        &app,
        "POST",
        "/api/games",
        Some(json!({"mode": "computer", "human": "red", "moves": ["h2e2", "h9g7"]})),
    )
    .await;
    let cid = g["id"].as_i64().unwrap();
    let (s, v) = call(&app, "POST", &format!("/api/games/{cid}/review"), None).await;
    assert_eq!(s, StatusCode::CONFLICT, "{v}");
    assert!(v["error"].as_str().unwrap().contains("still being played"));
}
