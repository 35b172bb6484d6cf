//! The `xiangqi` command line.

#![forbid(unsafe_code)]

use std::process::ExitCode;
use std::time::Instant;

use xiangqi::game::{Game, Rules};
use xiangqi::{perft, perft_no_bulk, Position, START_FEN};

mod convert;

mod judge;

const USAGE: &str = "usage:
  xiangqi perft [--fen FEN] [--divide] [--no-bulk] DEPTH
  xiangqi moves [--fen FEN] [MOVE ...]
  xiangqi convert INPUT [-o OUTPUT] [--notation iccs|wxf|chinese] [--to pgn|fen]
  xiangqi judge [--fen FEN] [--repetitions N] [--explain [--lang en|zh]] MOVE ...
  xiangqi uci                 (the engine, speaking UCI on stdin/stdout)
  xiangqi bench [DEPTH]       (the engine's fixed search: last line `N nodes M nps`)
  xiangqi match -engine cmd=A ... -engine cmd=B ... -each tc=10+0.1 ...   (engine matches; docs/MATCH.md)
  xiangqi [serve] [--port N] [--no-fallback] [--host ADDR] [--data DIR] [--database URL]   (the browser app; the default)";

/// A command-line failure: a message for stderr and the exit status.
struct Fail(String, u8);

fn usage(msg: impl Into<String>) -> Fail {
    Fail(format!("{}\n{USAGE}", msg.into()), 2)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("perft") => cmd_perft(&args[1..]),
        Some("moves") => cmd_moves(&args[1..]),
        Some("convert") => convert::cmd_convert(&args[1..]).map_err(|(m, c)| Fail(m, c)),
        Some("judge") => judge::cmd_judge(&args[1..]),
        Some("match") => std::process::exit(xiangqi_match::run(&args[1..])),
        Some("serve") => xiangqi_server::cli(&args[1..]).map_err(|m| Fail(m, 2)),
        Some("uci") => {
            xiangqi_engine::uci::run_stdio();
            Ok(())
        }
        Some("bench") => {
            // The engine's UCI `bench`, with the same arguments (depth, ...).
            let script = format!("bench {}\nquit\n", args[1..].join(" "));
            let out = xiangqi_engine::uci::Output::new(Box::new(std::io::stdout()));
            xiangqi_engine::uci::run(std::io::Cursor::new(script), out);
            Ok(())
        }
        Some("-h") | Some("--help") | Some("help") => {
            println!("{USAGE}");
            Ok(())
        }
        Some(other) => Err(usage(format!("unknown command '{other}'"))),
        None => xiangqi_server::cli(&[]).map_err(|m| Fail(m, 2)),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Fail(msg, code)) => {
            eprintln!("xiangqi: {msg}");
            ExitCode::from(code)
        }
    }
}

/// Options shared by commands that start from a position and play moves.
struct PositionArgs {
    fen: String,
    rest: Vec<String>,
    flags: Vec<String>,
}

fn parse_position_args(args: &[String], flags: &[&str]) -> Result<PositionArgs, Fail> {
    let mut fen = START_FEN.to_string();
    let mut rest = Vec::new();
    let mut seen = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        if a == "--fen" {
            fen = args
                .get(i + 1)
                .ok_or_else(|| usage("--fen needs a FEN"))?
                .clone();
            i += 2;
            continue;
        }
        if let Some(v) = a.strip_prefix("--fen=") {
            fen = v.to_string();
        } else if flags.contains(&a) {
            seen.push(a.to_string());
        } else if a.starts_with("--") {
            return Err(usage(format!("unknown option '{a}'")));
        } else {
            rest.push(a.to_string());
        }
        i += 1;
    }
    Ok(PositionArgs {
        fen,
        rest,
        flags: seen,
    })
}

/// The position of a FEN, or the CLI's message naming it.
fn parse_fen(fen: &str) -> Result<Position, Fail> {
    Position::from_fen(fen).map_err(|e| Fail(format!("bad FEN '{fen}': {e}"), 2))
}

/// The game from a FEN and coordinate moves under `rules` ("FEN plus moves"); the error names
/// the FEN or the first bad move by its number.
fn load(fen: &str, moves: &[String], rules: Rules) -> Result<Game, Fail> {
    Game::replay(parse_fen(fen)?, rules, moves).map_err(|e| Fail(e.to_string(), 2))
}

fn cmd_perft(args: &[String]) -> Result<(), Fail> {
    let a = parse_position_args(args, &["--divide", "--no-bulk"])?;
    let depth: u32 = match a.rest.as_slice() {
        [d] => d
            .parse()
            .map_err(|_| usage(format!("depth '{d}' is not a number")))?,
        [] => return Err(usage("perft needs a depth")),
        _ => return Err(usage("perft takes one depth")),
    };
    let pos = parse_fen(&a.fen)?;
    let divide = a.flags.iter().any(|f| f == "--divide");
    let bulk = !a.flags.iter().any(|f| f == "--no-bulk");
    let count = |p: &Position, d: u32| {
        if bulk {
            perft(p, d)
        } else {
            perft_no_bulk(p, d)
        }
    };
    let start = Instant::now();
    let nodes = if divide && depth > 0 {
        let mut moves: Vec<_> = pos.legal_moves().iter().copied().collect();
        moves.sort_by_key(|m| m.to_string());
        let mut total = 0;
        for m in moves {
            let mut child = pos.clone();
            child.play_unchecked(m);
            let n = count(&child, depth - 1);
            println!("{m}: {n}");
            total += n;
        }
        total
    } else {
        count(&pos, depth)
    };
    let secs = start.elapsed().as_secs_f64();
    println!("nodes {nodes}");
    println!(
        "time {:.3} s, {:.1} Mnps",
        secs,
        nodes as f64 / secs.max(1e-9) / 1e6
    );
    Ok(())
}

fn cmd_moves(args: &[String]) -> Result<(), Fail> {
    let a = parse_position_args(args, &[])?;
    let game = load(&a.fen, &a.rest, Rules::default())?;
    let pos = game.position();
    let mut moves: Vec<String> = pos.legal_moves().iter().map(|m| m.to_string()).collect();
    moves.sort();
    for m in moves {
        println!("{m}");
    }
    Ok(())
}
