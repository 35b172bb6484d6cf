//! The game store: one SQLite file in the data folder.
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

/// The most writes committed in one transaction.
const MAX_GROUP: usize = 1024;

/// A game's stored row (without its moves).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GameRow {
    pub id: i64,
    pub created: i64,
    pub updated: i64,
    /// `computer`, `two-player` or `analysis`.
    pub mode: String,
    /// The human's side in `computer` mode (`red`/`black`), else empty.
    pub human: String,
    pub level: i64,
    pub start_fen: String,
    /// Tags kept from an import (JSON object of strings), `{}` otherwise.
    pub tags: String,
    /// A declared end: `resign-red`, `resign-black`, `draw`, or empty.
    pub declared: String,
    /// The number of moves played when the end was declared.
    pub declared_ply: i64,
    /// Derived, for the game list: `red-wins`, `black-wins`, `draw` or empty.
    pub result: String,
    pub reason: String,
    pub plies: i64,
}

/// One write.
#[derive(Debug)]
pub enum Write {
    /// Inserts a game with its moves and alternative lines; answers the new id.
    Create {
        row: GameRow,
        moves: Vec<String>,
        lines: Vec<String>,
    },
    /// Appends a move at `ply` (0-based) and updates the derived columns.
    AddMove {
        id: i64,
        ply: i64,
        uci: String,
        updated: i64,
        result: String,
        reason: String,
    },
    /// Deletes moves from `ply` on, and a declared end made after them.
    Truncate {
        id: i64,
        ply: i64,
        updated: i64,
        result: String,
        reason: String,
    },
    /// Sets (or clears, with an empty string) the declared end.
    Declare {
        id: i64,
        declared: String,
        ply: i64,
        updated: i64,
        result: String,
        reason: String,
    },
    /// Replaces a game's moves and alternative lines (analysis: a new main line), with the
    /// row's declared end and derived columns.
    SetLines {
        row: GameRow,
        moves: Vec<String>,
        lines: Vec<String>,
    },
    Delete {
        id: i64,
    },
}

type Reply = oneshot::Sender<Result<i64, String>>;

/// The store: the writer's queue and a read connection.
#[derive(Clone)]
pub struct Store {
    tx: mpsc::Sender<(Write, Reply)>,
    reader: Arc<Mutex<Connection>>,
    pub path: PathBuf,
}

fn open(path: &Path) -> Result<Connection, String> {
    let conn = Connection::open(path)
        .map_err(|e| format!("cannot open the game store {}: {e}", path.display()))?;
    conn.busy_timeout(std::time::Duration::from_secs(10))
        .map_err(|e| e.to_string())?;
    conn.execute_batch(
        "PRAGMA journal_mode=WAL;
         PRAGMA synchronous=FULL;
         PRAGMA foreign_keys=ON;",
    )
    .map_err(|e| format!("cannot set up the game store {}: {e}", path.display()))?;
    Ok(conn)
}

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    created INTEGER NOT NULL,
    updated INTEGER NOT NULL,
    mode TEXT NOT NULL,
    human TEXT NOT NULL DEFAULT '',
    level INTEGER NOT NULL DEFAULT 0,
    start_fen TEXT NOT NULL,
    tags TEXT NOT NULL DEFAULT '{}',
    declared TEXT NOT NULL DEFAULT '',
    declared_ply INTEGER NOT NULL DEFAULT 0,
    result TEXT NOT NULL DEFAULT '',
    reason TEXT NOT NULL DEFAULT '',
    plies INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS moves (
    game_id INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    ply INTEGER NOT NULL,
    uci TEXT NOT NULL,
    PRIMARY KEY (game_id, ply)
) WITHOUT ROWID;
-- Alternative lines of a game (analysis variations): each a whole line from the start
-- position, moves in coordinates separated by spaces. Added after the first release; an older
-- file gets the table when opened and its games simply have no lines.
CREATE TABLE IF NOT EXISTS lines (
    game_id INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    moves TEXT NOT NULL,
    PRIMARY KEY (game_id, seq)
) WITHOUT ROWID;
";

/// A stored game: its row, its moves and its alternative lines (each a whole line).
pub type StoredGame = (GameRow, Vec<String>, Vec<String>);

impl Store {
    /// Opens (creating if needed) `games.sqlite3` in `dir` and starts the writer thread.
    pub fn open(dir: &Path) -> Result<Store, String> {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create the data folder {}: {e}", dir.display()))?;
        let path = dir.join("games.sqlite3");
        let writer = open(&path)?;
        writer
            .execute_batch(SCHEMA)
            .map_err(|e| format!("cannot create the tables in {}: {e}", path.display()))?;
        let reader = open(&path)?;
        let (tx, rx) = mpsc::channel::<(Write, Reply)>();
        std::thread::Builder::new()
            .name("store-writer".into())
            .spawn(move || writer_loop(writer, rx))
            .map_err(|e| format!("cannot start the store writer: {e}"))?;
        Ok(Store {
            tx,
            reader: Arc::new(Mutex::new(reader)),
            path,
        })
    }

    /// Queues a write and waits until it is committed (durable).
    pub async fn write(&self, w: Write) -> Result<i64, String> {
        let (reply, rx) = oneshot::channel();
        self.tx
            .send((w, reply))
            .map_err(|_| "the store writer has stopped".to_string())?;
        rx.await
            .map_err(|_| "the store writer has stopped".to_string())?
    }

    /// Runs `f` with the read connection on a blocking thread.
    pub async fn read<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Connection) -> rusqlite::Result<T> + Send + 'static,
    ) -> Result<T, String> {
        let reader = self.reader.clone();
        tokio::task::spawn_blocking(move || {
            let conn = reader.lock().unwrap_or_else(|p| p.into_inner());
            f(&conn).map_err(|e| format!("reading the game store: {e}"))
        })
        .await
        .map_err(|e| format!("reading the game store: {e}"))?
    }

    /// A game's row, moves and alternative lines, or `None`.
    pub async fn load(&self, id: i64) -> Result<Option<StoredGame>, String> {
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
            Ok(Some((row, moves, lines)))
        })
        .await
    }

    /// Games, most recently updated first.
    pub async fn list(&self, limit: i64, offset: i64) -> Result<(Vec<GameRow>, i64), String> {
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

const COLUMNS: &str = "id, created, updated, mode, human, level, start_fen, tags, declared, \
                       declared_ply, result, reason, plies";

fn row_of(r: &rusqlite::Row<'_>) -> rusqlite::Result<GameRow> {
    Ok(GameRow {
        id: r.get(0)?,
        created: r.get(1)?,
        updated: r.get(2)?,
        mode: r.get(3)?,
        human: r.get(4)?,
        level: r.get(5)?,
        start_fen: r.get(6)?,
        tags: r.get(7)?,
        declared: r.get(8)?,
        declared_ply: r.get(9)?,
        result: r.get(10)?,
        reason: r.get(11)?,
        plies: r.get(12)?,
    })
}

fn apply(c: &Connection, w: &Write) -> rusqlite::Result<i64> {
    match w {
        Write::Create { row, moves, lines } => {
            c.prepare_cached(
                "INSERT INTO games (created, updated, mode, human, level, start_fen, tags, \
                 declared, declared_ply, result, reason, plies) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
            )?
            .execute(params![
                row.created,
                row.updated,
                row.mode,
                row.human,
                row.level,
                row.start_fen,
                row.tags,
                row.declared,
                row.declared_ply,
                row.result,
                row.reason,
                moves.len() as i64
            ])?;
            let id = c.last_insert_rowid();
            let mut st =
                c.prepare_cached("INSERT INTO moves (game_id, ply, uci) VALUES (?1, ?2, ?3)")?;
            for (i, m) in moves.iter().enumerate() {
                st.execute(params![id, i as i64, m])?;
            }
            insert_lines(c, id, lines)?;
            Ok(id)
        }
        Write::SetLines { row, moves, lines } => {
            let n = c
                .prepare_cached(
                    "UPDATE games SET updated = ?2, plies = ?3, result = ?4, reason = ?5, \
                     declared = ?6, declared_ply = ?7 WHERE id = ?1",
                )?
                .execute(params![
                    row.id,
                    row.updated,
                    moves.len() as i64,
                    row.result,
                    row.reason,
                    row.declared,
                    row.declared_ply
                ])?;
            if n == 0 {
                return Err(rusqlite::Error::QueryReturnedNoRows);
            }
            c.prepare_cached("DELETE FROM moves WHERE game_id = ?1")?
                .execute([row.id])?;
            let mut st =
                c.prepare_cached("INSERT INTO moves (game_id, ply, uci) VALUES (?1, ?2, ?3)")?;
            for (i, m) in moves.iter().enumerate() {
                st.execute(params![row.id, i as i64, m])?;
            }
            c.prepare_cached("DELETE FROM lines WHERE game_id = ?1")?
                .execute([row.id])?;
            insert_lines(c, row.id, lines)?;
            Ok(row.id)
        }
        Write::AddMove {
            id,
            ply,
            uci,
            updated,
            result,
            reason,
        } => {
            c.prepare_cached("INSERT INTO moves (game_id, ply, uci) VALUES (?1, ?2, ?3)")?
                .execute(params![id, ply, uci])?;
            let n = c
                .prepare_cached(
                    "UPDATE games SET updated = ?2, plies = ?3, result = ?4, reason = ?5 \
                     WHERE id = ?1",
                )?
                .execute(params![id, updated, ply + 1, result, reason])?;
            if n == 0 {
                return Err(rusqlite::Error::QueryReturnedNoRows);
            }
            Ok(*id)
        }
        Write::Truncate {
            id,
            ply,
            updated,
            result,
            reason,
        } => {
            c.prepare_cached("DELETE FROM moves WHERE game_id = ?1 AND ply >= ?2")?
                .execute(params![id, ply])?;
            c.prepare_cached(
                "UPDATE games SET declared = CASE WHEN declared_ply > ?2 THEN '' ELSE declared END \
                 WHERE id = ?1",
            )?
            .execute(params![id, ply])?;
            c.prepare_cached(
                "UPDATE games SET updated = ?2, plies = ?3, result = ?4, reason = ?5 WHERE id = ?1",
            )?
            .execute(params![id, updated, ply, result, reason])?;
            Ok(*id)
        }
        Write::Declare {
            id,
            declared,
            ply,
            updated,
            result,
            reason,
        } => {
            c.prepare_cached(
                "UPDATE games SET declared = ?2, declared_ply = ?3, updated = ?4, result = ?5, \
                 reason = ?6 WHERE id = ?1",
            )?
            .execute(params![id, declared, ply, updated, result, reason])?;
            Ok(*id)
        }
        Write::Delete { id } => {
            c.prepare_cached("DELETE FROM moves WHERE game_id = ?1")?
                .execute([id])?;
            c.prepare_cached("DELETE FROM lines WHERE game_id = ?1")?
                .execute([id])?;
            c.prepare_cached("DELETE FROM games WHERE id = ?1")?
                .execute([id])?;
            Ok(*id)
        }
    }
}

fn insert_lines(c: &Connection, id: i64, lines: &[String]) -> rusqlite::Result<()> {
    let mut st = c.prepare_cached("INSERT INTO lines (game_id, seq, moves) VALUES (?1, ?2, ?3)")?;
    for (i, l) in lines.iter().enumerate() {
        st.execute(params![id, i as i64, l])?;
    }
    Ok(())
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
fn commit_group(conn: &Connection, batch: &[(Write, Reply)]) -> Vec<Result<i64, String>> {
    if let Err(e) = conn.execute_batch("BEGIN IMMEDIATE") {
        return batch
            .iter()
            .map(|_| Err(format!("store: cannot begin a transaction: {e}")))
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
                results.push(Err(format!("store: {e}")));
            }
        }
    }
    if let Err(e) = conn.execute_batch("COMMIT") {
        let _ = conn.execute_batch("ROLLBACK");
        return batch
            .iter()
            .map(|_| Err(format!("store: commit failed: {e}")))
            .collect();
    }
    results
}
