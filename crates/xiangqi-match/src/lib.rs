//! `xiangqi match`: engine-versus-engine matches under the real Xiangqi rules.
//!
//! Every move is checked against the position and the game is judged by [`xiangqi::Game`]:
//! checkmate, stalemate, perpetual check and chase, repetition, the move limit and
//! insufficient material end it as RULES.md says. An illegal move, a crash, a hang or a fallen
//! flag loses. Engines speak UCI (squares a0..i9, or a1..i10 with `ranks=1` and `UCI_Variant
//! xiangqi` for Fairy-Stockfish and Sjaak II) or UCCI (ElephantEye). Results are reported with
//! Elo, its error, LOS and an SPRT; games are written as PGN.
//!
//! The entry point is [`run`]; the command line is described in [`cli::USAGE`] and
//! docs/MATCH.md.

pub mod cli;
pub mod engine;
pub mod openings;
pub mod play;
pub mod signal;
pub mod stats;

use std::fs::OpenOptions;
use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use xiangqi::Color;

use cli::MatchConfig;
use openings::Opening;
use play::{Ending, GameJob, GameReport, GameSettings};
use stats::{Penta, SprtState, Wdl};

/// Prints to stdout; a closed stdout (`| head`) is not an error worth a panic.
macro_rules! outln {
    ($($t:tt)*) => {{
        let _ = writeln!(std::io::stdout(), $($t)*);
    }};
}
macro_rules! out {
    ($($t:tt)*) => {{
        let _ = write!(std::io::stdout(), $($t)*);
    }};
}
macro_rules! errln {
    ($($t:tt)*) => {{
        let _ = writeln!(std::io::stderr(), $($t)*);
    }};
}

/// Exit status after an interruption (128 + SIGINT).
pub const EXIT_INTERRUPTED: i32 = 130;

/// The tally of a match, from the first engine's point of view.
#[derive(Clone, Debug, Default)]
pub struct Tally {
    pub wdl: Wdl,
    /// Wins/draws/losses of the first engine playing Red, and playing Black.
    pub as_red: Wdl,
    pub as_black: Wdl,
    /// How games ended: key and count, in order of first appearance.
    pub endings: Vec<(String, u32)>,
    pub plies: u64,
    pub games: u32,
    /// With `-repeat`: the pairs of games of one opening, by the first engine's points.
    pub penta: Penta,
    /// With `-repeat`: the first engine's points in the first finished game of each round
    /// whose other game is still being played.
    pending: std::collections::HashMap<u64, f64>,
}

impl Tally {
    pub fn add(&mut self, r: &GameReport) {
        if r.ending == Ending::Aborted {
            return;
        }
        let first_red = r.job.red == 0;
        let first_color = if first_red { Color::Red } else { Color::Black };
        let side = if first_red {
            &mut self.as_red
        } else {
            &mut self.as_black
        };
        for w in [&mut self.wdl, side] {
            match r.ending.winner() {
                Some(c) if c == first_color => w.wins += 1,
                Some(_) => w.losses += 1,
                None => w.draws += 1,
            }
        }
        let points = match r.ending.winner() {
            Some(c) if c == first_color => 1.0,
            Some(_) => 0.0,
            None => 0.5,
        };
        if let Some(other) = self.pending.remove(&r.job.round) {
            self.penta.add(other, points);
        } else {
            self.pending.insert(r.job.round, points);
        }
        let key = r.ending.key();
        match self.endings.iter_mut().find(|(k, _)| *k == key) {
            Some(e) => e.1 += 1,
            None => self.endings.push((key, 1)),
        }
        self.plies += r.plies as u64;
        self.games += 1;
    }
}

fn fmt_opt(v: Option<f64>, prec: usize) -> String {
    match v {
        Some(x) if x.is_finite() => format!("{:.prec$}", x + 0.0).replace("-0.0", "0.0"),
        Some(x) if x > 0.0 => "inf".into(),
        Some(_) => "-inf".into(),
        None => "n/a".into(),
    }
}

fn pct(v: Option<f64>) -> String {
    match v {
        Some(x) => format!("{:.1} %", x * 100.0),
        None => "n/a".into(),
    }
}

/// The progress line: games, score, Elo ± error, LOS and the SPRT.
pub fn progress_line(cfg: &MatchConfig, t: &Tally) -> String {
    let w = &t.wdl;
    let mut s = format!(
        "Score of {} vs {}: {} - {} - {}  [{}] {}/{}  Elo {} +/- {}, LOS {}, DrawRatio {}",
        cfg.engines[0].name,
        cfg.engines[1].name,
        w.wins,
        w.losses,
        w.draws,
        fmt_opt(w.score(), 3),
        w.games(),
        cfg.total_games(),
        fmt_opt(w.elo(), 1),
        fmt_opt(w.elo_error(), 1),
        pct(w.los()),
        pct(w.draw_ratio()),
    );
    if cfg.repeat {
        let p = &t.penta;
        s.push_str(&format!(
            ", Ptnml(0-2) [{}], nElo {} +/- {}",
            p.0.map(|c| c.to_string()).join(", "),
            fmt_opt(p.nelo(), 1),
            fmt_opt(p.nelo_error(), 1),
        ));
    }
    if let Some(sp) = &cfg.sprt {
        s.push_str(&format!(
            ", SPRT LLR {:.2} [{:.2}, {:.2}]",
            sprt_llr(cfg, t),
            sp.lower_bound(),
            sp.upper_bound()
        ));
        if cfg.repeat && sp.earlier.pairs() > 0 {
            s.push_str(&format!(" (with {} earlier pairs)", sp.earlier.pairs()));
        }
    }
    s
}

/// The SPRT's log-likelihood ratio: over the finished pairs with `-repeat` (the pentanomial
/// model, as fishtest), over the single games without.
pub fn sprt_llr(cfg: &MatchConfig, t: &Tally) -> f64 {
    match &cfg.sprt {
        Some(sp) if cfg.repeat => sp.llr_pairs(&t.penta),
        Some(sp) => sp.llr(&t.wdl),
        None => 0.0,
    }
}

/// Where the SPRT stands (see [`sprt_llr`]).
pub fn sprt_state(cfg: &MatchConfig, t: &Tally) -> SprtState {
    match &cfg.sprt {
        Some(sp) if cfg.repeat => sp.state_pairs(&t.penta),
        Some(sp) => sp.state(&t.wdl),
        None => SprtState::Continue,
    }
}

/// Pair counts with the Elo and normalized Elo they give: `Ptnml(0-2) [..]: Elo x +/- e,
/// nElo y +/- f`.
fn pairs_summary(p: &Penta) -> String {
    format!(
        "Ptnml(0-2) [{}]: Elo {} +/- {}, nElo {} +/- {}",
        p.0.map(|c| c.to_string()).join(", "),
        fmt_opt(p.elo(), 1),
        fmt_opt(p.elo_error(), 1),
        fmt_opt(p.nelo(), 1),
        fmt_opt(p.nelo_error(), 1),
    )
}

/// The final table.
pub fn final_table(cfg: &MatchConfig, t: &Tally, elapsed: Duration) -> String {
    let mut s = String::new();
    let w = &t.wdl;
    let (a, b) = (&cfg.engines[0].name, &cfg.engines[1].name);
    let width = a.len().max(b.len()).max(6);
    s.push_str(&format!(
        "\n{:<width$}  {:>5} {:>5} {:>5} {:>5} {:>7} {:>7}\n",
        "Engine", "Games", "Wins", "Draws", "Losses", "Points", "Score"
    ));
    let row = |name: &str, x: &Wdl| {
        format!(
            "{:<width$}  {:>5} {:>5} {:>5} {:>5} {:>7.1} {:>6}%\n",
            name,
            x.games(),
            x.wins,
            x.draws,
            x.losses,
            x.points(),
            fmt_opt(x.score().map(|v| v * 100.0), 1)
        )
    };
    s.push_str(&row(a, w));
    s.push_str(&row(b, &Wdl::new(w.losses, w.draws, w.wins)));
    s.push_str(&format!(
        "\n{a} as Red: +{} ={} -{}; as Black: +{} ={} -{}\n",
        t.as_red.wins,
        t.as_red.draws,
        t.as_red.losses,
        t.as_black.wins,
        t.as_black.draws,
        t.as_black.losses
    ));
    s.push_str(&format!(
        "Elo difference ({a} - {b}): {} +/- {} (95%), LOS {}, draw ratio {}\n",
        fmt_opt(w.elo(), 1),
        fmt_opt(w.elo_error(), 1),
        pct(w.los()),
        pct(w.draw_ratio())
    ));
    if cfg.repeat {
        let p = &t.penta;
        s.push_str(&format!(
            "Game pairs: {}, {}\n",
            p.pairs(),
            pairs_summary(p)
        ));
    }
    if let Some(sp) = cfg
        .sprt
        .as_ref()
        .filter(|sp| cfg.repeat && sp.earlier.pairs() > 0)
    {
        let e = &sp.earlier;
        let all = t.penta.plus(e);
        s.push_str(&format!(
            "Earlier runs of this test: {} pairs, Ptnml(0-2) [{}]; together: {} pairs, {}\n",
            e.pairs(),
            e.0.map(|c| c.to_string()).join(", "),
            all.pairs(),
            pairs_summary(&all)
        ));
    }
    if let Some(sp) = &cfg.sprt {
        let verdict = match sprt_state(cfg, t) {
            SprtState::H0 => "H0 accepted",
            SprtState::H1 => "H1 accepted",
            SprtState::Continue => "no decision yet",
        };
        s.push_str(&format!(
            "SPRT ({} elo0={} elo1={} alpha={} beta={}, {}): LLR {:.3} [{:.3}, {:.3}]: {verdict}\n",
            sp.model.name(),
            sp.elo0,
            sp.elo1,
            sp.alpha,
            sp.beta,
            if cfg.repeat {
                "pentanomial"
            } else {
                "trinomial"
            },
            sprt_llr(cfg, t),
            sp.lower_bound(),
            sp.upper_bound()
        ));
    }
    if !t.endings.is_empty() {
        let list: Vec<String> = t.endings.iter().map(|(k, n)| format!("{k} {n}")).collect();
        s.push_str(&format!("Endings: {}\n", list.join(", ")));
    }
    if t.games > 0 {
        s.push_str(&format!(
            "Average game length: {:.1} plies; {} games in {:.1} s\n",
            t.plies as f64 / t.games as f64,
            t.games,
            elapsed.as_secs_f64()
        ));
    }
    s
}

/// The games of the match: opening and colours of each.
pub fn schedule(cfg: &MatchConfig, book: &[Opening]) -> Vec<GameJob> {
    let total = cfg.total_games();
    let order = cfg
        .openings
        .as_ref()
        .map(|o| openings::order(book.len(), o.order, o.start, cfg.srand));
    (0..total)
        .map(|i| {
            let k = if cfg.repeat { i / 2 } else { i };
            let opening = match &order {
                Some(ord) => book[ord[(k % ord.len() as u64) as usize]].clone(),
                None => Opening::startpos(),
            };
            GameJob {
                number: i + 1,
                round: k + 1,
                opening,
                red: (i % 2) as usize,
            }
        })
        .collect()
}

/// A bar of the games played on stderr when it is a terminal (hidden otherwise, so that
/// piped or logged output is as it was).
fn progress_bar(total: u64) -> indicatif::ProgressBar {
    if !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::with_draw_target(
        Some(total),
        indicatif::ProgressDrawTarget::stderr(),
    );
    if let Ok(style) = indicatif::ProgressStyle::with_template(
        "[{bar:30}] {pos}/{len} games, {msg}, {elapsed} ({eta} left)",
    ) {
        bar.set_style(style.progress_chars("=> "));
    }
    bar.set_message("wins-losses-draws 0-0-0");
    bar
}

/// Runs a match from the arguments after `match`; returns the exit status (0 done, 1 an
/// error, 2 bad usage, 130 interrupted). Messages go to stdout (progress) and stderr (errors).
pub fn run(args: &[String]) -> i32 {
    if args
        .iter()
        .any(|a| a == "-h" || a == "--help" || a == "-help")
    {
        outln!("{}", cli::USAGE);
        return 0;
    }
    let cfg = match cli::parse(args) {
        Ok(c) => c,
        Err(e) => {
            errln!("xiangqi match: {e}\n{}", cli::USAGE);
            return 2;
        }
    };
    signal::install();
    match run_config(&cfg) {
        Ok(code) => code,
        Err(e) => {
            engine::kill_all();
            errln!("xiangqi match: {e}");
            1
        }
    }
}

/// Runs a parsed match.
pub fn run_config(cfg: &MatchConfig) -> Result<i32, String> {
    let book = match &cfg.openings {
        // A book gives one walk per opening the schedule uses.
        Some(o) => {
            let per = if cfg.repeat { 2 } else { 1 };
            let needed = cfg.total_games().div_ceil(per) as usize;
            openings::load(o, needed, cfg.srand)?
        }
        None => Vec::new(),
    };
    if let Some(dir) = &cfg.logdir {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create the log folder {}: {e}", dir.display()))?;
    }
    let mut pgn_file = match &cfg.pgnout {
        Some(p) => Some(
            OpenOptions::new()
                .create(true)
                .append(true)
                .open(p)
                .map_err(|e| format!("-pgnout: cannot open {}: {e}", p.display()))?,
        ),
        None => None,
    };
    let jobs = Arc::new(schedule(cfg, &book));
    let stop = Arc::new(AtomicBool::new(false));
    let next = Arc::new(AtomicU64::new(0));
    let (tx, rx) = mpsc::channel::<GameReport>();
    let specs = [
        Arc::new(cfg.engines[0].clone()),
        Arc::new(cfg.engines[1].clone()),
    ];
    let started = Instant::now();
    outln!(
        "Match {} vs {}: {} games, concurrency {}, {}{}{}",
        cfg.engines[0].name,
        cfg.engines[1].name,
        cfg.total_games(),
        cfg.concurrency,
        match &cfg.openings {
            Some(o) => format!("{} openings from {}", book.len(), o.file.display()),
            None => "from the start position".to_string(),
        },
        if cfg.repeat {
            ", each played with both colours"
        } else {
            ""
        },
        match &cfg.logdir {
            Some(d) => format!("; logs in {}", d.display()),
            None => String::new(),
        }
    );
    let workers = cfg.concurrency.min(jobs.len().max(1));
    let mut handles = Vec::new();
    for _ in 0..workers {
        let (jobs, stop, next, tx, specs) = (
            jobs.clone(),
            stop.clone(),
            next.clone(),
            tx.clone(),
            specs.clone(),
        );
        let cfg = cfg.clone();
        handles.push(std::thread::spawn(move || {
            let settings = GameSettings {
                engines: specs,
                rules: cfg.rules,
                draw: cfg.draw,
                resign: cfg.resign,
                logdir: cfg.logdir.as_deref(),
                debug: cfg.debug,
                event: &cfg.event,
                stop: stop.clone(),
            };
            let mut first = true;
            loop {
                if stop.load(Ordering::Relaxed) || signal::interrupted() {
                    break;
                }
                let i = next.fetch_add(1, Ordering::SeqCst) as usize;
                let Some(job) = jobs.get(i) else { break };
                if !first && cfg.wait_ms > 0 {
                    std::thread::sleep(Duration::from_millis(cfg.wait_ms));
                }
                first = false;
                let report = play::play(job.clone(), &settings);
                if tx.send(report).is_err() {
                    break;
                }
            }
        }));
    }
    drop(tx);

    let mut tally = Tally::default();
    let mut done = 0u64;
    let mut error = None;
    let mut sprt_done = false;
    let tty = std::io::stdout().is_terminal();
    let bar = progress_bar(cfg.total_games());
    loop {
        if signal::interrupted() {
            stop.store(true, Ordering::SeqCst);
        }
        let r = match rx.recv_timeout(Duration::from_millis(100)) {
            Ok(r) => r,
            Err(mpsc::RecvTimeoutError::Timeout) => continue,
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        };
        if let Some(f) = &r.fatal {
            if error.is_none() {
                error = Some(f.clone());
            }
            stop.store(true, Ordering::SeqCst);
            continue;
        }
        // After the match was stopped (SPRT decided, Ctrl-C, an error), games still finishing
        // are not counted: the result stands as it was when the match was stopped.
        if r.ending == Ending::Aborted || stop.load(Ordering::SeqCst) {
            continue;
        }
        done += 1;
        tally.add(&r);
        if let Some(f) = &mut pgn_file {
            let mut text = String::new();
            xiangqi_record::pgn::write_game(&mut text, &r.record, cfg.notation);
            if let Err(e) = f.write_all(text.as_bytes()) {
                error.get_or_insert(format!("-pgnout: cannot write: {e}"));
                stop.store(true, Ordering::SeqCst);
            }
        }
        bar.inc(1);
        bar.set_message(format!(
            "wins-losses-draws {}-{}-{}",
            tally.wdl.wins, tally.wdl.losses, tally.wdl.draws
        ));
        // The lines on stdout are as without the bar (it is cleared while they are written).
        bar.suspend(|| {
            let red = &cfg.engines[r.job.red].name;
            let black = &cfg.engines[1 - r.job.red].name;
            outln!(
                "Finished game {} ({red} vs {black}): {} {{{}}}",
                r.job.number,
                r.record.result.as_pgn(),
                r.explanation
            );
            let line = progress_line(cfg, &tally);
            if tty {
                outln!("\x1b[1m{line}\x1b[0m");
            } else {
                outln!("{line}");
            }
            if cfg.sprt.is_some() {
                let state = sprt_state(cfg, &tally);
                if !sprt_done && state != SprtState::Continue {
                    sprt_done = true;
                    outln!(
                        "SPRT: {}",
                        match state {
                            SprtState::H0 => "H0 accepted; stopping",
                            _ => "H1 accepted; stopping",
                        }
                    );
                    stop.store(true, Ordering::SeqCst);
                }
            }
            let _ = std::io::stdout().flush();
        });
    }
    for h in handles {
        let _ = h.join();
    }
    bar.finish_and_clear();
    engine::kill_all();
    out!("{}", final_table(cfg, &tally, started.elapsed()));
    if let Some(e) = error {
        return Err(e);
    }
    if signal::interrupted() {
        outln!(
            "Interrupted after {done} of {} games; every engine process was ended.",
            cfg.total_games()
        );
        return Ok(EXIT_INTERRUPTED);
    }
    Ok(0)
}
