//! Fault tests of several server nodes (`xiangqi serve --redis`), with real processes: a
//! Redis server of their own and two `xiangqi serve` nodes sharing it and one database, a
//! live game with its players on different nodes.
//!
//! - the node that owns the game's clock is killed (SIGKILL) mid-game: the players go on on
//!   the surviving node, every confirmed move is there, and the clock is fair to a second;
//! - Redis is restarted mid-game: the nodes reconnect and the game goes on;
//! - the lobby is shared: a seek made on one node is seen and taken on the other;
//! - chat lines written on either node reach the players on both, in one order, and not the
//!   spectators; the owner's refusals (the rate limit) come back through the other node;
//! - a bot's events (challenge, gameStart, gameFinish) reach its event stream on the other node.
//!
//! They need `redis-server` (Debian's `redis-server` package). Without it they are skipped
//! with a message, and fail under `CI=true`. The database is a SQLite folder both nodes
//! share, or PostgreSQL when `XIANGQI_TEST_POSTGRES` holds a URL.

use std::ffi::OsStr;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use xiangqi_server::client::{self, BlockingStream, Request};

fn find_tool(name: &str) -> Option<PathBuf> {
    let path = std::env::var("PATH").unwrap_or_default();
    let found = path
        .split(':')
        .chain(["/usr/bin", "/usr/sbin", "/usr/local/bin"])
        .map(|d| Path::new(d).join(name))
        .find(|p| p.is_file());
    found
}

/// `redis-server`, or `None` after saying why the test is skipped (a failure under CI).
fn redis_server() -> Option<PathBuf> {
    match find_tool("redis-server") {
        Some(p) => Some(p),
        None if std::env::var("CI").as_deref() == Ok("true") => {
            panic!("redis-server is missing (apt-get install redis-server)")
        }
        None => {
            eprintln!("skipped: redis-server is not installed (apt-get install redis-server)");
            None
        }
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("xiangqi-nodes-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

struct Redis {
    bin: PathBuf,
    port: u16,
    child: Child,
}

impl Redis {
    fn start(bin: &Path, port: u16) -> Redis {
        let child = Command::new(bin)
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no", "--loglevel", "warning"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start redis-server");
        let r = Redis {
            bin: bin.to_path_buf(),
            port,
            child,
        };
        let t = Instant::now();
        loop {
            if let Ok(mut s) = TcpStream::connect(("127.0.0.1", port)) {
                let _ = s.write_all(b"PING\r\n");
                let mut b = [0u8; 7];
                if s.read_exact(&mut b).is_ok() && &b == b"+PONG\r\n" {
                    return r;
                }
            }
            assert!(t.elapsed() < Duration::from_secs(10), "redis did not start");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }

    /// Kills it (SIGKILL: nothing kept) and starts a new one on the same port.
    fn restart(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        std::thread::sleep(Duration::from_millis(300));
        let bin = self.bin.clone();
        *self = Redis::start(&bin, self.port);
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

struct Node {
    port: u16,
    child: Child,
}

/// The database the nodes of a test share: a fresh PostgreSQL database when
/// `XIANGQI_TEST_POSTGRES` names a server (made with `psql`, dropped at the end), else the
/// SQLite file in the data folder both nodes are given.
struct Database {
    url: Option<String>,
    admin: String,
    name: String,
}

impl Database {
    /// The SQLite file in the data folder, whatever `XIANGQI_TEST_POSTGRES` says.
    fn sqlite() -> Database {
        Database {
            url: None,
            admin: String::new(),
            name: String::new(),
        }
    }

    fn new(test: &str) -> Database {
        let Some(admin) = std::env::var("XIANGQI_TEST_POSTGRES")
            .ok()
            .filter(|u| !u.is_empty())
        else {
            return Database {
                url: None,
                admin: String::new(),
                name: String::new(),
            };
        };
        let name = format!("xq_nodes_{}_{test}", std::process::id());
        // template0 takes no connections: a CREATE DATABASE from it is never refused for
        // another session on its template.
        psql(
            &admin,
            &format!("CREATE DATABASE {name} TEMPLATE template0"),
        );
        // The same server and user, the new database (parameters after '?' kept).
        let (base, query) = admin.split_once('?').unwrap_or((&admin, ""));
        let (server, _) = base.rsplit_once('/').expect("a database in the URL");
        let mut url = format!("{server}/{name}");
        if !query.is_empty() {
            url = format!("{url}?{query}");
        }
        Database {
            url: Some(url),
            admin,
            name,
        }
    }
}

impl Drop for Database {
    fn drop(&mut self) {
        if self.url.is_some() {
            let _ = Command::new("psql")
                .args([self.admin.as_str(), "-qc"])
                .arg(format!(
                    "DROP DATABASE IF EXISTS {} WITH (FORCE)",
                    self.name
                ))
                .output();
        }
    }
}

fn psql(url: &str, sql: &str) {
    let o = Command::new("psql")
        .args([url, "-qc", sql])
        .output()
        .expect("run psql");
    assert!(
        o.status.success(),
        "psql {sql}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

impl Node {
    /// A node of the Redis at `redis`, or a single server without one.
    fn start(data: &Path, db: &Database, redis: Option<&str>) -> Node {
        Node::start_with(data, db, redis, &[])
    }

    /// The same with more arguments for `xiangqi serve`.
    fn start_with(data: &Path, db: &Database, redis: Option<&str>, more: &[&OsStr]) -> Node {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_xiangqi"));
        cmd.args(["serve", "--port", "0", "--no-rate-limits"])
            .arg("--data")
            .arg(data)
            .args(more);
        if let Some(r) = redis {
            cmd.args(["--redis", r]);
        }
        if let Some(url) = &db.url {
            cmd.args(["--database", url]);
        }
        let mut child = cmd
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start xiangqi serve");
        let out = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines().map_while(Result::ok) {
                if let Some(rest) = line.strip_prefix("xiangqi: serving on http://127.0.0.1:") {
                    let _ = tx.send(rest.trim_end_matches('/').parse::<u16>().unwrap());
                }
            }
        });
        let port = rx
            .recv_timeout(Duration::from_secs(30))
            .expect("the node says where it serves");
        Node { port, child }
    }

    fn kill(&mut self) {
        let _ = self.child.kill(); // SIGKILL
        let _ = self.child.wait();
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        self.kill();
    }
}

/// The request: a JSON body when there is one, a bearer token when there is one.
fn req(method: &str, path: &str, bearer: Option<&str>, body: Option<&Value>) -> Request {
    let r = Request::new(method, path).bearer(bearer);
    match body {
        Some(b) => r.json(b),
        None => r,
    }
}

fn at(port: u16) -> SocketAddr {
    SocketAddr::from(([127, 0, 0, 1], port))
}

/// An HTTP request; its status and body, or why there was no whole answer.
fn try_request(
    port: u16,
    method: &str,
    path: &str,
    bearer: Option<&str>,
    body: Option<&Value>,
) -> Result<(u16, String), String> {
    let res = client::blocking(
        at(port),
        &req(method, path, bearer, body),
        Duration::from_secs(30),
    )?;
    Ok((res.status, res.text()))
}

fn try_post(
    port: u16,
    path: &str,
    bearer: Option<&str>,
    body: Option<&Value>,
) -> Result<(u16, Value), String> {
    let (st, b) = try_request(port, "POST", path, bearer, body)?;
    Ok((st, serde_json::from_str(&b).unwrap_or(Value::String(b))))
}

fn request(
    port: u16,
    method: &str,
    path: &str,
    bearer: Option<&str>,
    body: Option<&Value>,
) -> (u16, String) {
    try_request(port, method, path, bearer, body).unwrap_or_else(|e| panic!("{method} {path}: {e}"))
}

fn post(port: u16, path: &str, bearer: Option<&str>, body: Option<&Value>) -> (u16, Value) {
    let (st, b) = request(port, "POST", path, bearer, body);
    (st, serde_json::from_str(&b).unwrap_or(Value::String(b)))
}

/// A game stream's lines, read on a thread.
struct Stream {
    rx: mpsc::Receiver<Value>,
}

impl Stream {
    fn open(port: u16, path: &str, bearer: Option<&str>) -> Stream {
        Stream::of(port, req("GET", path, bearer, None))
    }

    /// The JSON lines of the answer to `r`.
    fn of(port: u16, r: Request) -> Stream {
        let mut s = BlockingStream::open(at(port), &r, None).expect("open the stream");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            while let Ok(Some(line)) = s.next_line() {
                if let Ok(v) = serde_json::from_str::<Value>(&line) {
                    if tx.send(v).is_err() {
                        return;
                    }
                }
            }
        });
        Stream { rx }
    }

    fn game(port: u16, id: &str, bearer: Option<&str>) -> Stream {
        Stream::open(port, &format!("/api/board/game/stream/{id}"), bearer)
    }

    /// The next line that `want` accepts, within `secs` seconds.
    fn wait(&self, secs: u64, what: &str, want: impl Fn(&Value) -> bool) -> Value {
        let end = Instant::now() + Duration::from_secs(secs);
        loop {
            let left = end.saturating_duration_since(Instant::now());
            match self.rx.recv_timeout(left) {
                Ok(v) if want(&v) => return v,
                Ok(_) => {}
                Err(_) => panic!("no line {what} within {secs} s"),
            }
        }
    }

    /// The `gameState` (or `gameFull`) whose moves are `moves`.
    fn moves(&self, moves: &[&str]) -> Value {
        let want = moves.join(" ");
        self.wait(10, &format!("with moves '{want}'"), |v| {
            moves_of(v).as_deref() == Some(want.as_str())
        })
    }
}

fn moves_of(v: &Value) -> Option<String> {
    match v["type"].as_str()? {
        "gameState" => v["moves"].as_str().map(str::to_owned),
        "gameFull" => v["state"]["moves"].as_str().map(str::to_owned),
        _ => None,
    }
}

fn btime(v: &Value) -> i64 {
    let t = if v["type"] == "gameFull" {
        &v["state"]["btime"]
    } else {
        &v["btime"]
    };
    t.as_i64().expect("btime")
}

/// Plays `mv` through node `port`, trying again while the answer is 503 (a node or Redis
/// away), for at most `secs` seconds.
fn play(port: u16, id: &str, token: &str, mv: &str, secs: u64) -> Duration {
    let t = Instant::now();
    loop {
        let (st, v) = post(
            port,
            &format!("/api/board/game/{id}/move/{mv}"),
            Some(token),
            None,
        );
        match st {
            200 => return t.elapsed(),
            503 if t.elapsed() < Duration::from_secs(secs) => {
                std::thread::sleep(Duration::from_millis(100))
            }
            _ => panic!("move {mv} on port {port}: {st} {v}"),
        }
    }
}

struct Game {
    id: String,
    red: String,
    black: String,
}

fn open_game(port: u16, limit: u64) -> Game {
    let (st, v) = post(
        port,
        "/api/challenge/open",
        None,
        Some(&json!({"clock": {"limit": limit, "increment": 0}})),
    );
    assert_eq!(st, 200, "{v}");
    Game {
        id: v["id"].as_str().unwrap().to_owned(),
        red: v["tokenRed"].as_str().unwrap().to_owned(),
        black: v["tokenBlack"].as_str().unwrap().to_owned(),
    }
}

/// A long legal game, so both seats' moves can be sent one after the other without waiting
/// for anything but the answers.
const LINE: [&str; 23] = [
    "h2e2", "h9g7", "h0g2", "i9h9", "i0h0", "b9c7", "b0c2", "a9b9", "a0b0", "b7b3", "c3c4", "h7h3",
    "g3g4", "g6g5", "g4g5", "g7f5", "g5f5", "c6c5", "c4c5", "c7b5", "c5b5", "b9a9", "a3a4",
];

/// What a move sent while the server was being killed got.
#[derive(Debug, Clone, PartialEq)]
enum Answer {
    Ok,
    /// Another status, with its body.
    Other(u16, String),
    /// No answer: the connection was refused or reset.
    None(String),
}

/// The moves sent to the games of [`send_flat_out`], in order: each game's id and tokens, and
/// what each of its moves (from the first) got.
struct Flight {
    games: Vec<(Game, Vec<Answer>)>,
}

/// A seeded random number: `XIANGQI_TEST_SEED`, else the clock's (printed, to run again).
fn seed() -> u64 {
    let seed = std::env::var("XIANGQI_TEST_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos() as u64
        });
    eprintln!("seed {seed} (XIANGQI_TEST_SEED={seed} runs this again)");
    seed
}

/// A number in `lo..hi` from `seed` (splitmix64).
fn pick(seed: u64, lo: u64, hi: u64) -> u64 {
    let mut z = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    lo + (z ^ (z >> 31)) % (hi - lo)
}

/// On a thread, opens games with a clock on `open` and plays [`LINE`] in each as fast as the
/// answers come, Red's moves through `red` and Black's through `black`, until a move gets
/// anything but 200 (the server killed); then returns what every move got.
fn send_flat_out(open: u16, red: u16, black: u16) -> std::thread::JoinHandle<Flight> {
    std::thread::spawn(move || {
        let mut f = Flight { games: Vec::new() };
        loop {
            let Ok((200, v)) = try_post(
                open,
                "/api/challenge/open",
                None,
                Some(&json!({"clock": {"limit": 300, "increment": 0}})),
            ) else {
                return f;
            };
            let g = Game {
                id: v["id"].as_str().unwrap_or_default().to_owned(),
                red: v["tokenRed"].as_str().unwrap_or_default().to_owned(),
                black: v["tokenBlack"].as_str().unwrap_or_default().to_owned(),
            };
            let mut answers = Vec::new();
            for (ply, mv) in LINE.iter().enumerate() {
                let (port, token) = if ply.is_multiple_of(2) {
                    (red, &g.red)
                } else {
                    (black, &g.black)
                };
                let a = match try_post(
                    port,
                    &format!("/api/board/game/{}/move/{mv}", g.id),
                    Some(token),
                    None,
                ) {
                    Ok((200, _)) => Answer::Ok,
                    Ok((st, v)) => Answer::Other(st, v.to_string()),
                    Err(e) => Answer::None(e),
                };
                let stop = a != Answer::Ok;
                answers.push(a);
                if stop {
                    f.games.push((g, answers));
                    return f;
                }
            }
            f.games.push((g, answers));
        }
    })
}

/// The game's record through `port`, trying again for `secs` seconds while it is not 200
/// (a take-over under way).
fn record(port: u16, id: &str, secs: u64) -> Value {
    let t = Instant::now();
    loop {
        match try_request(port, "GET", &format!("/api/board/game/{id}"), None, None) {
            Ok((200, b)) => return serde_json::from_str(&b).expect("a game as JSON"),
            r if t.elapsed() < Duration::from_secs(secs) => {
                let _ = r;
                std::thread::sleep(Duration::from_millis(100))
            }
            r => panic!("game {id} on port {port}: {r:?}"),
        }
    }
}

/// Every move answered 200 is in its game, in order; a move with no answer (or another
/// answer) is wholly there, at its ply, or absent; the next move then plays on, through
/// `port`. Returns how many moves were answered 200 and how many had no answer.
fn check_flight(f: &Flight, port: u16) -> (usize, usize) {
    let (mut ok, mut unanswered) = (0, 0);
    for (g, answers) in &f.games {
        let confirmed = answers.iter().take_while(|a| **a == Answer::Ok).count();
        ok += confirmed;
        let v = record(port, &g.id, 30);
        let moves = moves_of(&v).unwrap_or_default();
        let got: Vec<&str> = moves.split_whitespace().collect();
        let left = &answers[confirmed..];
        assert!(
            got.len() >= confirmed && got[..confirmed] == LINE[..confirmed],
            "game {}: every move answered 200 is there, in order: {confirmed} confirmed, \
             got '{moves}'",
            g.id
        );
        match left.first() {
            None => assert_eq!(got.len(), confirmed, "game {}: '{moves}'", g.id),
            Some(a) => {
                unanswered += 1;
                eprintln!(
                    "game {}: ply {confirmed} ({}) got {a:?}; after the restart it is {}",
                    g.id,
                    LINE[confirmed],
                    if got.len() > confirmed {
                        "there"
                    } else {
                        "absent"
                    }
                );
                assert!(
                    got.len() <= confirmed + 1 && got[..] == LINE[..got.len()],
                    "game {}: the move in flight is wholly there or absent: {confirmed} \
                     confirmed, got '{moves}'",
                    g.id
                );
                // The game plays on from what is there (a game whose first move is absent
                // is still "created", as before any move).
                if got.len() < LINE.len() {
                    let status = &v["state"]["status"];
                    assert!(
                        status == "started" || (got.is_empty() && status == "created"),
                        "{v}"
                    );
                    let token = if got.len().is_multiple_of(2) {
                        &g.red
                    } else {
                        &g.black
                    };
                    play(port, &g.id, token, LINE[got.len()], 20);
                    let after = moves_of(&record(port, &g.id, 10)).unwrap_or_default();
                    assert_eq!(after, LINE[..=got.len()].join(" "), "game {}", g.id);
                }
            }
        }
    }
    (ok, unanswered)
}

#[test]
fn killing_the_clocks_owner_loses_no_move_and_at_most_a_second() {
    let Some(bin) = redis_server() else { return };
    let redis = Redis::start(&bin, free_port());
    let data = scratch("kill");
    let db = Database::new("kill");
    let mut a = Node::start(&data, &db, Some(&redis.url()));
    let b = Node::start(&data, &db, Some(&redis.url()));
    // Created on A: A owns it and runs its clock.
    let g = open_game(a.port, 120);
    let red_a = Stream::game(a.port, &g.id, Some(&g.red));
    let black_b = Stream::game(b.port, &g.id, Some(&g.black));
    let watch_b = Stream::game(b.port, &g.id, None);
    for s in [&red_a, &black_b, &watch_b] {
        s.moves(&[]);
    }
    // Red plays on A, Black on B (forwarded to A); each move reaches the other node at once.
    let line = ["h2e2", "h9g7", "h0g2", "i9h9", "i0h0"];
    let mut confirmed = Instant::now();
    let mut last = Value::Null;
    for (n, mv) in line.iter().enumerate() {
        let so_far = &line[..=n];
        if n.is_multiple_of(2) {
            play(a.port, &g.id, &g.red, mv, 0);
            confirmed = Instant::now();
            last = black_b.moves(so_far);
            watch_b.moves(so_far);
        } else {
            play(b.port, &g.id, &g.black, mv, 0);
            red_a.moves(so_far);
        }
    }
    // Black to move, its clock running on A since the last move was confirmed.
    let before = btime(&last);
    // Meanwhile other games of A's are played flat out, Red through A and Black through B,
    // and A is killed at a random moment of that, with moves in flight.
    let flight = send_flat_out(a.port, a.port, b.port);
    std::thread::sleep(Duration::from_millis(pick(seed(), 1_500, 3_000)));
    let killed = Instant::now();
    a.kill();
    let thought = killed.duration_since(confirmed).as_millis() as i64;
    // Red comes back on B; B takes the game over from the database.
    let red_b = Stream::game(b.port, &g.id, Some(&g.red));
    let full = red_b.wait(15, "gameFull for red on B", |v| v["type"] == "gameFull");
    assert_eq!(
        moves_of(&full).as_deref(),
        Some(line.join(" ").as_str()),
        "every confirmed move is there"
    );
    // Black's stream on B stayed open and got the game again from its new owner.
    let again = black_b.wait(15, "gameFull for black after the take-over", |v| {
        v["type"] == "gameFull"
    });
    let fair = before - thought;
    let got = btime(&again);
    eprintln!(
        "black had {before} ms, thought {thought} ms before the kill; after the take-over \
         {got} ms (fair {fair} ms, off by {} ms); the take-over came {} ms after the kill",
        got - fair,
        killed.elapsed().as_millis()
    );
    assert!(
        (got - fair).abs() <= 1_000,
        "the clock is fair to a second: {got} ms against {fair} ms"
    );
    // The game goes on, on B.
    let mut line = line.to_vec();
    for mv in ["h7h3", "g3g4", "c6c5"] {
        let token = if line.len().is_multiple_of(2) {
            &g.red
        } else {
            &g.black
        };
        play(b.port, &g.id, token, mv, 10);
        line.push(mv);
        red_b.moves(&line);
        black_b.moves(&line);
        watch_b.moves(&line);
    }
    let (st, v) = request(
        b.port,
        "GET",
        &format!("/api/board/game/{}", g.id),
        None,
        None,
    );
    assert_eq!(st, 200);
    let v: Value = serde_json::from_str(&v).unwrap();
    assert_eq!(moves_of(&v).unwrap(), line.join(" "));
    // The games played flat out: B has them all, with every confirmed move.
    let flight = flight.join().unwrap();
    let (ok, unanswered) = check_flight(&flight, b.port);
    eprintln!(
        "{} games played flat out, {ok} moves answered 200, {unanswered} in flight at the kill",
        flight.games.len()
    );
    assert!(ok > 0, "moves were played before the kill");
    let _ = std::fs::remove_dir_all(&data);
}

#[test]
fn killing_a_single_server_while_moves_fly_loses_no_answered_move() {
    let data = scratch("single");
    let db = Database::sqlite();
    let mut a = Node::start(&data, &db, None);
    // Games played flat out on one server (SQLite, no Redis), killed at a random moment.
    let flight = send_flat_out(a.port, a.port, a.port);
    std::thread::sleep(Duration::from_millis(pick(seed(), 300, 2_000)));
    a.kill();
    let flight = flight.join().unwrap();
    // Started again on the same data folder, it has every confirmed move.
    let b = Node::start(&data, &db, None);
    let (ok, unanswered) = check_flight(&flight, b.port);
    eprintln!(
        "{} games played flat out, {ok} moves answered 200, {unanswered} in flight at the kill",
        flight.games.len()
    );
    assert!(ok > 0, "moves were played before the kill");
    drop(b);
    let _ = std::fs::remove_dir_all(&data);
}

#[test]
fn a_restart_of_redis_mid_game_and_the_game_goes_on() {
    let Some(bin) = redis_server() else { return };
    let mut redis = Redis::start(&bin, free_port());
    let data = scratch("redis");
    let db = Database::new("redis");
    let a = Node::start(&data, &db, Some(&redis.url()));
    let b = Node::start(&data, &db, Some(&redis.url()));

    // The lobby is shared: a seek on A is listed on B and taken there.
    let lobby_b = Stream::open(b.port, "/api/lobby/stream", None);
    lobby_b.wait(5, "the lobby", |v| v["type"] == "seeks");
    // POST /api/board/seek with a body: a stream of its own.
    let seeker = Stream::of(
        a.port,
        req(
            "POST",
            "/api/board/seek",
            None,
            Some(&json!({"name": "Ann", "color": "red"})),
        ),
    );
    let listed = lobby_b.wait(10, "the seek on B", |v| {
        v["seeks"].as_array().is_some_and(|s| !s.is_empty())
    });
    let seek_id = listed["seeks"][0]["id"].as_str().unwrap().to_owned();
    assert_eq!(listed["seeks"][0]["name"], "Ann");
    let (st, taker) = post(
        b.port,
        &format!("/api/board/seek/{seek_id}/accept"),
        None,
        Some(&json!({"name": "Bo"})),
    );
    assert_eq!(st, 200, "{taker}");
    assert_eq!(taker["color"], "black");
    let start = seeker.wait(10, "the creator's seat on A", |v| v["type"] == "gameStart");
    assert_eq!(start["id"], taker["id"]);
    assert_eq!(start["color"], "red");
    lobby_b.wait(10, "the lobby empty again", |v| {
        v["seeks"].as_array().is_some_and(|s| s.is_empty())
    });
    let g = Game {
        id: taker["id"].as_str().unwrap().to_owned(),
        red: start["token"].as_str().unwrap().to_owned(),
        black: taker["token"].as_str().unwrap().to_owned(),
    };

    // The seek's game (owned by B, the taker's node): Red on A, Black on B.
    let red_a = Stream::game(a.port, &g.id, Some(&g.red));
    let black_b = Stream::game(b.port, &g.id, Some(&g.black));
    red_a.moves(&[]);
    black_b.moves(&[]);
    play(a.port, &g.id, &g.red, "h2e2", 0);
    black_b.moves(&["h2e2"]);
    play(b.port, &g.id, &g.black, "h9g7", 0);
    red_a.moves(&["h2e2", "h9g7"]);

    redis.restart();
    // The nodes reconnect by themselves; moves are refused (503) until they have.
    let waited = play(a.port, &g.id, &g.red, "h0g2", 20);
    eprintln!(
        "the first move after the restart of Redis went through after {} ms",
        waited.as_millis()
    );
    black_b.moves(&["h2e2", "h9g7", "h0g2"]);
    play(b.port, &g.id, &g.black, "i9h9", 20);
    red_a.moves(&["h2e2", "h9g7", "h0g2", "i9h9"]);
    let (st, v) = request(
        a.port,
        "GET",
        &format!("/api/board/game/{}", g.id),
        None,
        None,
    );
    assert_eq!(st, 200);
    let v: Value = serde_json::from_str(&v).unwrap();
    assert_eq!(moves_of(&v).unwrap(), "h2e2 h9g7 h0g2 i9h9");
    assert_eq!(v["state"]["status"], "started");
    drop(a);
    drop(b);
    let _ = std::fs::remove_dir_all(&data);
}

#[test]
fn chat_lines_relay_between_nodes_in_one_order() {
    let Some(bin) = redis_server() else { return };
    let redis = Redis::start(&bin, free_port());
    let data = scratch("chat");
    let db = Database::new("chat");
    let a = Node::start(&data, &db, Some(&redis.url()));
    let b = Node::start(&data, &db, Some(&redis.url()));
    // The game is A's (made there); Red and a spectator read on B, Black on A.
    let g = open_game(a.port, 300);
    let red_b = Stream::game(b.port, &g.id, Some(&g.red));
    let black_a = Stream::game(a.port, &g.id, Some(&g.black));
    let watcher_b = Stream::game(b.port, &g.id, None);
    for s in [&red_b, &black_a, &watcher_b] {
        s.moves(&[]);
    }
    let chat = format!("/api/board/game/{}/chat", g.id);
    let say = |port: u16, token: &str, text: &str| {
        post(
            port,
            &chat,
            Some(token),
            Some(&json!({"room": "player", "text": text})),
        )
    };
    // Red writes through B (forwarded to A, the owner), Black through A, in turns.
    for i in 0..4 {
        let (st, v) = if i % 2 == 0 {
            say(b.port, &g.red, &format!("line {i}"))
        } else {
            say(a.port, &g.black, &format!("line {i}"))
        };
        assert_eq!(st, 200, "{v}");
    }
    for s in [&red_b, &black_a] {
        for i in 0..4 {
            let v = s.wait(10, &format!("chat line {i}"), |v| v["type"] == "chatLine");
            assert_eq!(v["text"], format!("line {i}"));
            assert_eq!(v["seq"], i);
            assert_eq!(v["seat"], if i % 2 == 0 { "red" } else { "black" });
        }
    }
    // The spectator on B has none of them: the next line it reads is the move's.
    play(a.port, &g.id, &g.red, "h2e2", 0);
    let v = watcher_b.wait(10, "the move", |v| v["type"] != "crowd");
    assert_eq!(moves_of(&v).as_deref(), Some("h2e2"), "{v}");
    // The history, asked on B, is the owner's, in order.
    let (st, body) = request(b.port, "GET", &chat, Some(&g.red), None);
    assert_eq!(st, 200, "{body}");
    let texts: Vec<String> = serde_json::from_str::<Vec<Value>>(&body)
        .unwrap()
        .iter()
        .map(|l| l["text"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(texts, ["line 0", "line 1", "line 2", "line 3"]);
    // A refusal by the owner comes back through B as it is: the rate limit's 429.
    let mut refused = None;
    for i in 0..6 {
        let (st, v) = say(b.port, &g.red, &format!("more {i}"));
        if st != 200 {
            refused = Some((st, v));
            break;
        }
    }
    let (st, v) = refused.expect("the rate limit");
    assert_eq!(st, 429, "{v}");
    assert!(
        v["error"].as_str().unwrap().contains("too many chat lines"),
        "{v}"
    );
    let (st, v) = post(
        b.port,
        &chat,
        None,
        Some(&json!({"room": "player", "text": "x".repeat(141)})),
    );
    assert_eq!(st, 422, "{v}");
    assert_eq!(v["field"], "text");
    drop(a);
    drop(b);
    let _ = std::fs::remove_dir_all(&data);
}

/// Each node keeps its own opening explorer (`--explorer DIR`), and each one's site database
/// gets the games that end on the other node too (it follows the shared store), each once.
#[test]
fn every_nodes_explorer_holds_the_games_ended_on_any_node() {
    let Some(bin) = redis_server() else { return };
    let redis = Redis::start(&bin, free_port());
    let data = scratch("explorer");
    let db = Database::new("explorer");
    let dirs = ["explorer-a", "explorer-b"].map(|d| data.join(d));
    for d in &dirs {
        std::fs::create_dir_all(d).unwrap();
        xiangqi_explorer::Explorer::open(
            &d.join(xiangqi_explorer::FILE_NAME),
            xiangqi_explorer::Options::default(),
        )
        .unwrap();
    }
    let node = |d: &Path| {
        Node::start_with(
            &data,
            &db,
            Some(&redis.url()),
            &[OsStr::new("--explorer"), d.as_os_str()],
        )
    };
    let (a, b) = (node(&dirs[0]), node(&dirs[1]));
    // A game made and ended on A (Black resigns after h2e2 h9g7), one on B (Red resigns
    // after c3c4).
    let resign = |port: u16, g: &Game, token: &str| {
        let (st, v) = post(
            port,
            &format!("/api/board/game/{}/resign", g.id),
            Some(token),
            None,
        );
        assert_eq!(st, 200, "{v}");
    };
    let g = open_game(a.port, 300);
    play(a.port, &g.id, &g.red, "h2e2", 0);
    play(a.port, &g.id, &g.black, "h9g7", 0);
    resign(a.port, &g, &g.black);
    let g = open_game(b.port, 300);
    play(b.port, &g.id, &g.red, "c3c4", 0);
    resign(b.port, &g, &g.red);
    for port in [a.port, b.port] {
        let t = Instant::now();
        let v = loop {
            let (st, body) = request(port, "GET", "/api/explorer/site", None, None);
            assert_eq!(st, 200, "{body}");
            let v: Value = serde_json::from_str(&body).unwrap();
            if (v["red"] == 1 && v["black"] == 1) || t.elapsed() > Duration::from_secs(20) {
                break v;
            }
            std::thread::sleep(Duration::from_millis(200));
        };
        assert_eq!(
            (&v["red"], &v["draws"], &v["black"]),
            (&json!(1), &json!(0), &json!(1)),
            "node on {port}: {v}"
        );
        let moves: Vec<&str> = v["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["uci"].as_str().unwrap())
            .collect();
        assert_eq!(moves.len(), 2, "{v}");
        // (A position and its mirror share an entry: a move may show as its mirror image.)
        let has = |m: &str, mirror: &str| moves.contains(&m) || moves.contains(&mirror);
        assert!(has("h2e2", "b2e2") && has("c3c4", "g3g4"), "{v}");
    }
    // Read again and again (the overlap), still each game once.
    std::thread::sleep(Duration::from_secs(5));
    for port in [a.port, b.port] {
        let (_, body) = request(port, "GET", "/api/explorer/site", None, None);
        let v: Value = serde_json::from_str(&body).unwrap();
        assert_eq!((&v["red"], &v["black"]), (&json!(1), &json!(1)), "{v}");
    }
    drop(a);
    drop(b);
    let _ = std::fs::remove_dir_all(&data);
}

/// A new account on `port` with a personal API token, upgraded to a bot.
fn bot_token(port: u16, name: &str) -> String {
    let body = json!({"username": name, "password": "correct horse"});
    let r = client::blocking(
        at(port),
        &req("POST", "/api/account/register", None, Some(&body)),
        Duration::from_secs(10),
    )
    .expect("register");
    assert_eq!(r.status, 200);
    let cookie = r
        .header("set-cookie")
        .and_then(|c| c.split(';').next())
        .expect("a session cookie")
        .to_owned();
    let csrf = r.value()["csrf"].as_str().unwrap().to_owned();
    let t = client::blocking(
        at(port),
        &req(
            "POST",
            "/api/account/tokens",
            None,
            Some(&json!({"label": "bot"})),
        )
        .header("cookie", &cookie)
        .header("x-csrf-token", &csrf),
        Duration::from_secs(10),
    )
    .expect("a token");
    let token = t.value()["token"].as_str().unwrap().to_owned();
    let (st, v) = post(port, "/api/bot/account/upgrade", Some(&token), None);
    assert_eq!(st, 200, "{v}");
    token
}

#[test]
fn bot_events_reach_their_account_on_the_other_node() {
    let Some(bin) = redis_server() else { return };
    let redis = Redis::start(&bin, free_port());
    let data = scratch("bots");
    let db = Database::new("bots");
    let a = Node::start(&data, &db, Some(&redis.url()));
    let b = Node::start(&data, &db, Some(&redis.url()));
    let one = bot_token(a.port, "NodeBotOne");
    let two = bot_token(a.port, "NodeBotTwo");
    // One reads its events on B, Two on A.
    let e1 = Stream::open(b.port, "/api/stream/event", Some(&one));
    let e2 = Stream::open(a.port, "/api/stream/event", Some(&two));
    std::thread::sleep(Duration::from_millis(300));
    // One challenges through A; Two accepts through B (the challenge is in Redis).
    let (st, c) = post(
        a.port,
        "/api/challenge/nodebottwo",
        Some(&one),
        Some(&json!({"clock.limit": 300, "color": "red"})),
    );
    assert_eq!(st, 200, "{c}");
    let id = c["id"].as_str().unwrap().to_owned();
    for e in [&e1, &e2] {
        let v = e.wait(10, "the challenge", |v| v["type"] == "challenge");
        assert_eq!(v["challenge"]["id"], id.as_str());
    }
    let (st, v) = post(
        b.port,
        &format!("/api/challenge/{id}/accept"),
        Some(&two),
        None,
    );
    assert_eq!(st, 200, "{v}");
    for e in [&e1, &e2] {
        let v = e.wait(10, "gameStart", |v| v["type"] == "gameStart");
        assert_eq!(v["game"]["gameId"], id.as_str());
    }
    // One plays through A (the game is B's), Two resigns through A.
    let (st, v) = post(
        a.port,
        &format!("/api/bot/game/{id}/move/h2e2"),
        Some(&one),
        None,
    );
    assert_eq!(st, 200, "{v}");
    let (st, v) = post(
        a.port,
        &format!("/api/bot/game/{id}/resign"),
        Some(&two),
        None,
    );
    assert_eq!(st, 200, "{v}");
    for e in [&e1, &e2] {
        let v = e.wait(10, "gameFinish", |v| v["type"] == "gameFinish");
        assert_eq!(v["game"]["status"]["name"], "resign");
        assert_eq!(v["game"]["winner"], "red");
    }
    drop(a);
    drop(b);
    let _ = std::fs::remove_dir_all(&data);
}

#[test]
fn a_bad_or_unreachable_redis_is_a_one_line_error() {
    let data = scratch("bad");
    let run = |url: &str| {
        let o = Command::new(env!("CARGO_BIN_EXE_xiangqi"))
            .args(["serve", "--port", "0", "--redis", url])
            .arg("--data")
            .arg(&data)
            .output()
            .expect("run xiangqi");
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stderr).to_string(),
        )
    };
    let (code, err) = run("localhost:6379");
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains(
            "invalid value 'localhost:6379' for '--redis <URL>': 'localhost:6379' is not a Redis URL"
        ),
        "{err}"
    );
    // Nothing listens on the port: the server does not start.
    let (code, err) = run(&format!("redis://127.0.0.1:{}", free_port()));
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("--redis redis://127.0.0.1:"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    let _ = std::fs::remove_dir_all(&data);
}
