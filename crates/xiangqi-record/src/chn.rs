//! 联众 (Ourgame) records, `.chn`: a 188-byte header, then 32 bytes a move.
//!
//! A move is sixteen little-endian 16-bit words: two not known, then the from-column, the
//! from-row, the to-column and the to-row (columns 0-8 from the left, rows 0-9 from the top
//! when Red's pieces start at the bottom), then ten not known. As in CCM, the board may be
//! turned round: when Red's first move starts in the stored top half (row 0-4), every column
//! `c` is `8 - c` and every row `r` is `9 - r`. The game starts from the standard position;
//! what the header holds is not known, so nothing of it is read.
//!
//! Where the layout comes from (read only, nothing copied): ElephantEye's `Chn2Pgn` converter
//! (xqbase/eleeye `XQFTOOLS/chn2pgn.cpp`, LGPL: the header skipped at byte 188, the 32-byte
//! record and its four coordinate words, the turned board). No other description and no
//! `.chn` file was found.

use xiangqi::{Board, Color, Square};

use crate::model::{GameRecord, GameResult};
use crate::rawtree::{
    start_position, to_lines, tree_reader_entry_points, ErrorKind, Format, RawTree, ReadError, Slot,
};

/// The error type of this reader.
pub type ChnError = ReadError;

const F: Format = Format::Chn;
const HEADER: usize = 188;
const RECORD: usize = 32;
/// More moves than a game has: a longer file is no CHN record.
const MAX_MOVES: usize = 4096;

fn word(r: &[u8], i: usize) -> u16 {
    u16::from_le_bytes([r[2 * i], r[2 * i + 1]])
}

/// The stored squares of a record: from-column, from-row, to-column, to-row.
fn coords(r: &[u8]) -> (u16, u16, u16, u16) {
    (word(r, 2), word(r, 3), word(r, 4), word(r, 5))
}

/// Whether a whole record's squares are on the board and different.
fn on_board(r: &[u8]) -> bool {
    let (fc, fr, tc, tr) = coords(r);
    fc <= 8 && tc <= 8 && fr <= 9 && tr <= 9 && (fc, fr) != (tc, tr)
}

/// Cheap check: a header and at least one whole 32-byte record, every record's squares on
/// the board and different.
pub fn looks_like(bytes: &[u8]) -> bool {
    bytes.len() >= HEADER + RECORD
        && (bytes.len() - HEADER).is_multiple_of(RECORD)
        && (bytes.len() - HEADER) / RECORD <= MAX_MOVES
        && bytes[HEADER..].chunks_exact(RECORD).all(on_board)
}

/// A CHN file damaged after its start, which [`looks_like`] does not take: a header and the
/// first [`crate::rawtree::DAMAGED_MIN_MOVES`] records whole with their squares on the board,
/// then a record off the board or cut short. Answers the damaged move's number, its byte and
/// whether it is cut short (else off the board), for a message and for `Mode::Salvage`,
/// which keeps the moves before it.
pub fn damaged(bytes: &[u8]) -> Option<(usize, usize, bool)> {
    let good = HEADER + crate::rawtree::DAMAGED_MIN_MOVES * RECORD;
    if looks_like(bytes) || bytes.len() < good || bytes.len() > HEADER + MAX_MOVES * RECORD {
        return None;
    }
    if !bytes[HEADER..good].chunks_exact(RECORD).all(on_board) {
        return None;
    }
    let k = bytes[HEADER..]
        .chunks(RECORD)
        .position(|r| r.len() < RECORD || !on_board(r))?;
    let at = HEADER + k * RECORD;
    Some((k + 1, at, bytes.len() - at < RECORD))
}

tree_reader_entry_points!("an Ourgame CHN file (one game, no variations)", read_impl);

fn read_impl(
    bytes: &[u8],
    dropped: Option<&mut Vec<ChnError>>,
    salvage: bool,
) -> Result<GameRecord, ChnError> {
    if bytes.len() < HEADER {
        return Err(ReadError::at(
            F,
            bytes.len(),
            ErrorKind::Truncated {
                what: "the 188-byte header",
            },
        ));
    }
    let body = &bytes[HEADER..];
    let whole = body.len() / RECORD * RECORD;
    let mut tail = None;
    if whole < body.len() {
        let e = ReadError::invalid(
            F,
            HEADER + whole,
            format!(
                "a CHN file holds 32 bytes a move after its header; the last {} bytes are no \
                 whole move",
                body.len() - whole
            ),
        );
        if !salvage {
            return Err(e);
        }
        tail = Some(e);
    }
    let turned = body.len() >= RECORD && coords(body).1 < 5;
    let mut tree = RawTree::salvaging(salvage);
    let mut parent = None;
    for (k, r) in body.chunks_exact(RECORD).enumerate() {
        let at = HEADER + k * RECORD;
        let (fc, fr, tc, tr) = coords(r);
        let square = |col: u16, row: u16, what: &str, off: usize| {
            if col > 8 || row > 9 {
                return Err(ReadError::invalid(
                    F,
                    at + off,
                    format!(
                        "move {}: the {what} is column {col} (0-8), row {row} (0-9): off the board",
                        k + 1
                    ),
                ));
            }
            let (col, row) = if turned {
                (8 - col, 9 - row)
            } else {
                (col, row)
            };
            Square::new(((9 - row) * 9 + col) as u8)
                .ok_or_else(|| ReadError::invalid(F, at + off, "no square"))
        };
        let (from, to) = match square(fc, fr, "from-square", 4)
            .and_then(|f| Ok((f, square(tc, tr, "to-square", 8)?)))
        {
            Ok(x) => x,
            Err(e) => {
                let left = format!("the last {} bytes were left out", bytes.len() - at);
                tree.stop(Slot::ChildOf(parent), e, left)?;
                break;
            }
        };
        parent = Some(tree.add(Slot::ChildOf(parent), (from, to, None, at)));
    }
    if let Some(e) = tail {
        let left = format!(
            "the last {} bytes were left out",
            bytes.len() - HEADER - whole
        );
        tree.stop(Slot::ChildOf(parent), e, left)?;
    }
    let start = start_position(F, Board::start(), Color::Red, 1, &tree, 0)?;
    let moves = to_lines(F, &tree, &start, dropped)?;
    let mut rec = GameRecord {
        start,
        moves,
        ..GameRecord::default()
    };
    rec.set_tag("Result", GameResult::Unknown.as_pgn());
    Ok(rec)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file of moves given as (from-column, from-row, to-column, to-row) from the top.
    fn build(moves: &[(u16, u16, u16, u16)]) -> Vec<u8> {
        let mut b = vec![0u8; HEADER];
        for &(a, b2, c, d) in moves {
            let mut r = [0u16; 16];
            r[2..6].copy_from_slice(&[a, b2, c, d]);
            b.extend(r.iter().flat_map(|w| w.to_le_bytes()));
        }
        b
    }

    #[test]
    fn either_way_up() {
        // 炮二平五 马8进7: h2e2 is column 7 to 4 on row 7; h9g7 column 7 to 6, row 0 to 2.
        let up = build(&[(7, 7, 4, 7), (7, 0, 6, 2)]);
        assert!(looks_like(&up));
        let rec = read(&up).unwrap();
        let ml: Vec<String> = rec.mainline().map(|m| m.to_string()).collect();
        assert_eq!(ml, ["h2e2", "h9g7"]);
        let turned = build(&[(1, 2, 4, 2), (1, 9, 2, 7)]);
        assert_eq!(read(&turned).unwrap(), rec);
    }

    #[test]
    fn errors_name_the_move() {
        let b = build(&[(7, 7, 4, 7), (7, 0, 9, 2)]);
        assert!(!looks_like(&b));
        let e = read(&b).unwrap_err().to_string();
        assert!(
            e.starts_with("CHN at byte 228") && e.contains("move 2"),
            "{e}"
        );
        let b = build(&[(7, 7, 4, 7)]);
        let e = read(&b[..b.len() - 3]).unwrap_err().to_string();
        assert!(e.contains("no whole move"), "{e}");
        assert!(read(&b[..100]).unwrap_err().to_string().contains("header"));
    }
}
