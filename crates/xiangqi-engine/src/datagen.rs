//! `xiangqi-engine datagen`: self-play training data for the NNUE trainer.
//!
//! Each of T threads runs its own engine (one search thread, its own hash table) and plays
//! games against itself at a fixed node count a move, from openings of random legal moves.
//! Game `k` of a run is decided by the run's seed and `k` alone (its random opening; the
//! search at a node count is deterministic), whichever thread plays it. Games end by our
//! rules (the rules core's [`Game`]: mate, stalemate, repetition rulings with perpetual check
//! and chase, the move limit, bare material), or are adjudicated: won once the score stays
//! at or beyond `--adjudicate` centipawns for 4 plies in a row (both sides agreeing), drawn
//! after `--max-plies`.
//!
//! Kept positions (the others are searched and played but not written): not in the first
//! `--min-ply` plies, not in check, not with a capture as the best move, not with a mate
//! score, and none after the score first reached `--decided` centipawns. Each kept
//! position is written with its search score (side to move) and the game's final result in
//! `xiangqi-nnue`'s data format, a whole game at a time, so an interrupted run leaves a
//! readable file and a new run with the same `--out` appends (a resumed run should use a
//! new `--seed`, or the same seed with `--first-game` past the games already played).

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use xiangqi::{Color, Game, Position};
use xiangqi_nnue::data::{DataWriter, GameResult, Record};
use xiangqi_nnue::net::SplitMix;

use crate::{Engine, Event, Limits, Score};

/// The settings of a run.
#[derive(Clone, Debug)]
pub struct Config {
    pub out: PathBuf,
    pub threads: usize,
    pub nodes: u64,
    /// Stop once the file holds this many positions (`None`: no limit).
    pub positions: Option<u64>,
    /// Stop after this many games of this run (`None`: no limit).
    pub games: Option<u64>,
    pub max_seconds: Option<u64>,
    pub seed: u64,
    /// The first game index of this run (to continue a run with the same seed).
    pub first_game: u64,
    /// Random plies of the opening: between `random_plies` and `random_plies + 3`.
    pub random_plies: usize,
    pub min_ply: usize,
    pub decided: i32,
    pub adjudicate: i32,
    pub max_plies: usize,
    pub hash_mb: usize,
    /// Seconds between progress lines.
    pub report_every: u64,
    /// The evaluation the engines play with.
    pub eval: Eval,
}

/// The evaluation datagen's engines play with (`--eval`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Eval {
    /// The classical evaluation (how the first net's data was made).
    Classical,
    /// The network embedded in the engine.
    Embedded,
    /// A network file.
    File(PathBuf),
}

impl std::fmt::Display for Eval {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Eval::Classical => f.write_str("the classical evaluation"),
            Eval::Embedded => f.write_str("the embedded network"),
            Eval::File(p) => write!(f, "the network {}", p.display()),
        }
    }
}

impl Default for Config {
    fn default() -> Config {
        Config {
            out: PathBuf::new(),
            threads: 1,
            nodes: 5000,
            positions: None,
            games: None,
            max_seconds: None,
            seed: 1,
            first_game: 0,
            random_plies: 8,
            min_ply: 16,
            decided: 2000,
            adjudicate: 1000,
            max_plies: 400,
            hash_mb: 8,
            report_every: 10,
            eval: Eval::Embedded,
        }
    }
}

pub const HELP: &str = "\
usage: xiangqi-engine datagen --out FILE [options]
  --threads N       games played at once, one engine each (1)
  --nodes N         nodes searched per move (5000)
  --positions N     stop once FILE holds N positions
  --games N         stop after N games of this run
  --max-seconds S   stop after S seconds (games in progress are finished)
  --seed N          the run's seed (1); game k's opening depends on it and k only
  --first-game K    index of this run's first game (0)
  --random-plies N  random opening moves: N to N+3 (8)
  --min-ply N       keep no position before ply N (16)
  --decided CP      keep nothing once |score| reached CP (2000)
  --adjudicate CP   a win once |score| >= CP for 4 plies (1000)
  --max-plies N     a draw after N plies (400)
  --hash MB         hash table per thread (8)
  --eval E          classical | nnue (the embedded network) | a .nnue file (nnue)
  --report-every S  seconds between progress lines (10)";

pub fn parse(args: &[String]) -> Result<Config, String> {
    let mut c = Config::default();
    let mut out = None;
    let mut i = 0;
    while i < args.len() {
        let flag = args[i].as_str();
        if flag == "--help" || flag == "help" {
            return Err(HELP.into());
        }
        let v = args
            .get(i + 1)
            .ok_or_else(|| format!("datagen: {flag} needs a value\n{HELP}"))?;
        let n = || -> Result<u64, String> {
            v.parse()
                .map_err(|_| format!("datagen: {flag}: '{v}' is not a non-negative whole number"))
        };
        match flag {
            "--out" => out = Some(PathBuf::from(v)),
            "--threads" => c.threads = n()? as usize,
            "--nodes" => c.nodes = n()?,
            "--positions" => c.positions = Some(n()?),
            "--games" => c.games = Some(n()?),
            "--max-seconds" => c.max_seconds = Some(n()?),
            "--seed" => c.seed = n()?,
            "--first-game" => c.first_game = n()?,
            "--random-plies" => c.random_plies = n()? as usize,
            "--min-ply" => c.min_ply = n()? as usize,
            "--decided" => c.decided = n()?.min(20000) as i32,
            "--adjudicate" => c.adjudicate = n()?.min(20000) as i32,
            "--max-plies" => c.max_plies = n()? as usize,
            "--hash" => c.hash_mb = n()? as usize,
            "--report-every" => c.report_every = n()?.max(1),
            "--eval" => {
                c.eval = match v.as_str() {
                    "classical" => Eval::Classical,
                    "nnue" => Eval::Embedded,
                    file => Eval::File(PathBuf::from(file)),
                }
            }
            _ => return Err(format!("datagen: unknown option '{flag}'\n{HELP}")),
        }
        i += 2;
    }
    c.out = out.ok_or_else(|| format!("datagen: --out FILE is required\n{HELP}"))?;
    if c.threads == 0 || c.threads > 256 {
        return Err(format!(
            "datagen: --threads {} must be between 1 and 256",
            c.threads
        ));
    }
    if c.nodes == 0 {
        return Err("datagen: --nodes must be at least 1".into());
    }
    if c.hash_mb == 0 || c.hash_mb > 65536 {
        return Err(format!(
            "datagen: --hash {} must be between 1 and 65536",
            c.hash_mb
        ));
    }
    Ok(c)
}

/// What a run did.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    pub games: u64,
    /// Positions written by this run.
    pub positions: u64,
    /// Positions in the file at the end.
    pub total: u64,
    pub seconds: f64,
}

impl Summary {
    pub fn positions_per_second(&self) -> f64 {
        self.positions as f64 / self.seconds.max(1e-9)
    }
}

/// One game: its kept positions with their results filled in.
pub fn play_game(engine: &mut Engine, cfg: &Config, index: u64) -> Vec<Record> {
    let mut rng = SplitMix(cfg.seed ^ index.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    let start = Position::new();
    // A random opening that leaves the game going.
    let mut game = loop {
        let mut g = Game::new(start.clone());
        let plies = cfg.random_plies + rng.below(4);
        for _ in 0..plies {
            let moves = g.position().legal_moves();
            if moves.is_empty() || g.outcome().is_some() {
                break;
            }
            g.push_unchecked(moves[rng.below(moves.len())]);
        }
        if g.outcome().is_none() && !g.position().legal_moves().is_empty() {
            break g;
        }
    };
    engine.new_game();
    let mut kept: Vec<Record> = Vec::new();
    let mut decided = false;
    let mut streak: (i32, usize) = (0, 0); // (sign from Red's side, plies)
    let winner: Option<Color> = loop {
        if let Some(o) = game.outcome() {
            break o.winner;
        }
        if game.len() >= cfg.max_plies {
            break None;
        }
        engine
            .set_position(start.clone(), &game.moves())
            .expect("the game's moves are legal");
        let (best, events) = engine.search(Limits::nodes(cfg.nodes));
        let Some(best) = best else {
            // No legal move: the rules core has ruled on it already.
            break game.outcome().and_then(|o| o.winner);
        };
        let score = events.iter().rev().find_map(|e| match e {
            Event::Info(i) if i.multipv == 1 => Some(i.score),
            _ => None,
        });
        let pos = game.position().clone();
        let (cp, mate) = match score {
            Some(Score::Cp(v)) => (v, false),
            Some(Score::Mate(n)) => (if n > 0 { 30000 } else { -30000 }, true),
            None => (0, false),
        };
        if cp.abs() >= cfg.decided {
            decided = true;
        }
        let red_cp = if pos.turn() == Color::Red { cp } else { -cp };
        let sign = if red_cp.abs() >= cfg.adjudicate {
            red_cp.signum()
        } else {
            0
        };
        streak = if sign != 0 && sign == streak.0 {
            (sign, streak.1 + 1)
        } else {
            (sign, usize::from(sign != 0))
        };
        if streak.1 >= 4 {
            break Some(if streak.0 > 0 {
                Color::Red
            } else {
                Color::Black
            });
        }
        if game.len() >= cfg.min_ply
            && !decided
            && !mate
            && !pos.is_check()
            && !pos.is_capture(best)
        {
            kept.push(Record {
                board: pos.board().clone(),
                turn: pos.turn(),
                score: cp as i16,
                result: GameResult::Draw,
            });
        }
        game.push_unchecked(best);
    };
    let result = GameResult::from_winner(winner);
    for r in &mut kept {
        r.result = result;
    }
    kept
}

/// Runs `datagen` with command-line arguments, printing progress to `log`.
pub fn run(args: &[String], log: &mut dyn FnMut(&str)) -> Result<Summary, String> {
    let cfg = parse(args)?;
    generate(&cfg, log)
}

/// How far a run is, as [`generate_with`] tells it about every 50 ms (for a progress bar).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tick {
    /// Games finished in this run.
    pub games: u64,
    /// Positions written in this run.
    pub positions: u64,
    /// Positions in the file: those it had plus those written.
    pub total: u64,
    /// Seconds since the run began.
    pub seconds: f64,
}

/// Generates data per `cfg`.
pub fn generate(cfg: &Config, log: &mut dyn FnMut(&str)) -> Result<Summary, String> {
    generate_with(cfg, log, &mut |_| {})
}

/// [`generate`], telling `tick` how far it is about every 50 ms.
pub fn generate_with(
    cfg: &Config,
    log: &mut dyn FnMut(&str),
    tick: &mut dyn FnMut(Tick),
) -> Result<Summary, String> {
    // A bad network file is an error before anything is written.
    let net = match &cfg.eval {
        Eval::File(p) => Some(
            xiangqi_nnue::QuantisedNet::load(p)
                .map(std::sync::Arc::new)
                .map_err(|e| format!("datagen: --eval: {e}"))?,
        ),
        _ => None,
    };
    let writer = DataWriter::open(&cfg.out).map_err(|e| e.to_string())?;
    let existing = writer.records();
    log(&format!(
        "datagen: {} ({existing} positions already), {} threads, {} nodes a move, {}, seed {}, games from {}",
        cfg.out.display(),
        cfg.threads,
        cfg.nodes,
        cfg.eval,
        cfg.seed,
        cfg.first_game
    ));
    let writer = Mutex::new(writer);
    let next_game = AtomicU64::new(0);
    let games_done = AtomicU64::new(0);
    let written = AtomicU64::new(0);
    let stop = AtomicBool::new(false);
    let failure: Mutex<Option<String>> = Mutex::new(None);
    let t0 = Instant::now();
    let deadline = cfg.max_seconds.map(|s| t0 + Duration::from_secs(s));
    let full = |written: u64| cfg.positions.is_some_and(|p| existing + written >= p);
    std::thread::scope(|s| {
        for _ in 0..cfg.threads {
            s.spawn(|| {
                let mut engine = Engine::new();
                let _ = engine.set_option("Hash", &cfg.hash_mb.to_string());
                let _ = engine.set_option("Threads", "1");
                match (&cfg.eval, &net) {
                    (Eval::Classical, _) => {
                        let _ = engine.set_option("Use NNUE", "false");
                    }
                    (_, Some(net)) => engine.set_network(net.clone()),
                    _ => {}
                }
                loop {
                    if stop.load(Ordering::SeqCst)
                        || full(written.load(Ordering::SeqCst))
                        || deadline.is_some_and(|d| Instant::now() >= d)
                    {
                        break;
                    }
                    let k = next_game.fetch_add(1, Ordering::SeqCst);
                    if cfg.games.is_some_and(|g| k >= g) {
                        break;
                    }
                    let records = play_game(&mut engine, cfg, cfg.first_game + k);
                    let mut w = writer.lock().unwrap_or_else(|p| p.into_inner());
                    if let Err(e) = w.append(&records) {
                        *failure.lock().unwrap_or_else(|p| p.into_inner()) = Some(e.to_string());
                        stop.store(true, Ordering::SeqCst);
                        break;
                    }
                    written.fetch_add(records.len() as u64, Ordering::SeqCst);
                    games_done.fetch_add(1, Ordering::SeqCst);
                }
            });
        }
        // Progress, from this thread, until the workers are done.
        let mut last = Instant::now();
        while games_done.load(Ordering::SeqCst) < cfg.games.unwrap_or(u64::MAX)
            && !stop.load(Ordering::SeqCst)
        {
            std::thread::sleep(Duration::from_millis(50));
            let w = written.load(Ordering::SeqCst);
            tick(Tick {
                games: games_done.load(Ordering::SeqCst),
                positions: w,
                total: existing + w,
                seconds: t0.elapsed().as_secs_f64(),
            });
            let all_idle = full(written.load(Ordering::SeqCst))
                || deadline.is_some_and(|d| Instant::now() >= d);
            if last.elapsed() >= Duration::from_secs(cfg.report_every) {
                last = Instant::now();
                let w = written.load(Ordering::SeqCst);
                let secs = t0.elapsed().as_secs_f64();
                log(&format!(
                    "datagen: {} games, {w} positions in {secs:.0} s ({:.0} positions/s)",
                    games_done.load(Ordering::SeqCst),
                    w as f64 / secs.max(1e-9)
                ));
            }
            if all_idle {
                break;
            }
        }
    });
    if let Some(e) = failure.into_inner().unwrap_or_else(|p| p.into_inner()) {
        return Err(e);
    }
    let w = written.load(Ordering::SeqCst);
    let summary = Summary {
        games: games_done.load(Ordering::SeqCst),
        positions: w,
        total: existing + w,
        seconds: t0.elapsed().as_secs_f64(),
    };
    log(&format!(
        "datagen: done: {} games, {} positions written ({:.1} positions/s, {:.1} s); {} has {} positions",
        summary.games,
        summary.positions,
        summary.positions_per_second(),
        summary.seconds,
        cfg.out.display(),
        summary.total
    ));
    Ok(summary)
}
