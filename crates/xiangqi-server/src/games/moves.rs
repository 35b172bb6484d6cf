//! How a move is validated and stored: reading a move in any notation, playing it at the end
//! of the main line, branching off an earlier move (analysis), promoting an alternative line
//! to the main line, and taking moves back. Every change is durable in the store before the
//! game in memory changes.

use xiangqi::notation::Notation;
use xiangqi::{Color, Game, Move, Position};

use super::{
    apply_declared, check_ply, derived, not_over, now, uci, GameError, GameResult, Loaded,
};
use crate::lines::{line_text, prune_lines};
use crate::store::{Derived, GameRow, Mode, Store, Write};

/// Reads a move in any notation (coordinates, WXF or Chinese) against `pos`.
pub fn read_move(pos: &Position, s: &str) -> GameResult<Move> {
    let t = s.trim();
    if t.is_empty() {
        return Err(GameError::EmptyMove);
    }
    if t.chars().count() > 16 {
        return Err(GameError::MoveTooLong(t.to_string()));
    }
    let notation = Notation::guess(t).unwrap_or(Notation::Iccs);
    notation.read(pos, t).map_err(|e| GameError::IllegalMove {
        text: t.to_string(),
        fen: pos.fen(),
        error: e.to_string(),
    })
}

/// What a move request asks: the move's text, the number of moves the client believes were
/// played, and (analysis) the number of main-line moves to play it after.
pub struct MoveRequest {
    pub text: String,
    pub claimed_ply: Option<i64>,
    pub at: Option<usize>,
}

/// What a move request did.
pub enum Moved {
    /// The move was played at the end of the main line.
    Played,
    /// The move started a new main line after an earlier move (or was the main line's own
    /// move there, and nothing changed).
    Branched,
}

/// A human's move: at the end of the main line, or with `at` from an earlier move.
pub async fn human_move(store: &Store, l: &mut Loaded, req: &MoveRequest) -> GameResult<Moved> {
    check_ply(l, req.claimed_ply)?;
    if let Some(at) = req.at.filter(|&n| n != l.game.len()) {
        branch(store, l, at, &req.text).await?;
        return Ok(Moved::Branched);
    }
    not_over(&l.game)?;
    if l.row.mode == Mode::Computer {
        let human = l.row.human.unwrap_or(Color::Red);
        if l.game.position().turn() != human {
            return Err(GameError::ComputersTurn);
        }
    }
    let mv = read_move(l.game.position(), &req.text)?;
    play(store, l, mv).await?;
    Ok(Moved::Played)
}

/// Plays the legal move `mv` at the end of the main line: stores it, then keeps it.
pub async fn play(store: &Store, l: &mut Loaded, mv: Move) -> GameResult<()> {
    let ply = l.game.len() as i64;
    // Play it in memory first (no copy of the game), and take it back if the store fails.
    l.game.push_unchecked(mv);
    let derived = derived(&l.game);
    let t = now();
    let stored = store
        .write(Write::AddMove {
            id: l.row.id,
            ply,
            uci: uci(mv),
            updated: t,
            derived: derived.clone(),
        })
        .await;
    if let Err(e) = stored {
        l.game.pop();
        return Err(e.into());
    }
    l.row.updated = t;
    l.row.plies = ply + 1;
    l.row.result = derived.result;
    l.row.reason = derived.reason;
    Ok(())
}

/// Plays `text` after the first `at` moves of an analysis game's main line: the new move
/// starts the new main line and the old main line is kept as an alternative line.
async fn branch(store: &Store, l: &mut Loaded, at: usize, text: &str) -> GameResult<()> {
    let len = l.game.len();
    if l.row.mode != Mode::Analysis {
        return Err(GameError::BranchOutsideAnalysis);
    }
    if at > len {
        return Err(GameError::BranchTooFar { len, at });
    }
    let mut next = l.game.clone();
    while next.len() > at {
        next.pop();
    }
    let mut row = l.row.clone();
    if row.declared_ply >= at as i64 {
        row.declared = None;
    }
    apply_declared(&mut next, &row);
    not_over(&next)?;
    let mv = read_move(next.position(), text)?;
    let old = l.game.moves();
    if old.get(at) == Some(&mv) {
        // The main line's own move: nothing changes.
        return Ok(());
    }
    next.push_unchecked(mv);
    let main = next.moves();
    let mut lines = l.lines.clone();
    lines.push(old);
    let lines = prune_lines(&main, lines);
    set_lines(store, l, row, next, lines).await
}

/// Makes a stored alternative line (given in coordinates) the main line; the old main line
/// becomes an alternative line. A declared end belongs to the line it was declared in, so it
/// is withdrawn.
pub async fn promote(
    store: &Store,
    l: &mut Loaded,
    want: &[String],
    claimed_ply: Option<i64>,
) -> GameResult<()> {
    check_ply(l, claimed_ply)?;
    let k = l
        .lines
        .iter()
        .position(|x| x.iter().map(|&m| uci(m)).eq(want.iter().cloned()))
        .ok_or(GameError::NoSuchLine)?;
    let mut lines = l.lines.clone();
    let line = lines.remove(k);
    lines.push(l.game.moves());
    let mut next = Game::new(l.game.start().clone());
    for &mv in &line {
        next.push_unchecked(mv);
    }
    let lines = prune_lines(&line, lines);
    let mut row = l.row.clone();
    row.declared = None;
    set_lines(store, l, row, next, lines).await
}

/// Stores a new main line (`next`) and alternative lines of a game, then holds them.
async fn set_lines(
    store: &Store,
    l: &mut Loaded,
    mut row: GameRow,
    next: Game,
    lines: Vec<Vec<Move>>,
) -> GameResult<()> {
    let moves: Vec<String> = next.moves().into_iter().map(uci).collect();
    let texts: Vec<String> = lines.iter().map(|x| line_text(x)).collect();
    row.plies = moves.len() as i64;
    commit_change(store, l, row, next, |row, derived, t| {
        let mut row = row.clone();
        row.updated = t;
        row.result = derived.result;
        row.reason = derived.reason.clone();
        vec![Write::SetLines {
            row,
            moves,
            lines: texts,
        }]
    })
    .await?;
    l.lines = lines;
    Ok(())
}

/// Takes back the last `n` moves. A resignation or draw declared after the remaining moves
/// is withdrawn; the alternative lines stay as they are.
pub async fn takeback(
    store: &Store,
    l: &mut Loaded,
    n: usize,
    claimed_ply: Option<i64>,
) -> GameResult<()> {
    check_ply(l, claimed_ply)?;
    if n > l.game.len() {
        return Err(GameError::TakebackTooMany {
            n,
            len: l.game.len(),
        });
    }
    let mut next = l.game.clone();
    for _ in 0..n {
        next.pop();
    }
    let keep = next.len() as i64;
    let mut row = l.row.clone();
    let had_declared = row.declared.is_some();
    if row.declared_ply > keep || (row.declared_ply == keep && n > 0) {
        row.declared = None;
    }
    row.plies = keep;
    commit_change(store, l, row, next, |row, derived, t| {
        let mut writes = vec![Write::Truncate {
            id: row.id,
            ply: keep,
            updated: t,
            derived: derived.clone(),
        }];
        // Truncate clears a declaration made after the kept moves; one made at them stays in
        // the store, so clear it there too when it was cleared here.
        if row.declared.is_none() && had_declared {
            writes.push(Write::Declare {
                id: row.id,
                declared: None,
                ply: 0,
                updated: t,
                derived: derived.clone(),
            });
        }
        writes
    })
    .await
}

/// Makes `next` (with `row`) the game's new state: applies the declared end to it, computes
/// the derived result columns, stores the writes `writes` builds from them (in order, each
/// durable before the next), and only then changes the game in memory.
pub(super) async fn commit_change(
    store: &Store,
    l: &mut Loaded,
    mut row: GameRow,
    mut next: Game,
    writes: impl FnOnce(&GameRow, &Derived, i64) -> Vec<Write>,
) -> GameResult<()> {
    apply_declared(&mut next, &row);
    let derived = derived(&next);
    let t = now();
    for w in writes(&row, &derived, t) {
        store.write(w).await?;
    }
    row.updated = t;
    row.result = derived.result;
    row.reason = derived.reason;
    l.row = row;
    l.game = next;
    Ok(())
}

/// Plays the engine's move `best`, found for the game as it stood at `ply` moves, if the game
/// still stands there.
pub async fn computer_move(
    store: &Store,
    l: &mut Loaded,
    ply: usize,
    best: Move,
) -> GameResult<()> {
    check_ply(l, Some(ply as i64))?;
    not_over(&l.game)?;
    play(store, l, best).await
}
