//! The game operations: starting, importing, moving, branching, promoting a line, taking
//! back, resigning and agreeing a draw. They work on a loaded game and the store and know
//! nothing of HTTP; what they refuse is a [`GameError`], which the API turns into a status.
//!
//! Where what is: `moves` (how a move is validated and stored; branching, promoting a line,
//! taking back), `ends` (resigning, draw offers), `create` (new and imported games),
//! `export` (a game as a record), `memory` (the loaded games, each behind its own lock, so
//! changes to one game are checked and stored one at a time while different games proceed
//! side by side), `error`. A change is stored durably first and only then applied in memory.

pub mod create;
pub mod ends;
mod error;
pub mod export;
mod memory;
pub mod moves;
pub mod notes;

pub use error::{GameError, ImportFailure};
pub use memory::{detached, Games};

use std::collections::BTreeMap;

use xiangqi::{Color, Game, Move, Position};

use crate::store::{Declared, Derived, GameRow, Note, Store, StoreError, Verdict};

/// A game as the server holds it: the stored row, the game replayed from its moves, and the
/// alternative lines kept beside the main line (analysis variations; each a whole line from
/// the start position).
pub struct Loaded {
    pub row: GameRow,
    pub game: Game,
    pub lines: Vec<Vec<Move>>,
    /// Comments and NAGs by the path of their move (`store::Note`).
    pub notes: BTreeMap<String, Note>,
}

/// How a finished game ended, in words (English, Chinese, and `texts`: every language by the
/// web app's code, `en`, `zh-Hans`, `zh-Hant`, `vi`) as well as by rule.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, utoipa::ToSchema)]
pub struct Ending {
    pub winner: Option<&'static str>,
    pub result: Verdict,
    pub reason: &'static str,
    pub text: String,
    pub text_zh: String,
    pub texts: BTreeMap<String, String>,
}

impl Ending {
    /// How `game` ended, or `None` while it goes on.
    pub fn of(game: &Game) -> Option<Ending> {
        let (o, r) = (game.outcome()?, game.ruling()?);
        Some(Ending {
            winner: o.winner.map(Color::name),
            result: Verdict::of_winner(o.winner),
            reason: o.reason.as_str(),
            text: r.to_string(),
            text_zh: r.text(game, xiangqi::prose::Lang::Zh),
            texts: xiangqi::prose::Lang::ALL
                .iter()
                .map(|&l| {
                    let text = match l {
                        xiangqi::prose::Lang::En => r.to_string(),
                        l => r.text(game, l),
                    };
                    (l.web_code().to_owned(), text)
                })
                .collect(),
        })
    }
}

pub type GameResult<T> = Result<T, GameError>;

pub use crate::lines::uci;
pub use crate::store::now;

/// The legal moves of `pos` in coordinates, sorted.
pub fn legal_moves(pos: &Position) -> Vec<String> {
    let mut v: Vec<String> = pos.legal_moves().iter().map(|&m| uci(m)).collect();
    v.sort_unstable();
    v
}

/// Reads a side: `red`/`r`/`w`/`white` or `black`/`b`, any case.
pub fn parse_color(s: &str) -> Option<Color> {
    match s.trim().to_ascii_lowercase().as_str() {
        "red" | "r" | "w" | "white" => Some(Color::Red),
        "black" | "b" => Some(Color::Black),
        _ => None,
    }
}

/// Replays a stored game. A stored move that is not legal (a damaged file) ends the replay
/// with an error naming the move.
pub fn replay(row: &GameRow, moves: &[String]) -> GameResult<Game> {
    let mut game = Game::from_uci(&row.start_fen, moves).map_err(|e| {
        GameError::Store(StoreError::Corrupt(match e {
            xiangqi::ReplayError::Fen(e) => {
                format!("game {}: stored start FEN is bad: {e}", row.id)
            }
            e => format!("game {}: stored {e}", row.id),
        }))
    })?;
    apply_declared(&mut game, row);
    Ok(game)
}

/// Puts the row's declared end (if it was made at the game's current length) on the game.
pub fn apply_declared(game: &mut Game, row: &GameRow) {
    game.clear_declared();
    if row.declared_ply != game.len() as i64 {
        return;
    }
    match row.declared {
        Some(Declared::Resign(c)) => game.resign(c),
        Some(Declared::Draw) => game.agree_draw(),
        None => {}
    }
}

/// The derived result columns of a game.
pub fn derived(game: &Game) -> Derived {
    match game.outcome() {
        Some(o) => Derived {
            result: Some(Verdict::of_winner(o.winner)),
            reason: o.reason.as_str().to_string(),
        },
        None => Derived::default(),
    }
}

/// Refuses a game that is over.
pub fn not_over(game: &Game) -> GameResult<()> {
    match Ending::of(game) {
        Some(e) => Err(GameError::Over(Box::new(e))),
        None => Ok(()),
    }
}

/// Refuses a change made by a client that believes the game has another number of moves.
pub fn check_ply(l: &Loaded, claimed: Option<i64>) -> GameResult<()> {
    match claimed {
        Some(p) if p != l.game.len() as i64 => Err(GameError::StalePly {
            have: l.game.len(),
            claimed: p,
        }),
        _ => Ok(()),
    }
}

/// What a search needs of a game, taken under its lock so that the search runs without it.
pub struct Snapshot {
    pub id: i64,
    pub mode: crate::store::Mode,
    pub human: Option<Color>,
    pub level: i64,
    pub start: Position,
    pub moves: Vec<Move>,
    pub ply: usize,
    pub turn: Color,
}

impl Snapshot {
    /// The game as it stands, if it goes on and has `claimed_ply` moves (when given).
    pub fn of(l: &Loaded, claimed_ply: Option<i64>) -> GameResult<Snapshot> {
        check_ply(l, claimed_ply)?;
        not_over(&l.game)?;
        Ok(Snapshot {
            id: l.row.id,
            mode: l.row.mode,
            human: l.row.human,
            level: l.row.level,
            start: l.game.start().clone(),
            moves: l.game.moves(),
            ply: l.game.len(),
            turn: l.game.position().turn(),
        })
    }
}

/// A change to a game whose answer is the game itself.
pub enum Change {
    /// Make this alternative line (in coordinates) the main line.
    Promote {
        line: Vec<String>,
        claimed_ply: Option<i64>,
    },
    /// Take back the last `plies` moves.
    Takeback {
        plies: usize,
        claimed_ply: Option<i64>,
    },
    /// A side resigns (default: the human in computer mode, else the side to move).
    Resign(Option<Color>),
}

impl Change {
    pub async fn apply(self, store: &Store, l: &mut Loaded) -> GameResult<()> {
        match self {
            Change::Promote { line, claimed_ply } => {
                moves::promote(store, l, &line, claimed_ply).await
            }
            Change::Takeback { plies, claimed_ply } => {
                moves::takeback(store, l, plies, claimed_ply).await
            }
            Change::Resign(side) => ends::resign(store, l, side).await,
        }
    }
}
