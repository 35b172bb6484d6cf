//! One game between two engine processes, refereed move by move.

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use xiangqi::{Color, Game, Move, Outcome, Reason, Rules};
use xiangqi_record::{GameRecord, GameResult, MoveNode};

use crate::cli::{DrawAdj, EngineSpec, Limit, ResignAdj};
use crate::engine::{EngineProc, Failure, Reply};
use crate::openings::Opening;

/// How a game ended, beyond the rules' own reasons.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ending {
    /// By the rules (`Game::outcome()`): checkmate, stalemate, perpetual check or chase,
    /// repetition, move limit, insufficient material.
    Rule(Outcome),
    /// The loser's clock ran out (or it exceeded a fixed move time).
    Time(Color),
    /// The loser sent an illegal or unreadable move.
    IllegalMove(Color),
    /// The loser's engine crashed, or could not start or answer the handshake.
    Crash(Color),
    /// The loser's engine did not answer within the hang limit.
    Hang(Color),
    /// Adjudicated from the engines' scores: the winner, or `None` for a draw.
    Adjudication(Option<Color>),
    /// The game was stopped (interrupt, SPRT finished); it does not count.
    Aborted,
}

impl Ending {
    /// The winner (`None`: a draw or aborted).
    pub fn winner(&self) -> Option<Color> {
        match *self {
            Ending::Rule(o) => o.winner,
            Ending::Time(c) | Ending::IllegalMove(c) | Ending::Crash(c) | Ending::Hang(c) => {
                Some(!c)
            }
            Ending::Adjudication(w) => w,
            Ending::Aborted => None,
        }
    }
    pub fn result(&self) -> GameResult {
        match (self, self.winner()) {
            (Ending::Aborted, _) => GameResult::Unknown,
            (_, Some(Color::Red)) => GameResult::RedWins,
            (_, Some(Color::Black)) => GameResult::BlackWins,
            (_, None) => GameResult::Draw,
        }
    }
    /// The PGN `Termination` tag value.
    pub fn termination_tag(&self) -> &'static str {
        match self {
            Ending::Rule(_) => "normal",
            Ending::Time(_) | Ending::Hang(_) => "time forfeit",
            Ending::IllegalMove(_) => "illegal move",
            Ending::Crash(_) => "abandoned",
            Ending::Adjudication(_) => "adjudication",
            Ending::Aborted => "unterminated",
        }
    }
    /// A short key for counting endings: `checkmate`, `perpetual-chase`, `time`, `illegal-move` ...
    pub fn key(&self) -> String {
        match self {
            Ending::Rule(o) => o.reason.as_str().to_string(),
            Ending::Time(_) => Reason::Time.as_str().into(),
            Ending::IllegalMove(_) => "illegal-move".into(),
            Ending::Crash(_) => "crash".into(),
            Ending::Hang(_) => "hang".into(),
            Ending::Adjudication(Some(_)) => "adjudication-resign".into(),
            Ending::Adjudication(None) => "adjudication-draw".into(),
            Ending::Aborted => "aborted".into(),
        }
    }
}

/// A game to play.
#[derive(Clone, Debug)]
pub struct GameJob {
    /// 1-based game number.
    pub number: u64,
    /// 1-based round (opening pair with -repeat).
    pub round: u64,
    pub opening: Opening,
    /// Which engine (0 or 1 of the match) plays Red.
    pub red: usize,
}

/// What a game came to.
#[derive(Clone, Debug)]
pub struct GameReport {
    pub job: GameJob,
    pub ending: Ending,
    /// The account of the ending in words.
    pub explanation: String,
    pub record: GameRecord,
    /// Plies played by the engines (book moves excluded).
    pub plies: usize,
    /// A failure to start an engine at all (a configuration error: the match stops).
    pub fatal: Option<String>,
}

/// Settings shared by all games.
pub struct GameSettings<'a> {
    pub engines: [Arc<EngineSpec>; 2],
    pub rules: Rules,
    pub draw: Option<DrawAdj>,
    pub resign: Option<ResignAdj>,
    /// Where engine logs go (`-log DIR`), if anywhere.
    pub logdir: Option<&'a Path>,
    pub debug: bool,
    pub event: &'a str,
    pub stop: Arc<AtomicBool>,
}

fn cap(c: Color) -> &'static str {
    match c {
        Color::Red => "Red",
        Color::Black => "Black",
    }
}

/// A clock of one side.
#[derive(Clone, Copy, Debug)]
struct Clock {
    remaining_ms: i64,
    /// Moves made in the current period (for MOVES/SECONDS controls).
    made: u32,
}

fn format_score(r: &Reply) -> Option<String> {
    let s = match (r.mate, r.score) {
        (Some(m), _) if m > 0 => format!("+M{m}"),
        (Some(m), _) => format!("-M{}", -m),
        (None, Some(cp)) => format!("{:+.2}", cp as f64 / 100.0),
        (None, None) => return None,
    };
    Some(match r.depth {
        Some(d) => format!("{s}/{d}"),
        None => s,
    })
}

/// Today's date as `YYYY.MM.DD` (UTC).
pub fn pgn_date() -> String {
    xiangqi_record::date::pgn_today()
}

/// Plays one game.
pub fn play(job: GameJob, s: &GameSettings) -> GameReport {
    let colors = [Color::Red, Color::Black];
    // Engine index of each colour.
    let idx = |c: Color| {
        if c == Color::Red {
            job.red
        } else {
            1 - job.red
        }
    };
    let specs = [
        s.engines[idx(Color::Red)].clone(),
        s.engines[idx(Color::Black)].clone(),
    ];

    let mut game = Game::with_rules(job.opening.start.clone(), s.rules);
    let mut nodes: Vec<MoveNode> = Vec::new();
    for &m in &job.opening.moves {
        game.push_unchecked(m);
        let mut n = MoveNode::new(m);
        n.comment = Some("book".into());
        nodes.push(n);
    }
    let book = nodes.len();
    let mut clocks = [Clock {
        remaining_ms: 0,
        made: 0,
    }; 2];
    for c in colors {
        if let Some(Limit::Clock { base_ms, .. }) = specs[c.index()].limit {
            clocks[c.index()].remaining_ms = base_ms as i64;
        }
    }

    let mut ending: Option<(Ending, String)> = None;
    let mut fatal = None;

    // Start both engines.
    let mut procs: Vec<Option<EngineProc>> = vec![None, None];
    for c in colors {
        if ending.is_some() {
            break;
        }
        let tag = format!("game {} ({})", job.number, cap(c));
        match EngineProc::start(
            specs[c.index()].clone(),
            s.logdir,
            s.debug,
            &tag,
            s.stop.clone(),
        ) {
            Ok(mut p) => match p.init() {
                Ok(()) => procs[c.index()] = Some(p),
                Err(Failure::Interrupted) => {
                    ending = Some((Ending::Aborted, "The match was stopped.".into()))
                }
                Err(f) => {
                    let e = match f {
                        Failure::Timeout { .. } => Ending::Hang(c),
                        _ => Ending::Crash(c),
                    };
                    ending = Some((
                        e,
                        format!(
                            "{} wins: {}'s engine {} {f} at start-up.",
                            cap(!c),
                            cap(c),
                            specs[c.index()].name
                        ),
                    ));
                }
            },
            Err(f) => {
                fatal = Some(format!("engine {}: {f}", specs[c.index()].name));
                ending = Some((Ending::Aborted, format!("{f}")));
            }
        }
    }

    // Consecutive own moves with a losing / winning score, per colour; consecutive plies
    // with a drawish score.
    let mut losing = [0u32; 2];
    let mut winning = [0u32; 2];
    let mut drawish = 0u32;

    while ending.is_none() {
        if let Some(o) = game.outcome() {
            let text = game
                .ruling()
                .map(|r| r.to_string())
                .unwrap_or_else(|| o.to_string());
            ending = Some((Ending::Rule(o), text));
            break;
        }
        let pos = game.position().clone();
        let side = pos.turn();
        let si = side.index();
        let spec = specs[si].clone();
        let p = procs[si].as_mut().expect("started");
        let limit = spec.limit.expect("checked by the parser");
        let margin = spec.timemargin_ms;
        let (go, wait_ms, what) = match limit {
            Limit::Clock { moves, .. } => {
                let rt = clocks[0].remaining_ms.max(1) as u64;
                let bt = clocks[1].remaining_ms.max(1) as u64;
                let incs = |c: Color| match specs[c.index()].limit {
                    Some(Limit::Clock { inc_ms, .. }) => inc_ms,
                    _ => 0,
                };
                let mtg = moves.map(|m| m - clocks[si].made % m);
                let go = p.go_clock(side, [rt, bt], [incs(Color::Red), incs(Color::Black)], mtg);
                let own = clocks[si].remaining_ms.max(0) as u64;
                (go, own + margin + 1, "move in time")
            }
            Limit::Nodes(n) => (
                format!("go nodes {n}"),
                spec.timeout_ms,
                "reply with a move",
            ),
            Limit::Depth(d) => (
                format!("go depth {d}"),
                spec.timeout_ms,
                "reply with a move",
            ),
            Limit::MoveTime(ms) => {
                let go = p.go_movetime(ms);
                (go, ms + margin + 1, "move within its move time")
            }
        };
        let reply = p.think(game.start(), &game.moves(), &go, wait_ms, what);
        let name = &spec.name;
        let reply = match reply {
            Ok(r) => r,
            Err(Failure::Interrupted) => {
                ending = Some((Ending::Aborted, "The match was stopped.".into()));
                break;
            }
            Err(f @ Failure::Timeout { .. }) => {
                let (e, text) = match limit {
                    Limit::Clock { .. } => (
                        Ending::Time(side),
                        format!(
                            "{} wins on time: {}'s engine {name} did not move before its time ran out ({} ms on its clock{}).",
                            cap(!side),
                            cap(side),
                            clocks[si].remaining_ms.max(0),
                            if margin > 0 { format!(" + {margin} ms margin") } else { String::new() }
                        ),
                    ),
                    Limit::MoveTime(_) => (
                        Ending::Time(side),
                        format!("{} wins on time: {}'s engine {name} {f}.", cap(!side), cap(side)),
                    ),
                    _ => (
                        Ending::Hang(side),
                        format!("{} wins: {}'s engine {name} {f}.", cap(!side), cap(side)),
                    ),
                };
                ending = Some((e, text));
                break;
            }
            Err(f) => {
                let text = format!("{} wins: {}'s engine {name} {f}.", cap(!side), cap(side));
                ending = Some((Ending::Crash(side), text));
                break;
            }
        };
        // The clock first: a move made after the flag fell does not count.
        let mut time_loss = None;
        match limit {
            Limit::Clock {
                moves,
                base_ms,
                inc_ms,
            } => {
                let c = &mut clocks[si];
                c.remaining_ms -= reply.elapsed_ms as i64;
                if c.remaining_ms < -(margin as i64) {
                    time_loss = Some(format!(
                        "{} wins on time: {}'s engine {name} used {} ms with {} ms left on its clock.",
                        cap(!side),
                        cap(side),
                        reply.elapsed_ms,
                        c.remaining_ms + reply.elapsed_ms as i64
                    ));
                }
                c.remaining_ms += inc_ms as i64;
                c.made += 1;
                if let Some(m) = moves {
                    if c.made % m == 0 {
                        c.remaining_ms += base_ms as i64;
                    }
                }
            }
            Limit::MoveTime(ms) if reply.elapsed_ms > ms + margin => {
                time_loss = Some(format!(
                    "{} wins on time: {}'s engine {name} took {} ms for a move with {ms} ms allowed.",
                    cap(!side),
                    cap(side),
                    reply.elapsed_ms
                ));
            }
            _ => {}
        }
        if let Some(text) = time_loss {
            ending = Some((Ending::Time(side), text));
            break;
        }
        let Some(text) = reply.mv.clone() else {
            let n = pos.legal_moves().len();
            ending = Some((
                Ending::IllegalMove(side),
                format!(
                    "{} wins: {}'s engine {name} claimed to have no move, but {} has {n} legal moves.",
                    cap(!side),
                    cap(side),
                    cap(side)
                ),
            ));
            break;
        };
        let m: Move = match p
            .parse_move(&text)
            .and_then(|u| u.to_move(&pos).map_err(|e| e.to_string()))
        {
            Ok(m) => m,
            Err(e) => {
                ending = Some((
                    Ending::IllegalMove(side),
                    format!(
                        "{} wins: {}'s engine {name} made an illegal move in {}: {e}.",
                        cap(!side),
                        cap(side),
                        pos.fen()
                    ),
                ));
                break;
            }
        };
        game.push_unchecked(m);
        let mut node = MoveNode::new(m);
        let mut comment = format_score(&reply)
            .map(|s| format!("{s} "))
            .unwrap_or_default();
        comment.push_str(&format!("{:.3}s", reply.elapsed_ms as f64 / 1000.0));
        node.comment = Some(comment);
        nodes.push(node);

        // Adjudication from the scores (the rules come first).
        if game.outcome().is_some() {
            continue;
        }
        match reply.score {
            Some(sc) => {
                if let Some(r) = s.resign {
                    losing[si] = if sc <= -r.score { losing[si] + 1 } else { 0 };
                    winning[si] = if sc >= r.score { winning[si] + 1 } else { 0 };
                    let other = 1 - si;
                    let agreed = !r.twosided || winning[other] >= r.movecount;
                    if losing[si] >= r.movecount && agreed {
                        ending = Some((
                            Ending::Adjudication(Some(!side)),
                            format!(
                                "{} wins by adjudication: {}'s engine {name} scored -{} cp or worse on {} moves in a row.",
                                cap(!side),
                                cap(side),
                                r.score,
                                r.movecount
                            ),
                        ));
                        break;
                    }
                }
                if let Some(d) = s.draw {
                    drawish = if sc.abs() <= d.score { drawish + 1 } else { 0 };
                    if drawish >= 2 * d.movecount && pos.fullmoves() >= d.movenumber {
                        ending = Some((
                            Ending::Adjudication(None),
                            format!(
                                "Draw by adjudication: both engines scored within ±{} cp for {} moves each.",
                                d.score, d.movecount
                            ),
                        ));
                        break;
                    }
                }
            }
            None => {
                losing[si] = 0;
                winning[si] = 0;
                drawish = 0;
            }
        }
    }

    let (ending, explanation) = ending.expect("set when the loop ends");
    // End the engines before building the record (they are killed on drop anyway).
    for p in procs.iter_mut() {
        if let Some(p) = p.take() {
            if ending == Ending::Aborted {
                drop(p);
            } else {
                p.quit();
            }
        }
    }

    let mut record = GameRecord {
        start: job.opening.start.clone(),
        ..GameRecord::default()
    };
    record.set_tag("Event", s.event);
    record.set_tag("Site", "?");
    record.set_tag("Date", pgn_date());
    record.set_tag("Round", job.round.to_string());
    record.set_tag("Red", specs[0].name.clone());
    record.set_tag("Black", specs[1].name.clone());
    let tc = |c: Color| {
        specs[c.index()]
            .limit
            .map(|l| l.to_string())
            .unwrap_or_default()
    };
    if tc(Color::Red) == tc(Color::Black) {
        record.set_tag("TimeControl", tc(Color::Red));
    } else {
        record.set_tag("RedTimeControl", tc(Color::Red));
        record.set_tag("BlackTimeControl", tc(Color::Black));
    }
    if let Some(l) = &job.opening.label {
        record.set_tag("Opening", l.clone());
    }
    record.set_tag("PlyCount", nodes.len().to_string());
    record.set_tag("Termination", ending.termination_tag());
    record.set_tag("TerminationDetails", explanation.clone());
    record.result = ending.result();
    // The account of the ending follows the last move (or opens the game if none was made).
    let engine_moved = nodes.len() > book;
    match nodes.last_mut() {
        Some(n) if engine_moved => {
            let c = n.comment.take().unwrap_or_default();
            n.comment = Some(if c.is_empty() {
                explanation.clone()
            } else {
                format!("{c}, {explanation}")
            });
        }
        _ => record.comment = Some(explanation.clone()),
    }
    let plies = nodes.len() - book;
    record.moves = nodes;
    GameReport {
        job,
        ending,
        explanation,
        record,
        plies,
        fatal,
    }
}
