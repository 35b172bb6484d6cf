//! The xiangqi browser app: an HTTP server (axum on tokio) with a JSON API, a WebSocket for
//! live engine analysis, games kept in an SQLite file, and the web UI embedded in the binary.
//!
//! `xiangqi serve` (and `xiangqi` alone) starts it; its options are [`ServeArgs`].
//!
//! The layers, from the outside in; a module uses only the layers below its own, never one
//! above or beside it (`tests/layers.rs` reads the sources and fails on any such import):
//! - `app`: the shared state (`App`) the handlers get.
//! - `api`: the HTTP layer. `api/request.rs` reads every request (typed extractors, one
//!   mapping of malformed input to an error), `api/error.rs` is the one error type,
//!   `api/game_json.rs` makes the JSON of a game (and of every other answer),
//!   `api/handlers.rs` the endpoints.
//! - `online`: live games between people, seats, clocks, the lobby, the cluster.
//! - `games` and, beside it, `accounts`: the game operations, knowing nothing of HTTP
//!   (`games/moves.rs` is how a move is validated and stored); registration, log-in,
//!   sessions and personal API tokens (`api/accounts.rs` is their HTTP, `store/accounts.rs`
//!   their SQL).
//! - `lines` (a game's alternative lines <-> a record's move tree; moves in coordinates) and
//!   `engine` (the computer's moves from a pool of engines, the live analysis WebSocket).
//! - `store`: what is kept and the writes that change it (`store/sqlite.rs` in SQLite,
//!   `store/postgres.rs` in PostgreSQL with `--database`, migrations in `migrations/`).
//! - `rating`: Glicko-2 ratings, pure arithmetic (the store rates a game in the transaction
//!   that stores its end, so it sits below the store).
//!
//! Beside the layers, `client` is the one HTTP/1.1 client of the server's tests, the fault
//! tests of the workspace (`tests/nodes.rs`, `tests/postgres_fault.rs`) and `xiangqi-loadgen`;
//! the server itself does not use it.

#![forbid(unsafe_code)]

pub mod accounts;
pub mod api;
pub mod app;
pub mod client;
pub mod engine;
pub mod games;
pub mod lines;
pub mod online;
pub mod rating;
pub mod store;

use std::io::Write as _;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

pub use api::router;
pub use app::App;
pub use store::Store;

pub use api::{BODY_LIMIT, IMPORT_LIMIT};

impl Config {
    /// The opening explorer's index to serve, and to add the ended games to (this node's at
    /// once, every node's as it follows the store: `api::explorer::follow_site`):
    /// `--explorer DIR`'s (which must hold one); else, on a single node, `DATA/explorer`'s
    /// (made when missing; served without when it cannot be opened, say held by another
    /// server); else none (nodes sharing live games over Redis each take an `--explorer`).
    pub fn open_explorer(&self) -> Result<Option<xiangqi_explorer::Explorer>, String> {
        use xiangqi_explorer::{Explorer, Options, FILE_NAME};
        if let Some(dir) = &self.explorer {
            return Explorer::open_existing(&dir.join(FILE_NAME))
                .map(Some)
                .map_err(|e| format!("--explorer {}: {e}", dir.display()));
        }
        if self.redis.is_some() {
            return Ok(None);
        }
        let dir = self.data.join("explorer");
        let opened = std::fs::create_dir_all(&dir)
            .map_err(|e| e.to_string())
            .and_then(|()| {
                Explorer::open(&dir.join(FILE_NAME), Options::default()).map_err(|e| e.to_string())
            });
        match opened {
            Ok(ex) => Ok(Some(ex)),
            Err(e) => {
                eprintln!(
                    "xiangqi: serving without the opening explorer: {}: {e}",
                    dir.display()
                );
                Ok(None)
            }
        }
    }

    /// Where the games are kept: PostgreSQL with `--database`, else SQLite in `--data`.
    pub fn database(&self) -> store::Database {
        match &self.database {
            Some(url) => store::Database::Postgres(url.clone()),
            None => store::Database::Sqlite(self.data.clone()),
        }
    }
}

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
    /// Redis, to share live games with other nodes (`online::cluster`).
    pub redis: Option<String>,
    /// `--database postgres://...`: PostgreSQL instead of SQLite in `data`.
    pub database: Option<String>,
    /// Reached over https only: session cookies get `Secure` (they do anyway on a request
    /// forwarded with `X-Forwarded-Proto: https`).
    pub https: bool,
    /// `--explorer DIR`: the opening explorer's folder (else `data/explorer` if it has one).
    pub explorer: Option<PathBuf>,
    /// `--book FILE`: the engine's opening book for the play levels (`xiangqi explorer book`).
    pub book: Option<PathBuf>,
    /// `--no-book`: the play levels use no book (else, without `--book`, the named openings').
    pub no_book: bool,
    /// `--tb DIRS`: endgame tablebase folders (`xiangqi tb generate`), `:`-separated.
    pub tb: Option<String>,
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

/// The options of `xiangqi serve` (and of `xiangqi` alone), as clap reads them. A new
/// server option is a field here (with its doc comment as its help) and its use in
/// [`ServeArgs::config`].
#[derive(clap::Args, Clone, Debug, Default, PartialEq, Eq)]
pub struct ServeArgs {
    /// Port to listen on; when it is taken, the next free one of the following 19 (0: the
    /// system chooses) [default: 8080]
    #[arg(long, value_name = "N", value_parser = parse_port)]
    pub port: Option<u16>,
    /// Address to listen on [default: 127.0.0.1]
    #[arg(long, value_name = "ADDR")]
    pub host: Option<String>,
    /// Where games are kept (a SQLite file in it) [default: $XDG_DATA_HOME/xiangqi, else
    /// ~/.local/share/xiangqi]
    #[arg(long, value_name = "DIR")]
    pub data: Option<PathBuf>,
    /// Stop with a message when the port is taken, instead of trying the next ones
    #[arg(long)]
    pub no_fallback: bool,
    /// No per-client rate limits on the online endpoints and log-ins (for benchmarks and
    /// fuzzing)
    #[arg(long)]
    pub no_rate_limits: bool,
    /// The server is reached over https (behind a proxy): session cookies are Secure
    #[arg(long)]
    pub https: bool,
    /// Share live games with the other nodes on this Redis (redis://HOST:PORT); the nodes
    /// must share one database
    #[arg(long, value_name = "URL", value_parser = parse_redis_url)]
    pub redis: Option<String>,
    /// Keep games in this PostgreSQL database (postgres://USER@HOST:PORT/DB) instead of SQLite
    /// in --data; its tables are made and migrated at start (docs/DATABASE.md)
    #[arg(long, value_name = "URL", value_parser = parse_database_url)]
    pub database: Option<String>,
    /// Serve the opening explorer built in DIR (`xiangqi explorer build -o DIR`) at
    /// /api/explorer, and add to it the games that end here or on any node sharing the store
    /// [default: DATA/explorer, made when missing; none with --redis]
    #[arg(long, value_name = "DIR")]
    pub explorer: Option<PathBuf>,
    /// The computer plays its opening moves from this book (`xiangqi explorer book`) at every
    /// level; analysis and reviews never use it [default: the named openings' lines, which
    /// ship with the program]
    #[arg(long, value_name = "FILE")]
    pub book: Option<PathBuf>,
    /// The computer plays no book moves (not even the named openings')
    #[arg(long, conflicts_with = "book")]
    pub no_book: bool,
    /// Serve the endgame tablebases in DIR (`xiangqi tb generate -o DIR`; several folders
    /// separated by `:`, `;` on Windows) at /api/tablebase and in the analysis panel; the
    /// engine's full-strength searches (analysis, reviews, level 20) probe them
    #[arg(long, value_name = "DIR")]
    pub tb: Option<String>,
}

/// A PostgreSQL URL, or the message naming what is wrong.
fn parse_database_url(v: &str) -> Result<String, String> {
    store::parse_url(v).map(|_| v.to_string())
}

/// A Redis URL (`redis://` or `rediss://`), or the message naming what is wrong.
fn parse_redis_url(v: &str) -> Result<String, String> {
    if v.starts_with("redis://") || v.starts_with("rediss://") {
        Ok(v.to_string())
    } else {
        Err(format!("'{v}' is not a Redis URL (redis://HOST:PORT)"))
    }
}

/// A port number, or the message naming what is wrong.
fn parse_port(v: &str) -> Result<u16, String> {
    v.parse()
        .map_err(|_| format!("'{v}' is not a port number (0-65535)"))
}

impl ServeArgs {
    /// The server settings these options ask for.
    pub fn config(self) -> Config {
        let port = self.port.unwrap_or(8080);
        Config {
            host: self.host.unwrap_or_else(|| "127.0.0.1".into()),
            port,
            data: self.data.unwrap_or_else(default_data_dir),
            fallback: !self.no_fallback && port != 0,
            rate_limits: !self.no_rate_limits,
            https: self.https,
            redis: self.redis,
            database: self.database,
            explorer: self.explorer,
            book: self.book,
            no_book: self.no_book,
            tb: self.tb,
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
        // (Before listening: a bad --explorer stops the start, with nothing served.)
        let explorer = c.open_explorer()?;
        let book = match &c.book {
            Some(p) => Some(Arc::new(
                xiangqi_engine::Book::load(p).map_err(|e| format!("--book: {e}"))?,
            )),
            None if c.no_book => None,
            // The book that ships: the named openings' lines.
            None => Some(Arc::new(xiangqi_explorer::book::openings_book())),
        };
        let tablebase = match &c.tb {
            Some(dirs) => Some(Arc::new(
                xiangqi_tb::Tablebase::open_paths(dirs).map_err(|e| format!("--tb: {e}"))?,
            )),
            None => None,
        };
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
        if let Some(ex) = &explorer {
            let (games, _) = ex.counts().map_err(|e| e.to_string())?;
            let _ = writeln!(out, "xiangqi: the opening explorer holds {games} games");
        }
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
        if let Some(b) = book {
            let _ = writeln!(
                std::io::stdout(),
                "xiangqi: the computer's opening book ({}) holds {} moves",
                c.book.as_ref().map_or_else(
                    || "the named openings' lines; --no-book for none".to_owned(),
                    |p| p.display().to_string()
                ),
                b.len()
            );
            app.engines.set_book(Some(b));
        }
        if let Some(ex) = explorer {
            let ex = Arc::new(ex);
            app.explorer = Some(ex.clone());
            // Every game this node ends goes into the explorer's site database (told from now
            // on, before any game is resumed).
            tokio::spawn(api::explorer::index_ended(ex, app.hub.ended_games()));
        }
        if let Some(tb) = tablebase {
            let _ = writeln!(
                std::io::stdout(),
                "xiangqi: the tablebases hold {} sets",
                tb.sets().len()
            );
            app.engines.set_tablebase(Some(tb.clone()));
            app.tablebase = Some(tb);
        }
        app.accounts.set_limits(c.rate_limits);
        app.hub.set_bot_limits(c.rate_limits);
        let app = Arc::new(app);
        let resumed = app.hub.resume_all().await.map_err(|e| e.to_string())?;
        if resumed > 0 {
            println!("xiangqi: {resumed} live games resumed");
        }
        // The explorer follows the store's ended games too: every node's (with several
        // nodes), and any that ended as this node last stopped before reaching it.
        if let Some(ex) = app.explorer.clone() {
            tokio::spawn(api::explorer::follow_site(ex, app.hub.clone()));
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

/// `xiangqi serve` with these options: runs the server until Ctrl-C.
pub fn cli(args: ServeArgs) -> Result<(), String> {
    serve(args.config())
}
