//! Ends the players declare: resigning, and a draw offer (against the computer the engine
//! judges it).

use xiangqi::{Color, Position};
use xiangqi_engine::Score;

use super::{check_ply, moves::commit_change, not_over, GameResult, Loaded, Snapshot};
use crate::engine::EnginePool;
use crate::store::{Declared, Mode, Store, Write};

/// Declares an end of the game at its current length, stored before it is kept.
async fn declare(store: &Store, l: &mut Loaded, declared: Declared) -> GameResult<()> {
    let mut row = l.row.clone();
    row.declared = Some(declared);
    row.declared_ply = l.game.len() as i64;
    let next = l.game.clone();
    commit_change(store, l, row, next, |row, derived, t| {
        vec![Write::Declare {
            id: row.id,
            declared: row.declared,
            ply: row.declared_ply,
            updated: t,
            derived: derived.clone(),
        }]
    })
    .await
}

/// `side` resigns (default: the human in computer mode, else the side to move).
pub async fn resign(store: &Store, l: &mut Loaded, side: Option<Color>) -> GameResult<()> {
    not_over(&l.game)?;
    let side = match side {
        Some(s) => s,
        None if l.row.mode == Mode::Computer => l.row.human.unwrap_or(Color::Red),
        None => l.game.position().turn(),
    };
    declare(store, l, Declared::Resign(side)).await
}

/// The answer to a draw offer: whether it was accepted, why in English (`why`) and as a
/// code a client can put in its own language (`code`).
pub struct DrawVerdict {
    pub accepted: bool,
    pub why: &'static str,
    pub code: &'static str,
}

/// The computer never accepts a draw in the opening: before this many plies (Red's and
/// Black's moves both counted) of a game from the start position, or while all 32 pieces
/// are on the board.
pub const DRAW_OPENING_PLIES: usize = 30;
/// The computer accepts a draw only when its evaluation after a short search is at most this
/// many centipawns for itself: dead equal (a draw's score is 0) or worse.
pub const DRAW_ACCEPT_CP: i32 = 0;

/// Whether the position `snap` was taken of is still the opening.
fn in_opening(snap: &Snapshot) -> bool {
    let from_start = snap.start.board() == Position::new().board();
    let mut pos = snap.start.clone();
    for &m in &snap.moves {
        pos.play_unchecked(m);
    }
    let all_pieces = pos.board().occupied().count() == 32;
    all_pieces || (from_start && snap.moves.len() < DRAW_OPENING_PLIES)
}

/// Judges a draw offer in the game `snap` was taken of: the players' agreement, or in
/// computer mode the engine's view: it declines in the opening, and otherwise accepts only
/// when a short search says the position is dead equal or worse for it.
pub async fn judge_draw(engines: &EnginePool, snap: &Snapshot) -> GameResult<DrawVerdict> {
    if snap.mode != Mode::Computer {
        return Ok(DrawVerdict {
            accepted: true,
            why: "the players agreed",
            code: "agreed",
        });
    }
    if in_opening(snap) {
        return Ok(DrawVerdict {
            accepted: false,
            why: "it is too early for a draw: play on",
            code: "opening",
        });
    }
    let found = engines
        .search(snap.id, snap.start.clone(), snap.moves.clone(), 20, 300)
        .await?;
    // The score is from the side to move's view; turn it to the computer's.
    let human = snap.human.unwrap_or(Color::Red);
    let flip = snap.turn == human;
    let accepted = match found.score {
        Some(Score::Cp(cp)) => (if flip { -cp } else { cp }) <= DRAW_ACCEPT_CP,
        Some(Score::Mate(n)) => (if flip { -n } else { n }) < 0,
        None => true,
    };
    Ok(if accepted {
        DrawVerdict {
            accepted,
            why: "the computer does not think itself better",
            code: "not-better",
        }
    } else {
        DrawVerdict {
            accepted,
            why: "the computer thinks it is better and plays on",
            code: "better",
        }
    })
}

/// Ends the game in a draw by agreement, if it still has the `ply` moves the offer was made at.
pub async fn agree_draw(store: &Store, l: &mut Loaded, ply: usize) -> GameResult<()> {
    check_ply(l, Some(ply as i64))?;
    not_over(&l.game)?;
    declare(store, l, Declared::Draw).await
}
