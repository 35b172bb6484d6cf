//! The `xiangqi` command line: one clap (derive) parser for every subcommand ([`cli`]), and
//! the commands themselves.

#![forbid(unsafe_code)]

use std::process::ExitCode;
use std::time::Instant;

use xiangqi::game::{Game, Rules};
use xiangqi::{perft, perft_no_bulk, Position};

mod analyze;
mod board;
mod bot;
mod cli;
mod convert;
mod explorer;
mod judge;
mod play;
mod progress;
mod show;
mod tb;

use cli::Command;

/// A command-line failure: a message for stderr and the exit status.
#[derive(Debug)]
pub(crate) struct Fail(pub String, pub u8);

impl Fail {
    /// Bad input (a FEN, a move, a file): exit status 2.
    pub fn input(msg: impl Into<String>) -> Fail {
        Fail(msg.into(), 2)
    }
}

fn main() -> ExitCode {
    let cli = cli::parse();
    let result = match cli.command {
        Some(Command::Perft(a)) => cmd_perft(a),
        Some(Command::Moves(a)) => cmd_moves(a),
        Some(Command::Convert(a)) => convert::cmd_convert(&a).map_err(|(m, c)| Fail(m, c)),
        Some(Command::Analyze(a)) => analyze::cmd_analyze(&a).map_err(|(m, c)| Fail(m, c)),
        Some(Command::Judge(a)) => judge::cmd_judge(&a),
        Some(Command::Explorer(a)) => explorer::cmd_explorer(&a.command),
        Some(Command::Tb(a)) => tb::cmd_tb(&a.command),
        Some(Command::Match(a)) => std::process::exit(xiangqi_match::run(&a.args)),
        Some(Command::Serve(a)) => xiangqi_server::cli(a).map_err(Fail::input),
        Some(Command::Uci) => {
            xiangqi_engine::uci::run_stdio();
            Ok(())
        }
        Some(Command::Bench(a)) => {
            // The engine's UCI `bench`, with the same argument.
            let script = match a.depth {
                Some(d) => format!("bench {d}\nquit\n"),
                None => "bench\nquit\n".to_string(),
            };
            let out = xiangqi_engine::uci::Output::new(Box::new(std::io::stdout()));
            xiangqi_engine::uci::run(std::io::Cursor::new(script), out);
            Ok(())
        }
        Some(Command::Bot(a)) => bot::cmd_bot(&a),
        Some(Command::Play(a)) => play::cmd_play(&a),
        Some(Command::Show(a)) => show::cmd_show(&a),
        Some(Command::Completions(a)) => {
            let mut cmd = cli::command();
            clap_complete::generate(a.shell, &mut cmd, "xiangqi", &mut std::io::stdout());
            Ok(())
        }
        Some(Command::Man(a)) => cli::cmd_man(&a),
        None => xiangqi_server::cli(cli.serve).map_err(Fail::input),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Fail(msg, code)) => {
            eprintln!("xiangqi: {msg}");
            ExitCode::from(code)
        }
    }
}

/// The position of a FEN, or the CLI's message naming it.
pub(crate) fn parse_fen(fen: &str) -> Result<Position, Fail> {
    Position::from_fen(fen).map_err(|e| Fail::input(format!("bad FEN '{fen}': {e}")))
}

/// The game from a FEN and coordinate moves under `rules` ("FEN plus moves"); the error names
/// the FEN or the first bad move by its number.
pub(crate) fn load(fen: &str, moves: &[String], rules: Rules) -> Result<Game, Fail> {
    Game::replay(parse_fen(fen)?, rules, moves).map_err(|e| Fail::input(e.to_string()))
}

fn cmd_perft(a: cli::PerftArgs) -> Result<(), Fail> {
    let pos = parse_fen(&a.fen)?;
    let depth = a.depth;
    let count = |p: &Position, d: u32| {
        if a.no_bulk {
            perft_no_bulk(p, d)
        } else {
            perft(p, d)
        }
    };
    let start = Instant::now();
    let nodes = if a.divide && depth > 0 {
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

fn cmd_moves(a: cli::MovesArgs) -> Result<(), Fail> {
    let game = load(&a.fen, &a.moves, Rules::default())?;
    let pos = game.position();
    let mut moves: Vec<String> = pos.legal_moves().iter().map(|m| m.to_string()).collect();
    moves.sort();
    for m in moves {
        println!("{m}");
    }
    Ok(())
}
