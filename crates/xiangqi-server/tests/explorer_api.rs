//! `GET /api/explorer/{db}` through the real router (no network), on an explorer index made
//! here: the totals and moves of a position (reached by FEN or by `play`), the three
//! databases and their filters, the top games, and every refusal naming its field; with no
//! index the answer is all zeros.

use std::sync::Arc;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use serde_json::Value;
use tower::ServiceExt;
use xiangqi::{Color, Move, Position};
use xiangqi_explorer::{Explorer, GameMeta, NewGame, Options, Outcome, Speed, Target};
use xiangqi_server::{router, App, Store};

fn game(
    moves: &str,
    outcome: Outcome,
    target: Target,
    red: (&str, u16),
    black: (&str, u16),
) -> NewGame {
    let start = Position::new();
    let mut pos = start.clone();
    let mut list: Vec<Move> = vec![];
    for m in moves.split_whitespace() {
        let mv = pos.parse_uci(m).unwrap();
        pos.play_unchecked(mv);
        list.push(mv);
    }
    NewGame {
        meta: GameMeta {
            red: red.0.into(),
            black: black.0.into(),
            red_rating: Some(red.1),
            black_rating: Some(black.1),
            outcome: Some(outcome),
            date: 20261204,
            event: "test".into(),
            source: format!("test {moves}"),
        },
        start,
        moves: list,
        target,
    }
}

async fn app(dir: &std::path::Path, explorer: Option<Explorer>) -> axum::Router {
    let store = Store::open(dir).expect("store");
    let mut app = App::new(store);
    app.explorer = explorer.map(Arc::new);
    router(Arc::new(app))
}

async fn get(r: &axum::Router, uri: &str) -> (StatusCode, Value) {
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

fn counts(v: &Value) -> (u64, u64, u64) {
    (
        v["red"].as_u64().unwrap(),
        v["draws"].as_u64().unwrap(),
        v["black"].as_u64().unwrap(),
    )
}

#[tokio::test]
async fn the_explorer_answers_in_lila_shape_and_names_bad_input() {
    let dir = std::env::temp_dir().join(format!("xiangqi-explorer-api-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let ex = Explorer::open(&dir.join(xiangqi_explorer::FILE_NAME), Options::default()).unwrap();
    let site = |speed, a: &str, b: &str| Target::Site {
        speed,
        accounts: [Some(a.to_owned()), Some(b.to_owned())],
    };
    ex.add(&[
        game(
            "h2e2 h9g7 h0g2",
            Outcome::RedWins,
            Target::Masters,
            ("Hu", 2600),
            ("Xu", 2550),
        ),
        game(
            "h2e2 b9c7",
            Outcome::Draw,
            Target::Masters,
            ("Lü", 2500),
            ("Zhao", 2450),
        ),
        game(
            "c3c4 g6g5",
            Outcome::BlackWins,
            Target::Masters,
            ("Wang", 2400),
            ("Li", 2300),
        ),
        game(
            "h2e2 h9g7",
            Outcome::BlackWins,
            site(Speed::Blitz, "ann", "bo"),
            ("ann", 1500),
            ("bo", 1600),
        ),
        game(
            "b2e2 h9g7",
            Outcome::RedWins,
            site(Speed::Rapid, "bo", "ann"),
            ("bo", 1650),
            ("ann", 1450),
        ),
    ])
    .unwrap();
    let r = app(&dir, Some(ex)).await;

    // Masters from the start: three games, h2e2 first (two games), with both notations.
    let (st, v) = get(&r, "/api/explorer/masters").await;
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!(counts(&v), (1, 1, 1));
    // (The start is its own mirror: h2e2 and b2e2 are one entry, shown as either.)
    let names = (
        &v["moves"][0]["uci"],
        &v["moves"][0]["wxf"],
        &v["moves"][0]["chinese"],
    );
    assert!(
        names == (&"h2e2".into(), &"C2.5".into(), &"炮二平五".into())
            || names == (&"b2e2".into(), &"C8.5".into(), &"炮八平五".into()),
        "{v}"
    );
    assert_eq!(counts(&v["moves"][0]), (1, 1, 0));
    assert_eq!(v["moves"][0]["averageRating"], 2525);
    assert_eq!(v["moves"].as_array().unwrap().len(), 2);
    // The top game is the highest-rated, with its players.
    assert_eq!(v["topGames"][0]["red"]["name"], "Hu");
    assert_eq!(v["topGames"][0]["winner"], "red");
    // `moves` limits the list; `play` walks from the start; a FEN gives the same position.
    let (_, v) = get(&r, "/api/explorer/masters?moves=1").await;
    assert_eq!(v["moves"].as_array().unwrap().len(), 1);
    let played = v["moves"][0]["uci"].as_str().unwrap().to_owned();
    let (_, after) = get(&r, &format!("/api/explorer/masters?play={played}")).await;
    assert_eq!(counts(&after), (1, 1, 0));
    let ucis: Vec<&str> = after["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["uci"].as_str().unwrap())
        .collect();
    assert_eq!(ucis.len(), 2);
    // After the cannon's move the position is no longer its own mirror: the horses' two
    // replies are two moves.
    assert!(ucis.contains(&"h9g7") && ucis.contains(&"b9c7"), "{ucis:?}");
    let fen = if played == "h2e2" {
        "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1"
    } else {
        "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/4C2C1/9/RNBAKABNR b - - 1 1"
    };
    let (_, by_fen) = get(&r, &format!("/api/explorer/masters?fen={}", urlencode(fen))).await;
    assert_eq!(by_fen, after);

    // Site: both site games from the start; filtered by speed and by rating band.
    let (_, v) = get(&r, "/api/explorer/site").await;
    assert_eq!(counts(&v), (1, 0, 1));
    let (_, v) = get(&r, "/api/explorer/site?speeds=blitz").await;
    assert_eq!(counts(&v), (0, 0, 1));
    // (The start is its own mirror: h2e2 and b2e2 are one entry, shown as either.)
    let first = v["moves"][0]["uci"].as_str().unwrap();
    assert!(first == "h2e2" || first == "b2e2", "{v}");
    let (_, v) = get(&r, "/api/explorer/site?speeds=rapid,blitz&ratings=1400").await;
    assert_eq!(counts(&v), (1, 0, 1));
    let (_, v) = get(&r, "/api/explorer/site?ratings=2000").await;
    assert_eq!(counts(&v), (0, 0, 0));
    // Player: ann's games as red and as black.
    let (_, v) = get(&r, "/api/explorer/player?player=ann&color=red").await;
    assert_eq!(counts(&v), (0, 0, 1));
    let (_, v) = get(&r, "/api/explorer/player?player=ann&color=black").await;
    assert_eq!(counts(&v), (1, 0, 0));
    assert_eq!(v["moves"].as_array().unwrap().len(), 1);

    // Refusals name their field.
    for (uri, status, field, says) in [
        ("/api/explorer/masters?fen=xyz", 400, "fen", "xyz"),
        (
            "/api/explorer/masters?play=h2e2,a0a5",
            400,
            "play",
            "move 2 'a0a5'",
        ),
        (
            "/api/explorer/site?speeds=blitz,lightning",
            400,
            "speeds",
            "lightning",
        ),
        ("/api/explorer/site?ratings=1300", 400, "ratings", "1300"),
        ("/api/explorer/player", 400, "player", "needs a player"),
        (
            // (The query's own types: the message names the parameter.)
            "/api/explorer/player?player=ann&color=green",
            400,
            "",
            "'color' must be red or black",
        ),
        (
            "/api/explorer/masters?moves=51",
            400,
            "",
            "'moves' must be a whole number from 0 to 50",
        ),
        ("/api/explorer/masters?colour=red", 400, "", "colour"),
        ("/api/explorer/lichess", 404, "", "not an explorer database"),
    ] {
        let (st, v) = get(&r, uri).await;
        assert_eq!(st.as_u16(), status, "{uri}: {v}");
        let err = v["error"].as_str().unwrap_or_default();
        assert!(err.contains(says), "{uri}: {v}");
        if !field.is_empty() {
            assert_eq!(v["field"], field, "{uri}: {v}");
        }
    }

    // The opening: the start has none (null), a named position its name in both languages,
    // a transposition and a mirror the same, a position past the table the last named one.
    let (_, v) = get(&r, "/api/explorer/masters").await;
    assert_eq!(v["opening"], Value::Null, "{v}");
    let (_, v) = get(&r, "/api/explorer/masters?play=h2e2,h9g7,h0g2,b9c7").await;
    assert_eq!(
        v["opening"],
        serde_json::json!({"eco": null, "name": "Central Cannon vs Screen Horses", "nameZh": "中炮对屏风马"})
    );
    for play in ["h2e2,b9c7,h0g2,h9g7", "b2e2,b9c7,b0c2,h9g7"] {
        let (_, w) = get(&r, &format!("/api/explorer/masters?play={play}")).await;
        assert_eq!(w["opening"], v["opening"], "{play}");
    }
    let (_, v) = get(
        &r,
        "/api/explorer/site?play=h2e2,h9g7,h0g2,i9h9,i0h0,g6g5,h0h6,b9c7,c3c4,g7f5,a3a4",
    )
    .await;
    assert_eq!(v["opening"]["eco"], "C37", "{v}");
    assert_eq!(v["opening"]["nameZh"], "中炮过河车互进七兵对屏风马左马盘河");
    // Given by FEN alone, only the position itself can be named.
    let fen = urlencode("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1");
    let (_, v) = get(&r, &format!("/api/explorer/masters?fen={fen}")).await;
    assert_eq!(v["opening"]["nameZh"], "中炮", "{v}");
    drop(r);

    // No explorer here: every position is all zeros (the same shape).
    let other = dir.join("none");
    std::fs::create_dir_all(&other).unwrap();
    let r = app(&other, None).await;
    let (st, v) = get(&r, "/api/explorer/masters?play=h2e2").await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(counts(&v), (0, 0, 0));
    assert_eq!(v["moves"], Value::Array(vec![]));
    assert_eq!(
        v["opening"]["name"], "Central Cannon",
        "named without an index too"
    );
    let (st, _) = get(&r, "/api/explorer/masters?fen=bad").await;
    assert_eq!(
        st,
        StatusCode::BAD_REQUEST,
        "bad input is refused with or without an index"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

fn urlencode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'-' | b'_' | b'.' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

async fn post(
    r: &axum::Router,
    uri: &str,
    token: Option<&str>,
    body: Value,
) -> (StatusCode, Value) {
    let mut req = Request::post(uri).header("content-type", "application/json");
    if let Some(t) = token {
        req = req.header("authorization", format!("Bearer {t}"));
    }
    let text = if body.is_null() {
        String::new()
    } else {
        body.to_string()
    };
    let res = r
        .clone()
        .oneshot(req.body(Body::from(text)).unwrap())
        .await
        .unwrap();
    let status = res.status();
    let bytes = res.into_body().collect().await.unwrap().to_bytes();
    (
        status,
        serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    )
}

/// A live game with a `limit`+`increment` clock, `moves` played and then `resigner`
/// resigning; answers its id.
async fn resigned_game(
    r: &axum::Router,
    limit: u64,
    increment: u64,
    moves: &[&str],
    resigner: Color,
) -> String {
    let (st, c) = post(
        r,
        "/api/challenge/open",
        None,
        serde_json::json!({"clock": {"limit": limit, "increment": increment}}),
    )
    .await;
    assert_eq!(st, StatusCode::OK, "{c}");
    let id = c["id"].as_str().unwrap().to_owned();
    let token = |side: Color| {
        c[if side == Color::Red {
            "tokenRed"
        } else {
            "tokenBlack"
        }]
        .as_str()
        .unwrap()
        .to_owned()
    };
    let mut side = Color::Red;
    for m in moves {
        let (st, v) = post(
            r,
            &format!("/api/board/game/{id}/move/{m}"),
            Some(&token(side)),
            Value::Null,
        )
        .await;
        assert_eq!(st, StatusCode::OK, "{v}");
        side = !side;
    }
    let (st, v) = post(
        r,
        &format!("/api/board/game/{id}/resign"),
        Some(&token(resigner)),
        Value::Null,
    )
    .await;
    assert_eq!(st, StatusCode::OK, "{v}");
    id
}

/// A live game that ends is added to the site database, with its result and speed; one that
/// is aborted is not.
#[tokio::test]
async fn an_ended_site_game_goes_into_the_site_database() {
    let dir = std::env::temp_dir().join(format!("xiangqi-explorer-site-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let ex = Arc::new(
        Explorer::open(&dir.join(xiangqi_explorer::FILE_NAME), Options::default()).unwrap(),
    );
    let store = Store::open(&dir).expect("store");
    let mut app = App::new(store);
    app.explorer = Some(ex.clone());
    tokio::spawn(xiangqi_server::api::explorer::index_ended(
        ex,
        app.hub.ended_games(),
    ));
    let r = router(Arc::new(app));
    // A blitz game (3+2): two moves, then Red resigns.
    let id = resigned_game(&r, 180, 2, &["h2e2", "h9g7"], Color::Red).await;
    // An aborted game adds nothing.
    let (_, c2) = post(&r, "/api/challenge/open", None, Value::Null).await;
    let (st, _) = post(
        &r,
        &format!("/api/board/game/{}/abort", c2["id"].as_str().unwrap()),
        Some(c2["tokenRed"].as_str().unwrap()),
        Value::Null,
    )
    .await;
    assert_eq!(st, StatusCode::OK);
    let mut v = Value::Null;
    for _ in 0..200 {
        v = get(&r, "/api/explorer/site?play=h2e2").await.1;
        if v["black"] == 1 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert_eq!(counts(&v), (0, 0, 1), "{v}");
    assert_eq!(v["moves"][0]["uci"], "h9g7");
    assert_eq!(v["topGames"][0]["source"], format!("site {id}"));
    let (_, v) = get(&r, "/api/explorer/site?play=h2e2&speeds=blitz").await;
    assert_eq!(counts(&v), (0, 0, 1));
    let (_, v) = get(&r, "/api/explorer/site?play=h2e2&speeds=rapid").await;
    assert_eq!(counts(&v), (0, 0, 0));
    let (_, v) = get(&r, "/api/explorer/site").await;
    assert_eq!(counts(&v), (0, 0, 1), "the aborted game is not there: {v}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A game stored as ended while the node died before the explorer added it (here: a run with
/// no explorer listening) is added when the node starts again (the explorer follows the
/// store's ended games from shortly before its mark), once: a third start adds nothing more.
#[tokio::test]
async fn a_game_ended_as_the_node_stopped_reaches_the_explorer_after_the_restart() {
    let dir = std::env::temp_dir().join(format!("xiangqi-explorer-restart-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let ex_path = dir.join(xiangqi_explorer::FILE_NAME);
    // The first run: the game ends, is stored, and the explorer never hears of it.
    {
        let app = Arc::new(App::new(Store::open(&dir).expect("store")));
        assert_eq!(app.hub.resume_all().await.unwrap(), 0);
        let r = router(app.clone());
        resigned_game(&r, 600, 5, &["h2e2", "h9g7", "h0g2"], Color::Black).await;
        // A beat after the end, as a node that ran on a little would leave.
        tokio::time::sleep(std::time::Duration::from_millis(700)).await;
    }
    let start = |added_again: u64| {
        let dir = dir.clone();
        let ex_path = ex_path.clone();
        async move {
            // (The previous run's listener lets the file go once its hub is gone.)
            let mut tries = 0;
            let ex = loop {
                match Explorer::open(&ex_path, Options::default()) {
                    Ok(ex) => break Arc::new(ex),
                    Err(e) if tries < 200 => {
                        tries += 1;
                        let _ = e;
                        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
                    }
                    Err(e) => panic!("{e}"),
                }
            };
            let mut app = App::new(Store::open(&dir).expect("store"));
            app.explorer = Some(ex.clone());
            tokio::spawn(xiangqi_server::api::explorer::index_ended(
                ex,
                app.hub.ended_games(),
            ));
            let app = Arc::new(app);
            app.hub.resume_all().await.unwrap();
            let ex = app.explorer.clone().unwrap();
            let mut told = std::collections::HashMap::new();
            let added = xiangqi_server::api::explorer::follow_once(&ex, &app.hub, &mut told)
                .await
                .unwrap();
            assert_eq!(
                (added.games, added.duplicates),
                (added_again, 1 - added_again)
            );
            // A second read right after reads nothing into the explorer.
            let again = xiangqi_server::api::explorer::follow_once(&ex, &app.hub, &mut told)
                .await
                .unwrap();
            assert_eq!((again.games, again.duplicates), (0, 0));
            router(app)
        }
    };
    let r = start(1).await;
    let mut v = Value::Null;
    for _ in 0..200 {
        v = get(&r, "/api/explorer/site?play=h2e2").await.1;
        if v["red"] == 1 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert_eq!(counts(&v), (1, 0, 0), "{v}");
    assert_eq!(v["moves"][0]["uci"], "h9g7");
    let (_, v) = get(&r, "/api/explorer/site?play=h2e2&speeds=rapid").await;
    assert_eq!(counts(&v), (1, 0, 0), "10+5 is rapid: {v}");
    drop(r);
    // Started again at once: the game is read again (within the overlap) and counted once.
    let r = start(0).await;
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let (_, v) = get(&r, "/api/explorer/site").await;
    assert_eq!(counts(&v), (1, 0, 0), "the game counted once: {v}");
    let _ = std::fs::remove_dir_all(&dir);
}
