//! The UCI loop, as Pikafish speaks it (squares a0..i9, Red at rank 0), and the UCCI dialect
//! of ElephantEye when the first command is `ucci`.
//!
//! Commands are read on the calling thread; searches run on the engine's threads, so `stop`,
//! `isready` and `ponderhit` are answered while a search runs. A malformed line is answered
//! with `info string error: ...` naming the problem, and the loop carries on.

use std::io::{BufRead, Write};
use std::sync::{Arc, Mutex};

use xiangqi::Position;

use crate::search::Score;
use crate::tt::Bound;
use crate::{
    find_option, Engine, Event, Limits, OptionKind, OptionSpec, PerftEvent, SearchInfo, OPTIONS,
};

pub const NAME: &str = concat!("xiangqi-engine ", env!("CARGO_PKG_VERSION"));
pub const AUTHOR: &str = "the xiangqi developers";

/// Where the loop writes: shared with the search thread, one whole line at a time.
#[derive(Clone)]
pub struct Output(Arc<Mutex<Box<dyn Write + Send>>>);

impl Output {
    pub fn new(w: Box<dyn Write + Send>) -> Output {
        Output(Arc::new(Mutex::new(w)))
    }
    pub fn line(&self, s: &str) {
        let mut w = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let _ = writeln!(w, "{s}");
        let _ = w.flush();
    }
}

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Protocol {
    Uci,
    Ucci,
}

struct Loop {
    engine: Engine,
    out: Output,
    protocol: Protocol,
    first: bool,
    millisec: bool,
    /// The last `go` can only end by `stop` (`infinite` or `ponder`).
    unbounded: bool,
    /// The last `go` was `go perft` (left to finish at the end of input, as in Stockfish,
    /// where perft holds the loop until it is done).
    perft: bool,
}

/// Runs the protocol loop on standard input and output until `quit` or end of input.
pub fn run_stdio() {
    let stdin = std::io::stdin();
    run(stdin.lock(), Output::new(Box::new(std::io::stdout())));
}

/// Runs the command given on the command line (the arguments joined by spaces, as
/// Stockfish and Pikafish take them: `xiangqi-engine bench 13`), waits for a search or
/// perft it started to finish (one that only `stop` can end is stopped) and returns.
pub fn run_args(args: &[String], out: Output) {
    let mut l = Loop::new(out);
    l.command(args.join(" ").trim());
    if l.unbounded {
        l.engine.stop();
    }
    l.engine.wait();
}

/// Runs the protocol loop until `quit`/`bye` or end of input.
pub fn run<R: BufRead>(input: R, out: Output) {
    let mut l = Loop::new(out);
    let mut quit = false;
    for line in input.lines() {
        let Ok(line) = line else {
            l.error("input is not valid UTF-8");
            continue;
        };
        if !l.command(line.trim()) {
            quit = true;
            break;
        }
    }
    // `quit` ends everything; the end of input stops a search but lets a perft finish.
    if quit || !l.perft {
        l.engine.stop();
    }
    l.engine.wait();
}

impl Loop {
    fn new(out: Output) -> Loop {
        Loop {
            engine: Engine::new(),
            out,
            protocol: Protocol::Uci,
            first: true,
            millisec: false,
            unbounded: false,
            perft: false,
        }
    }

    fn error(&self, msg: &str) {
        self.out.line(&format!("info string error: {msg}"));
    }

    /// Handles one line; false to quit.
    fn command(&mut self, line: &str) -> bool {
        let tokens: Vec<&str> = line.split_whitespace().collect();
        let Some(&cmd) = tokens.first() else {
            return true;
        };
        let args = &tokens[1..];
        let first = std::mem::replace(&mut self.first, false);
        match cmd {
            "uci" => {
                self.protocol = Protocol::Uci;
                self.out.line(&format!("id name {NAME}"));
                self.out.line(&format!("id author {AUTHOR}"));
                for spec in OPTIONS {
                    let name = spec.name;
                    self.out.line(&match spec.kind {
                        OptionKind::Spin { default, min, max } => {
                            format!("option name {name} type spin default {default} min {min} max {max}")
                        }
                        OptionKind::Check { default } => format!("option name {name} type check default {default}"),
                        OptionKind::String { default } => format!(
                            "option name {name} type string default {}",
                            if default.is_empty() { "<empty>" } else { default }
                        ),
                        OptionKind::Button => format!("option name {name} type button"),
                    });
                }
                self.out.line("uciok");
            }
            "ucci" => {
                if !first {
                    self.error("'ucci' is only accepted as the first command");
                    return true;
                }
                self.protocol = Protocol::Ucci;
                self.out.line(&format!("id name {NAME}"));
                self.out.line("id copyright MIT OR Apache-2.0");
                self.out.line(&format!("id author {AUTHOR}"));
                self.out.line("option usemillisec type check default false");
                for spec in OPTIONS {
                    let Some(name) = spec.ucci_name else {
                        continue;
                    };
                    match &spec.kind {
                        OptionKind::Spin { default, min, max } => self.out.line(&format!(
                            "option {name} type spin min {min} max {max} default {default}"
                        )),
                        OptionKind::Check { default } => self
                            .out
                            .line(&format!("option {name} type check default {default}")),
                        OptionKind::String { default } => self.out.line(&format!(
                            "option {name} type string default {}",
                            if default.is_empty() {
                                "<empty>"
                            } else {
                                default
                            }
                        )),
                        OptionKind::Button => {}
                    }
                }
                self.out.line("ucciok");
            }
            "isready" => self.out.line("readyok"),
            "ucinewgame" => self.engine.new_game(),
            "setoption" => self.setoption(args),
            "position" => self.position(args),
            "go" => self.go(args),
            "stop" => self.engine.stop(),
            "ponderhit" => self.engine.ponderhit(),
            "banmoves" => self.banmoves(args),
            "d" => self.display(),
            "eval" => {
                // Both evaluations, then the one the search uses (as Stockfish prints them).
                let pos = self.engine.position();
                let turn = pos.turn();
                let classical = crate::eval::evaluate(pos);
                let nnue = self.engine.nnue_evaluation();
                let line = |what: &str, v: i32| {
                    let red = if turn == xiangqi::Color::Red { v } else { -v };
                    format!("{what} {red:+} cp (red side; {v:+} for the side to move, {turn})")
                };
                self.out.line(&line("Classical evaluation", classical));
                self.out.line(&line("NNUE evaluation", nnue));
                let used = if self.engine.options().use_nnue {
                    nnue
                } else {
                    classical
                };
                self.out.line(&line("Final evaluation", used));
            }
            "bench" => self.bench(args),
            "quit" => return false,
            "bye" => {
                self.engine.stop();
                self.engine.wait();
                self.out.line("bye");
                return false;
            }
            "probe" => self.error("'probe' is not supported"),
            _ => self.error(&format!("unknown command '{cmd}'")),
        }
        true
    }

    fn setoption(&mut self, args: &[&str]) {
        let (name, value) = if self.protocol == Protocol::Ucci && args.first() != Some(&"name") {
            // UCCI: setoption <name> <value>
            let Some(&n) = args.first() else {
                return self.error("setoption needs an option name");
            };
            let v = args[1..].join(" ");
            let name = match n.to_ascii_lowercase().as_str() {
                "usemillisec" => {
                    match v.as_str() {
                        "true" => self.millisec = true,
                        "false" => self.millisec = false,
                        _ => self.error(&format!(
                            "option 'usemillisec' needs true or false, got '{v}'"
                        )),
                    }
                    return;
                }
                "newgame" => {
                    self.engine.new_game();
                    return;
                }
                "batch" | "debug" | "ponder" | "promotion" | "idle" | "style" | "knowledge"
                | "pruning" | "randomness" | "evalapi" | "loadbook" => {
                    self.out
                        .line(&format!("info string option '{n}' is accepted and ignored"));
                    return;
                }
                _ => match find_option(n) {
                    Some(OptionSpec {
                        ucci_name: Some(name),
                        ..
                    }) => *name,
                    _ => return self.error(&format!("no such option '{n}'")),
                },
            };
            (name.to_string(), v)
        } else {
            if args.first() != Some(&"name") {
                return self.error("setoption: expected 'setoption name <name> [value <value>]'");
            }
            let vi = args.iter().position(|&t| t == "value");
            let name = args[1..vi.unwrap_or(args.len())].join(" ");
            let value = vi.map_or(String::new(), |i| args[i + 1..].join(" "));
            if name.is_empty() {
                return self.error("setoption: the option name is missing");
            }
            (name, value)
        };
        if let Err(e) = self.engine.set_option(&name, &value) {
            self.error(&e);
        }
    }

    fn position(&mut self, args: &[&str]) {
        let mi = args.iter().position(|&t| t == "moves");
        let head = &args[..mi.unwrap_or(args.len())];
        let moves: &[&str] = mi.map_or(&[], |i| &args[i + 1..]);
        let fen = match head.first() {
            Some(&"startpos") if head.len() == 1 => None,
            Some(&"startpos") => {
                return self.error(&format!(
                    "position: unexpected '{}' after startpos",
                    head[1]
                ))
            }
            Some(&"fen") if head.len() > 1 => Some(head[1..].join(" ")),
            Some(&"fen") => return self.error("position: 'fen' needs a FEN"),
            Some(other) => {
                return self.error(&format!(
                    "position: expected 'startpos' or 'fen', got '{other}'"
                ))
            }
            None => return self.error("position: expected 'startpos' or 'fen'"),
        };
        if let Err(e) = self.engine.set_position_text(fen.as_deref(), moves) {
            self.error(&format!("position: {e}"));
        }
    }

    fn banmoves(&mut self, args: &[&str]) {
        let pos = self.engine.position().clone();
        let mut list = Vec::new();
        for s in args {
            match pos.parse_uci(s) {
                Ok(m) => list.push(m),
                Err(e) => return self.error(&format!("banmoves: '{s}': {e}")),
            }
        }
        self.engine.ban_moves(list);
    }

    fn go(&mut self, args: &[&str]) {
        let limits = match self.protocol {
            Protocol::Uci => parse_go(args, self.engine.position()),
            Protocol::Ucci => parse_go_ucci(args, self.engine.position(), self.millisec),
        };
        let limits = match limits {
            Ok(GoCommand::Perft(d)) => return self.perft(d),
            Ok(GoCommand::Search(l)) => l,
            Err(e) => return self.error(&format!("go: {e}")),
        };
        self.unbounded = limits.is_unbounded();
        self.perft = false;
        let out = self.out.clone();
        let protocol = self.protocol;
        self.engine.go(
            limits,
            Arc::new(move |e| match e {
                Event::Info(i) => out.line(&format_info(&i, protocol)),
                Event::Message(m) => out.line(&format!("info string {m}")),
                Event::BestMove { best, ponder } => out.line(&match (best, ponder, protocol) {
                    (None, _, Protocol::Ucci) => "nobestmove".to_string(),
                    (None, _, Protocol::Uci) => "bestmove (none)".to_string(),
                    (Some(b), Some(p), _) => format!("bestmove {b} ponder {p}"),
                    (Some(b), None, _) => format!("bestmove {b}"),
                }),
            }),
        );
    }

    /// `go perft N`: counted on the engine's thread, so `stop` and `isready` are answered
    /// meanwhile.
    fn perft(&mut self, depth: u32) {
        let out = self.out.clone();
        self.unbounded = false;
        self.perft = true;
        self.engine.perft(
            depth,
            Arc::new(move |e| match e {
                PerftEvent::Move { mv, nodes } => out.line(&format!("{mv}: {nodes}")),
                PerftEvent::Done { nodes } => {
                    out.line("");
                    out.line(&format!("Nodes searched: {nodes}"));
                }
                PerftEvent::Stopped { done, moves, nodes } => out.line(&format!(
                    "info string perft stopped after {done} of {moves} root moves ({nodes} nodes)"
                )),
            }),
        );
    }

    fn display(&self) {
        let pos = self.engine.position();
        self.out.line(&pos.board().to_string());
        self.out.line(&format!("Fen: {}", pos.fen()));
        self.out.line(&format!("Key: {:016X}", pos.key()));
        let checkers: Vec<String> = pos.checkers().into_iter().map(|s| s.to_string()).collect();
        self.out.line(&format!("Checkers: {}", checkers.join(" ")));
    }

    fn bench(&mut self, args: &[&str]) {
        let depth = match args.first() {
            None => crate::bench::DEPTH,
            Some(s) => match s.parse::<i32>() {
                Ok(d) if (1..=30).contains(&d) => d,
                _ => {
                    return self.error(&format!(
                        "bench: depth must be a number from 1 to 30, got '{s}'"
                    ))
                }
            },
        };
        self.engine.stop();
        self.engine.wait();
        let out = self.out.clone();
        let r = self
            .engine
            .bench(depth, &mut |s| out.line(&format!("info string {s}")));
        self.out.line(&format!("Total time (ms) : {}", r.ms));
        self.out.line(&format!("Nodes searched  : {}", r.nodes));
        self.out.line(&format!(
            "{} nodes {} nps",
            r.nodes,
            r.nodes * 1000 / r.ms.max(1)
        ));
    }
}

/// A parsed `go`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GoCommand {
    Search(Limits),
    Perft(u32),
}

fn number<T: std::str::FromStr>(args: &[&str], i: usize, what: &str) -> Result<T, String> {
    let s = args
        .get(i)
        .ok_or_else(|| format!("'{what}' needs a value"))?;
    s.parse()
        .map_err(|_| format!("'{what}' needs a non-negative number, got '{s}'"))
}

/// A clock value or move count as GUIs send it: any whole number, a negative one (a clock
/// already run down) read as 0 and one beyond `u64` as `u64::MAX`.
fn saturating(args: &[&str], i: usize, what: &str) -> Result<u64, String> {
    let s = args
        .get(i)
        .ok_or_else(|| format!("'{what}' needs a value"))?;
    let (negative, digits) = match s.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("'{what}' needs a whole number, got '{s}'"));
    }
    Ok(if negative {
        0
    } else {
        digits.parse().unwrap_or(u64::MAX)
    })
}

/// [`saturating`] for a move count.
fn saturating_u32(args: &[&str], i: usize, what: &str) -> Result<u32, String> {
    saturating(args, i, what).map(|n| n.min(u32::MAX as u64) as u32)
}

/// Parses the arguments of a UCI `go`.
pub fn parse_go(args: &[&str], pos: &Position) -> Result<GoCommand, String> {
    let mut l = Limits::default();
    let mut i = 0;
    while i < args.len() {
        let t = args[i];
        match t {
            "wtime" => l.time[0] = Some(saturating(args, i + 1, t)?),
            "btime" => l.time[1] = Some(saturating(args, i + 1, t)?),
            "winc" => l.inc[0] = Some(saturating(args, i + 1, t)?),
            "binc" => l.inc[1] = Some(saturating(args, i + 1, t)?),
            "movestogo" => l.movestogo = Some(saturating_u32(args, i + 1, t)?),
            "depth" => l.depth = Some(number::<u32>(args, i + 1, t)?.min(200) as i32),
            "nodes" => l.nodes = Some(number(args, i + 1, t)?),
            "movetime" => l.movetime = Some(saturating(args, i + 1, t)?),
            "mate" => l.mate = Some(number::<u32>(args, i + 1, t)?.min(200) as i32),
            "perft" => return Ok(GoCommand::Perft(number::<u32>(args, i + 1, t)?.min(12))),
            "infinite" => {
                l.infinite = true;
                i += 1;
                continue;
            }
            "ponder" => {
                l.ponder = true;
                i += 1;
                continue;
            }
            "searchmoves" => {
                i += 1;
                while i < args.len() {
                    match pos.parse_uci(args[i]) {
                        Ok(m) => l.searchmoves.push(m),
                        Err(_) if is_go_keyword(args[i]) => break,
                        Err(e) => return Err(format!("searchmoves: '{}': {e}", args[i])),
                    }
                    i += 1;
                }
                continue;
            }
            _ => return Err(format!("unknown parameter '{t}'")),
        }
        i += 2;
    }
    Ok(GoCommand::Search(l))
}

fn is_go_keyword(s: &str) -> bool {
    matches!(
        s,
        "wtime"
            | "btime"
            | "winc"
            | "binc"
            | "movestogo"
            | "depth"
            | "nodes"
            | "movetime"
            | "mate"
            | "infinite"
            | "ponder"
            | "perft"
    )
}

/// Parses the arguments of a UCCI `go`: `go [ponder|draw] [time T [movestogo N|increment I]
/// [opptime ...]] | depth D | nodes N | infinite`. Times are seconds unless `usemillisec`.
pub fn parse_go_ucci(args: &[&str], pos: &Position, millisec: bool) -> Result<GoCommand, String> {
    let mut l = Limits::default();
    let unit = if millisec { 1.0 } else { 1000.0 };
    let us = pos.turn().index();
    let mut i = 0;
    while i < args.len() {
        let t = args[i];
        match t {
            "ponder" => {
                l.ponder = true;
                i += 1;
                continue;
            }
            "draw" | "infinite" => {
                if t == "infinite" {
                    l.infinite = true;
                }
                i += 1;
                continue;
            }
            "time" => l.time[us] = Some((number::<f64>(args, i + 1, t)?.max(0.0) * unit) as u64),
            "increment" => {
                l.inc[us] = Some((number::<f64>(args, i + 1, t)?.max(0.0) * unit) as u64)
            }
            "movestogo" => l.movestogo = Some(saturating_u32(args, i + 1, t)?),
            "opptime" | "oppmovestogo" | "oppincrement" => {
                number::<f64>(args, i + 1, t)?;
            }
            "depth" => {
                l.depth = Some(number::<u32>(args, i + 1, t)?.min(200) as i32);
            }
            "nodes" => l.nodes = Some(number(args, i + 1, t)?),
            _ => return Err(format!("unknown parameter '{t}'")),
        }
        i += 2;
    }
    Ok(GoCommand::Search(l))
}

/// Formats an info line.
fn format_info(i: &SearchInfo, protocol: Protocol) -> String {
    let pv: Vec<String> = i.pv.iter().map(|m| m.to_string()).collect();
    if protocol == Protocol::Ucci {
        let score = match i.score {
            Score::Cp(c) => c,
            Score::Mate(m) if m > 0 => 10000 - 2 * m + 1,
            Score::Mate(m) => -10000 - 2 * m,
        };
        return format!(
            "info depth {} score {} time {} nodes {} pv {}",
            i.depth,
            score,
            i.time_ms,
            i.nodes,
            pv.join(" ")
        );
    }
    let score = match i.score {
        Score::Cp(c) => format!("cp {c}"),
        Score::Mate(m) => format!("mate {m}"),
    };
    let bound = match i.bound {
        Some(Bound::Lower) => " lowerbound",
        Some(Bound::Upper) => " upperbound",
        _ => "",
    };
    let wdl = match i.wdl {
        Some([w, d, l]) => format!(" wdl {w} {d} {l}"),
        None => String::new(),
    };
    let mut s = format!(
        "info depth {} seldepth {} multipv {} score {score}{bound}{wdl} nodes {} nps {} hashfull {} tbhits {} time {}",
        i.depth, i.seldepth, i.multipv, i.nodes, i.nps, i.hashfull, i.tbhits, i.time_ms
    );
    if !pv.is_empty() {
        s.push_str(" pv ");
        s.push_str(&pv.join(" "));
    }
    s
}
