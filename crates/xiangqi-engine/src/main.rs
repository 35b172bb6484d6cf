//! `xiangqi-engine`: the engine speaking UCI (or UCCI) on standard input and output.

fn main() {
    xiangqi_engine::uci::run_stdio();
}
