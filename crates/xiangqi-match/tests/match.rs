//! End-to-end matches: our engine against itself, and small fake engines (Python scripts
//! written here) that play scripted moves, make illegal moves, hang, crash or print garbage.
//! Every test also checks that no engine process (or process an engine started) is left.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use xiangqi_record::{pgn, GameResult};

const BIN: &str = env!("CARGO_BIN_EXE_xiangqi-match");

const FAKE: &str = r#"#!/usr/bin/env python3
# A fake engine for the match runner's tests.
# usage: fake.py MODE [key=value ...]; MODE: script, illegal, hang, crash, garbage, nouciok
# keys: proto=uci|ucci, ranks=0|1, moves=m1,m2,... (the whole game from the start position,
# in a0..i9 coordinates), score=CP (reported before each move), spawn=SECONDS (start a
# `sleep SECONDS` child that the runner must end too), log=FILE (commands received).
import subprocess, sys, time
mode = sys.argv[1]
opts = dict(a.split("=", 1) for a in sys.argv[2:])
proto = opts.get("proto", "uci")
ranks1 = opts.get("ranks") == "1"
script = opts["moves"].split(",") if opts.get("moves") else []
if "spawn" in opts:
    subprocess.Popen(["sleep", opts["spawn"]])
log = open(opts["log"], "a") if "log" in opts else None
def out(s):
    sys.stdout.write(s + "\n")
    sys.stdout.flush()
def conv(m):
    return m[0] + str(int(m[1]) + 1) + m[2] + str(int(m[3]) + 1) if ranks1 else m
played = 0
for line in sys.stdin:
    if log:
        log.write(line)
        log.flush()
    t = line.split()
    if not t:
        continue
    c = t[0]
    if mode == "garbage":
        out("@@@ garbage \x01 ### info score")
    if c == "uci":
        if mode == "nouciok":
            continue
        out("id name Fake " + mode)
        out("option name Hash type spin default 16 min 1 max 1024")
        out("uciok")
    elif c == "ucci":
        out("id name FakeUCCI")
        out("option usemillisec type check default false")
        out("ucciok")
    elif c == "isready":
        out("readyok")
    elif c == "position":
        played = len(t) - t.index("moves") - 1 if "moves" in t else 0
    elif c == "go":
        if mode == "hang":
            time.sleep(1000)
        elif mode == "crash":
            sys.exit(3)
        elif mode == "illegal":
            out("bestmove a0a5")
        elif mode == "garbage":
            out("bestmove xyzzy")
        else:
            if "score" in opts:
                out(("info depth 3 score cp %s" if proto == "uci" else "info depth 3 score %s") % opts["score"])
            out("bestmove " + (conv(script[played]) if played < len(script) else "(none)"))
    elif c == "quit":
        if proto == "ucci":
            out("bye")
        break
"#;

struct Env {
    dir: PathBuf,
}

impl Env {
    fn new(name: &str) -> Env {
        let dir =
            std::env::temp_dir().join(format!("xiangqi-match-test-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let fake = dir.join("fake.py");
        std::fs::write(&fake, FAKE).unwrap();
        Env { dir }
    }
    fn fake(&self) -> String {
        self.dir.join("fake.py").display().to_string()
    }
    fn path(&self, f: &str) -> String {
        self.dir.join(f).display().to_string()
    }
    /// Runs a match with these arguments (logs and PGN in the test folder).
    fn run(&self, args: &[String]) -> Output {
        let mut a: Vec<String> = vec!["-log".into(), self.path("logs")];
        a.extend(args.iter().cloned());
        Command::new(BIN)
            .args(&a)
            .current_dir(&self.dir)
            .stdin(Stdio::null())
            .output()
            .unwrap()
    }
}

impl Drop for Env {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn args(s: &str) -> Vec<String> {
    s.split_whitespace().map(String::from).collect()
}

fn text(o: &Output) -> String {
    format!(
        "status {:?}\n--- stdout\n{}--- stderr\n{}",
        o.status,
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// Live (non-zombie) processes whose command line contains `marker`.
fn processes_with(marker: &str) -> Vec<u32> {
    let mut found = Vec::new();
    let Ok(rd) = std::fs::read_dir("/proc") else {
        return found;
    };
    for e in rd.flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        if pid == std::process::id() {
            continue;
        }
        let Ok(cmd) = std::fs::read(e.path().join("cmdline")) else {
            continue;
        };
        let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
        if !cmd.contains(marker) {
            continue;
        }
        let stat = std::fs::read_to_string(e.path().join("stat")).unwrap_or_default();
        let state = stat.rsplit(')').next().unwrap_or("").trim().chars().next();
        if state != Some('Z') {
            found.push(pid);
        }
    }
    found
}

/// Waits up to 3 s for every process with `marker` to be gone.
fn assert_none_left(marker: &str) {
    let until = Instant::now() + Duration::from_secs(3);
    loop {
        let left = processes_with(marker);
        if left.is_empty() {
            return;
        }
        if Instant::now() > until {
            panic!("processes left running with '{marker}': {left:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn games_of(pgn_path: &str) -> Vec<xiangqi_record::GameRecord> {
    let bytes = std::fs::read(pgn_path).unwrap();
    pgn::read_bytes(&bytes)
        .into_iter()
        .map(|g| g.expect("the PGN written reads back"))
        .collect()
}

fn balanced() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("openings/balanced.epd")
        .display()
        .to_string()
}

#[test]
fn our_engine_against_itself() {
    let env = Env::new("self");
    let marker = format!("selfplay-marker-{}", std::process::id());
    let pgn_path = env.path("games.pgn");
    let mut a = args(&format!(
        "-engine name=Ours1 cmd={BIN} arg=--uci-engine arg={marker} -engine name=Ours2 cmd={BIN} \
         arg=--uci-engine arg={marker} -each nodes=1500 option.Hash=8 -games 2 -rounds 2 -repeat \
         -concurrency 2 -srand 3 -pgnout {pgn_path} -sprt elo0=0 elo1=10 -draw movenumber=60 movecount=5 score=5"
    ));
    a.extend([
        "-openings".into(),
        format!("file={}", balanced()),
        "order=random".into(),
    ]);
    let o = env.run(&a);
    let out = text(&o);
    assert!(o.status.success(), "{out}");
    assert!(out.contains("Finished game 4"), "{out}");
    assert!(out.contains("Score of Ours1 vs Ours2:"), "{out}");
    assert!(out.contains("SPRT LLR"), "{out}");
    assert!(out.contains("Elo difference (Ours1 - Ours2)"), "{out}");
    // With -repeat the two games of an opening are a pair: four games are two pairs, and the
    // SPRT is the pentanomial one on normalized Elo.
    let pairs_line = out
        .lines()
        .find(|l| l.starts_with("Game pairs: "))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(
        pairs_line.starts_with("Game pairs: 2, Ptnml(0-2) ["),
        "{out}"
    );
    assert!(
        out.contains("SPRT (normalized elo0=0 elo1=10 alpha=0.05 beta=0.05, pentanomial)"),
        "{out}"
    );
    let games = games_of(&pgn_path);
    assert_eq!(games.len(), 4, "{out}");
    // Openings are played twice with colours swapped.
    let mut pairs = std::collections::HashMap::new();
    for g in &games {
        assert_ne!(g.result, GameResult::Unknown);
        assert!(g.tag("Termination").is_some());
        assert!(g.tag("TerminationDetails").is_some());
        assert_eq!(g.tag("TimeControl"), Some("nodes=1500"));
        assert!(!g.moves.is_empty());
        // Each move carries its score/depth and time.
        let c = g.moves[0].comment.as_deref().unwrap();
        assert!(c.contains('/') && c.contains('s'), "{c}");
        pairs
            .entry(g.tag("Round").unwrap().to_string())
            .or_insert_with(Vec::new)
            .push((g.start.fen(), g.tag("Red").unwrap().to_string()));
    }
    assert_eq!(pairs.len(), 2);
    for (_, v) in pairs {
        assert_eq!(v.len(), 2);
        assert_eq!(v[0].0, v[1].0, "the same opening");
        assert_ne!(v[0].1, v[1].1, "colours swapped");
    }
    assert_none_left(&marker);
}

#[test]
fn perpetual_chase_loses_across_protocols_and_coordinates() {
    // RULES.md §6.3: Red's cannon chases Black's chariot; a chess tool would call it a draw.
    let env = Env::new("chase");
    let epd = env.path("chase.epd");
    std::fs::write(
        &epd,
        "2bakabnr/9/r1n1c4/2p1p1p1p/PP7/9/4P1P1P/2C3NC1/9/1NBAKAB1R w - - 0 1\n",
    )
    .unwrap();
    let moves = "c2a2,a7b7,a2b2,b7a7,b2a2,a7b7,a2b2,b7a7,b2a2,a7b7";
    let fake = env.fake();
    let log_a = env.path("a.log");
    let log_b = env.path("b.log");
    let pgn_path = env.path("g.pgn");
    let o = env.run(&args(&format!(
        "-engine name=FS-like cmd=python3 arg={fake} arg=script arg=ranks=1 arg=moves={moves} arg=log={log_a} ranks=1 \
         -engine name=UCCI-like cmd=python3 arg={fake} arg=script arg=proto=ucci arg=moves={moves} arg=log={log_b} proto=ucci \
         -each tc=30+1 -games 2 -repeat -openings file={epd} -pgnout {pgn_path}"
    )));
    let out = text(&o);
    assert!(o.status.success(), "{out}");
    let games = games_of(&pgn_path);
    assert_eq!(games.len(), 2, "{out}");
    for g in &games {
        assert_eq!(g.result, GameResult::BlackWins, "{out}");
        assert_eq!(g.moves.len(), 9);
        assert!(
            g.tag("TerminationDetails")
                .unwrap()
                .contains("perpetual chase"),
            "{out}"
        );
    }
    // Each engine won once (as Black) and lost once.
    assert!(
        out.contains("Score of FS-like vs UCCI-like: 1 - 1 - 0"),
        "{out}"
    );
    // The ranks=1 engine got a1..i10 squares and the UCI_Variant option.
    let a = std::fs::read_to_string(&log_a).unwrap();
    assert!(
        a.contains("setoption name UCI_Variant value xiangqi"),
        "{a}"
    );
    assert!(a.contains("moves c3a3 a8b8"), "{a}");
    assert!(a.contains("go wtime"), "{a}");
    // The UCCI engine got UCCI: usemillisec, go time ... increment, and quit.
    let b = std::fs::read_to_string(&log_b).unwrap();
    assert!(b.starts_with("ucci\n"), "{b}");
    assert!(b.contains("setoption usemillisec true"), "{b}");
    assert!(b.contains("moves c2a2 a7b7"), "{b}");
    assert!(
        b.contains("go time ") && b.contains(" increment 1000"),
        "{b}"
    );
    assert!(b.contains("quit"), "{b}");
}

fn bad_engine_match(mode: &str, extra: &str) -> (String, Vec<xiangqi_record::GameRecord>) {
    let env = Env::new(mode);
    // `sleep 4PID.K`: distinct for each mode, as the tests run at the same time.
    let k = ["illegal", "garbage", "crash", "hang", "nouciok"]
        .iter()
        .position(|m| *m == mode)
        .expect("a known mode")
        + 1;
    let marker = format!("{}.{k}", 4000 + std::process::id() % 1000);
    let fake = env.fake();
    let pgn_path = env.path("g.pgn");
    let o = env.run(&args(&format!(
        "-engine name=Bad cmd=python3 arg={fake} arg={mode} arg=spawn={marker} {extra} \
         -engine name=Ours cmd={BIN} arg=--uci-engine -each nodes=500 timeout=3 -games 2 -repeat -pgnout {pgn_path}"
    )));
    let out = text(&o);
    assert!(o.status.success(), "{out}");
    assert_none_left(&format!("sleep {marker}"));
    let games = games_of(&pgn_path);
    assert_eq!(games.len(), 2, "{out}");
    assert!(out.contains("Score of Bad vs Ours: 0 - 2 - 0"), "{out}");
    (out, games)
}

#[test]
fn illegal_move_loses() {
    let (out, games) = bad_engine_match("illegal", "");
    for g in &games {
        assert_eq!(g.tag("Termination"), Some("illegal move"), "{out}");
        assert!(
            g.tag("TerminationDetails")
                .unwrap()
                .contains("illegal move"),
            "{out}"
        );
    }
    // As Red: the chariot is blocked; as Black: not its piece.
    assert!(out.contains("the piece cannot move there"), "{out}");
    assert!(out.contains("not the side to move's"), "{out}");
}

#[test]
fn garbage_is_ignored_and_an_unreadable_move_loses() {
    let (out, games) = bad_engine_match("garbage", "");
    for g in &games {
        assert_eq!(g.tag("Termination"), Some("illegal move"), "{out}");
    }
    assert!(out.contains("'xyzzy' is not a move"), "{out}");
}

#[test]
fn crash_loses() {
    let (out, games) = bad_engine_match("crash", "");
    for g in &games {
        assert_eq!(g.tag("Termination"), Some("abandoned"), "{out}");
    }
    assert!(out.contains("crashed"), "{out}");
    assert!(out.contains("exit status: 3"), "{out}");
}

#[test]
fn hang_loses() {
    let (out, games) = bad_engine_match("hang", "");
    for g in &games {
        assert_eq!(g.tag("Termination"), Some("time forfeit"), "{out}");
    }
    assert!(
        out.contains("did not reply with a move within 3.0 s"),
        "{out}"
    );
}

#[test]
fn silent_handshake_loses() {
    let (out, _) = bad_engine_match("nouciok", "starttimeout=1");
    assert!(
        out.contains("did not answer uci with uciok within 1.0 s at start-up"),
        "{out}"
    );
}

#[test]
fn flag_falls_on_the_clock() {
    let env = Env::new("flag");
    let fake = env.fake();
    let o = env.run(&args(&format!(
        "-engine name=Slow cmd=python3 arg={fake} arg=hang -engine name=Ours cmd={BIN} arg=--uci-engine \
         -each tc=0.3+0 timemargin=100 -games 1"
    )));
    let out = text(&o);
    assert!(o.status.success(), "{out}");
    assert!(
        out.contains(
            "0-1 {Black wins on time: Red's engine Slow did not move before its time ran out \
             (300 ms on its clock + 100 ms margin)."
        ),
        "{out}"
    );
}

#[test]
fn resign_and_draw_adjudication() {
    let env = Env::new("adj");
    let epd = env.path("chase.epd");
    std::fs::write(
        &epd,
        "2bakabnr/9/r1n1c4/2p1p1p1p/PP7/9/4P1P1P/2C3NC1/9/1NBAKAB1R w - - 0 1\n",
    )
    .unwrap();
    let moves = "c2a2,a7b7,a2b2,b7a7,b2a2,a7b7,a2b2,b7a7,b2a2,a7b7";
    let fake = env.fake();
    let o = env.run(&args(&format!(
        "-engine name=Gloomy cmd=python3 arg={fake} arg=script arg=moves={moves} arg=score=-700 \
         -engine name=Calm cmd=python3 arg={fake} arg=script arg=moves={moves} arg=score=0 \
         -each depth=3 -games 1 -openings file={epd} -resign movecount=2 score=600"
    )));
    let out = text(&o);
    assert!(o.status.success(), "{out}");
    assert!(out.contains("0-1 {Black wins by adjudication: Red's engine Gloomy scored -600 cp or worse on 2 moves in a row."), "{out}");

    let o = env.run(&args(&format!(
        "-engine name=A cmd=python3 arg={fake} arg=script arg=moves={moves} arg=score=3 \
         -engine name=B cmd=python3 arg={fake} arg=script arg=moves={moves} arg=score=-2 \
         -each depth=3 -games 1 -openings file={epd} -draw movenumber=1 movecount=2 score=10"
    )));
    let out = text(&o);
    assert!(o.status.success(), "{out}");
    assert!(out.contains("1/2-1/2 {Draw by adjudication"), "{out}");
}

#[test]
fn sigint_ends_every_engine() {
    let env = Env::new("sigint");
    let marker = format!("sigint-marker-{}", std::process::id());
    let fake = env.fake();
    let child = Command::new(BIN)
        .args(args(&format!(
            "-logdir {} -engine name=A cmd={BIN} arg=--uci-engine arg={marker} \
             -engine name=B cmd=python3 arg={fake} arg=hang arg=spawn=1234.{} arg=tag={marker} \
             -each tc=60+1 -games 8 -concurrency 2",
            env.path("logs"),
            std::process::id() % 1000
        )))
        .current_dir(&env.dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until both games are under way (two engines of ours, two fakes and their sleeps).
    let until = Instant::now() + Duration::from_secs(20);
    while processes_with(&marker).len() < 4 || processes_with("sleep 1234.").len() < 2 {
        assert!(Instant::now() < until, "the engines did not start");
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(300));
    // SAFETY: kill(2) sends SIGINT to the child we started; no memory is touched.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGINT);
    }
    let start = Instant::now();
    let o = child.wait_with_output().unwrap();
    assert!(start.elapsed() < Duration::from_secs(10));
    let out = text(&o);
    assert_eq!(o.status.code(), Some(130), "{out}");
    assert!(out.contains("Interrupted after 0 of 8 games"), "{out}");
    assert_none_left(&marker);
    assert_none_left(&format!("sleep 1234.{}", std::process::id() % 1000));
}

#[test]
fn missing_engine_is_a_clear_error() {
    let env = Env::new("missing");
    let o = env.run(&args(&format!(
        "-engine name=Nope cmd={}/no-such-engine -engine cmd={BIN} arg=--uci-engine -each nodes=100",
        env.dir.display()
    )));
    let out = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains("engine Nope: could not be started"), "{out}");
    assert!(out.contains("no-such-engine"), "{out}");
    let o = env.run(&args("-engine cmd=a -each nodes=1"));
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).contains("exactly two -engine"));
}

/// Without `-log` the runner writes no log folder (in the folder it was started in or
/// elsewhere); `-debug` then asks for one.
#[test]
fn logs_only_when_asked() {
    let env = Env::new("nolog");
    let pgn_path = env.path("g.pgn");
    let o = Command::new(BIN)
        .args(args(&format!(
            "-engine name=A cmd={BIN} arg=--uci-engine -engine name=B cmd={BIN} arg=--uci-engine \
             -each depth=1 -games 2 -repeat -pgnout {pgn_path}"
        )))
        .current_dir(&env.dir)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let out = text(&o);
    assert!(o.status.success(), "{out}");
    assert_eq!(games_of(&pgn_path).len(), 2, "{out}");
    let mut entries: Vec<String> = std::fs::read_dir(&env.dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    entries.sort();
    assert_eq!(entries, ["fake.py", "g.pgn"], "{out}");
    assert!(!out.contains("logs in"), "{out}");
    let o = Command::new(BIN)
        .args(args(&format!(
            "-engine cmd={BIN} -engine cmd={BIN} -each depth=1 -debug"
        )))
        .current_dir(&env.dir)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("give -log DIR"), "{}", text(&o));
    // With -log the folder is made and the engines' standard error is kept there.
    let o = env.run(&args(&format!(
        "-engine name=A cmd={BIN} arg=--uci-engine -engine name=B cmd={BIN} arg=--uci-engine \
         -each depth=1 -games 2"
    )));
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        Path::new(&env.path("logs/A.stderr.log")).exists(),
        "{}",
        text(&o)
    );
}

/// Games with no illegal move, crash, hang or time loss.
fn assert_clean_games(out: &str, games: &[xiangqi_record::GameRecord], n: usize) {
    assert_eq!(games.len(), n, "{out}");
    for g in games {
        let t = g.tag("Termination").unwrap();
        assert!(t == "normal" || t == "adjudication", "{t}: {out}");
        assert_ne!(g.result, GameResult::Unknown);
    }
}

#[test]
fn our_engine_over_ucci_against_uci() {
    // Our engine speaks UCCI too: a real UCCI implementation on the other side.
    let env = Env::new("ucci");
    let pgn_path = env.path("g.pgn");
    let o = env.run(&args(&format!(
        "-engine name=UCCI cmd={BIN} arg=--uci-engine proto=ucci -engine name=UCI cmd={BIN} arg=--uci-engine \
         -each tc=2+0.05 timemargin=3000 -games 2 -repeat -debug -pgnout {pgn_path} \
         -resign movecount=3 score=1000 -draw movenumber=30 movecount=6 score=5"
    )));
    let out = text(&o);
    assert!(o.status.success(), "{out}");
    assert_clean_games(&out, &games_of(&pgn_path), 2);
    let io = std::fs::read_to_string(env.path("logs/UCCI.io.log")).unwrap();
    assert!(io.contains("> ucci"), "{io}");
    assert!(io.contains("< ucciok"), "{io}");
    assert!(io.contains("> setoption usemillisec true"), "{io}");
    assert!(io.contains(" increment 50 opptime "), "{io}");
}

/// A Debian engine found as `.ci/run` finds it: on PATH, then in /usr/games. Missing, it
/// fails the test under `CI=true` (CI installs it) and is skipped, loudly, elsewhere.
fn debian_engine(name: &str) -> Option<String> {
    let dirs = std::env::var_os("PATH").unwrap_or_default();
    let found = std::env::split_paths(&dirs)
        .chain([PathBuf::from("/usr/games")])
        .map(|d| d.join(name))
        .find(|p| {
            use std::os::unix::fs::PermissionsExt;
            std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        });
    match found {
        Some(p) => Some(p.display().to_string()),
        None if std::env::var("CI").as_deref() == Ok("true") => panic!(
            "{name} is not on PATH or in /usr/games, and CI=true: install it \
             (apt-get install -y {name})"
        ),
        None => {
            eprintln!(
                "SKIPPED: {name} is not on PATH or in /usr/games (apt-get install -y {name}); \
                 under CI=true this fails"
            );
            None
        }
    }
}

#[test]
fn fairy_stockfish_with_ranks_1_to_10_skipped_if_not_installed() {
    let Some(fs) = debian_engine("fairy-stockfish") else {
        return;
    };
    let env = Env::new("fairy");
    let pgn_path = env.path("g.pgn");
    let mut a = args(&format!(
        "-engine name=Ours cmd={BIN} arg=--uci-engine -engine name=FairySF cmd={fs} ranks=1 \
         -each depth=3 -games 2 -repeat -pgnout {pgn_path}"
    ));
    a.extend(["-openings".into(), format!("file={}", balanced())]);
    let o = env.run(&a);
    let out = text(&o);
    assert!(o.status.success(), "{out}");
    assert_clean_games(&out, &games_of(&pgn_path), 2);
}

#[test]
fn sjaak_with_ranks_1_to_10_and_he_letters_skipped_if_not_installed() {
    let Some(sj) = debian_engine("sjaakii") else {
        return;
    };
    let env = Env::new("sjaak");
    let pgn_path = env.path("g.pgn");
    let mut a = args(&format!(
        "-engine name=Ours cmd={BIN} arg=--uci-engine -engine name=Sjaak cmd={sj} ranks=1 \
         -each depth=2 -games 2 -repeat -pgnout {pgn_path} -debug"
    ));
    a.extend(["-openings".into(), format!("file={}", balanced())]);
    let o = env.run(&a);
    let out = text(&o);
    assert!(o.status.success(), "{out}");
    assert_clean_games(&out, &games_of(&pgn_path), 2);
    let io = std::fs::read_to_string(env.path("logs/Sjaak.io.log")).unwrap();
    assert!(io.contains("> position fen rheakae"), "{io}");
}

#[test]
fn sprt_stops_the_match() {
    use xiangqi_match::stats::{EloModel, Sprt, SprtState, Wdl};
    // The command line's default model is normalized Elo.
    let sprt = Sprt::new(-20.0, 20.0, 0.1, 0.1)
        .unwrap()
        .with_model(EloModel::Normalized);
    // An engine that loses every game: H0 is accepted after this many games.
    let n = (1..1000)
        .find(|&n| sprt.state(&Wdl::new(0, 0, n)) == SprtState::H0)
        .unwrap();
    assert!(n < 40, "{n}");
    let env = Env::new("sprt");
    let fake = env.fake();
    let o = env.run(&args(&format!(
        "-engine name=Bad cmd=python3 arg={fake} arg=illegal -engine name=Ours cmd={BIN} arg=--uci-engine \
         -each nodes=200 -games 200 -concurrency 2 -sprt elo0=-20 elo1=20 alpha=0.1 beta=0.1"
    )));
    let out = text(&o);
    assert!(o.status.success(), "{out}");
    assert!(out.contains("SPRT: H0 accepted; stopping"), "{out}");
    assert!(
        out.contains(&format!("Score of Bad vs Ours: 0 - {n} - 0")),
        "{out}"
    );
    assert!(out.contains(": H0 accepted"), "{out}");
}

#[test]
fn an_sprt_continued_from_earlier_pairs_stops_on_their_sum() {
    use xiangqi_match::stats::{EloModel, Penta, Sprt, SprtState};
    let sprt = Sprt::new(-20.0, 20.0, 0.1, 0.1)
        .unwrap()
        .with_model(EloModel::Normalized);
    // Earlier pairs that leave the test open, and one lost pair more closes it.
    let earlier = (1..1000)
        .map(|k| Penta([k, 2, 3, 2, 1]))
        .find(|p| sprt.state_pairs(&p.plus(&Penta([1, 0, 0, 0, 0]))) == SprtState::H0)
        .unwrap();
    assert_eq!(sprt.state_pairs(&earlier), SprtState::Continue);
    let counts = earlier.0.map(|c| c.to_string()).join(",");
    let env = Env::new("sprt-earlier");
    let fake = env.fake();
    let o = env.run(&args(&format!(
        "-engine name=Bad cmd=python3 arg={fake} arg=illegal -engine name=Ours cmd={BIN} arg=--uci-engine \
         -each nodes=200 -games 2 -rounds 50 -repeat -concurrency 1 \
         -sprt elo0=-20 elo1=20 alpha=0.1 beta=0.1 earlier={counts}"
    )));
    let out = text(&o);
    assert!(o.status.success(), "{out}");
    let n = earlier.pairs();
    assert!(out.contains(&format!("(with {n} earlier pairs)")), "{out}");
    assert!(out.contains("SPRT: H0 accepted; stopping"), "{out}");
    assert!(out.contains("Score of Bad vs Ours: 0 - 2 - 0"), "{out}");
    assert!(
        out.contains(&format!(
            "Earlier runs of this test: {n} pairs, Ptnml(0-2) [{}]; together: {} pairs",
            earlier.0.map(|c| c.to_string()).join(", "),
            n + 1
        )),
        "{out}"
    );
}

#[test]
fn shipped_openings_are_balanced_and_replay() {
    let text = std::fs::read_to_string(balanced()).unwrap();
    let mut seen = std::collections::HashSet::new();
    let mut n = 0;
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let fen: Vec<&str> = line.split_whitespace().take(6).collect();
        let fen = fen.join(" ");
        let pos = xiangqi::Position::from_fen(&fen).unwrap();
        assert!(seen.insert(pos.key()), "repeated: {line}");
        // c0: the moves from the start position reach the FEN.
        let moves = line
            .split("c0 \"")
            .nth(1)
            .unwrap()
            .split('"')
            .next()
            .unwrap();
        let plies = moves.split_whitespace().count();
        assert!((2..=4).contains(&plies), "{line}");
        let mut p = xiangqi::Position::new();
        for m in moves.split_whitespace() {
            let mv = p.parse_uci(m).unwrap();
            p.play_unchecked(mv);
        }
        assert_eq!(p.fen(), fen, "{line}");
        // ce: within ±50 cp.
        let ce: i32 = line
            .split("ce ")
            .nth(1)
            .unwrap()
            .trim_end_matches(';')
            .trim()
            .parse()
            .unwrap();
        assert!(ce.abs() <= 50, "{line}");
        n += 1;
    }
    assert!(n >= 100, "only {n} openings");
    // The runner reads the file.
    let spec = xiangqi_match::cli::OpeningsSpec {
        file: balanced().into(),
        pgn: None,
        order: xiangqi_match::cli::Order::Sequential,
        start: 1,
        book: false,
        plies: None,
    };
    assert_eq!(xiangqi_match::openings::load(&spec, 1, 0).unwrap().len(), n);
}

/// `-openings file=BOOK format=book plies=N`: each opening is a weighted walk in an engine
/// book, played with both colours; every book ply is a move the book has for its position.
#[test]
fn book_openings_are_walks_in_the_book_played_with_both_colours() {
    use xiangqi_explorer::book::{encode, Book, Entry, Header};
    let env = Env::new("book");
    let start = xiangqi::Position::new();
    let after = |line: &[&str]| {
        let mut p = xiangqi::Position::new();
        for m in line {
            let mv = p.parse_uci(m).unwrap();
            p.play_unchecked(mv);
        }
        p
    };
    let e =
        |p: &xiangqi::Position, m: &str, w: u16| Entry::new(p, p.parse_uci(m).unwrap(), w, 9, 9);
    let p1 = after(&["h2e2"]);
    let p2 = after(&["h2e2", "h9g7"]);
    let entries = vec![
        e(&start, "h2e2", 3),
        e(&start, "c3c4", 1),
        e(&p1, "h9g7", 2),
        e(&p1, "h7e7", 1),
        e(&p2, "h0g2", 1),
    ];
    let path = env.path("engine.xqb");
    std::fs::write(&path, encode(entries, Header::default()).unwrap()).unwrap();
    let book = Book::load(std::path::Path::new(&path)).unwrap();
    let pgn_path = env.path("games.pgn");
    let o = env.run(&args(&format!(
        "-engine name=A cmd={BIN} arg=--uci-engine -engine name=B cmd={BIN} arg=--uci-engine \
         -each nodes=300 option.Hash=4 -games 2 -rounds 4 -repeat -srand 11 -pgnout {pgn_path} \
         -draw movenumber=10 movecount=2 score=2000 \
         -openings file={path} format=book plies=4 order=random"
    )));
    let out = text(&o);
    assert!(o.status.success(), "{out}");
    assert!(out.contains("4 openings from"), "{out}");
    let games = games_of(&pgn_path);
    assert_eq!(games.len(), 8, "{out}");
    let mut pairs: std::collections::HashMap<String, Vec<(Vec<String>, String)>> =
        Default::default();
    let mut longest = 0;
    for g in &games {
        let mut p = g.start.clone();
        assert_eq!(p.fen(), start.fen());
        let mut line = vec![];
        for n in g
            .moves
            .iter()
            .take_while(|n| n.comment.as_deref() == Some("book"))
        {
            let mv = n.mv;
            assert!(
                book.probe(&p).iter().any(|b| b.mv == mv),
                "{mv} is not a book move of {}",
                p.fen()
            );
            line.push(mv.to_string());
            p.play_unchecked(mv);
        }
        assert!(!line.is_empty() && line.len() <= 4, "{line:?}");
        longest = longest.max(line.len());
        pairs
            .entry(g.tag("Round").unwrap().to_string())
            .or_default()
            .push((line, g.tag("Red").unwrap().to_string()));
    }
    assert_eq!(longest, 3, "h2e2 h9g7 h0g2 is the longest line in the book");
    for (_, v) in pairs {
        assert_eq!(v.len(), 2);
        assert_eq!(v[0].0, v[1].0, "the same opening");
        assert_ne!(v[0].1, v[1].1, "colours swapped");
    }
    // A file that is not a book, named as one, is refused with the reason.
    let junk = env.path("junk.xqb");
    std::fs::write(&junk, "not a book").unwrap();
    let o = env.run(&args(&format!(
        "-engine name=A cmd={BIN} arg=--uci-engine -engine name=B cmd={BIN} arg=--uci-engine \
         -each nodes=300 -openings file={junk} format=book"
    )));
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o).contains("not a book file"), "{}", text(&o));
}
