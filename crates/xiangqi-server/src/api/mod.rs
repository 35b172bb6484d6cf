//! The HTTP layer: the routes, typed requests (`request`), the one error type (`error`), the
//! JSON answers (`game_json`) and the endpoints (`handlers`). The game operations themselves
//! are in `crate::games`; this layer only reads requests and writes answers.

pub mod error;
pub mod game_json;
pub mod handlers;
pub mod online;
pub mod request;

use std::sync::Arc;

use axum::body::Body;
use axum::extract::DefaultBodyLimit;
use axum::http::{header, HeaderValue, Request, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use tower_http::catch_panic::CatchPanicLayer;

pub use error::ApiError;

use crate::engine::analysis;
use crate::App;

/// The largest request body most endpoints take.
pub const BODY_LIMIT: usize = 64 * 1024;
/// The largest upload to `/api/import`.
pub const IMPORT_LIMIT: usize = 4 * 1024 * 1024;

const INDEX_HTML: &str = include_str!("../../web/index.html");
const APP_JS: &str = include_str!("../../web/app.js");
const BOARD_JS: &str = include_str!("../../web/board.js");
const ONLINE_JS: &str = include_str!("../../web/online.js");
const LOBBY_JS: &str = include_str!("../../web/lobby.js");
const SOUND_JS: &str = include_str!("../../web/sound.js");
const NOTATION_JS: &str = include_str!("../../web/notation.js");
const STYLE_CSS: &str = include_str!("../../web/style.css");
const FAVICON_SVG: &str = include_str!("../../web/favicon.svg");

/// The content type of the page's scripts (ES modules).
const JS: &str = "text/javascript; charset=utf-8";

/// The page and its files: path, body, content type.
const ASSETS: [(&str, &str, &str); 10] = [
    ("/", INDEX_HTML, "text/html; charset=utf-8"),
    // A live game's page (spectators; a seat's secret follows '#'): the same app.
    ("/live/{id}", INDEX_HTML, "text/html; charset=utf-8"),
    ("/app.js", APP_JS, JS),
    ("/board.js", BOARD_JS, JS),
    ("/online.js", ONLINE_JS, JS),
    ("/lobby.js", LOBBY_JS, JS),
    ("/sound.js", SOUND_JS, JS),
    ("/notation.js", NOTATION_JS, JS),
    ("/style.css", STYLE_CSS, "text/css; charset=utf-8"),
    ("/favicon.svg", FAVICON_SVG, "image/svg+xml"),
];

fn asset(body: &'static str, ctype: &'static str) -> Response {
    (
        [
            (header::CONTENT_TYPE, HeaderValue::from_static(ctype)),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-cache")),
        ],
        body,
    )
        .into_response()
}

/// Any error response of the API without a JSON body gets one (axum's own 404s and 405s), so clients always see `{"error": ...}`.
async fn json_errors(req: Request<Body>, next: Next) -> Response {
    let api = req.uri().path().starts_with("/api/");
    let res = next.run(req).await;
    let status = res.status();
    let is_json = res
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
    if !api || is_json || !(status.is_client_error() || status.is_server_error()) {
        return res;
    }
    let text = match axum::body::to_bytes(res.into_body(), 16 * 1024).await {
        Ok(b) => String::from_utf8_lossy(&b).trim().to_string(),
        Err(_) => String::new(),
    };
    let msg = match status {
        StatusCode::NOT_FOUND => "no such API endpoint".to_string(),
        StatusCode::METHOD_NOT_ALLOWED => "this method is not allowed on this endpoint".into(),
        StatusCode::PAYLOAD_TOO_LARGE => "the request body is too large".into(),
        _ if !text.is_empty() => text,
        _ => status.canonical_reason().unwrap_or("error").to_string(),
    };
    ApiError::new(status, msg).into_response()
}

fn panic_response(err: Box<dyn std::any::Any + Send + 'static>) -> Response {
    let detail = if let Some(s) = err.downcast_ref::<String>() {
        s.clone()
    } else if let Some(s) = err.downcast_ref::<&str>() {
        s.to_string()
    } else {
        "unknown".into()
    };
    eprintln!("xiangqi serve: a request handler panicked: {detail}");
    ApiError::new(
        StatusCode::INTERNAL_SERVER_ERROR,
        "internal error (the request was not carried out)",
    )
    .into_response()
}

/// The app's routes over `app`.
pub fn router(app: Arc<App>) -> Router {
    let api = Router::new()
        .route("/api/health", get(handlers::health))
        .route("/api/position", get(handlers::position))
        .route("/api/games", get(handlers::list).post(handlers::create))
        .route(
            "/api/games/{id}",
            get(handlers::get_game).delete(handlers::delete_game),
        )
        .route("/api/games/{id}/moves", post(handlers::post_move))
        .route(
            "/api/games/{id}/computer-move",
            post(handlers::computer_move),
        )
        .route("/api/games/{id}/takeback", post(handlers::takeback))
        .route("/api/games/{id}/promote", post(handlers::promote))
        .route("/api/games/{id}/resign", post(handlers::resign))
        .route("/api/games/{id}/draw", post(handlers::draw))
        .route("/api/games/{id}/pgn", get(handlers::export_pgn))
        .route("/api/games/{id}/fen", get(handlers::export_fen))
        .route("/api/analysis", get(analysis::ws_handler))
        .route("/api/challenge/open", post(online::open_challenge))
        .route("/api/board/game/stream/{id}", get(online::game_stream))
        .route("/api/board/game/{id}", get(online::game_full))
        .route("/api/board/game/{id}/move/{move}", post(online::board_move))
        .route("/api/board/game/{id}/{action}", post(online::board_action))
        .route(
            "/api/board/game/{id}/{offer}/{answer}",
            post(online::board_answer),
        )
        .route("/api/board/seek", post(online::seek))
        .route("/api/board/seek/{id}/accept", post(online::accept_seek))
        .route("/api/lobby/stream", get(online::lobby_stream))
        .layer(DefaultBodyLimit::max(BODY_LIMIT));
    let import = Router::new()
        .route("/api/import", post(handlers::import))
        .layer(DefaultBodyLimit::max(IMPORT_LIMIT));
    let mut pages = Router::new();
    for (path, body, ctype) in ASSETS {
        pages = pages.route(path, get(move || async move { asset(body, ctype) }));
    }
    pages
        .merge(api)
        .merge(import)
        .fallback(|| async { ApiError::new(StatusCode::NOT_FOUND, "not found") })
        .layer(middleware::from_fn(json_errors))
        .layer(CatchPanicLayer::custom(panic_response))
        .with_state(app)
}
