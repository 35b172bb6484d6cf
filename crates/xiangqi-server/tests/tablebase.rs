//! `GET /api/tablebase?fen=` through the real router (no network), on tables generated here
//! (KRK, KRKA, KCK): lichess's tablebase shape, a win, a loss and a draw with
//! their moves best first, a capture into a table from a position without one, bare
//! material, checkmate, a server without tables, and bad FENs refused naming `fen`.

use std::sync::Arc;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use serde_json::{json, Value};
use tower::ServiceExt;
use xiangqi_server::{router, App, Store};
use xiangqi_tb::Tablebase;

async fn app(dir: &std::path::Path, tb: Option<Tablebase>) -> axum::Router {
    let store = Store::open(dir).expect("store");
    let mut app = App::new(store);
    app.tablebase = tb.map(Arc::new);
    router(Arc::new(app))
}

fn encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

async fn probe(r: &axum::Router, fen: &str) -> (StatusCode, Value) {
    let uri = format!("/api/tablebase?fen={}", encode(fen));
    let res = r
        .clone()
        .oneshot(Request::get(uri).body(Body::empty()).unwrap())
        .await
        .unwrap();
    let status = res.status();
    let bytes = res.into_body().collect().await.unwrap().to_bytes();
    (
        status,
        serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    )
}

fn uci_list(v: &Value) -> Vec<(String, String, Option<i64>)> {
    v["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["uci"].as_str().unwrap().to_string(),
                m["category"].as_str().unwrap().to_string(),
                m["dtm"].as_i64(),
            )
        })
        .collect()
}

/// `rules`: the result under the rule on perpetual check, on KRKH (docs/TABLEBASES.md, "Which
/// endgames change"): a standard draw that Red wins by the rule (the horse can hold it only by
/// checking forever), and the same from Black's side; unknown material has no `rules`.
#[tokio::test]
async fn the_perpetual_check_rule_is_given_beside_the_standard_result() {
    let dir = std::env::temp_dir().join(format!("xiangqi-tb-rules-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let tables = dir.join("tables");
    xiangqi_tb::build(&["KRKH".to_string()], &tables, 2, &mut |_| {}).unwrap();
    let r = app(&dir, Some(Tablebase::open(&tables).unwrap())).await;
    // Red to move, checked by the horse on b1: its only move d0d1, and Black must check again.
    let (s, v) = probe(&r, "9/9/4k4/9/9/9/9/9/1n7/R2K5 w - - 0 1").await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(
        (&v["category"], &v["rules"]),
        (&json!("draw"), &json!("win-by-rule")),
        "{v}"
    );
    assert!(v["dtm"].is_null());
    let moves = v["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 1, "{v}");
    assert_eq!(moves[0]["uci"], "d0d1");
    assert_eq!(
        (&moves[0]["category"], &moves[0]["rules"]),
        (&json!("draw"), &json!("loss-by-rule"))
    );
    // Black to move, lost by the rule: its only move that is not lost by mate checks into the
    // cycle (for Red after it: a win by the rule).
    let (_, v) = probe(&r, "9/9/4k4/9/9/9/9/3n5/9/R2K5 b - - 0 1").await;
    assert_eq!(
        (&v["category"], &v["rules"]),
        (&json!("draw"), &json!("loss-by-rule")),
        "{v}"
    );
    let d2b1 = v["moves"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["uci"] == "d2b1")
        .unwrap();
    assert_eq!(
        (&d2b1["category"], &d2b1["rules"]),
        (&json!("draw"), &json!("win-by-rule"))
    );
    // Wins and losses by mate are the same under the rule.
    for m in v["moves"].as_array().unwrap() {
        if m["category"] != "draw" {
            assert_eq!(m["category"], m["rules"], "{m}");
        }
    }
    // Unknown material (no KRKR here): no `rules`.
    let (_, v) = probe(&r, "9/9/4k4/9/9/9/9/9/1r7/R2K5 w - - 0 1").await;
    assert_eq!(v["category"], "unknown");
    assert!(v["rules"].is_null(), "{v}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn the_tablebase_answers_in_lichess_shape() {
    let dir = std::env::temp_dir().join(format!("xiangqi-tb-api-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let tables = dir.join("tables");
    let names = vec!["KRK".to_string(), "KRKA".to_string(), "KCK".to_string()];
    xiangqi_tb::build(&names, &tables, 1, &mut |_| {}).unwrap();
    let r = app(&dir, Some(Tablebase::open(&tables).unwrap())).await;

    // A win: mate in 1 (a8a9 is not the mate; the doc's example).
    let win = "3k5/R8/9/9/9/9/9/9/9/4K4 w - - 0 1";
    let (s, v) = probe(&r, win).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["category"], "win");
    assert_eq!(v["dtm"], 1);
    assert_eq!(v["rules"], "win", "the rule changes nothing here: {v}");
    assert_eq!(v["set"], "KRK");
    for k in ["dtz", "precise_dtz"] {
        assert!(v[k].is_null(), "{k}: {v}");
    }
    for k in [
        "checkmate",
        "stalemate",
        "insufficient_material",
        "variant_win",
        "variant_loss",
    ] {
        assert_eq!(v[k], false, "{k}");
    }
    let moves = uci_list(&v);
    // The best move first: a loss in 0 for the opponent (stalemate loses in Xiangqi).
    assert_eq!(moves[0], ("a8b8".to_string(), "loss".to_string(), Some(0)));
    let first = &v["moves"][0];
    assert_eq!(first["stalemate"], true);
    assert_eq!(first["checkmate"], false);
    assert_eq!(first["san"], first["wxf"]);
    assert!(
        first["chinese"].as_str().unwrap().chars().count() == 4,
        "{first}"
    );
    assert_eq!(first["zeroing"], false);
    // Every legal move is listed, best first: wins (fastest first), draws, losses.
    // (dtm is signed for the opponent: -2 is a loss in 2 for them.)
    let rank = |(_, c, d): &(String, String, Option<i64>)| match c.as_str() {
        "loss" => 1000 + d.unwrap(),
        "draw" => 0,
        _ => -1000 + d.unwrap(),
    };
    assert!(
        moves.windows(2).all(|w| rank(&w[0]) >= rank(&w[1])),
        "{moves:?}"
    );
    assert!(moves.iter().any(|m| m.1 == "draw"), "{moves:?}");

    // The same position with Black to move is lost for Black (colours swapped in the probe).
    let (_, v) = probe(&r, "3k5/9/9/9/9/9/9/9/r8/4K4 w - - 0 1").await;
    assert_eq!(v["category"], "loss", "{v}");
    assert_eq!(v["dtm"], -2, "{v}");
    assert!(uci_list(&v).iter().all(|m| m.1 == "win"), "{v}");

    // A draw: a lone cannon cannot mate (KCK).
    let (_, v) = probe(&r, "3k5/9/9/9/9/9/9/9/C8/4K4 w - - 0 1").await;
    assert_eq!(v["category"], "draw", "{v}");
    assert_eq!(v["rules"], "draw", "{v}");
    assert_eq!(v["set"], "KCK");
    assert!(v["dtm"].is_null());
    assert!(uci_list(&v).iter().all(|m| m.1 == "draw"), "{v}");

    // No table for KRKH: unknown, yet a capture of the horse leads into KRK.
    let (s, v) = probe(&r, "3k5/9/9/9/9/9/9/9/R2n5/4K4 w - - 0 1").await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(v["category"], "unknown");
    assert!(v["dtm"].is_null() && v["set"].is_null());
    let moves = uci_list(&v);
    let capture = moves.iter().find(|m| m.0 == "a1d1").unwrap();
    assert_ne!(capture.1, "unknown", "{moves:?}");
    assert!(moves.iter().any(|m| m.1 == "unknown"));
    let cap = v["moves"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["uci"] == "a1d1")
        .unwrap();
    assert_eq!(cap["zeroing"], true);

    // Bare generals: drawn by insufficient material, no table needed.
    let (_, v) = probe(&r, "3k5/9/9/9/9/9/9/9/9/4K4 w - - 0 1").await;
    assert_eq!(v["category"], "draw");
    assert_eq!(v["insufficient_material"], true);

    // Checkmated: a loss in 0, no moves.
    let (_, v) = probe(&r, "3k5/3R5/3R5/9/9/9/9/9/9/4K4 b - - 0 1").await;
    assert_eq!(v["category"], "loss", "{v}");
    assert_eq!(v["dtm"], 0);
    assert_eq!(v["checkmate"], true);
    assert!(v["moves"].as_array().unwrap().is_empty());

    // Bad input, named.
    for (uri, field) in [
        ("/api/tablebase?fen=nonsense".to_string(), Some("fen")),
        (
            format!("/api/tablebase?fen={}", encode("3k5/9/9 w - - 0 1")),
            Some("fen"),
        ),
        ("/api/tablebase".to_string(), None),
        (format!("/api/tablebase?fen={}&x=1", encode(win)), None),
    ] {
        let res = r
            .clone()
            .oneshot(Request::get(&uri).body(Body::empty()).unwrap())
            .await
            .unwrap();
        assert_eq!(res.status(), StatusCode::BAD_REQUEST, "{uri}");
        let bytes = res.into_body().collect().await.unwrap().to_bytes();
        let v: Value = serde_json::from_slice(&bytes).unwrap();
        assert!(v["error"].as_str().unwrap().len() > 5, "{v}");
        if let Some(f) = field {
            assert_eq!(v["field"], f, "{uri}: {v}");
        } else {
            assert!(
                v["error"].as_str().unwrap().contains("fen")
                    || v["error"].as_str().unwrap().contains('x'),
                "{v}"
            );
        }
    }

    // A server without tables: unknown, but the rules' own results stay.
    let r = app(&dir, None).await;
    let (s, v) = probe(&r, win).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(v["category"], "unknown");
    assert!(uci_list(&v).iter().any(|m| m.1 == "loss"), "{v}");
    let _ = std::fs::remove_dir_all(&dir);
}
