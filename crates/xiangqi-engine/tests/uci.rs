//! UCI and UCCI conversations with the real `xiangqi-engine` binary over pipes.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

struct Engine {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    seen: Vec<String>,
}

impl Engine {
    fn start() -> Engine {
        let mut child = Command::new(env!("CARGO_BIN_EXE_xiangqi-engine"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("start the engine");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Engine {
            child,
            stdin,
            lines,
            seen: Vec::new(),
        }
    }

    fn send(&mut self, s: &str) {
        writeln!(self.stdin, "{s}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// Reads lines until one satisfies `pred`; returns it. Panics after `secs` seconds.
    fn expect(&mut self, secs: u64, pred: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + Duration::from_secs(secs);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(l) => {
                    self.seen.push(l.clone());
                    if pred(&l) {
                        return l;
                    }
                }
                Err(RecvTimeoutError::Timeout) => panic!("timed out; seen: {:#?}", self.seen),
                Err(RecvTimeoutError::Disconnected) => {
                    panic!("engine exited; seen: {:#?}", self.seen)
                }
            }
        }
    }

    fn expect_line(&mut self, secs: u64, exact: &str) {
        self.expect(secs, |l| l == exact);
    }

    fn bestmove(&mut self, secs: u64) -> String {
        self.expect(secs, |l| l.starts_with("bestmove"))
    }

    fn quit(mut self) {
        self.send("quit");
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                assert!(status.success());
                return;
            }
            assert!(Instant::now() < deadline, "engine did not quit");
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for Engine {
    /// A failed test leaves no engine running.
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Whether `mv` is legal after `moves` from the start position.
fn legal_in(moves: &[&str], mv: &str) -> bool {
    let game = xiangqi::Game::from_uci(xiangqi::START_FEN, moves).unwrap();
    game.position().parse_uci(mv).is_ok()
}

#[test]
fn handshake_and_options() {
    let mut e = Engine::start();
    e.send("uci");
    e.expect(5, |l| l.starts_with("id name "));
    e.expect(5, |l| l.starts_with("id author "));
    e.expect_line(5, "uciok");
    for name in [
        "Hash",
        "Clear Hash",
        "Threads",
        "MultiPV",
        "Ponder",
        "Move Overhead",
        "Skill Level",
        "UCI_LimitStrength",
        "UCI_Elo",
    ] {
        let prefix = format!("option name {name} type ");
        assert!(
            e.seen.iter().any(|l| l.starts_with(&prefix)),
            "missing option {name}"
        );
    }
    e.send("setoption name Hash value 32");
    e.send("setoption name Clear Hash");
    e.send("setoption name Threads value 2");
    e.send("isready");
    e.expect_line(5, "readyok");
    assert!(!e.seen.iter().any(|l| l.contains("error")), "{:?}", e.seen);
    e.quit();
}

/// `setoption` takes exactly the ranges `uci` lists, and the facade has the listed defaults
/// (one table behind all three).
#[test]
fn option_ranges_are_the_listed_ones() {
    let mut e = Engine::start();
    e.send("uci");
    e.expect_line(5, "uciok");
    let spins: Vec<(String, i64, i64, i64)> = e
        .seen
        .iter()
        .filter_map(|l| {
            let rest = l.strip_prefix("option name ")?;
            let (name, kind) = rest.split_once(" type spin ")?;
            let w: Vec<i64> = kind
                .split_whitespace()
                .skip(1)
                .step_by(2)
                .map(|n| n.parse().unwrap())
                .collect();
            Some((name.to_string(), w[0], w[1], w[2]))
        })
        .collect();
    assert_eq!(spins.len(), 7, "{:?}", e.seen);
    let facade = xiangqi_engine::Options::default();
    for (name, default, min, max) in &spins {
        let d = match name.as_str() {
            "Hash" => facade.hash_mb as i64,
            "Threads" => facade.threads as i64,
            "MultiPV" => facade.multipv as i64,
            "Move Overhead" => facade.move_overhead_ms as i64,
            "Skill Level" => facade.skill_level as i64,
            "UCI_Elo" => facade.elo as i64,
            "TbProbeDepth" => facade.tb_probe_depth as i64,
            other => panic!("unexpected spin option {other}"),
        };
        assert_eq!(d, *default, "{name}");
        for bad in [min - 1, max + 1] {
            e.send(&format!("setoption name {name} value {bad}"));
            let l = e.expect(5, |l| l.starts_with("info string error: "));
            assert!(l.contains(&format!("between {min} and {max}")), "{l}");
        }
        let before = e.seen.len();
        // The ends are accepted (a small Hash, not 64 GiB).
        let top = if name == "Hash" { 2 } else { *max };
        e.send(&format!("setoption name {name} value {min}"));
        e.send(&format!("setoption name {name} value {top}"));
        e.send("isready");
        e.expect_line(5, "readyok");
        assert!(
            !e.seen[before..].iter().any(|l| l.contains("error")),
            "{name}: {:?}",
            &e.seen[before..]
        );
    }
    e.quit();
}

#[test]
fn searches_and_reports() {
    let mut e = Engine::start();
    e.send("ucinewgame");
    e.send("position startpos moves h2e2 h9g7");
    e.send("go depth 6");
    let info = e.expect(30, |l| l.starts_with("info depth 6 "));
    for field in [
        " seldepth ",
        " multipv 1 ",
        " score cp ",
        " nodes ",
        " nps ",
        " hashfull ",
        " time ",
        " pv ",
    ] {
        assert!(info.contains(field), "{field} missing in {info}");
    }
    let best = e.bestmove(30);
    let mv = best.split_whitespace().nth(1).unwrap();
    assert!(legal_in(&["h2e2", "h9g7"], mv), "{best}");
    e.quit();
}

#[test]
fn malformed_input_is_reported_and_survived() {
    let mut e = Engine::start();
    let cases = [
        ("frobnicate", "unknown command 'frobnicate'"),
        ("go depth x", "'depth' needs a non-negative number, got 'x'"),
        ("go sideways", "unknown parameter 'sideways'"),
        ("position fen rnbakabnr/9/9 w", "bad FEN"),
        ("position startpos moves h2e2 e2e9", "move 2 (e2e9)"),
        ("position middlegame", "expected 'startpos' or 'fen'"),
        (
            "setoption name Hash value lots",
            "option 'Hash' needs a number, got 'lots'",
        ),
        ("setoption name Threads value 0", "between 1 and 256"),
        ("setoption name Colour value red", "no such option 'Colour'"),
        ("bench deep", "bench: depth must be a number"),
        ("go searchmoves z9z9", "searchmoves: 'z9z9'"),
    ];
    for (cmd, msg) in cases {
        e.send(cmd);
        let l = e.expect(5, |l| l.starts_with("info string error: "));
        assert!(l.contains(msg), "{cmd}: {l}");
    }
    // A bad position leaves the previous one in place; the engine still searches.
    e.send("position startpos moves b0c2");
    e.send("position startpos moves b0c2 zz");
    e.expect(5, |l| l.starts_with("info string error: "));
    e.send("go depth 3");
    let best = e.bestmove(30);
    assert!(
        legal_in(&["b0c2"], best.split_whitespace().nth(1).unwrap()),
        "{best}"
    );
    e.send("isready");
    e.expect_line(5, "readyok");
    e.quit();
}

#[test]
fn stop_ends_an_infinite_search() {
    let mut e = Engine::start();
    e.send("position startpos");
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(300));
    // The loop answers while the search runs.
    e.send("isready");
    e.expect_line(5, "readyok");
    assert!(
        !e.seen.iter().any(|l| l.starts_with("bestmove")),
        "infinite search ended by itself"
    );
    let t = Instant::now();
    e.send("stop");
    let best = e.bestmove(5);
    assert!(
        t.elapsed() < Duration::from_secs(2),
        "stop took {:?}",
        t.elapsed()
    );
    assert!(legal_in(&[], best.split_whitespace().nth(1).unwrap()));
    e.quit();
}

#[test]
fn quit_during_search_exits() {
    let mut e = Engine::start();
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(100));
    e.quit();
}

#[test]
fn clock_searches_return_in_time() {
    let mut e = Engine::start();
    e.send("position startpos moves h2e2");
    let t = Instant::now();
    e.send("go wtime 1000 btime 1000 winc 0 binc 0");
    e.bestmove(10);
    // Black has a second on the clock: it must move well inside it.
    assert!(
        t.elapsed() < Duration::from_millis(1000),
        "{:?}",
        t.elapsed()
    );
    let t = Instant::now();
    e.send("go movetime 300");
    e.bestmove(10);
    assert!(
        t.elapsed() < Duration::from_millis(1000),
        "{:?}",
        t.elapsed()
    );
    e.send("go btime 60000 wtime 60000 movestogo 1 nodes 5000");
    e.bestmove(20);
    e.quit();
}

#[test]
fn ponder_waits_for_ponderhit() {
    let mut e = Engine::start();
    e.send("setoption name Ponder value true");
    e.send("position startpos moves h2e2 h9g7");
    e.send("go ponder wtime 500 btime 500");
    std::thread::sleep(Duration::from_millis(800));
    assert!(!e.seen.iter().any(|l| l.starts_with("bestmove")));
    e.send("isready");
    e.expect_line(5, "readyok");
    assert!(
        !e.seen.iter().any(|l| l.starts_with("bestmove")),
        "pondering search moved"
    );
    e.send("ponderhit");
    let best = e.bestmove(5);
    assert!(legal_in(
        &["h2e2", "h9g7"],
        best.split_whitespace().nth(1).unwrap()
    ));
    e.quit();
}

#[test]
fn display_perft_and_bench() {
    let mut e = Engine::start();
    e.send("position startpos");
    e.send("d");
    e.expect_line(
        5,
        "Fen: rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1",
    );
    e.expect(5, |l| l.starts_with("Key: "));
    e.send("eval");
    e.expect(5, |l| {
        l.starts_with("Classical evaluation +10 cp (red side")
    });
    let nnue = e.expect(5, |l| l.starts_with("NNUE evaluation "));
    // The search uses the network by default.
    let fin = e.expect(5, |l| l.starts_with("Final evaluation "));
    assert_eq!(
        nnue["NNUE evaluation ".len()..],
        fin["Final evaluation ".len()..]
    );
    e.send("setoption name Use NNUE value false");
    e.send("eval");
    e.expect(5, |l| l.starts_with("Final evaluation +10 cp (red side"));
    e.send("go perft 2");
    e.expect_line(10, "Nodes searched: 1920");
    e.send("bench 4");
    let last = e.expect(60, |l| l.ends_with(" nps"));
    let words: Vec<&str> = last.split_whitespace().collect();
    assert_eq!(words.len(), 4, "{last}");
    assert_eq!(words[1], "nodes");
    assert!(words[0].parse::<u64>().unwrap() > 0);
    e.quit();
}

#[test]
fn no_legal_move_answers_none() {
    let mut e = Engine::start();
    // Black is checkmated.
    e.send("position fen 3k5/3R5/3R5/9/9/9/9/9/9/4K4 b - - 0 1");
    e.send("go depth 5");
    e.expect(5, |l| {
        l.starts_with("info depth 0 ") && l.contains("score mate 0")
    });
    e.expect_line(5, "bestmove (none)");
    e.quit();
}

#[test]
fn ucci_dialect() {
    let mut e = Engine::start();
    e.send("ucci");
    e.expect(5, |l| l.starts_with("id name "));
    e.expect_line(5, "ucciok");
    e.send("setoption hashsize 8");
    e.send("setoption usemillisec true");
    e.send("position startpos moves h2e2");
    e.send("banmoves h9g7 b9c7");
    let t = Instant::now();
    e.send("go time 800 increment 0");
    let best = e.bestmove(10);
    assert!(
        t.elapsed() < Duration::from_millis(800),
        "{:?}",
        t.elapsed()
    );
    let mv = best.split_whitespace().nth(1).unwrap();
    assert!(
        legal_in(&["h2e2"], mv) && mv != "h9g7" && mv != "b9c7",
        "{best}"
    );
    e.send("isready");
    e.expect_line(5, "readyok");
    e.send("bye");
    e.expect_line(5, "bye");
    let deadline = Instant::now() + Duration::from_secs(5);
    while e.child.try_wait().unwrap().is_none() {
        assert!(Instant::now() < deadline, "engine did not exit on bye");
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn ucci_only_as_first_command() {
    let mut e = Engine::start();
    e.send("isready");
    e.expect_line(5, "readyok");
    e.send("ucci");
    e.expect(5, |l| {
        l.contains("'ucci' is only accepted as the first command")
    });
    e.quit();
}

/// Runs the binary with command-line arguments; returns its standard output.
fn run_with_args(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_xiangqi-engine"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run the engine");
    assert!(out.status.success(), "{args:?}: {:?}", out.status);
    String::from_utf8(out.stdout).unwrap()
}

/// `xiangqi-engine bench` as OpenBench runs it: the arguments are one UCI command, run
/// before the program exits, and the last line is `N nodes M nps`.
#[test]
fn command_line_arguments_run_as_a_command() {
    let nodes = |out: &str| -> u64 {
        let last = out.lines().last().unwrap_or_default();
        let w: Vec<&str> = last.split_whitespace().collect();
        assert!(w.len() == 4 && w[1] == "nodes" && w[3] == "nps", "{out}");
        w[2].parse::<u64>().unwrap();
        w[0].parse().unwrap()
    };
    for flag in ["--help", "-h", "help"] {
        let out = run_with_args(&[flag]);
        assert!(
            out.starts_with("usage:") && out.contains("xiangqi-engine datagen"),
            "{flag}: {out}"
        );
    }
    for flag in ["--version", "-V"] {
        let out = run_with_args(&[flag]);
        assert_eq!(out.trim(), xiangqi_engine::uci::NAME, "{flag}");
    }
    let default = nodes(&run_with_args(&["bench"]));
    let shallow = nodes(&run_with_args(&["bench", "4"]));
    assert!(0 < shallow && shallow < default, "{shallow} {default}");
    // A command that runs on the engine's threads is waited for.
    let out = run_with_args(&["go", "perft", "2"]);
    assert!(out.lines().any(|l| l == "Nodes searched: 1920"), "{out}");
    let out = run_with_args(&["go", "depth", "3"]);
    let best = out.lines().last().unwrap_or_default();
    assert!(best.starts_with("bestmove "), "{out}");
    assert!(
        legal_in(&[], best.split_whitespace().nth(1).unwrap()),
        "{out}"
    );
    // A bad command is reported as on standard input.
    let out = run_with_args(&["frobnicate"]);
    assert!(out.contains("unknown command 'frobnicate'"), "{out}");
}

/// `go perft` runs on the engine's thread: `isready` is answered and `stop` ends it.
#[test]
fn perft_answers_isready_and_stop() {
    let mut e = Engine::start();
    e.send("position startpos");
    e.send("go perft 9");
    std::thread::sleep(Duration::from_millis(200));
    let t = Instant::now();
    e.send("isready");
    e.expect_line(5, "readyok");
    assert!(t.elapsed() < Duration::from_secs(1), "{:?}", t.elapsed());
    e.send("stop");
    let l = e.expect(5, |l| l.starts_with("info string perft stopped"));
    assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
    assert!(l.contains("of 44 root moves"), "{l}");
    assert!(!e.seen.iter().any(|l| l.starts_with("Nodes searched")));
    // The next command finds the engine ready.
    e.send("go perft 2");
    e.expect_line(10, "Nodes searched: 1920");
    e.quit();
    // At the end of input a perft is finished (a search would be stopped).
    let mut child = Command::new(env!("CARGO_BIN_EXE_xiangqi-engine"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"go perft 3\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let out = String::from_utf8(out.stdout).unwrap();
    assert!(out.lines().any(|l| l == "Nodes searched: 79666"), "{out}");
}

/// Clock values up to 2^64-1, and negative ones, are clamped: each `go` ends in a legal move.
#[test]
fn extreme_clock_values_are_clamped() {
    let max = u64::MAX.to_string();
    let mut e = Engine::start();
    e.send("position startpos moves h2e2");
    for go in [
        format!("go wtime {max} btime {max} winc {max} binc {max} movestogo {max} depth 3"),
        format!("go wtime {max} btime {max} winc {max} binc {max} nodes 3000"),
        "go wtime -100 btime -100 winc -10 binc -10".to_string(),
        "go wtime -1 btime 0 movestogo -3".to_string(),
        format!("go movetime {max} depth 3"),
        "go movetime -5".to_string(),
        "go wtime 99999999999999999999999999 btime 99999999999999999999999999 depth 2".to_string(),
    ] {
        e.send(&go);
        let best = e.expect(30, |l| {
            l.starts_with("bestmove") || l.starts_with("info string error")
        });
        let mv = best.split_whitespace().nth(1).unwrap();
        assert!(
            best.starts_with("bestmove") && legal_in(&["h2e2"], mv),
            "{go}: {best}"
        );
    }
    assert!(!e.seen.iter().any(|l| l.contains("error")), "{:?}", e.seen);
    e.quit();
}

/// The NNUE options: listed, a bad network file refused with the reason, a good one loaded,
/// `eval` printing its evaluation, and a search with it.
#[test]
fn nnue_options_over_uci() {
    let dir = std::env::temp_dir().join(format!("xiangqi-uci-nnue-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = dir.join("random net.nnue");
    let arch = xiangqi_nnue::Arch {
        hidden: 32,
        buckets: xiangqi_nnue::KingBuckets::None,
        outputs: 8,
    };
    xiangqi_nnue::FloatNet::random(arch, 1)
        .quantise()
        .save(&good)
        .unwrap();
    let mut e = Engine::start();
    e.send("uci");
    e.expect_line(5, "uciok");
    assert!(e
        .seen
        .iter()
        .any(|l| l == "option name Use NNUE type check default true"));
    assert!(e
        .seen
        .iter()
        .any(|l| l == "option name EvalFile type string default <empty>"));
    e.send(&format!(
        "setoption name EvalFile value {}",
        dir.join("nothing.nnue").display()
    ));
    let l = e.expect(5, |l| l.starts_with("info string error: "));
    assert!(l.contains("EvalFile") && l.contains("nothing.nnue"), "{l}");
    let before = e.seen.len();
    // A path with a space in it.
    e.send(&format!("setoption name EvalFile value {}", good.display()));
    e.send("setoption name Use NNUE value true");
    e.send("eval");
    e.expect(5, |l| l.starts_with("NNUE evaluation "));
    e.send("go nodes 5000");
    e.expect(10, |l| l.starts_with("bestmove "));
    assert!(
        !e.seen[before..]
            .iter()
            .any(|l| l.contains("error") || l.contains("no network")),
        "{:?}",
        e.seen
    );
    e.quit();
}

/// The `wdl W D L` of an info line, which must add up to 1000.
fn wdl_of(info: &str) -> [u32; 3] {
    let t: Vec<&str> = info.split_whitespace().collect();
    let k = t
        .iter()
        .position(|w| *w == "wdl")
        .unwrap_or_else(|| panic!("no wdl in {info}"));
    let v = [1, 2, 3].map(|i| t[k + i].parse::<u32>().unwrap());
    assert_eq!(v.iter().sum::<u32>(), 1000, "{info}");
    v
}

#[test]
fn show_wdl_adds_win_draw_loss_to_every_line() {
    let mut e = Engine::start();
    e.send("uci");
    e.expect_line(5, "uciok");
    assert!(
        e.seen
            .iter()
            .any(|l| l == "option name UCI_ShowWDL type check default false"),
        "{:?}",
        e.seen
    );
    // Off by default.
    e.send("position startpos");
    e.send("go depth 4");
    let info = e.expect(30, |l| l.starts_with("info depth 4 "));
    assert!(!info.contains(" wdl "), "{info}");
    e.bestmove(30);

    e.send("setoption name UCI_ShowWDL value true");
    e.send("setoption name MultiPV value 3");
    e.send("go depth 5");
    let mut lines = Vec::new();
    for k in 1..=3 {
        lines.push(e.expect(30, |l| {
            l.starts_with("info depth 5 ") && l.contains(&format!(" multipv {k} "))
        }));
    }
    e.bestmove(30);
    // The start is close to even: neither side is called a likely winner, and a line that
    // scores better has no smaller win share.
    let [w, _, l] = wdl_of(&lines[0]);
    assert!(w < 700 && l < 700, "{}", lines[0]);
    for pair in lines.windows(2) {
        assert!(wdl_of(&pair[0])[0] >= wdl_of(&pair[1])[0], "{pair:?}");
    }

    // A chariot up: Red to move is the likely winner.
    e.send("setoption name MultiPV value 1");
    e.send("position fen 1nbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1");
    e.send("go depth 5");
    let info = e.expect(30, |l| l.starts_with("info depth 5 "));
    e.bestmove(30);
    let [w, _, l] = wdl_of(&info);
    assert!(w > 500 && l < 100, "{info}");

    // Mate in one: certain.
    e.send("position fen 3k5/R8/9/9/9/9/9/9/9/4K3R w - - 0 1");
    e.send("go depth 3");
    let info = e.expect(30, |l| l.contains(" score mate 1 "));
    e.bestmove(30);
    assert_eq!(wdl_of(&info), [1000, 0, 0], "{info}");
    e.quit();
}

/// Under a time limit that stops the search in the middle of an iteration, the last line
/// reported for each MultiPV index is a real, searched line: every index is there, the
/// scores are ordered best first, with distinct first moves, and none is a search bound
/// leaking out (±infinity) — whether the stop came early or late in the iteration.
#[test]
fn multipv_lines_are_whole_and_ordered_under_time_limits() {
    let mut e = Engine::start();
    e.send("setoption name MultiPV value 4");
    e.send("setoption name UCI_ShowWDL value true");
    for ms in [30, 70, 150, 260] {
        e.send("position startpos moves h2e2 h9g7 h0g2");
        e.send(&format!("go movetime {ms}"));
        let start = e.seen.len();
        e.bestmove(30);
        let mut last: [Option<String>; 4] = Default::default();
        for l in &e.seen[start..] {
            if !l.starts_with("info depth ") {
                continue;
            }
            let t: Vec<&str> = l.split_whitespace().collect();
            let k: usize = t[t.iter().position(|w| *w == "multipv").unwrap() + 1]
                .parse()
                .unwrap();
            last[k - 1] = Some(l.clone());
        }
        let lines: Vec<String> = last
            .iter()
            .map(|l| {
                l.clone()
                    .unwrap_or_else(|| panic!("movetime {ms}: {last:?}"))
            })
            .collect();
        let cp = |l: &str| -> i32 {
            let t: Vec<&str> = l.split_whitespace().collect();
            let k = t.iter().position(|w| *w == "cp").expect("a cp score");
            t[k + 1].parse().unwrap()
        };
        let first_move = |l: &str| {
            l.split(" pv ")
                .nth(1)
                .unwrap()
                .split(' ')
                .next()
                .unwrap()
                .to_string()
        };
        let mut moves = std::collections::HashSet::new();
        for l in &lines {
            let s = cp(l);
            assert!(s.abs() < 5000, "movetime {ms}: {l}");
            wdl_of(l);
            assert!(moves.insert(first_move(l)), "movetime {ms}: {lines:?}");
        }
        // Lines of the same depth are ordered; a line of an unfinished iteration keeps the
        // previous depth's score and is listed after the finished ones.
        for pair in lines.windows(2) {
            let depth = |l: &str| l.split_whitespace().nth(2).unwrap().parse::<i32>().unwrap();
            if depth(&pair[0]) == depth(&pair[1]) {
                assert!(cp(&pair[0]) >= cp(&pair[1]), "movetime {ms}: {lines:?}");
            }
        }
    }
    e.quit();
}
