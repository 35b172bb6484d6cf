//! Benchmark: reading and replaying a large PGN file.
//!
//! Makes 100,000 random legal games (seeded, 10 to 200 plies each) with the rules core, writes
//! them with our PGN writer in ICCS, WXF and Chinese notation, then times reading each file
//! back (decoding, tags, movetext, each move checked for legality) and replaying every main
//! line. Nothing is kept on disk unless `--keep DIR` is given.
//!
//! ```sh
//! cargo run --release -p xiangqi-record --example pgn_bench [-- --games N] [--keep DIR]
//! ```

use std::time::Instant;

use xiangqi::notation::Notation;
use xiangqi::Position;
use xiangqi_record::pgn;
use xiangqi_record::{GameRecord, GameResult, MoveNode};

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn random_game(rng: &mut Rng, i: usize) -> GameRecord {
    let mut pos = Position::new();
    let mut g = GameRecord::default();
    g.set_tag("Game", "Chinese Chess");
    g.set_tag("Event", format!("Random game {i}"));
    g.set_tag("Red", "random");
    g.set_tag("Black", "random");
    let plies = 10 + rng.below(191);
    for _ in 0..plies {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            break;
        }
        let m = moves[rng.below(moves.len())];
        g.moves.push(MoveNode::new(m));
        pos.play_unchecked(m);
    }
    g.result = [
        GameResult::RedWins,
        GameResult::BlackWins,
        GameResult::Draw,
        GameResult::Unknown,
    ][rng.below(4)];
    g
}

/// CPU time of this thread in seconds (Linux: /proc/thread-self/schedstat), to tell the work
/// from the waiting on a shared machine.
fn cpu_secs() -> f64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<f64>().ok())
        .map_or(f64::NAN, |ns| ns / 1e9)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let mut games = 100_000usize;
    let mut keep: Option<String> = None;
    let mut i = 1;
    while i < args.len() {
        match args[i].as_str() {
            "--games" => {
                games = args[i + 1].parse().expect("--games N");
                i += 1;
            }
            "--keep" => {
                keep = Some(args[i + 1].clone());
                i += 1;
            }
            a => panic!("unknown argument {a}"),
        }
        i += 1;
    }
    let t = Instant::now();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let records: Vec<GameRecord> = (0..games).map(|i| random_game(&mut rng, i + 1)).collect();
    let plies: usize = records.iter().map(|g| g.moves.len()).sum();
    println!(
        "made {games} random games, {plies} plies, in {:.2} s",
        t.elapsed().as_secs_f64()
    );
    for n in [Notation::Iccs, Notation::Wxf, Notation::Chinese] {
        let t = Instant::now();
        let text = pgn::write_games(&records, n);
        let wsecs = t.elapsed().as_secs_f64();
        if let Some(dir) = &keep {
            std::fs::write(
                format!("{dir}/random-{}.pgn", n.name().to_lowercase()),
                &text,
            )
            .expect("write");
        }
        let bytes = text.into_bytes();
        let t = Instant::now();
        let c = cpu_secs();
        let (decoded, _) = xiangqi_record::encoding::decode(&bytes);
        let mut read = 0usize;
        let mut moves = 0usize;
        let mut check = 0u64;
        for g in pgn::PgnReader::new(&decoded) {
            let g = g.expect("our own PGN reads");
            read += 1;
            moves += g.moves.len();
            check ^= g.end_position().key(); // replay the main line
        }
        let secs = t.elapsed().as_secs_f64();
        let cpu = cpu_secs() - c;
        assert_eq!(read, games);
        assert_eq!(moves, plies);
        println!(
            "{:8} {:6.1} MB: read+replay wall {:.2} s = {:.0} games/s, {:.0} moves/s; CPU {:.2} s = {:.0} games/s, {:.0} moves/s (write {:.2} s wall) [{check:x}]",
            n.name(),
            bytes.len() as f64 / 1e6,
            secs,
            read as f64 / secs,
            moves as f64 / secs,
            cpu,
            read as f64 / cpu,
            moves as f64 / cpu,
            wsecs,
        );
    }
}
