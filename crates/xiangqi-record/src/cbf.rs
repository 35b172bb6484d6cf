//! XQBox / CCBridge XML game records, `.cbf`:
//!
//! ```text
//! <ChineseChessRecord Version="1.0">
//!  <Head><Name>..</Name><Contest>..</Contest> .. <RecordResult>0</RecordResult>
//!        <FEN>rnbakabnr/9/... w - - 0 1</FEN></Head>
//!  <MoveList>
//!   <Move value="00-00"><![CDATA[comment before the first move]]></Move>
//!   <Move value="77-47" />  <!-- file, row from the top; h2e2 -->
//!   <Move value="70-62"><![CDATA[comment after the move]]></Move>
//!   <Move value="79-67" end="1" />
//!  </MoveList>
//! </ChineseChessRecord>
//! ```
//!
//! The first `Move` with equal squares (`00-00`) stands for the start position. Head fields
//! map to tags: Name → Title, Contest → Event, Round, Group, Table, Date, Site, TimeRule →
//! TimeControl, Red, RedTeam, RedTime, RedRating, Black, BlackTeam, BlackTime, BlackRating,
//! Referee, Recorder, Commentator → Annotator, Creator → Author, ECCO; RecordResult gives the
//! result (0 unknown, 1 Red wins, 2 Black wins, 3 or 4 draw).
//!
//! Variations are written as XQF writes its tree, depth first: a `Move` marked `branch="1"`
//! has an alternative further on, one marked `end="1"` ends its line, and the `Move` after an
//! end is the alternative to the latest move marked `branch="1"` whose alternative has not
//! come yet (a move may be marked both). So in
//! `A B branch C end D end`, D is the alternative to B. Seen in a real 象棋桥 file
//! (zfdang/chinese-chess-fish-android `棋谱/sample_22_ccbridge.cbf`, MIT: 41 alternatives).
//! A `Move` after the last line has ended, with no alternative owed, is an error.
//!
//! The XML is read by the crate's own small XML reader (module `xml`, shared with the PengFei
//! reader).

use xiangqi::{Board, Color, Fen, Square};

use crate::model::{GameRecord, GameResult};
use crate::rawtree::{
    decode_text, start_position, to_lines, tree_reader_entry_points, ErrorKind, Format, RawTree,
    ReadError, Slot,
};
use crate::xml::{read_document, Element, XML_LEFT_OUT};

/// The error type of this reader.
pub type CbfError = ReadError;

const F: Format = Format::Cbf;
/// CBF keeps its moves side by side: deeper nesting is no CBF.
const MAX_DEPTH: usize = 64;

const HEAD_TAGS: [(&str, &str); 19] = [
    ("Name", "Title"),
    ("Contest", "Event"),
    ("Round", "Round"),
    ("Group", "Group"),
    ("Table", "Table"),
    ("Date", "Date"),
    ("Site", "Site"),
    ("TimeRule", "TimeControl"),
    ("Red", "Red"),
    ("RedTeam", "RedTeam"),
    ("RedTime", "RedTime"),
    ("RedRating", "RedRating"),
    ("Black", "Black"),
    ("BlackTeam", "BlackTeam"),
    ("BlackTime", "BlackTime"),
    ("BlackRating", "BlackRating"),
    ("Referee", "Referee"),
    ("Commentator", "Annotator"),
    ("ECCO", "ECCO"),
];

/// Cheap check: `<ChineseChessRecord` in the first 4 KiB.
pub fn looks_like(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(4096)];
    head.windows(19).any(|w| w == b"<ChineseChessRecord")
}

tree_reader_entry_points!(
    "a CBF document (UTF-8 with or without BOM, else GBK)",
    read_bytes
);

fn read_bytes(
    bytes: &[u8],
    dropped: Option<&mut Vec<ReadError>>,
    salvage: bool,
) -> Result<GameRecord, CbfError> {
    let (text, shift) = decode_text(bytes);
    read_text(&text, shift, dropped, salvage)
}

// ---------------------------------------------------------------------------------------

/// A CBF square: file digit and row digit from the top.
fn square(file: u8, row: u8) -> Option<Square> {
    if file > 8 || row > 9 {
        return None;
    }
    Square::new((9 - row) * 9 + file)
}

fn parse_move(v: &str) -> Option<(u8, u8, u8, u8)> {
    let b = v.trim().as_bytes();
    if b.len() != 5 || b[2] != b'-' {
        return None;
    }
    let d = |x: u8| x.is_ascii_digit().then(|| x - b'0');
    Some((d(b[0])?, d(b[1])?, d(b[3])?, d(b[4])?))
}

fn read_text(
    text: &str,
    shift: usize,
    dropped: Option<&mut Vec<ReadError>>,
    salvage: bool,
) -> Result<GameRecord, ReadError> {
    read_document(text, shift, F, MAX_DEPTH, salvage, |root, xml_fault| {
        read_root(root, xml_fault, dropped, salvage)
    })
}

/// The record of a parsed document, `xml_fault` being where a salvaging parse stopped.
fn read_root(
    root: Element,
    xml_fault: Option<ReadError>,
    dropped: Option<&mut Vec<ReadError>>,
    salvage: bool,
) -> Result<GameRecord, ReadError> {
    // Salvaging, a document that goes wrong before its move list (in the head: the start
    // position may be what is lost) is still the error.
    if let Some(e) = &xml_fault {
        if root.child("MoveList").is_none() {
            return Err(e.clone());
        }
    }
    if root.name != "ChineseChessRecord" {
        return Err(ReadError::at(
            F,
            root.at,
            ErrorKind::NotThisFormat(format!(
                "the root element is <{}>, not <ChineseChessRecord>",
                root.name
            )),
        ));
    }
    let head = root.child("Head");

    // Start position.
    let mut board = Board::start();
    let mut turn = Color::Red;
    let mut fullmoves = 1;
    let mut board_at = root.at;
    if let Some(fen_el) = head.and_then(|h| h.child("FEN")) {
        let fen = fen_el.text.trim();
        if !fen.is_empty() {
            let setup = fen.parse::<Fen>().map_err(|e| {
                ReadError::invalid(F, fen_el.at, format!("<FEN> is not a FEN: {e}"))
            })?;
            board = setup.0.board;
            turn = setup.0.turn;
            fullmoves = setup.0.fullmoves;
            board_at = fen_el.at;
        }
    }

    // Moves.
    let mut tree = RawTree::salvaging(salvage);
    let mut slot = Slot::ChildOf(None);
    let mut ended: Option<usize> = None;
    // The moves marked branch="1" whose alternative is still to come, the latest last.
    let mut owed: Vec<usize> = Vec::new();
    if let Some(list) = root.child("MoveList") {
        for (k, mv) in list
            .children
            .iter()
            .filter(|c| c.name == "Move")
            .enumerate()
        {
            if let Some(end_at) = ended {
                match owed.pop() {
                    Some(i) => {
                        slot = Slot::SiblingOf(i);
                        ended = None;
                    }
                    None => {
                        return Err(ReadError::invalid(
                            F,
                            mv.at,
                            format!(
                                "a <Move> after the one marked end=\"1\" (byte {end_at}) that \
                                 ends the last line: no move marked branch=\"1\" is owed an \
                                 alternative"
                            ),
                        ))
                    }
                }
            }
            if !mv.children.is_empty() {
                return Err(ReadError::invalid(
                    F,
                    mv.at,
                    "a <Move> with elements inside it (variations in CBF are not supported)",
                ));
            }
            let value = mv.attr("value").ok_or_else(|| {
                ReadError::invalid(F, mv.at, "a <Move> without a value attribute")
            })?;
            let (fx, fy, tx, ty) = parse_move(value).ok_or_else(|| {
                ReadError::invalid(
                    F,
                    mv.at,
                    format!(
                        "<Move value=\"{value}\">: a move is \"XY-XY\" (file, row from the top)"
                    ),
                )
            })?;
            let comment = {
                let t = mv.text.trim();
                (!t.is_empty()).then(|| t.to_owned())
            };
            if k == 0 && (fx, fy) == (tx, ty) {
                tree.root_comment = comment;
                continue;
            }
            let bad = |what, x: u8, y: u8| {
                ReadError::at(
                    F,
                    mv.at,
                    ErrorKind::BadSquare {
                        what,
                        value: x as u32 * 10 + y as u32,
                    },
                )
            };
            let from = square(fx, fy).ok_or_else(|| bad("a move's from-square", fx, fy))?;
            let to = square(tx, ty).ok_or_else(|| bad("a move's to-square", tx, ty))?;
            let i = tree.add(slot, (from, to, comment, mv.at));
            slot = Slot::ChildOf(Some(i));
            if mv.attr("branch") == Some("1") {
                owed.push(i);
            }
            if mv.attr("end") == Some("1") {
                ended = Some(mv.at);
            }
        }
    }

    if let Some(e) = xml_fault {
        tree.stop(Slot::ChildOf(None), e, XML_LEFT_OUT.into())?;
    }
    let start = start_position(F, board, turn, fullmoves, &tree, board_at)?;
    let moves = to_lines(F, &tree, &start, dropped)?;
    let result = match head
        .and_then(|h| h.child("RecordResult"))
        .map(|e| e.text.trim())
    {
        Some("1") => GameResult::RedWins,
        Some("2") => GameResult::BlackWins,
        Some("3") | Some("4") => GameResult::Draw,
        _ => GameResult::Unknown,
    };
    let mut rec = GameRecord {
        start,
        comment: tree.root_comment.clone(),
        moves,
        result,
        ..GameRecord::default()
    };
    if let Some(h) = head {
        for (el, tag) in HEAD_TAGS {
            if let Some(e) = h.child(el) {
                let v = e.text.trim();
                if !v.is_empty() {
                    rec.set_tag(tag, v);
                }
            }
        }
        if let Some(e) = h.child("Creator") {
            let v = e.text.trim();
            if !v.is_empty() {
                rec.set_tag("Author", v);
            }
        }
    }
    rec.set_tag("Result", result.as_pgn());
    Ok(rec)
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = "\u{feff}<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
        <ChineseChessRecord Version=\"1.0\"><Head><Name>A &amp; B</Name><Red>R</Red>\
        <RecordResult>1</RecordResult><FEN>rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1</FEN></Head>\
        <MoveList><Move value=\"00-00\"><![CDATA[start]]></Move><Move value=\"77-47\" />\
        <Move value=\"70-62\"><![CDATA[x < y]]></Move></MoveList></ChineseChessRecord>";

    #[test]
    fn reads_head_moves_and_comments() {
        let rec = read(DOC.as_bytes()).unwrap();
        assert_eq!(rec.tag("Title"), Some("A & B"));
        assert_eq!(rec.tag("Red"), Some("R"));
        assert_eq!(rec.result, GameResult::RedWins);
        assert_eq!(rec.comment.as_deref(), Some("start"));
        let ml: Vec<String> = rec.mainline().map(|m| m.to_string()).collect();
        assert_eq!(ml, ["h2e2", "h9g7"]);
        assert_eq!(rec.moves[1].comment.as_deref(), Some("x < y"));
    }

    #[test]
    fn broken_xml_is_named() {
        let doc = DOC.replace("</MoveList>", "");
        let e = read(doc.as_bytes()).unwrap_err();
        assert!(e.to_string().starts_with("CBF at byte"), "{e}");
        assert!(e.to_string().contains("XML"), "{e}");
        let e = read(b"<Other/>").unwrap_err();
        assert!(matches!(e.kind, ErrorKind::NotThisFormat(_)), "{e}");
    }

    #[test]
    fn moves_after_end_are_refused() {
        let doc = DOC.replace(
            "<Move value=\"77-47\" />",
            "<Move value=\"77-47\" end=\"1\"/>",
        );
        let e = read(doc.as_bytes()).unwrap_err();
        assert!(e.to_string().contains("no move marked branch"), "{e}");
    }

    #[test]
    fn branches_are_alternatives() {
        // 1. h2e2 (1... h9g7 | 1... b9c7 2. h0g2) (1. b2e2): h2e2 marked branch, its reply
        // h9g7 marked branch and end, then b9c7's line, then b2e2.
        let doc = "<ChineseChessRecord><Head/><MoveList><Move value=\"00-00\"/>\
            <Move value=\"77-47\" branch=\"1\"/><Move value=\"70-62\" branch=\"1\" end=\"1\"/>\
            <Move value=\"10-22\"/><Move value=\"79-67\" end=\"1\"/>\
            <Move value=\"17-47\" end=\"1\"/></MoveList></ChineseChessRecord>";
        let rec = read(doc.as_bytes()).unwrap();
        let ml: Vec<String> = rec.mainline().map(|m| m.to_string()).collect();
        assert_eq!(ml, ["h2e2", "h9g7"]);
        assert_eq!(rec.moves[0].variations[0][0].mv.to_string(), "b2e2");
        let alt = &rec.moves[1].variations[0];
        let alt: Vec<String> = alt.iter().map(|n| n.mv.to_string()).collect();
        assert_eq!(alt, ["b9c7", "h0g2"]);
    }
}
