//! `xiangqi-engine`: the engine speaking UCI (or UCCI) on standard input and output.

#![forbid(unsafe_code)]

fn main() {
    xiangqi_engine::uci::run_stdio();
}
