//! The xiangqi browser app: an HTTP server (axum on tokio) with a JSON API, a WebSocket for
//! live engine analysis, games kept in an SQLite file (or PostgreSQL), and the web UI embedded
//! in the binary.
//!
//! `xiangqi serve [--port N] [--host ADDR] [--data DIR] [--database URL]` (and `xiangqi`
//! alone) starts it.
//!
//! The layers, from the outside in:
//! - `api`: the HTTP layer. `api/request.rs` reads every request (typed extractors, one
//!   mapping of malformed input to an error), `api/error.rs` is the one error type,
//!   `api/game_json.rs` makes the JSON of a game (and of every other answer),
//!   `api/handlers.rs` the endpoints.
//! - `games`: the game operations, knowing nothing of HTTP; `games/moves.rs` is how a move
//!   is validated and stored.
//! - `store`: what is kept of a game and the writes that change it; `store/sqlite.rs` keeps
//!   it in SQLite, `store/postgres.rs` in PostgreSQL (`--database`), with the migrations of
//!   `migrations/`.
//! - `accounts`: registration, log-in, sessions, personal API tokens and Glicko-2 ratings
//!   (`api/accounts.rs` is their HTTP, `store/accounts.rs` their SQL).
//! - `online`: live games between people, seats, clocks, the lobby.
//! - `lines`: a game's alternative lines <-> a record's move tree.
//! - `engine`: the computer's moves from a pool of engines, and the live analysis WebSocket.
//! - `app`: the shared state (`App`) the handlers get.

#![forbid(unsafe_code)]

pub mod accounts;
pub mod api;
pub mod app;
pub mod engine;
pub mod games;
pub mod lines;
pub mod online;
pub mod store;

use std::io::Write as _;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

pub use api::router;
pub use app::App;
pub use store::Store;

pub use api::{BODY_LIMIT, IMPORT_LIMIT};

pub const USAGE: &str =
    "xiangqi serve [--port N] [--host ADDR] [--data DIR] [--database URL] [--no-fallback] [--https] [--redis URL]
  --port N     port to listen on (default 8080; the next free one if it is taken)
  --host ADDR  address to listen on (default 127.0.0.1)
  --data DIR   where games are kept (default $XDG_DATA_HOME/xiangqi or ~/.local/share/xiangqi)
  --database postgres://USER@HOST:PORT/DB  keep games in PostgreSQL instead of SQLite in --data
  --no-fallback  fail if the port is taken instead of trying the next ones
  --no-rate-limits  no per-client limits on the online endpoints and log-ins (for benchmarks)
  --https      the server is reached over https (behind a proxy): session cookies are Secure
  --redis URL  share live games with the other nodes on this Redis (redis://HOST:PORT);
               the nodes must share one database";

/// Server settings.
#[derive(Clone, Debug)]
pub struct Config {
    pub host: String,
    pub port: u16,
    pub data: PathBuf,
    /// Try the following ports when `port` is taken.
    pub fallback: bool,
    /// Per-client limits on the online endpoints (`online::limits`) and on log-ins
    /// (`accounts`); off for benchmarks.
    pub rate_limits: bool,
    /// `--database postgres://...`: PostgreSQL instead of SQLite in `data`.
    pub database: Option<String>,
    /// Redis, to share live games with other nodes (`online::cluster`).
    pub redis: Option<String>,
    /// Reached over https only: session cookies get `Secure` (they do anyway on a request
    /// forwarded with `X-Forwarded-Proto: https`).
    pub https: bool,
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
            rate_limits: true,
            database: None,
            redis: None,
            https: false,
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
                "--database" => {
                    let v = value()?;
                    store::parse_url(&v).map_err(|e| format!("--database: {e}"))?;
                    c.database = Some(v);
                }
                "--no-fallback" => c.fallback = false,
                "--no-rate-limits" => c.rate_limits = false,
                "--redis" => {
                    let v = value()?;
                    if !(v.starts_with("redis://") || v.starts_with("rediss://")) {
                        return Err(format!(
                            "--redis: '{v}' is not a Redis URL (redis://HOST:PORT)"
                        ));
                    }
                    c.redis = Some(v);
                }
                "--https" => c.https = true,
                "-h" | "--help" => return Err(USAGE.to_string()),
                other => return Err(format!("unknown option '{other}'\nusage: {USAGE}")),
            }
            i += 1;
        }
        Ok(c)
    }

    /// Where the games are kept: PostgreSQL with `--database`, else SQLite in `--data`.
    pub fn database(&self) -> store::Database {
        match &self.database {
            Some(url) => store::Database::Postgres(url.clone()),
            None => store::Database::Sqlite(self.data.clone()),
        }
    }
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
        let store = Store::open_database(&c.database())
            .await
            .map_err(|e| e.to_string())?;
        let listener = bind(&c).await?;
        let addr: SocketAddr = listener.local_addr().map_err(|e| e.to_string())?;
        let shown = if addr.ip().is_unspecified() {
            format!("http://localhost:{}/", addr.port())
        } else if addr.is_ipv6() {
            format!("http://[{}]:{}/", addr.ip(), addr.port())
        } else {
            format!("http://{}:{}/", addr.ip(), addr.port())
        };
        // A closed stdout (`xiangqi serve | head -1`) must not stop the server.
        let mut out = std::io::stdout();
        let _ = writeln!(out, "xiangqi: serving on {shown}");
        let _ = writeln!(out, "xiangqi: games are kept in {}", store.place());
        let _ = out.flush();
        let mut app = match &c.redis {
            None => App::new(store),
            Some(url) => {
                let cluster = online::cluster::Cluster::connect(url).await?;
                println!("xiangqi: node {} shares live games on {url}", cluster.node);
                let hub = online::hub::Hub::clustered(store.clone(), cluster);
                App::with_hub(store, hub)
            }
        };
        app.https = c.https;
        app.accounts.set_limits(c.rate_limits);
        let app = Arc::new(app);
        let resumed = app.hub.resume_all().await.map_err(|e| e.to_string())?;
        if resumed > 0 {
            println!("xiangqi: {resumed} live games resumed");
        }
        let mut routes = router(app);
        if c.rate_limits {
            let limits = online::limits::RateLimits::new(online::limits::Limits::default());
            routes = routes.layer(axum::middleware::from_fn_with_state(
                limits,
                online::limits::limit,
            ));
        }
        axum::serve(
            listener,
            routes.into_make_service_with_connect_info::<SocketAddr>(),
        )
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
