//! A game: a start position, the moves played, and how (and why) it has ended (RULES.md §4-5).
//!
//! ```
//! use xiangqi::game::{Game, Reason};
//! use xiangqi::{Color, Position};
//!
//! // Red's cannon chases Black's chariot up and down the a and b files (RULES.md §6.3).
//! let pos = Position::from_fen("2bakabnr/9/r1n1c4/2p1p1p1p/PP7/9/4P1P1P/2C3NC1/9/1NBAKAB1R w - - 0 1").unwrap();
//! let mut game = Game::new(pos);
//! for m in "c2a2 a7b7 a2b2 b7a7 b2a2 a7b7 a2b2 b7a7 b2a2".split(' ') {
//!     game.push_uci(m).unwrap();
//! }
//! let outcome = game.outcome().unwrap();
//! assert_eq!(outcome.winner, Some(Color::Black));
//! assert_eq!(outcome.reason, Reason::PerpetualChase);
//! assert!(game.ruling().unwrap().to_string().starts_with("Red loses by perpetual chase"));
//! ```

use core::fmt;
use core::str::FromStr;

use crate::adjudicate::{self, History, RepetitionReason, RepetitionRuling};
use crate::fen::FenError;
use crate::position::Position;
use crate::types::{Color, Move, Piece};
use crate::uci::{IllegalMoveError, UciError, UciMove};

/// Why a game ended.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Reason {
    /// The side to move is in check and has no legal move.
    Checkmate,
    /// The side to move is not in check and has no legal move (a loss in Xiangqi).
    Stalemate,
    /// The loser checked on every move of a repetition cycle.
    PerpetualCheck,
    /// The loser chased one piece on every move of a repetition cycle.
    PerpetualChase,
    /// A repetition in which neither side (or both sides alike) broke a rule: a draw.
    Repetition,
    /// The natural move limit: a draw.
    MoveLimit,
    /// Neither side can attack any more: a draw.
    InsufficientMaterial,
    /// A player resigned.
    Resignation,
    /// The players agreed a draw.
    Agreement,
    /// A player ran out of time.
    Time,
}

impl Reason {
    pub const ALL: [Reason; 10] = [
        Reason::Checkmate,
        Reason::Stalemate,
        Reason::PerpetualCheck,
        Reason::PerpetualChase,
        Reason::Repetition,
        Reason::MoveLimit,
        Reason::InsufficientMaterial,
        Reason::Resignation,
        Reason::Agreement,
        Reason::Time,
    ];

    /// The kebab-case name used on the command line: `perpetual-chase`, `move-limit`, ...
    pub const fn as_str(self) -> &'static str {
        match self {
            Reason::Checkmate => "checkmate",
            Reason::Stalemate => "stalemate",
            Reason::PerpetualCheck => "perpetual-check",
            Reason::PerpetualChase => "perpetual-chase",
            Reason::Repetition => "repetition",
            Reason::MoveLimit => "move-limit",
            Reason::InsufficientMaterial => "insufficient-material",
            Reason::Resignation => "resignation",
            Reason::Agreement => "agreement",
            Reason::Time => "time",
        }
    }
    /// The name in plain words: "perpetual chase", "move limit", ...
    pub const fn words(self) -> &'static str {
        match self {
            Reason::Checkmate => "checkmate",
            Reason::Stalemate => "stalemate",
            Reason::PerpetualCheck => "perpetual check",
            Reason::PerpetualChase => "perpetual chase",
            Reason::Repetition => "repetition",
            Reason::MoveLimit => "move limit",
            Reason::InsufficientMaterial => "insufficient material",
            Reason::Resignation => "resignation",
            Reason::Agreement => "agreement",
            Reason::Time => "time",
        }
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The string is not a reason name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseReasonError(pub String);

impl fmt::Display for ParseReasonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "'{}' is not a reason (", self.0)?;
        for (i, r) in Reason::ALL.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            f.write_str(r.as_str())?;
        }
        f.write_str(")")
    }
}
impl std::error::Error for ParseReasonError {}

impl FromStr for Reason {
    type Err = ParseReasonError;
    fn from_str(s: &str) -> Result<Reason, ParseReasonError> {
        Reason::ALL
            .iter()
            .copied()
            .find(|r| r.as_str() == s)
            .ok_or_else(|| ParseReasonError(s.to_string()))
    }
}

/// How a game ended: the winner (`None` for a draw) and the reason.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Outcome {
    pub winner: Option<Color>,
    pub reason: Reason,
}

impl Outcome {
    /// `red-wins`, `black-wins` or `draw`.
    pub const fn verdict(&self) -> &'static str {
        match self.winner {
            Some(Color::Red) => "red-wins",
            Some(Color::Black) => "black-wins",
            None => "draw",
        }
    }
}

/// `red-wins perpetual-chase`, the form `xiangqi judge` prints.
impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.verdict(), self.reason)
    }
}

/// Options of the rules that vary between events.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Rules {
    /// The occurrence of a position at which a repetition is ruled on (RULES.md §5.1):
    /// 3 by default; 2 is allowed (values below 2 are read as 2).
    pub repetitions: u32,
    /// The natural move limit in plies without capture (RULES.md §4.3), 120 by default;
    /// `None` for no limit.
    pub move_limit: Option<u32>,
    /// Whether perpetual chasing loses (RULES.md §5.3). Off, only perpetual check is punished.
    pub chase_rule: bool,
}

impl Default for Rules {
    fn default() -> Rules {
        Rules {
            repetitions: 3,
            move_limit: Some(120),
            chase_rule: true,
        }
    }
}

impl Rules {
    pub fn with_repetitions(mut self, n: u32) -> Rules {
        self.repetitions = n;
        self
    }
    pub fn with_move_limit(mut self, plies: Option<u32>) -> Rules {
        self.move_limit = plies;
        self
    }
    pub fn with_chase_rule(mut self, on: bool) -> Rules {
        self.chase_rule = on;
        self
    }
}

/// The account behind an [`Outcome`]: what happened, in terms a player can check.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Detail {
    /// The side to move has no legal move.
    NoLegalMove {
        loser: Color,
        in_check: bool,
    },
    /// A repetition was ruled on.
    Repetition(RepetitionRuling),
    /// The move limit was reached.
    MoveLimit {
        /// Plies since the last capture.
        plies: usize,
        /// Plies counted (checks beyond the tenth by one side do not count).
        counted: u32,
        limit: u32,
    },
    /// Neither side has a chariot, horse, cannon or soldier.
    InsufficientMaterial,
    Resignation {
        loser: Color,
    },
    Agreement,
    Time {
        loser: Color,
    },
    /// `flagged` ran out of time, but the other side has no chariot, horse, cannon or
    /// soldier left to mate with (RULES.md §4.4): a draw.
    TimeNoMate {
        flagged: Color,
    },
}

/// An outcome with its explanation; `Display` gives a plain-language account in English,
/// [`Ruling::text`] in English or Chinese (both written by [`crate::prose`]).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Ruling {
    pub outcome: Outcome,
    pub detail: Detail,
}

/// Why [`Game::from_uci`] or [`Game::replay`] could not replay a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReplayError {
    /// The start FEN is not a valid position.
    Fen(FenError),
    /// The move at `index` (0-based) of the list is not a coordinate move, or not legal
    /// where it is played.
    Move {
        index: usize,
        text: String,
        error: UciError,
    },
}

impl fmt::Display for ReplayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReplayError::Fen(e) => write!(f, "bad FEN: {e}"),
            ReplayError::Move { index, text, error } => {
                write!(f, "move {} ({text}): {error}", index + 1)
            }
        }
    }
}
impl std::error::Error for ReplayError {}

/// A game: a start position and the moves played, judged by [`Rules`].
///
/// A game that has ended stays ended: moves played after the end (which [`Game::push`]
/// allows, as records and the reference data do) do not re-open it. If such moves reach a new
/// ending by rule (a longer repetition cycle, say), the latest ruling is the game's: the
/// reference data rule so (docs/RULES-STATUS.md). A declared result (resignation, agreement,
/// time) stands unless an ending by rule came first. [`Game::pop`] takes back moves and any
/// ending reached by them.
#[derive(Clone, Debug)]
pub struct Game {
    history: History,
    rules: Rules,
    /// A result declared by the players or the clock, and the number of moves then played.
    declared: Option<(Ruling, usize)>,
    /// For each ply (0 = the start): the latest ending by rule reached so far, as the number
    /// of moves after which it was reached and the outcome.
    ends: Vec<Option<(usize, Outcome)>>,
}

impl Default for Game {
    fn default() -> Game {
        Game::new(Position::new())
    }
}

impl Game {
    /// A game from `start` under the default rules.
    pub fn new(start: Position) -> Game {
        Game::with_rules(start, Rules::default())
    }
    pub fn with_rules(start: Position, rules: Rules) -> Game {
        let mut g = Game {
            history: History::new(start),
            rules,
            declared: None,
            ends: Vec::new(),
        };
        let e = g.judge_at(0).map(|o| (0, o));
        g.ends.push(e);
        g
    }
    /// The game from a FEN and coordinate moves (`h2e2` or `H2-E2`) under the default rules:
    /// "FEN plus moves" as UCI's `position` command, the server and the CLI take it.
    ///
    /// ```
    /// use xiangqi::game::{Game, ReplayError};
    /// let g = Game::from_uci(xiangqi::START_FEN, ["h2e2", "h9g7"]).unwrap();
    /// assert_eq!(g.len(), 2);
    /// let e = Game::from_uci(xiangqi::START_FEN, ["h2e2", "h2e2"]).unwrap_err();
    /// assert!(matches!(e, ReplayError::Move { index: 1, .. }));
    /// assert!(e.to_string().starts_with("move 2 (h2e2): "));
    /// ```
    pub fn from_uci<I, S>(fen: &str, moves: I) -> Result<Game, ReplayError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let start = Position::from_fen(fen).map_err(ReplayError::Fen)?;
        Game::replay(start, Rules::default(), moves)
    }
    /// The game from `start` under `rules` with the coordinate moves played in order; the
    /// error names the first bad move by its index.
    pub fn replay<I, S>(start: Position, rules: Rules, moves: I) -> Result<Game, ReplayError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut game = Game::with_rules(start, rules);
        for (index, s) in moves.into_iter().enumerate() {
            let s = s.as_ref();
            game.push_uci(s).map_err(|error| ReplayError::Move {
                index,
                text: s.to_owned(),
                error,
            })?;
        }
        Ok(game)
    }
    pub fn rules(&self) -> &Rules {
        &self.rules
    }
    /// Changes the rules and judges the game again from the start (walks the whole game).
    pub fn set_rules(&mut self, rules: Rules) {
        self.rules = rules;
        self.ends.clear();
        let mut latest = None;
        for p in 0..=self.history.len() {
            latest = self.judge_at(p).map(|o| (p, o)).or(latest);
            self.ends.push(latest);
        }
    }
    /// The start position.
    pub fn start(&self) -> &Position {
        self.history.start()
    }
    /// The current position.
    pub fn position(&self) -> &Position {
        self.history.position()
    }
    /// The moves played.
    pub fn moves(&self) -> Vec<Move> {
        self.history.moves().collect()
    }
    /// The number of moves played.
    pub fn len(&self) -> usize {
        self.history.len()
    }
    pub fn is_empty(&self) -> bool {
        self.history.is_empty()
    }
    /// The per-ply history the rulings are made from.
    pub fn history(&self) -> &History {
        &self.history
    }
    /// The number of moves after which the game ended (by rule or declared), if it has.
    pub fn ended_at(&self) -> Option<usize> {
        self.first_end().map(|(p, _)| p)
    }

    /// Plays `m` after checking it is legal; returns the captured piece. Moves may be played
    /// after the game has ended; they do not change its outcome.
    pub fn push(&mut self, m: Move) -> Result<Option<Piece>, IllegalMoveError> {
        UciMove::from_move(m).to_move(self.position())?;
        Ok(self.push_unchecked(m))
    }
    /// Reads a coordinate move (`h2e2` or `H2-E2`) and plays it if legal.
    pub fn push_uci(&mut self, s: &str) -> Result<Option<Piece>, UciError> {
        let m = self.position().parse_uci(s)?;
        Ok(self.push_unchecked(m))
    }
    /// Plays a move that must be legal (an illegal one leaves the game in an unspecified,
    /// memory-safe state). While the game goes on, this judges the new position: a legal-move
    /// count and O(1) look-ups, plus a ruling when the position repeats often enough.
    pub fn push_unchecked(&mut self, m: Move) -> Option<Piece> {
        let captured = self.history.push(m);
        let n = self.history.len();
        let latest = self.judge_at(n).map(|o| (n, o)).or(self.ended());
        self.ends.push(latest);
        captured
    }
    /// Takes back the last move (and any result reached or declared after it).
    pub fn pop(&mut self) -> Option<Move> {
        let m = self.history.pop()?;
        self.ends.pop();
        let n = self.history.len();
        if matches!(self.declared, Some((_, p)) if p > n) {
            self.declared = None;
        }
        Some(m)
    }

    /// `color` resigns.
    pub fn resign(&mut self, color: Color) {
        self.declare(
            Some(!color),
            Reason::Resignation,
            Detail::Resignation { loser: color },
        );
    }
    /// The players agree a draw.
    pub fn agree_draw(&mut self) {
        self.declare(None, Reason::Agreement, Detail::Agreement);
    }
    /// `color` ran out of time: a loss, or a draw when the other side cannot possibly mate
    /// (it has no chariot, horse, cannon or soldier, RULES.md §4.4).
    pub fn flag(&mut self, color: Color) {
        if adjudicate::has_attacker(self.position().board(), !color) {
            self.declare(Some(!color), Reason::Time, Detail::Time { loser: color });
        } else {
            self.declare(None, Reason::Time, Detail::TimeNoMate { flagged: color });
        }
    }
    /// Withdraws a declared result.
    pub fn clear_declared(&mut self) {
        self.declared = None;
    }
    fn declare(&mut self, winner: Option<Color>, reason: Reason, detail: Detail) {
        self.declared = Some((
            Ruling {
                outcome: Outcome { winner, reason },
                detail,
            },
            self.history.len(),
        ));
    }

    /// The latest ending by rule.
    fn ended(&self) -> Option<(usize, Outcome)> {
        *self.ends.last().expect("one entry per ply")
    }

    /// Whether an ending by rule came at or before the declared result.
    fn rule_first(&self) -> bool {
        match (self.ends.iter().flatten().next(), &self.declared) {
            (Some((e, _)), Some((_, d))) => e <= d,
            (_, None) => true,
            (None, Some(_)) => false,
        }
    }

    /// The game's end: the declared result, unless an ending by rule came first; else the
    /// latest ending by rule.
    fn first_end(&self) -> Option<(usize, Outcome)> {
        match &self.declared {
            Some((r, d)) if !self.rule_first() => Some((*d, r.outcome)),
            _ => self.ended(),
        }
    }

    /// `None` while the game goes on; else the winner and the reason. O(1): the game is judged
    /// as moves are pushed.
    pub fn outcome(&self) -> Option<Outcome> {
        self.first_end().map(|(_, o)| o)
    }

    /// Judges the position after move `ply` on its own (RULES.md §4-5), in this order: no
    /// legal move, insufficient material, repetition, move limit.
    fn judge_at(&self, ply: usize) -> Option<Outcome> {
        let h = &self.history;
        let pos = h.position_at(ply);
        if pos.has_no_legal_move() {
            let reason = if pos.is_check() {
                Reason::Checkmate
            } else {
                Reason::Stalemate
            };
            return Some(Outcome {
                winner: Some(!pos.turn()),
                reason,
            });
        }
        if adjudicate::insufficient_material(pos.board()) {
            return Some(Outcome {
                winner: None,
                reason: Reason::InsufficientMaterial,
            });
        }
        if let Some(v) = h.repetition_verdict_at(ply, self.rules.repetitions, self.rules.chase_rule)
        {
            return Some(Outcome {
                winner: v.winner,
                reason: match v.reason {
                    RepetitionReason::PerpetualCheck => Reason::PerpetualCheck,
                    RepetitionReason::PerpetualChase => Reason::PerpetualChase,
                    RepetitionReason::Draw => Reason::Repetition,
                },
            });
        }
        if matches!(self.rules.move_limit, Some(limit) if h.move_limit_count_at(ply) >= limit) {
            return Some(Outcome {
                winner: None,
                reason: Reason::MoveLimit,
            });
        }
        None
    }

    /// The outcome with its explanation (`None` while the game goes on).
    pub fn ruling(&self) -> Option<Ruling> {
        let (ply, outcome) = self.first_end()?;
        if let Some((r, _)) = &self.declared {
            if !self.rule_first() {
                return Some(r.clone());
            }
        }
        let h = &self.history;
        let pos = h.position_at(ply);
        let detail = match outcome.reason {
            Reason::Checkmate | Reason::Stalemate => Detail::NoLegalMove {
                loser: pos.turn(),
                in_check: outcome.reason == Reason::Checkmate,
            },
            Reason::InsufficientMaterial => Detail::InsufficientMaterial,
            Reason::PerpetualCheck | Reason::PerpetualChase | Reason::Repetition => {
                Detail::Repetition(h.rule_cycle(
                    h.first_occurrence_at(ply),
                    ply,
                    self.rules.chase_rule,
                ))
            }
            Reason::MoveLimit => Detail::MoveLimit {
                plies: pos.halfmoves() as usize,
                counted: h.move_limit_count_at(ply),
                limit: self.rules.move_limit.unwrap_or(0),
            },
            // Declared results were returned above.
            Reason::Resignation | Reason::Agreement | Reason::Time => return None,
        };
        Some(Ruling { outcome, detail })
    }
}
