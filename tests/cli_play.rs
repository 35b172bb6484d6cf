//! `xiangqi play` and `xiangqi show` run as a person runs them: in a pseudo-terminal
//! (util-linux `script`), with keys sent one after another as the screen asks for them, and
//! with stdin and stdout piped.

use std::io::{Read, Write};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_xiangqi");

/// How long one screen may take to show (the engine thinks 50 ms; the machine may be busy).
const WAIT: Duration = Duration::from_secs(60);

fn has_script() -> bool {
    let found = Command::new("script")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found && std::env::var_os("CI").is_some() {
        panic!("util-linux `script` is needed for the pseudo-terminal tests");
    }
    found
}

/// A program in a pseudo-terminal: what it wrote so far, keys to send.
struct Pty {
    child: Child,
    out: mpsc::Receiver<Vec<u8>>,
    seen: Vec<u8>,
}

impl Pty {
    fn start(cmd: &str, envs: &[(&str, &str)]) -> Pty {
        let mut c = Command::new("script");
        c.args(["-qfec", cmd, "/dev/null"])
            .env("TERM", "xterm-256color")
            .env("LANG", "C.UTF-8")
            .env_remove("LC_ALL")
            .env_remove("NO_COLOR")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        for (k, v) in envs {
            c.env(k, v);
        }
        let mut child = c.spawn().expect("run script");
        let mut stdout = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = stdout.read(&mut buf) {
                if n == 0 || tx.send(buf[..n].to_vec()).is_err() {
                    break;
                }
            }
        });
        Pty {
            child,
            out: rx,
            seen: Vec::new(),
        }
    }

    /// Waits until the output (from `from` on) contains `text`; the output so far.
    fn wait_for(&mut self, from: usize, text: &str) -> String {
        let start = Instant::now();
        loop {
            let s = String::from_utf8_lossy(&self.seen[from.min(self.seen.len())..]).to_string();
            if s.contains(text) {
                return s;
            }
            let left = WAIT.saturating_sub(start.elapsed());
            match self.out.recv_timeout(left.max(Duration::from_millis(1))) {
                Ok(b) => self.seen.extend(b),
                Err(_) => panic!(
                    "no {text:?} in {WAIT:?}; the screen: {}",
                    String::from_utf8_lossy(&self.seen)
                ),
            }
        }
    }

    fn send(&mut self, keys: &str) -> usize {
        let at = self.seen.len();
        let stdin = self.child.stdin.as_mut().unwrap();
        stdin.write_all(keys.as_bytes()).unwrap();
        stdin.flush().unwrap();
        at
    }

    /// The exit status, waiting at most `WAIT`; the rest of the output is read.
    fn finish(mut self) -> (i32, String) {
        let start = Instant::now();
        let status = loop {
            if let Some(s) = self.child.try_wait().unwrap() {
                break s;
            }
            assert!(start.elapsed() < WAIT, "still running after {WAIT:?}");
            while let Ok(b) = self.out.try_recv() {
                self.seen.extend(b);
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        while let Ok(b) = self.out.recv_timeout(Duration::from_millis(200)) {
            self.seen.extend(b);
        }
        (
            status.code().unwrap_or(-1),
            String::from_utf8_lossy(&self.seen).to_string(),
        )
    }
}

impl Drop for Pty {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn play_in_a_terminal_with_typed_moves_arrows_and_undo() {
    if !has_script() {
        eprintln!("skipped: no util-linux script");
        return;
    }
    let dir = std::env::temp_dir().join(format!("xiangqi-cli-play-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pgn = dir.join("game.pgn");
    let cmd = format!("{BIN} play --movetime 50 --level 2 --pgn {}", pgn.display());
    let mut t = Pty::start(&cmd, &[]);
    t.wait_for(0, "red to move (you)");
    // A WXF move typed, Enter (a terminal sends CR).
    let at = t.send("C2.5\r");
    let screen = t.wait_for(at, "The engine played");
    assert!(screen.contains("炮二平五"), "{screen}");
    // Colours in a terminal: red pieces in red.
    assert!(t.wait_for(0, "\x1b[38;5;9m").contains("俥"));
    // Arrows: from e0 (the general) right 3 is h0, the horse; pick it with Enter and take
    // it to g2 with up, up, left and Space.
    let at = t.send("\x1b[C\x1b[C\x1b[C\r\x1b[A\x1b[A\x1b[D ");
    t.wait_for(at, "You played 马二进三");
    t.wait_for(at, "The engine played");
    let at = t.send("undo\r");
    t.wait_for(at, "Took back 2 moves.");
    let at = t.send("save\r");
    t.wait_for(at, "The game was added to");
    let at = t.send("quit\r");
    let (code, out) = t.finish();
    assert_eq!(code, 0, "{}", &out[at.min(out.len())..]);
    let text = std::fs::read_to_string(&pgn).unwrap();
    assert!(text.contains("[Event \"xiangqi play\"]"), "{text}");
    assert!(text.contains("1. 炮二平五"), "{text}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn no_color_and_ascii_in_a_terminal() {
    if !has_script() {
        return;
    }
    let cmd = format!("{BIN} play --movetime 50 --side black");
    let mut t = Pty::start(&cmd, &[("NO_COLOR", "1"), ("LANG", "C")]);
    // The engine moves first; the board is in letters (the locale is not UTF-8), no colours.
    let screen = t.wait_for(0, "black to move (you)");
    assert!(screen.contains(" r  n  b  a >k< a  b  n  r "), "{screen}");
    assert!(
        !screen.contains("\x1b[38;5;"),
        "colours despite NO_COLOR: {screen:?}"
    );
    assert!(screen.is_ascii(), "{screen:?}");
    t.send("\x03");
    let (code, _) = t.finish();
    assert_eq!(code, 0);
}

#[test]
fn show_steps_through_a_record_in_a_terminal() {
    if !has_script() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("xiangqi-cli-show-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("g.pgn");
    std::fs::write(&file, "[Event \"e\"]\n1. h2e2 h9g7 2. h0g2 *\n").unwrap();
    let mut t = Pty::start(
        &format!("{BIN} show {} --notation wxf", file.display()),
        &[],
    );
    t.wait_for(0, "Ply 0 of 3");
    let at = t.send("\x1b[C");
    t.wait_for(at, "Ply 1 of 3: 1. C2.5");
    let at = t.send("\x1b[F");
    t.wait_for(at, "Ply 3 of 3: 2. H2+3");
    t.send("q");
    let (code, _) = t.finish();
    assert_eq!(code, 0);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn play_and_show_with_pipes() {
    let dir = std::env::temp_dir().join(format!("xiangqi-cli-pipe-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pgn = dir.join("p.pgn");
    let mut child = Command::new(BIN)
        .args(["play", "--movetime", "50", "--pgn", pgn.to_str().unwrap()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all("炮二平五\nh9h0\nsave\nquit\n".as_bytes())
        .unwrap();
    let o = child.wait_with_output().unwrap();
    let out = String::from_utf8(o.stdout).unwrap();
    assert!(o.status.success(), "{out}");
    assert!(out.contains("You played 炮二平五."), "{out}");
    assert!(out.contains("The engine played"), "{out}");
    assert!(out.contains("'h9h0' is not a move here"), "{out}");
    assert!(!out.contains('\x1b'), "no escape codes when piped: {out:?}");
    assert!(o.stderr.is_empty(), "no progress or noise on stderr");
    let saved = std::fs::read_to_string(&pgn).unwrap();
    assert!(saved.contains("1. 炮二平五"), "{saved}");
    // show reads it back: the end of the game, then every position.
    let o = Command::new(BIN)
        .args(["show", pgn.to_str().unwrap(), "--ascii"])
        .output()
        .unwrap();
    let s = String::from_utf8(o.stdout).unwrap();
    assert!(s.contains("Ply 2 of 2: 1... "), "{s}");
    assert!(s.is_ascii(), "{s}");
    let o = Command::new(BIN)
        .args(["show", pgn.to_str().unwrap(), "--all", "--ascii"])
        .output()
        .unwrap();
    let s = String::from_utf8(o.stdout).unwrap();
    assert_eq!(s.matches("Ply ").count(), 3, "{s}");
    let o = Command::new(BIN)
        .args(["show", pgn.to_str().unwrap(), "--ply", "9"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--ply 9: the main line has 2 plies"));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn progress_bars_on_a_terminal_and_none_when_piped() {
    let dir = std::env::temp_dir().join(format!("xiangqi-cli-bars-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // Over 1 MiB of PGN: convert shows its bar.
    let big = dir.join("big.pgn");
    let game = "[Event \"x\"]\n1. h2e2 h9g7 2. h0g2 *\n\n";
    std::fs::write(&big, game.repeat((1 << 20) / game.len() + 100)).unwrap();
    let (b, out) = (big.to_str().unwrap(), dir.join("out.pgn"));
    let o = Command::new(BIN)
        .args(["convert", b, "-o", out.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(o.status.success());
    assert!(
        o.stderr.is_empty(),
        "a bar on a pipe: {:?}",
        String::from_utf8_lossy(&o.stderr)
    );
    let piped = std::fs::read(&out).unwrap();
    if !has_script() {
        return;
    }
    let t = Pty::start(&format!("{BIN} convert {b} -o {}", out.display()), &[]);
    let (code, screen) = t.finish();
    assert_eq!(code, 0, "{screen}");
    assert!(
        screen.contains("reading [") || screen.contains("writing ["),
        "no bar: {screen:?}"
    );
    assert!(screen.contains(" games ("), "{screen:?}");
    assert_eq!(
        std::fs::read(&out).unwrap(),
        piped,
        "the same output with a bar"
    );
    // A match: the bar of games played, with the usual lines.
    let cmd = format!(
        "{BIN} match -engine name=a cmd={BIN} arg=uci -engine name=b cmd={BIN} arg=uci \
         -each depth=1 -games 2 -rules movelimit=40"
    );
    let t = Pty::start(&cmd, &[]);
    let (code, screen) = t.finish();
    assert_eq!(code, 0, "{screen}");
    assert!(
        screen.contains("/2 games, wins-losses-draws "),
        "{screen:?}"
    );
    assert!(screen.contains("Finished game 2"), "{screen:?}");
    std::fs::remove_dir_all(&dir).ok();
}
