//! QQ象棋 (QQ Chinese chess) records, `.che`: decimal numbers separated by spaces, ten a move.
//!
//! ```text
//! 1 3 16 32 1 2 7 2 4 0 1 0 9 32 0 7 7 7 6 0 2 0 ...
//! │ │ └──────────── move 1 ────────┘ └──── move 2 ...
//! │ └ number of moves
//! └ kind: 1 (coordinates from 0) or 0 (from 1, and moves may branch)
//! ```
//!
//! The ten numbers of a move, `f0`..`f9`: `f0` the piece (0-31), `f1` (32 in the files seen),
//! `f2` the side, `f3` the from-rank and `f4` the from-file, `f5` the to-rank and `f6` the
//! to-file, `f7` (kind 0) the move this one follows (0 the start position, `k` the `k`-th
//! move of the file), `f8` the move's number, `f9` 0. Ranks count from Red's back rank, files
//! from Red's left (file a); kind 1 counts both from 0, kind 0 from 1. Kind 0 (what QQ象棋 EX
//! writes, `..._qqxqEX.che`) may end with further text (XML) after the numbers, which is left
//! out; so are numbers after the last move. A kind-0 move that follows a move with a
//! continuation already is an alternative to it: the first continuation is the main line.
//! The start position is always the standard one; the record holds no names or result.
//!
//! Where the layout comes from (read only, nothing copied): ElephantEye's `Che2Pgn` converter
//! (xqbase XQFTOOLS, LGPL, as carried by lerosua/gmchess `src/engine/convert_pgn.cpp`: the
//! count, ten numbers a move, the coordinates from 0 in fields 3-6); a Python `che_to_cbf`
//! converter for QQ象棋 EX files (kind 0: coordinates from 1, `f7` the move followed, with its
//! examples `[1, 3, 3, 5]` 相七进五 and `[10, 2, 8, 3]` 马2进3); the vschess web viewer's QQ
//! writer and reader (LGPL), which agree on the ten fields but number the files from Red's
//! right (a mirror image; the two converters and their examples number them from the left, as
//! read here).

use xiangqi::{Board, Color, Square};

use crate::model::{GameRecord, GameResult};
use crate::rawtree::{
    start_position, to_lines, tree_reader_entry_points, ErrorKind, Format, RawTree, ReadError, Slot,
};

/// The error type of this reader.
pub type CheError = ReadError;

const F: Format = Format::Che;
/// More moves than any game has: a count above this is no CHE record.
const MAX_MOVES: i64 = 100_000;

/// The leading numbers of the text and the byte offset of each; reading stops at the first
/// word that is no number (at most `limit` numbers).
fn numbers(bytes: &[u8], limit: usize) -> Vec<(i64, usize)> {
    let mut out = Vec::new();
    let mut i = if bytes.starts_with(b"\xef\xbb\xbf") {
        3
    } else {
        0
    };
    while out.len() < limit {
        while i < bytes.len() && bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        let start = i;
        while i < bytes.len() && !bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        let word = &bytes[start..i];
        let digits = word.strip_prefix(b"-").unwrap_or(word);
        if digits.is_empty() || digits.len() > 9 || !digits.iter().all(u8::is_ascii_digit) {
            break;
        }
        let mut v = digits
            .iter()
            .fold(0i64, |v, &d| v * 10 + i64::from(d - b'0'));
        if digits.len() < word.len() {
            v = -v;
        }
        out.push((v, start));
    }
    out
}

/// The square of a rank (from Red's side) and a file (from Red's left) as the file holds them,
/// from 0 (kind 1) or from 1 (kind 0).
fn square(kind: i64, rank: i64, file: i64) -> Option<Square> {
    let (r, f) = if kind == 0 {
        (rank - 1, file - 1)
    } else {
        (rank, file)
    };
    if !(0..=9).contains(&r) || !(0..=8).contains(&f) {
        return None;
    }
    Square::new((r * 9 + f) as u8)
}

/// Cheap check: the text starts with the kind (0 or 1), a count of moves from 1 and the ten
/// numbers of a first move whose squares are on the board.
pub fn looks_like(bytes: &[u8]) -> bool {
    let n = numbers(&bytes[..bytes.len().min(256)], 12);
    if n.len() < 11 {
        return false;
    }
    let kind = n[0].0;
    (kind == 0 || kind == 1)
        && (1..=MAX_MOVES).contains(&n[1].0)
        && (0..=31).contains(&n[2].0)
        && square(kind, n[5].0, n[6].0).is_some()
        && square(kind, n[7].0, n[8].0).is_some()
}

tree_reader_entry_points!("a QQ CHE record", read_impl);

const FIELD_NAMES: [&str; 4] = ["from-rank", "from-file", "to-rank", "to-file"];

fn read_impl(
    bytes: &[u8],
    dropped: Option<&mut Vec<CheError>>,
    salvage: bool,
) -> Result<GameRecord, CheError> {
    let head = numbers(bytes, 2);
    let Some(&(kind, _)) = head.first() else {
        return Err(ReadError::at(
            F,
            0,
            ErrorKind::NotThisFormat("a CHE record starts with a number (0 or 1)".into()),
        ));
    };
    if kind != 0 && kind != 1 {
        return Err(ReadError::at(
            F,
            head[0].1,
            ErrorKind::NotThisFormat(format!(
                "a CHE record starts with 0 or 1 (its kind), this one with {kind}"
            )),
        ));
    }
    let Some(&(count, count_at)) = head.get(1) else {
        return Err(ReadError::truncated(F, bytes.len(), "the number of moves"));
    };
    if !(0..=MAX_MOVES).contains(&count) {
        return Err(ReadError::invalid(
            F,
            count_at,
            format!("the number of moves is {count}: not a count of moves (0 to {MAX_MOVES})"),
        ));
    }
    let count = count as usize;
    let nums = numbers(bytes, 2 + 10 * count);
    let mut tree = RawTree::salvaging(salvage);
    // The last move's last number (always 0) may be missing.
    let mut whole = count;
    let mut cut = None;
    if nums.len() + 1 < 2 + 10 * count {
        let have = nums.len().saturating_sub(2) / 10;
        let at = nums.last().map_or(0, |&(_, o)| o);
        cut = Some(ReadError::invalid(
            F,
            at,
            format!(
                "the record announces {count} moves of ten numbers each, but the numbers end \
                 inside move {} ({have} whole moves)",
                have + 1
            ),
        ));
        // (Strictly too the whole moves are read first: a fault in them comes first.)
        whole = have;
    }

    // Raw index of each move read (for kind 0's "the move this one follows").
    let mut index: Vec<usize> = Vec::with_capacity(count);
    for j in 0..whole {
        let base = 2 + 10 * j;
        let field = |k: usize| nums[base + k];
        let square_at = |s: usize| {
            let (rank, rank_at) = field(3 + 2 * s);
            let (file, _) = field(4 + 2 * s);
            square(kind, rank, file).ok_or_else(|| {
                ReadError::invalid(
                    F,
                    rank_at,
                    format!(
                        "move {}: {} {rank} and {} {file} are off the board (kind {kind} counts \
                         ranks {} and files {})",
                        j + 1,
                        FIELD_NAMES[2 * s],
                        FIELD_NAMES[2 * s + 1],
                        if kind == 0 { "1-10" } else { "0-9" },
                        if kind == 0 { "1-9" } else { "0-8" },
                    ),
                )
            })
        };
        let at = field(0).1;
        // Where the move goes: after the move it names (kind 0), else after the last one.
        let parent = if kind == 0 {
            let (p, p_at) = field(7);
            if p < 0 || p as usize > j {
                let e = ReadError::invalid(
                    F,
                    p_at,
                    format!(
                        "move {}: it follows move {p}, which is not a move before it (0 is the \
                         start, 1 to {j} the moves before)",
                        j + 1
                    ),
                );
                // (The move's place is not known: as if after the last move read.)
                let left = format!("moves {} to {count} were left out", j + 1);
                tree.stop(Slot::ChildOf(index.last().copied()), e, left)?;
                cut = None;
                break;
            }
            (p > 0).then(|| index[p as usize - 1])
        } else {
            index.last().copied()
        };
        let (from, to) = match square_at(0).and_then(|f| Ok((f, square_at(1)?))) {
            Ok(x) => x,
            Err(e) => {
                let left = format!("moves {} to {count} were left out", j + 1);
                tree.stop(Slot::ChildOf(parent), e, left)?;
                cut = None;
                break;
            }
        };
        index.push(tree.add(Slot::ChildOf(parent), (from, to, None, at)));
    }
    if let Some(e) = cut {
        let left = format!("moves {} to {count} were left out", whole + 1);
        tree.stop(Slot::ChildOf(index.last().copied()), e, left)?;
    }

    let start = start_position(F, Board::start(), Color::Red, 1, &tree, 0)?;
    let moves = to_lines(F, &tree, &start, dropped)?;
    let mut rec = GameRecord {
        start,
        moves,
        result: GameResult::Unknown,
        ..GameRecord::default()
    };
    rec.set_tag("Result", GameResult::Unknown.as_pgn());
    Ok(rec)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 炮二平五 马8进7 as kind 1 (from 0) and kind 0 (from 1, the second following the first).
    const KIND1: &str = "1 2 25 32 1 2 7 2 4 0 1 0 10 32 0 9 7 7 6 0 2 0 ";
    const KIND0: &str = "0 2 25 32 1 3 8 3 5 0 1 0 10 32 0 10 8 8 7 1 2 0<xml/>";

    #[test]
    fn both_kinds_read() {
        for text in [KIND1, KIND0] {
            assert!(looks_like(text.as_bytes()), "{text}");
            let rec = read(text.as_bytes()).unwrap();
            let ml: Vec<String> = rec.mainline().map(|m| m.to_string()).collect();
            assert_eq!(ml, ["h2e2", "h9g7"], "{text}");
        }
    }

    #[test]
    fn kind_0_branches() {
        // A third move that follows the first again: an alternative to 马8进7 (马2进3).
        let text = "0 3 25 32 1 3 8 3 5 0 1 0 10 32 0 10 8 8 7 1 2 0 9 32 0 10 2 8 3 1 3 0";
        let rec = read(text.as_bytes()).unwrap();
        assert_eq!(rec.moves.len(), 2);
        assert_eq!(rec.moves[1].variations[0][0].mv.to_string(), "b9c7");
    }

    #[test]
    fn errors_name_the_place() {
        let e = read(b"1 3 25 32 1 2 7 2 4 0 1 0").unwrap_err().to_string();
        assert!(e.contains("announces 3 moves"), "{e}");
        let e = read(KIND1.replace(" 2 7 2 4 ", " 2 9 2 4 ").as_bytes())
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("CHE at byte 12") && e.contains("off the board"),
            "{e}"
        );
        let e = read(KIND0.replace(" 8 7 1 2 0", " 8 7 5 2 0").as_bytes())
            .unwrap_err()
            .to_string();
        assert!(e.contains("follows move 5"), "{e}");
        assert!(!looks_like(b"1. h2e2 h9g7"));
        assert!(!looks_like(b"2 2 25 32 1 2 7 2 4 0 1 0"));
    }
}
