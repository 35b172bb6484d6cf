//! The other layout of a compressed CCBridge library: GBK strings with a length before them,
//! and each game a block of its own (no `"CCBridge Record\0"` inside). Worked out here from a
//! real library (the 梅花谱 of `tests/data/records/zfdang-meihuapu.cbl`: 47 games, every move
//! legal), so what the sample leaves empty or constant is named as unknown.
//!
//! Inflated, all integers little-endian, a *string* being a u32 byte length and that many GBK
//! bytes:
//!
//! - the library: its name (string), three more strings (the sample: empty, empty, 桔中秘) and
//!   a fourth (empty); 38 bytes of text, two times of 19 characters (created, changed); the
//!   number of games (u32); a preface (string); then the games, one after another.
//! - a game: its length in bytes, these four included (u32); the board, 32 bytes, one a piece
//!   in the order chariot, horse, elephant, advisor, general, advisor, elephant, horse,
//!   chariot, cannon, cannon, five soldiers, Red's 16 then Black's, each `column << 4 | row`
//!   counted from 1 from the top-left point as Red sees the board (0: taken); the result
//!   (u32: 1 Red wins, 2 Black wins, 3 a draw, as in CCBridge's records; 2 in the sample,
//!   whose games Black wins) and two unknown u32s; the title (string); four strings (empty in
//!   the sample); the opening and its variation (strings: 让先屏风马, 当头直车); three unknown
//!   u32s; the author (string: 盛昱); two unknown u32s and a byte; 38 bytes of text (two times
//!   again); the number of moves (u32); 6 bytes a move: its number from 1 (u16), the from- and
//!   to-squares (`column << 4 | row`, counted from 0 from the top-left point), and the move
//!   in Chinese notation as four nibbles (piece, file, direction, target: 炮二平五 is
//!   `0x51 0x24`), which the squares make redundant and the reader does not use; then GBK
//!   text to the end of the game, a line ended by CR LF for each move: its comment (every
//!   line is empty in the sample; a text with another number of lines is the game's comment).

use xiangqi::{Board, Color, Piece, Square};

use super::Library;
use crate::model::{GameRecord, GameResult};
use crate::rawtree::{
    gbk, nonempty, place, start_position, to_lines, ErrorKind, Format, RawTree, ReadError, Slot,
    SIDE_ROLES,
};

const F: Format = Format::Cbl;

/// The text of two times, in the library's and in each game's header.
const TIMES: usize = 38;

/// The bytes of a game before its title: length, board, three u32s.
const GAME_HEAD: usize = 4 + 32 + 12;

/// Bytes read in order, naming what ends early.
struct Cursor<'a> {
    data: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8], ReadError> {
        match self.data.get(self.at..self.at.saturating_add(n)) {
            Some(b) => {
                self.at += n;
                Ok(b)
            }
            None => Err(ReadError::truncated(F, self.data.len(), what)),
        }
    }

    fn u32(&mut self, what: &'static str) -> Result<u32, ReadError> {
        let b = self.take(4, what)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// A string: its length, then that many GBK bytes; `None` when empty.
    fn text(&mut self, what: &'static str) -> Result<Option<String>, ReadError> {
        let at = self.at;
        let n = self.u32(what)? as usize;
        let left = self.data.len() - self.at;
        if n > left {
            return Err(ReadError::invalid(
                F,
                at,
                format!("{what}: a string of {n} bytes, but only {left} bytes follow"),
            ));
        }
        Ok(nonempty(gbk(self.take(n, what)?)))
    }
}

/// The library's header: its name, preface and number of games; the cursor at the first game.
fn header(body: &[u8]) -> Result<(Option<String>, Option<String>, usize, usize), ReadError> {
    let mut c = Cursor { data: body, at: 0 };
    let name = c.text("the library's name")?;
    for _ in 0..4 {
        c.text("the library's header")?;
    }
    c.take(TIMES, "the library's times")?;
    let count_at = c.at;
    let count = c.u32("the library's number of games")? as usize;
    let preface = c.text("the library's preface")?;
    // A game takes at least its head: more games than could fit is no count.
    if count > (body.len() - c.at) / GAME_HEAD + 1 {
        return Err(ReadError::invalid(
            F,
            count_at,
            format!(
                "the library announces {count} games, more than its {} bytes can hold",
                body.len()
            ),
        ));
    }
    Ok((name, preface, count, c.at))
}

/// Whether an inflated library is in this layout: its header reads, and the first game's
/// length (if it has games) is one that fits.
pub(super) fn looks_like(body: &[u8]) -> bool {
    let Ok((_, _, count, at)) = header(body) else {
        return false;
    };
    if count == 0 {
        return at == body.len();
    }
    crate::rawtree::le32(body, at)
        .is_some_and(|n| n as usize >= GAME_HEAD && n as usize <= body.len() - at)
}

/// Reads the library: each game, or the error it gave (naming the game). `lenient` and
/// `salvage` as for the other layout ([`super::read_library_lenient`],
/// [`super::read_library_salvaging`]).
pub(super) fn read_library(
    body: &[u8],
    lenient: bool,
    salvage: bool,
) -> Result<Library, ReadError> {
    let (name, preface, count, mut at) = header(body)?;
    let mut lib = Library {
        name,
        preface,
        offsets: Vec::with_capacity(count),
        games: Vec::with_capacity(count),
        dropped: Vec::new(),
    };
    for i in 0..count {
        let numbered = |mut e: ReadError| {
            e.game = Some(i + 1);
            e
        };
        let len = match crate::rawtree::le32(body, at) {
            Some(n) if n as usize >= GAME_HEAD && n as usize <= body.len() - at => n as usize,
            // Cut short: salvaging reads the moves that are there.
            Some(n) if salvage && n as usize >= GAME_HEAD => body.len() - at,
            Some(n) => {
                // The games after it cannot be found: this game is the library's last.
                lib.offsets.push(at);
                lib.games.push(Err(numbered(ReadError::invalid(
                    F,
                    at,
                    format!(
                        "game {} of {count} is {n} bytes long, but {} bytes are left",
                        i + 1,
                        body.len() - at
                    ),
                ))));
                break;
            }
            None => {
                lib.offsets.push(at);
                lib.games.push(Err(numbered(ReadError::truncated(
                    F,
                    body.len(),
                    "a game's length",
                ))));
                break;
            }
        };
        let mut dropped = Vec::new();
        let game = read_game(
            &body[..at + len],
            at,
            lenient.then_some(&mut dropped),
            salvage,
        )
        .map_err(numbered);
        lib.dropped.extend(dropped.into_iter().map(numbered));
        lib.offsets.push(at);
        lib.games.push(game);
        at += len;
    }
    Ok(lib)
}

/// Reads the game at `at`, which ends where `data` ends.
fn read_game(
    data: &[u8],
    at: usize,
    dropped: Option<&mut Vec<ReadError>>,
    salvage: bool,
) -> Result<GameRecord, ReadError> {
    let mut c = Cursor { data, at: at + 4 };
    let board_at = c.at;
    let squares = c.take(32, "the game's board")?;
    let mut board = Board::empty();
    for (i, &b) in squares.iter().enumerate() {
        if b == 0 {
            continue;
        }
        let (col, row) = (b >> 4, b & 15);
        if !(1..=9).contains(&col) || !(1..=10).contains(&row) {
            return Err(ReadError::invalid(
                F,
                board_at + i,
                format!(
                    "the board's piece {} stands on column {col}, row {row} (columns 1-9, rows \
                     1-10): off the board",
                    i + 1
                ),
            ));
        }
        let color = if i < 16 { Color::Red } else { Color::Black };
        let sq = Square::new((10 - row) * 9 + col - 1).expect("on the board");
        place(
            F,
            board_at + i,
            &mut board,
            sq,
            Piece::new(color, SIDE_ROLES[i % 16]),
        )?;
    }
    if board.pieces().next().is_none() {
        return Err(ReadError::at(F, board_at, ErrorKind::EmptyRecord));
    }
    let result = match c.u32("the game's head")? {
        1 => GameResult::RedWins,
        2 => GameResult::BlackWins,
        3 => GameResult::Draw,
        _ => GameResult::Unknown,
    };
    c.take(8, "the game's head")?;
    let title = c.text("the game's title")?;
    for _ in 0..4 {
        c.text("the game's header")?;
    }
    let opening = c.text("the game's opening")?;
    let variation = c.text("the game's variation")?;
    c.take(12, "the game's header")?;
    let author = c.text("the game's author")?;
    c.take(8 + 1 + TIMES, "the game's header")?;
    let count_at = c.at;
    let count = c.u32("the game's number of moves")? as usize;
    let room = (data.len() - c.at) / 6;
    // The moves as far as they read, and the fault that ended them early, if any.
    let mut moves = Vec::with_capacity(count.min(room));
    let mut fault = None;
    if count > room {
        fault = Some((
            ReadError::invalid(
                F,
                count_at,
                format!(
                    "the game announces {count} moves, but its {} bytes after the header hold {room}",
                    data.len() - c.at
                ),
            ),
            c.at,
        ));
    }
    for k in 0..count.min(room) {
        let r = c.take(6, "a move")?;
        let rec = c.at - 6;
        let number = u16::from_le_bytes([r[0], r[1]]) as usize;
        let square = |b: u8, what: &str, off: usize| {
            let (col, row) = (b >> 4, b & 15);
            if col > 8 || row > 9 {
                return Err(ReadError::invalid(
                    F,
                    rec + off,
                    format!(
                        "move {}: the {what} is column {col}, row {row} (columns 0-8, rows \
                         0-9): off the board",
                        k + 1
                    ),
                ));
            }
            Ok(Square::new((9 - row) * 9 + col).expect("on the board"))
        };
        let mv = if number != k + 1 {
            Err(ReadError::invalid(
                F,
                rec,
                format!("move {} is numbered {number}", k + 1),
            ))
        } else {
            square(r[2], "from-square", 2).and_then(|f| Ok((f, square(r[3], "to-square", 3)?)))
        };
        match mv {
            Ok((from, to)) => moves.push((from, to, rec)),
            Err(e) => {
                fault = Some((e, rec));
                break;
            }
        }
    }
    // One comment line for each move, or else a comment on the whole game.
    let mut comments = vec![None; moves.len()];
    let mut comment = None;
    if fault.is_none() {
        let text = gbk(&data[c.at..]);
        let lines: Vec<&str> = text.split("\r\n").collect();
        if lines.len() == moves.len() + 1 && lines[moves.len()].is_empty() {
            for (to, line) in comments.iter_mut().zip(&lines) {
                *to = nonempty(line.to_string());
            }
        } else {
            comment = nonempty(text.replace("\r\n", "\n"));
        }
    }
    let mut tree = RawTree::salvaging(salvage);
    let mut parent = None;
    for ((from, to, rec), note) in moves.into_iter().zip(comments) {
        parent = Some(tree.add(Slot::ChildOf(parent), (from, to, note, rec)));
    }
    if let Some((e, from)) = fault {
        let left = format!(
            "the last {} bytes of the game were left out",
            data.len() - from
        );
        tree.stop(Slot::ChildOf(parent), e, left)?;
    }
    let start = start_position(F, board, Color::Red, 1, &tree, board_at)?;
    let moves = to_lines(F, &tree, &start, dropped)?;
    let mut rec = GameRecord {
        start,
        comment,
        moves,
        result,
        ..GameRecord::default()
    };
    for (tag, v) in [
        ("Title", title),
        ("Opening", opening),
        ("Variation", variation),
        ("Author", author),
    ] {
        if let Some(v) = v {
            rec.set_tag(tag, v);
        }
    }
    rec.set_tag("Result", result.as_pgn());
    Ok(rec)
}
