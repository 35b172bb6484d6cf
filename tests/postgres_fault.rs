//! Fault test with real processes: `xiangqi serve --database postgres://...` while its
//! PostgreSQL is stopped mid-game and started again. Moves are refused with `503` while the
//! database is away (never confirmed and then lost), the server comes back by itself (no
//! restart), and every confirmed move is in the database afterwards (read back by a second
//! server process), a refused one is not. A flag that falls meanwhile is stored once the
//! database is back, the timer trying again each second rather than in a busy loop.
//!
//! The test runs a PostgreSQL cluster of its own (`.ci/services start postgres` in a fresh
//! folder on a free port), so it can stop it without disturbing other tests. It needs the
//! PostgreSQL server programs: it runs when `XIANGQI_TEST_POSTGRES` is set (as `.ci/run`
//! does), says it skipped otherwise, and fails under `CI=true` when that is not set.

use std::io::{BufRead, BufReader};
use std::net::{SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;
use xiangqi_server::client::{self, Request};

fn services_script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(".ci/services")
}

/// A PostgreSQL cluster of this test's own, stopped and removed when dropped.
struct Postgres {
    dir: PathBuf,
    url: String,
}

impl Postgres {
    fn services(dir: &Path, args: &[&str], port: u16) -> String {
        let out = Command::new("bash")
            .arg(services_script())
            .args(args)
            .env("XIANGQI_SERVICES_DIR", dir)
            .env("PG_PORT", port.to_string())
            .stdin(Stdio::null())
            .output()
            .expect("run .ci/services");
        assert!(
            out.status.success(),
            ".ci/services {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    fn start() -> Postgres {
        let port = free_port();
        let dir = std::env::temp_dir().join(format!("xiangqi-pg-fault-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let out = Postgres::services(&dir, &["start", "postgres"], port);
        let url = out
            .lines()
            .find_map(|l| l.strip_prefix("export XIANGQI_TEST_POSTGRES="))
            .unwrap_or_else(|| panic!("no URL from .ci/services: {out}"))
            .to_owned();
        Postgres { dir, url }
    }

    fn down(&self) {
        Postgres::services(&self.dir, &["down", "postgres"], 0);
    }

    fn up(&self) {
        Postgres::services(&self.dir, &["up", "postgres"], 0);
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        let _ = Command::new("bash")
            .arg(services_script())
            .arg("stop")
            .env("XIANGQI_SERVICES_DIR", &self.dir)
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .status();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn free_port() -> u16 {
    let l = TcpListener::bind("127.0.0.1:0").expect("bind a loopback port");
    l.local_addr().unwrap().port()
}

/// A `xiangqi serve --database URL` child, killed when dropped.
struct Server {
    child: Child,
    port: u16,
    data: PathBuf,
    /// What it printed on stderr so far (also passed on to the test's stderr).
    stderr: Arc<Mutex<Vec<String>>>,
}

impl Server {
    fn start(name: &str, url: &str) -> Server {
        let data = std::env::temp_dir().join(format!(
            "xiangqi-pg-fault-data-{}-{name}",
            std::process::id()
        ));
        let mut child = Command::new(env!("CARGO_BIN_EXE_xiangqi"))
            .args([
                "serve",
                "--port",
                "0",
                "--no-rate-limits",
                "--database",
                url,
            ])
            .arg("--data")
            .arg(&data)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run xiangqi serve");
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let err = BufReader::new(child.stderr.take().unwrap());
        let lines = stderr.clone();
        std::thread::spawn(move || {
            for l in err.lines().map_while(Result::ok) {
                eprintln!("server: {l}");
                lines.lock().unwrap().push(l);
            }
        });
        let out = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut out = BufReader::new(out);
            let mut line = String::new();
            let _ = out.read_line(&mut line);
            let _ = tx.send(line);
            let _ = std::io::copy(&mut out, &mut std::io::sink());
        });
        let line = rx
            .recv_timeout(Duration::from_secs(60))
            .expect("xiangqi serve printed its URL");
        let port = line
            .trim()
            .strip_prefix("xiangqi: serving on http://127.0.0.1:")
            .and_then(|p| p.strip_suffix('/'))
            .and_then(|p| p.parse().ok())
            .unwrap_or_else(|| panic!("not the URL line: {line:?}"));
        Server {
            child,
            port,
            data,
            stderr,
        }
    }

    /// How many lines of its stderr so far contain `needle`.
    fn complaints(&self, needle: &str) -> usize {
        self.stderr
            .lock()
            .unwrap()
            .iter()
            .filter(|l| l.contains(needle))
            .count()
    }

    /// One HTTP request; the status and the body.
    fn call(&self, method: &str, path: &str, token: Option<&str>, body: &str) -> (u16, String) {
        let res = self.call_full(method, path, token, body);
        (res.status, res.text())
    }

    /// One HTTP request; the whole answer.
    fn call_full(
        &self,
        method: &str,
        path: &str,
        token: Option<&str>,
        body: &str,
    ) -> client::Response {
        let req = Request::new(method, path)
            .bearer(token)
            .body("application/json", body);
        client::blocking(
            SocketAddr::from(([127, 0, 0, 1], self.port)),
            &req,
            Duration::from_secs(60),
        )
        .unwrap_or_else(|e| panic!("{method} {path}: {e}"))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.data);
    }
}

fn json(body: &str) -> Value {
    serde_json::from_str(body).unwrap_or_else(|e| panic!("not JSON ({e}): {body}"))
}

/// Whether the PostgreSQL test may run: as the store tests decide.
fn wanted() -> bool {
    if std::env::var("XIANGQI_TEST_POSTGRES").is_ok_and(|u| !u.is_empty()) {
        return true;
    }
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("XIANGQI_TEST_POSTGRES is not set under CI=true: .ci/run starts PostgreSQL with .ci/services");
    }
    eprintln!(
        "skipped: XIANGQI_TEST_POSTGRES is not set (eval \"$(bash .ci/services start postgres)\")"
    );
    false
}

#[test]
fn moves_are_refused_while_postgres_is_down_and_the_server_recovers_by_itself() {
    if !wanted() {
        return;
    }
    let pg = Postgres::start();
    let server = Server::start("a", &pg.url);
    let (st, body) = server.call(
        "POST",
        "/api/challenge/open",
        None,
        r#"{"clock": {"limit": 600, "increment": 0}, "red": "R", "black": "B"}"#,
    );
    assert_eq!(st, 200, "{body}");
    let c = json(&body);
    let id = c["id"].as_str().unwrap().to_owned();
    let tokens = [
        c["tokenRed"].as_str().unwrap().to_owned(),
        c["tokenBlack"].as_str().unwrap().to_owned(),
    ];
    let mut confirmed: Vec<&str> = vec![];
    let play = |confirmed: &mut Vec<&'static str>, m: &'static str| -> (u16, String) {
        let token = &tokens[confirmed.len() % 2];
        let (st, body) = server.call(
            "POST",
            &format!("/api/board/game/{id}/move/{m}"),
            Some(token),
            "",
        );
        if st == 200 {
            confirmed.push(m);
        }
        (st, body)
    };
    for m in ["h2e2", "h9g7", "h0g2", "i9h9"] {
        let (st, body) = play(&mut confirmed, m);
        assert_eq!(st, 200, "{m}: {body}");
    }

    // A second game at 1+0 whose Red flag falls while PostgreSQL is away: its end is stored
    // once the database is back (the timer tries again each second, not in a busy loop).
    let (st, body) = server.call(
        "POST",
        "/api/challenge/open",
        None,
        r#"{"clock": {"limit": 1, "increment": 0}}"#,
    );
    assert_eq!(st, 200, "{body}");
    let fast = json(&body);
    let fast_id = fast["id"].as_str().unwrap().to_owned();
    for (m, seat) in [("h2e2", "tokenRed"), ("h9g7", "tokenBlack")] {
        let (st, body) = server.call(
            "POST",
            &format!("/api/board/game/{fast_id}/move/{m}"),
            fast[seat].as_str(),
            "",
        );
        assert_eq!(st, 200, "{m}: {body}");
    }
    let flag_due = Instant::now() + Duration::from_secs(1);

    // PostgreSQL goes away mid-game: Red's move is refused with 503, as is a new game.
    pg.down();
    for _ in 0..3 {
        let (st, body) = play(&mut confirmed, "i0h0");
        assert_eq!(st, 503, "a move while PostgreSQL is down: {body}");
        assert!(body.contains("unavailable"), "{body}");
    }
    let res = server.call_full("POST", "/api/challenge/open", None, "{}");
    let (st, body) = (res.status, res.text());
    assert_eq!(st, 503, "a new game while PostgreSQL is down: {body}");
    assert_eq!(res.header("retry-after"), Some("1"), "{:?}", res.head);
    let account = r#"{"username": "outage", "password": "a long enough password"}"#;
    let (st, body) = server.call("POST", "/api/account/register", None, account);
    assert_eq!(st, 503, "an account while PostgreSQL is down: {body}");
    let (st, body) = server.call("POST", "/api/games", None, r#"{"mode": "two-player"}"#);
    assert_eq!(
        st, 503,
        "a new stored game while PostgreSQL is down: {body}"
    );
    // The game in memory still shows only the confirmed moves.
    let (st, body) = server.call("GET", &format!("/api/board/game/{id}"), None, "");
    assert_eq!(st, 200, "{body}");
    assert_eq!(json(&body)["state"]["moves"], confirmed.join(" "));

    // Red's flag in the fast game has fallen with the database away, a few seconds ago.
    std::thread::sleep(
        (flag_due + Duration::from_secs(4)).saturating_duration_since(Instant::now()),
    );
    let tries = server.complaints("cannot store its end");
    assert!(
        (1..=10).contains(&tries),
        "the flag's end was tried {tries} times in about 4 s"
    );

    // PostgreSQL is back: the same server takes moves again by itself. Red plays another
    // move than the refused one, so the refused one must not be found later.
    pg.up();
    let back = Instant::now();
    loop {
        let (st, body) = play(&mut confirmed, "b0c2");
        if st == 200 {
            break;
        }
        assert_eq!(st, 503, "{body}");
        assert!(
            back.elapsed() < Duration::from_secs(30),
            "still refused 30 s after PostgreSQL came back: {body}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    eprintln!(
        "moves taken again {} ms after PostgreSQL was back",
        back.elapsed().as_millis()
    );
    for m in ["b9c7", "i0h0", "a9b9"] {
        let (st, body) = play(&mut confirmed, m);
        assert_eq!(st, 200, "{m}: {body}");
    }
    let (st, body) = server.call("POST", "/api/games", None, r#"{"mode": "two-player"}"#);
    assert_eq!(
        st, 201,
        "a new stored game after PostgreSQL came back: {body}"
    );
    let (st, body) = server.call("POST", "/api/account/register", None, account);
    assert!(
        st == 200 || st == 201,
        "an account after PostgreSQL came back: {st} {body}"
    );
    // The fast game's end is stored (the timer's next try), so a new server sees it.
    let stored = Instant::now();
    loop {
        let (st, body) = server.call("GET", &format!("/api/board/game/{fast_id}"), None, "");
        assert_eq!(st, 200, "{body}");
        if json(&body)["state"]["status"] == "outoftime" {
            break;
        }
        assert!(
            stored.elapsed() < Duration::from_secs(10),
            "the flag is not shown 10 s after PostgreSQL came back: {body}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    drop(server);

    // A new server process reads the game from PostgreSQL: every confirmed move, in order,
    // and not the refused one.
    let again = Server::start("b", &pg.url);
    let (st, body) = again.call("GET", &format!("/api/board/game/{id}"), None, "");
    assert_eq!(st, 200, "{body}");
    let full = json(&body);
    assert_eq!(
        full["state"]["moves"],
        "h2e2 h9g7 h0g2 i9h9 b0c2 b9c7 i0h0 a9b9"
    );
    assert_eq!(full["state"]["moves"], confirmed.join(" "));
    assert_eq!(full["state"]["status"], "started");
    let (st, body) = again.call("GET", &format!("/api/board/game/{fast_id}"), None, "");
    assert_eq!(st, 200, "{body}");
    let fast = json(&body);
    assert_eq!(fast["state"]["status"], "outoftime", "{body}");
    assert_eq!(fast["state"]["winner"], "black", "{body}");
    assert_eq!(fast["state"]["moves"], "h2e2 h9g7");
}
