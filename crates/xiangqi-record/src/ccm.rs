//! 中国游戏中心 (China Game Center, 中游) records, `.ccm`: the moves of a game from the
//! standard position, 7 bytes a move, nothing else.
//!
//! A move's bytes 3 and 4 are the from- and to-column (0-8), bytes 5 and 6 the from- and
//! to-row (0-9); bytes 0-2 are not known (byte 0 of the file is 1 in the files vschess reads,
//! which is how it recognises them). The board is seen from one player's side: columns from
//! the left and rows from the top when Red's pieces start at the bottom (rows 5-9), the whole
//! board turned round when they start at the top. Which it is, is told by the first move,
//! Red's: its from-row is in Red's half (5-9) as the file stands, or the file is turned round
//! (every column `c` is `8 - c`, every row `r` is `9 - r`).
//!
//! Where the layout comes from (read only, nothing copied): ElephantEye's `Ccm2Pgn` converter
//! (xqbase XQFTOOLS, LGPL, as carried by lerosua/gmchess `src/engine/convert_pgn.cpp`: 7-byte
//! records, bytes 3-6, the turn decided by the first move's row) and the vschess web viewer's
//! `binaryToNode_CCM` (LGPL: the same bytes, always turned round, and the file's first byte 1).
//! No `.ccm` file was found.

use xiangqi::{Board, Color, Square};

use crate::model::{GameRecord, GameResult};
use crate::rawtree::{
    start_position, to_lines, tree_reader_entry_points, ErrorKind, Format, RawTree, ReadError, Slot,
};

/// The error type of this reader.
pub type CcmError = ReadError;

const F: Format = Format::Ccm;
const RECORD: usize = 7;

/// Whether every record's squares are on the board (as stored, before turning round).
fn squares_on_board(bytes: &[u8]) -> bool {
    bytes
        .chunks_exact(RECORD)
        .all(|r| r[3] <= 8 && r[4] <= 8 && r[5] <= 9 && r[6] <= 9 && (r[3], r[5]) != (r[4], r[6]))
}

/// A CCM file damaged after its start, which [`looks_like`] does not take: the first byte 1,
/// the first [`crate::rawtree::DAMAGED_MIN_MOVES`] records whole with every square on the
/// board, and then a record off the board or cut short. Answers the damaged move's number,
/// its byte and whether it is cut short (else off the board), for a message and for
/// `Mode::Salvage`, which keeps the moves before it.
pub fn damaged(bytes: &[u8]) -> Option<(usize, usize, bool)> {
    let good = crate::rawtree::DAMAGED_MIN_MOVES * RECORD;
    if looks_like(bytes) || bytes.len() < good || bytes[0] != 1 || bytes.len() > 7 * 4096 {
        return None;
    }
    if !squares_on_board(&bytes[..good]) {
        return None;
    }
    let k = bytes
        .chunks(RECORD)
        .position(|r| r.len() < RECORD || !squares_on_board(r))?;
    let at = k * RECORD;
    Some((k + 1, at, bytes.len() - at < RECORD))
}

/// Cheap check: whole 7-byte records, the first byte 1, every square on the board.
pub fn looks_like(bytes: &[u8]) -> bool {
    !bytes.is_empty()
        && bytes.len().is_multiple_of(RECORD)
        && bytes[0] == 1
        && bytes.len() <= 7 * 4096
        && squares_on_board(bytes)
}

tree_reader_entry_points!("a CCM file (one game, no variations)", read_impl);

fn read_impl(
    bytes: &[u8],
    dropped: Option<&mut Vec<CcmError>>,
    salvage: bool,
) -> Result<GameRecord, CcmError> {
    if bytes.is_empty() {
        return Err(ReadError::at(
            F,
            0,
            ErrorKind::NotThisFormat("a CCM file holds 7 bytes a move; this one is empty".into()),
        ));
    }
    let whole = bytes.len() / RECORD * RECORD;
    let mut tail = None;
    if whole < bytes.len() {
        let e = ReadError::invalid(
            F,
            whole,
            format!(
                "a CCM file holds 7 bytes a move; the last {} bytes are no whole move",
                bytes.len() - whole
            ),
        );
        if !salvage {
            return Err(e);
        }
        tail = Some(e);
    }
    // Turned round when Red's first move starts in the top half as stored.
    let turned = whole >= RECORD && bytes[5] < 5;
    let mut tree = RawTree::salvaging(salvage);
    let mut parent = None;
    for (k, r) in bytes.chunks_exact(RECORD).enumerate() {
        let at = k * RECORD;
        let square = |col: u8, row: u8, what: &str| {
            if col > 8 || row > 9 {
                return Err(ReadError::invalid(
                    F,
                    at + 3,
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
            Square::new((9 - row) * 9 + col)
                .ok_or_else(|| ReadError::invalid(F, at + 3, "no square"))
        };
        let (from, to) = match square(r[3], r[5], "from-square")
            .and_then(|f| Ok((f, square(r[4], r[6], "to-square")?)))
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
        let left = format!("the last {} bytes were left out", bytes.len() - whole);
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

    /// 炮二平五 马8进7: h2e2 is column 7 to 4, row 7 to 7 from the top; h9g7 column 7 to 6,
    /// row 0 to 2.
    const UPRIGHT: [u8; 14] = [1, 0, 0, 7, 4, 7, 7, 1, 0, 0, 7, 6, 0, 2];

    #[test]
    fn either_way_up() {
        assert!(looks_like(&UPRIGHT));
        let rec = read(&UPRIGHT).unwrap();
        let ml: Vec<String> = rec.mainline().map(|m| m.to_string()).collect();
        assert_eq!(ml, ["h2e2", "h9g7"]);
        let mut turned = UPRIGHT;
        for r in turned.chunks_exact_mut(7) {
            r[3] = 8 - r[3];
            r[4] = 8 - r[4];
            r[5] = 9 - r[5];
            r[6] = 9 - r[6];
        }
        assert_eq!(read(&turned).unwrap(), rec);
    }

    #[test]
    fn errors_name_the_move() {
        let e = read(&UPRIGHT[..10]).unwrap_err().to_string();
        assert!(
            e.starts_with("CCM at byte 7") && e.contains("no whole move"),
            "{e}"
        );
        let mut bad = UPRIGHT;
        bad[11] = 9;
        let e = read(&bad).unwrap_err().to_string();
        assert!(e.contains("move 2") && e.contains("column 9"), "{e}");
        assert!(!looks_like(&bad));
        let mut illegal = UPRIGHT;
        illegal[13] = 5;
        let e = read(&illegal).unwrap_err();
        assert!(
            matches!(e.kind, ErrorKind::IllegalMove { ply: 2, .. }),
            "{e}"
        );
    }
}
