//! 弈天象棋 (Yitian) records, `.mxq`: a list of strings, each a length byte and its bytes.
//!
//! The strings, in order: the site, the date, the event (`Red-胜-Black`, `-和-` or `-负-`
//! between the players' names tells the result), Red's rating, Black's rating, five strings not
//! known, a comment, one more string not known; then one string a move, `7C-4C` (from-column
//! digit 0-8 from Red's left, from-row letter `A`-`J` from Red's back rank, `-`, the
//! to-square the same way: `7C-4C` is h2e2, 炮二平五), up to the string `Ends`. The game starts
//! from the standard position. Strings are GBK, or Big5 when the event's result word is only
//! found in Big5 (the files of Traditional Chinese systems).
//!
//! Where the layout comes from (read only, nothing copied): ElephantEye's `Mxq2Pgn` converter
//! (xqbase/eleeye `XQFTOOLS/mxq2pgn.cpp`, LGPL: the strings in this order, the moves' letters
//! and digits, `Ends`, the result words, also as Big5 bytes read as GBK); the move strings agree
//! with the vschess viewer's reading of 象棋世家 records (`7c-4c`, `Moves` ... `Ends`). No
//! `.mxq` file was found. (The issue named `.mxq` as 象棋演播室 MoveSky's; ElephantEye and two
//! viewers' file dialogs call it 弈天象棋's.)

use xiangqi::{Board, Color, Square};

use crate::model::{GameRecord, GameResult};
use crate::rawtree::{
    start_position, to_lines, tree_reader_entry_points, Format, RawTree, ReadError, Slot,
};

/// The error type of this reader.
pub type MxqError = ReadError;

const F: Format = Format::Mxq;
/// The strings before the first move.
const HEADER_STRINGS: usize = 12;
const HEADER_NAMES: [&str; HEADER_STRINGS] = [
    "the site",
    "the date",
    "the event",
    "Red's rating",
    "Black's rating",
    "the 6th string",
    "the 7th string",
    "the 8th string",
    "the 9th string",
    "the 10th string",
    "the comment",
    "the 12th string",
];
/// More moves than a game has: the end (`Ends`) is looked for that far at most.
const MAX_MOVES: usize = 10_000;

/// A string of the file and the offset of its length byte.
type Str<'a> = (&'a [u8], usize);

/// How the strings of a file end.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Ending {
    /// With the string `Ends` after the header.
    Ends,
    /// At the end of the data, with no `Ends`.
    NoEnd,
    /// At a length byte (its offset) that runs past the data.
    Cut(usize),
}

/// The strings of the file, up to and without `Ends`, and how they end. Stops after `Ends`, at
/// the end of the data, or at a length that runs past it.
fn strings(bytes: &[u8]) -> (Vec<Str<'_>>, Ending) {
    let mut out = Vec::new();
    let mut at = 0;
    while at < bytes.len() && out.len() < HEADER_STRINGS + MAX_MOVES + 1 {
        let len = bytes[at] as usize;
        let Some(s) = bytes.get(at + 1..at + 1 + len) else {
            return (out, Ending::Cut(at));
        };
        if out.len() >= HEADER_STRINGS && s == b"Ends" {
            return (out, Ending::Ends);
        }
        out.push((s, at));
        at += 1 + len;
    }
    (out, Ending::NoEnd)
}

/// A move string, `7C-4C` (letters in either case): the from- and to-square.
fn parse_move(s: &[u8]) -> Option<(Square, Square)> {
    if s.len() != 5 || s[2] != b'-' {
        return None;
    }
    let sq = |col: u8, row: u8| {
        let c = col.checked_sub(b'0').filter(|&c| c <= 8)?;
        let r = row
            .to_ascii_uppercase()
            .checked_sub(b'A')
            .filter(|&r| r <= 9)?;
        Square::new(r * 9 + c)
    };
    Some((sq(s[0], s[1])?, sq(s[3], s[4])?))
}

/// Cheap check: twelve strings, then move strings up to `Ends`, all inside the data.
pub fn looks_like(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(1 << 16)];
    match strings(head) {
        (s, Ending::Ends) => s[HEADER_STRINGS..]
            .iter()
            .all(|(m, _)| parse_move(m).is_some()),
        _ => false,
    }
}

tree_reader_entry_points!("an MXQ file (one game, no variations)", read_impl);

/// The result and the players' names an event string holds (`Red-胜-Black`).
fn result_in(event: &str) -> Option<(GameResult, &str, &str)> {
    for (word, r) in [
        ("-胜-", GameResult::RedWins),
        ("-勝-", GameResult::RedWins),
        ("-和-", GameResult::Draw),
        ("-负-", GameResult::BlackWins),
        ("-負-", GameResult::BlackWins),
    ] {
        if let Some((red, black)) = event.split_once(word) {
            return Some((r, red, black));
        }
    }
    None
}

fn read_impl(
    bytes: &[u8],
    dropped: Option<&mut Vec<MxqError>>,
    salvage: bool,
) -> Result<GameRecord, MxqError> {
    let (strs, ending) = strings(bytes);
    let cut = |at: usize| {
        ReadError::invalid(
            F,
            at,
            format!(
                "a string of {} bytes, but only {} bytes follow",
                bytes[at],
                bytes.len() - at - 1
            ),
        )
    };
    if strs.len() < HEADER_STRINGS {
        return Err(match ending {
            Ending::Cut(at) => cut(at),
            _ => ReadError::truncated(F, bytes.len(), HEADER_NAMES[strs.len()]),
        });
    }

    // GBK, or Big5 when only Big5 finds the result word in the event.
    let gbk = |b: &[u8]| crate::rawtree::gbk(b);
    let big5 = |b: &[u8]| {
        let (s, _) = encoding_rs::BIG5.decode_without_bom_handling(b);
        s.into_owned()
    };
    let event_bytes = strs[2].0;
    let decode: &dyn Fn(&[u8]) -> String =
        if result_in(&gbk(event_bytes)).is_none() && result_in(&big5(event_bytes)).is_some() {
            &big5
        } else {
            &gbk
        };
    let text = |i: usize| {
        let s = decode(strs[i].0);
        let t = s.trim_matches(|c: char| c.is_whitespace() || c == '\0');
        (!t.is_empty()).then(|| t.to_owned())
    };

    // The moves, in file order, and then how the strings end: the first fault in the file is
    // the error (strictly) or where the game ends (salvaging).
    let mut tree = RawTree::salvaging(salvage);
    let mut parent = None;
    let mut stopped = false;
    for (k, &(s, at)) in strs[HEADER_STRINGS..].iter().enumerate() {
        let Some((from, to)) = parse_move(s) else {
            let e = ReadError::invalid(
                F,
                at,
                format!(
                    "move {}: \"{}\" is no move (a column digit 0-8 and a row letter A-J, a '-', \
                     and the same again: 7C-4C)",
                    k + 1,
                    String::from_utf8_lossy(s)
                ),
            );
            let left = format!("the last {} bytes were left out", bytes.len() - at);
            tree.stop(Slot::ChildOf(parent), e, left)?;
            stopped = true;
            break;
        };
        parent = Some(tree.add(Slot::ChildOf(parent), (from, to, None, at)));
    }
    if !stopped {
        let fault = match ending {
            Ending::Ends => None,
            Ending::Cut(at) => Some((cut(at), at)),
            Ending::NoEnd => Some((
                ReadError::invalid(
                    F,
                    bytes.len(),
                    format!(
                        "the moves do not end with the string \"Ends\" ({} strings of moves read)",
                        strs.len() - HEADER_STRINGS
                    ),
                ),
                bytes.len(),
            )),
        };
        if let Some((e, at)) = fault {
            let left = format!("the last {} bytes were left out", bytes.len() - at);
            tree.stop(Slot::ChildOf(parent), e, left)?;
        }
    }
    let start = start_position(F, Board::start(), Color::Red, 1, &tree, 0)?;
    let mut moves = to_lines(F, &tree, &start, dropped)?;

    let mut rec = GameRecord::default();
    let mut result = GameResult::Unknown;
    if let Some(site) = text(0) {
        rec.set_tag("Site", site);
    }
    if let Some(date) = text(1) {
        rec.set_tag("Date", date);
    }
    if let Some(event) = text(2) {
        if let Some((r, red, black)) = result_in(&event) {
            result = r;
            for (tag, name) in [("Red", red), ("Black", black)] {
                if !name.trim().is_empty() {
                    rec.set_tag(tag, name.trim());
                }
            }
        }
        rec.set_tag("Event", event);
    }
    if let Some(v) = text(3) {
        rec.set_tag("RedElo", v);
    }
    if let Some(v) = text(4) {
        rec.set_tag("BlackElo", v);
    }
    // The comment: after the last move (as ElephantEye puts it), or before the first.
    let comment = text(10);
    match moves.last_mut() {
        Some(last) => last.comment = comment,
        None => rec.comment = comment,
    }
    rec.start = start;
    rec.moves = moves;
    rec.result = result;
    rec.set_tag("Result", result.as_pgn());
    Ok(rec)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn build(event: &[u8], moves: &[&str], end: bool) -> Vec<u8> {
        let mut b = Vec::new();
        let mut push = |s: &[u8]| {
            b.push(s.len() as u8);
            b.extend_from_slice(s);
        };
        push(b"site");
        push(b"2008.06.01");
        push(event);
        push(b"2100");
        push(b"2000");
        for _ in 0..5 {
            push(b"");
        }
        push(b"a comment");
        push(b"Moves");
        for m in moves {
            push(m.as_bytes());
        }
        if end {
            push(b"Ends");
        }
        b
    }

    #[test]
    fn reads_names_result_moves_and_comment() {
        let (event, _, _) = encoding_rs::GBK.encode("甲-胜-乙");
        let b = build(&event, &["7C-4C", "7j-6h"], true);
        assert!(looks_like(&b));
        let rec = read(&b).unwrap();
        let ml: Vec<String> = rec.mainline().map(|m| m.to_string()).collect();
        assert_eq!(ml, ["h2e2", "h9g7"]);
        assert_eq!(rec.result, GameResult::RedWins);
        assert_eq!((rec.tag("Red"), rec.tag("Black")), (Some("甲"), Some("乙")));
        assert_eq!(rec.tag("Site"), Some("site"));
        assert_eq!(rec.moves[1].comment.as_deref(), Some("a comment"));
        // Big5: the names read as Big5 too.
        let (event, _, _) = encoding_rs::BIG5.encode("張三-負-李四");
        let rec = read(&build(&event, &["7C-4C"], true)).unwrap();
        assert_eq!(rec.result, GameResult::BlackWins);
        assert_eq!(rec.tag("Red"), Some("張三"));
    }

    #[test]
    fn errors_name_the_place() {
        let b = build(b"x", &["7C-4C", "7J-9Z"], true);
        assert!(!looks_like(&b));
        let e = read(&b).unwrap_err().to_string();
        assert!(e.contains("move 2") && e.contains("7J-9Z"), "{e}");
        let e = read(&build(b"x", &["7C-4C"], false))
            .unwrap_err()
            .to_string();
        assert!(e.contains("\"Ends\""), "{e}");
        let b = build(b"x", &["7C-4C"], true);
        let e = read(&b[..8]).unwrap_err().to_string();
        assert!(e.starts_with("MXQ at byte"), "{e}");
        assert!(!looks_like(b"[Event \"x\"]\n1. h2e2 *\n"));
    }
}
