//! PostgreSQL for the tests: the server's URL from `XIANGQI_TEST_POSTGRES` (as
//! `.ci/services start` prints it; its user may create databases) and a fresh database per
//! test. Without the variable a PostgreSQL test says it skipped, except under `CI=true`,
//! where it fails.

#![allow(dead_code)]

/// The PostgreSQL URL for tests, or `None` (with a message) when it is not set; under
/// `CI=true` a missing URL fails the test.
pub fn url() -> Option<String> {
    match std::env::var("XIANGQI_TEST_POSTGRES") {
        Ok(u) if !u.is_empty() => Some(u),
        _ => {
            if std::env::var("CI").is_ok_and(|v| v == "true") {
                panic!(
                    "XIANGQI_TEST_POSTGRES is not set under CI=true: .ci/run starts a \
                     PostgreSQL with .ci/services and exports it"
                );
            }
            eprintln!(
                "skipped: XIANGQI_TEST_POSTGRES is not set (eval \"$(bash .ci/services start \
                 postgres)\" to run the PostgreSQL half)"
            );
            None
        }
    }
}

/// Whether the HTTP suites run on PostgreSQL (`XIANGQI_TEST_API_BACKEND=postgres`, which
/// needs `XIANGQI_TEST_POSTGRES`) rather than SQLite.
pub fn api_on_postgres() -> bool {
    match std::env::var("XIANGQI_TEST_API_BACKEND").as_deref() {
        Ok("postgres") => {
            assert!(
                std::env::var("XIANGQI_TEST_POSTGRES").is_ok_and(|u| !u.is_empty()),
                "XIANGQI_TEST_API_BACKEND=postgres needs XIANGQI_TEST_POSTGRES"
            );
            true
        }
        Ok("sqlite") | Ok("") | Err(_) => false,
        Ok(other) => panic!("XIANGQI_TEST_API_BACKEND: '{other}' is not sqlite or postgres"),
    }
}

/// Runs SQL on the database at `url`.
pub async fn exec(url: &str, sql: &str) {
    let (client, conn) = tokio_postgres::connect(url, tokio_postgres::NoTls)
        .await
        .unwrap_or_else(|e| panic!("cannot connect to {url}: {e}"));
    let task = tokio::spawn(conn);
    let r = client.batch_execute(sql).await;
    drop(client);
    let _ = task.await;
    r.unwrap_or_else(|e| panic!("{sql}: {}", explain(&e)));
}

/// A PostgreSQL error with the server's words: its SQLSTATE, message and detail
/// (tokio-postgres's own `Display` says only "db error").
pub fn explain(e: &tokio_postgres::Error) -> String {
    match e.as_db_error() {
        Some(db) => format!(
            "{} ({}){}",
            db.message(),
            db.code().code(),
            db.detail().map(|d| format!(": {d}")).unwrap_or_default()
        ),
        None => format!("{e:?}"),
    }
}

/// Creates database `name` from `template0`. Concurrent tests create databases at once, and
/// PostgreSQL refuses a `CREATE DATABASE` while another session is on its template (SQLSTATE
/// 55006, "being accessed by other users"): `template0` takes no connections, and a refusal
/// is tried again for up to ten seconds. A database already there is kept.
pub async fn create_database(admin: &str, name: &str) {
    let sql = format!("CREATE DATABASE {name} TEMPLATE template0");
    for attempt in 0.. {
        let (client, conn) = tokio_postgres::connect(admin, tokio_postgres::NoTls)
            .await
            .unwrap_or_else(|e| panic!("cannot connect to {admin}: {}", explain(&e)));
        let task = tokio::spawn(conn);
        let r = client.batch_execute(&sql).await;
        drop(client);
        let _ = task.await;
        let Err(e) = r else { return };
        let state = e.as_db_error().map(|db| db.code().code().to_owned());
        match state.as_deref() {
            Some("42P04") => return,
            // Any other refusal (one CI run saw "db error" here, its words unrecorded) is
            // tried again too, and named if it lasts.
            Some(_) if attempt < 50 => {
                if attempt == 0 {
                    eprintln!("{sql}: {} (trying again)", explain(&e));
                }
                tokio::time::sleep(std::time::Duration::from_millis(200)).await
            }
            _ => panic!("{sql}: {} (attempt {})", explain(&e), attempt + 1),
        }
    }
}

/// One number SQL answers from the database at `url`.
pub async fn count(url: &str, sql: &str) -> i64 {
    let (client, conn) = tokio_postgres::connect(url, tokio_postgres::NoTls)
        .await
        .unwrap_or_else(|e| panic!("cannot connect to {url}: {e}"));
    let task = tokio::spawn(conn);
    let n: i64 = client
        .query_one(sql, &[])
        .await
        .unwrap_or_else(|e| panic!("{sql}: {}", explain(&e)))
        .get(0);
    drop(client);
    let _ = task.await;
    n
}

/// Prepares `sql` on the database at `url`: the number of parameters it takes, or the
/// server's refusal.
pub async fn parameters(url: &str, sql: &str) -> Result<usize, String> {
    let (client, conn) = tokio_postgres::connect(url, tokio_postgres::NoTls)
        .await
        .unwrap_or_else(|e| panic!("cannot connect to {url}: {e}"));
    let task = tokio::spawn(conn);
    let r = client
        .prepare(sql)
        .await
        .map(|st| st.params().len())
        .map_err(|e| format!("{e:?}"));
    drop(client);
    let _ = task.await;
    r
}

/// `url` with its database name replaced.
pub fn with_db(url: &str, name: &str) -> String {
    let (base, rest) = url.split_once('?').unwrap_or((url, ""));
    let (base, _) = base.rsplit_once('/').expect("a URL with a database name");
    let query = if rest.is_empty() {
        String::new()
    } else {
        format!("?{rest}")
    };
    format!("{base}/{name}{query}")
}

/// A database name from any text (letters, digits and `_`, at most 63 bytes).
pub fn db_name(s: &str) -> String {
    let mut n: String = s
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect();
    n.truncate(63);
    n
}

/// The URL of database `name` on the test server, made if it is not there yet.
pub async fn database(admin: &str, name: &str) -> String {
    create_database(admin, name).await;
    with_db(admin, name)
}

/// Drops database `name` (closing its connections).
pub async fn drop_database(admin: &str, name: &str) {
    exec(
        admin,
        &format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"),
    )
    .await;
}

/// The same from outside a runtime (a `Drop`): on a thread of its own.
pub fn drop_database_blocking(admin: &str, name: &str) {
    let (admin, name) = (admin.to_owned(), name.to_owned());
    let _ = std::thread::spawn(move || {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime")
            .block_on(drop_database(&admin, &name))
    })
    .join();
}

/// The store of folder `dir` for the HTTP suites: SQLite in it, or with
/// `XIANGQI_TEST_API_BACKEND=postgres` a PostgreSQL database named after it (opening it again
/// sees what was written).
pub async fn store_at(dir: &std::path::Path) -> xiangqi_server::store::Store {
    use xiangqi_server::store::Store;
    if api_on_postgres() {
        let name = db_name(&dir.file_name().unwrap().to_string_lossy());
        let url = database(&url().unwrap(), &name).await;
        Store::connect(&url).await.expect("connect to the store")
    } else {
        Store::open(dir).expect("open store")
    }
}

/// A fresh store for folder `dir` (its old file or database removed).
pub async fn fresh_store(dir: &std::path::Path) -> xiangqi_server::store::Store {
    let _ = std::fs::remove_dir_all(dir);
    if api_on_postgres() {
        let name = db_name(&dir.file_name().unwrap().to_string_lossy());
        drop_database(&url().unwrap(), &name).await;
    }
    store_at(dir).await
}
