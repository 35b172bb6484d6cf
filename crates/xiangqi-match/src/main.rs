//! `xiangqi-match`: the match runner on its own (the same as `xiangqi match`).
//!
//! `xiangqi-match --uci-engine` runs our engine on stdin/stdout, so that the runner can be
//! tried and tested without another binary.

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--uci-engine") {
        xiangqi_engine::uci::run_stdio();
        return;
    }
    std::process::exit(xiangqi_match::run(&args));
}
