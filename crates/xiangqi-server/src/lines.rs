//! A game's alternative lines and a record's move tree, one into the other.
//!
//! The server keeps a game as its main line plus alternative lines, each a whole line from
//! the start position (analysis variations). A record (PGN, XQF, CBR) holds a move tree: each
//! move may carry variations, nested to any depth. `insert_line` puts a line into a tree and
//! `tree_lines` takes every line out of one; a tree written from lines gives the same lines
//! back.

use xiangqi::{Game, Move, Position};
use xiangqi_record::MoveNode;

use crate::store::Note;

/// A line as stored: moves in coordinates separated by spaces.
pub fn line_text(line: &[Move]) -> String {
    line.iter().map(|&m| uci(m)).collect::<Vec<_>>().join(" ")
}

/// Reads stored alternative lines. A line is kept up to its first move that is not legal (a
/// damaged file loses only the rest of that line).
pub fn parse_lines(start: &Position, lines: &[String]) -> Vec<Vec<Move>> {
    lines
        .iter()
        .map(|l| {
            let texts: Vec<&str> = l.split_whitespace().collect();
            let replay = |n: usize| Game::replay(start.clone(), Default::default(), &texts[..n]);
            match replay(texts.len()) {
                Ok(g) => g.moves(),
                Err(xiangqi::ReplayError::Move { index, .. }) => {
                    replay(index).map(|g| g.moves()).unwrap_or_default()
                }
                Err(xiangqi::ReplayError::Fen(_)) => Vec::new(),
            }
        })
        .collect()
}

/// The alternative lines worth keeping beside `main`: no empty line, no repeat, none that is
/// the beginning of the main line or of another line (first occurrence order kept).
pub fn prune_lines(main: &[Move], lines: Vec<Vec<Move>>) -> Vec<Vec<Move>> {
    let mut out: Vec<Vec<Move>> = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        let redundant = l.is_empty()
            || main.starts_with(l)
            || out.contains(l)
            || lines
                .iter()
                .enumerate()
                .any(|(j, o)| j != i && o.len() > l.len() && o.starts_with(l));
        if !redundant {
            out.push(l.clone());
        }
    }
    out
}

/// The move tree of a main line with its alternative lines as variations.
pub fn tree_of(main: &[Move], lines: &[Vec<Move>]) -> Vec<MoveNode> {
    let mut tree: Vec<MoveNode> = main.iter().map(|&m| MoveNode::new(m)).collect();
    for line in lines {
        insert_line(&mut tree, line);
    }
    tree
}

/// Adds `line` (a whole line from the start) to the move tree `list` as variations.
pub fn insert_line(list: &mut Vec<MoveNode>, line: &[Move]) {
    let mut i = 0;
    while i < line.len() {
        if i == list.len() {
            list.extend(line[i..].iter().map(|&m| MoveNode::new(m)));
            return;
        }
        if list[i].mv != line[i] {
            let node = &mut list[i];
            match node
                .variations
                .iter()
                .position(|v| v.first().map(|n| n.mv) == Some(line[i]))
            {
                Some(k) => insert_line(&mut node.variations[k], &line[i..]),
                None => node
                    .variations
                    .push(line[i..].iter().map(|&m| MoveNode::new(m)).collect()),
            }
            return;
        }
        i += 1;
    }
}

/// Every line of a move tree other than the main line, each from the start; a variation
/// comes before its own sub-variations (so writing them back nests them the same).
pub fn tree_lines(tree: &[MoveNode]) -> Vec<Vec<Move>> {
    let mut out = Vec::new();
    lines_of(tree, &[], true, &mut out);
    out
}

fn lines_of(list: &[MoveNode], prefix: &[Move], main: bool, out: &mut Vec<Vec<Move>>) {
    let mut path = prefix.to_vec();
    if !main {
        out.push(
            path.iter()
                .copied()
                .chain(list.iter().map(|n| n.mv))
                .collect(),
        );
    }
    for node in list {
        for v in &node.variations {
            lines_of(v, &path, false, out);
        }
        path.push(node.mv);
    }
}

/// The path of a move (`store::Note`): the moves from the start to it, in coordinates
/// separated by spaces.
pub fn path_text(moves: &[Move]) -> String {
    line_text(moves)
}

/// Every comment and NAG of a record's move tree by the path of its move, with the comment
/// before the first move at path `""`; empty ones are left out.
pub fn tree_notes(start_comment: Option<&str>, tree: &[MoveNode]) -> Vec<(String, Note)> {
    let mut out = Vec::new();
    if let Some(c) = start_comment.filter(|c| !c.trim().is_empty()) {
        out.push((
            String::new(),
            Note {
                text: c.to_string(),
                nags: Vec::new(),
            },
        ));
    }
    notes_of(tree, &mut Vec::new(), &mut out);
    out
}

fn notes_of(list: &[MoveNode], path: &mut Vec<Move>, out: &mut Vec<(String, Note)>) {
    let depth = path.len();
    for node in list {
        for v in &node.variations {
            notes_of(v, path, out);
        }
        path.push(node.mv);
        let note = Note {
            text: node.comment.clone().unwrap_or_default(),
            nags: node.nags.clone(),
        };
        if !note.is_empty() {
            out.push((path_text(path), note));
        }
    }
    path.truncate(depth);
}

/// Every path of a move tree (each of its moves), and `""` for the start.
pub fn tree_paths(tree: &[MoveNode]) -> std::collections::BTreeSet<String> {
    fn walk(list: &[MoveNode], path: &mut Vec<Move>, out: &mut std::collections::BTreeSet<String>) {
        let depth = path.len();
        for node in list {
            for v in &node.variations {
                walk(v, path, out);
            }
            path.push(node.mv);
            out.insert(path_text(path));
        }
        path.truncate(depth);
    }
    let mut out = std::collections::BTreeSet::from([String::new()]);
    walk(tree, &mut Vec::new(), &mut out);
    out
}

/// Puts the notes on the moves of `tree` they name (export); answers the comment before the
/// first move. Notes whose moves are not in the tree are left out.
pub fn attach_notes(
    tree: &mut [MoveNode],
    notes: &std::collections::BTreeMap<String, Note>,
) -> Option<String> {
    fn walk(
        list: &mut [MoveNode],
        path: &mut Vec<Move>,
        notes: &std::collections::BTreeMap<String, Note>,
    ) {
        let depth = path.len();
        for node in list.iter_mut() {
            for v in node.variations.iter_mut() {
                walk(v, path, notes);
            }
            path.push(node.mv);
            if let Some(n) = notes.get(&path_text(path)) {
                node.comment = Some(n.text.clone()).filter(|t| !t.is_empty());
                node.nags = n.nags.clone();
            }
        }
        path.truncate(depth);
    }
    walk(tree, &mut Vec::new(), notes);
    notes
        .get("")
        .map(|n| n.text.clone())
        .filter(|t| !t.is_empty())
}

/// A move in coordinates (`h2e2`), without the formatting machinery (this is on the hot path).
pub fn uci(m: Move) -> String {
    let (a, b) = (m.from(), m.to());
    let mut s = String::with_capacity(4);
    s.push(a.file().char());
    s.push(a.rank().char());
    s.push(b.file().char());
    s.push(b.rank().char());
    s
}
