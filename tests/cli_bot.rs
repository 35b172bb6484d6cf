//! `xiangqi bot` against the real server: the debug `xiangqi serve` on a free port with a
//! SQLite database in a temporary folder, accounts made through the account API, and the
//! `xiangqi bot` process driving our engine (`xiangqi uci`) or Debian's Fairy-Stockfish.
//!
//! - our engine as a bot plays a whole game against a person's board-API client (this test,
//!   posting random legal moves) to a result, and writes its PGN;
//! - our engine and Fairy-Stockfish, two bots, play each other to a result (skipped without
//!   /usr/games/fairy-stockfish, a failure under CI=true);
//! - challenges outside the policy are declined with lichess's reasons;
//! - the server is killed mid-game and started again on the same port and database: the bot
//!   reconnects and the game is played to its end.

use std::io::{BufRead, BufReader};
use std::net::{SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use xiangqi::game::{Game, Rules};
use xiangqi::{Color, Position, START_FEN};
use xiangqi_server::client::{self, BlockingStream, Request};

const BIN: &str = env!("CARGO_BIN_EXE_xiangqi");
const FAIRY: &str = "/usr/games/fairy-stockfish";

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("xiangqi-bot-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A `xiangqi serve` process on a port of its own and a data folder (its SQLite database).
struct Server {
    port: u16,
    data: PathBuf,
    child: Child,
}

impl Server {
    fn start(data: &Path) -> Server {
        Server::on(data, free_port())
    }

    fn on(data: &Path, port: u16) -> Server {
        let mut child = Command::new(BIN)
            .args(["serve", "--no-fallback", "--no-rate-limits", "--port"])
            .arg(port.to_string())
            .arg("--data")
            .arg(data)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start xiangqi serve");
        let out = child.stdout.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines().map_while(Result::ok) {
                if line.starts_with("xiangqi: serving on") {
                    let _ = tx.send(());
                }
            }
        });
        rx.recv_timeout(Duration::from_secs(60))
            .expect("the server says where it serves");
        Server {
            port,
            data: data.to_path_buf(),
            child,
        }
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// SIGKILL, then a new server on the same port and database.
    fn restart(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        std::thread::sleep(Duration::from_millis(500));
        let (data, port) = (self.data.clone(), self.port);
        // The port may take a moment to be free again.
        let t = Instant::now();
        loop {
            if TcpListener::bind(("127.0.0.1", port)).is_ok() {
                break;
            }
            assert!(
                t.elapsed() < Duration::from_secs(20),
                "port {port} stays taken"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        *self = Server::on(&data, port);
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn at(port: u16) -> SocketAddr {
    SocketAddr::from(([127, 0, 0, 1], port))
}

/// A request and its answer: status and JSON (or the text as a JSON string).
fn call(port: u16, r: Request) -> Result<(u16, Value), String> {
    let res = client::blocking(at(port), &r, Duration::from_secs(30))?;
    Ok((res.status, res.value()))
}

fn post_form(port: u16, path: &str, token: &str, form: &str) -> (u16, Value) {
    call(
        port,
        Request::post(path)
            .bearer(Some(token))
            .body("application/x-www-form-urlencoded", form),
    )
    .unwrap_or_else(|e| panic!("POST {path}: {e}"))
}

fn get(port: u16, path: &str, token: &str) -> (u16, Value) {
    call(port, Request::get(path).bearer(Some(token))).unwrap_or_else(|e| panic!("GET {path}: {e}"))
}

/// A new account and a personal API token of it.
fn account(port: u16, name: &str) -> String {
    let r = client::blocking(
        at(port),
        &Request::post("/api/account/register")
            .json(&json!({"username": name, "password": "a good password"})),
        Duration::from_secs(30),
    )
    .unwrap();
    assert_eq!(r.status, 200, "register {name}: {}", r.text());
    let csrf = r.json().unwrap()["csrf"].as_str().unwrap().to_string();
    let cookie = r
        .header("set-cookie")
        .and_then(|c| c.split(';').next())
        .expect("a session cookie")
        .to_string();
    let t = client::blocking(
        at(port),
        &Request::post("/api/account/tokens")
            .header("cookie", &cookie)
            .header("x-csrf-token", &csrf)
            .json(&json!({"label": "test"})),
        Duration::from_secs(30),
    )
    .unwrap();
    assert_eq!(t.status, 200, "token for {name}: {}", t.text());
    t.json().unwrap()["token"].as_str().unwrap().to_string()
}

/// A `xiangqi bot` process and what it writes on stderr.
struct Bot {
    name: &'static str,
    child: Child,
    lines: Arc<Mutex<Vec<String>>>,
}

impl Bot {
    fn start(name: &'static str, url: &str, token: &str, engine: &str, extra: &[&str]) -> Bot {
        let mut child = Command::new(BIN)
            .args([
                "bot",
                "--server",
                url,
                "--token",
                token,
                "--engine",
                engine,
                "--upgrade",
            ])
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start xiangqi bot");
        let err = child.stderr.take().unwrap();
        let lines = Arc::new(Mutex::new(Vec::new()));
        let l = lines.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(err).lines().map_while(Result::ok) {
                eprintln!("{name}: {line}");
                l.lock().unwrap().push(line);
            }
        });
        Bot { name, child, lines }
    }

    /// The first line of its log that `want` accepts, waiting up to `secs`.
    fn wait_line(&mut self, secs: u64, what: &str, want: impl Fn(&str) -> bool) -> String {
        let t = Instant::now();
        loop {
            if let Some(l) = self.lines.lock().unwrap().iter().find(|l| want(l)) {
                return l.clone();
            }
            if let Ok(Some(st)) = self.child.try_wait() {
                std::thread::sleep(Duration::from_millis(200));
                panic!(
                    "bot {} exited ({st}) before {what}:\n{}",
                    self.name,
                    self.lines.lock().unwrap().join("\n")
                );
            }
            assert!(
                t.elapsed() < Duration::from_secs(secs),
                "bot {}: no {what} within {secs} s:\n{}",
                self.name,
                self.lines.lock().unwrap().join("\n")
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn log(&self) -> String {
        self.lines.lock().unwrap().join("\n")
    }
}

impl Drop for Bot {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn our_engine() -> String {
    format!("{BIN} uci")
}

/// Fairy-Stockfish's path, or `None` after saying why the test is skipped (a failure under
/// CI, which installs it).
fn fairy() -> Option<&'static str> {
    if Path::new(FAIRY).is_file() {
        return Some(FAIRY);
    }
    if std::env::var("CI").as_deref() == Ok("true") {
        panic!("{FAIRY} is missing (apt-get install fairy-stockfish)");
    }
    eprintln!("skipped: {FAIRY} is not installed (apt-get install fairy-stockfish)");
    None
}

/// The id of the account's game going on (from `/api/account/playing`), waiting up to `secs`.
fn playing(port: u16, token: &str, secs: u64) -> String {
    let t = Instant::now();
    loop {
        let (st, v) = get(port, "/api/account/playing", token);
        assert_eq!(st, 200, "{v}");
        if let Some(id) = v["nowPlaying"][0]["gameId"].as_str() {
            return id.to_string();
        }
        assert!(
            t.elapsed() < Duration::from_secs(secs),
            "no game started: {v}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// A small seeded generator for the person's random moves.
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) % n as u64) as usize
    }
}

/// The person: follows the game on the board API with its account's token and plays a random
/// legal move whenever it is its turn, reopening the stream when it breaks, until the game
/// ends. `on_ply` is called with the number of moves played after every state. Returns the
/// last state.
fn person_plays(
    server: &mut Server,
    token: &str,
    id: &str,
    seed: u64,
    secs: u64,
    mut on_ply: impl FnMut(&mut Server, usize),
) -> Value {
    let mut rng = Lcg(seed);
    let t = Instant::now();
    let mut seat = None;
    let mut fen = START_FEN.to_string();
    loop {
        assert!(
            t.elapsed() < Duration::from_secs(secs),
            "the game did not end in {secs} s"
        );
        let req = Request::get(&format!("/api/board/game/stream/{id}")).bearer(Some(token));
        let mut s = match BlockingStream::open(at(server.port), &req, Some(Duration::from_secs(20)))
        {
            Ok(s) if s.status() == 200 => s,
            _ => {
                std::thread::sleep(Duration::from_millis(300));
                continue;
            }
        };
        while let Ok(Some(line)) = s.next_line() {
            let Ok(v) = serde_json::from_str::<Value>(&line) else {
                continue;
            };
            let state = match v["type"].as_str() {
                Some("gameFull") => {
                    seat = v["seat"].as_str().map(|s| s.to_string());
                    if let Some(f) = v["initialFen"].as_str().filter(|f| *f != "startpos") {
                        fen = f.to_string();
                    }
                    v["state"].clone()
                }
                Some("gameState") => v.clone(),
                _ => continue,
            };
            let status = state["status"].as_str().unwrap_or("");
            if !matches!(status, "created" | "started") {
                return state;
            }
            let moves: Vec<String> = state["moves"]
                .as_str()
                .unwrap_or("")
                .split_whitespace()
                .map(str::to_string)
                .collect();
            on_ply(server, moves.len());
            let game =
                Game::replay(Position::from_fen(&fen).unwrap(), Rules::default(), &moves).unwrap();
            let me = match seat.as_deref() {
                Some("red") => Color::Red,
                Some("black") => Color::Black,
                other => panic!("no seat on the person's stream: {other:?}"),
            };
            if game.position().turn() != me {
                continue;
            }
            let legal: Vec<_> = game.position().legal_moves().iter().copied().collect();
            let m = legal[rng.below(legal.len())];
            let r = call(
                server.port,
                Request::post(&format!("/api/board/game/{id}/move/{m}")).bearer(Some(token)),
            );
            if !matches!(r, Ok((200, _))) {
                // The server went away or the game moved on: read the stream again.
                break;
            }
        }
    }
}

#[test]
fn our_engine_as_a_bot_plays_a_person_to_a_result() {
    let dir = scratch("person");
    let mut server = Server::start(&dir.join("data"));
    let person = account(server.port, "ann");
    let bot_token = account(server.port, "robot");
    let logs = dir.join("logs");
    let mut bot = Bot::start(
        "robot",
        &server.url(),
        &bot_token,
        &our_engine(),
        &[
            "--log-dir",
            logs.to_str().unwrap(),
            "--move-overhead",
            "200",
        ],
    );
    bot.wait_line(60, "the event stream", |l| l.contains("event stream open"));
    // The person challenges the bot: 20 s + 0, casual, the person Red.
    let (st, c) = post_form(
        server.port,
        "/api/challenge/robot",
        &person,
        "clock.limit=20&clock.increment=0&color=white&rated=false",
    );
    assert_eq!(st, 200, "{c}");
    bot.wait_line(30, "the acceptance", |l| l.contains("accepted challenge"));
    let id = playing(server.port, &person, 30);
    let end = person_plays(&mut server, &person, &id, 7, 240, |_, _| {});
    let status = end["status"].as_str().unwrap().to_string();
    eprintln!("game {id}: {end}");
    assert!(
        !matches!(status.as_str(), "aborted" | "created" | "started"),
        "{end}"
    );
    // The bot logs the end and writes the PGN with every move and the result.
    bot.wait_line(30, "the end of the game", |l| {
        l.contains(&format!("[{id}] over: {status}"))
    });
    let line = bot.wait_line(10, "the PGN", |l| l.contains("PGN written"));
    assert!(line.contains(&format!("{id}.pgn")), "{line}");
    let pgn = std::fs::read_to_string(logs.join(format!("{id}.pgn"))).unwrap();
    let moves = end["moves"].as_str().unwrap().split_whitespace().count();
    let result = match end["winner"].as_str() {
        Some("white" | "red") => "1-0",
        Some("black") => "0-1",
        _ => "1/2-1/2",
    };
    assert!(pgn.contains(&format!("[Result \"{result}\"]")), "{pgn}");
    assert!(
        pgn.contains("[Red \"ann\"]") && pgn.contains("[Black \"robot\"]"),
        "{pgn}"
    );
    let per_move = bot
        .log()
        .lines()
        .filter(|l| l.contains(&format!("[{id}] ply ")))
        .count();
    assert_eq!(per_move, moves, "one line per move:\n{}", bot.log());
}

#[test]
fn two_bots_our_engine_and_fairy_stockfish_play_to_a_result() {
    let Some(fs) = fairy() else { return };
    let dir = scratch("two");
    let server = Server::start(&dir.join("data"));
    let ours = account(server.port, "xqbot");
    let theirs = account(server.port, "fsbot");
    let adjudicate = [
        "--resign-score",
        "-600",
        "--resign-moves",
        "2",
        "--draw-score",
        "15",
        "--draw-moves",
        "4",
        "--draw-pieces",
        "32",
        "--move-overhead",
        "200",
    ];
    let logs = dir.join("logs");
    let mut a = Bot::start("xqbot", &server.url(), &ours, &our_engine(), &adjudicate);
    let mut extra = adjudicate.to_vec();
    extra.extend(["--log-dir", logs.to_str().unwrap()]);
    let mut b = Bot::start("fsbot", &server.url(), &theirs, fs, &extra);
    a.wait_line(60, "the event stream", |l| l.contains("event stream open"));
    b.wait_line(60, "the event stream", |l| l.contains("event stream open"));
    assert!(b.log().contains("ranks 1-10"), "{}", b.log());
    // The first bot challenges the second (with its token, as any client would).
    let (st, c) = post_form(
        server.port,
        "/api/challenge/fsbot",
        &ours,
        "clock.limit=30&clock.increment=0&color=random&rated=false",
    );
    assert_eq!(st, 200, "{c}");
    b.wait_line(30, "the acceptance", |l| l.contains("accepted challenge"));
    let over = b.wait_line(600, "the end of the game", |l| l.contains("] over: "));
    a.wait_line(60, "the end on the other side", |l| l.contains("] over: "));
    assert!(!over.contains("over: aborted"), "{over}");
    let id = over
        .split('[')
        .nth(1)
        .and_then(|s| s.split(']').next())
        .unwrap()
        .to_string();
    // The bot writes the game's PGN after it logs the end (a read before could find no file).
    b.wait_line(60, "the PGN written", |l| {
        l.contains(&format!("[{id}] PGN written to"))
    });
    let pgn = std::fs::read_to_string(logs.join(format!("{id}.pgn"))).unwrap();
    assert!(pgn.contains("xqbot") && pgn.contains("fsbot"), "{pgn}");
    eprintln!("{over}");
}

/// The id in the answer to `POST /api/challenge/{username}` (lichess's: the challenge object,
/// or it under `challenge`).
fn challenge_id(c: &Value) -> String {
    c["id"]
        .as_str()
        .or_else(|| c["challenge"]["id"].as_str())
        .unwrap_or_else(|| panic!("no challenge id: {c}"))
        .to_string()
}

#[test]
fn challenges_outside_the_policy_are_declined_with_lichess_reasons() {
    let dir = scratch("decline");
    let server = Server::start(&dir.join("data"));
    let person = account(server.port, "bea");
    let bot_token = account(server.port, "picky");
    let mut bot = Bot::start(
        "picky",
        &server.url(),
        &bot_token,
        &our_engine(),
        &[
            "--accept-tc",
            "blitz,rapid",
            "--min-increment",
            "1",
            "--casual",
        ],
    );
    bot.wait_line(60, "the event stream", |l| l.contains("event stream open"));
    for (form, reason) in [
        ("clock.limit=60&clock.increment=0", "tooFast"),
        ("clock.limit=180&clock.increment=0", "tooFast"),
        ("clock.limit=3600&clock.increment=10", "tooSlow"),
        ("clock.limit=300&clock.increment=2&rated=true", "casual"),
    ] {
        let (st, c) = post_form(server.port, "/api/challenge/picky", &person, form);
        assert_eq!(st, 200, "{form}: {c}");
        let id = challenge_id(&c);
        let line = bot.wait_line(30, reason, |l| {
            l.contains(&format!("declined challenge {id}"))
        });
        assert!(line.ends_with(&format!(": {reason}")), "{form}: {line}");
    }
    // One inside the policy is accepted.
    let (st, c) = post_form(
        server.port,
        "/api/challenge/picky",
        &person,
        "clock.limit=180&clock.increment=2",
    );
    assert_eq!(st, 200, "{c}");
    bot.wait_line(30, "the acceptance", |l| l.contains("accepted challenge"));
    // While that game goes on, a second one is one too many (--max-games 1): later.
    let (st, c) = post_form(
        server.port,
        "/api/challenge/picky",
        &person,
        "clock.limit=180&clock.increment=2",
    );
    assert_eq!(st, 200, "{c}");
    let id = challenge_id(&c);
    let line = bot.wait_line(30, "later", |l| {
        l.contains(&format!("declined challenge {id}"))
    });
    assert!(line.ends_with(": later"), "{line}");
}

#[test]
fn the_bot_reconnects_after_the_server_restarts_mid_game() {
    let dir = scratch("restart");
    let mut server = Server::start(&dir.join("data"));
    let person = account(server.port, "cai");
    let bot_token = account(server.port, "phoenix");
    let mut bot = Bot::start(
        "phoenix",
        &server.url(),
        &bot_token,
        &our_engine(),
        &["--move-overhead", "200"],
    );
    bot.wait_line(60, "the event stream", |l| l.contains("event stream open"));
    let (st, c) = post_form(
        server.port,
        "/api/challenge/phoenix",
        &person,
        "clock.limit=30&clock.increment=1&color=black",
    );
    assert_eq!(st, 200, "{c}");
    let id = playing(server.port, &person, 30);
    // The restart comes after the person's (Black's) second move, before the bot's answer.
    let mut restarted = None;
    let end = person_plays(&mut server, &person, &id, 11, 300, |s, ply| {
        if ply >= 4 && restarted.is_none() {
            restarted = Some(ply);
            eprintln!("restarting the server at ply {ply}");
            s.restart();
        }
    });
    let restarted = restarted.expect("restarted");
    eprintln!("game {id}: {end}");
    let status = end["status"].as_str().unwrap().to_string();
    assert!(
        !matches!(status.as_str(), "aborted" | "created" | "started"),
        "{end}"
    );
    bot.wait_line(30, "the reconnection", |l| l.contains("reconnecting"));
    bot.wait_line(30, "the game resumed", |l| {
        l.contains(&format!("[{id}] stream reopened"))
    });
    bot.wait_line(30, "the end of the game", |l| {
        l.contains(&format!("[{id}] over: {status}"))
    });
    // The bot moved after the restart: the game went on past it.
    let moves = end["moves"].as_str().unwrap().split_whitespace().count();
    assert!(moves > restarted, "{end}");
    eprintln!("restarted at ply {restarted}, ended at ply {moves}: {status}");
}
