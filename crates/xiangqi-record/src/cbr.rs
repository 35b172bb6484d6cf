//! CCBridge (象棋桥) binary single-game records, `.cbr`, versions 1 and 2; the same record
//! is the unit of a `.cbl` library (see [`crate::cbl`]).
//!
//! Layout (byte offsets of version 2, version 1's in parentheses): `"CCBridge Record\0"`, the
//! version at 19; UTF-16LE strings, NUL-terminated inside fixed fields: title 180 (v1: 52), event
//! 692 (v1: 564), round 756 (v1: 628), group 820 (v1: 692), table 852 (v1: 724), date 884 (v1:
//! 756), site 948 (v1: 820), Red 1076 (v1: 948), Red's team 1140 (v1: 1012), Red's time 1204 (v1:
//! 1076), Red's rating 1268 (v1: 1140), Black 1300 (v1: 1172), Black's team 1364 (v1: 1236),
//! Black's time 1428 (v1: 1300), Black's rating 1492 (v1: 1364), referee 1524, recorder 1588,
//! annotator 1652 (v1: 1396), author 1780 (v1: 1524); the result byte at 2076 (v1: 1820) (0
//! unknown, 1 Red wins, 2 Black wins, 3 draw); side to move at 2112 (v1: 1856) (2 = Black); move
//! number (u16) at 2116 (v1: 1860); the board, 90 bytes from the top-left point row by row, at 2120
//! (v1: 1864) (`0x11`..`0x17` Red chariot, horse, elephant, advisor, general, cannon, soldier,
//! `0x21`..`0x27` Black's); the move tree from 2214 (v1: 1958).
//!
//! The move tree: records `[flags, 0, from, to]` in pre-order, where flags `1` = the line
//! ends here, `2` = an alternative to this move follows, `4` = a comment follows (i32 byte
//! length, then UTF-16LE text). The first record (from = to) stands for the start position.
//! Squares are `row * 9 + column` from the top-left point in version 2, and the two decimal
//! digits column, row (as hexadecimal nibbles) in version 1.
//!
//! Header fields the program never filled hold leftover memory; a field that is not clean
//! text (control characters, broken UTF-16) is left out rather than reported.

use xiangqi::{Board, Color, Piece, Role, Square};

use crate::model::{GameRecord, GameResult};
use crate::rawtree::{
    le32, place, start_position, to_lines, tree_reader_entry_points, ErrorKind, Format, RawTree,
    ReadError, Slot,
};

/// The error type of this reader.
pub type CbrError = ReadError;

/// The 16 bytes every CBR record (also inside a CBL library) starts with.
pub const MAGIC: &[u8; 16] = b"CCBridge Record\0";

/// Cheap check: the record magic.
pub fn looks_like(bytes: &[u8]) -> bool {
    bytes.starts_with(MAGIC)
}

tree_reader_entry_points!(
    "a `.cbr` file", |b, d, s| read_game(b, 0, Format::Cbr, d, s),
    "The faults: an illegal move, a square off the board, a record or comment cut short; the variations read before the fault are kept too. A bad header is still the error."
);

struct Layout {
    strings: &'static [(&'static str, usize, usize)],
    result: usize,
    side: usize,
    move_number: usize,
    board: usize,
    moves: usize,
}

const V2: Layout = Layout {
    strings: &[
        ("Event", 692, 64),
        ("Round", 756, 64),
        ("Group", 820, 32),
        ("Table", 852, 32),
        ("Date", 884, 64),
        ("Site", 948, 64),
        ("Red", 1076, 64),
        ("RedTeam", 1140, 64),
        ("RedTime", 1204, 64),
        ("RedRating", 1268, 32),
        ("Black", 1300, 64),
        ("BlackTeam", 1364, 64),
        ("BlackTime", 1428, 64),
        ("BlackRating", 1492, 32),
        ("Referee", 1524, 64),
        ("Recorder", 1588, 64),
        ("Annotator", 1652, 64),
        ("Author", 1780, 64),
        ("Title", 180, 128),
    ],
    result: 2076,
    side: 2112,
    move_number: 2116,
    board: 2120,
    moves: 2214,
};

const V1: Layout = Layout {
    strings: &[
        ("Event", 564, 64),
        ("Round", 628, 64),
        ("Group", 692, 32),
        ("Table", 724, 32),
        ("Date", 756, 64),
        ("Site", 820, 64),
        ("Red", 948, 64),
        ("RedTeam", 1012, 64),
        ("RedTime", 1076, 64),
        ("RedRating", 1140, 32),
        ("Black", 1172, 64),
        ("BlackTeam", 1236, 64),
        ("BlackTime", 1300, 64),
        ("BlackRating", 1364, 32),
        ("Annotator", 1396, 64),
        ("Author", 1524, 64),
        ("Title", 52, 128),
    ],
    result: 1820,
    side: 1856,
    move_number: 1860,
    board: 1864,
    moves: 1958,
};

/// A NUL-terminated UTF-16LE string inside a fixed field; `None` when empty or not clean text.
pub(crate) fn field_string(data: &[u8], at: usize, len: usize) -> Option<String> {
    let bytes = data.get(at..at + len)?;
    let units: Vec<u16> = bytes
        .chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .take_while(|&u| u != 0)
        .collect();
    let s = String::from_utf16(&units).ok()?;
    let clean = s.chars().all(|c| {
        let control = c.is_control() && !matches!(c, '\t' | '\n' | '\r');
        let private_use = ('\u{e000}'..='\u{f8ff}').contains(&c);
        !control && !private_use
    });
    let s = s.trim();
    if clean && !s.is_empty() {
        Some(s.to_owned())
    } else {
        None
    }
}

fn utf16_text(bytes: &[u8]) -> String {
    let units: Vec<u16> = bytes
        .chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect();
    String::from_utf16_lossy(&units)
        .trim_matches(|c: char| c == '\0' || c.is_whitespace())
        .to_owned()
}

fn piece_of(code: u8) -> Option<Piece> {
    let color = match code >> 4 {
        1 => Color::Red,
        2 => Color::Black,
        _ => return None,
    };
    let role = match code & 0x0f {
        1 => Role::Chariot,
        2 => Role::Horse,
        3 => Role::Elephant,
        4 => Role::Advisor,
        5 => Role::General,
        6 => Role::Cannon,
        7 => Role::Soldier,
        _ => return None,
    };
    Some(Piece::new(color, role))
}

/// Reads one game record starting at `data[0]`; `base` is its offset in the file (for
/// error messages) and `format` the format to name in errors.
pub(crate) fn read_game(
    data: &[u8],
    base: usize,
    format: Format,
    dropped: Option<&mut Vec<ReadError>>,
    salvage: bool,
) -> Result<GameRecord, ReadError> {
    if !data.starts_with(MAGIC) {
        let shown: Vec<String> = data.iter().take(16).map(|b| format!("{b:02x}")).collect();
        return Err(ReadError::at(
            format,
            base,
            ErrorKind::NotThisFormat(format!(
                "a CCBridge record starts with \"CCBridge Record\\0\", this one with [{}]",
                shown.join(" ")
            )),
        ));
    }
    let version = match data.get(19) {
        Some(&v) => v,
        None => {
            return Err(ReadError::truncated(
                format,
                base + data.len(),
                "the record header",
            ))
        }
    };
    let layout = match version {
        1 => &V1,
        2 => &V2,
        v => {
            return Err(ReadError::invalid(
                format,
                base + 19,
                format!("unknown CCBridge record version {v} (known: 1, 2)"),
            ))
        }
    };
    if data.len() < layout.moves {
        return Err(ReadError::truncated(
            format,
            base + data.len(),
            "the record header",
        ));
    }

    if data[layout.board..layout.board + 90]
        .iter()
        .all(|&c| c == 0)
    {
        return Err(ReadError::at(
            format,
            base + layout.board,
            ErrorKind::EmptyRecord,
        ));
    }
    let mut board = Board::empty();
    for i in 0..90usize {
        let code = data[layout.board + i];
        if code == 0 {
            continue;
        }
        let piece = piece_of(code).ok_or_else(|| {
            ReadError::invalid(
                format,
                base + layout.board + i,
                format!("unknown piece code 0x{code:02x} on the board"),
            )
        })?;
        let sq = Square::new(((9 - i / 9) * 9 + i % 9) as u8).expect("on the board");
        place(format, base + layout.board + i, &mut board, sq, piece)?;
    }
    let turn = if data[layout.side] == 2 {
        Color::Black
    } else {
        Color::Red
    };
    let move_number = u16::from_le_bytes([data[layout.move_number], data[layout.move_number + 1]]);

    let tree = read_tree(data, layout.moves, version, base, format, salvage)?;
    let start = start_position(
        format,
        board,
        turn,
        move_number as u32,
        &tree,
        base + layout.board,
    )?;
    let moves = to_lines(format, &tree, &start, dropped)?;
    let result = match data[layout.result] {
        1 => GameResult::RedWins,
        2 => GameResult::BlackWins,
        3 => GameResult::Draw,
        _ => GameResult::Unknown,
    };
    let mut rec = GameRecord {
        start,
        comment: tree.root_comment.clone(),
        moves,
        result,
        ..GameRecord::default()
    };
    for &(name, at, len) in layout.strings {
        if let Some(v) = field_string(data, at, len) {
            rec.set_tag(name, v);
        }
    }
    rec.set_tag("Result", result.as_pgn());
    Ok(rec)
}

fn square(version: u8, code: u8) -> Option<Square> {
    let (col, row) = if version == 1 {
        ((code >> 4) as usize, (code & 0x0f) as usize)
    } else {
        ((code % 9) as usize, (code / 9) as usize)
    };
    if col > 8 || row > 9 {
        return None;
    }
    Square::new(((9 - row) * 9 + col) as u8)
}

struct Rec {
    flags: u8,
    from: u8,
    to: u8,
    comment: Option<String>,
}

fn read_record(
    data: &[u8],
    pos: &mut usize,
    base: usize,
    format: Format,
) -> Result<Rec, ReadError> {
    let at = *pos;
    let r = data
        .get(at..at + 4)
        .ok_or_else(|| ReadError::truncated(format, base + at, "a move record (4 bytes)"))?;
    let (flags, from, to) = (r[0], r[2], r[3]);
    *pos += 4;
    let comment = if flags & 4 != 0 {
        let len = le32(data, *pos).ok_or_else(|| {
            ReadError::truncated(format, base + at, "a move record's comment length")
        })? as usize;
        *pos += 4;
        let text = data.get(*pos..pos.saturating_add(len)).ok_or_else(|| {
            ReadError::invalid(
                format,
                base + at,
                format!(
                    "a comment of {len} bytes, but only {} bytes are left",
                    data.len() - *pos
                ),
            )
        })?;
        *pos += len;
        let t = utf16_text(text);
        if t.is_empty() {
            None
        } else {
            Some(t)
        }
    } else {
        None
    };
    Ok(Rec {
        flags,
        from,
        to,
        comment,
    })
}

/// Reads the move tree. Salvaging, a fault (a record cut short, a square off the board) stops
/// the reading there, keeping what was read (see [`RawTree::stop`]).
fn read_tree(
    data: &[u8],
    start: usize,
    version: u8,
    base: usize,
    format: Format,
    salvage: bool,
) -> Result<RawTree, ReadError> {
    let mut tree = RawTree::salvaging(salvage);
    let mut pos = start;
    if pos >= data.len() {
        return Ok(tree);
    }
    let left = |at: usize| {
        let n = data.len() - at;
        format!(
            "the last {n} byte{} of the record, from this move record on, were left out",
            if n == 1 { "" } else { "s" }
        )
    };
    let root = match read_record(data, &mut pos, base, format) {
        Ok(r) => r,
        Err(e) => {
            tree.stop(Slot::ChildOf(None), e, left(start))?;
            return Ok(tree);
        }
    };
    tree.root_comment = root.comment;
    if root.flags & 1 != 0 {
        return Ok(tree);
    }
    // No moves: the data ends, or the next record is empty (from = to).
    match data.get(pos..pos + 4) {
        None => return Ok(tree),
        Some(r) if r[2] == r[3] => return Ok(tree),
        _ => {}
    }
    let mut pending = vec![Slot::ChildOf(None)];
    while let Some(slot) = pending.pop() {
        let at = pos;
        let read = read_record(data, &mut pos, base, format).and_then(|r| {
            let bad = |what, value: u8| {
                ReadError::at(
                    format,
                    base + at,
                    ErrorKind::BadSquare {
                        what,
                        value: value as u32,
                    },
                )
            };
            let from =
                square(version, r.from).ok_or_else(|| bad("a move's from-square", r.from))?;
            let to = square(version, r.to).ok_or_else(|| bad("a move's to-square", r.to))?;
            Ok((from, to, r))
        });
        let (from, to, r) = match read {
            Ok(x) => x,
            Err(e) => {
                tree.stop(slot, e, left(at))?;
                break;
            }
        };
        let idx = tree.add(slot, (from, to, r.comment, base + at));
        if r.flags & 2 != 0 {
            pending.push(Slot::SiblingOf(idx));
        }
        if r.flags & 1 == 0 {
            pending.push(Slot::ChildOf(Some(idx)));
        }
    }
    Ok(tree)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn minimal(moves: &[(u8, u8, u8)]) -> Vec<u8> {
        let mut f = vec![0u8; 2214];
        f[..16].copy_from_slice(MAGIC);
        f[19] = 2;
        f[2112] = 1;
        let top = [0x21u8, 0x22, 0x23, 0x24, 0x25, 0x24, 0x23, 0x22, 0x21];
        f[2120..2129].copy_from_slice(&top);
        f[2120 + 2 * 9 + 1] = 0x26;
        f[2120 + 2 * 9 + 7] = 0x26;
        for c in (0..9).step_by(2) {
            f[2120 + 3 * 9 + c] = 0x27;
            f[2120 + 6 * 9 + c] = 0x17;
        }
        f[2120 + 7 * 9 + 1] = 0x16;
        f[2120 + 7 * 9 + 7] = 0x16;
        for (i, p) in top.iter().enumerate() {
            f[2120 + 81 + i] = p - 0x10;
        }
        f.extend_from_slice(&[0, 0, 0, 0]);
        for &(fl, a, b) in moves {
            f.extend_from_slice(&[fl, 0, a, b]);
        }
        f
    }

    #[test]
    fn start_and_a_variation() {
        // h2e2 (70 -> 67), then h9g7 (7 -> 24) with the alternative b9c7 (1 -> 20).
        let f = minimal(&[(0, 70, 67), (3, 7, 24), (1, 1, 20)]);
        let rec = read(&f).unwrap();
        assert_eq!(rec.start, xiangqi::Position::new());
        assert_eq!(rec.moves.len(), 2);
        assert_eq!(rec.moves[1].mv.to_string(), "h9g7");
        assert_eq!(rec.moves[1].variations[0][0].mv.to_string(), "b9c7");
    }

    #[test]
    fn version_1_layout_and_squares() {
        // Same board and moves as a version-2 record, moved to the version-1 offsets, with
        // squares written as the nibbles column, row-from-the-top.
        let v2 = minimal(&[]);
        let mut f = vec![0u8; 1958];
        f[..16].copy_from_slice(MAGIC);
        f[19] = 1;
        f[1856] = 1;
        f[1864..1954].copy_from_slice(&v2[2120..2210]);
        f[1820] = 2; // Black wins
        let title: Vec<u8> = "v1".encode_utf16().flat_map(|u| u.to_le_bytes()).collect();
        f[52..52 + title.len()].copy_from_slice(&title);
        f.extend_from_slice(&[0, 0, 0, 0]);
        // h2e2 = (7, 7) -> (4, 7); h9g7 = (7, 0) -> (6, 2), the end of the line.
        f.extend_from_slice(&[0, 0, 0x77, 0x47, 1, 0, 0x70, 0x62]);
        let rec = read(&f).unwrap();
        let ml: Vec<String> = rec.mainline().map(|m| m.to_string()).collect();
        assert_eq!(ml, ["h2e2", "h9g7"]);
        assert_eq!(rec.result, GameResult::BlackWins);
        assert_eq!(rec.tag("Title"), Some("v1"));
        // A nibble above 9 is no square.
        let mut bad = f.clone();
        let n = bad.len();
        bad[n - 1] = 0x6a;
        let e = read(&bad).unwrap_err();
        assert!(
            matches!(e.kind, ErrorKind::BadSquare { value: 0x6a, .. }),
            "{e}"
        );
    }

    #[test]
    fn bad_version_and_truncation() {
        let mut f = minimal(&[]);
        f[19] = 7;
        assert!(read(&f).unwrap_err().to_string().contains("version 7"));
        let f = minimal(&[(0, 70, 67)]);
        let e = read(&f).unwrap_err();
        assert!(matches!(e.kind, ErrorKind::Truncated { .. }), "{e}");
    }
}
