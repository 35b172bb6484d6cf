//! The game files of the XieXie GUI (`.wxf`): a text header of `KEY value` lines, then the
//! moves in WXF notation between `START{` and `END}` (XieXie itself writes `}END`, and puts a
//! move's `!`/`?` mark before the next move number: `C8-2    !!12.  E5+7`):
//!
//! ```text
//! FORMAT     WXF
//! GAME       Casual game
//! RED        Red player
//! BLACK      Black player
//! DATE       2024.05.01
//! RESULT     1-0
//! START{
//!   1.  C2.5    H8+7
//!   2.  H2+3!   R9.8
//! END}
//! ```
//!
//! Known keys become PGN tags (`GAME`/`EVENT` Event, `RED` Red, `BLACK` Black, `DATE` Date,
//! `PLACE`/`SITE` Site, `ROUND` Round, `RESULT` Result, `FEN` FEN, `OPENING` Opening); others
//! are kept as tags of their own name. The move part is PGN movetext (move numbers, `!`/`?`
//! marks, `{comments}`, variations) read by the PGN reader, so the same rules and errors
//! apply; line numbers in errors are the file's.

/// Whether decoded text is a XieXie game: its first line is `FORMAT WXF`, or its header
/// is followed by a `START{` line.
pub fn looks_like(text: &str) -> bool {
    let mut lines = text
        .trim_start_matches('\u{feff}')
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty());
    let Some(first) = lines.next() else {
        return false;
    };
    let mut words = first.split_whitespace();
    if words
        .next()
        .is_some_and(|w| w.eq_ignore_ascii_case("FORMAT"))
        && words.next().is_some_and(|w| w.eq_ignore_ascii_case("WXF"))
    {
        return true;
    }
    // A header of `KEY value` lines, then `START{`.
    is_key_line(first)
        && lines
            .take(40)
            .take_while(|l| is_key_line(l) || is_start(l))
            .any(is_start)
}

fn is_start(l: &str) -> bool {
    l.replace(' ', "").eq_ignore_ascii_case("START{")
}

/// The end of the move list: `END}`, or `}END` as XieXie itself writes it (and a bare `END`).
fn is_end(l: &str) -> bool {
    let l = l.replace(' ', "");
    ["END}", "}END", "END"]
        .iter()
        .any(|e| l.eq_ignore_ascii_case(e))
}

fn is_key_line(l: &str) -> bool {
    let key = l.split_whitespace().next().unwrap_or("");
    !key.is_empty() && key.len() <= 16 && key.bytes().all(|b| b.is_ascii_uppercase() || b == b'_')
}

fn tag_name(key: &str) -> String {
    match key.to_ascii_uppercase().as_str() {
        "GAME" | "EVENT" => "Event".into(),
        "RED" => "Red".into(),
        "BLACK" => "Black".into(),
        "DATE" => "Date".into(),
        "PLACE" | "SITE" => "Site".into(),
        "ROUND" => "Round".into(),
        "RESULT" => "Result".into(),
        "FEN" => "FEN".into(),
        "OPENING" => "Opening".into(),
        k => {
            let mut c = k.chars();
            match c.next() {
                Some(f) => f.to_string() + &c.as_str().to_ascii_lowercase(),
                None => String::new(),
            }
        }
    }
}

fn quote(v: &str) -> String {
    v.replace('\\', "\\\\").replace('"', "\\\"")
}

/// The same game as PGN text, line for line (so that the PGN reader's line numbers are the
/// file's): header lines become tag lines, `START{` and `END}` blank lines, and what follows
/// `END}` is left out.
pub fn to_pgn(text: &str) -> String {
    let text = text.trim_start_matches('\u{feff}');
    let mut out: Vec<String> = Vec::new();
    let mut in_moves = false;
    let mut format_written = false;
    for line in text.split('\n') {
        let line = line.trim_end_matches('\r');
        let l = line.trim();
        if in_moves {
            if is_end(l) {
                // Nothing after the game's end is part of it.
                out.push("*".into());
                break;
            }
            out.push(line.into());
            continue;
        }
        if is_start(l) {
            in_moves = true;
            out.push(String::new());
            continue;
        }
        let mut parts = l.splitn(2, char::is_whitespace);
        let key = parts.next().unwrap_or("");
        let value = parts.next().unwrap_or("").trim();
        if key.is_empty() {
            out.push(String::new());
        } else if key.eq_ignore_ascii_case("FORMAT") {
            // The notation of the moves: the PGN reader's Format tag.
            out.push(format!("[Format \"{}\"]", quote(value)));
            format_written = true;
        } else {
            out.push(format!("[{} \"{}\"]", tag_name(key), quote(value)));
        }
    }
    if !format_written {
        // On the first line, to keep the line numbers.
        match out.first_mut() {
            Some(first) => first.insert_str(0, "[Format \"WXF\"] "),
            None => out.push("[Format \"WXF\"]".into()),
        }
    }
    let mut s = out.join("\n");
    s.push('\n');
    s
}

/// Reads a XieXie game from decoded text: one game (or the PGN reader's error for it).
pub fn read_str(text: &str) -> Vec<Result<crate::GameRecord, crate::pgn::PgnError>> {
    crate::pgn::read_all(&to_pgn(text))
}
