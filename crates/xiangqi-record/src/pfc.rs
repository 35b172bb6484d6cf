//! PengFei (鹏飞象棋) records, `.pfc`: one XML element `n` a node of the move tree, every move
//! nested inside the move before it.
//!
//! ```text
//! <?xml version="1.0" encoding="utf-8"?>
//! <n version="2" win="1-0" m="rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"
//!    c="comment before the first move" title="..." event="..." red="..." black="...">
//!   <n m="h2e2" c="comment after the move" default="true">
//!     <n m="h9g7" c="" />
//!   </n>
//!   <n m="c3c4" c="an alternative first move" />
//! </n>
//! ```
//!
//! The root `n` carries the start position as a FEN (`m`), the comment before the first move
//! (`c`), the result (`win`: `1-0`, `0-1`, `1/2-1/2`, `*`) and the game's information as
//! attributes; each child `n` is a move in ICCS coordinates without a dash (`m="h2e2"`) with
//! its comment (`c`). Several children of one node are alternatives; the one marked
//! `default="true"` is the main line (else the first). A forum post may carry the document
//! inside an HTML comment after `[pfchessrecord]`: `[pfchessrecord]<!--<?xml ...?><n ...>
//! ...</n>-->[/pfchessrecord]`.
//!
//! Where the layout comes from: the writer and reader of PFC in the vschess web viewer
//! (FastLight126/vschess, LGPL, read only: `nodeToData_PengFei`, `dataToNode_PFC`,
//! `dataToInfo_PFC`); the attribute names of the game information are vschess's (`title`,
//! `event`, `red`, `redteam`, `black`, `place`, `round`, `table`, `ecco`, `open`, `remark`,
//! `author`, ..., `create-time` for the date). No PFC file written by PengFei itself was found.

use xiangqi::{Board, Color, Fen, Square};

use crate::model::{GameRecord, GameResult};
use crate::rawtree::{
    decode_text, start_position, to_lines, tree_reader_entry_points, ErrorKind, Format, RawTree,
    ReadError, Slot,
};
use crate::xml::{read_document, Element, XML_LEFT_OUT};

/// The error type of this reader.
pub type PfcError = ReadError;

const F: Format = Format::Pfc;
/// Every move is nested inside the one before it: the depth is the length of the longest
/// line, so allow long games (and refuse what no game is).
const MAX_DEPTH: usize = 20_000;

/// The root's attributes that become PGN tags (vschess's names of the game information).
const INFO_TAGS: [(&str, &str); 30] = [
    ("title", "Title"),
    ("event", "Event"),
    ("red", "Red"),
    ("redteam", "RedTeam"),
    ("redname", "RedName"),
    ("redeng", "RedEnglish"),
    ("redlevel", "RedLevel"),
    ("redrating", "RedRating"),
    ("redtime", "RedTime"),
    ("black", "Black"),
    ("blackteam", "BlackTeam"),
    ("blackname", "BlackName"),
    ("blackeng", "BlackEnglish"),
    ("blacklevel", "BlackLevel"),
    ("blackrating", "BlackRating"),
    ("blacktime", "BlackTime"),
    ("ecco", "ECCO"),
    ("open", "Opening"),
    ("variation", "Variation"),
    ("remark", "Annotator"),
    ("author", "Author"),
    ("group", "Group"),
    ("create-time", "Date"),
    ("date", "Date"),
    ("place", "Site"),
    ("round", "Round"),
    ("table", "Table"),
    ("judge", "Referee"),
    ("record", "Recorder"),
    ("timerule", "TimeControl"),
];

/// Where the root `<n` starts in `text`: the first tag that is no `<?...?>` or `<!...>` is an
/// `n` element with a `version` attribute.
fn root_at(text: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(k) = text[from..].find('<') {
        let at = from + k;
        let rest = &text[at + 1..];
        if rest.starts_with('?') || rest.starts_with('!') {
            from = at + 1;
            continue;
        }
        let after = rest.strip_prefix('n')?;
        if !after.starts_with(|c: char| c.is_ascii_whitespace()) {
            return None;
        }
        let tag = &after[..after.find('>')?];
        return tag.contains("version=").then_some(at);
    }
    None
}

/// Cheap check: within the first 4 KiB, the first element is `<n version=...`.
pub fn looks_like(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(4096)];
    if !head.windows(2).any(|w| w == b"<n") {
        return false;
    }
    root_at(&String::from_utf8_lossy(head)).is_some()
}

tree_reader_entry_points!(
    "a PengFei PFC document (UTF-8 with or without BOM, else GBK)",
    read_bytes
);

fn read_bytes(
    bytes: &[u8],
    dropped: Option<&mut Vec<ReadError>>,
    salvage: bool,
) -> Result<GameRecord, PfcError> {
    let (text, shift) = decode_text(bytes);
    read_text(&text, shift, dropped, salvage)
}

/// The part of `text` that is the XML document: from its start, or from inside the HTML
/// comment that wraps it, to the last `>` (or the comment's end).
fn document(text: &str) -> Result<(usize, &str), ReadError> {
    let at = root_at(text).ok_or_else(|| {
        ReadError::at(
            F,
            0,
            ErrorKind::NotThisFormat(
                "no <n version=...> element starts the document (a PFC record's root)".into(),
            ),
        )
    })?;
    // Inside an unclosed `<!--` before the root: the document is the comment's content.
    if let Some(open) = text[..at].rfind("<!--") {
        if !text[open..at].contains("-->") {
            let start = open + 4;
            let end = text[at..].find("-->").map(|k| at + k).ok_or_else(|| {
                ReadError::invalid(F, open, "the <!-- around the record is never closed")
            })?;
            return Ok((start, &text[start..end]));
        }
    }
    let end = text.rfind('>').map_or(text.len(), |k| k + 1);
    // From the XML declaration when there is one, else from the root: text before it (a
    // forum's `[pfchessrecord]`) is left out.
    let start = text[..at].find("<?").unwrap_or(at);
    Ok((start, &text[start..end]))
}

/// An ICCS square, `h2`.
fn square(file: u8, rank: u8) -> Option<Square> {
    let f = file.to_ascii_lowercase().checked_sub(b'a')?;
    let r = rank.checked_sub(b'0')?;
    if f > 8 || r > 9 {
        return None;
    }
    Square::new(r * 9 + f)
}

/// A move as `m` holds it: `h2e2` (also `h2-e2`, upper case).
fn parse_move(m: &str) -> Option<(Square, Square)> {
    let b: Vec<u8> = m.trim().bytes().filter(|&c| c != b'-').collect();
    if b.len() != 4 {
        return None;
    }
    Some((square(b[0], b[1])?, square(b[2], b[3])?))
}

fn is_default(e: &Element) -> bool {
    e.attr("default")
        .is_some_and(|v| matches!(v.trim(), "true" | "1" | "yes"))
}

fn result_of(v: &str) -> Option<GameResult> {
    Some(match v.trim() {
        "1-0" | "红胜" | "紅勝" | "红先胜" | "紅先勝" | "黑负" | "黑負" => {
            GameResult::RedWins
        }
        "0-1" | "黑胜" | "黑勝" | "红负" | "紅負" | "红先负" | "紅先負" => {
            GameResult::BlackWins
        }
        "1/2-1/2" | "½-½" | "和" | "和棋" | "红和" | "紅和" | "红先和" | "紅先和" => {
            GameResult::Draw
        }
        "*" | "" => GameResult::Unknown,
        _ => return None,
    })
}

fn read_text(
    text: &str,
    shift: usize,
    dropped: Option<&mut Vec<ReadError>>,
    salvage: bool,
) -> Result<GameRecord, ReadError> {
    let (start, doc) = document(text)?;
    read_document(
        doc,
        shift + start,
        F,
        MAX_DEPTH,
        salvage,
        |root, xml_fault| read_root(root, xml_fault, dropped, salvage),
    )
}

/// The record of a parsed document, `xml_fault` being where a salvaging parse stopped.
fn read_root(
    root: Element,
    xml_fault: Option<ReadError>,
    dropped: Option<&mut Vec<ReadError>>,
    salvage: bool,
) -> Result<GameRecord, ReadError> {
    if root.name != "n" {
        return Err(ReadError::at(
            F,
            root.at,
            ErrorKind::NotThisFormat(format!("the root element is <{}>, not <n>", root.name)),
        ));
    }

    // Start position.
    let mut board = Board::start();
    let mut turn = Color::Red;
    let mut fullmoves = 1;
    if let Some(fen) = root.attr("m").map(str::trim).filter(|f| !f.is_empty()) {
        let setup = fen.parse::<Fen>().map_err(|e| {
            ReadError::invalid(
                F,
                root.at,
                format!("the root's m=\"{fen}\" is not a FEN: {e}"),
            )
        })?;
        board = setup.0.board;
        turn = setup.0.turn;
        fullmoves = setup.0.fullmoves;
    }

    // The move tree, without recursion: each node's `n` children, the default one first.
    let mut tree = RawTree::salvaging(salvage);
    tree.root_comment = root
        .attr("c")
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .map(str::to_owned);
    let mut pending: Vec<(&Element, Option<usize>)> = vec![(&root, None)];
    while let Some((el, parent)) = pending.pop() {
        let mut kids: Vec<&Element> = el.children.iter().filter(|c| c.name == "n").collect();
        if let Some(d) = kids.iter().position(|k| is_default(k)) {
            let main = kids.remove(d);
            kids.insert(0, main);
        }
        for k in kids {
            let m = k
                .attr("m")
                .ok_or_else(|| ReadError::invalid(F, k.at, "a move <n> without an m attribute"))?;
            let (from, to) = parse_move(m).ok_or_else(|| {
                ReadError::invalid(
                    F,
                    k.at,
                    format!("<n m=\"{m}\">: a move is four ICCS characters, file a-i and rank 0-9 twice (h2e2)"),
                )
            })?;
            let comment = k
                .attr("c")
                .map(str::trim)
                .filter(|c| !c.is_empty())
                .map(str::to_owned);
            let i = tree.add(Slot::ChildOf(parent), (from, to, comment, k.at));
            pending.push((k, Some(i)));
        }
    }

    if let Some(e) = xml_fault {
        tree.stop(Slot::ChildOf(None), e, XML_LEFT_OUT.into())?;
    }
    let start_pos = start_position(F, board, turn, fullmoves, &tree, root.at)?;
    let moves = to_lines(F, &tree, &start_pos, dropped)?;
    let mut result = GameResult::Unknown;
    let mut rec = GameRecord::default();
    for (k, v) in &root.attrs {
        let v = v.trim();
        match k.as_str() {
            "version" | "m" | "c" => {}
            "win" | "result" => match result_of(v) {
                Some(r) => {
                    if r != GameResult::Unknown {
                        result = r;
                    }
                }
                None => rec.set_tag(if k == "win" { "Win" } else { "ResultText" }, v),
            },
            _ if v.is_empty() => {}
            name => {
                let tag = INFO_TAGS
                    .iter()
                    .find(|(a, _)| *a == name)
                    .map_or(name, |(_, t)| t);
                rec.set_tag(tag, v);
            }
        }
    }
    rec.start = start_pos;
    rec.comment = tree.root_comment.clone();
    rec.moves = moves;
    rec.result = result;
    rec.set_tag("Result", result.as_pgn());
    Ok(rec)
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = "<?xml version=\"1.0\" encoding=\"utf-8\"?><n version=\"2\" win=\"1-0\" \
        m=\"rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1\" c=\"start\" \
        title=\"A &amp; B\" red=\"R\" create-time=\"2020.01.02\">\
        <n m=\"c3c4\" c=\"alt\" /><n m=\"h2e2\" c=\"x &lt; y\" default=\"true\"><n m=\"h9g7\" c=\"\" /></n></n>";

    #[test]
    fn reads_information_moves_variations_and_comments() {
        assert!(looks_like(DOC.as_bytes()));
        let rec = read(DOC.as_bytes()).unwrap();
        assert_eq!(rec.tag("Title"), Some("A & B"));
        assert_eq!(rec.tag("Red"), Some("R"));
        assert_eq!(rec.tag("Date"), Some("2020.01.02"));
        assert_eq!(rec.result, GameResult::RedWins);
        assert_eq!(rec.comment.as_deref(), Some("start"));
        let ml: Vec<String> = rec.mainline().map(|m| m.to_string()).collect();
        assert_eq!(ml, ["h2e2", "h9g7"]);
        assert_eq!(rec.moves[0].comment.as_deref(), Some("x < y"));
        assert_eq!(rec.moves[0].variations.len(), 1);
        assert_eq!(rec.moves[0].variations[0][0].mv.to_string(), "c3c4");
    }

    #[test]
    fn forum_wrapper_is_read() {
        let post = format!("[pfchessrecord]<!--{DOC}-->[/pfchessrecord]");
        assert!(looks_like(post.as_bytes()));
        let rec = read(post.as_bytes()).unwrap();
        assert_eq!(rec.moves.len(), 2);
    }

    #[test]
    fn bad_moves_and_broken_xml_are_named() {
        let e = read(DOC.replace("h9g7", "h9z7").as_bytes()).unwrap_err();
        assert!(e.to_string().contains("h9z7"), "{e}");
        assert!(e.to_string().starts_with("PFC at byte"), "{e}");
        let e = read(DOC.replace("</n></n>", "</n>").as_bytes()).unwrap_err();
        assert!(e.to_string().contains("never closed"), "{e}");
        let e = read(DOC.replace("h9g7", "h9h1").as_bytes()).unwrap_err();
        assert!(
            matches!(e.kind, ErrorKind::IllegalMove { ply: 2, .. }),
            "{e}"
        );
        assert!(!looks_like(b"<html><n version=\"2\"></n></html>"));
    }

    #[test]
    fn deep_nesting_neither_overflows_nor_is_refused() {
        // 600 plies of horses going back and forth: nested 600 deep.
        let mut doc = String::from("<n version=\"2\" m=\"\">");
        let cycle = ["h0g2", "h9g7", "g2h0", "g7h9"];
        for i in 0..600 {
            doc.push_str(&format!("<n m=\"{}\">", cycle[i % 4]));
        }
        doc.push_str(&"</n>".repeat(601));
        let rec = read(doc.as_bytes()).unwrap();
        assert_eq!(rec.moves.len(), 600);
        // Far deeper than allowed: refused, without a stack overflow.
        let deep = "<n version=\"2\">".to_string() + &"<n m=\"h0g2\">".repeat(30_000);
        assert!(read(deep.as_bytes()).is_err());
    }
}
