//! The PostgreSQL store (`xiangqi serve --database postgres://USER@HOST:PORT/DB`), through
//! tokio-postgres with a deadpool pool.
//!
//! Every write is one transaction on a pooled connection, answered only after its `COMMIT`
//! returned: a confirmed move is in the database. PostgreSQL groups concurrent commits
//! itself, so there is no writer queue as in the SQLite store. Reads of a game and its moves
//! run in one read-only `REPEATABLE READ` transaction, so the row and the moves agree.
//!
//! When the database cannot be reached (stopped, restarting, the network down) a read or
//! write fails at once with `StoreError::Unavailable` (the API answers `503`); the pool
//! drops the broken connections and makes new ones when asked again, so the service comes
//! back by itself when the database does.

mod accounts;
mod chat;

use std::str::FromStr;
use std::time::Duration;

use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod, Runtime, Transaction};
use tokio_postgres::error::SqlState;
use tokio_postgres::{IsolationLevel, NoTls, Row};
use xiangqi::Color;

use super::live::{parse_times, times_text, LiveRow, LiveWrite};
use super::migrations::MIGRATIONS;
use super::sql::{self, Sql};
use super::{Declared, GameRow, Mode, Note, StoreError, StoredGame, StoredReview, Verdict, Write};

/// Connections kept open at most.
const POOL_SIZE: usize = 16;
/// How long a request waits for a connection (making one included) before it is refused.
const WAIT: Duration = Duration::from_secs(5);

/// The pool of connections to one database.
#[derive(Clone)]
pub struct PgStore {
    pool: Pool,
    /// The database as shown to people (the URL without its password).
    pub place: String,
}

/// `postgres://USER@HOST:PORT/DB` as shown in messages: never the password.
fn shown(cfg: &tokio_postgres::Config) -> String {
    use tokio_postgres::config::Host;
    let user = cfg.get_user().unwrap_or("");
    let host = match cfg.get_hosts().first() {
        Some(Host::Tcp(h)) => h.clone(),
        #[cfg(unix)]
        Some(Host::Unix(p)) => p.display().to_string(),
        None => "localhost".into(),
    };
    let port = cfg.get_ports().first().copied().unwrap_or(5432);
    let db = cfg.get_dbname().unwrap_or(user);
    format!("postgres://{user}@{host}:{port}/{db}")
}

/// Parses a `postgres://` URL (or a `key=value` connection string), with a message naming
/// what is wrong.
pub fn parse_url(url: &str) -> Result<tokio_postgres::Config, String> {
    if !(url.starts_with("postgres://") || url.starts_with("postgresql://")) {
        return Err(format!(
            "'{url}' is not a PostgreSQL URL (postgres://USER@HOST:PORT/DB)"
        ));
    }
    let cfg = tokio_postgres::Config::from_str(url)
        .map_err(|e| format!("'{url}' is not a valid PostgreSQL URL: {e}"))?;
    if cfg.get_user().is_none() {
        return Err(format!(
            "'{url}' names no user (postgres://USER@HOST:PORT/DB)"
        ));
    }
    Ok(cfg)
}

/// Whether an error means the database is out of reach (rather than refusing this request):
/// no connection, a connection closed under us, the server shutting down or not yet
/// accepting connections.
fn unreachable(e: &tokio_postgres::Error) -> bool {
    match e.code() {
        None => e.is_closed() || e.as_db_error().is_none(),
        Some(c) => {
            let code = c.code();
            // 08: connection exception; 57P: operator intervention (shutdown, crash
            // recovery, cannot connect now); 53: insufficient resources.
            code.starts_with("08") || code.starts_with("57P") || code.starts_with("53")
        }
    }
}

/// An error with its causes: tokio-postgres's own text is only "db error" or "error connecting
/// to server"; what the server said, or why the connection failed, is in its source.
fn describe(e: &tokio_postgres::Error) -> String {
    use std::error::Error as _;
    let mut s = e.to_string();
    let mut src = e.source();
    while let Some(x) = src {
        s.push_str(": ");
        s.push_str(&x.to_string());
        src = x.source();
    }
    s
}

fn pg_error(e: tokio_postgres::Error) -> StoreError {
    if unreachable(&e) {
        StoreError::Unavailable(describe(&e))
    } else if e.code() == Some(&SqlState::UNIQUE_VIOLATION) {
        StoreError::Taken(describe(&e))
    } else if e.code() == Some(&SqlState::T_R_SERIALIZATION_FAILURE) {
        StoreError::Unavailable(format!("a concurrent change: {}", describe(&e)))
    } else {
        StoreError::Write(describe(&e))
    }
}

fn read_error(e: tokio_postgres::Error) -> StoreError {
    match pg_error(e) {
        StoreError::Write(e) => StoreError::Read(e),
        e => e,
    }
}

fn pool_error(e: deadpool_postgres::PoolError) -> StoreError {
    match e {
        deadpool_postgres::PoolError::Backend(e) => pg_error(e),
        e => StoreError::Unavailable(format!("no database connection: {e}")),
    }
}

impl PgStore {
    /// Connects to the database at `url` and brings its tables up to date (the migrations in
    /// `migrations/postgres`, applied once each, in order, under an advisory lock so nodes
    /// starting together do not race).
    pub async fn connect(url: &str) -> Result<PgStore, StoreError> {
        let mut cfg = parse_url(url).map_err(StoreError::BadUrl)?;
        let place = shown(&cfg);
        if cfg.get_connect_timeout().is_none() {
            cfg.connect_timeout(WAIT);
        }
        if cfg.get_application_name().is_none() {
            cfg.application_name("xiangqi");
        }
        let mgr = Manager::from_config(
            cfg,
            NoTls,
            ManagerConfig {
                recycling_method: RecyclingMethod::Fast,
            },
        );
        let pool = Pool::builder(mgr)
            .max_size(POOL_SIZE)
            .runtime(Runtime::Tokio1)
            .wait_timeout(Some(WAIT))
            .create_timeout(Some(WAIT))
            .recycle_timeout(Some(WAIT))
            .build()
            .map_err(|e| StoreError::Connect {
                place: place.clone(),
                error: e.to_string(),
            })?;
        let store = PgStore { pool, place };
        store.migrate().await?;
        Ok(store)
    }

    async fn migrate(&self) -> Result<(), StoreError> {
        let failed = |e: tokio_postgres::Error| StoreError::Connect {
            place: self.place.clone(),
            error: describe(&e),
        };
        let mut c = self.pool.get().await.map_err(|e| StoreError::Connect {
            place: self.place.clone(),
            error: match e {
                deadpool_postgres::PoolError::Backend(e) => describe(&e),
                e => e.to_string(),
            },
        })?;
        let tx = c.transaction().await.map_err(failed)?;
        // Any constant of ours: one migrating node at a time.
        tx.execute("SELECT pg_advisory_xact_lock(7243591)", &[])
            .await
            .map_err(failed)?;
        tx.batch_execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations (
                 version BIGINT PRIMARY KEY,
                 name TEXT NOT NULL,
                 applied BIGINT NOT NULL
             )",
        )
        .await
        .map_err(failed)?;
        let have: i64 = tx
            .query_one(
                "SELECT COALESCE(MAX(version), 0) FROM schema_migrations",
                &[],
            )
            .await
            .map_err(failed)?
            .get(0);
        let known = MIGRATIONS.last().map_or(0, |m| m.version);
        if have > known {
            return Err(StoreError::TooNew {
                place: self.place.clone(),
                found: have,
                known,
            });
        }
        for m in MIGRATIONS.iter().filter(|m| m.version > have) {
            tx.batch_execute(m.postgres)
                .await
                .map_err(|e| StoreError::Migrate {
                    place: self.place.clone(),
                    version: m.version,
                    error: describe(&e),
                })?;
            tx.execute(
                "INSERT INTO schema_migrations (version, name, applied) VALUES ($1, $2, $3)",
                &[&m.version, &m.name, &crate::store::now()],
            )
            .await
            .map_err(failed)?;
        }
        tx.commit().await.map_err(failed)?;
        Ok(())
    }

    /// Applies one write in its own transaction; answers once it is committed.
    pub async fn write(&self, w: Write) -> Result<i64, StoreError> {
        let mut c = self.pool.get().await.map_err(pool_error)?;
        let tx = c.transaction().await.map_err(pg_error)?;
        let v = apply(&tx, &w).await?;
        tx.commit().await.map_err(pg_error)?;
        Ok(v)
    }

    /// The schema version of the database (the last migration applied).
    pub async fn schema_version(&self) -> Result<i64, StoreError> {
        let c = self.pool.get().await.map_err(pool_error)?;
        let r = c
            .query_one("SELECT MAX(version) FROM schema_migrations", &[])
            .await
            .map_err(read_error)?;
        Ok(r.get::<_, Option<i64>>(0).unwrap_or(0))
    }

    /// The last heartbeat of `node`, if it ever beat.
    pub async fn last_beat(&self, node: &str) -> Result<Option<i64>, StoreError> {
        let c = self.pool.get().await.map_err(pool_error)?;
        let r = c
            .query_opt("SELECT at FROM node_beats WHERE node = $1", &[&node])
            .await
            .map_err(read_error)?;
        Ok(r.map(|r| r.get::<_, i64>(0)))
    }

    /// A game's stored review, or `None`.
    pub async fn load_review(&self, id: i64) -> Result<Option<StoredReview>, StoreError> {
        let c = self.pool.get().await.map_err(pool_error)?;
        let st = c
            .prepare_cached(
                "SELECT game_id, moves, depth, created, data FROM reviews WHERE game_id = $1",
            )
            .await
            .map_err(read_error)?;
        let Some(r) = c.query_opt(&st, &[&id]).await.map_err(read_error)? else {
            return Ok(None);
        };
        Ok(Some(StoredReview {
            game_id: get(&r, 0)?,
            moves: get(&r, 1)?,
            depth: get(&r, 2)?,
            created: get(&r, 3)?,
            data: get(&r, 4)?,
        }))
    }

    /// A game's row, moves and alternative lines, or `None`.
    pub async fn load(&self, id: i64) -> Result<Option<StoredGame>, StoreError> {
        let mut c = self.pool.get().await.map_err(pool_error)?;
        let tx = snapshot(&mut c).await?;
        let st = tx
            .prepare_cached(&format!("SELECT {COLUMNS} FROM games WHERE id = $1"))
            .await
            .map_err(read_error)?;
        let Some(r) = tx.query_opt(&st, &[&id]).await.map_err(read_error)? else {
            return Ok(None);
        };
        let row = row_of(&r)?;
        let moves = texts(
            &tx,
            "SELECT uci FROM moves WHERE game_id = $1 ORDER BY ply",
            &id,
        )
        .await?;
        let lines = texts(
            &tx,
            "SELECT moves FROM lines WHERE game_id = $1 ORDER BY seq",
            &id,
        )
        .await?;
        let st = tx
            .prepare_cached(
                "SELECT path, comment, nags FROM notes WHERE game_id = $1 ORDER BY path",
            )
            .await
            .map_err(read_error)?;
        let notes = tx
            .query(&st, &[&id])
            .await
            .map_err(read_error)?
            .iter()
            .map(|r| {
                let nags: String = get(r, 2)?;
                Ok((
                    get::<String>(r, 0)?,
                    Note {
                        text: get(r, 1)?,
                        // A value that is not a NAG number is left out, as in SQLite.
                        nags: nags
                            .split_whitespace()
                            .filter_map(|n| n.parse().ok())
                            .collect(),
                    },
                ))
            })
            .collect::<Result<Vec<_>, StoreError>>()?;
        tx.commit().await.map_err(read_error)?;
        Ok(Some((row, moves, lines, notes)))
    }

    /// Games, most recently updated first, and how many there are.
    pub async fn list(&self, limit: i64, offset: i64) -> Result<(Vec<GameRow>, i64), StoreError> {
        let mut c = self.pool.get().await.map_err(pool_error)?;
        let tx = snapshot(&mut c).await?;
        let total: i64 = tx
            .query_one("SELECT count(*) FROM games", &[])
            .await
            .map_err(read_error)?
            .get(0);
        let st = tx
            .prepare_cached(&format!(
                "SELECT {COLUMNS} FROM games ORDER BY updated DESC, id DESC LIMIT $1 OFFSET $2"
            ))
            .await
            .map_err(read_error)?;
        let rows = tx
            .query(&st, &[&limit.max(0), &offset.max(0)])
            .await
            .map_err(read_error)?
            .iter()
            .map(row_of)
            .collect::<Result<Vec<_>, _>>()?;
        tx.commit().await.map_err(read_error)?;
        Ok((rows, total))
    }

    /// A live game's row and moves, or `None`.
    pub async fn load_live(&self, id: &str) -> Result<Option<(LiveRow, Vec<String>)>, StoreError> {
        let mut c = self.pool.get().await.map_err(pool_error)?;
        let tx = snapshot(&mut c).await?;
        let st = tx
            .prepare_cached(&format!(
                "SELECT {LIVE_COLUMNS} FROM live_games WHERE id = $1"
            ))
            .await
            .map_err(read_error)?;
        let Some(r) = tx.query_opt(&st, &[&id]).await.map_err(read_error)? else {
            return Ok(None);
        };
        let row = live_row_of(&r)?;
        let moves = texts(
            &tx,
            "SELECT uci FROM live_moves WHERE game_id = $1 ORDER BY ply",
            &id,
        )
        .await?;
        tx.commit().await.map_err(read_error)?;
        Ok(Some((row, moves)))
    }

    /// The live games that ended (not aborted) after `(updated, id)` in that order, at most
    /// `limit`, with their moves.
    pub async fn ended_live_after(
        &self,
        updated: i64,
        id: &str,
        limit: u32,
    ) -> Result<Vec<(LiveRow, Vec<String>)>, StoreError> {
        let cond = format!(
            "{} LIMIT $3",
            super::live::ENDED_AFTER
                .replace("?1", "$1")
                .replace("?2", "$2")
        );
        self.live_games_where(&cond, &[&updated, &id, &i64::from(limit)])
            .await
    }

    /// Every live game that has not ended, with its moves.
    pub async fn unfinished_live(&self) -> Result<Vec<(LiveRow, Vec<String>)>, StoreError> {
        self.live_games_where("status IN ('created', 'started')", &[])
            .await
    }

    /// The live games that `cond` (what follows WHERE, with `params`) selects, each with its
    /// moves, read in one snapshot.
    async fn live_games_where(
        &self,
        cond: &str,
        params: &[&(dyn tokio_postgres::types::ToSql + Sync)],
    ) -> Result<Vec<(LiveRow, Vec<String>)>, StoreError> {
        let mut c = self.pool.get().await.map_err(pool_error)?;
        let tx = snapshot(&mut c).await?;
        let rows = tx
            .query(
                &format!("SELECT {LIVE_COLUMNS} FROM live_games WHERE {cond}"),
                params,
            )
            .await
            .map_err(read_error)?
            .iter()
            .map(live_row_of)
            .collect::<Result<Vec<_>, _>>()?;
        let mut out = Vec::with_capacity(rows.len());
        for row in rows {
            let moves = texts(
                &tx,
                "SELECT uci FROM live_moves WHERE game_id = $1 ORDER BY ply",
                &row.id.as_str(),
            )
            .await?;
            out.push((row, moves));
        }
        tx.commit().await.map_err(read_error)?;
        Ok(out)
    }
}

/// A read-only transaction that sees one state of the database.
async fn snapshot(c: &mut deadpool_postgres::Object) -> Result<Transaction<'_>, StoreError> {
    c.build_transaction()
        .isolation_level(IsolationLevel::RepeatableRead)
        .read_only(true)
        .start()
        .await
        .map_err(read_error)
}

async fn texts(
    tx: &Transaction<'_>,
    sql: &str,
    key: &(dyn tokio_postgres::types::ToSql + Sync),
) -> Result<Vec<String>, StoreError> {
    let st = tx.prepare_cached(sql).await.map_err(read_error)?;
    tx.query(&st, &[key])
        .await
        .map_err(read_error)?
        .iter()
        .map(|r| r.try_get::<_, String>(0).map_err(read_error))
        .collect()
}

const COLUMNS: &str = "id, created, updated, mode, human, level, start_fen, tags, declared, \
                       declared_ply, result, reason, plies";

const LIVE_COLUMNS: &str = "id, created, updated, start_fen, clock_initial, clock_increment, \
                            red_name, black_name, red_key, black_key, clock, declared, status, \
                            winner, rematch, days, deadline";

fn get<'a, T: tokio_postgres::types::FromSql<'a>>(r: &'a Row, i: usize) -> Result<T, StoreError> {
    r.try_get(i)
        .map_err(|e| StoreError::Corrupt(format!("column {i}: {e}")))
}

fn parse_side(s: &str) -> Option<Option<Color>> {
    match s {
        "" => Some(None),
        "red" => Some(Some(Color::Red)),
        "black" => Some(Some(Color::Black)),
        _ => None,
    }
}

fn row_of(r: &Row) -> Result<GameRow, StoreError> {
    let mode: String = get(r, 3)?;
    let human: String = get(r, 4)?;
    Ok(GameRow {
        id: get(r, 0)?,
        created: get(r, 1)?,
        updated: get(r, 2)?,
        mode: Mode::parse(&mode).ok_or_else(|| StoreError::Corrupt(format!("mode '{mode}'")))?,
        human: parse_side(&human)
            .ok_or_else(|| StoreError::Corrupt(format!("human side '{human}'")))?,
        level: get(r, 5)?,
        start_fen: get(r, 6)?,
        tags: get(r, 7)?,
        // An unknown declaration or result is none, as in the SQLite store.
        declared: Declared::parse(&get::<String>(r, 8)?),
        declared_ply: get(r, 9)?,
        result: Verdict::parse(&get::<String>(r, 10)?),
        reason: get(r, 11)?,
        plies: get(r, 12)?,
    })
}

fn live_row_of(r: &Row) -> Result<LiveRow, StoreError> {
    let initial: Option<i64> = get(r, 4)?;
    let increment: Option<i64> = get(r, 5)?;
    let clock = match (initial, increment) {
        (Some(a), Some(b)) if a >= 0 && b >= 0 => Some((a as u64, b as u64)),
        (None, None) => None,
        _ => return Err(StoreError::Corrupt("a live game's time control".into())),
    };
    let times: String = get(r, 10)?;
    Ok(LiveRow {
        id: get(r, 0)?,
        created: get(r, 1)?,
        updated: get(r, 2)?,
        start_fen: get(r, 3)?,
        clock,
        names: [get(r, 6)?, get(r, 7)?],
        keys: [get(r, 8)?, get(r, 9)?],
        times: parse_times(&times)
            .ok_or_else(|| StoreError::Corrupt(format!("a live game's clocks '{times}'")))?,
        declared: super::live::LiveEnd::parse(&get::<String>(r, 11)?).map_err(|e| {
            StoreError::Corrupt(format!(
                "live game {}: {e}",
                get::<String>(r, 0).unwrap_or_default()
            ))
        })?,
        status: get(r, 12)?,
        winner: get(r, 13)?,
        rematch: get(r, 14)?,
        days: get::<Option<i32>>(r, 15)?.map(|d| d.max(0) as u32),
        deadline: get(r, 16)?,
    })
}

fn color_text(c: Option<Color>) -> &'static str {
    c.map_or("", Color::name)
}

fn declared_text(d: Option<Declared>) -> &'static str {
    d.map_or("", Declared::as_str)
}

fn verdict_text(v: Option<Verdict>) -> &'static str {
    v.map_or("", Verdict::as_str)
}

fn no_such(what: &str, id: &(dyn std::fmt::Display + Sync)) -> StoreError {
    StoreError::Write(format!("no {what} {id}"))
}

/// Runs a statement, answering the number of rows it changed.
async fn exec(
    tx: &Transaction<'_>,
    statement: Sql,
    params: &[&(dyn tokio_postgres::types::ToSql + Sync)],
) -> Result<u64, StoreError> {
    let st = tx
        .prepare_cached(statement.postgres)
        .await
        .map_err(pg_error)?;
    tx.execute(&st, params).await.map_err(pg_error)
}

/// Stores the move at `ply`. The same move again is no change (a write repeated after its
/// commit's answer was lost with the connection); another move there is refused.
async fn insert_move(
    tx: &Transaction<'_>,
    put: Sql,
    id: &(dyn tokio_postgres::types::ToSql + Sync),
    shown_id: &(dyn std::fmt::Display + Sync),
    ply: i64,
    uci: &str,
) -> Result<(), StoreError> {
    let n = exec(tx, put, &[id, &ply, &uci]).await?;
    if n == 0 {
        return Err(StoreError::Write(format!(
            "the game {shown_id} already has another move at ply {ply}"
        )));
    }
    Ok(())
}

async fn insert_moves(
    tx: &Transaction<'_>,
    insert: Sql,
    id: &(dyn tokio_postgres::types::ToSql + Sync),
    moves: &[String],
) -> Result<(), StoreError> {
    let st = tx.prepare_cached(insert.postgres).await.map_err(pg_error)?;
    for (i, m) in moves.iter().enumerate() {
        tx.execute(&st, &[id, &(i as i64), m])
            .await
            .map_err(pg_error)?;
    }
    Ok(())
}

/// Stores the note at `path` of game `id`, or deletes it when it is empty.
async fn set_note(
    tx: &Transaction<'_>,
    id: i64,
    path: &str,
    note: &Note,
) -> Result<(), StoreError> {
    if note.is_empty() {
        exec(tx, sql::NOTE_DELETE, &[&id, &path]).await?;
    } else {
        let nags: Vec<String> = note.nags.iter().map(|n| n.to_string()).collect();
        exec(
            tx,
            sql::NOTE_PUT,
            &[&id, &path, &note.text, &nags.join(" ")],
        )
        .await?;
    }
    Ok(())
}

async fn insert_lines(tx: &Transaction<'_>, id: i64, lines: &[String]) -> Result<(), StoreError> {
    let st = tx
        .prepare_cached(sql::LINE_INSERT.postgres)
        .await
        .map_err(pg_error)?;
    for (i, l) in lines.iter().enumerate() {
        tx.execute(&st, &[&id, &(i as i64), l])
            .await
            .map_err(pg_error)?;
    }
    Ok(())
}

async fn apply(tx: &Transaction<'_>, w: &Write) -> Result<i64, StoreError> {
    match w {
        Write::Create {
            row,
            moves,
            lines,
            notes,
        } => {
            let st = tx
                .prepare_cached(sql::GAME_INSERT.postgres)
                .await
                .map_err(pg_error)?;
            let id: i64 = tx
                .query_one(
                    &st,
                    &[
                        &row.created,
                        &row.updated,
                        &row.mode.as_str(),
                        &color_text(row.human),
                        &row.level,
                        &row.start_fen,
                        &row.tags,
                        &declared_text(row.declared),
                        &row.declared_ply,
                        &verdict_text(row.result),
                        &row.reason,
                        &(moves.len() as i64),
                    ],
                )
                .await
                .map_err(pg_error)?
                .get(0);
            insert_moves(tx, sql::MOVE_INSERT, &id, moves).await?;
            insert_lines(tx, id, lines).await?;
            for (path, note) in notes {
                set_note(tx, id, path, note).await?;
            }
            Ok(id)
        }
        Write::SetNote {
            id,
            path,
            note,
            updated,
        } => {
            let n = exec(tx, sql::GAME_TOUCH, &[id, updated]).await?;
            if n == 0 {
                return Err(no_such("game", id));
            }
            set_note(tx, *id, path, note).await?;
            Ok(*id)
        }
        Write::SetLines { row, moves, lines } => {
            let n = exec(
                tx,
                sql::GAME_SET_LINES,
                &[
                    &row.id,
                    &row.updated,
                    &(moves.len() as i64),
                    &verdict_text(row.result),
                    &row.reason,
                    &declared_text(row.declared),
                    &row.declared_ply,
                ],
            )
            .await?;
            if n == 0 {
                return Err(no_such("game", &row.id));
            }
            exec(tx, sql::MOVES_DELETE, &[&row.id]).await?;
            insert_moves(tx, sql::MOVE_INSERT, &row.id, moves).await?;
            exec(tx, sql::LINES_DELETE, &[&row.id]).await?;
            insert_lines(tx, row.id, lines).await?;
            Ok(row.id)
        }
        Write::AddMove {
            id,
            ply,
            uci,
            updated,
            derived,
        } => {
            let n = exec(
                tx,
                sql::GAME_MOVED,
                &[
                    id,
                    updated,
                    &(ply + 1),
                    &verdict_text(derived.result),
                    &derived.reason,
                ],
            )
            .await?;
            if n == 0 {
                return Err(no_such("game", id));
            }
            insert_move(tx, sql::MOVE_PUT, id, id, *ply, uci).await?;
            Ok(*id)
        }
        Write::Truncate {
            id,
            ply,
            updated,
            derived,
        } => {
            exec(tx, sql::MOVES_DELETE_FROM, &[id, ply]).await?;
            exec(
                tx,
                sql::GAME_TRUNCATED,
                &[
                    id,
                    ply,
                    updated,
                    &verdict_text(derived.result),
                    &derived.reason,
                ],
            )
            .await?;
            Ok(*id)
        }
        Write::Declare {
            id,
            declared,
            ply,
            updated,
            derived,
        } => {
            exec(
                tx,
                sql::GAME_DECLARE,
                &[
                    id,
                    &declared_text(*declared),
                    ply,
                    updated,
                    &verdict_text(derived.result),
                    &derived.reason,
                ],
            )
            .await?;
            Ok(*id)
        }
        Write::Beat { node, at } => {
            exec(tx, sql::BEAT_PUT, &[node, at]).await?;
            Ok(0)
        }
        Write::SaveReview(r) => {
            exec(
                tx,
                sql::REVIEW_PUT,
                &[&r.game_id, &r.moves, &r.depth, &r.created, &r.data],
            )
            .await?;
            Ok(r.game_id)
        }
        Write::Delete { id } => {
            // The moves, lines, notes and review go with the row (ON DELETE CASCADE).
            exec(tx, sql::GAME_DELETE, &[id]).await?;
            Ok(*id)
        }
        Write::Live(w) => apply_live(tx, w).await.map(|_| 0),
        Write::Account(w) => accounts::apply(tx, w).await,
        Write::Chat(w) => chat::apply(tx, w).await,
        Write::Batch(ws) => {
            // All in the one transaction: they succeed or fail together.
            let mut last = 0;
            for w in ws {
                last = Box::pin(apply(tx, w)).await?;
            }
            Ok(last)
        }
    }
}

async fn update_live(
    tx: &Transaction<'_>,
    id: &str,
    ch: &super::live::LiveChange,
) -> Result<(), StoreError> {
    let n = exec(
        tx,
        sql::LIVE_UPDATE,
        &[
            &id,
            &ch.updated,
            &times_text(ch.times),
            &super::live::LiveEnd::text(ch.declared),
            &ch.status,
            &ch.winner,
            &ch.deadline,
        ],
    )
    .await?;
    if n == 0 {
        return Err(no_such("live game", &id));
    }
    Ok(())
}

async fn apply_live(tx: &Transaction<'_>, w: &LiveWrite) -> Result<(), StoreError> {
    match w {
        LiveWrite::Create { row, moves } => {
            exec(
                tx,
                sql::LIVE_INSERT,
                &[
                    &row.id,
                    &row.created,
                    &row.updated,
                    &row.start_fen,
                    &row.clock.map(|c| c.0 as i64),
                    &row.clock.map(|c| c.1 as i64),
                    &row.names[0],
                    &row.names[1],
                    &row.keys[0],
                    &row.keys[1],
                    &times_text(row.times),
                    &super::live::LiveEnd::text(row.declared),
                    &row.status,
                    &row.winner,
                    &row.rematch,
                    &row.days.map(|d| d as i32),
                    &row.deadline,
                ],
            )
            .await?;
            insert_moves(tx, sql::LIVE_MOVE_INSERT, &row.id, moves).await
        }
        LiveWrite::Move {
            id,
            ply,
            uci,
            change,
        } => {
            update_live(tx, id, change).await?;
            insert_move(tx, sql::LIVE_MOVE_PUT, id, id, *ply, uci).await
        }
        LiveWrite::Truncate { id, ply, change } => {
            exec(tx, sql::LIVE_MOVES_DELETE_FROM, &[id, ply]).await?;
            update_live(tx, id, change).await
        }
        LiveWrite::Update { id, change } => update_live(tx, id, change).await,
        LiveWrite::Rematch { id, rematch } => {
            exec(tx, sql::LIVE_REMATCH, &[id, rematch]).await?;
            Ok(())
        }
    }
}
