//! XQR ("XiangQi Replay"), `.xqr`: a binary record of type-length-value fields, a move tree
//! and a CRC-32.
//!
//! * Fields: a type byte, a length byte, the value. The first is the magic (type 0, length 2,
//!   `20 17`); then, in any order: 1 version, 2 event, 3 site, 4 date, 5 Red, 6 Black (UTF-8
//!   strings), 7 result (one byte), 8 FEN (the start position, UTF-8). Type 9 (length 0) starts
//!   the moves.
//! * Moves: a tree in pre-order (a node, its first child's subtree, then its next sibling's),
//!   4 bytes a node: from, to, flags, reserved. A square byte is the row from the top (0-9, Black's
//!   back rank 0) in its high nibble and the column from the left (0-8) in its low nibble.
//!   Flags: bit 0 a child follows, bit 1 a sibling (an alternative) follows, bit 2 a comment
//!   follows: a 4-byte little-endian length and the UTF-8 text. The first node stands for the
//!   start position (its comment is the game's opening comment) and has no sibling.
//! * Last, type 10 with length 4: the CRC-32 (the zlib/PNG one), little-endian, of every byte
//!   before that type byte.
//!
//! The result byte: 1 is Red wins (the only value in the one sample file found); 2 Black wins
//! and 3 a draw are read by analogy with XQF, whose shortcomings the format's author names as
//! its reason; 0 and any other value leave the result unknown.
//!
//! Where the layout comes from: the README of pengguang001/xqr (commit `f8d3c7a`, no licence)
//! and its sample `res/1.xqr`, which this reader reads as the game of the repository's
//! `res/1.pgn` (checked by hand; the sample is not redistributed here).

use xiangqi::{Board, Color, Fen, Square};

use crate::model::{GameRecord, GameResult};
use crate::rawtree::{
    le32, nonempty, start_position, to_lines, tree_reader_entry_points, ErrorKind, Format, RawTree,
    ReadError, Slot,
};

/// The error type of this reader.
pub type XqrError = ReadError;

const F: Format = Format::Xqr;
const MAGIC: [u8; 4] = [0x00, 0x02, 0x20, 0x17];
const TYPE_MOVE: u8 = 9;
const TYPE_CRC: u8 = 10;

/// Cheap check: the magic field, `00 02 20 17`.
pub fn looks_like(bytes: &[u8]) -> bool {
    bytes.starts_with(&MAGIC)
}

tree_reader_entry_points!("an XQR file", read_impl);

fn square(b: u8, at: usize, what: &'static str) -> Result<Square, ReadError> {
    let (row, col) = (b >> 4, b & 0x0f);
    if row > 9 || col > 8 {
        return Err(ReadError::invalid(
            F,
            at,
            format!(
                "{what} is 0x{b:02x}: row {row} (0-9) and column {col} (0-8) are off the board"
            ),
        ));
    }
    Square::new((9 - row) * 9 + col).ok_or_else(|| ReadError::invalid(F, at, "no square"))
}

/// One node of the tree: from, to, flags, comment; and the offset after it.
struct Node {
    from: u8,
    to: u8,
    flags: u8,
    comment: Option<String>,
}

fn node(bytes: &[u8], at: usize) -> Result<(Node, usize), ReadError> {
    let b = bytes
        .get(at..at + 4)
        .ok_or_else(|| ReadError::truncated(F, at, "a move of the tree (4 bytes)"))?;
    let (from, to, flags) = (b[0], b[1], b[2]);
    let mut next = at + 4;
    let mut comment = None;
    if flags & 4 != 0 {
        let len = le32(bytes, next)
            .ok_or_else(|| ReadError::truncated(F, next, "a comment's length"))?
            as usize;
        let text = bytes
            .get(next + 4..)
            .and_then(|rest| rest.get(..len))
            .ok_or_else(|| {
                ReadError::invalid(
                    F,
                    next,
                    format!(
                        "a comment of {len} bytes, but only {} bytes follow",
                        bytes.len().saturating_sub(next + 4)
                    ),
                )
            })?;
        comment = nonempty(String::from_utf8_lossy(text).into_owned());
        next += 4 + len;
    }
    Ok((
        Node {
            from,
            to,
            flags,
            comment,
        },
        next,
    ))
}

fn read_impl(
    bytes: &[u8],
    dropped: Option<&mut Vec<XqrError>>,
    salvage: bool,
) -> Result<GameRecord, XqrError> {
    if !looks_like(bytes) {
        let shown: Vec<String> = bytes.iter().take(4).map(|b| format!("{b:02x}")).collect();
        return Err(ReadError::at(
            F,
            0,
            ErrorKind::NotThisFormat(format!(
                "an XQR file starts with the field 00 02 20 17, this one with [{}]",
                shown.join(" ")
            )),
        ));
    }
    let mut rec = GameRecord::default();
    let mut result = GameResult::Unknown;
    let mut board = Board::start();
    let mut turn = Color::Red;
    let mut fullmoves = 1;
    let mut board_at = 0;

    // The information fields, up to the moves.
    let mut pos = MAGIC.len();
    loop {
        let head = bytes
            .get(pos..pos + 2)
            .ok_or_else(|| ReadError::truncated(F, pos, "the fields before the moves (type 9)"))?;
        let (t, len) = (head[0], head[1] as usize);
        let value = bytes.get(pos + 2..pos + 2 + len).ok_or_else(|| {
            ReadError::invalid(
                F,
                pos,
                format!(
                    "field of type {t} holds {len} bytes, but only {} follow",
                    bytes.len() - pos - 2
                ),
            )
        })?;
        let text = || String::from_utf8_lossy(value).into_owned();
        match t {
            TYPE_MOVE => {
                pos += 2 + len;
                break;
            }
            0 => return Err(ReadError::invalid(F, pos, "a second magic field")),
            2..=6 => {
                let tag = ["Event", "Site", "Date", "Red", "Black"][t as usize - 2];
                if let Some(v) = nonempty(text()) {
                    rec.set_tag(tag, v);
                }
            }
            7 => {
                result = match value.first() {
                    Some(1) => GameResult::RedWins,
                    Some(2) => GameResult::BlackWins,
                    Some(3) => GameResult::Draw,
                    _ => GameResult::Unknown,
                }
            }
            8 => {
                let fen = text();
                let fen = fen.trim_matches(|c: char| c.is_whitespace() || c == '\0');
                if !fen.is_empty() {
                    let setup = fen.parse::<Fen>().map_err(|e| {
                        ReadError::invalid(
                            F,
                            pos,
                            format!("the FEN field \"{fen}\" is no FEN: {e}"),
                        )
                    })?;
                    board = setup.0.board;
                    turn = setup.0.turn;
                    fullmoves = setup.0.fullmoves;
                    board_at = pos;
                }
            }
            TYPE_CRC => {
                return Err(ReadError::invalid(
                    F,
                    pos,
                    "the CRC field (type 10) before any moves (type 9)",
                ))
            }
            // The version, and types this reader does not know: passed over.
            _ => {}
        }
        pos += 2 + len;
    }

    // The move tree, in pre-order; `pending` holds the nodes whose sibling is still to come.
    let mut tree = RawTree::salvaging(salvage);
    let left = |at: usize| {
        format!(
            "the last {} bytes of the file, from this node on, were left out",
            bytes.len() - at
        )
    };
    let mut next = None;
    match node(bytes, pos) {
        Ok((root, after)) => {
            if root.flags & 2 != 0 {
                return Err(ReadError::invalid(
                    F,
                    pos + 2,
                    "the first node (the start position) says a sibling follows: the start has \
                     none",
                ));
            }
            tree.root_comment = root.comment;
            pos = after;
            next = (root.flags & 1 != 0).then_some(Slot::ChildOf(None));
        }
        Err(e) => tree.stop(Slot::ChildOf(None), e, left(pos))?,
    }
    let mut pending: Vec<usize> = Vec::new();
    while let Some(slot) = next {
        let at = pos;
        let read = node(bytes, pos).and_then(|(n, after)| {
            let from = square(n.from, at, "a move's from-square")?;
            let to = square(n.to, at + 1, "a move's to-square")?;
            Ok((n, after, from, to))
        });
        let (n, after, from, to) = match read {
            Ok(x) => x,
            Err(e) => {
                // Salvaging: the moves read so far are kept; the rest of the file, CRC and
                // all, is left unread.
                tree.stop(slot, e, left(at))?;
                break;
            }
        };
        let i = tree.add(slot, (from, to, n.comment, at));
        if n.flags & 2 != 0 {
            pending.push(i);
        }
        next = if n.flags & 1 != 0 {
            Some(Slot::ChildOf(Some(i)))
        } else {
            pending.pop().map(Slot::SiblingOf)
        };
        pos = after;
    }

    // The CRC of everything before its field (not when salvaging stopped inside the tree: the
    // field cannot be found, and the file is damaged).
    if !tree.stopped() {
        check_crc(bytes, pos)?;
    }

    let start = start_position(F, board, turn, fullmoves, &tree, board_at)?;
    rec.moves = to_lines(F, &tree, &start, dropped)?;
    rec.start = start;
    rec.comment = tree.root_comment.clone();
    rec.result = result;
    rec.set_tag("Result", result.as_pgn());
    Ok(rec)
}

/// The CRC field at `pos`, after the moves: its type and length, the CRC-32 of every byte
/// before it, and nothing after it.
fn check_crc(bytes: &[u8], pos: usize) -> Result<(), XqrError> {
    let head = bytes
        .get(pos..pos + 2)
        .ok_or_else(|| ReadError::truncated(F, pos, "the CRC field after the moves"))?;
    if head != [TYPE_CRC, 4] {
        return Err(ReadError::invalid(
            F,
            pos,
            format!(
                "after the moves comes the CRC field (0a 04), here {:02x} {:02x}",
                head[0], head[1]
            ),
        ));
    }
    let stored =
        le32(bytes, pos + 2).ok_or_else(|| ReadError::truncated(F, pos + 2, "the CRC-32"))?;
    let mut crc = flate2::Crc::new();
    crc.update(&bytes[..pos]);
    if crc.sum() != stored {
        return Err(ReadError::invalid(
            F,
            pos + 2,
            format!(
                "the CRC-32 of the first {pos} bytes is {:08x}, the file says {stored:08x}: the \
                 file is damaged",
                crc.sum()
            ),
        ));
    }
    if bytes.len() > pos + 6 {
        return Err(ReadError::invalid(
            F,
            pos + 6,
            format!("{} bytes after the CRC field", bytes.len() - pos - 6),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An XQR file: the fields, the nodes (from, to, flags, comment) and the CRC.
    pub(crate) fn build(fields: &[(u8, &[u8])], nodes: &[(u8, u8, u8, &str)]) -> Vec<u8> {
        let mut b = MAGIC.to_vec();
        for (t, v) in fields {
            b.push(*t);
            b.push(v.len() as u8);
            b.extend_from_slice(v);
        }
        b.extend_from_slice(&[TYPE_MOVE, 0]);
        for (from, to, flags, c) in nodes {
            b.extend_from_slice(&[*from, *to, *flags, 0]);
            if flags & 4 != 0 {
                b.extend_from_slice(&(c.len() as u32).to_le_bytes());
                b.extend_from_slice(c.as_bytes());
            }
        }
        let mut crc = flate2::Crc::new();
        crc.update(&b);
        b.extend_from_slice(&[TYPE_CRC, 4]);
        b.extend_from_slice(&crc.sum().to_le_bytes());
        b
    }

    /// 炮二平五 (h2e2: row 7 col 7 to row 7 col 4) 马8进7 (h9g7: row 0 col 7 to row 2 col 6),
    /// with 马2进3 (b9c7) as an alternative to 马8进7.
    fn sample() -> Vec<u8> {
        build(
            &[(5, "红".as_bytes()), (7, &[1])],
            &[
                (0, 0, 1 | 4, "start"),
                (0x77, 0x74, 1, ""),
                (0x07, 0x26, 2 | 4, "main"),
                (0x01, 0x22, 0, ""),
            ],
        )
    }

    #[test]
    fn reads_fields_tree_and_comments() {
        let rec = read(&sample()).unwrap();
        assert_eq!(rec.tag("Red"), Some("红"));
        assert_eq!(rec.result, GameResult::RedWins);
        assert_eq!(rec.comment.as_deref(), Some("start"));
        let ml: Vec<String> = rec.mainline().map(|m| m.to_string()).collect();
        assert_eq!(ml, ["h2e2", "h9g7"]);
        assert_eq!(rec.moves[1].comment.as_deref(), Some("main"));
        assert_eq!(rec.moves[1].variations[0][0].mv.to_string(), "b9c7");
    }

    #[test]
    fn damage_is_named() {
        let mut b = sample();
        let n = b.len();
        b[n - 1] ^= 1;
        let e = read(&b).unwrap_err().to_string();
        assert!(e.contains("CRC-32") && e.contains("damaged"), "{e}");
        let e = read(&sample()[..20]).unwrap_err().to_string();
        assert!(e.starts_with("XQR at byte"), "{e}");
        let bad = build(&[], &[(0, 0, 1, ""), (0xa7, 0x74, 0, "")]);
        let e = read(&bad).unwrap_err().to_string();
        assert!(e.contains("0xa7") && e.contains("off the board"), "{e}");
        assert!(!looks_like(b"XQ\x0a"));
    }
}
