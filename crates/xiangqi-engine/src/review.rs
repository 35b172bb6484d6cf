//! Game review: every position of a game searched, the evaluation from Red's point of view, the
//! chances of winning from a curve fitted to our own engine games, each move judged by the
//! winning chances it lost (inaccuracy, mistake, blunder, in lichess's manner), the engine's
//! better move after each, and an accuracy figure per side. `xiangqi analyze` and the server's
//! Review both use this module; docs/REVIEW.md documents the curve, the thresholds and the
//! accuracy formula.
//!
//! The work is split so that a caller can schedule it: [`analyse_position`] searches one
//! position (the server runs each on its engine pool), [`assemble`] judges the whole game from
//! the positions' evaluations, and [`review_game`] does both in a loop for the command line.

use xiangqi::game::{Game, Rules};
use xiangqi::{Color, Move, Position};

use crate::search::Score;
use crate::tt::Bound;
use crate::{Engine, Event, Limits};

/// The slope of the fitted win-probability curve: Red's expected score in a position is
/// `1 / (1 + exp(-K * cp))` with `cp` the evaluation in centipawns from Red's view
/// (docs/REVIEW.md: fitted on positions of our own engine games).
pub const WIN_K: f64 = 0.00228;

/// Evaluations beyond this many centipawns count as this many (lichess caps at 1000 too):
/// the chances hardly change there, and a mate counts as this.
pub const CP_CAP: i32 = 1000;

/// An evaluation from Red's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Eval {
    /// Centipawns, positive when Red is better.
    Cp(i32),
    /// Mate in this many moves: positive when Red mates, negative when Black does.
    Mate(i32),
    /// The game is over in this position: the winner, or `None` for a draw by rule.
    Over(Option<Color>),
}

impl Eval {
    /// From a search's score (the side to move's view) in a position with `turn` to move.
    pub fn from_score(score: Score, turn: Color) -> Eval {
        let sign = if turn == Color::Red { 1 } else { -1 };
        match score {
            Score::Cp(cp) => Eval::Cp(cp * sign),
            Score::Mate(n) => Eval::Mate(n * sign),
        }
    }

    /// Red's expected score (win 1, draw 1/2, loss 0) by the fitted curve.
    pub fn red_expectation(self) -> f64 {
        let cp = match self {
            Eval::Cp(cp) => cp.clamp(-CP_CAP, CP_CAP),
            Eval::Mate(n) if n > 0 => CP_CAP,
            Eval::Mate(_) => -CP_CAP,
            Eval::Over(Some(Color::Red)) => return 1.0,
            Eval::Over(Some(Color::Black)) => return 0.0,
            Eval::Over(None) => return 0.5,
        };
        1.0 / (1.0 + (-WIN_K * cp as f64).exp())
    }

    /// Winning chances of `side` in percent (0-100; 50 is even), as lichess's "win%".
    pub fn win_percent(self, side: Color) -> f64 {
        let e = self.red_expectation();
        100.0 * if side == Color::Red { e } else { 1.0 - e }
    }

    /// The PGN `%eval` value: `0.35`, `-1.20`, `#3`, `#-3`; a finished game is `#0` (Red has
    /// won), `#-0` (Black has won) or `0.00` (a draw by rule).
    pub fn pgn(self) -> String {
        match self {
            Eval::Cp(cp) => format!("{:.2}", cp as f64 / 100.0),
            Eval::Mate(n) => format!("#{n}"),
            Eval::Over(Some(Color::Red)) => "#0".into(),
            Eval::Over(Some(Color::Black)) => "#-0".into(),
            Eval::Over(None) => "0.00".into(),
        }
    }
}

/// What the search found in one position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PositionEval {
    pub eval: Eval,
    /// The engine's best move and line (empty when the game is over there).
    pub pv: Vec<Move>,
    pub depth: i32,
    pub nodes: u64,
    /// When the game's move from this position was not the engine's best: the evaluation of
    /// that move by a search of this position limited to it (same budget, same root), which
    /// the move is judged by (a search of the next position on its own would differ by the
    /// noise between two roots and depths' parity).
    pub played: Option<Eval>,
}

/// How bad a move was, by the winning chances it lost.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    Inaccuracy,
    Mistake,
    Blunder,
}

impl Kind {
    pub const ALL: [Kind; 3] = [Kind::Inaccuracy, Kind::Mistake, Kind::Blunder];

    /// The least loss of winning chances, in percentage points of win% (lichess: 0.1, 0.2
    /// and 0.3 of its -1..1 winning chances, which are 5, 10 and 15 points of win%).
    pub const fn threshold(self) -> f64 {
        match self {
            Kind::Inaccuracy => 5.0,
            Kind::Mistake => 10.0,
            Kind::Blunder => 15.0,
        }
    }

    /// The PGN numeric annotation glyph: `$6` (?!), `$2` (?), `$4` (??).
    pub const fn nag(self) -> u8 {
        match self {
            Kind::Inaccuracy => 6,
            Kind::Mistake => 2,
            Kind::Blunder => 4,
        }
    }

    pub const fn glyph(self) -> &'static str {
        match self {
            Kind::Inaccuracy => "?!",
            Kind::Mistake => "?",
            Kind::Blunder => "??",
        }
    }

    pub const fn as_str(self) -> &'static str {
        match self {
            Kind::Inaccuracy => "inaccuracy",
            Kind::Mistake => "mistake",
            Kind::Blunder => "blunder",
        }
    }

    /// The kind of a loss of `loss` points of win%, or `None` below the least threshold.
    pub fn of_loss(loss: f64) -> Option<Kind> {
        Kind::ALL.into_iter().rev().find(|k| loss >= k.threshold())
    }
}

/// One move of the game, judged.
#[derive(Clone, Debug, PartialEq)]
pub struct MoveReview {
    pub mv: Move,
    pub mover: Color,
    /// The evaluation after the move (Red's view).
    pub eval: Eval,
    /// The mover's win% before the move and after it (by the move's own evaluation from the
    /// position before, [`PositionEval::played`], when it was not the engine's best).
    pub win_before: f64,
    pub win_after: f64,
    /// The mover's accuracy for this move, 0-100.
    pub accuracy: f64,
    pub kind: Option<Kind>,
    /// The engine's line from the position before the move, when the move was an inaccuracy,
    /// a mistake or a blunder and the engine preferred another move (its first move).
    pub better: Vec<Move>,
}

/// What a side did over the game.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SideSummary {
    /// Accuracy 0-100 (lichess's game accuracy; `None` when the side made no move).
    pub accuracy: Option<f64>,
    pub inaccuracies: u32,
    pub mistakes: u32,
    pub blunders: u32,
}

impl SideSummary {
    pub fn count(&self, k: Kind) -> u32 {
        match k {
            Kind::Inaccuracy => self.inaccuracies,
            Kind::Mistake => self.mistakes,
            Kind::Blunder => self.blunders,
        }
    }
}

/// A reviewed game.
#[derive(Clone, Debug, PartialEq)]
pub struct Review {
    /// The evaluation of the start position (Red's view).
    pub start_eval: Eval,
    pub moves: Vec<MoveReview>,
    /// Red's and Black's summaries (index by `Color as usize`: Red 0, Black 1).
    pub sides: [SideSummary; 2],
}

impl Review {
    pub fn side(&self, c: Color) -> &SideSummary {
        &self.sides[if c == Color::Red { 0 } else { 1 }]
    }
}

/// How long each position is searched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Budget {
    Nodes(u64),
    Depth(i32),
    MoveTime(u64),
    /// To a depth, but for at most this many milliseconds a search (the server's bound).
    DepthWithin(i32, u64),
}

impl Budget {
    fn limits(self) -> Limits {
        match self {
            Budget::Nodes(n) => Limits::nodes(n),
            Budget::Depth(d) => Limits::depth(d),
            Budget::MoveTime(ms) => Limits::movetime(ms),
            Budget::DepthWithin(d, ms) => Limits {
                depth: Some(d),
                movetime: Some(ms),
                ..Limits::default()
            },
        }
    }
}

/// Sets the engine for review: full strength, one line. (Threads and hash are the caller's.)
pub fn prepare(engine: &mut Engine) -> Result<(), String> {
    engine.set_option("UCI_LimitStrength", "false")?;
    engine.set_option("Skill Level", "20")?;
    engine.set_option("MultiPV", "1")
}

/// The game of `start` and `moves` under the default rules; the error names the first illegal
/// move by its number (1-based ply).
pub fn replay(start: &Position, moves: &[Move]) -> Result<Game, String> {
    let mut game = Game::with_rules(start.clone(), Rules::default());
    for (i, &m) in moves.iter().enumerate() {
        if game.push(m).is_err() {
            return Err(format!(
                "move {} ({m}) is illegal in {}",
                i + 1,
                game.position().fen()
            ));
        }
    }
    Ok(game)
}

/// Searches the position after the first `ply` moves of the game (`moves` all of its moves,
/// legal). A position where the game is over by the rules (no legal move; at the last ply, an
/// ending by rule such as a repetition ruling) is not searched. The engine must have been
/// [`prepare`]d.
pub fn analyse_position(
    engine: &mut Engine,
    start: &Position,
    moves: &[Move],
    ply: usize,
    budget: Budget,
) -> Result<PositionEval, String> {
    let game = replay(start, &moves[..ply])?;
    let pos = game.position();
    let over = |winner| PositionEval {
        eval: Eval::Over(winner),
        pv: Vec::new(),
        depth: 0,
        nodes: 0,
        played: None,
    };
    if pos.has_no_legal_move() {
        return Ok(over(Some(!pos.turn())));
    }
    if ply == moves.len() {
        if let Some(o) = game.outcome() {
            return Ok(over(o.winner));
        }
    }
    engine
        .set_position(start.clone(), &moves[..ply])
        .map_err(|e| e.0)?;
    let (best, score, mut pv, depth, mut nodes) = search(engine, budget.limits());
    if let Some(b) = best {
        if pv.first() != Some(&b) {
            pv = vec![b];
        }
    }
    let mut played = None;
    if let Some(&m) = moves.get(ply) {
        if best != Some(m) {
            let limits = Limits {
                searchmoves: vec![m],
                ..budget.limits()
            };
            let (_, s, _, _, n) = search(engine, limits);
            played = Some(Eval::from_score(s, pos.turn()));
            nodes += n;
        }
    }
    Ok(PositionEval {
        eval: Eval::from_score(score, pos.turn()),
        pv,
        depth,
        nodes,
        played,
    })
}

/// One search: the best move, the last exact score of the first line (an aspiration
/// window's bound only says which side of it the score is), its line, depth and the nodes.
fn search(engine: &mut Engine, limits: Limits) -> (Option<Move>, Score, Vec<Move>, i32, u64) {
    let (best, events) = engine.search(limits);
    let infos: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            Event::Info(i) if i.multipv <= 1 => Some(i),
            _ => None,
        })
        .collect();
    let info = infos
        .iter()
        .rev()
        .find(|i| i.bound.is_none_or(|b| b == Bound::Exact))
        .or(infos.last());
    let nodes = infos.last().map_or(0, |i| i.nodes);
    match info {
        Some(i) => (best, i.score, i.pv.clone(), i.depth, nodes),
        None => (best, Score::Cp(0), Vec::new(), 0, nodes),
    }
}

/// lichess's accuracy of one move from the mover's win% before and after it: 100 when nothing
/// was lost, falling exponentially with the loss (`103.1668 e^(-0.04354 loss) - 3.1669`, plus
/// 1 for the search's uncertainty), within 0-100.
pub fn move_accuracy(win_before: f64, win_after: f64) -> f64 {
    if win_after >= win_before {
        return 100.0;
    }
    let raw = 103.1668100711649 * (-0.04354415386753951 * (win_before - win_after)).exp()
        - 3.166924740191411;
    (raw + 1.0).clamp(0.0, 100.0)
}

fn std_dev(xs: &[f64]) -> f64 {
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    (xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n).sqrt()
}

/// lichess's game accuracy of each side: the mean of (a) the moves' accuracies weighted by the
/// volatility of the position (the standard deviation of Red's win% over a window of
/// positions around the move, within 0.5-12) and (b) their harmonic mean.
fn game_accuracy(red_wins: &[f64], moves: &[MoveReview]) -> [Option<f64>; 2] {
    // red_wins: Red's win% of the start and after each move (moves.len() + 1 values).
    let window = (red_wins.len() / 10).clamp(2, 8);
    let weights: Vec<f64> = (0..moves.len())
        .map(|i| {
            // The window ending at the position after move i (the first ones share the first
            // window, as lichess does).
            let end = (i + 2).max(window).min(red_wins.len());
            let begin = end.saturating_sub(window);
            std_dev(&red_wins[begin..end]).clamp(0.5, 12.0)
        })
        .collect();
    let mut out = [None, None];
    for (k, side) in [Color::Red, Color::Black].into_iter().enumerate() {
        let mine: Vec<(f64, f64)> = moves
            .iter()
            .zip(&weights)
            .filter(|(m, _)| m.mover == side)
            .map(|(m, &w)| (m.accuracy, w))
            .collect();
        if mine.is_empty() {
            continue;
        }
        let wsum: f64 = mine.iter().map(|(_, w)| w).sum();
        let weighted = mine.iter().map(|(a, w)| a * w).sum::<f64>() / wsum;
        let harmonic = mine.len() as f64 / mine.iter().map(|(a, _)| 1.0 / a.max(0.5)).sum::<f64>();
        out[k] = Some((weighted + harmonic) / 2.0);
    }
    out
}

/// Judges the game from its positions' evaluations (`evals[i]` after `i` moves: one more than
/// the moves).
pub fn assemble(start: &Position, moves: &[Move], evals: &[PositionEval]) -> Review {
    assert_eq!(evals.len(), moves.len() + 1, "one evaluation per position");
    let mut pos = start.clone();
    let mut out = Vec::with_capacity(moves.len());
    let mut sides: [SideSummary; 2] = Default::default();
    for (i, &mv) in moves.iter().enumerate() {
        let mover = pos.turn();
        let before = evals[i].eval;
        let after = evals[i + 1].eval;
        let win_before = before.win_percent(mover);
        // The move is judged by its own evaluation from the position before it (a finished
        // game's end counts as it is).
        let judged = match (after, evals[i].played) {
            (Eval::Over(_), _) | (_, None) => after,
            (_, Some(p)) => p,
        };
        let win_after = judged.win_percent(mover);
        let best = evals[i].pv.first().copied();
        // The engine's own move loses nothing (its search of the next position may differ by
        // noise, which is no fault of the mover).
        let played_best = best == Some(mv);
        let loss = if played_best {
            0.0
        } else {
            win_before - win_after
        };
        let kind = Kind::of_loss(loss);
        let better = match (kind, best) {
            (Some(_), Some(_)) => evals[i].pv.iter().copied().take(10).collect(),
            _ => Vec::new(),
        };
        let accuracy = if played_best {
            100.0
        } else {
            move_accuracy(win_before, win_after)
        };
        if let Some(k) = kind {
            let s = &mut sides[if mover == Color::Red { 0 } else { 1 }];
            match k {
                Kind::Inaccuracy => s.inaccuracies += 1,
                Kind::Mistake => s.mistakes += 1,
                Kind::Blunder => s.blunders += 1,
            }
        }
        out.push(MoveReview {
            mv,
            mover,
            eval: after,
            win_before,
            win_after,
            accuracy,
            kind,
            better,
        });
        pos.play_unchecked(mv);
    }
    let red_wins: Vec<f64> = evals
        .iter()
        .map(|e| e.eval.win_percent(Color::Red))
        .collect();
    let acc = game_accuracy(&red_wins, &out);
    sides[0].accuracy = acc[0];
    sides[1].accuracy = acc[1];
    Review {
        start_eval: evals[0].eval,
        moves: out,
        sides,
    }
}

/// Reviews a whole game with one engine ([`prepare`]d here). `progress(done, total)` is called
/// after each position (total: moves + 1); when it answers `false` the review stops with
/// `Ok(None)`.
pub fn review_game(
    engine: &mut Engine,
    start: &Position,
    moves: &[Move],
    budget: Budget,
    progress: &mut dyn FnMut(usize, usize) -> bool,
) -> Result<Option<Review>, String> {
    replay(start, moves)?;
    prepare(engine)?;
    let total = moves.len() + 1;
    let mut evals = Vec::with_capacity(total);
    for ply in 0..total {
        evals.push(analyse_position(engine, start, moves, ply, budget)?);
        if !progress(ply + 1, total) {
            return Ok(None);
        }
    }
    Ok(Some(assemble(start, moves, &evals)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn moves(pos: &Position, uci: &[&str]) -> Vec<Move> {
        let mut p = pos.clone();
        uci.iter()
            .map(|u| {
                let m = p.parse_uci(u).unwrap();
                p.play_unchecked(m);
                m
            })
            .collect()
    }

    #[test]
    fn the_curve_and_the_kinds() {
        assert!((Eval::Cp(0).red_expectation() - 0.5).abs() < 1e-12);
        assert!(Eval::Cp(300).win_percent(Color::Red) > 60.0);
        assert!(
            (Eval::Cp(300).win_percent(Color::Black) + Eval::Cp(300).win_percent(Color::Red)
                - 100.0)
                .abs()
                < 1e-9
        );
        assert_eq!(
            Eval::Mate(3).red_expectation(),
            Eval::Cp(5000).red_expectation()
        );
        assert_eq!(Kind::of_loss(4.9), None);
        assert_eq!(Kind::of_loss(5.0), Some(Kind::Inaccuracy));
        assert_eq!(Kind::of_loss(12.0), Some(Kind::Mistake));
        assert_eq!(Kind::of_loss(40.0), Some(Kind::Blunder));
        assert_eq!(move_accuracy(60.0, 70.0), 100.0);
        assert!(move_accuracy(60.0, 59.0) > 95.0);
        assert!(move_accuracy(80.0, 20.0) < 10.0);
        assert_eq!(Eval::Cp(35).pgn(), "0.35");
        assert_eq!(Eval::Cp(-120).pgn(), "-1.20");
        assert_eq!(Eval::Mate(-3).pgn(), "#-3");
        assert_eq!(Eval::from_score(Score::Cp(50), Color::Black), Eval::Cp(-50));
        assert_eq!(
            Eval::from_score(Score::Mate(2), Color::Black),
            Eval::Mate(-2)
        );
    }

    #[test]
    fn a_planted_blunder_is_found_with_a_better_move() {
        // 1. h2e2 h9g7 2. e2e6?? : the cannon takes the central soldier and is lost to the
        // knight on g7.
        let start = Position::new();
        let line = moves(&start, &["h2e2", "h9g7", "e2e6", "g7e6"]);
        let mut engine = Engine::new();
        engine.set_option("Hash", "8").unwrap();
        let mut calls = 0;
        let r = review_game(
            &mut engine,
            &start,
            &line,
            Budget::Depth(10),
            &mut |d, t| {
                calls += 1;
                assert!(d <= t);
                true
            },
        )
        .unwrap()
        .unwrap();
        assert_eq!(calls, line.len() + 1);
        assert_eq!(r.moves.len(), line.len());
        let blunder = &r.moves[2];
        assert_eq!(blunder.kind, Some(Kind::Blunder), "{r:?}");
        assert!(!blunder.better.is_empty() && blunder.better[0] != line[2]);
        assert!(blunder.accuracy < 50.0, "{}", blunder.accuracy);
        assert_eq!(r.side(Color::Red).blunders, 1, "{r:#?}");
        assert_eq!(r.side(Color::Black).count(Kind::Blunder), 0);
        for m in &r.moves {
            assert!((0.0..=100.0).contains(&m.accuracy));
        }
        let red = r.side(Color::Red).accuracy.unwrap();
        let black = r.side(Color::Black).accuracy.unwrap();
        assert!(red < black, "red {red} black {black}");
    }

    #[test]
    fn a_cancelled_review_stops() {
        let start = Position::new();
        let line = moves(&start, &["h2e2", "h9g7", "h0g2"]);
        let mut engine = Engine::new();
        engine.set_option("Hash", "8").unwrap();
        let r = review_game(&mut engine, &start, &line, Budget::Depth(2), &mut |d, _| {
            d < 2
        });
        assert_eq!(r, Ok(None));
    }

    #[test]
    fn a_mated_position_is_over_and_not_searched() {
        // Red mates with a chariot on the back rank (Black's king boxed in by its advisors).
        let start = Position::from_fen("3k5/1R7/9/9/9/9/9/9/9/R3K4 w - - 0 1").unwrap();
        let line = moves(&start, &["a0a9"]);
        let mut engine = Engine::new();
        engine.set_option("Hash", "8").unwrap();
        let r = review_game(&mut engine, &start, &line, Budget::Depth(4), &mut |_, _| {
            true
        })
        .unwrap()
        .unwrap();
        assert_eq!(r.moves[0].eval, Eval::Over(Some(Color::Red)));
        assert_eq!(r.moves[0].kind, None);
        assert_eq!(r.moves[0].eval.pgn(), "#0");
    }
}
