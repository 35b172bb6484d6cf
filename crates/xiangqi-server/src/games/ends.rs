//! Ends the players declare: resigning, and a draw offer (against the computer the engine
//! judges it).

use xiangqi::Color;
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

/// The answer to a draw offer.
pub struct DrawVerdict {
    pub accepted: bool,
    pub why: &'static str,
}

/// Judges a draw offer in the game `snap` was taken of: the players' agreement, or in
/// computer mode the engine's view after a short search (it accepts unless it thinks itself
/// better by more than 0.3 pawns, or sees a mate for itself).
pub async fn judge_draw(engines: &EnginePool, snap: &Snapshot) -> GameResult<DrawVerdict> {
    if snap.mode != Mode::Computer {
        return Ok(DrawVerdict {
            accepted: true,
            why: "the players agreed",
        });
    }
    let found = engines
        .search(snap.id, snap.start.clone(), snap.moves.clone(), 20, 300)
        .await?;
    // The score is from the side to move's view; turn it to the computer's.
    let human = snap.human.unwrap_or(Color::Red);
    let flip = snap.turn == human;
    let accepted = match found.score {
        Some(Score::Cp(cp)) => (if flip { -cp } else { cp }) <= 30,
        Some(Score::Mate(n)) => (if flip { -n } else { n }) < 0,
        None => true,
    };
    Ok(DrawVerdict {
        accepted,
        why: if accepted {
            "the computer does not think itself better"
        } else {
            "the computer thinks it is better and plays on"
        },
    })
}

/// Ends the game in a draw by agreement, if it still has the `ply` moves the offer was made at.
pub async fn agree_draw(store: &Store, l: &mut Loaded, ply: usize) -> GameResult<()> {
    check_ply(l, Some(ply as i64))?;
    not_over(&l.game)?;
    declare(store, l, Declared::Draw).await
}
