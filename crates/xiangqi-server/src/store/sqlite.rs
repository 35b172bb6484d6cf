//! The SQLite store: one file, `games.sqlite3`, in the data folder.
//!
//! Writes go through one writer thread that commits in groups: it takes every write waiting
//! in its queue, applies them in one transaction (each in its own savepoint, so one failing
//! write does not undo the others), commits, and only then answers each caller. With WAL and
//! `synchronous=FULL` a commit is on disk when it returns, so a confirmed move survives a
//! crash or a power cut; concurrent requests share one fsync. Reads use their own connection
//! (WAL lets them run beside the writer) on blocking threads.

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};

use rusqlite::{params, Connection, OptionalExtension};
use tokio::sync::oneshot;
use xiangqi::Color;

use super::accounts::{
    self, LeaderRow, ProfileRow, RatingRow, SeatsRow, SessionRow, TokenRow, UserRow,
};
use super::live::{self, LiveRow};
use super::migrations::MIGRATIONS;
use super::sql::{self, Sql};
use super::{Declared, GameRow, Mode, Note, StoreError, StoredGame, StoredReview, Verdict, Write};
use crate::rating::{Rating, Speed};

/// The most writes committed in one transaction.
const MAX_GROUP: usize = 1024;

type Reply = oneshot::Sender<Result<i64, StoreError>>;

/// The SQLite store: the writer's queue and a read connection.
#[derive(Clone)]
pub struct SqliteStore {
    tx: mpsc::Sender<(Write, Reply)>,
    reader: Arc<Mutex<Connection>>,
    pub path: PathBuf,
}

fn open(path: &Path) -> Result<Connection, StoreError> {
    let failed = |what| {
        move |error: rusqlite::Error| StoreError::Open {
            path: path.to_path_buf(),
            what,
            error: error.to_string(),
        }
    };
    let conn = Connection::open(path).map_err(failed("open"))?;
    conn.busy_timeout(std::time::Duration::from_secs(10))
        .map_err(failed("set up"))?;
    conn.execute_batch(
        "PRAGMA journal_mode=WAL;
         PRAGMA synchronous=FULL;
         PRAGMA foreign_keys=ON;",
    )
    .map_err(failed("set up"))?;
    Ok(conn)
}

/// Brings the file's tables up to date: every migration it has not had, each in its own
/// transaction with its row in `schema_migrations`.
fn migrate(conn: &mut Connection, path: &Path) -> Result<(), StoreError> {
    let failed = |what| {
        move |e: rusqlite::Error| StoreError::Open {
            path: path.to_path_buf(),
            what,
            error: e.to_string(),
        }
    };
    conn.execute_batch(
        "CREATE TABLE IF NOT EXISTS schema_migrations (
             version INTEGER PRIMARY KEY,
             name TEXT NOT NULL,
             applied INTEGER NOT NULL
         )",
    )
    .map_err(failed("create the migrations table of"))?;
    let have: i64 = conn
        .query_row(
            "SELECT COALESCE(MAX(version), 0) FROM schema_migrations",
            [],
            |r| r.get(0),
        )
        .map_err(failed("read the schema version of"))?;
    let known = MIGRATIONS.last().map_or(0, |m| m.version);
    if have > known {
        return Err(StoreError::TooNew {
            place: path.display().to_string(),
            found: have,
            known,
        });
    }
    for m in MIGRATIONS.iter().filter(|m| m.version > have) {
        let tx = conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(failed("begin a migration of"))?;
        tx.execute_batch(m.sqlite)
            .map_err(|e| StoreError::Migrate {
                place: path.display().to_string(),
                version: m.version,
                error: e.to_string(),
            })?;
        tx.execute(
            "INSERT INTO schema_migrations (version, name, applied) VALUES (?1, ?2, ?3)",
            params![m.version, m.name, crate::store::now()],
        )
        .map_err(failed("record a migration of"))?;
        tx.commit().map_err(failed("commit a migration of"))?;
    }
    Ok(())
}

impl SqliteStore {
    /// Opens (creating if needed) `games.sqlite3` in `dir` and starts the writer thread.
    pub fn open(dir: &Path) -> Result<SqliteStore, StoreError> {
        std::fs::create_dir_all(dir).map_err(|error| StoreError::CreateDir {
            path: dir.to_path_buf(),
            error,
        })?;
        let path = dir.join("games.sqlite3");
        let mut writer = open(&path)?;
        migrate(&mut writer, &path)?;
        let reader = open(&path)?;
        let (tx, rx) = mpsc::channel::<(Write, Reply)>();
        std::thread::Builder::new()
            .name("store-writer".into())
            .spawn(move || writer_loop(writer, rx))
            .map_err(StoreError::Thread)?;
        Ok(SqliteStore {
            tx,
            reader: Arc::new(Mutex::new(reader)),
            path,
        })
    }

    /// Queues a write and waits until it is committed (durable).
    pub async fn write(&self, w: Write) -> Result<i64, StoreError> {
        let (reply, rx) = oneshot::channel();
        self.tx
            .send((w, reply))
            .map_err(|_| StoreError::WriterStopped)?;
        rx.await.map_err(|_| StoreError::WriterStopped)?
    }

    /// Runs `f` with the read connection on a blocking thread.
    pub async fn read<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Connection) -> rusqlite::Result<T> + Send + 'static,
    ) -> Result<T, StoreError> {
        let reader = self.reader.clone();
        tokio::task::spawn_blocking(move || {
            let conn = reader.lock().unwrap_or_else(|p| p.into_inner());
            f(&conn).map_err(|e| match e {
                rusqlite::Error::FromSqlConversionFailure(_, _, e) => {
                    StoreError::Corrupt(e.to_string())
                }
                e => StoreError::Read(e.to_string()),
            })
        })
        .await
        .map_err(|e| StoreError::Read(e.to_string()))?
    }

    /// A game's row, moves and alternative lines, or `None`.
    pub async fn load(&self, id: i64) -> Result<Option<StoredGame>, StoreError> {
        self.read(move |c| {
            let Some(row) = c
                .query_row(
                    &format!("SELECT {COLUMNS} FROM games WHERE id = ?1"),
                    [id],
                    row_of,
                )
                .optional()?
            else {
                return Ok(None);
            };
            let mut st =
                c.prepare_cached("SELECT uci FROM moves WHERE game_id = ?1 ORDER BY ply")?;
            let moves = st
                .query_map([id], |r| r.get::<_, String>(0))?
                .collect::<Result<Vec<_>, _>>()?;
            let mut st =
                c.prepare_cached("SELECT moves FROM lines WHERE game_id = ?1 ORDER BY seq")?;
            let lines = st
                .query_map([id], |r| r.get::<_, String>(0))?
                .collect::<Result<Vec<_>, _>>()?;
            let mut st = c.prepare_cached(
                "SELECT path, comment, nags FROM notes WHERE game_id = ?1 ORDER BY path",
            )?;
            let notes = st
                .query_map([id], |r| {
                    let nags: String = r.get(2)?;
                    Ok((
                        r.get::<_, String>(0)?,
                        Note {
                            text: r.get(1)?,
                            // A value that is not a NAG number (a foreign file) is left out.
                            nags: nags
                                .split_whitespace()
                                .filter_map(|n| n.parse().ok())
                                .collect(),
                        },
                    ))
                })?
                .collect::<Result<Vec<_>, _>>()?;
            Ok(Some((row, moves, lines, notes)))
        })
        .await
    }

    /// A game's stored review, or `None`.
    pub async fn load_review(&self, id: i64) -> Result<Option<StoredReview>, StoreError> {
        self.read(move |c| {
            c.query_row(
                "SELECT game_id, moves, depth, created, data FROM reviews WHERE game_id = ?1",
                [id],
                |r| {
                    Ok(StoredReview {
                        game_id: r.get(0)?,
                        moves: r.get(1)?,
                        depth: r.get(2)?,
                        created: r.get(3)?,
                        data: r.get(4)?,
                    })
                },
            )
            .optional()
        })
        .await
    }

    /// A live game's row and moves, or `None`.
    pub async fn load_live(&self, id: &str) -> Result<Option<(LiveRow, Vec<String>)>, StoreError> {
        let id = id.to_owned();
        self.read(move |c| live::load(c, &id)).await
    }

    /// Every live game that has not ended, with its moves.
    pub async fn unfinished_live(&self) -> Result<Vec<(LiveRow, Vec<String>)>, StoreError> {
        self.read(live::unfinished).await
    }

    /// The live games that ended (not aborted) at `since` or later, by when.
    pub async fn ended_live_after(
        &self,
        updated: i64,
        id: &str,
        limit: u32,
    ) -> Result<Vec<(LiveRow, Vec<String>)>, StoreError> {
        let id = id.to_owned();
        self.read(move |c| live::ended_after(c, updated, &id, limit))
            .await
    }

    /// The last heartbeat of `node`, if it ever beat.
    pub async fn last_beat(&self, node: &str) -> Result<Option<i64>, StoreError> {
        let node = node.to_owned();
        self.read(move |c| {
            c.query_row("SELECT at FROM node_beats WHERE node = ?1", [node], |r| {
                r.get(0)
            })
            .optional()
        })
        .await
    }

    /// The schema version of the file (the last migration applied).
    pub async fn schema_version(&self) -> Result<i64, StoreError> {
        self.read(|c| {
            c.query_row(
                "SELECT COALESCE(MAX(version), 0) FROM schema_migrations",
                [],
                |r| r.get(0),
            )
        })
        .await
    }

    /// Games, most recently updated first.
    pub async fn list(&self, limit: i64, offset: i64) -> Result<(Vec<GameRow>, i64), StoreError> {
        self.read(move |c| {
            let total: i64 = c.query_row("SELECT count(*) FROM games", [], |r| r.get(0))?;
            let mut st = c.prepare_cached(&format!(
                "SELECT {COLUMNS} FROM games ORDER BY updated DESC, id DESC LIMIT ?1 OFFSET ?2"
            ))?;
            let rows = st
                .query_map([limit, offset], row_of)?
                .collect::<Result<Vec<_>, _>>()?;
            Ok((rows, total))
        })
        .await
    }
}

/// Accounts (`store/accounts.rs` has the SQL).
impl SqliteStore {
    pub async fn user_by_key(&self, name_key: &str) -> Result<Option<UserRow>, StoreError> {
        let k = name_key.to_owned();
        self.read(move |c| accounts::user_by_key(c, &k)).await
    }

    pub async fn user_by_id(&self, id: i64) -> Result<Option<UserRow>, StoreError> {
        self.read(move |c| accounts::user_by_id(c, id)).await
    }

    pub async fn session(&self, key: &str, now: i64) -> Result<Option<SessionRow>, StoreError> {
        let k = key.to_owned();
        self.read(move |c| accounts::session(c, &k, now)).await
    }

    pub async fn token_user(&self, key: &str) -> Result<Option<(i64, String, bool)>, StoreError> {
        let k = key.to_owned();
        self.read(move |c| accounts::token_user(c, &k)).await
    }

    pub async fn tokens(&self, user: i64) -> Result<Vec<TokenRow>, StoreError> {
        self.read(move |c| accounts::tokens(c, user)).await
    }

    pub async fn ratings(&self, user: i64) -> Result<Vec<RatingRow>, StoreError> {
        self.read(move |c| accounts::ratings(c, user)).await
    }

    pub async fn rating_of(&self, user: i64, speed: Speed) -> Result<Rating, StoreError> {
        self.read(move |c| accounts::rating_of(c, user, speed))
            .await
    }

    /// The accounts of a live game's seats (`None`: a game of two guests).
    pub async fn live_seats(&self, game_id: &str) -> Result<Option<SeatsRow>, StoreError> {
        let id = game_id.to_owned();
        self.read(move |c| accounts::seats(c, &id)).await
    }

    pub async fn playing(&self, user: i64) -> Result<Vec<(String, xiangqi::Color)>, StoreError> {
        self.read(move |c| accounts::playing(c, user)).await
    }

    pub async fn profile(&self, name_key: &str) -> Result<Option<ProfileRow>, StoreError> {
        let k = name_key.to_owned();
        self.read(move |c| accounts::profile(c, &k)).await
    }

    pub async fn leaderboard(
        &self,
        speed: Speed,
        limit: i64,
    ) -> Result<Vec<LeaderRow>, StoreError> {
        self.read(move |c| accounts::leaderboard(c, speed, limit))
            .await
    }
}

const COLUMNS: &str = "id, created, updated, mode, human, level, start_fen, tags, declared, \
                       declared_ply, result, reason, plies";

/// A text column read as one of the server's enums; a value the server never writes is a
/// damaged row (`StoreError::Corrupt`).
fn text_col<T>(
    r: &rusqlite::Row<'_>,
    i: usize,
    what: &str,
    parse: impl Fn(&str) -> Option<T>,
) -> rusqlite::Result<T> {
    let s: String = r.get(i)?;
    parse(&s).ok_or_else(|| {
        rusqlite::Error::FromSqlConversionFailure(
            i,
            rusqlite::types::Type::Text,
            format!("{what} '{s}'").into(),
        )
    })
}

fn color_text(c: Option<Color>) -> &'static str {
    c.map_or("", Color::name)
}

fn parse_side(s: &str) -> Option<Option<Color>> {
    match s {
        "" => Some(None),
        "red" => Some(Some(Color::Red)),
        "black" => Some(Some(Color::Black)),
        _ => None,
    }
}

fn row_of(r: &rusqlite::Row<'_>) -> rusqlite::Result<GameRow> {
    Ok(GameRow {
        id: r.get(0)?,
        created: r.get(1)?,
        updated: r.get(2)?,
        mode: text_col(r, 3, "mode", Mode::parse)?,
        human: text_col(r, 4, "human side", parse_side)?,
        level: r.get(5)?,
        start_fen: r.get(6)?,
        tags: r.get(7)?,
        // An unknown declaration or result is none (older files, as before).
        declared: Declared::parse(&r.get::<_, String>(8)?),
        declared_ply: r.get(9)?,
        result: Verdict::parse(&r.get::<_, String>(10)?),
        reason: r.get(11)?,
        plies: r.get(12)?,
    })
}

fn declared_text(d: Option<Declared>) -> &'static str {
    d.map_or("", Declared::as_str)
}

fn verdict_text(v: Option<Verdict>) -> &'static str {
    v.map_or("", Verdict::as_str)
}

fn apply(c: &Connection, w: &Write) -> rusqlite::Result<i64> {
    match w {
        Write::Create {
            row,
            moves,
            lines,
            notes,
        } => {
            let id: i64 = c.prepare_cached(sql::GAME_INSERT.sqlite)?.query_row(
                params![
                    row.created,
                    row.updated,
                    row.mode.as_str(),
                    color_text(row.human),
                    row.level,
                    row.start_fen,
                    row.tags,
                    declared_text(row.declared),
                    row.declared_ply,
                    verdict_text(row.result),
                    row.reason,
                    moves.len() as i64
                ],
                |r| r.get(0),
            )?;
            insert_moves(c, sql::MOVE_INSERT, &id, moves)?;
            insert_lines(c, id, lines)?;
            for (path, note) in notes {
                set_note(c, id, path, note)?;
            }
            Ok(id)
        }
        Write::SetNote {
            id,
            path,
            note,
            updated,
        } => {
            let n = c
                .prepare_cached(sql::GAME_TOUCH.sqlite)?
                .execute(params![id, updated])?;
            if n == 0 {
                return Err(rusqlite::Error::QueryReturnedNoRows);
            }
            set_note(c, *id, path, note)?;
            Ok(*id)
        }
        Write::SetLines { row, moves, lines } => {
            let n = c
                .prepare_cached(sql::GAME_SET_LINES.sqlite)?
                .execute(params![
                    row.id,
                    row.updated,
                    moves.len() as i64,
                    verdict_text(row.result),
                    row.reason,
                    declared_text(row.declared),
                    row.declared_ply
                ])?;
            if n == 0 {
                return Err(rusqlite::Error::QueryReturnedNoRows);
            }
            c.prepare_cached(sql::MOVES_DELETE.sqlite)?
                .execute([row.id])?;
            insert_moves(c, sql::MOVE_INSERT, &row.id, moves)?;
            c.prepare_cached(sql::LINES_DELETE.sqlite)?
                .execute([row.id])?;
            insert_lines(c, row.id, lines)?;
            Ok(row.id)
        }
        Write::AddMove {
            id,
            ply,
            uci,
            updated,
            derived,
        } => {
            insert_move(c, sql::MOVE_PUT, &id, *ply, uci)?;
            let n = c.prepare_cached(sql::GAME_MOVED.sqlite)?.execute(params![
                id,
                updated,
                ply + 1,
                verdict_text(derived.result),
                derived.reason
            ])?;
            if n == 0 {
                return Err(rusqlite::Error::QueryReturnedNoRows);
            }
            Ok(*id)
        }
        Write::Truncate {
            id,
            ply,
            updated,
            derived,
        } => {
            c.prepare_cached(sql::MOVES_DELETE_FROM.sqlite)?
                .execute(params![id, ply])?;
            c.prepare_cached(sql::GAME_TRUNCATED.sqlite)?
                .execute(params![
                    id,
                    ply,
                    updated,
                    verdict_text(derived.result),
                    derived.reason
                ])?;
            Ok(*id)
        }
        Write::Declare {
            id,
            declared,
            ply,
            updated,
            derived,
        } => {
            c.prepare_cached(sql::GAME_DECLARE.sqlite)?
                .execute(params![
                    id,
                    declared_text(*declared),
                    ply,
                    updated,
                    verdict_text(derived.result),
                    derived.reason
                ])?;
            Ok(*id)
        }
        Write::SaveReview(r) => {
            c.prepare_cached(sql::REVIEW_PUT.sqlite)?
                .execute(params![r.game_id, r.moves, r.depth, r.created, r.data])?;
            Ok(r.game_id)
        }
        Write::Beat { node, at } => {
            c.prepare_cached(sql::BEAT_PUT.sqlite)?
                .execute(params![node, at])?;
            Ok(0)
        }
        Write::Live(w) => live::apply(c, w).map(|_| 0),
        Write::Account(w) => accounts::apply(c, w),
        Write::Chat(w) => super::chat::apply(c, w),
        Write::Batch(ws) => {
            let mut last = 0;
            for w in ws {
                last = apply(c, w)?;
            }
            Ok(last)
        }
        Write::Delete { id } => {
            // Its moves, lines, review and notes first: a file older than the migrations
            // may lack the ON DELETE CASCADE that PostgreSQL relies on.
            for st in [
                sql::MOVES_DELETE,
                sql::LINES_DELETE,
                sql::REVIEW_DELETE,
                sql::NOTES_DELETE,
                sql::GAME_DELETE,
            ] {
                c.prepare_cached(st.sqlite)?.execute([id])?;
            }
            Ok(*id)
        }
    }
}

/// Stores the move at `ply` of game `id` with `put` (`MOVE_PUT`, `LIVE_MOVE_PUT`). The same
/// move again is no change (as in the PostgreSQL store, where a write may be repeated after
/// its commit's answer was lost); another move there is refused.
pub(super) fn insert_move(
    c: &Connection,
    put: Sql,
    id: &dyn rusqlite::ToSql,
    ply: i64,
    uci: &str,
) -> rusqlite::Result<()> {
    let n = c
        .prepare_cached(put.sqlite)?
        .execute(params![id, ply, uci])?;
    if n == 0 {
        return Err(rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_CONSTRAINT),
            Some(format!("the game already has another move at ply {ply}")),
        ));
    }
    Ok(())
}

/// Stores a game's moves from ply 0 with `insert` (`MOVE_INSERT`, `LIVE_MOVE_INSERT`).
pub(super) fn insert_moves(
    c: &Connection,
    insert: Sql,
    id: &dyn rusqlite::ToSql,
    moves: &[String],
) -> rusqlite::Result<()> {
    let mut st = c.prepare_cached(insert.sqlite)?;
    for (i, m) in moves.iter().enumerate() {
        st.execute(params![id, i as i64, m])?;
    }
    Ok(())
}

/// Stores the note at `path` of game `id`, or deletes it when it is empty.
fn set_note(c: &Connection, id: i64, path: &str, note: &Note) -> rusqlite::Result<()> {
    if note.is_empty() {
        c.prepare_cached(sql::NOTE_DELETE.sqlite)?
            .execute(params![id, path])?;
    } else {
        let nags: Vec<String> = note.nags.iter().map(|n| n.to_string()).collect();
        c.prepare_cached(sql::NOTE_PUT.sqlite)?.execute(params![
            id,
            path,
            note.text,
            nags.join(" ")
        ])?;
    }
    Ok(())
}

fn insert_lines(c: &Connection, id: i64, lines: &[String]) -> rusqlite::Result<()> {
    let mut st = c.prepare_cached(sql::LINE_INSERT.sqlite)?;
    for (i, l) in lines.iter().enumerate() {
        st.execute(params![id, i as i64, l])?;
    }
    Ok(())
}

/// A failed write's error: a unique key already there is `Taken`.
fn write_error(e: rusqlite::Error) -> StoreError {
    match &e {
        rusqlite::Error::SqliteFailure(f, _)
            if f.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_UNIQUE
                || f.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_PRIMARYKEY =>
        {
            StoreError::Taken(e.to_string())
        }
        _ => StoreError::Write(e.to_string()),
    }
}

fn writer_loop(conn: Connection, rx: mpsc::Receiver<(Write, Reply)>) {
    let mut batch: Vec<(Write, Reply)> = Vec::new();
    while let Ok(first) = rx.recv() {
        batch.push(first);
        while batch.len() < MAX_GROUP {
            match rx.try_recv() {
                Ok(job) => batch.push(job),
                Err(_) => break,
            }
        }
        let results = commit_group(&conn, &batch);
        for ((_, reply), r) in batch.drain(..).zip(results) {
            let _ = reply.send(r);
        }
    }
}

/// Applies a group of writes in one transaction; every result is an error if the commit fails.
///
/// Each write runs inside its own savepoint (`SAVEPOINT w` ... `RELEASE w`): a write that
/// fails at any of its statements is rolled back to its savepoint (`ROLLBACK TO w`), which
/// takes back whatever of it had already run (a `Write::Batch`'s earlier parts included),
/// and only that write's caller gets the error; the writes before and after it in the group
/// commit with the one `COMMIT` (tested by `tests::a_bad_write_in_a_group_fails_alone`).
fn commit_group(conn: &Connection, batch: &[(Write, Reply)]) -> Vec<Result<i64, StoreError>> {
    if let Err(e) = conn.execute_batch("BEGIN IMMEDIATE") {
        return batch
            .iter()
            .map(|_| {
                Err(StoreError::Transaction {
                    what: "cannot begin a transaction",
                    error: e.to_string(),
                })
            })
            .collect();
    }
    let mut results = Vec::with_capacity(batch.len());
    for (w, _) in batch {
        let r = conn
            .execute_batch("SAVEPOINT w")
            .and_then(|_| apply(conn, w));
        match r {
            Ok(v) => {
                let _ = conn.execute_batch("RELEASE w");
                results.push(Ok(v));
            }
            Err(e) => {
                let _ = conn.execute_batch("ROLLBACK TO w; RELEASE w");
                results.push(Err(write_error(e)));
            }
        }
    }
    if let Err(e) = conn.execute_batch("COMMIT") {
        let _ = conn.execute_batch("ROLLBACK");
        return batch
            .iter()
            .map(|_| {
                Err(StoreError::Transaction {
                    what: "commit failed",
                    error: e.to_string(),
                })
            })
            .collect();
    }
    results
}

/// `commit_group` called directly with one batch, rather than hoping the scheduler puts a bad
/// write among good ones (as `concurrent_writes_all_land_and_a_bad_one_fails_alone` in
/// `tests/store.rs` does). PostgreSQL has no equivalent: it commits every write in its own
/// transaction (`PgStore::write`), so there is no group for a bad write to spoil; its
/// "fails alone" is that test and `a_batch_succeeds_or_fails_whole` run on both backends.
#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{Derived, GameRow, Mode};

    fn store_file(name: &str) -> (PathBuf, Connection) {
        let dir =
            std::env::temp_dir().join(format!("xq_commit_group_{name}_{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("games.sqlite3");
        let mut conn = open(&path).unwrap();
        migrate(&mut conn, &path).unwrap();
        (dir, conn)
    }

    fn create(conn: &Connection, moves: &[&str]) -> i64 {
        let w = Write::Create {
            row: GameRow {
                mode: Mode::TwoPlayer,
                start_fen: "start".into(),
                tags: "{}".into(),
                plies: moves.len() as i64,
                ..GameRow::default()
            },
            moves: moves.iter().map(|m| m.to_string()).collect(),
            lines: vec![],
            notes: vec![],
        };
        apply(conn, &w).unwrap()
    }

    fn add(id: i64, ply: i64, uci: &str) -> Write {
        Write::AddMove {
            id,
            ply,
            uci: uci.into(),
            updated: 7,
            derived: Derived::default(),
        }
    }

    fn job(w: Write) -> (Write, Reply) {
        (w, oneshot::channel().0)
    }

    fn moves(conn: &Connection, id: i64) -> Vec<String> {
        conn.prepare("SELECT uci FROM moves WHERE game_id = ?1 ORDER BY ply")
            .unwrap()
            .query_map([id], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    }

    #[test]
    fn a_bad_write_in_a_group_fails_alone() {
        let (dir, conn) = store_file("mixed");
        let a = create(&conn, &["h2e2"]);
        let b = create(&conn, &[]);
        let c = create(&conn, &["h2e2"]);
        // The bad write's first statement succeeds (b's first move) and its second fails
        // (another move at a's ply 0): its savepoint must take back the first as well.
        let bad = Write::Batch(vec![add(b, 0, "b2e2"), add(a, 0, "c3c4")]);
        let batch = [job(add(a, 1, "h9g7")), job(bad), job(add(c, 1, "b9c7"))];
        let results = commit_group(&conn, &batch);
        assert_eq!(results.len(), 3);
        assert_eq!(results[0].as_ref().unwrap(), &a);
        let e = results[1].as_ref().unwrap_err().to_string();
        assert!(e.contains("another move at ply 0"), "{e}");
        assert_eq!(results[2].as_ref().unwrap(), &c);
        assert_eq!(moves(&conn, a), ["h2e2", "h9g7"]);
        assert_eq!(moves(&conn, c), ["h2e2", "b9c7"]);
        // Nothing of the bad write: no move of b, b's row untouched.
        assert!(moves(&conn, b).is_empty());
        let (plies, updated): (i64, i64) = conn
            .query_row("SELECT plies, updated FROM games WHERE id = ?1", [b], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .unwrap();
        assert_eq!((plies, updated), (0, 0));
        // The group committed (no transaction left open) and the connection goes on: a
        // read from another connection sees the moves, and the next group commits.
        assert!(conn.is_autocommit());
        let other = open(&dir.join("games.sqlite3")).unwrap();
        let n: i64 = other
            .query_row("SELECT count(*) FROM moves", [], |r| r.get(0))
            .unwrap();
        assert_eq!(n, 4);
        let next = commit_group(&conn, &[job(add(b, 0, "b2e2"))]);
        assert_eq!(next[0].as_ref().unwrap(), &b);
        assert_eq!(moves(&conn, b), ["b2e2"]);
        drop((conn, other));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_write_to_a_missing_game_in_a_group_fails_alone() {
        let (dir, conn) = store_file("missing");
        let a = create(&conn, &[]);
        let batch = [
            job(add(a, 0, "h2e2")),
            job(add(999_999, 0, "h2e2")),
            job(add(a, 1, "h9g7")),
        ];
        let results = commit_group(&conn, &batch);
        assert!(results[0].is_ok() && results[2].is_ok(), "{results:?}");
        let e = results[1].as_ref().unwrap_err().to_string();
        assert!(e.contains("FOREIGN KEY"), "{e}");
        assert_eq!(moves(&conn, a), ["h2e2", "h9g7"]);
        assert!(moves(&conn, 999_999).is_empty());
        assert!(conn.is_autocommit());
        drop(conn);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
