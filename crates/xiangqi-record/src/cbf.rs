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
//! Only the main line is read: the files seen carry no variations, and how XQBox would write
//! them in CBF is not documented, so a `Move` after one marked `end="1"` is reported as an
//! error rather than guessed at.
//!
//! The XML reader here is deliberately small: elements, attributes, text, CDATA, the five
//! predefined entities and numeric character references; comments, processing instructions
//! and a DOCTYPE are skipped.

use xiangqi::{Board, Color, Fen, Square};

use crate::model::{GameRecord, GameResult};
use crate::rawtree::{gbk, start_position, to_lines, ErrorKind, Format, RawTree, ReadError, Slot};

/// The error type of this reader.
pub type CbfError = ReadError;

const F: Format = Format::Cbf;
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

/// Reads a CBF file (UTF-8 with or without BOM, else GBK). Any illegal move is an error.
pub fn read(bytes: &[u8]) -> Result<GameRecord, CbfError> {
    read_bytes(bytes, None)
}

/// Like [`read`], but an illegal move inside a variation only drops that branch from the move
/// on (see [`crate::rawtree`]); the errors for what was left out are returned beside the
/// record. An illegal main-line move is still the error.
pub fn read_lenient(bytes: &[u8]) -> Result<(GameRecord, Vec<CbfError>), CbfError> {
    let mut dropped = Vec::new();
    let rec = read_bytes(bytes, Some(&mut dropped))?;
    Ok((rec, dropped))
}

fn read_bytes(bytes: &[u8], dropped: Option<&mut Vec<ReadError>>) -> Result<GameRecord, CbfError> {
    let (body, shift) = match bytes.strip_prefix(b"\xef\xbb\xbf") {
        Some(rest) => (rest, 3),
        None => (bytes, 0),
    };
    match std::str::from_utf8(body) {
        Ok(s) => read_text(s, shift, dropped),
        Err(_) => read_text(&gbk(body), shift, dropped),
    }
}

// ---------------------------------------------------------------------------------------
// A small XML reader.

#[derive(Debug, Default)]
struct Element {
    name: String,
    attrs: Vec<(String, String)>,
    /// Text and CDATA content directly inside, concatenated.
    text: String,
    children: Vec<Element>,
    /// Byte offset of the `<` of the start tag (in the input).
    at: usize,
}

impl Element {
    fn attr(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
    fn child(&self, name: &str) -> Option<&Element> {
        self.children.iter().find(|c| c.name == name)
    }
}

fn xml_err(at: usize, msg: impl Into<String>) -> ReadError {
    ReadError::invalid(F, at, format!("XML: {}", msg.into()))
}

fn unescape(s: &str, at: usize) -> Result<String, ReadError> {
    if !s.contains('&') {
        return Ok(s.to_owned());
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(k) = rest.find('&') {
        out.push_str(&rest[..k]);
        let tail = &rest[k..];
        let end = tail
            .find(';')
            .filter(|&e| e <= 12)
            .ok_or_else(|| xml_err(at, "'&' that starts no entity"))?;
        let ent = &tail[1..end];
        let c = match ent {
            "lt" => '<',
            "gt" => '>',
            "amp" => '&',
            "quot" => '"',
            "apos" => '\'',
            _ => {
                let code = if let Some(h) = ent.strip_prefix("#x").or(ent.strip_prefix("#X")) {
                    u32::from_str_radix(h, 16).ok()
                } else if let Some(d) = ent.strip_prefix('#') {
                    d.parse().ok()
                } else {
                    None
                };
                code.and_then(char::from_u32)
                    .ok_or_else(|| xml_err(at, format!("unknown entity &{ent};")))?
            }
        };
        out.push(c);
        rest = &tail[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | ':')
}

/// Parses a document into its root element.
fn parse_xml(text: &str, shift: usize) -> Result<Element, ReadError> {
    let mut stack: Vec<Element> = Vec::new();
    let mut root: Option<Element> = None;
    let mut i = 0usize;
    let b = text.as_bytes();
    while i < b.len() {
        if b[i] != b'<' {
            let k = text[i..].find('<').map(|k| i + k).unwrap_or(b.len());
            let chunk = &text[i..k];
            match stack.last_mut() {
                Some(top) => top.text.push_str(&unescape(chunk, shift + i)?),
                None if chunk.trim().is_empty() => {}
                None => return Err(xml_err(shift + i, "text outside the root element")),
            }
            i = k;
            continue;
        }
        let rest = &text[i..];
        if rest.starts_with("<?") {
            let k = rest
                .find("?>")
                .ok_or_else(|| xml_err(shift + i, "unclosed <?...?>"))?;
            i += k + 2;
        } else if rest.starts_with("<!--") {
            let k = rest
                .find("-->")
                .ok_or_else(|| xml_err(shift + i, "unclosed comment"))?;
            i += k + 3;
        } else if rest.starts_with("<![CDATA[") {
            let k = rest
                .find("]]>")
                .ok_or_else(|| xml_err(shift + i, "unclosed CDATA section"))?;
            let top = stack
                .last_mut()
                .ok_or_else(|| xml_err(shift + i, "CDATA outside the root element"))?;
            top.text.push_str(&rest[9..k]);
            i += k + 3;
        } else if rest.starts_with("<!") {
            let k = rest
                .find('>')
                .ok_or_else(|| xml_err(shift + i, "unclosed <!...>"))?;
            i += k + 1;
        } else if let Some(close) = rest.strip_prefix("</") {
            let name_len = close
                .chars()
                .take_while(|&c| is_name_char(c))
                .map(char::len_utf8)
                .sum::<usize>();
            let name = &close[..name_len];
            let after = close[name_len..].trim_start();
            if !after.starts_with('>') {
                return Err(xml_err(shift + i, format!("malformed end tag </{name}")));
            }
            let el = stack.pop().ok_or_else(|| {
                xml_err(shift + i, format!("end tag </{name}> with nothing open"))
            })?;
            if el.name != name {
                return Err(xml_err(
                    shift + i,
                    format!("end tag </{name}> closes <{}>", el.name),
                ));
            }
            let consumed = 2 + name_len + (close[name_len..].len() - after.len()) + 1;
            i += consumed;
            finish(&mut stack, &mut root, el, shift + i)?;
        } else {
            // Start tag.
            let at = i;
            let mut j = i + 1;
            let name_len = text[j..]
                .chars()
                .take_while(|&c| is_name_char(c))
                .map(char::len_utf8)
                .sum::<usize>();
            if name_len == 0 {
                return Err(xml_err(shift + at, "'<' that starts no tag"));
            }
            let mut el = Element {
                name: text[j..j + name_len].to_owned(),
                at: shift + at,
                ..Element::default()
            };
            j += name_len;
            let self_closing;
            loop {
                let t = &text[j..];
                let trimmed = t.trim_start();
                j += t.len() - trimmed.len();
                if trimmed.starts_with("/>") {
                    self_closing = true;
                    j += 2;
                    break;
                }
                if trimmed.starts_with('>') {
                    self_closing = false;
                    j += 1;
                    break;
                }
                let an = trimmed
                    .chars()
                    .take_while(|&c| is_name_char(c))
                    .map(char::len_utf8)
                    .sum::<usize>();
                if an == 0 {
                    return Err(xml_err(
                        shift + j,
                        format!("malformed attribute in <{}>", el.name),
                    ));
                }
                let aname = trimmed[..an].to_owned();
                let t2 = trimmed[an..].trim_start();
                let Some(t3) = t2.strip_prefix('=') else {
                    return Err(xml_err(
                        shift + j,
                        format!("attribute {aname} without a value"),
                    ));
                };
                let t3 = t3.trim_start();
                let q = t3.chars().next();
                let Some(q @ ('"' | '\'')) = q else {
                    return Err(xml_err(
                        shift + j,
                        format!("attribute {aname}'s value is not quoted"),
                    ));
                };
                let Some(vend) = t3[1..].find(q) else {
                    return Err(xml_err(
                        shift + j,
                        format!("attribute {aname}'s value is not closed"),
                    ));
                };
                let raw = &t3[1..1 + vend];
                let consumed = trimmed.len() - t3.len() + vend + 2;
                el.attrs.push((aname, unescape(raw, shift + j)?));
                j += consumed;
            }
            i = j;
            if self_closing {
                finish(&mut stack, &mut root, el, shift + i)?;
            } else {
                if stack.len() >= MAX_DEPTH {
                    return Err(xml_err(
                        shift + at,
                        format!("elements nested more than {MAX_DEPTH} deep"),
                    ));
                }
                stack.push(el);
            }
        }
    }
    if let Some(open) = stack.last() {
        return Err(xml_err(open.at, format!("<{}> is never closed", open.name)));
    }
    root.ok_or_else(|| xml_err(shift, "no root element"))
}

fn finish(
    stack: &mut [Element],
    root: &mut Option<Element>,
    el: Element,
    at: usize,
) -> Result<(), ReadError> {
    match stack.last_mut() {
        Some(parent) => parent.children.push(el),
        None if root.is_none() => *root = Some(el),
        None => return Err(xml_err(at, "a second root element")),
    }
    Ok(())
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
) -> Result<GameRecord, ReadError> {
    let root = parse_xml(text, shift)?;
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
    let mut tree = RawTree::new();
    let mut slot = Slot::ChildOf(None);
    let mut ended: Option<usize> = None;
    if let Some(list) = root.child("MoveList") {
        for (k, mv) in list
            .children
            .iter()
            .filter(|c| c.name == "Move")
            .enumerate()
        {
            if let Some(end_at) = ended {
                return Err(ReadError::invalid(
                    F,
                    mv.at,
                    format!(
                        "a <Move> after the one marked end=\"1\" (byte {end_at}): variations in \
                         CBF are not supported"
                    ),
                ));
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
            if mv.attr("end") == Some("1") {
                ended = Some(mv.at);
            }
        }
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
        assert!(e.to_string().contains("not supported"), "{e}");
    }
}
