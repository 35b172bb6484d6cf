//! The store tests, run against both backends: every test here is one `async fn` taking a
//! `Db`, and `both!` makes a `sqlite::NAME` and a `postgres::NAME` test of it.
//!
//! The PostgreSQL half needs `XIANGQI_TEST_POSTGRES` (a URL whose user may create databases,
//! as `.ci/services start` prints); each test gets a database of its own, made afresh (`pg`).
//! When the variable is unset the PostgreSQL tests say so and pass, except under `CI=true`,
//! where they fail.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, Ordering};

mod pg;

use xiangqi_server::rating::{self, Speed};
use xiangqi_server::store::accounts::AccountWrite;
use xiangqi_server::store::chat::{ChatRow, ChatWrite};
use xiangqi_server::store::live::{LiveChange, LiveEnd, LiveRow, LiveWrite};
use xiangqi_server::store::migrations::MIGRATIONS;
use xiangqi_server::store::{
    Declared, Derived, GameRow, Mode, Note, Store, StoreError, StoredReview, Verdict, Write,
};

const START: &str = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1";

/// One test's database: a fresh SQLite folder or a fresh PostgreSQL database.
enum Db {
    Sqlite(PathBuf),
    Postgres {
        url: String,
        admin: String,
        name: String,
    },
}

fn test_name(name: &str) -> String {
    static N: AtomicU32 = AtomicU32::new(0);
    format!(
        "xq_store_{name}_{}_{}",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst)
    )
}

impl Db {
    fn sqlite(name: &str) -> Db {
        let d = std::env::temp_dir().join(test_name(name));
        let _ = std::fs::remove_dir_all(&d);
        Db::Sqlite(d)
    }

    async fn postgres(name: &str) -> Option<Db> {
        let admin = pg::url()?;
        let name = test_name(name);
        pg::create_database(&admin, &name).await;
        Some(Db::Postgres {
            url: pg::with_db(&admin, &name),
            admin,
            name,
        })
    }

    /// Opens the store (again: a second open sees what the first wrote).
    async fn open(&self) -> Result<Store, StoreError> {
        match self {
            Db::Sqlite(d) => Store::open(d),
            Db::Postgres { url, .. } => Store::connect(url).await,
        }
    }

    async fn store(&self) -> Store {
        self.open().await.expect("open the store")
    }

    /// Runs SQL straight on the database (to damage it, or look past the store).
    async fn sql(&self, sql: &str) {
        match self {
            Db::Sqlite(d) => {
                let c = rusqlite::Connection::open(d.join("games.sqlite3")).unwrap();
                c.execute_batch(sql).unwrap();
            }
            Db::Postgres { url, .. } => pg::exec(url, sql).await,
        }
    }

    /// A number SQL answers straight from the database.
    async fn count(&self, sql: &str) -> i64 {
        match self {
            Db::Sqlite(d) => {
                let c = rusqlite::Connection::open(d.join("games.sqlite3")).unwrap();
                c.query_row(sql, [], |r| r.get(0)).unwrap()
            }
            Db::Postgres { url, .. } => pg::count(url, sql).await,
        }
    }

    /// Prepares `sql` on the database (after the store has migrated it), answering the number
    /// of parameters it takes, or the database's refusal.
    async fn parameters(&self, sql: &str) -> Result<usize, String> {
        match self {
            Db::Sqlite(d) => {
                let c = rusqlite::Connection::open(d.join("games.sqlite3")).unwrap();
                let st = c.prepare(sql).map_err(|e| e.to_string())?;
                Ok(st.parameter_count())
            }
            Db::Postgres { url, .. } => pg::parameters(url, sql).await,
        }
    }

    async fn finish(self) {
        match self {
            Db::Sqlite(d) => {
                let _ = std::fs::remove_dir_all(d);
            }
            Db::Postgres { admin, name, .. } => pg::drop_database(&admin, &name).await,
        }
    }
}

macro_rules! both {
    ($($name:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    let db = super::Db::sqlite(stringify!($name));
                    super::$name(&db).await;
                    db.finish().await;
                }
            )*
        }
        mod postgres {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    let Some(db) = super::Db::postgres(stringify!($name)).await else {
                        return;
                    };
                    super::$name(&db).await;
                    db.finish().await;
                }
            )*
        }
    };
}

both!(
    a_game_round_trips,
    moves_truncate_and_declared_ends,
    set_lines_replaces_the_main_line_and_variations,
    delete_removes_a_game_with_its_moves,
    a_ply_holds_one_move,
    the_list_pages_newest_first,
    live_games_round_trip,
    concurrent_writes_all_land_and_a_bad_one_fails_alone,
    writes_survive_reopening_and_migrations_run_once,
    a_newer_schema_is_refused,
    a_damaged_value_is_reported_as_corrupt,
    hostile_text_is_stored_verbatim,
    accounts_names_are_unique_and_sessions_end,
    api_tokens_belong_to_their_account,
    a_rated_game_is_rated_once_with_its_history,
    a_batch_succeeds_or_fails_whole,
    notes_are_set_replaced_removed_and_go_with_their_game,
    a_review_is_kept_replaced_and_goes_with_its_game,
    every_live_end_round_trips_and_an_unknown_one_is_corrupt,
    the_write_statements_prepare_alike,
    chat_lines_blocks_and_preferences_round_trip,
);

fn row(mode: Mode, updated: i64) -> GameRow {
    GameRow {
        created: updated,
        updated,
        mode,
        start_fen: START.into(),
        tags: "{}".into(),
        ..GameRow::default()
    }
}

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

async fn create(s: &Store, row: GameRow, moves: &[&str]) -> i64 {
    s.write(Write::Create {
        row,
        moves: strings(moves),
        lines: vec![],
        notes: vec![],
    })
    .await
    .expect("create")
}

fn add(id: i64, ply: i64, uci: &str) -> Write {
    Write::AddMove {
        id,
        ply,
        uci: uci.into(),
        updated: 100 + ply,
        derived: Derived::default(),
    }
}

async fn a_game_round_trips(db: &Db) {
    let s = db.store().await;
    let mut r = row(Mode::Computer, 10);
    r.human = Some(xiangqi::Color::Black);
    r.level = 7;
    r.tags = r#"{"Event":"club"}"#.into();
    let id = s
        .write(Write::Create {
            row: r.clone(),
            moves: strings(&["h2e2", "h9g7"]),
            lines: strings(&["h2e2 b9c7", "c3c4"]),
            notes: vec![
                (
                    "".into(),
                    Note {
                        text: "before the first move".into(),
                        nags: vec![],
                    },
                ),
                (
                    "h2e2".into(),
                    Note {
                        text: "central cannon".into(),
                        nags: vec![1, 14],
                    },
                ),
            ],
        })
        .await
        .unwrap();
    assert!(id > 0);
    let (got, moves, lines, notes) = s.load(id).await.unwrap().expect("the game");
    assert_eq!(got, GameRow { id, plies: 2, ..r });
    assert_eq!(moves, ["h2e2", "h9g7"]);
    assert_eq!(lines, ["h2e2 b9c7", "c3c4"]);
    assert_eq!(notes.len(), 2);
    assert_eq!(
        (notes[0].0.as_str(), notes[0].1.text.as_str()),
        ("", "before the first move")
    );
    assert_eq!(notes[1].0, "h2e2");
    assert_eq!(notes[1].1.nags, [1, 14]);
    assert!(s.load(id + 1000).await.unwrap().is_none());
    let second = create(&s, row(Mode::TwoPlayer, 11), &[]).await;
    assert_ne!(second, id);
}

async fn moves_truncate_and_declared_ends(db: &Db) {
    let s = db.store().await;
    let id = create(&s, row(Mode::TwoPlayer, 1), &[]).await;
    for (ply, m) in ["h2e2", "h9g7", "h0g2", "i9h9"].iter().enumerate() {
        s.write(add(id, ply as i64, m)).await.unwrap();
    }
    let declared = Derived {
        result: Some(Verdict::BlackWins),
        reason: "resignation".into(),
    };
    s.write(Write::Declare {
        id,
        declared: Some(Declared::Resign(xiangqi::Color::Red)),
        ply: 4,
        updated: 200,
        derived: declared.clone(),
    })
    .await
    .unwrap();
    let (r, moves, _, _) = s.load(id).await.unwrap().unwrap();
    assert_eq!(moves.len(), 4);
    assert_eq!(r.plies, 4);
    assert_eq!(r.declared, Some(Declared::Resign(xiangqi::Color::Red)));
    assert_eq!(r.declared_ply, 4);
    assert_eq!(r.result, Some(Verdict::BlackWins));
    assert_eq!(r.reason, "resignation");
    assert_eq!(r.updated, 200);
    // Taking back to ply 2 removes the moves after it and the end declared after them.
    s.write(Write::Truncate {
        id,
        ply: 2,
        updated: 300,
        derived: Derived::default(),
    })
    .await
    .unwrap();
    let (r, moves, _, _) = s.load(id).await.unwrap().unwrap();
    assert_eq!(moves, ["h2e2", "h9g7"]);
    assert_eq!(
        (r.plies, r.updated, r.declared, r.result),
        (2, 300, None, None)
    );
    // A draw agreed at ply 2, then a truncation to ply 2 keeps it.
    s.write(Write::Declare {
        id,
        declared: Some(Declared::Draw),
        ply: 2,
        updated: 301,
        derived: Derived {
            result: Some(Verdict::Draw),
            reason: "agreement".into(),
        },
    })
    .await
    .unwrap();
    s.write(Write::Truncate {
        id,
        ply: 2,
        updated: 302,
        derived: Derived {
            result: Some(Verdict::Draw),
            reason: "agreement".into(),
        },
    })
    .await
    .unwrap();
    let (r, _, _, _) = s.load(id).await.unwrap().unwrap();
    assert_eq!(r.declared, Some(Declared::Draw));
    // A move to a game that is not there is refused, and is not a 503.
    let e = s.write(add(id + 1000, 0, "h2e2")).await.unwrap_err();
    assert!(!e.is_unavailable(), "{e}");
}

async fn set_lines_replaces_the_main_line_and_variations(db: &Db) {
    let s = db.store().await;
    let id = s
        .write(Write::Create {
            row: row(Mode::Analysis, 1),
            moves: strings(&["h2e2", "h9g7", "h0g2"]),
            lines: strings(&["b2e2"]),
            notes: vec![],
        })
        .await
        .unwrap();
    let (mut r, _, _, _) = s.load(id).await.unwrap().unwrap();
    r.updated = 50;
    r.result = Some(Verdict::RedWins);
    r.reason = "checkmate".into();
    s.write(Write::SetLines {
        row: r,
        moves: strings(&["b2e2", "b9c7"]),
        lines: strings(&["h2e2 h9g7 h0g2", "c3c4"]),
    })
    .await
    .unwrap();
    let (r, moves, lines, _) = s.load(id).await.unwrap().unwrap();
    assert_eq!(moves, ["b2e2", "b9c7"]);
    assert_eq!(lines, ["h2e2 h9g7 h0g2", "c3c4"]);
    assert_eq!(
        (r.plies, r.updated, r.result),
        (2, 50, Some(Verdict::RedWins))
    );
    assert_eq!(r.reason, "checkmate");
    // A game that is not there.
    let missing = GameRow {
        id: id + 1000,
        ..row(Mode::Analysis, 1)
    };
    assert!(s
        .write(Write::SetLines {
            row: missing,
            moves: vec![],
            lines: vec![],
        })
        .await
        .is_err());
}

async fn delete_removes_a_game_with_its_moves(db: &Db) {
    let s = db.store().await;
    let id = s
        .write(Write::Create {
            row: row(Mode::Analysis, 1),
            moves: strings(&["h2e2"]),
            lines: strings(&["c3c4"]),
            notes: vec![],
        })
        .await
        .unwrap();
    let other = create(&s, row(Mode::TwoPlayer, 2), &["b2e2"]).await;
    s.write(Write::Delete { id }).await.unwrap();
    assert!(s.load(id).await.unwrap().is_none());
    let (rows, total) = s.list(10, 0).await.unwrap();
    assert_eq!(total, 1);
    assert_eq!(rows[0].id, other);
    // Nothing of it is left to be found by a new game with its id (no orphan moves).
    db.sql(&format!(
        "INSERT INTO games (id, created, updated, mode, start_fen) VALUES ({id}, 1, 1, 'analysis', '{START}')"
    ))
    .await;
    let (_, moves, lines, _) = s.load(id).await.unwrap().unwrap();
    assert!(moves.is_empty() && lines.is_empty());
}

async fn a_ply_holds_one_move(db: &Db) {
    let s = db.store().await;
    let id = create(&s, row(Mode::TwoPlayer, 1), &["h2e2"]).await;
    // The same move again (a write repeated) is no change; another one at that ply is refused.
    s.write(add(id, 0, "h2e2")).await.unwrap();
    let e = s.write(add(id, 0, "b2e2")).await.unwrap_err();
    assert!(!e.is_unavailable(), "{e}");
    assert!(e.to_string().contains("another move at ply 0"), "{e}");
    let (_, moves, _, _) = s.load(id).await.unwrap().unwrap();
    assert_eq!(moves, ["h2e2"]);
    // The same for live games.
    s.write(Write::Live(live_create("Lply00000001")))
        .await
        .unwrap();
    s.write(Write::Live(live_move("Lply00000001", 0, "h2e2")))
        .await
        .unwrap();
    s.write(Write::Live(live_move("Lply00000001", 0, "h2e2")))
        .await
        .unwrap();
    assert!(s
        .write(Write::Live(live_move("Lply00000001", 0, "c3c4")))
        .await
        .is_err());
    let (_, moves) = s.load_live("Lply00000001").await.unwrap().unwrap();
    assert_eq!(moves, ["h2e2"]);
    // A second live game with an id already there is refused as taken.
    let e = s
        .write(Write::Live(live_create("Lply00000001")))
        .await
        .unwrap_err();
    assert!(matches!(e, StoreError::Taken(_)), "{e:?}");
    // Another move at a ply is not a taken key: it is refused for what it is.
    let e = s.write(add(id, 0, "b2e2")).await.unwrap_err();
    assert!(matches!(e, StoreError::Write(_)), "{e:?}");
}

async fn the_list_pages_newest_first(db: &Db) {
    let s = db.store().await;
    let mut ids = vec![];
    for t in [5, 9, 1, 7] {
        ids.push((t, create(&s, row(Mode::TwoPlayer, t), &[]).await));
    }
    ids.sort_by_key(|x| std::cmp::Reverse(x.0));
    let want: Vec<i64> = ids.iter().map(|x| x.1).collect();
    let (rows, total) = s.list(2, 0).await.unwrap();
    assert_eq!(total, 4);
    assert_eq!(rows.iter().map(|r| r.id).collect::<Vec<_>>(), want[..2]);
    let (rows, _) = s.list(10, 2).await.unwrap();
    assert_eq!(rows.iter().map(|r| r.id).collect::<Vec<_>>(), want[2..]);
    let (rows, total) = s.list(10, 10).await.unwrap();
    assert!(rows.is_empty());
    assert_eq!(total, 4);
}

fn live_row(id: &str) -> LiveRow {
    LiveRow {
        id: id.into(),
        created: 1,
        updated: 1,
        start_fen: START.into(),
        clock: Some((180_000, 2_000)),
        names: ["Red".into(), "Black".into()],
        keys: ["a".repeat(64), "b".repeat(64)],
        times: Some([180_000, 180_000, 0, 0]),
        declared: None,
        status: "created".into(),
        winner: String::new(),
        rematch: String::new(),
        days: None,
        deadline: None,
    }
}

fn live_create(id: &str) -> LiveWrite {
    LiveWrite::Create {
        row: live_row(id),
        moves: vec![],
    }
}

fn change(status: &str, times: Option<[u64; 4]>) -> LiveChange {
    LiveChange {
        updated: 5,
        times,
        declared: None,
        status: status.into(),
        winner: String::new(),
        deadline: None,
    }
}

fn live_move(id: &str, ply: i64, uci: &str) -> LiveWrite {
    LiveWrite::Move {
        id: id.into(),
        ply,
        uci: uci.into(),
        change: change("started", Some([170_000, 180_000, 1, 0])),
    }
}

async fn live_games_round_trip(db: &Db) {
    let s = db.store().await;
    s.write(Write::Live(live_create("Lgame0000001")))
        .await
        .unwrap();
    let mut untimed = live_row("Lgame0000002");
    untimed.clock = None;
    untimed.times = None;
    s.write(Write::Live(LiveWrite::Create {
        row: untimed.clone(),
        moves: strings(&["h2e2", "h9g7"]),
    }))
    .await
    .unwrap();
    for (ply, m) in ["h2e2", "h9g7", "h0g2"].iter().enumerate() {
        s.write(Write::Live(live_move("Lgame0000001", ply as i64, m)))
            .await
            .unwrap();
    }
    let (r, moves) = s.load_live("Lgame0000001").await.unwrap().unwrap();
    assert_eq!(moves, ["h2e2", "h9g7", "h0g2"]);
    assert_eq!(r.status, "started");
    assert_eq!(r.times, Some([170_000, 180_000, 1, 0]));
    assert_eq!(r.clock, Some((180_000, 2_000)));
    let (r2, moves2) = s.load_live("Lgame0000002").await.unwrap().unwrap();
    assert_eq!(r2, untimed);
    assert_eq!(moves2, ["h2e2", "h9g7"]);
    // A correspondence game: its days and its deadline (wall ms), kept and changed.
    let mut corr = live_row("Lcorr0000001");
    corr.clock = None;
    corr.times = None;
    corr.days = Some(3);
    corr.deadline = Some(1_764_000_000_123);
    s.write(Write::Live(LiveWrite::Create {
        row: corr.clone(),
        moves: vec![],
    }))
    .await
    .unwrap();
    assert_eq!(s.load_live("Lcorr0000001").await.unwrap().unwrap().0, corr);
    s.write(Write::Live(LiveWrite::Move {
        id: "Lcorr0000001".into(),
        ply: 0,
        uci: "h2e2".into(),
        change: LiveChange {
            deadline: Some(1_764_259_200_456),
            ..change("started", None)
        },
    }))
    .await
    .unwrap();
    let (r3, _) = s.load_live("Lcorr0000001").await.unwrap().unwrap();
    assert_eq!((r3.days, r3.deadline), (Some(3), Some(1_764_259_200_456)));
    s.write(Write::Live(LiveWrite::Update {
        id: "Lcorr0000001".into(),
        change: change("aborted", None),
    }))
    .await
    .unwrap();
    let (r3, _) = s.load_live("Lcorr0000001").await.unwrap().unwrap();
    assert_eq!(
        (r3.days, r3.deadline),
        (Some(3), None),
        "no deadline once over"
    );
    // A takeback, then an end.
    s.write(Write::Live(LiveWrite::Truncate {
        id: "Lgame0000001".into(),
        ply: 1,
        change: change("started", Some([1, 2, 3, 4])),
    }))
    .await
    .unwrap();
    let (_, moves) = s.load_live("Lgame0000001").await.unwrap().unwrap();
    assert_eq!(moves, ["h2e2"]);
    let mut unfinished: Vec<String> = s
        .unfinished_live()
        .await
        .unwrap()
        .into_iter()
        .map(|(r, _)| r.id)
        .collect();
    unfinished.sort();
    assert_eq!(unfinished, ["Lgame0000001", "Lgame0000002"]);
    s.write(Write::Live(LiveWrite::Update {
        id: "Lgame0000001".into(),
        change: LiveChange {
            updated: 9,
            times: Some([1, 0, 3, 4]),
            declared: Some(LiveEnd::Flagged(xiangqi::Color::Black)),
            status: "outoftime".into(),
            winner: "red".into(),
            deadline: None,
        },
    }))
    .await
    .unwrap();
    s.write(Write::Live(LiveWrite::Rematch {
        id: "Lgame0000001".into(),
        rematch: "Lgame0000003".into(),
    }))
    .await
    .unwrap();
    let (r, _) = s.load_live("Lgame0000001").await.unwrap().unwrap();
    assert_eq!(
        (
            LiveEnd::text(r.declared),
            r.status.as_str(),
            r.winner.as_str(),
            r.rematch.as_str(),
            r.updated
        ),
        ("flag-black", "outoftime", "red", "Lgame0000003", 9)
    );
    let unfinished = s.unfinished_live().await.unwrap();
    assert_eq!(unfinished.len(), 1);
    assert_eq!(unfinished[0].0.id, "Lgame0000002");
    assert_eq!(unfinished[0].1, ["h2e2", "h9g7"]);
    // The games ended after a point of the order (updated, id) (an aborted one never): the
    // flagged game, ended at 9, after (8, anything) and (9, an id before its own), not after
    // (9, its id); a limit of 0 gives none.
    for (updated, id) in [(8, "Zzz"), (9, ""), (9, "Lgame0000000")] {
        let ended = s.ended_live_after(updated, id, 10).await.unwrap();
        assert_eq!(
            ended
                .iter()
                .map(|(r, m)| (r.id.as_str(), m.clone()))
                .collect::<Vec<_>>(),
            [("Lgame0000001", vec!["h2e2".to_owned()])],
            "after ({updated}, {id})"
        );
    }
    assert!(s
        .ended_live_after(9, "Lgame0000001", 10)
        .await
        .unwrap()
        .is_empty());
    assert!(s.ended_live_after(0, "", 0).await.unwrap().is_empty());
    assert!(s.load_live("Lnothere0000").await.unwrap().is_none());
    // A write to a live game that is not there.
    assert!(s
        .write(Write::Live(live_move("Lnothere0000", 0, "h2e2")))
        .await
        .is_err());
}

async fn concurrent_writes_all_land_and_a_bad_one_fails_alone(db: &Db) {
    let s = db.store().await;
    let mut ids = vec![];
    for i in 0..8 {
        ids.push(create(&s, row(Mode::TwoPlayer, i), &[]).await);
    }
    let line = ["h2e2", "h9g7", "h0g2", "i9h9", "i0h0", "b9c7"];
    let mut tasks = vec![];
    for &id in &ids {
        let s = s.clone();
        tasks.push(tokio::spawn(async move {
            for (ply, m) in line.iter().enumerate() {
                s.write(add(id, ply as i64, m)).await.unwrap();
            }
        }));
    }
    // Bad writes among them: a game that does not exist, a ply taken by another move.
    let bad = {
        let s = s.clone();
        tokio::spawn(async move {
            let mut errors = 0;
            for k in 0..6 {
                if s.write(add(999_999, k, "h2e2")).await.is_err() {
                    errors += 1;
                }
            }
            errors
        })
    };
    for t in tasks {
        t.await.unwrap();
    }
    assert_eq!(bad.await.unwrap(), 6);
    assert!(s.write(add(ids[0], 0, "c3c4")).await.is_err());
    for &id in &ids {
        let (r, moves, _, _) = s.load(id).await.unwrap().unwrap();
        assert_eq!(moves, line, "game {id}");
        assert_eq!(r.plies, 6);
    }
}

async fn writes_survive_reopening_and_migrations_run_once(db: &Db) {
    let id;
    {
        let s = db.store().await;
        assert_eq!(s.schema_version().await.unwrap(), MIGRATIONS.len() as i64);
        id = create(&s, row(Mode::TwoPlayer, 3), &["h2e2"]).await;
        s.write(add(id, 1, "h9g7")).await.unwrap();
        s.write(Write::Live(live_create("Lreopen00001")))
            .await
            .unwrap();
    }
    let s = db.store().await;
    let (_, moves, _, _) = s.load(id).await.unwrap().unwrap();
    assert_eq!(moves, ["h2e2", "h9g7"]);
    assert!(s.load_live("Lreopen00001").await.unwrap().is_some());
    assert_eq!(s.schema_version().await.unwrap(), MIGRATIONS.len() as i64);
    // One row per migration, however often the store was opened.
    assert_eq!(
        db.count("SELECT count(*) FROM schema_migrations").await,
        MIGRATIONS.len() as i64
    );
}

async fn every_live_end_round_trips_and_an_unknown_one_is_corrupt(db: &Db) {
    let s = db.store().await;
    s.write(Write::Live(live_create("Lends0000001")))
        .await
        .unwrap();
    for end in LiveEnd::ALL.map(Some).into_iter().chain([None]) {
        let ch = LiveChange {
            declared: end,
            ..change("started", Some([1, 2, 0, 0]))
        };
        s.write(Write::Live(LiveWrite::Update {
            id: "Lends0000001".into(),
            change: ch,
        }))
        .await
        .unwrap();
        let (r, _) = s.load_live("Lends0000001").await.unwrap().unwrap();
        assert_eq!(r.declared, end);
        assert_eq!(LiveEnd::parse(LiveEnd::text(end)), Ok(end));
    }
    // The texts are the ones earlier versions stored.
    assert_eq!(
        LiveEnd::ALL.map(LiveEnd::as_str),
        [
            "aborted",
            "claim-red",
            "claim-black",
            "claim-draw",
            "resign-red",
            "resign-black",
            "draw",
            "flag-red",
            "flag-black"
        ]
    );
    db.sql("UPDATE live_games SET declared = 'resign-blue' WHERE id = 'Lends0000001'")
        .await;
    let e = s.load_live("Lends0000001").await.unwrap_err().to_string();
    assert!(e.contains("resign-blue"), "{e}");
}

async fn a_newer_schema_is_refused(db: &Db) {
    drop(db.store().await);
    db.sql("INSERT INTO schema_migrations (version, name, applied) VALUES (999, 'future', 0)")
        .await;
    let e = db.open().await.err().expect("a newer schema is refused");
    let msg = e.to_string();
    assert!(
        msg.contains("schema version 999") && msg.contains("newer"),
        "{msg}"
    );
}

async fn a_damaged_value_is_reported_as_corrupt(db: &Db) {
    let s = db.store().await;
    let id = create(&s, row(Mode::TwoPlayer, 1), &[]).await;
    db.sql(&format!(
        "UPDATE games SET mode = 'chess960' WHERE id = {id}"
    ))
    .await;
    let e = s.load(id).await.unwrap_err();
    assert!(matches!(e, StoreError::Corrupt(_)), "{e:?}");
    assert!(e.to_string().contains("chess960"), "{e}");
    s.write(Write::Live(live_create("Lbroken00001")))
        .await
        .unwrap();
    db.sql("UPDATE live_games SET clock = '1 2 x' WHERE id = 'Lbroken00001'")
        .await;
    let e = s.load_live("Lbroken00001").await.unwrap_err();
    assert!(matches!(e, StoreError::Corrupt(_)), "{e:?}");
}

async fn hostile_text_is_stored_verbatim(db: &Db) {
    let s = db.store().await;
    let hostile = [
        "Robert'); DROP TABLE live_games;--",
        "<script>alert(1)</script>",
        "象棋 \u{1F600} \\ \" '' $1 ?1",
    ];
    let mut r = live_row("Lhostile0001");
    r.names = [hostile[0].into(), hostile[1].into()];
    s.write(Write::Live(LiveWrite::Create {
        row: r.clone(),
        moves: vec![],
    }))
    .await
    .unwrap();
    let (got, _) = s.load_live("Lhostile0001").await.unwrap().unwrap();
    assert_eq!(got.names, r.names);
    let mut g = row(Mode::Analysis, 1);
    g.tags = serde_json::json!({ "Event": hostile[2], "Site": hostile[0] }).to_string();
    let id = create(&s, g.clone(), &[]).await;
    let (got, _, _, _) = s.load(id).await.unwrap().unwrap();
    assert_eq!(got.tags, g.tags);
    assert!(s.load_live("Lhostile0001").await.unwrap().is_some());
}

fn user(name: &str) -> Write {
    Write::Account(AccountWrite::CreateUser {
        name: name.into(),
        name_key: name.to_lowercase(),
        password_hash: format!("$argon2id$fake${name}"),
        created: 10,
    })
}

async fn accounts_names_are_unique_and_sessions_end(db: &Db) {
    let s = db.store().await;
    let id = s
        .create_user("Alice", "alice", "$argon2id$h", 10)
        .await
        .unwrap()
        .expect("a new name");
    // The same name in another case is taken; nothing is written for it.
    assert_eq!(
        s.create_user("ALICE", "alice", "x", 11).await.unwrap(),
        None
    );
    let bob = s
        .create_user("Bob", "bob", "$argon2id$b", 12)
        .await
        .unwrap()
        .unwrap();
    assert_ne!(id, bob);
    let u = s.user_by_key("alice").await.unwrap().unwrap();
    assert_eq!(
        (u.id, u.name.as_str(), u.password_hash.as_str()),
        (id, "Alice", "$argon2id$h")
    );
    assert_eq!(s.user_by_id(bob).await.unwrap().unwrap().name, "Bob");
    assert!(s.user_by_key("carol").await.unwrap().is_none());
    for (key, at) in [("k1", 100), ("k2", 100)] {
        s.account(AccountWrite::CreateSession {
            key: key.into(),
            user_id: id,
            csrf: format!("csrf-{key}"),
            created: at,
            expires: at + 1000,
        })
        .await
        .unwrap();
    }
    let sess = s.session("k1", 500).await.unwrap().unwrap();
    assert_eq!(
        (sess.user_id, sess.name.as_str(), sess.csrf.as_str()),
        (id, "Alice", "csrf-k1")
    );
    // Expired, logged out.
    assert!(s.session("k1", 1100).await.unwrap().is_none());
    assert_eq!(
        s.account(AccountWrite::DeleteSession { key: "k1".into() })
            .await
            .unwrap(),
        1
    );
    assert!(s.session("k1", 500).await.unwrap().is_none());
    assert!(s.session("k2", 500).await.unwrap().is_some());
    // A new password ends every session of the account.
    s.account(AccountWrite::SetPassword {
        user_id: id,
        password_hash: "$argon2id$new".into(),
    })
    .await
    .unwrap();
    assert!(s.session("k2", 500).await.unwrap().is_none());
    assert_eq!(
        s.user_by_id(id).await.unwrap().unwrap().password_hash,
        "$argon2id$new"
    );
}

async fn api_tokens_belong_to_their_account(db: &Db) {
    let s = db.store().await;
    let alice = s.write(user("alice")).await.unwrap();
    let bob = s.write(user("bob")).await.unwrap();
    let t1 = s
        .account(AccountWrite::CreateToken {
            user_id: alice,
            key: "hash-1".into(),
            label: "bot <script>".into(),
            created: 5,
        })
        .await
        .unwrap();
    let t2 = s
        .account(AccountWrite::CreateToken {
            user_id: alice,
            key: "hash-2".into(),
            label: "".into(),
            created: 6,
        })
        .await
        .unwrap();
    assert_ne!(t1, t2);
    // A key already there is taken.
    let e = s
        .account(AccountWrite::CreateToken {
            user_id: bob,
            key: "hash-1".into(),
            label: "x".into(),
            created: 7,
        })
        .await
        .unwrap_err();
    assert!(matches!(e, StoreError::Taken(_)), "{e:?}");
    assert_eq!(
        s.token_user("hash-1").await.unwrap(),
        Some((alice, "alice".into(), false))
    );
    let list = s.tokens(alice).await.unwrap();
    assert_eq!(list.iter().map(|t| t.id).collect::<Vec<_>>(), [t1, t2]);
    assert_eq!(list[0].label, "bot <script>");
    assert!(s.tokens(bob).await.unwrap().is_empty());
    // Bob cannot revoke Alice's token; Alice can.
    assert_eq!(
        s.account(AccountWrite::RevokeToken {
            user_id: bob,
            id: t1
        })
        .await
        .unwrap(),
        0
    );
    assert_eq!(
        s.account(AccountWrite::RevokeToken {
            user_id: alice,
            id: t1
        })
        .await
        .unwrap(),
        1
    );
    assert!(s.token_user("hash-1").await.unwrap().is_none());
}

async fn a_rated_game_is_rated_once_with_its_history(db: &Db) {
    let s = db.store().await;
    let red = s.write(user("red")).await.unwrap();
    let black = s.write(user("black")).await.unwrap();
    let mut row = live_row("Lrated000001");
    row.names = ["red".into(), "black".into()];
    s.write(Write::Live(LiveWrite::Create { row, moves: vec![] }))
        .await
        .unwrap();
    s.account(AccountWrite::Seats {
        game_id: "Lrated000001".into(),
        users: [Some(red), Some(black)],
        rated: true,
        speed: Speed::Blitz,
    })
    .await
    .unwrap();
    // Each account's ongoing games, with its side: until the game ends.
    assert_eq!(
        s.playing(red).await.unwrap(),
        [("Lrated000001".to_owned(), xiangqi::Color::Red)]
    );
    assert_eq!(
        s.playing(black).await.unwrap(),
        [("Lrated000001".to_owned(), xiangqi::Color::Black)]
    );
    let seats = s.live_seats("Lrated000001").await.unwrap().unwrap();
    assert!(seats.rated && seats.rated_at.is_none());
    assert_eq!(seats.speed, Speed::Blitz);
    assert_eq!(
        seats.users[0].as_ref().unwrap().before,
        Some((rating::START.rating, rating::START.rd))
    );
    s.write(Write::Live(LiveWrite::Update {
        id: "Lrated000001".into(),
        change: LiveChange {
            updated: 9,
            times: None,
            declared: Some(LiveEnd::Resigned(xiangqi::Color::Black)),
            status: "resign".into(),
            winner: "red".into(),
            deadline: None,
        },
    }))
    .await
    .unwrap();
    assert!(
        s.playing(red).await.unwrap().is_empty(),
        "over: not playing"
    );
    let rate = || AccountWrite::Rate {
        game_id: "Lrated000001".into(),
        score_red: 1.0,
        at: 50,
    };
    assert_eq!(s.account(rate()).await.unwrap(), 1);
    assert_eq!(s.account(rate()).await.unwrap(), 0, "a game is rated once");
    let want = rating::update(rating::START, &[(rating::START, 1.0)], rating::TAU);
    let r = s.rating_of(red, Speed::Blitz).await.unwrap();
    assert!((r.rating - want.rating).abs() < 1e-9 && r.rating > rating::START.rating);
    let b = s.rating_of(black, Speed::Blitz).await.unwrap();
    assert!(b.rating < rating::START.rating);
    assert_eq!(
        s.rating_of(red, Speed::Bullet).await.unwrap(),
        rating::START
    );
    let ratings = s.ratings(red).await.unwrap();
    assert_eq!(ratings.len(), 1);
    assert_eq!((ratings[0].speed, ratings[0].games), (Speed::Blitz, 1));
    let seats = s.live_seats("Lrated000001").await.unwrap().unwrap();
    assert_eq!(seats.rated_at, Some(50));
    let diff = seats.users[0].as_ref().unwrap().diff.unwrap();
    assert!((diff - (want.rating - rating::START.rating)).abs() < 1e-9);
    let p = s.profile("red").await.unwrap().unwrap();
    assert_eq!(p.name, "red");
    assert_eq!(p.history.len(), 1);
    assert_eq!(p.history[0].game_id, "Lrated000001");
    assert_eq!(p.recent.len(), 1);
    assert_eq!(p.recent[0].side, xiangqi::Color::Red);
    assert_eq!((p.counts.wins, p.counts.draws, p.counts.losses), (1, 0, 0));
    let pb = s.profile("black").await.unwrap().unwrap();
    assert_eq!((pb.counts.wins, pb.counts.losses), (0, 1));
    assert!(s.profile("nobody").await.unwrap().is_none());
    let board = s.leaderboard(Speed::Blitz, 10).await.unwrap();
    assert_eq!(
        board.iter().map(|l| l.name.as_str()).collect::<Vec<_>>(),
        ["red", "black"]
    );
    assert_eq!(s.leaderboard(Speed::Blitz, 1).await.unwrap().len(), 1);
    assert!(s.leaderboard(Speed::Rapid, 10).await.unwrap().is_empty());
}

async fn a_batch_succeeds_or_fails_whole(db: &Db) {
    let s = db.store().await;
    let id = create(&s, row(Mode::TwoPlayer, 1), &[]).await;
    // The second write fails (a game that is not there): the first is not kept either.
    assert!(s
        .write(Write::Batch(vec![
            add(id, 0, "h2e2"),
            add(id + 1000, 0, "h2e2")
        ]))
        .await
        .is_err());
    let (_, moves, _, _) = s.load(id).await.unwrap().unwrap();
    assert!(moves.is_empty());
    s.write(Write::Batch(vec![add(id, 0, "h2e2"), add(id, 1, "h9g7")]))
        .await
        .unwrap();
    let (r, moves, _, _) = s.load(id).await.unwrap().unwrap();
    assert_eq!(moves, ["h2e2", "h9g7"]);
    assert_eq!(r.plies, 2);
}

async fn notes_are_set_replaced_removed_and_go_with_their_game(db: &Db) {
    let s = db.store().await;
    let id = create(&s, row(Mode::Analysis, 1), &["h2e2", "h9g7"]).await;
    let note = |id: i64, path: &str, text: &str, nags: Vec<u8>, updated: i64| Write::SetNote {
        id,
        path: path.into(),
        note: Note {
            text: text.into(),
            nags,
        },
        updated,
    };
    s.write(note(id, "h2e2", "good", vec![1], 5)).await.unwrap();
    s.write(note(
        id,
        "h2e2 h9g7",
        "<b>'; DROP TABLE notes;--",
        vec![],
        6,
    ))
    .await
    .unwrap();
    s.write(note(id, "h2e2", "better", vec![3, 18], 7))
        .await
        .unwrap();
    let (r, _, _, notes) = s.load(id).await.unwrap().unwrap();
    assert_eq!(r.updated, 7);
    assert_eq!(notes.len(), 2);
    assert_eq!(notes[0].0, "h2e2");
    assert_eq!(
        (notes[0].1.text.as_str(), notes[0].1.nags.as_slice()),
        ("better", &[3u8, 18][..])
    );
    assert_eq!(notes[1].1.text, "<b>'; DROP TABLE notes;--");
    // An empty note removes it.
    s.write(note(id, "h2e2", "", vec![], 8)).await.unwrap();
    let (_, _, _, notes) = s.load(id).await.unwrap().unwrap();
    assert_eq!(notes.len(), 1);
    // A game that is not there.
    assert!(s.write(note(id + 1000, "", "x", vec![], 9)).await.is_err());
    s.write(Write::Delete { id }).await.unwrap();
    assert_eq!(db.count("SELECT count(*) FROM notes").await, 0);
}

async fn a_review_is_kept_replaced_and_goes_with_its_game(db: &Db) {
    let s = db.store().await;
    let id = create(&s, row(Mode::TwoPlayer, 1), &["h2e2", "h9g7"]).await;
    assert!(s.load_review(id).await.unwrap().is_none());
    let review = |depth: i64, data: &str| {
        Write::SaveReview(StoredReview {
            game_id: id,
            moves: "h2e2 h9g7".into(),
            depth,
            created: 10 + depth,
            data: data.into(),
        })
    };
    s.write(review(8, r#"{"plies":[]}"#)).await.unwrap();
    s.write(review(10, "{\"note\":\"'; DROP TABLE reviews;--\"}"))
        .await
        .unwrap();
    let r = s.load_review(id).await.unwrap().unwrap();
    assert_eq!(
        (r.game_id, r.moves.as_str(), r.depth, r.created),
        (id, "h2e2 h9g7", 10, 20)
    );
    assert_eq!(r.data, "{\"note\":\"'; DROP TABLE reviews;--\"}");
    // A review of a game that is not there is refused.
    let mut other = review(4, "{}");
    if let Write::SaveReview(r) = &mut other {
        r.game_id = id + 1000;
    }
    assert!(s.write(other).await.is_err());
    s.write(Write::Delete { id }).await.unwrap();
    assert!(s.load_review(id).await.unwrap().is_none());
    assert_eq!(db.count("SELECT count(*) FROM reviews").await, 0);
}

/// Every statement of the one table (`store::sql::ALL`) prepares on the migrated schema of
/// its database, and its two texts take the same number of parameters, the highest `$N` of
/// the PostgreSQL text: the SQLite text binds the same values in the same places.
async fn the_write_statements_prepare_alike(db: &Db) {
    use xiangqi_server::store::sql::ALL;
    drop(db.store().await); // the schema, migrated
    assert!(!ALL.is_empty());
    let mut failed = vec![];
    for (name, st) in ALL {
        let text = match db {
            Db::Sqlite(_) => st.sqlite,
            Db::Postgres { .. } => st.postgres,
        };
        let highest = (1..=30)
            .rev()
            .find(|n| st.postgres.contains(&format!("${n}")))
            .unwrap_or(0);
        for n in 1..=highest {
            assert!(
                st.postgres.contains(&format!("${n}")) && st.sqlite.contains(&format!("?{n}")),
                "{name}: parameter {n} missing from a text"
            );
        }
        assert!(
            !st.sqlite.contains('$'),
            "{name}: a '$' left in the SQLite text"
        );
        match db.parameters(text).await {
            Ok(n) if n == highest => {}
            Ok(n) => failed.push(format!("{name}: {n} parameters, the table says {highest}")),
            Err(e) => failed.push(format!("{name}: {e}")),
        }
    }
    assert!(failed.is_empty(), "statements refused: {failed:#?}");
}

async fn chat_lines_blocks_and_preferences_round_trip(db: &Db) {
    let s = db.store().await;
    let ann = s.write(user("Ann")).await.unwrap();
    let bo = s.write(user("Bo")).await.unwrap();
    s.write(Write::Live(live_create("ChAt0001"))).await.unwrap();
    let line = |seq: i64, user_id: Option<i64>, text: &str| ChatRow {
        game_id: "ChAt0001".into(),
        seq,
        room: if user_id.is_some() {
            "spectator"
        } else {
            "player"
        }
        .into(),
        author: "Red".into(),
        user_id,
        user: None,
        seat: if user_id.is_some() { "" } else { "red" }.into(),
        text: text.into(),
        at: 100 + seq,
    };
    let hostile = "<script>alert(1)</script>'; DROP TABLE chat_lines; --";
    for (seq, u, t) in [(0, None, "hi"), (1, Some(ann), hostile), (2, None, "好")] {
        s.write(Write::Chat(ChatWrite::Line(line(seq, u, t))))
            .await
            .unwrap();
    }
    // A second line with a number already taken is refused: one owner, one order.
    assert!(s
        .write(Write::Chat(ChatWrite::Line(line(2, None, "again"))))
        .await
        .is_err());
    let rows = s.chat_lines("ChAt0001").await.unwrap();
    assert_eq!(rows.len(), 3);
    assert_eq!(rows[1].text, hostile);
    assert_eq!(
        rows[1].user.as_deref(),
        Some("Ann"),
        "the author's name read back"
    );
    assert_eq!(rows[0], line(0, None, "hi"));
    assert!(s.chat_lines("NoSuch00").await.unwrap().is_empty());

    assert!(s.blocking(ann).await.unwrap().is_empty());
    for _ in 0..2 {
        s.write(Write::Chat(ChatWrite::Block {
            user_id: ann,
            blocked_id: bo,
            created: 5,
        }))
        .await
        .unwrap();
    }
    assert_eq!(s.blocking(ann).await.unwrap(), [(bo, "Bo".to_owned())]);
    assert!(s.blocking(bo).await.unwrap().is_empty(), "one way");
    let n = s
        .write(Write::Chat(ChatWrite::Unblock {
            user_id: ann,
            blocked_id: bo,
        }))
        .await
        .unwrap();
    assert_eq!(n, 1);
    assert!(s.blocking(ann).await.unwrap().is_empty());

    assert!(s.chat_on(ann).await.unwrap(), "on by default");
    for on in [false, true, false] {
        s.write(Write::Chat(ChatWrite::SetChat { user_id: ann, on }))
            .await
            .unwrap();
        assert_eq!(s.chat_on(ann).await.unwrap(), on);
    }
    assert!(s.chat_on(bo).await.unwrap());

    // The app's language: none until chosen; chosen again, the last one; one account's.
    assert_eq!(s.lang_of(ann).await.unwrap(), None);
    for lang in ["vi", "zh-Hant"] {
        s.write(Write::Chat(ChatWrite::SetLang {
            user_id: ann,
            lang: lang.into(),
        }))
        .await
        .unwrap();
        assert_eq!(s.lang_of(ann).await.unwrap().as_deref(), Some(lang));
    }
    assert!(!s.chat_on(ann).await.unwrap(), "the chat preference kept");
    assert_eq!(s.lang_of(bo).await.unwrap(), None);
}
