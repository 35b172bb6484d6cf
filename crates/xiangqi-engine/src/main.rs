//! `xiangqi-engine`: the engine speaking UCI (or UCCI) on standard input and output.
//!
//! With arguments, they are run as one UCI command and the program exits, as Stockfish and
//! Pikafish do: `xiangqi-engine bench` (what OpenBench runs), `xiangqi-engine bench 13`,
//! `xiangqi-engine go perft 4`. `xiangqi-engine datagen --out FILE ...` generates NNUE
//! training data instead (`xiangqi-engine datagen --help`).

#![forbid(unsafe_code)]

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("datagen") {
        match xiangqi_engine::datagen::run(&args[1..], &mut |l| eprintln!("{l}")) {
            Ok(_) => std::process::exit(0),
            Err(e) => {
                eprintln!("{e}");
                std::process::exit(2);
            }
        }
    }
    if args.is_empty() {
        xiangqi_engine::uci::run_stdio();
    } else {
        let out = xiangqi_engine::uci::Output::new(Box::new(std::io::stdout()));
        xiangqi_engine::uci::run_args(&args, out);
    }
}
