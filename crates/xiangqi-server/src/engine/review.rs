//! Game review in the app: the analysis of `xiangqi_engine::review` (the one `xiangqi analyze`
//! writes) run in the background on the engine pool, one position at a time, so the computer's
//! moves in other games take their turns between them. A review can be followed (progress) and
//! cancelled; a finished one is stored with the game (`reviews` table) and answered as JSON.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use serde::Serialize;
use utoipa::ToSchema;
use xiangqi::notation::Notation;
use xiangqi::{Color, Move, Position};
use xiangqi_engine::review::{self as core, Budget, Eval, Review};

use crate::store::{StoredReview, Write};
use crate::App;

/// The depth a review searches each position to when none is asked for.
pub const DEFAULT_DEPTH: i64 = 10;
/// The deepest review the API takes.
pub const MAX_DEPTH: i64 = 16;
/// The most reviews running at once (each takes turns on the engine pool).
pub const MAX_RUNNING: usize = 4;
/// The longest search of one position in a review, in milliseconds (a deep search of a sharp
/// position must not hold a pool engine long: the computer's moves wait for it).
pub const POSITION_MS: u64 = 3000;

/// An evaluation from Red's point of view, as the API writes it: `{"cp": 35}`,
/// `{"mate": -3}` (Black mates in 3) or `{"over": "red"}` / `{"over": "draw"}` (the game is over
/// there by the rules).
#[derive(Clone, Debug, Serialize, serde::Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum EvalJson {
    Cp(i32),
    Mate(i32),
    Over(String),
}

impl From<Eval> for EvalJson {
    fn from(e: Eval) -> EvalJson {
        match e {
            Eval::Cp(cp) => EvalJson::Cp(cp),
            Eval::Mate(n) => EvalJson::Mate(n),
            Eval::Over(w) => EvalJson::Over(w.map_or("draw", Color::name).to_string()),
        }
    }
}

/// One reviewed move.
#[derive(Clone, Debug, Serialize, serde::Deserialize, ToSchema)]
pub struct ReviewMove {
    /// The move's number in the main line, from 1 (the position after it is `ply`).
    pub ply: usize,
    #[serde(rename = "move")]
    pub mv: String,
    /// `red` or `black`.
    pub mover: String,
    /// The evaluation after the move, from Red's view.
    pub eval: EvalJson,
    /// The same as PGN's `%eval` writes it: `0.35`, `#-3`.
    pub eval_text: String,
    /// Red's chances after the move in percent (0-100, 50 even), by the fitted curve.
    pub red_win: f64,
    /// The mover's accuracy for the move (0-100).
    pub accuracy: f64,
    /// `inaccuracy`, `mistake` or `blunder`; absent for a good move.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// After an inaccuracy, mistake or blunder: the engine's line from the position before
    /// the move (its first move is the better move), in coordinates, WXF and Chinese.
    pub better: Vec<String>,
    pub better_wxf: Vec<String>,
    pub better_chinese: Vec<String>,
}

/// A side's summary.
#[derive(Clone, Debug, Serialize, serde::Deserialize, ToSchema)]
pub struct ReviewSide {
    /// lichess-style game accuracy 0-100 (`null` when the side made no move).
    pub accuracy: Option<f64>,
    pub inaccuracies: u32,
    pub mistakes: u32,
    pub blunders: u32,
}

/// A finished review (docs/REVIEW.md explains the figures).
#[derive(Clone, Debug, Serialize, serde::Deserialize, ToSchema)]
pub struct ReviewJson {
    /// The search depth of every position.
    pub depth: i64,
    /// When it was made (Unix seconds).
    pub created: i64,
    /// The evaluation of the start position (Red's view) and Red's chances there.
    pub start_eval: EvalJson,
    pub start_red_win: f64,
    pub moves: Vec<ReviewMove>,
    pub red: ReviewSide,
    pub black: ReviewSide,
}

fn side_json(s: &core::SideSummary) -> ReviewSide {
    ReviewSide {
        accuracy: s.accuracy.map(|a| (a * 10.0).round() / 10.0),
        inaccuracies: s.inaccuracies,
        mistakes: s.mistakes,
        blunders: s.blunders,
    }
}

fn round1(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

/// The JSON of a review of the game `start` + `moves`.
pub fn review_json(start: &Position, r: &Review, depth: i64, created: i64) -> ReviewJson {
    let mut pos = start.clone();
    let mut moves = Vec::with_capacity(r.moves.len());
    for (i, m) in r.moves.iter().enumerate() {
        let (mut uci, mut wxf, mut zh) = (Vec::new(), Vec::new(), Vec::new());
        let mut p = pos.clone();
        for &b in &m.better {
            if !p.is_legal(b) {
                break;
            }
            uci.push(b.to_string());
            wxf.push(Notation::Wxf.write(&p, b));
            zh.push(Notation::Chinese.write(&p, b));
            p.play_unchecked(b);
        }
        moves.push(ReviewMove {
            ply: i + 1,
            mv: m.mv.to_string(),
            mover: m.mover.name().to_string(),
            eval: m.eval.into(),
            eval_text: m.eval.pgn(),
            red_win: round1(m.eval.win_percent(Color::Red)),
            accuracy: round1(m.accuracy),
            kind: m.kind.map(|k| k.as_str().to_string()),
            better: uci,
            better_wxf: wxf,
            better_chinese: zh,
        });
        pos.play_unchecked(m.mv);
    }
    ReviewJson {
        depth,
        created,
        start_eval: r.start_eval.into(),
        start_red_win: round1(r.start_eval.win_percent(Color::Red)),
        moves,
        red: side_json(r.side(Color::Red)),
        black: side_json(r.side(Color::Black)),
    }
}

/// A review in progress.
struct Job {
    cancel: Arc<AtomicBool>,
    done: Arc<AtomicUsize>,
    total: usize,
    depth: i64,
}

/// How a game's last review attempt ended when it left no stored review.
#[derive(Clone, Debug)]
enum Ended {
    Cancelled,
    Failed(String),
}

/// The reviews running now, and how the last attempt of each game ended.
pub struct Reviews {
    running: Mutex<HashMap<i64, Job>>,
    ended: Mutex<HashMap<i64, Ended>>,
    /// Reviews search on at most this many of the pool's engines at once (one fewer than the
    /// pool has, so the computer's moves always find one).
    slots: tokio::sync::Semaphore,
}

/// Where a game's review stands.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct ReviewStatus {
    /// `none` (never reviewed), `running`, `done`, `cancelled` or `failed`.
    pub state: &'static str,
    /// Positions searched so far, of `total` (moves + 1); while running.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub done: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub depth: Option<i64>,
    /// Why the last review failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The stored review (also while a new one runs, and after a cancelled or failed one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub review: Option<ReviewJson>,
    /// The stored review is of another main line than the game's now (moves were added or
    /// taken back since).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stale: Option<bool>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Why a review cannot start.
#[derive(Debug, PartialEq, Eq)]
pub enum StartError {
    /// Too many reviews are running.
    Busy,
}

impl Reviews {
    /// The reviews of a server whose engine pool has `pool_size` engines.
    pub fn new(pool_size: usize) -> Reviews {
        Reviews {
            running: Default::default(),
            ended: Default::default(),
            slots: tokio::sync::Semaphore::new(pool_size.saturating_sub(1).max(1)),
        }
    }

    fn running_status(&self, id: i64) -> Option<ReviewStatus> {
        let running = lock(&self.running);
        running.get(&id).map(|j| ReviewStatus {
            state: "running",
            done: Some(j.done.load(Ordering::SeqCst)),
            total: Some(j.total),
            depth: Some(j.depth),
            error: None,
            review: None,
            stale: None,
        })
    }

    /// Asks a running review of game `id` to stop; whether one was running.
    pub fn cancel(&self, id: i64) -> bool {
        match lock(&self.running).get(&id) {
            Some(j) => {
                j.cancel.store(true, Ordering::SeqCst);
                true
            }
            None => false,
        }
    }

    /// Reviews running now.
    pub fn running(&self) -> usize {
        lock(&self.running).len()
    }
}

/// The game's review status: a running one's progress, else the stored review (with whether it
/// is of the game's main line now, `moves`), else how the last attempt ended.
pub async fn status(
    app: &App,
    id: i64,
    moves: &[Move],
) -> Result<ReviewStatus, crate::store::StoreError> {
    let stored = app.store.load_review(id).await?;
    let mut s = app.reviews.running_status(id).unwrap_or(ReviewStatus {
        state: "none",
        done: None,
        total: None,
        depth: None,
        error: None,
        review: None,
        stale: None,
    });
    if s.state != "running" {
        if let Some(e) = lock(&app.reviews.ended).get(&id) {
            match e {
                Ended::Cancelled => s.state = "cancelled",
                Ended::Failed(why) => {
                    s.state = "failed";
                    s.error = Some(why.clone());
                }
            }
        } else if stored.is_some() {
            s.state = "done";
        }
    }
    if let Some(r) = stored {
        let line = moves_text(moves);
        s.stale = Some(r.moves != line);
        s.depth = s.depth.or(Some(r.depth));
        // A stored value the server did not write (a damaged file) is left out, not an error.
        s.review = serde_json::from_str::<ReviewJson>(&r.data).ok();
    }
    Ok(s)
}

fn moves_text(moves: &[Move]) -> String {
    moves
        .iter()
        .map(|m| m.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Starts reviewing game `id` (its start and main line now) to `depth`, unless a review of it
/// is running already (then nothing changes). Answers at once; the work goes on in the
/// background.
pub fn start(
    app: &Arc<App>,
    id: i64,
    start: Position,
    moves: Vec<Move>,
    depth: i64,
) -> Result<(), StartError> {
    let cancel = Arc::new(AtomicBool::new(false));
    let done = Arc::new(AtomicUsize::new(0));
    {
        let mut running = lock(&app.reviews.running);
        if running.contains_key(&id) {
            return Ok(());
        }
        if running.len() >= MAX_RUNNING {
            return Err(StartError::Busy);
        }
        running.insert(
            id,
            Job {
                cancel: cancel.clone(),
                done: done.clone(),
                total: moves.len() + 1,
                depth,
            },
        );
    }
    lock(&app.reviews.ended).remove(&id);
    let app = app.clone();
    tokio::spawn(async move {
        let r = run(&app, id, start, moves, depth, &cancel, &done).await;
        let mut ended = lock(&app.reviews.ended);
        match r {
            Ok(true) => {
                ended.remove(&id);
            }
            Ok(false) => {
                ended.insert(id, Ended::Cancelled);
            }
            Err(e) => {
                ended.insert(id, Ended::Failed(e));
            }
        }
        lock(&app.reviews.running).remove(&id);
    });
    Ok(())
}

/// The review's work: each position on the pool (as a search of game `-id`, so the game's
/// own engine for the computer's moves keeps its table), then the result stored. `Ok(false)`
/// when cancelled.
async fn run(
    app: &App,
    id: i64,
    start: Position,
    moves: Vec<Move>,
    depth: i64,
    cancel: &AtomicBool,
    done: &AtomicUsize,
) -> Result<bool, String> {
    let start = Arc::new(start);
    let moves = Arc::new(moves);
    let budget = Budget::DepthWithin(depth as i32, POSITION_MS);
    let mut evals = Vec::with_capacity(moves.len() + 1);
    for ply in 0..=moves.len() {
        if cancel.load(Ordering::SeqCst) {
            return Ok(false);
        }
        let (s, m) = (start.clone(), moves.clone());
        let _slot = app
            .reviews
            .slots
            .acquire()
            .await
            .map_err(|_| "the server is shutting down".to_string())?;
        let e = app
            .engines
            .run(-id, move |engine| {
                core::prepare(engine)?;
                core::analyse_position(engine, &s, &m, ply, budget)
            })
            .await
            .map_err(|e| e.to_string())??;
        evals.push(e);
        done.store(ply + 1, Ordering::SeqCst);
    }
    if cancel.load(Ordering::SeqCst) {
        return Ok(false);
    }
    let review = core::assemble(&start, &moves, &evals);
    let created = crate::store::now();
    let json = review_json(&start, &review, depth, created);
    let data = serde_json::to_string(&json).map_err(|e| e.to_string())?;
    app.store
        .write(Write::SaveReview(StoredReview {
            game_id: id,
            moves: moves_text(&moves),
            depth,
            created,
            data,
        }))
        .await
        .map_err(|e| format!("the review could not be stored: {e}"))?;
    Ok(true)
}
