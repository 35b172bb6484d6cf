//! `xiangqi-engine`: the engine speaking UCI (or UCCI) on standard input and output.
//!
//! With arguments, they are run as one UCI command and the program exits, as Stockfish and
//! Pikafish do: `xiangqi-engine bench` (what OpenBench runs), `xiangqi-engine bench 13`,
//! `xiangqi-engine go perft 4`. `xiangqi-engine datagen --out FILE ...` generates NNUE
//! training data instead (`xiangqi-engine datagen --help`).

#![forbid(unsafe_code)]

const HELP: &str = "\
usage:
  xiangqi-engine                 speak UCI (or UCCI, after `ucci`) on standard input and output
  xiangqi-engine COMMAND...      run one UCI command and exit, as Stockfish does:
                                 `bench [DEPTH]` (the last line is `N nodes M nps`),
                                 `go perft N`, `eval`, `d`, ...
  xiangqi-engine datagen ...     self-play NNUE training data (`xiangqi-engine datagen --help`)
  xiangqi-engine --help | -h     this text
  xiangqi-engine --version | -V  the name and version
The options (`uci` lists them) and the strength levels: README.md and docs/STRENGTH.md.";

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("datagen") => std::process::exit(datagen(&args[1..])),
        Some("--help") | Some("-h") | Some("help") => {
            println!("{HELP}");
            return;
        }
        Some("--version") | Some("-V") => {
            println!("{}", xiangqi_engine::uci::NAME);
            return;
        }
        _ => {}
    }
    if args.is_empty() {
        xiangqi_engine::uci::run_stdio();
    } else {
        let out = xiangqi_engine::uci::Output::new(Box::new(std::io::stdout()));
        xiangqi_engine::uci::run_args(&args, out);
    }
}

/// `xiangqi-engine datagen ARGS`: a progress bar on stderr when it is a terminal (games, or
/// positions, or seconds of the run's limit), else the periodic progress lines alone.
fn datagen(args: &[String]) -> i32 {
    use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
    use std::io::IsTerminal;
    use xiangqi_engine::datagen;

    let cfg = match datagen::parse(args) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("{e}");
            return 2;
        }
    };
    // The bar counts what the run stops at: games, positions (in the file) or seconds.
    let (len, unit) = match (cfg.games, cfg.positions, cfg.max_seconds) {
        (Some(g), _, _) => (Some(g), "games"),
        (_, Some(p), _) => (Some(p), "positions"),
        (_, _, Some(s)) => (Some(s), "s"),
        _ => (None, "positions"),
    };
    let bar = if std::io::stderr().is_terminal() {
        let b = ProgressBar::with_draw_target(len, ProgressDrawTarget::stderr());
        let template = if len.is_some() {
            format!("datagen [{{bar:30}}] {{pos}}/{{len}} {unit} {{msg}} ({{eta}} left)")
        } else {
            "datagen {spinner} {pos} positions {msg}".to_string()
        };
        b.set_style(
            ProgressStyle::with_template(&template)
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
        );
        b
    } else {
        ProgressBar::hidden()
    };
    let mut log = |l: &str| {
        if bar.is_hidden() {
            eprintln!("{l}");
        } else {
            bar.println(l);
        }
    };
    let mut tick = |t: datagen::Tick| {
        bar.set_position(match unit {
            "games" => t.games,
            "s" => t.seconds as u64,
            _ => t.total,
        });
        bar.set_message(format!(
            "{} games, {} positions, {:.0}/s",
            t.games,
            t.positions,
            t.positions as f64 / t.seconds.max(1e-9)
        ));
    };
    let r = datagen::generate_with(&cfg, &mut log, &mut tick);
    bar.finish_and_clear();
    match r {
        Ok(_) => 0,
        Err(e) => {
            eprintln!("{e}");
            2
        }
    }
}
