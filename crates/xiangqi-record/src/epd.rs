//! Position files: one position a line, each read as a game with no moves.
//!
//! Three layouts are read, and may be mixed:
//!
//! ```text
//! rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1     (FEN)
//! 3k5/9/9/9/9/9/9/9/4R4/4K4 w - - bm e1e8; id "mate 1"; c0 "Red mates";     (EPD)
//! 兵的杀法|9/3k5/3aP4/9/9/9/9/9/9/4K4 w - - 0 1                            (title|FEN)
//! ```
//!
//! A FEN has the placement, the side to move (`w`/`r` or `b`; missing: Red, or Black when
//! Red cannot be to move), then optionally `-` `-` and the two move counters. An EPD line has
//! the four first fields and then operations `opcode operand...;`. The `title|FEN` layout is the
//! one of the cchess Python library's `.epd` files (walker8088/cchess). Blank lines and lines
//! starting with `#`, `%` or `//` are skipped.
//!
//! Each position becomes a [`GameRecord`]: the title or the `id` operation as the `Event` tag,
//! `c0` as the record's comment, every other operation as a tag named by its opcode (`bm`,
//! `am`, `ce`, ...), the text of the line as the `FEN` the writers write.

use core::fmt;

use xiangqi::fen;

use crate::model::GameRecord;
use crate::pgn::parse_fen_lenient;

/// A line that is no position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EpdError {
    /// 1-based number of the position (the game) among the file's position lines.
    pub game: usize,
    /// 1-based line.
    pub line: usize,
    pub message: String,
}

impl fmt::Display for EpdError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "position {} (line {}): {}",
            self.game, self.line, self.message
        )
    }
}

impl std::error::Error for EpdError {}

fn is_skipped(l: &str) -> bool {
    l.is_empty() || l.starts_with('#') || l.starts_with('%') || l.starts_with("//")
}

/// Splits off a `title|` prefix (when what precedes the bar is no board).
fn split_title(l: &str) -> (Option<&str>, &str) {
    match l.split_once('|') {
        Some((title, rest)) if fen::parse_board(title.trim()).is_err() => {
            (Some(title.trim()), rest.trim())
        }
        _ => (None, l),
    }
}

/// Whether decoded text is a position file: its first line that is not blank or a comment
/// reads as a position line (`title|` allowed), all of it: a board, a side, counters or EPD
/// operations (`FEN w, moves, result` lists, say, are not position files).
pub fn looks_like(text: &str) -> bool {
    let Some(first) = text
        .trim_start_matches('\u{feff}')
        .lines()
        .map(str::trim)
        .find(|l| !is_skipped(l))
    else {
        return false;
    };
    let (_, rest) = split_title(first);
    rest.split_whitespace()
        .next()
        .is_some_and(|p| p.contains('/') && fen::parse_board(p).is_ok())
        && read_line(first).is_ok()
}

/// Reads one position line (already trimmed, not skipped).
fn read_line(l: &str) -> Result<GameRecord, String> {
    let (title, rest) = split_title(l);
    let mut fields = rest.split_whitespace().peekable();
    let placement = fields.next().ok_or("no position")?;
    fen::parse_board(placement).map_err(|e| format!("'{placement}': {e}"))?;
    let mut side = "";
    if let Some(&s) = fields.peek() {
        if matches!(s, "w" | "W" | "r" | "R" | "b" | "B") {
            side = s;
            fields.next();
        }
    }
    // Castling and en passant: `-` in Xiangqi.
    for _ in 0..2 {
        if fields.peek() == Some(&"-") {
            fields.next();
        }
    }
    let rest: Vec<&str> = fields.collect();
    // FEN's two counters, when the rest is just two numbers (an EPD line has operations).
    let numbers = rest.len() == 2 && rest.iter().all(|f| f.parse::<u32>().is_ok());
    let (counters, ops) = if numbers {
        (format!("{} {}", rest[0], rest[1]), String::new())
    } else {
        ("0 1".to_string(), rest.join(" "))
    };
    let side_field = if side.is_empty() { "-" } else { side };
    let fen_text = format!("{placement} {side_field} - - {counters}");
    let (start, _) = parse_fen_lenient(&fen_text).map_err(|e| format!("'{placement}': {e}"))?;
    let mut rec = GameRecord {
        start,
        ..GameRecord::default()
    };
    if let Some(t) = title.filter(|t| !t.is_empty()) {
        rec.set_tag("Event", t);
    }
    for op in ops.split(';').map(str::trim).filter(|o| !o.is_empty()) {
        let (code, operand) = op.split_once(char::is_whitespace).unwrap_or((op, ""));
        let ok_code = code.len() <= 15
            && code.starts_with(|c: char| c.is_ascii_alphabetic())
            && code.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !ok_code {
            return Err(format!("'{op}' is no EPD operation (opcode operand...;)"));
        }
        let operand = operand.trim();
        let operand = operand
            .strip_prefix('"')
            .and_then(|o| o.strip_suffix('"'))
            .unwrap_or(operand);
        match code {
            "id" => rec.set_tag("Event", operand),
            "c0" => rec.comment = Some(operand.to_string()),
            _ => rec.set_tag(code, operand),
        }
    }
    Ok(rec)
}

/// Reads every position line of decoded text, in order: a game, or what is wrong with the line.
pub fn read_str(text: &str) -> Vec<Result<GameRecord, EpdError>> {
    let mut out = Vec::new();
    for (i, raw) in text.trim_start_matches('\u{feff}').lines().enumerate() {
        let l = raw.trim();
        if is_skipped(l) {
            continue;
        }
        let game = out.len() + 1;
        out.push(read_line(l).map_err(|message| EpdError {
            game,
            line: i + 1,
            message,
        }));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_three_layouts() {
        let text = "# positions\n\
            rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1\n\
            \n\
            3k5/9/9/9/9/9/9/9/4R4/4K4 w - - bm e1e8; id \"mate 1\"; c0 \"Red mates\";\n\
            兵的杀法|9/3k5/3aP4/9/9/9/9/9/9/4K4 w - - 0 1\n\
            3k5/9/9/9/9/9/9/9/4R4/4K4 b\n";
        assert!(looks_like(text));
        let v = read_str(text);
        assert_eq!(v.len(), 4);
        let g: Vec<GameRecord> = v.into_iter().map(Result::unwrap).collect();
        assert_eq!(g[0].start, xiangqi::Position::new());
        assert_eq!(g[1].tag("Event"), Some("mate 1"));
        assert_eq!(g[1].tag("bm"), Some("e1e8"));
        assert_eq!(g[1].comment.as_deref(), Some("Red mates"));
        assert_eq!(g[2].tag("Event"), Some("兵的杀法"));
        assert_eq!(g[3].start.turn(), xiangqi::Color::Black);
        assert!(g.iter().all(|g| g.moves.is_empty()));
    }

    #[test]
    fn a_bad_line_names_its_line() {
        let v = read_str("4k4/9/9/9/9/9/9/9/9/4K4 w\n\n4k4/9/9/9/9/9/9/9/9/4K5 w\n");
        assert_eq!(v.len(), 2);
        let e = v[1].as_ref().unwrap_err();
        assert_eq!((e.game, e.line), (2, 3));
        assert!(e.to_string().contains("4K5"), "{e}");
        assert!(!looks_like("1. h2e2 h9g7"));
        // A position, then moves and a result: no position file.
        assert!(!looks_like(
            "9/3k5/4c4/4N4/9/6R2/9/5p3/4r4/5K3 w, g4g8 d8d9 e6c7 d9e9 g8g9, 1-0"
        ));
        assert!(!looks_like("[Event \"x\"]"));
    }
}
