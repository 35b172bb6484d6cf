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
//!
//! `--games-out FILE` also writes every game (its moves from the start and its result) as
//! PGN with ICCS moves, a game at a time, for the opening explorer's benchmark
//! (`benches/explorer.sh`); `--out` is then optional. `--walk` plays the games without a
//! search, as a weighted random walk with a one-ply material evaluation (see [`walk_game`]):
//! thousands of games a second where self-play at even one node a move makes about ten.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use std::io::Write;

use xiangqi::{Color, Game, Move, Position, Role, Square};
use xiangqi_nnue::data::{DataWriter, GameResult, Record};
use xiangqi_nnue::net::SplitMix;

use crate::{Engine, Event, Limits, Score};

/// The settings of a run.
#[derive(Clone, Debug)]
pub struct Config {
    /// The training data file (`None`: none written, with `--games-out` alone).
    pub out: Option<PathBuf>,
    /// Every game as PGN (ICCS moves) to this file, appended.
    pub games_out: Option<PathBuf>,
    /// Play by a weighted random walk with a one-ply material evaluation, not by search.
    pub walk: bool,
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
            out: None,
            games_out: None,
            walk: false,
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
       xiangqi-engine datagen --games-out FILE [--walk] [options]
  --games-out FILE  also write every game as PGN with ICCS moves (appended)
  --walk            no search: a weighted random walk with a one-ply material
                    evaluation (with --games-out; writes no training data)
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
        if flag == "--walk" {
            c.walk = true;
            i += 1;
            continue;
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
            "--games-out" => c.games_out = Some(PathBuf::from(v)),
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
    c.out = out;
    if c.out.is_none() && c.games_out.is_none() {
        return Err(format!(
            "datagen: --out FILE or --games-out FILE is required\n{HELP}"
        ));
    }
    if c.walk && c.out.is_some() {
        return Err(format!(
            "datagen: --walk makes games without a search: no training data (--out); use --games-out FILE\n{HELP}"
        ));
    }
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
    play(engine, cfg, index).records
}

/// A played game: its kept positions (results filled in), its moves from the start and its
/// winner (`None`: a draw).
#[derive(Clone, Debug, PartialEq)]
pub struct Played {
    pub records: Vec<Record>,
    pub moves: Vec<Move>,
    pub winner: Option<Color>,
}

impl Played {
    /// The game as PGN with ICCS moves; `index` names it (players and date are made up from
    /// it, so that two games with the same moves stay two games for the explorer).
    pub fn pgn(&self, index: u64, event: &str) -> String {
        use std::fmt::Write;
        let result = match self.winner {
            Some(Color::Red) => "1-0",
            Some(Color::Black) => "0-1",
            None => "1/2-1/2",
        };
        let mut rng = SplitMix(index.wrapping_mul(0xd1b5_4a32_d192_ed03) ^ 0x5bd1_e995);
        let mut out = String::with_capacity(64 + self.moves.len() * 6);
        let (red, black) = (rng.below(2000), rng.below(2000));
        let _ = write!(
            out,
            "[Event \"{event}\"]\n[Round \"{index}\"]\n[Date \"{}.{:02}.{:02}\"]\n[Red \"player{red}\"]\n[Black \"player{black}\"]\n[RedElo \"{}\"]\n[BlackElo \"{}\"]\n[Result \"{result}\"]\n[Format \"ICCS\"]\n\n",
            2000 + rng.below(26),
            1 + rng.below(12),
            1 + rng.below(28),
            1200 + (red as u64 * 7 % 1400),
            1200 + (black as u64 * 7 % 1400),
        );
        for (i, m) in self.moves.iter().enumerate() {
            if i % 2 == 0 {
                let _ = write!(out, "{}. ", i / 2 + 1);
            }
            let _ = write!(out, "{m} ");
            if i % 16 == 15 {
                out.push('\n');
            }
        }
        out.push_str(result);
        out.push_str("\n\n");
        out
    }
}

/// The value of a piece for the walk's one-ply evaluation, in pawns.
fn walk_value(role: Role) -> u32 {
    match role {
        Role::General => 100,
        Role::Chariot => 9,
        Role::Horse | Role::Cannon => 4,
        Role::Advisor | Role::Elephant => 2,
        Role::Soldier => 1,
    }
}

/// A game played by a weighted random walk: at each ply the legal moves are ranked by a
/// one-ply evaluation (the value of what they capture) plus a fixed preference of that
/// move in that position (a hash of the position's key and the move, so every game that
/// reaches a position prefers the same moves there), and the move of rank `r` is played
/// with a weight of 1 / (r + 1)^2: about 60 % of the games take the favourite, with a long
/// tail. Games run 40 to 139 plies unless the rules end them first (mate, stalemate,
/// repetition rulings, the move limit); a game still going then is decided by the material
/// left, with chance: a side ahead by 3 pawns or more wins 3 times in 4, else a draw is as
/// likely as either win.
pub fn walk_game(cfg: &Config, index: u64) -> Played {
    let mut rng = SplitMix(cfg.seed ^ index.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    let mut game = Game::new(Position::new());
    let plies = 40 + rng.below(100);
    let mut weights: Vec<f64> = Vec::new();
    let winner = loop {
        if let Some(o) = game.outcome() {
            break o.winner;
        }
        if game.len() >= plies {
            let pos = game.position();
            let mut material = [0i64; 2];
            for sq in Square::all() {
                if let Some(p) = pos.piece_at(sq) {
                    if p.role != Role::General {
                        material[p.color.index()] += i64::from(walk_value(p.role));
                    }
                }
            }
            let diff = material[Color::Red.index()] - material[Color::Black.index()];
            let r = rng.below(12);
            break if diff.abs() >= 3 {
                let ahead = if diff > 0 { Color::Red } else { Color::Black };
                match r {
                    0..=8 => Some(ahead),
                    9 | 10 => None,
                    _ => Some(!ahead),
                }
            } else {
                match r {
                    0..=3 => Some(Color::Red),
                    4..=7 => None,
                    _ => Some(Color::Black),
                }
            };
        }
        let pos = game.position();
        let key = pos.key();
        let mut moves: Vec<(u64, Move)> = pos
            .legal_moves()
            .into_iter()
            .map(|&m| {
                let gain = pos.piece_at(m.to()).map_or(0, |p| walk_value(p.role));
                let pref = (key ^ u64::from(m.to_u16()).wrapping_mul(0x9e37_79b9_7f4a_7c15))
                    .wrapping_mul(0xbf58_476d_1ce4_e5b9)
                    >> 40;
                // Preference in [0, 3) pawns, so a capture of a horse or more ranks first.
                (u64::from(gain) * (1 << 24) + pref * 3, m)
            })
            .collect();
        if moves.is_empty() {
            break game.outcome().and_then(|o| o.winner);
        }
        moves.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.to_u16().cmp(&b.1.to_u16())));
        weights.clear();
        weights.extend((0..moves.len()).map(|r| 1.0 / ((r + 1) * (r + 1)) as f64));
        let total: f64 = weights.iter().sum();
        let mut x = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * total;
        let mut pick = moves.len() - 1;
        for (r, w) in weights.iter().enumerate() {
            if x < *w {
                pick = r;
                break;
            }
            x -= w;
        }
        game.push_unchecked(moves[pick].1);
    };
    Played {
        records: Vec::new(),
        moves: game.moves(),
        winner,
    }
}

/// One game by self-play (or by [`walk_game`] with `--walk`).
pub fn play(engine: &mut Engine, cfg: &Config, index: u64) -> Played {
    if cfg.walk {
        return walk_game(cfg, index);
    }
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
    Played {
        records: kept,
        moves: game.moves(),
        winner,
    }
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
    let writer = match &cfg.out {
        Some(out) => Some(DataWriter::open(out).map_err(|e| e.to_string())?),
        None => None,
    };
    let existing = writer.as_ref().map_or(0, |w| w.records());
    let games_out = match &cfg.games_out {
        Some(p) => Some(std::io::BufWriter::with_capacity(
            1 << 20,
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(p)
                .map_err(|e| format!("datagen: --games-out {}: {e}", p.display()))?,
        )),
        None => None,
    };
    let how = if cfg.walk {
        "a weighted random walk".to_string()
    } else {
        format!("{} nodes a move, {}", cfg.nodes, cfg.eval)
    };
    log(&format!(
        "datagen: {} ({existing} positions already){}, {} threads, {how}, seed {}, games from {}",
        cfg.out
            .as_ref()
            .map_or("no training data".to_string(), |p| p.display().to_string()),
        cfg.games_out
            .as_ref()
            .map_or(String::new(), |p| format!(", games to {}", p.display())),
        cfg.threads,
        cfg.seed,
        cfg.first_game
    ));
    let event = if cfg.walk { "walk" } else { "self-play" };
    let writer = Mutex::new((writer, games_out));
    let next_game = AtomicU64::new(0);
    let games_done = AtomicU64::new(0);
    let written = AtomicU64::new(0);
    let stop = AtomicBool::new(false);
    let games_out_wanted = cfg.games_out.is_some();
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
                    let index = cfg.first_game + k;
                    let played = play(&mut engine, cfg, index);
                    let pgn = games_out_wanted.then(|| played.pgn(index, event));
                    let mut w = writer.lock().unwrap_or_else(|p| p.into_inner());
                    let (data, games) = &mut *w;
                    let r = match data {
                        Some(d) => d.append(&played.records).map_err(|e| e.to_string()),
                        None => Ok(()),
                    }
                    .and(match (games, pgn) {
                        (Some(g), Some(pgn)) => g
                            .write_all(pgn.as_bytes())
                            .map_err(|e| format!("datagen: --games-out: {e}")),
                        _ => Ok(()),
                    });
                    if let Err(e) = r {
                        *failure.lock().unwrap_or_else(|p| p.into_inner()) = Some(e);
                        stop.store(true, Ordering::SeqCst);
                        break;
                    }
                    written.fetch_add(played.records.len() as u64, Ordering::SeqCst);
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
    let (_, games) = writer.into_inner().unwrap_or_else(|p| p.into_inner());
    if let Some(mut g) = games {
        g.flush()
            .map_err(|e| format!("datagen: --games-out: {e}"))?;
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
        cfg.out
            .as_ref()
            .map_or("no training data file".to_string(), |p| p.display().to_string()),
        summary.total
    ));
    Ok(summary)
}
