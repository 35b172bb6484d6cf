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
//!
//! **The 17pk layout** (一起游戏, 17pk.com, whose files also end in `.ccm`): a 12-byte header
//! (the 16-bit numbers 1 and 18 in the file seen, the game's start as a 32-bit Unix time, the
//! number of moves as a 32-bit number), then 9 bytes a move: seconds used, the side (1 Red, 2
//! Black), the piece's kind (1-7: general, advisor, elephant, horse, chariot, cannon,
//! soldier), the from-column, from-row, to-column and to-row (as above, turned round the same
//! way), and the captured piece (its number and kind, kind 0 for none). Worked out here from a
//! real file (zfdang/chinese-chess-fish-android `棋谱/sample_10_17pk.CCM`, MIT): its 100 moves
//! are legal and its sides and kinds agree with them. Its date is read in China's time (UTC+8).

use xiangqi::{Board, Color, Square};

use crate::model::{GameRecord, GameResult};
use crate::rawtree::{
    start_position, to_lines, tree_reader_entry_points, ErrorKind, Format, RawTree, ReadError, Slot,
};

/// The error type of this reader.
pub type CcmError = ReadError;

const F: Format = Format::Ccm;
const RECORD: usize = 7;

/// Where a layout keeps its moves: the header's length, the record's, and the offsets in a
/// record of the from-column, to-column, from-row and to-row.
struct Layout {
    header: usize,
    record: usize,
    at: [usize; 4],
}

/// ElephantEye's and vschess's 7-byte records.
const SEVEN: Layout = Layout {
    header: 0,
    record: RECORD,
    at: [3, 4, 5, 6],
};

/// 17pk's header and 9-byte records.
const PK17: Layout = Layout {
    header: 12,
    record: 9,
    at: [3, 5, 4, 6],
};

impl Layout {
    /// (from-column, to-column, from-row, to-row) of a record.
    fn coords(&self, r: &[u8]) -> (u8, u8, u8, u8) {
        (r[self.at[0]], r[self.at[1]], r[self.at[2]], r[self.at[3]])
    }

    fn on_board(&self, r: &[u8]) -> bool {
        let (fc, tc, fr, tr) = self.coords(r);
        fc <= 8 && tc <= 8 && fr <= 9 && tr <= 9 && (fc, fr) != (tc, tr)
    }
}

/// Whether every record's squares are on the board (as stored, before turning round).
fn squares_on_board(bytes: &[u8]) -> bool {
    bytes.chunks_exact(RECORD).all(|r| SEVEN.on_board(r))
}

/// Whether a 17pk record `k` (0 the first) is a move of the side whose turn it is, by a piece
/// of a known kind, with its squares on the board.
fn pk17_record_ok(k: usize, r: &[u8]) -> bool {
    r[1] as usize == 1 + k % 2 && (1..=7).contains(&r[2]) && PK17.on_board(r)
}

/// The number of moves a 17pk header announces, when the bytes start like a 17pk file: the
/// header (`01 00`, at most 4,096 moves) and its first records (up to
/// [`crate::rawtree::DAMAGED_MIN_MOVES`]) whole and sound.
fn pk17_announced(bytes: &[u8]) -> Option<usize> {
    let n = pk17_count(bytes)?;
    let end = PK17.header + n.min(crate::rawtree::DAMAGED_MIN_MOVES) * PK17.record;
    (bytes.len() >= end && pk17_records_ok(&bytes[PK17.header..end])).then_some(n)
}

/// The number of moves a 17pk header announces, when the header is one.
fn pk17_count(bytes: &[u8]) -> Option<usize> {
    if bytes.len() < PK17.header || bytes[..2] != [1, 0] {
        return None;
    }
    let n = u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize;
    (1..=4096).contains(&n).then_some(n)
}

/// Whether every whole 9-byte record of `body` (the records from the first) is sound.
fn pk17_records_ok(body: &[u8]) -> bool {
    body.chunks_exact(PK17.record)
        .enumerate()
        .all(|(k, r)| pk17_record_ok(k, r))
}

/// The 17pk layout: its header, as many 9-byte records as it announces, each a move of the
/// side whose turn it is (Red first) by a piece of a known kind, on the board.
fn looks_like_17pk(bytes: &[u8]) -> bool {
    pk17_count(bytes).is_some_and(|n| {
        bytes.len() == PK17.header + n * PK17.record && pk17_records_ok(&bytes[PK17.header..])
    })
}

/// [`damaged`] for the 17pk layout: its first records sound, then one cut short, unsound, or
/// missing before the announced number.
fn damaged_17pk(bytes: &[u8]) -> Option<(usize, usize, bool)> {
    let n = pk17_announced(bytes)?;
    let body = &bytes[PK17.header..];
    let k = body
        .chunks(PK17.record)
        .enumerate()
        .position(|(k, r)| r.len() < PK17.record || !pk17_record_ok(k, r))
        .or_else(|| {
            let whole = body.len() / PK17.record;
            (whole < n).then_some(whole)
        })?;
    let at = PK17.header + k * PK17.record;
    Some((k + 1, at, bytes.len() - at < PK17.record))
}

/// A CCM file damaged after its start, which [`looks_like`] does not take: the first byte 1,
/// the first [`crate::rawtree::DAMAGED_MIN_MOVES`] records whole with every square on the
/// board, and then a record off the board or cut short. Answers the damaged move's number,
/// its byte and whether it is cut short (else off the board), for a message and for
/// `Mode::Salvage`, which keeps the moves before it.
pub fn damaged(bytes: &[u8]) -> Option<(usize, usize, bool)> {
    if looks_like(bytes) {
        return None;
    }
    if let Some(d) = damaged_17pk(bytes) {
        return Some(d);
    }
    let good = crate::rawtree::DAMAGED_MIN_MOVES * RECORD;
    if bytes.len() < good || bytes[0] != 1 || bytes.len() > 7 * 4096 {
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

/// Cheap check: the 17pk layout, or whole 7-byte records, the first byte 1, every square on
/// the board.
pub fn looks_like(bytes: &[u8]) -> bool {
    looks_like_17pk(bytes) || looks_like_seven(bytes)
}

fn looks_like_seven(bytes: &[u8]) -> bool {
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
    let announced = pk17_announced(bytes);
    let layout = if announced.is_some() { &PK17 } else { &SEVEN };
    let body = &bytes[layout.header..];
    let whole = body.len() / layout.record * layout.record;
    let mut tail = None;
    if whole < body.len() {
        let e = ReadError::invalid(
            F,
            layout.header + whole,
            format!(
                "a CCM file holds {} bytes a move; the last {} bytes are no whole move",
                layout.record,
                body.len() - whole
            ),
        );
        if !salvage {
            return Err(e);
        }
        tail = Some(e);
    }
    // Turned round when Red's first move starts in the top half as stored.
    let turned = whole >= layout.record && layout.coords(body).2 < 5;
    let mut tree = RawTree::salvaging(salvage);
    let mut parent = None;
    for (k, r) in body.chunks_exact(layout.record).enumerate() {
        let at = layout.header + k * layout.record;
        let (fc, tc, fr, tr) = layout.coords(r);
        let square = |col: u8, row: u8, what: &str| {
            if col > 8 || row > 9 {
                return Err(ReadError::invalid(
                    F,
                    at + layout.at[0],
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
                .ok_or_else(|| ReadError::invalid(F, at + layout.at[0], "no square"))
        };
        let (from, to) = match square(fc, fr, "from-square")
            .and_then(|f| Ok((f, square(tc, tr, "to-square")?)))
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
        let left = format!("the last {} bytes were left out", body.len() - whole);
        tree.stop(Slot::ChildOf(parent), e, left)?;
    } else if let Some(n) = announced.filter(|&n| n > whole / layout.record) {
        let e = ReadError::at(
            F,
            bytes.len(),
            ErrorKind::Truncated {
                what: "the moves: the header announces more than the file holds",
            },
        );
        let left = format!(
            "{} of the {n} moves the header announces are missing",
            n - whole / layout.record
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
    if layout.header == PK17.header {
        // The game's start, a Unix time, in China's time (UTC+8).
        let t = u32::from_le_bytes([bytes[4], bytes[5], bytes[6], bytes[7]]) as i64;
        let (y, m, d) = crate::date::civil_from_days((t + 8 * 3600).div_euclid(86_400));
        rec.set_tag("Date", format!("{y:04}.{m:02}.{d:02}"));
    }
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
