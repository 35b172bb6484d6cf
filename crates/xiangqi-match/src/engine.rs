//! An engine process: started in its own process group, spoken to over UCI or UCCI, and ended
//! (with every process it started) when dropped.

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use xiangqi::{Color, Move, Position, Square, UciMove};

use crate::cli::{EngineSpec, FenLetters, Proto};
use crate::signal;

/// Process groups of the engines now running, so that an interrupted match can end them all.
static LIVE: Mutex<Vec<i32>> = Mutex::new(Vec::new());

/// Kills every engine process group still running (after an interruption or an error).
pub fn kill_all() {
    let groups = LIVE.lock().unwrap_or_else(|p| p.into_inner()).clone();
    for g in groups {
        kill_group(g);
    }
}

fn kill_group(pgid: i32) {
    if pgid > 0 {
        // SAFETY: kill(2) with a negative pid signals the process group; no memory is touched.
        unsafe {
            libc::kill(-pgid, libc::SIGKILL);
        }
    }
}

/// A line from the engine and when it arrived.
struct Line {
    at: Instant,
    text: String,
}

/// Why an engine gave no usable answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    /// The process could not be started (a configuration error: fatal for the match).
    Spawn(String),
    /// The process exited or closed its output.
    Crashed(String),
    /// No answer within the time allowed.
    Timeout { waited_ms: u64, what: String },
    /// The match is being stopped.
    Interrupted,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Spawn(s) => write!(f, "could not be started: {s}"),
            Failure::Crashed(s) => write!(f, "crashed ({s})"),
            Failure::Timeout { waited_ms, what } => write!(
                f,
                "did not {what} within {:.1} s",
                *waited_ms as f64 / 1000.0
            ),
            Failure::Interrupted => f.write_str("was stopped: the match was interrupted"),
        }
    }
}

/// An engine's answer to `go`.
#[derive(Clone, Debug, Default)]
pub struct Reply {
    /// The move as sent (`None` for `bestmove (none)`, `0000` or UCCI's `nobestmove`).
    pub mv: Option<String>,
    /// Time from sending `go` to receiving `bestmove`.
    pub elapsed_ms: u64,
    /// The last score reported, from the mover's view, in centipawns (mates as ±(100000 - n)).
    pub score: Option<i32>,
    /// The last score reported as mate in this many moves (negative: being mated).
    pub mate: Option<i32>,
    pub depth: Option<u32>,
}

/// Centipawn value standing for "mate".
pub const MATE_CP: i32 = 100_000;

/// A running engine.
pub struct EngineProc {
    pub spec: Arc<EngineSpec>,
    child: Child,
    pid: i32,
    stdin: Option<ChildStdin>,
    rx: Receiver<Line>,
    io_log: Option<Arc<Mutex<File>>>,
    stop: Arc<AtomicBool>,
    tag: String,
    /// The engine's `id name`.
    pub id_name: Option<String>,
    he_letters: bool,
    ucci_millisec: bool,
}

fn sanitize(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

impl EngineProc {
    /// Starts the engine. With a log folder, its standard error is appended to
    /// `logdir/NAME.stderr.log` (and with `debug`, the traffic to `logdir/NAME.io.log`);
    /// without one it goes to the match's standard error. `tag` names the game in the logs.
    pub fn start(
        spec: Arc<EngineSpec>,
        logdir: Option<&Path>,
        debug: bool,
        tag: &str,
        stop: Arc<AtomicBool>,
    ) -> Result<EngineProc, Failure> {
        let base = sanitize(&spec.name);
        let open = |dir: &Path, suffix: &str| {
            OpenOptions::new()
                .create(true)
                .append(true)
                .open(dir.join(format!("{base}.{suffix}.log")))
                .map_err(|e| {
                    Failure::Spawn(format!("cannot open a log file in {}: {e}", dir.display()))
                })
        };
        let (stderr, io_log) = match logdir {
            Some(dir) => {
                let mut err_log = open(dir, "stderr")?;
                let _ = writeln!(err_log, "--- {tag}: {} ---", spec.cmd);
                let io_log = if debug {
                    Some(Arc::new(Mutex::new(open(dir, "io")?)))
                } else {
                    None
                };
                (Stdio::from(err_log), io_log)
            }
            None => (Stdio::inherit(), None),
        };
        let mut cmd = Command::new(&spec.cmd);
        cmd.args(&spec.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .process_group(0);
        if let Some(d) = &spec.dir {
            cmd.current_dir(d);
        }
        // SAFETY: prctl is async-signal-safe; it makes the kernel kill the engine if this
        // process dies without cleaning up (SIGKILL, a crash).
        unsafe {
            cmd.pre_exec(|| {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                Ok(())
            });
        }
        let mut child = cmd
            .spawn()
            .map_err(|e| Failure::Spawn(format!("'{}': {e}", spec.cmd)))?;
        let pid = child.id() as i32;
        LIVE.lock().unwrap_or_else(|p| p.into_inner()).push(pid);
        let stdout = child.stdout.take().expect("piped");
        let stdin = child.stdin.take();
        let (tx, rx) = mpsc::channel();
        let reader_log = io_log.clone();
        let reader_tag = tag.to_string();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            let mut buf = Vec::new();
            loop {
                buf.clear();
                match r.read_until(b'\n', &mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        let text = String::from_utf8_lossy(&buf).trim_end().to_string();
                        if let Some(l) = &reader_log {
                            let mut l = l.lock().unwrap_or_else(|p| p.into_inner());
                            let _ = writeln!(l, "{reader_tag} < {text}");
                        }
                        if tx
                            .send(Line {
                                at: Instant::now(),
                                text,
                            })
                            .is_err()
                        {
                            break;
                        }
                    }
                }
            }
        });
        Ok(EngineProc {
            spec,
            child,
            pid,
            stdin,
            rx,
            io_log,
            stop,
            tag: tag.to_string(),
            id_name: None,
            he_letters: false,
            ucci_millisec: false,
        })
    }

    fn send(&mut self, s: &str) -> Result<(), Failure> {
        if let Some(l) = &self.io_log {
            let mut l = l.lock().unwrap_or_else(|p| p.into_inner());
            let _ = writeln!(l, "{} > {s}", self.tag);
        }
        let ok = match &mut self.stdin {
            Some(w) => writeln!(w, "{s}").and_then(|_| w.flush()).is_ok(),
            None => false,
        };
        if ok {
            Ok(())
        } else {
            Err(self.crashed("its input was closed"))
        }
    }

    /// A crash failure with the exit status if the process has ended.
    fn crashed(&mut self, what: &str) -> Failure {
        // Give the process a moment to finish exiting so that its status can be reported.
        for _ in 0..20 {
            if let Ok(Some(st)) = self.child.try_wait() {
                return Failure::Crashed(format!("{what}; {st}"));
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        Failure::Crashed(what.to_string())
    }

    /// Waits for a line until `deadline`.
    fn next_line(
        &mut self,
        deadline: Instant,
        start: Instant,
        what: &str,
    ) -> Result<Line, Failure> {
        loop {
            if self.stop.load(Ordering::Relaxed) || signal::interrupted() {
                return Err(Failure::Interrupted);
            }
            let now = Instant::now();
            if now >= deadline {
                return Err(Failure::Timeout {
                    waited_ms: (now - start).as_millis() as u64,
                    what: what.to_string(),
                });
            }
            let slice = (deadline - now).min(Duration::from_millis(50));
            match self.rx.recv_timeout(slice) {
                Ok(l) => return Ok(l),
                Err(RecvTimeoutError::Timeout) => {
                    // The engine may have died while a process it started keeps the pipe open.
                    if let Ok(Some(st)) = self.child.try_wait() {
                        // Lines it wrote before exiting come first.
                        if let Ok(l) = self.rx.try_recv() {
                            return Ok(l);
                        }
                        return Err(Failure::Crashed(format!("it exited; {st}")));
                    }
                    continue;
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(self.crashed("it closed its output"))
                }
            }
        }
    }

    /// Waits for a line equal to `token` (other lines are skipped, `id name` remembered).
    fn expect(
        &mut self,
        token: &str,
        what: &str,
        options: &mut Vec<String>,
    ) -> Result<(), Failure> {
        let start = Instant::now();
        let deadline = start + Duration::from_millis(self.spec.start_timeout_ms);
        loop {
            let l = self.next_line(deadline, start, what)?;
            let t = l.text.trim();
            if t == token {
                return Ok(());
            }
            if let Some(n) = t.strip_prefix("id name ") {
                self.id_name = Some(n.trim().to_string());
            } else if let Some(rest) = t.strip_prefix("option ") {
                // UCI: option name NAME type ...; UCCI: option NAME type ...
                let rest = rest.strip_prefix("name ").unwrap_or(rest);
                let name = rest.split(" type ").next().unwrap_or(rest).trim();
                options.push(name.to_string());
            }
        }
    }

    fn sync(&mut self) -> Result<(), Failure> {
        self.send("isready")?;
        self.expect("readyok", "answer isready with readyok", &mut Vec::new())
    }

    /// The protocol handshake, the engine's options and a new game.
    pub fn init(&mut self) -> Result<(), Failure> {
        let mut offered = Vec::new();
        match self.spec.proto {
            Proto::Uci => {
                self.send("uci")?;
                self.expect("uciok", "answer uci with uciok", &mut offered)?;
            }
            Proto::Ucci => {
                self.send("ucci")?;
                self.expect("ucciok", "answer ucci with ucciok", &mut offered)?;
            }
        }
        self.he_letters = match self.spec.fen_letters {
            FenLetters::Standard => false,
            FenLetters::He => true,
            FenLetters::Auto => self
                .id_name
                .as_deref()
                .is_some_and(|n| n.to_ascii_lowercase().starts_with("sjaak")),
        };
        let spec = self.spec.clone();
        match spec.proto {
            Proto::Uci => {
                if let Some(v) = &spec.variant {
                    self.send(&format!("setoption name UCI_Variant value {v}"))?;
                }
                for (k, v) in &spec.options {
                    self.send(&format!("setoption name {k} value {v}"))?;
                }
            }
            Proto::Ucci => {
                if offered
                    .iter()
                    .any(|o| o.eq_ignore_ascii_case("usemillisec"))
                {
                    self.send("setoption usemillisec true")?;
                    self.ucci_millisec = true;
                }
                for (k, v) in &spec.options {
                    self.send(&format!("setoption {k} {v}"))?;
                }
            }
        }
        self.sync()?;
        if spec.proto == Proto::Uci {
            self.send("ucinewgame")?;
            self.sync()?;
        }
        Ok(())
    }

    /// A square in the engine's coordinates.
    fn square(&self, sq: Square) -> String {
        if self.spec.ranks1 {
            format!("{}{}", sq.file().char(), sq.rank().index() + 1)
        } else {
            sq.to_string()
        }
    }

    /// A move in the engine's coordinates.
    pub fn move_text(&self, m: Move) -> String {
        format!("{}{}", self.square(m.from()), self.square(m.to()))
    }

    /// Reads a move in the engine's coordinates.
    pub fn parse_move(&self, s: &str) -> Result<UciMove, String> {
        parse_engine_move(s, self.spec.ranks1)
    }

    /// A FEN in the engine's piece letters.
    fn fen(&self, pos: &Position) -> String {
        let fen = pos.fen();
        if !self.he_letters {
            return fen;
        }
        let (board, rest) = fen.split_once(' ').unwrap_or((&fen, ""));
        let board: String = board
            .chars()
            .map(|c| match c {
                'N' => 'H',
                'n' => 'h',
                'B' => 'E',
                'b' => 'e',
                c => c,
            })
            .collect();
        format!("{board} {rest}")
    }

    /// The `go` command of a game with clocks, in the engine's protocol: each side's time
    /// left and increment in ms, Red first (UCI's white), `side` the side to move (the
    /// engine's), `movestogo` the moves left to the next time control. UCCI gets its own
    /// clock as `time`, the opponent's as `opptime`, in seconds unless the engine took
    /// `usemillisec`.
    pub fn go_clock(
        &self,
        side: Color,
        time_ms: [u64; 2],
        inc_ms: [u64; 2],
        movestogo: Option<u32>,
    ) -> String {
        match self.spec.proto {
            Proto::Uci => {
                let mut g = format!(
                    "go wtime {} btime {} winc {} binc {}",
                    time_ms[0], time_ms[1], inc_ms[0], inc_ms[1]
                );
                if let Some(m) = movestogo {
                    g.push_str(&format!(" movestogo {m}"));
                }
                g
            }
            Proto::Ucci => {
                let (own, opp) = (time_ms[side.index()], time_ms[(!side).index()]);
                let unit = |ms: u64| if self.ucci_millisec { ms } else { ms / 1000 };
                let mut g = format!("go time {}", unit(own));
                match movestogo {
                    Some(m) => g.push_str(&format!(" movestogo {m}")),
                    None => g.push_str(&format!(" increment {}", unit(inc_ms[side.index()]))),
                }
                g.push_str(&format!(" opptime {}", unit(opp)));
                g
            }
        }
    }

    /// The `go` command for a fixed time per move (UCCI has no `movetime`: a clock of exactly
    /// that time with `movestogo 1`).
    pub fn go_movetime(&self, ms: u64) -> String {
        match self.spec.proto {
            Proto::Uci => format!("go movetime {ms}"),
            Proto::Ucci => {
                let t = if self.ucci_millisec {
                    ms
                } else {
                    (ms / 1000).max(1)
                };
                format!("go time {t} movestogo 1")
            }
        }
    }

    /// Sends the position and `go ARGS` and waits for the best move until `limit_ms` after
    /// sending `go`.
    pub fn think(
        &mut self,
        start: &Position,
        moves: &[Move],
        go: &str,
        limit_ms: u64,
        what: &str,
    ) -> Result<Reply, Failure> {
        let mut cmd = format!("position fen {}", self.fen(start));
        if !moves.is_empty() {
            cmd.push_str(" moves");
            for &m in moves {
                cmd.push(' ');
                cmd.push_str(&self.move_text(m));
            }
        }
        self.send(&cmd)?;
        // Lines left over from before (late info lines) are not part of this answer.
        while self.rx.try_recv().is_ok() {}
        self.send(go)?;
        let t0 = Instant::now();
        let deadline = t0 + Duration::from_millis(limit_ms);
        let mut reply = Reply::default();
        loop {
            let l = self.next_line(deadline, t0, what)?;
            let mut it = l.text.split_whitespace();
            match it.next() {
                Some("info") => self.parse_info(&l.text, &mut reply),
                Some("bestmove") => {
                    reply.elapsed_ms = l.at.saturating_duration_since(t0).as_millis() as u64;
                    reply.mv = it
                        .next()
                        .filter(|m| !matches!(*m, "(none)" | "0000" | "none"))
                        .map(str::to_string);
                    return Ok(reply);
                }
                Some("nobestmove") => {
                    reply.elapsed_ms = l.at.saturating_duration_since(t0).as_millis() as u64;
                    return Ok(reply);
                }
                _ => {}
            }
        }
    }

    fn parse_info(&self, text: &str, reply: &mut Reply) {
        let t: Vec<&str> = text.split_whitespace().collect();
        let mut i = 1;
        while i < t.len() {
            match t[i] {
                "depth" => {
                    if let Some(d) = t.get(i + 1).and_then(|v| v.parse().ok()) {
                        reply.depth = Some(d);
                    }
                    i += 2;
                }
                "score" => match (self.spec.proto, t.get(i + 1).copied()) {
                    (_, Some("cp")) => {
                        if let Some(v) = t.get(i + 2).and_then(|v| v.parse::<i32>().ok()) {
                            reply.score = Some(v.clamp(-MATE_CP + 1000, MATE_CP - 1000));
                            reply.mate = None;
                        }
                        i += 3;
                    }
                    (_, Some("mate")) => {
                        if let Some(m) = t.get(i + 2).and_then(|v| v.parse::<i32>().ok()) {
                            reply.mate = Some(m);
                            reply.score = Some(if m > 0 { MATE_CP - m } else { -MATE_CP - m });
                        }
                        i += 3;
                    }
                    (Proto::Ucci, Some(v)) => {
                        if let Ok(v) = v.parse::<i32>() {
                            reply.score = Some(v);
                            reply.mate = None;
                        }
                        i += 2;
                    }
                    _ => i += 1,
                },
                "pv" | "string" => break,
                _ => i += 1,
            }
        }
    }

    /// Whether UCCI times are sent in milliseconds (the engine offered `usemillisec`).
    pub fn ucci_millisec(&self) -> bool {
        self.ucci_millisec
    }

    /// Asks the engine to quit, then ends its process group.
    pub fn quit(mut self) {
        self.shutdown(true);
    }

    fn shutdown(&mut self, polite: bool) {
        if polite && self.stdin.is_some() {
            let _ = self.send("quit");
        }
        self.stdin = None; // EOF
        if polite {
            let until = Instant::now() + Duration::from_millis(300);
            while Instant::now() < until {
                if let Ok(Some(_)) = self.child.try_wait() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(5));
            }
        }
        // Whatever is left of the group (the engine, or processes it started) is killed.
        kill_group(self.pid);
        let _ = self.child.wait();
        LIVE.lock()
            .unwrap_or_else(|p| p.into_inner())
            .retain(|&p| p != self.pid);
        self.pid = 0;
    }
}

impl Drop for EngineProc {
    fn drop(&mut self) {
        if self.pid != 0 {
            let polite = !(self.stop.load(Ordering::Relaxed) || signal::interrupted());
            self.shutdown(polite);
        }
    }
}

/// Reads a move in an engine's coordinates: a0..i9 (also ICCS `H2-E2`), or with `ranks1`
/// a1..i10.
pub fn parse_engine_move(s: &str, ranks1: bool) -> Result<UciMove, String> {
    let bad = || format!("'{s}' is not a move in the engine's coordinates");
    if !ranks1 {
        return s.parse::<UciMove>().map_err(|_| bad());
    }
    // a1..i10: file letter, rank 1-10, twice.
    let b = s.as_bytes();
    let mut i = 0;
    let mut sq = || -> Result<String, String> {
        let f = *b.get(i).ok_or_else(bad)?;
        if !(b'a'..=b'i').contains(&f) {
            return Err(bad());
        }
        i += 1;
        let st = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        let r: u32 = s[st..i].parse().map_err(|_| bad())?;
        if !(1..=10).contains(&r) {
            return Err(bad());
        }
        Ok(format!("{}{}", f as char, r - 1))
    };
    let from = sq()?;
    let to = sq()?;
    if i != b.len() {
        return Err(bad());
    }
    format!("{from}{to}").parse::<UciMove>().map_err(|_| bad())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engine_coordinates() {
        let m = |s: &str, r: bool| parse_engine_move(s, r).map(|u| u.to_string());
        assert_eq!(m("h2e2", false).unwrap(), "h2e2");
        assert_eq!(m("H2-E2", false).unwrap(), "h2e2");
        assert_eq!(m("h3e3", true).unwrap(), "h2e2");
        assert_eq!(m("b10c8", true).unwrap(), "b9c7");
        assert_eq!(m("a1a10", true).unwrap(), "a0a9");
        for bad in ["a0a1", "a11a1", "j1a1", "a1", "a1a2x", "", "e2"] {
            assert!(m(bad, true).is_err(), "{bad}");
        }
        for bad in ["a10a9", "xyzzy", "(none)", "i9j9"] {
            assert!(m(bad, false).is_err(), "{bad}");
        }
    }
}
