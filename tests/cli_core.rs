//! The `perft`, `moves` and `serve` commands: output formats other tools depend on, and errors.
//!
//! The perft counts come from `shared/data/perft.txt`, found at `<workspace>/../shared` or
//! where `XIANGQI_SHARED` points.

use std::io::{BufRead, BufReader, Read};
use std::net::{SocketAddr, TcpListener};
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

fn xiangqi(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_xiangqi"))
        .args(args)
        .output()
        .expect("run xiangqi")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}
fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

#[test]
fn moves_from_start_sorted() {
    let o = xiangqi(&["moves"]);
    assert!(o.status.success());
    let text = stdout(&o);
    let moves: Vec<&str> = text.lines().collect();
    assert_eq!(moves.len(), 44);
    let mut sorted = moves.clone();
    sorted.sort();
    assert_eq!(moves, sorted);
    assert!(moves.contains(&"h2e2") && moves.contains(&"b0c2"));
}

#[test]
fn moves_after_moves_and_fen() {
    let o = xiangqi(&["moves", "h2e2", "h9g7", "H0-G2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).lines().any(|l| l == "g9e7"));
    // The general may not step onto the open d-file facing the black general.
    let o = xiangqi(&["moves", "--fen", "3k5/9/9/9/9/9/9/9/4A4/3AK4 w - - 0 1"]);
    assert_eq!(stdout(&o), "e0f0\ne1d2\ne1f0\ne1f2\n");
    let o = xiangqi(&["moves", "--fen", "3k5/9/9/9/9/9/9/9/9/4K4 w - - 0 1"]);
    assert_eq!(stdout(&o), "e0e1\ne0f0\n");
}

#[test]
fn moves_bad_fen_and_illegal_move() {
    let o = xiangqi(&[
        "moves",
        "--fen",
        "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C2/9/RNBAKABNR w",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(e.contains("rank 2 has 10 files"), "{e}");

    let o = xiangqi(&["moves", "h2e2", "h9g7", "e2e9"]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(e.contains("move 3 (e2e9)"), "{e}");

    let o = xiangqi(&["moves", "h2e2", "nonsense"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("move 2 (nonsense)"));
}

#[test]
fn perft_output_format() {
    let o = xiangqi(&["perft", "--divide", "2"]);
    assert!(o.status.success());
    let text = stdout(&o);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 44 + 2);
    assert!(lines[..44].iter().all(|l| l.contains(": ")));
    let sum: u64 = lines[..44]
        .iter()
        .map(|l| l.split(": ").nth(1).unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(sum, 1920);
    assert_eq!(lines[44], "nodes 1920");
    assert!(
        lines[45].starts_with("time ") && lines[45].ends_with("Mnps"),
        "{}",
        lines[45]
    );

    let o = xiangqi(&[
        "perft",
        "--fen",
        "4kcP1N/8n/3rb4/9/9/9/9/3p1A3/4K4/5CB2 w - - 0 1",
        "3",
    ]);
    assert!(stdout(&o).lines().any(|l| l.starts_with("nodes ")));
    let o = xiangqi(&["perft", "--no-bulk", "3"]);
    assert!(stdout(&o).contains("nodes 79666"));
}

#[test]
fn perft_errors() {
    let o = xiangqi(&["perft"]);
    assert_eq!(o.status.code(), Some(2));
    let o = xiangqi(&["perft", "x"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("invalid value 'x' for '<DEPTH>'"),
        "{}",
        stderr(&o)
    );
}

fn shared_dir() -> PathBuf {
    match std::env::var_os("XIANGQI_SHARED") {
        Some(p) => PathBuf::from(p),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared"),
    }
}

/// `(FEN, depth, nodes)` from `shared/data/perft.txt`: for each position the deepest count of
/// at most `max_nodes` nodes.
fn perft_cases(max_nodes: u64) -> Vec<(String, u32, u64)> {
    let path = shared_dir().join("data/perft.txt");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e} (set XIANGQI_SHARED)", path.display()));
    let mut cases = Vec::new();
    for line in text.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut fields = line.split(';').map(str::trim);
        let fen = fields.next().unwrap().to_string();
        let best = fields
            .map(|f| {
                let (d, n) = f.split_once(' ').expect("'depth nodes'");
                (d.parse::<u32>().unwrap(), n.parse::<u64>().unwrap())
            })
            .filter(|&(_, n)| n <= max_nodes)
            .max_by_key(|&(d, _)| d);
        if let Some((d, n)) = best {
            cases.push((fen, d, n));
        }
    }
    cases
}

/// The count on perft's `nodes N` line.
fn nodes(o: &Output) -> u64 {
    let text = stdout(o);
    let line = text
        .lines()
        .find_map(|l| l.strip_prefix("nodes "))
        .unwrap_or_else(|| panic!("no 'nodes' line in {text:?} ({})", stderr(o)));
    line.parse().unwrap()
}

#[test]
fn perft_from_fen_counts_match_the_reference() {
    let cases = perft_cases(100_000);
    assert!(cases.len() >= 10, "only {} perft positions", cases.len());
    for (fen, depth, expected) in &cases {
        let d = depth.to_string();
        let o = xiangqi(&["perft", "--fen", fen, &d]);
        assert!(o.status.success(), "{fen}: {}", stderr(&o));
        assert_eq!(nodes(&o), *expected, "perft {depth} of {fen}");
    }
    // Without bulk counting, and split by root move, the counts agree.
    let (fen, depth, expected) = &cases[1];
    let d = depth.to_string();
    let o = xiangqi(&["perft", "--no-bulk", &format!("--fen={fen}"), &d]);
    assert_eq!(nodes(&o), *expected, "perft --no-bulk {depth} of {fen}");
    let o = xiangqi(&["perft", "--divide", "--fen", fen, &d]);
    let sum: u64 = stdout(&o)
        .lines()
        .filter_map(|l| l.split_once(": "))
        .map(|(_, n)| n.parse::<u64>().unwrap())
        .sum();
    assert_eq!(sum, *expected, "perft --divide {depth} of {fen}");
    assert_eq!(nodes(&o), *expected);
}

/// A `xiangqi serve` child, killed when dropped, with its data in a fresh folder.
struct Server {
    child: Child,
    data: PathBuf,
}

impl Server {
    fn start(name: &str, args: &[&str]) -> Server {
        let data =
            std::env::temp_dir().join(format!("xiangqi-cli-test-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&data);
        let child = Command::new(env!("CARGO_BIN_EXE_xiangqi"))
            .arg("serve")
            .arg("--data")
            .arg(&data)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run xiangqi serve");
        Server { child, data }
    }

    /// The first line the server prints, waiting at most `limit`. The rest of its output is
    /// read and dropped, so that its stdout stays open.
    fn first_line(&mut self, limit: Duration) -> String {
        let out = self.child.stdout.take().expect("stdout is piped");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut out = BufReader::new(out);
            let mut line = String::new();
            let _ = out.read_line(&mut line);
            let _ = tx.send(line);
            let _ = std::io::copy(&mut out, &mut std::io::sink());
        });
        match rx.recv_timeout(limit) {
            Ok(line) => line,
            Err(_) => panic!("xiangqi serve printed nothing in {limit:?}"),
        }
    }

    /// The exit status and stderr of a server that should stop by itself within `limit`.
    fn exit(mut self, limit: Duration) -> (ExitStatus, String) {
        let start = Instant::now();
        let status = loop {
            if let Some(s) = self.child.try_wait().expect("wait for xiangqi serve") {
                break s;
            }
            assert!(
                start.elapsed() < limit,
                "xiangqi serve still runs after {limit:?}"
            );
            std::thread::sleep(Duration::from_millis(20));
        };
        let mut err = String::new();
        if let Some(mut e) = self.child.stderr.take() {
            e.read_to_string(&mut err).unwrap();
        }
        (status, err)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.data);
    }
}

/// How long a server may take to print its URL.
const WAIT: Duration = Duration::from_secs(60);
/// How long a server that cannot start may take to stop.
const EXIT: Duration = Duration::from_secs(30);

/// A port on loopback that stays taken while the listener lives.
fn taken_port() -> (TcpListener, u16) {
    let l = TcpListener::bind("127.0.0.1:0").expect("bind a loopback port");
    let port = l.local_addr().unwrap().port();
    (l, port)
}

#[test]
fn serve_falls_back_to_a_free_port_and_prints_its_url() {
    let (_taken, port) = taken_port();
    let mut s = Server::start("fallback", &["--port", &port.to_string()]);
    let line = s.first_line(WAIT);
    let url = line
        .trim()
        .strip_prefix("xiangqi: serving on http://127.0.0.1:")
        .unwrap_or_else(|| panic!("not the URL line: {line:?}"));
    let got: u16 = url
        .strip_suffix('/')
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("no port in {line:?}"));
    assert!(
        got > port && got < port.saturating_add(20),
        "port {port} is taken; it serves on {got}"
    );
    // It serves there.
    let res = xiangqi_server::client::blocking(
        SocketAddr::from(([127, 0, 0, 1], got)),
        &xiangqi_server::client::Request::get("/api/health"),
        WAIT,
    )
    .expect("an answer at the printed URL");
    assert_eq!(res.status, 200, "{}", res.text());
}

#[test]
fn serve_without_fallback_fails_on_a_taken_port() {
    let (_taken, port) = taken_port();
    let s = Server::start(
        "nofallback",
        &["--port", &port.to_string(), "--no-fallback"],
    );
    let (status, err) = s.exit(EXIT);
    assert_eq!(status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with(&format!("xiangqi: cannot listen on 127.0.0.1:{port}: ")),
        "{err}"
    );
}

#[test]
fn serve_without_its_database_fails_with_a_message() {
    // Nothing listens on the port: the server stops at once, naming the database (without
    // the password).
    let (taken, port) = taken_port();
    drop(taken);
    let url = format!("postgres://xq:secret@127.0.0.1:{port}/games");
    let s = Server::start("nodb", &["--port", "0", "--database", &url]);
    let (status, err) = s.exit(EXIT);
    assert_eq!(status.code(), Some(2), "{err}");
    assert!(
        err.starts_with(&format!(
            "xiangqi: cannot connect to the database postgres://xq@127.0.0.1:{port}/games: "
        )),
        "{err}"
    );
    assert!(!err.contains("secret"), "{err}");
}

#[test]
fn serve_rejects_bad_arguments() {
    for (args, msg) in [
        (
            &["--port", "abc"][..],
            "error: invalid value 'abc' for '--port <N>': 'abc' is not a port number (0-65535)",
        ),
        (
            &["--port=70000"][..],
            "error: invalid value '70000' for '--port <N>': '70000' is not a port number (0-65535)",
        ),
        (
            &["--port"][..],
            "error: a value is required for '--port <N>'",
        ),
        (
            &["--bogus"][..],
            "error: unexpected argument '--bogus' found",
        ),
        (
            &["--database", "mysql://u@localhost/x"][..],
            "error: invalid value 'mysql://u@localhost/x' for '--database <URL>': 'mysql://u@localhost/x' is not a PostgreSQL URL",
        ),
        (
            &["--database=postgres://localhost:5432/x"][..],
            "error: invalid value 'postgres://localhost:5432/x' for '--database <URL>': 'postgres://localhost:5432/x' names no user",
        ),
    ] {
        let s = Server::start("badargs", args);
        let (status, err) = s.exit(EXIT);
        assert_eq!(status.code(), Some(2), "{args:?}: {err}");
        assert!(err.starts_with(msg), "{args:?}: {err}");
    }
}
