//! DhtmlXQ / UBB text records (东萍象棋 DhtmlXQ): `[DhtmlXQ_name]value[/DhtmlXQ_name]` tags,
//! usually inside a `[DhtmlXQ]` or `[DhtmlXQiFrame]` wrapper.
//!
//! * `binit`: the set-up, 32 pairs of digits (file 0-8 from the left, row 0-9 from the top;
//!   `99` = not on the board) for Red's chariot, horse, elephant, advisor, general, advisor,
//!   elephant, horse, chariot, two cannons, five soldiers, then Black's in the same order.
//!   `fen` (a FEN) may stand instead.
//! * `movelist`: the main line, four digits a move (from file, from row, to file, to row).
//! * `move_A_B_C`: branch `C`, whose first move is an alternative to ply `B` (1-based) of
//!   branch `A` (the main line is branch 0).
//! * `commentN` / `commentC_N`: the comment after ply `N` of the main line / of branch `C`;
//!   `comment0` is the comment before the first move. `||` in a comment is a line break.
//! * Game information: `title`, `event`, `date`, `place`, `round`, `table`, `red`,
//!   `redteam`, `redtime`, `black`, `blackteam`, `blacktime`, `result`, `open`, `ecco`,
//!   `remark` (annotator), `author`, `timerule`.
//!
//! Input is UTF-8 (with or without BOM), or GBK when it is not valid UTF-8. Error offsets are
//! byte offsets in the input for UTF-8 input, in the decoded text for GBK input.

use std::collections::HashMap;

use xiangqi::{Board, Color, Piece, Position, Square};

use crate::model::{GameRecord, GameResult};
use crate::rawtree::{
    decode_text, place, start_position, to_lines, ErrorKind, Format, RawTree, ReadError, Slot,
    SIDE_ROLES,
};

/// The error type of this reader.
pub type DhtmlXqError = ReadError;

const F: Format = Format::DhtmlXq;

const INFO_TAGS: [(&str, &str); 18] = [
    ("event", "Event"),
    ("place", "Site"),
    ("date", "Date"),
    ("round", "Round"),
    ("table", "Table"),
    ("red", "Red"),
    ("redteam", "RedTeam"),
    ("redtime", "RedTime"),
    ("black", "Black"),
    ("blackteam", "BlackTeam"),
    ("blacktime", "BlackTime"),
    ("title", "Title"),
    ("open", "Opening"),
    ("ecco", "ECCO"),
    ("remark", "Annotator"),
    ("author", "Author"),
    ("timerule", "TimeControl"),
    ("gametype", "GameType"),
];

/// Cheap check: a `[DhtmlXQ` tag anywhere (a record is often inside a whole HTML page).
pub fn looks_like(bytes: &[u8]) -> bool {
    bytes.windows(8).any(|w| w == b"[DhtmlXQ")
}

/// Reads a DhtmlXQ record from bytes (UTF-8 with or without BOM, else GBK). Any illegal
/// move (main line or variation) is an error.
pub fn read(bytes: &[u8]) -> Result<GameRecord, DhtmlXqError> {
    read_bytes(bytes, None, false)
}

/// Like [`read`], but an illegal move inside a variation only drops that branch from the move
/// on (see [`crate::rawtree`]); the errors for what was left out are returned beside the
/// record. An illegal main-line move is still the error.
pub fn read_lenient(bytes: &[u8]) -> Result<(GameRecord, Vec<DhtmlXqError>), DhtmlXqError> {
    lenient_read(bytes, false)
}

/// Like [`read_lenient`], and an illegal main-line move ends the game there instead of failing
/// it (`xiangqi convert --lenient`, [`crate::detect::Mode::Salvage`]): the game is kept with
/// every move before it, and the move is returned among the warnings as [`ErrorKind::Kept`].
pub fn read_salvaging(bytes: &[u8]) -> Result<(GameRecord, Vec<DhtmlXqError>), DhtmlXqError> {
    lenient_read(bytes, true)
}

fn lenient_read(
    bytes: &[u8],
    salvage: bool,
) -> Result<(GameRecord, Vec<DhtmlXqError>), DhtmlXqError> {
    let mut dropped = Vec::new();
    match read_bytes(bytes, Some(&mut dropped), salvage) {
        Ok(rec) => Ok((rec, dropped)),
        // What fails leniently fails strictly too: give the first problem, as strictly.
        Err(e) => Err(read_bytes(bytes, None, false).err().unwrap_or(e)),
    }
}

fn read_bytes(
    bytes: &[u8],
    dropped: Option<&mut Vec<ReadError>>,
    salvage: bool,
) -> Result<GameRecord, DhtmlXqError> {
    let (text, shift) = decode_text(bytes);
    read_text(&text, shift, dropped, salvage)
}

/// Reads a DhtmlXQ record from text (strict, as [`read`]).
pub fn read_str(text: &str) -> Result<GameRecord, DhtmlXqError> {
    let (t, shift) = match text.strip_prefix('\u{feff}') {
        Some(rest) => (rest, 3),
        None => (text, 0),
    };
    read_text(t, shift, None, false)
}

/// One `[DhtmlXQ_name]value[/DhtmlXQ_name]`.
struct Tag<'a> {
    name: &'a str,
    value: &'a str,
    /// Byte offset of the value in the input.
    at: usize,
}

/// The tags of the text. Strict (`dropped` is `None`): a tag never closed is an error;
/// lenient: it is ignored, and the error is added to `dropped`.
fn tags<'t>(
    text: &'t str,
    shift: usize,
    mut dropped: Option<&mut Vec<ReadError>>,
) -> Result<Vec<Tag<'t>>, ReadError> {
    const OPEN: &str = "[DhtmlXQ_";
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(k) = text[i..].find(OPEN) {
        let start = i + k;
        let name_start = start + OPEN.len();
        let name_len = text[name_start..]
            .bytes()
            .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
            .count();
        let name = &text[name_start..name_start + name_len];
        let close_bracket = name_start + name_len;
        if !text[close_bracket..].starts_with(']') || name.is_empty() {
            return Err(ReadError::invalid(
                F,
                shift + start,
                "a [DhtmlXQ_ tag whose name is not closed by ']'",
            ));
        }
        let value_start = close_bracket + 1;
        let closing = format!("[/DhtmlXQ_{name}]");
        let Some(len) = text[value_start..].find(&closing) else {
            let e = ReadError::invalid(
                F,
                shift + start,
                format!("[DhtmlXQ_{name}] has no closing {closing}"),
            );
            match dropped.as_deref_mut() {
                Some(d) => {
                    d.push(ReadError::invalid(
                        F,
                        shift + start,
                        format!("[DhtmlXQ_{name}] has no closing {closing}; ignored"),
                    ));
                    i = value_start;
                    continue;
                }
                None => return Err(e),
            }
        };
        out.push(Tag {
            name,
            value: &text[value_start..value_start + len],
            at: shift + value_start,
        });
        i = value_start + len + closing.len();
    }
    Ok(out)
}

fn digit(b: u8) -> Option<u8> {
    b.is_ascii_digit().then(|| b - b'0')
}

/// A square from file (0-8 from the left) and row (0-9 from the top).
fn square(file: u8, row: u8) -> Option<Square> {
    if file > 8 || row > 9 {
        return None;
    }
    Square::new((9 - row) * 9 + file)
}

/// Parses a move list (four digits a move) into squares with their offsets.
fn moves(value: &str, at: usize, what: &str) -> Result<Vec<(Square, Square, usize)>, ReadError> {
    let v = value.trim();
    let lead = value.len() - value.trim_start().len();
    let b = v.as_bytes();
    if b.len() & 3 != 0 {
        return Err(ReadError::invalid(
            F,
            at,
            format!(
                "{what} has {} characters, not a multiple of 4 (four digits a move)",
                b.len()
            ),
        ));
    }
    let mut out = Vec::with_capacity(b.len() / 4);
    for (k, c) in b.chunks_exact(4).enumerate() {
        let off = at + lead + 4 * k;
        let d: Option<Vec<u8>> = c.iter().map(|&x| digit(x)).collect();
        let bad = || {
            ReadError::invalid(
                F,
                off,
                format!(
                    "{what}: move {} \"{}\" is not four digits naming two points",
                    k + 1,
                    String::from_utf8_lossy(c)
                ),
            )
        };
        let d = d.ok_or_else(bad)?;
        let from = square(d[0], d[1]).ok_or_else(bad)?;
        let to = square(d[2], d[3]).ok_or_else(bad)?;
        out.push((from, to, off));
    }
    Ok(out)
}

struct Branch {
    parent: u32,
    /// Ply of the branch's first move.
    start: usize,
    nodes: Vec<usize>,
}

enum At {
    Root,
    Node(usize),
    Missing,
}

fn node_at(branches: &HashMap<u32, Branch>, mut b: u32, ply: usize) -> At {
    if ply == 0 {
        return At::Root;
    }
    // Each step goes to a branch that started strictly earlier, so this ends.
    loop {
        let Some(br) = branches.get(&b) else {
            return At::Missing;
        };
        if ply >= br.start {
            return match br.nodes.get(ply - br.start) {
                Some(&i) => At::Node(i),
                None => At::Missing,
            };
        }
        if b == 0 {
            return At::Missing;
        }
        b = br.parent;
    }
}

fn read_text(
    text: &str,
    shift: usize,
    mut dropped: Option<&mut Vec<ReadError>>,
    salvage: bool,
) -> Result<GameRecord, ReadError> {
    // Inside a page (HTML, a forum post) only the first `[DhtmlXQ]...[/DhtmlXQ]` block is the
    // record: a page may show it twice.
    let block = text
        .find("[DhtmlXQ]")
        .and_then(|a| Some((a, a + text[a..].find("[/DhtmlXQ]")?)));
    let (text, shift) = match block {
        Some((a, b)) => (&text[a..b], shift + a),
        None => (text, shift),
    };
    let tags = tags(text, shift, dropped.as_deref_mut())?;
    if tags.is_empty() {
        return Err(ReadError::at(
            F,
            shift,
            ErrorKind::NotThisFormat("no [DhtmlXQ_...] tag found".into()),
        ));
    }
    let mut binit: Option<&Tag> = None;
    let mut fen: Option<&Tag> = None;
    let mut movelist: Option<&Tag> = None;
    let mut variations: Vec<(u32, usize, u32, &Tag)> = Vec::new();
    let mut comments: Vec<(u32, usize, &Tag)> = Vec::new();
    let mut info: Vec<(&str, &Tag)> = Vec::new();
    let mut result_tag: Option<&Tag> = None;
    for t in &tags {
        let slot = match t.name {
            "binit" => Some(&mut binit),
            "fen" => Some(&mut fen),
            "movelist" => Some(&mut movelist),
            "result" => Some(&mut result_tag),
            _ => None,
        };
        if let Some(slot) = slot {
            if slot.is_some() {
                return Err(ReadError::invalid(
                    F,
                    t.at,
                    format!("a second [DhtmlXQ_{}] tag (two games in one text?)", t.name),
                ));
            }
            *slot = Some(t);
            continue;
        }
        if let Some(rest) = t.name.strip_prefix("move_") {
            let nums: Vec<Option<u64>> = rest.split('_').map(|p| p.parse().ok()).collect();
            match nums.as_slice() {
                [Some(a), Some(b), Some(c)]
                    if *b >= 1 && *c >= 1 && *a < u32::MAX as u64 && *c < u32::MAX as u64 =>
                {
                    variations.push((*a as u32, *b as usize, *c as u32, t))
                }
                _ => {
                    return Err(ReadError::invalid(
                        F,
                        t.at,
                        format!(
                            "[DhtmlXQ_{}]: a variation tag is move_<branch>_<ply>_<new branch> \
                             with ply and new branch from 1",
                            t.name
                        ),
                    ))
                }
            }
            continue;
        }
        if let Some(rest) = t.name.strip_prefix("comment") {
            let nums: Vec<Option<u64>> = rest.split('_').map(|p| p.parse().ok()).collect();
            match nums.as_slice() {
                [Some(n)] => comments.push((0, *n as usize, t)),
                [Some(b), Some(n)] if *b < u32::MAX as u64 => {
                    comments.push((*b as u32, *n as usize, t))
                }
                _ => {
                    return Err(ReadError::invalid(
                        F,
                        t.at,
                        format!(
                            "[DhtmlXQ_{}]: a comment tag is comment<ply> or comment<branch>_<ply>",
                            t.name
                        ),
                    ))
                }
            }
            continue;
        }
        if let Some((_, tag)) = INFO_TAGS.iter().find(|(n, _)| *n == t.name) {
            info.push((tag, t));
        }
    }

    // Start position.
    let mut board = Board::start();
    let mut turn = Color::Red;
    let mut fullmoves = 1;
    let mut board_at = shift;
    if let Some(t) = fen {
        let pos = Position::from_fen(t.value.trim()).map_err(|e| {
            ReadError::invalid(F, t.at, format!("[DhtmlXQ_fen] is not a legal FEN: {e}"))
        })?;
        board = pos.board().clone();
        turn = pos.turn();
        fullmoves = pos.fullmoves();
        board_at = t.at;
    } else if let Some(t) = binit {
        board_at = t.at;
        let v = t.value.trim().as_bytes();
        if v.len() != 64 {
            return Err(ReadError::invalid(
                F,
                t.at,
                format!(
                    "[DhtmlXQ_binit] has {} characters, not 64 (two digits for each of 32 pieces)",
                    v.len()
                ),
            ));
        }
        board = Board::empty();
        for (i, pair) in v.chunks_exact(2).enumerate() {
            let off = t.at + 2 * i;
            if pair == b"99" {
                continue;
            }
            let sq = match (digit(pair[0]), digit(pair[1])) {
                (Some(x), Some(y)) => square(x, y),
                _ => None,
            }
            .ok_or_else(|| {
                ReadError::invalid(
                    F,
                    off,
                    format!(
                        "[DhtmlXQ_binit]: piece {} at \"{}\" is not a point of the board",
                        i + 1,
                        String::from_utf8_lossy(pair)
                    ),
                )
            })?;
            let color = if i < 16 { Color::Red } else { Color::Black };
            place(
                F,
                off,
                &mut board,
                sq,
                Piece::new(color, SIDE_ROLES[i % 16]),
            )?;
        }
    }

    // Move tree.
    let mut tree = RawTree::salvaging(salvage);
    let mut branches: HashMap<u32, Branch> = HashMap::new();
    let mut main = Branch {
        parent: 0,
        start: 1,
        nodes: Vec::new(),
    };
    if let Some(t) = movelist {
        let mut slot = Slot::ChildOf(None);
        for (from, to, off) in moves(t.value, t.at, "[DhtmlXQ_movelist]")? {
            let i = tree.add(slot, (from, to, None, off));
            main.nodes.push(i);
            slot = Slot::ChildOf(Some(i));
        }
    }
    branches.insert(0, main);

    // Variations, breadth first from the main line (a branch may be listed before the branch
    // it grows from).
    let mut by_parent: HashMap<u32, Vec<usize>> = HashMap::new();
    for (k, v) in variations.iter().enumerate() {
        by_parent.entry(v.0).or_default().push(k);
    }
    let mut queue = std::collections::VecDeque::from([0u32]);
    let mut done = vec![false; variations.len()];
    while let Some(parent) = queue.pop_front() {
        let Some(list) = by_parent.remove(&parent) else {
            continue;
        };
        for k in list {
            let (a, b, c, t) = variations[k];
            done[k] = true;
            if branches.contains_key(&c) {
                return Err(ReadError::invalid(
                    F,
                    t.at,
                    format!("[DhtmlXQ_{}] defines branch {c} a second time", t.name),
                ));
            }
            let mut slot = match node_at(&branches, a, b - 1) {
                At::Root => Slot::ChildOf(None),
                At::Node(i) => Slot::ChildOf(Some(i)),
                At::Missing => {
                    return Err(ReadError::invalid(
                        F,
                        t.at,
                        format!(
                            "[DhtmlXQ_{}]: branch {a} has no ply {} to branch from",
                            t.name,
                            b - 1
                        ),
                    ))
                }
            };
            let mut nodes = Vec::new();
            for (from, to, off) in moves(t.value, t.at, t.name)? {
                let i = tree.add(slot, (from, to, None, off));
                nodes.push(i);
                slot = Slot::ChildOf(Some(i));
            }
            branches.insert(
                c,
                Branch {
                    parent: a,
                    start: b,
                    nodes,
                },
            );
            queue.push_back(c);
        }
    }
    if let Some(k) = done.iter().position(|d| !d) {
        let (a, _, _, t) = variations[k];
        return Err(ReadError::invalid(
            F,
            t.at,
            format!(
                "[DhtmlXQ_{}] grows from branch {a}, which no tag defines",
                t.name
            ),
        ));
    }

    // Comments.
    for (b, ply, t) in comments {
        let text = t.value.replace("||", "\n");
        let text = text.trim();
        if text.is_empty() {
            continue;
        }
        if b == 0 && ply == 0 {
            tree.root_comment = Some(text.to_owned());
            continue;
        }
        // Only a branch's own moves (a comment key naming a ply before the branch starts
        // is not the branch's).
        let own = branches.get(&b).map(|br| ply >= br.start).unwrap_or(false);
        if let (true, At::Node(i)) = (own, node_at(&branches, b, ply)) {
            tree.node_mut(i).comment = Some(text.to_owned());
        }
    }

    let start = start_position(F, board, turn, fullmoves, &tree, board_at)?;
    let lines = to_lines(F, &tree, &start, dropped)?;

    let result = match result_tag.map(|t| t.value.trim()) {
        Some(r) => parse_result(r),
        None => GameResult::Unknown,
    };
    let mut rec = GameRecord {
        start,
        comment: tree.root_comment.clone(),
        moves: lines,
        result,
        ..GameRecord::default()
    };
    for (name, t) in info {
        let v = t.value.trim();
        if !v.is_empty() {
            rec.set_tag(name, v);
        }
    }
    rec.set_tag("Result", result.as_pgn());
    Ok(rec)
}

fn parse_result(r: &str) -> GameResult {
    match r {
        "1-0" => GameResult::RedWins,
        "0-1" => GameResult::BlackWins,
        "1/2-1/2" => GameResult::Draw,
        _ if r.contains("红胜") || r.contains("红方胜") || r.contains("红先胜") => {
            GameResult::RedWins
        }
        _ if r.contains("黑胜") || r.contains("黑方胜") || r.contains("红先负") => {
            GameResult::BlackWins
        }
        _ if r.contains('和') => GameResult::Draw,
        _ => GameResult::Unknown,
    }
}

/// A comment's or tag value's text as DhtmlXQ holds it: a line break as `||`, and `[` `]`
/// as full-width `［` `］` (so that no text closes or opens a tag).
fn escape(text: &str) -> String {
    text.trim()
        .replace("\r\n", "\n")
        .replace('\n', "||")
        .replace('[', "［")
        .replace(']', "］")
}

/// A move as DhtmlXQ's four digits: from file (0-8 from the left), from row (0-9 from the
/// top), to file, to row.
fn move_digits(m: xiangqi::Move) -> String {
    let d = |s: Square| {
        let i = s.index();
        format!("{}{}", i % 9, 9 - i / 9)
    };
    format!("{}{}", d(m.from()), d(m.to()))
}

/// The `binit` of a board: each side's pieces in the slots chariot, horse, elephant, advisor,
/// general, advisor, elephant, horse, chariot, two cannons, five soldiers; `99` for an empty
/// slot. `None` when a side has more pieces of a kind than it has slots for.
fn binit(board: &Board) -> Option<String> {
    let mut slots = vec!["99".to_string(); 32];
    for (sq, piece) in board.pieces() {
        let base = if piece.color == Color::Red { 0 } else { 16 };
        let k = (0..16).find(|&k| SIDE_ROLES[k] == piece.role && slots[base + k] == "99")?;
        let i = sq.index();
        slots[base + k] = format!("{}{}", i % 9, 9 - i / 9);
    }
    Some(slots.concat())
}

fn result_text(r: GameResult) -> &'static str {
    match r {
        GameResult::RedWins => "红胜",
        GameResult::BlackWins => "黑胜",
        GameResult::Draw => "和棋",
        GameResult::Unknown => "未知",
    }
}

/// Writes one game as a `[DhtmlXQ]...[/DhtmlXQ]` block (UTF-8 text), one tag a line: the
/// game's information tags (the inverse of the reader's: `Event` as `event`, `Site` as
/// `place`, `Opening` as `open`, `Annotator` as `remark`, ...), `binit` and `fen` when the start
/// is not the standard one, `movelist`, each variation as `move_<branch>_<ply>_<new branch>`
/// (branches numbered from 1 in the order met, depth first), comments as `comment<ply>` /
/// `comment<branch>_<ply>` (`comment0` before the first move), and `result` (`红胜`, `黑胜`,
/// `和棋`, `未知`). A start position with more pieces of a kind than a side has (three
/// chariots) has no `binit`; its `fen` carries it.
pub fn write_game(out: &mut String, game: &GameRecord) {
    out.push_str("[DhtmlXQ]\n");
    for (dtag, tag) in INFO_TAGS {
        if let Some(v) = game.tag(tag).filter(|v| !v.trim().is_empty()) {
            out.push_str(&format!("[DhtmlXQ_{dtag}]{}[/DhtmlXQ_{dtag}]\n", escape(v)));
        }
    }
    if game.start != Position::new() {
        if let Some(b) = binit(game.start.board()) {
            out.push_str(&format!("[DhtmlXQ_binit]{b}[/DhtmlXQ_binit]\n"));
        }
        out.push_str(&format!(
            "[DhtmlXQ_fen]{}[/DhtmlXQ_fen]\n",
            game.start.fen()
        ));
    }
    let main: String = game.moves.iter().map(|n| move_digits(n.mv)).collect();
    out.push_str(&format!("[DhtmlXQ_movelist]{main}[/DhtmlXQ_movelist]\n"));
    if let Some(c) = game.comment.as_deref().filter(|c| !c.trim().is_empty()) {
        out.push_str(&format!(
            "[DhtmlXQ_comment0]{}[/DhtmlXQ_comment0]\n",
            escape(c)
        ));
    }
    let mut next_branch = 1;
    write_line(out, &game.moves, 0, 1, &mut next_branch);
    out.push_str(&format!(
        "[DhtmlXQ_result]{}[/DhtmlXQ_result]\n[/DhtmlXQ]\n",
        result_text(game.result)
    ));
}

/// The comments of a line (branch `branch`, whose first move is ply `first`) and, depth first,
/// its variations as new branches.
fn write_line(
    out: &mut String,
    line: &[crate::MoveNode],
    branch: u32,
    first: usize,
    next: &mut u32,
) {
    for (k, node) in line.iter().enumerate() {
        let ply = first + k;
        if let Some(c) = node.comment.as_deref().filter(|c| !c.trim().is_empty()) {
            let key = if branch == 0 {
                format!("comment{ply}")
            } else {
                format!("comment{branch}_{ply}")
            };
            out.push_str(&format!("[DhtmlXQ_{key}]{}[/DhtmlXQ_{key}]\n", escape(c)));
        }
        for v in node.variations.iter().filter(|v| !v.is_empty()) {
            let id = *next;
            *next += 1;
            let digits: String = v.iter().map(|n| move_digits(n.mv)).collect();
            let key = format!("move_{branch}_{ply}_{id}");
            out.push_str(&format!("[DhtmlXQ_{key}]{digits}[/DhtmlXQ_{key}]\n"));
            write_line(out, v, id, ply, next);
        }
    }
}

/// Writes games as DhtmlXQ blocks, one after another with a blank line between. (The reader
/// reads the first `[DhtmlXQ]` block of a text: write one game a file to read them all back.)
pub fn write_games<'a>(games: impl IntoIterator<Item = &'a GameRecord>) -> String {
    let mut out = String::new();
    for (i, g) in games.into_iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        write_game(&mut out, g);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn main_line_variation_and_comments() {
        // h2e2 (7,7 -> 4,7), h9g7 (7,0 -> 6,2); branch 1 replaces ply 2 with b9c7.
        let t = "[DhtmlXQ][DhtmlXQ_movelist]77477062[/DhtmlXQ_movelist]\
                 [DhtmlXQ_move_0_2_1]10221[/DhtmlXQ_move_0_2_1][/DhtmlXQ]";
        let e = read_str(t).unwrap_err();
        assert!(e.to_string().contains("not a multiple of 4"), "{e}");
        let t = "[DhtmlXQ][DhtmlXQ_title]T[/DhtmlXQ_title][DhtmlXQ_result]红胜[/DhtmlXQ_result]\
                 [DhtmlXQ_movelist]77477062[/DhtmlXQ_movelist]\
                 [DhtmlXQ_move_0_2_1]1022[/DhtmlXQ_move_0_2_1]\
                 [DhtmlXQ_comment0]a||b[/DhtmlXQ_comment0]\
                 [DhtmlXQ_comment1_2]alt[/DhtmlXQ_comment1_2][/DhtmlXQ]";
        let rec = read_str(t).unwrap();
        assert_eq!(rec.comment.as_deref(), Some("a\nb"));
        assert_eq!(rec.result, GameResult::RedWins);
        assert_eq!(rec.tag("Title"), Some("T"));
        let ml: Vec<String> = rec.mainline().map(|m| m.to_string()).collect();
        assert_eq!(ml, ["h2e2", "h9g7"]);
        let v = &rec.moves[1].variations[0];
        assert_eq!(v[0].mv.to_string(), "b9c7");
        assert_eq!(v[0].comment.as_deref(), Some("alt"));
    }

    #[test]
    fn unknown_parent_branch_is_an_error() {
        let t = "[DhtmlXQ_movelist]7747[/DhtmlXQ_movelist][DhtmlXQ_move_5_1_6]1022[/DhtmlXQ_move_5_1_6]";
        let e = read_str(t).unwrap_err();
        assert!(e.to_string().contains("branch 5"), "{e}");
    }

    #[test]
    fn gbk_text_and_binit_setup() {
        // A set-up (generals and one red chariot) in GBK-encoded text.
        let mut pieces = vec!["99"; 32];
        pieces[0] = "01"; // Red chariot, a8
        pieces[4] = "49"; // Red general, e0
        pieces[20] = "30"; // Black general, d9
        let t = format!(
            "[DhtmlXQ][DhtmlXQ_title]残局[/DhtmlXQ_title][DhtmlXQ_binit]{}[/DhtmlXQ_binit]\
             [DhtmlXQ_movelist]0111[/DhtmlXQ_movelist][DhtmlXQ_result]红胜[/DhtmlXQ_result][/DhtmlXQ]",
            pieces.concat()
        );
        let (bytes, _, _) = encoding_rs::GBK.encode(&t);
        assert!(std::str::from_utf8(&bytes).is_err());
        let rec = read(&bytes).unwrap();
        assert_eq!(rec.tag("Title"), Some("残局"));
        assert_eq!(rec.start.fen(), "3k5/R8/9/9/9/9/9/9/9/4K4 w - - 0 1");
        assert_eq!(rec.moves[0].mv.to_string(), "a8b8");
        assert_eq!(rec.result, GameResult::RedWins);
    }

    #[test]
    fn unclosed_tag_is_an_error() {
        let e = read_str("[DhtmlXQ_movelist]7747").unwrap_err();
        assert!(e.to_string().contains("no closing"), "{e}");
        assert_eq!(e.offset, Some(0));
    }
}
