//! A record's comments and NAGs at its moves (`store::Note`): set, changed or removed one at a
//! time, on any move of the main line or of an alternative line, or before the first move.

use std::collections::BTreeSet;

use super::{now, GameError, GameResult, Loaded};
use crate::lines::{tree_of, tree_paths};
use crate::store::{Note, Store, Write};

/// The longest comment kept (in characters).
pub const MAX_COMMENT: usize = 20_000;

/// Every path of the game's move tree (each move of the main line and of the lines, and `""`).
pub fn paths(l: &Loaded) -> BTreeSet<String> {
    tree_paths(&tree_of(&l.game.moves(), &l.lines))
}

/// Sets the note of the move reached by `path` (moves in coordinates from the start; empty:
/// before the first move). An empty note removes it. The text is kept as written, except that
/// line breaks are made `\n` and the ends are trimmed.
pub async fn set(store: &Store, l: &mut Loaded, path: &[String], note: Note) -> GameResult<()> {
    let text = note.text.replace("\r\n", "\n").replace('\r', "\n");
    let text = text.trim().to_string();
    let n = text.chars().count();
    if n > MAX_COMMENT {
        return Err(GameError::CommentTooLong(n));
    }
    let key = path.join(" ");
    if !paths(l).contains(&key) {
        return Err(GameError::NoSuchMove { plies: path.len() });
    }
    let note = Note {
        text,
        nags: note.nags,
    };
    store
        .write(Write::SetNote {
            id: l.row.id,
            path: key.clone(),
            note: note.clone(),
            updated: now(),
        })
        .await?;
    if note.is_empty() {
        l.notes.remove(&key);
    } else {
        l.notes.insert(key, note);
    }
    Ok(())
}

/// The notes shown with the game: those on moves it has.
pub fn shown(l: &Loaded) -> Vec<(&String, &Note)> {
    if l.notes.is_empty() {
        return Vec::new();
    }
    let have = paths(l);
    l.notes.iter().filter(|(p, _)| have.contains(*p)).collect()
}
