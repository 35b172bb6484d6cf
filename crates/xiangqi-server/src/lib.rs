//! The xiangqi browser app: an HTTP server (axum on tokio) with a JSON API, a WebSocket for
//! live engine analysis, games kept in an SQLite file, and the web UI embedded in the binary.
//!
//! `xiangqi serve [--port N] [--host ADDR] [--data DIR]` (and `xiangqi` alone) starts it.

#![forbid(unsafe_code)]

pub mod api;
pub mod engine;
pub mod state;
pub mod store;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use axum::body::Body;
use axum::extract::DefaultBodyLimit;
use axum::http::{header, HeaderValue, Request, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use serde_json::json;
use tower_http::catch_panic::CatchPanicLayer;

pub use state::App;
pub use store::Store;

/// The largest request body most endpoints take.
pub const BODY_LIMIT: usize = 64 * 1024;
/// The largest upload to `/api/import`.
pub const IMPORT_LIMIT: usize = 4 * 1024 * 1024;

pub const USAGE: &str = "xiangqi serve [--port N] [--host ADDR] [--data DIR]
  --port N     port to listen on (default 8080; the next free one if it is taken)
  --host ADDR  address to listen on (default 127.0.0.1)
  --data DIR   where games are kept (default $XDG_DATA_HOME/xiangqi or ~/.local/share/xiangqi)";

/// Server settings.
#[derive(Clone, Debug)]
pub struct Config {
    pub host: String,
    pub port: u16,
    pub data: PathBuf,
    /// Try the following ports when `port` is taken.
    pub fallback: bool,
}

/// The per-user data folder.
pub fn default_data_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("XDG_DATA_HOME").filter(|d| !d.is_empty()) {
        return PathBuf::from(d).join("xiangqi");
    }
    if let Some(h) = std::env::var_os("HOME").filter(|d| !d.is_empty()) {
        return PathBuf::from(h).join(".local/share/xiangqi");
    }
    PathBuf::from("xiangqi-data")
}

impl Config {
    /// Reads `--port`, `--host`, `--data` (and `--opt=value` forms).
    pub fn from_args(args: &[String]) -> Result<Config, String> {
        let mut c = Config {
            host: "127.0.0.1".into(),
            port: 8080,
            data: default_data_dir(),
            fallback: true,
        };
        let mut i = 0;
        while i < args.len() {
            let a = args[i].as_str();
            let (name, inline) = match a.split_once('=') {
                Some((n, v)) if n.starts_with("--") => (n, Some(v.to_string())),
                _ => (a, None),
            };
            let mut value = || -> Result<String, String> {
                if let Some(v) = inline.clone() {
                    return Ok(v);
                }
                i += 1;
                args.get(i)
                    .cloned()
                    .ok_or_else(|| format!("{name} needs a value"))
            };
            match name {
                "--port" => {
                    let v = value()?;
                    c.port = v
                        .parse()
                        .map_err(|_| format!("--port: '{v}' is not a port number (0-65535)"))?;
                    c.fallback = c.port != 0;
                }
                "--host" => c.host = value()?,
                "--data" => c.data = PathBuf::from(value()?),
                "--no-fallback" => c.fallback = false,
                "-h" | "--help" => return Err(USAGE.to_string()),
                other => return Err(format!("unknown option '{other}'\nusage: {USAGE}")),
            }
            i += 1;
        }
        Ok(c)
    }
}

const INDEX_HTML: &str = include_str!("../web/index.html");
const APP_JS: &str = include_str!("../web/app.js");
const STYLE_CSS: &str = include_str!("../web/style.css");
const FAVICON_SVG: &str = include_str!("../web/favicon.svg");

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

/// Any error response of the API without a JSON body gets one (axum's own rejections,
/// 404s, 405s, body-limit errors), so clients always see `{"error": ...}`.
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
    (status, axum::Json(json!({ "error": msg }))).into_response()
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
    (
        StatusCode::INTERNAL_SERVER_ERROR,
        axum::Json(json!({ "error": "internal error (the request was not carried out)" })),
    )
        .into_response()
}

/// The app's routes over `app`.
pub fn router(app: Arc<App>) -> Router {
    let api = Router::new()
        .route("/api/health", get(api::health))
        .route("/api/position", get(api::position))
        .route("/api/games", get(api::list).post(api::create))
        .route(
            "/api/games/{id}",
            get(api::get_game).delete(api::delete_game),
        )
        .route("/api/games/{id}/moves", post(api::post_move))
        .route("/api/games/{id}/computer-move", post(api::computer_move))
        .route("/api/games/{id}/takeback", post(api::takeback))
        .route("/api/games/{id}/promote", post(api::promote))
        .route("/api/games/{id}/resign", post(api::resign))
        .route("/api/games/{id}/draw", post(api::draw))
        .route("/api/games/{id}/pgn", get(api::export_pgn))
        .route("/api/games/{id}/fen", get(api::export_fen))
        .route("/api/analysis", get(engine::ws_handler))
        .layer(DefaultBodyLimit::max(BODY_LIMIT));
    let import = Router::new()
        .route("/api/import", post(api::import))
        .layer(DefaultBodyLimit::max(IMPORT_LIMIT));
    Router::new()
        .route(
            "/",
            get(|| async { asset(INDEX_HTML, "text/html; charset=utf-8") }),
        )
        .route(
            "/app.js",
            get(|| async { asset(APP_JS, "text/javascript; charset=utf-8") }),
        )
        .route(
            "/style.css",
            get(|| async { asset(STYLE_CSS, "text/css; charset=utf-8") }),
        )
        .route(
            "/favicon.svg",
            get(|| async { asset(FAVICON_SVG, "image/svg+xml") }),
        )
        .merge(api)
        .merge(import)
        .fallback(|| async {
            (
                StatusCode::NOT_FOUND,
                axum::Json(json!({ "error": "not found" })),
            )
        })
        .layer(middleware::from_fn(json_errors))
        .layer(CatchPanicLayer::custom(panic_response))
        .with_state(app)
}

/// Binds the listener: the configured port, else (with fallback) the next free ones.
async fn bind(c: &Config) -> Result<tokio::net::TcpListener, String> {
    let tries = if c.fallback { 20 } else { 1 };
    let mut last = String::new();
    for k in 0..tries {
        let port = c.port.saturating_add(k);
        match tokio::net::TcpListener::bind((c.host.as_str(), port)).await {
            Ok(l) => return Ok(l),
            Err(e) => last = format!("cannot listen on {}:{port}: {e}", c.host),
        }
    }
    Err(last)
}

/// Runs the server until Ctrl-C.
pub fn serve(c: Config) -> Result<(), String> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the runtime: {e}"))?;
    rt.block_on(async move {
        let store = Store::open(&c.data)?;
        let listener = bind(&c).await?;
        let addr: SocketAddr = listener.local_addr().map_err(|e| e.to_string())?;
        let shown = if addr.ip().is_unspecified() {
            format!("http://localhost:{}/", addr.port())
        } else if addr.is_ipv6() {
            format!("http://[{}]:{}/", addr.ip(), addr.port())
        } else {
            format!("http://{}:{}/", addr.ip(), addr.port())
        };
        println!("xiangqi: serving on {shown}");
        println!("xiangqi: games are kept in {}", store.path.display());
        let app = Arc::new(App::new(store));
        axum::serve(listener, router(app))
            .with_graceful_shutdown(async {
                let _ = tokio::signal::ctrl_c().await;
            })
            .await
            .map_err(|e| format!("server error: {e}"))
    })
}

/// `xiangqi serve ARGS`.
pub fn cli(args: &[String]) -> Result<(), String> {
    let c = Config::from_args(args)?;
    serve(c)
}
