//! Opening books: EPD/FEN lines, PGN games, or walks in an engine book (`xiangqi explorer
//! book`).

use std::path::Path;

use xiangqi::{Move, Position};
use xiangqi_record::pgn;

use crate::cli::{OpeningsSpec, Order};

/// A start position and the book moves played from it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening {
    pub start: Position,
    pub moves: Vec<Move>,
    /// A name for the PGN (`Opening` tag), if the book gives one.
    pub label: Option<String>,
}

impl Opening {
    pub fn startpos() -> Opening {
        Opening {
            start: Position::new(),
            moves: Vec::new(),
            label: None,
        }
    }
}

/// The value of an EPD operation `op "text";` or `op word;`.
fn epd_op(ops: &str, op: &str) -> Option<String> {
    let mut rest = ops;
    while let Some(i) = rest.find(op) {
        let before_ok = i == 0 || rest[..i].ends_with([' ', ';']);
        let after = &rest[i + op.len()..];
        if before_ok && after.starts_with(' ') {
            let v = after.trim_start();
            if let Some(q) = v.strip_prefix('"') {
                return q.split('"').next().map(str::to_string);
            }
            return v.split(';').next().map(|s| s.trim().to_string());
        }
        rest = &rest[i + op.len()..];
    }
    None
}

/// Reads EPD or FEN lines: `BOARD SIDE - - [HALFMOVES FULLMOVES] [op value; ...]`. Blank lines
/// and lines starting with `#` are skipped.
pub fn parse_epd(text: &str, file: &str) -> Result<Vec<Opening>, String> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let toks: Vec<&str> = line.split_whitespace().collect();
        let numeric = |i: usize| toks.get(i).is_some_and(|t| t.parse::<u32>().is_ok());
        let (fen, ops) = if numeric(4) && numeric(5) {
            (toks[..6].join(" "), toks[6..].join(" "))
        } else {
            let k = toks.len().min(4);
            (toks[..k].join(" "), toks[k..].join(" "))
        };
        if toks.len() < 2 || !matches!(toks[1], "w" | "b" | "r") {
            return Err(format!(
                "{file}:{}: '{line}' is not an EPD/FEN line (board and side to move)",
                n + 1
            ));
        }
        let (start, _) = pgn::parse_fen_lenient(&fen)
            .map_err(|e| format!("{file}:{}: bad position '{fen}': {e}", n + 1))?;
        if start.legal_moves().is_empty() {
            return Err(format!(
                "{file}:{}: the side to move has no legal move in '{fen}'",
                n + 1
            ));
        }
        let label = epd_op(&ops, "id").or_else(|| epd_op(&ops, "c1"));
        out.push(Opening {
            start,
            moves: Vec::new(),
            label,
        });
    }
    Ok(out)
}

/// Reads PGN games: the start position and the main line of each.
pub fn parse_pgn(bytes: &[u8], file: &str) -> Result<Vec<Opening>, String> {
    let mut out = Vec::new();
    for (i, g) in pgn::read_bytes(bytes).into_iter().enumerate() {
        let g = g.map_err(|e| format!("{file}: game {}: {e}", i + 1))?;
        let label = g
            .tag("Opening")
            .or_else(|| g.tag("ECCO"))
            .or_else(|| g.tag("Event"))
            .map(str::to_string);
        let mut pos = g.start.clone();
        let moves: Vec<Move> = g.mainline().collect();
        for &m in &moves {
            pos.play_unchecked(m);
        }
        if pos.legal_moves().is_empty() {
            return Err(format!("{file}: game {}: the opening ends the game", i + 1));
        }
        out.push(Opening {
            start: g.start,
            moves,
            label,
        });
    }
    Ok(out)
}

/// splitmix64 from `s`.
fn splitmix(s: &mut u64) -> u64 {
    *s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *s;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// `count` openings from an engine book: from the start position, each ply a book move of
/// the position chosen by weight (as the engine chooses with `OwnBook`), up to `plies` plies
/// or until the position is out of book. Walk `i` is random from `seed` and `i`, so a
/// match's openings are the same on every run with the same `-srand`.
pub fn book_walks(
    book: &xiangqi_explorer::book::Book,
    count: usize,
    plies: usize,
    seed: u64,
    file: &str,
) -> Result<Vec<Opening>, String> {
    let start = Position::new();
    if book.probe(&start).iter().all(|m| m.weight == 0) {
        return Err(format!(
            "{file}: the book has no move for the start position"
        ));
    }
    let mut out = Vec::with_capacity(count);
    for i in 0..count {
        let mut s = seed ^ (i as u64).wrapping_mul(0xD6E8_FEB8_6659_FD93) ^ 0xB00C;
        let mut pos = start.clone();
        let mut moves = Vec::new();
        while moves.len() < plies {
            let unit = (splitmix(&mut s) >> 11) as f64 / (1u64 << 53) as f64;
            let Some(m) = xiangqi_explorer::book::Book::choose(&book.probe(&pos), unit) else {
                break;
            };
            let mut next = pos.clone();
            next.play_unchecked(m.mv);
            if next.legal_moves().is_empty() {
                break; // never an opening that ends the game
            }
            moves.push(m.mv);
            pos = next;
        }
        out.push(Opening {
            start: start.clone(),
            moves,
            label: None,
        });
    }
    Ok(out)
}

/// Loads the openings of `spec`; a book gives `count` walks (random from `seed`).
pub fn load(spec: &OpeningsSpec, count: usize, seed: u64) -> Result<Vec<Opening>, String> {
    let file = spec.file.display().to_string();
    let bytes =
        std::fs::read(&spec.file).map_err(|e| format!("-openings: cannot read {file}: {e}"))?;
    if spec.book || (spec.pgn.is_none() && bytes.starts_with(&xiangqi_explorer::book::MAGIC)) {
        let book = xiangqi_explorer::book::Book::from_bytes(bytes, &file).map_err(|e| e.0)?;
        let plies = spec.plies.unwrap_or(crate::cli::DEFAULT_BOOK_PLIES);
        return book_walks(&book, count.max(1), plies, seed, &file);
    }
    let is_pgn = spec.pgn.unwrap_or_else(|| {
        let ext = Path::new(&spec.file)
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase());
        match ext.as_deref() {
            Some("pgn") => true,
            Some("epd" | "fen") => false,
            _ => pgn::looks_like(&String::from_utf8_lossy(&bytes)),
        }
    });
    let list = if is_pgn {
        let mut list = parse_pgn(&bytes, &file)?;
        if let Some(n) = spec.plies {
            for o in &mut list {
                o.moves.truncate(n);
            }
        }
        list
    } else {
        let text = String::from_utf8(bytes).map_err(|_| format!("{file}: not UTF-8 text"))?;
        parse_epd(&text, &file)?
    };
    if list.is_empty() {
        return Err(format!("{file}: no openings in the file"));
    }
    if spec.start > list.len() {
        return Err(format!(
            "-openings start={}: the file has only {} openings",
            spec.start,
            list.len()
        ));
    }
    Ok(list)
}

/// The order in which openings are used: from `start` (1-based), wrapping round; shuffled by
/// `seed` for random order.
pub fn order(n: usize, order: Order, start: usize, seed: u64) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..n).map(|i| (i + start - 1) % n).collect();
    if order == Order::Random {
        let mut s = seed ^ 0x9E37_79B9_7F4A_7C15;
        let mut next = || splitmix(&mut s);
        for i in (1..n).rev() {
            let j = (next() % (i as u64 + 1)) as usize;
            idx.swap(i, j);
        }
    }
    idx
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn epd_lines() {
        let text = "# comment\n\
            rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - c0 \"h2e2\"; c1 \"炮二平五\";\n\
            rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1\n";
        let o = parse_epd(text, "t.epd").unwrap();
        assert_eq!(o.len(), 2);
        assert_eq!(o[0].label.as_deref(), Some("炮二平五"));
        assert_eq!(o[0].start.key(), o[1].start.key());
        assert_eq!(o[1].start.halfmoves(), 1);
        let e = parse_epd("x y z\n", "t.epd").unwrap_err();
        assert!(e.starts_with("t.epd:1:"), "{e}");
        let e = parse_epd("\nrnbakabnr/9 w - -\n", "t.epd").unwrap_err();
        assert!(e.starts_with("t.epd:2: bad position"), "{e}");
    }

    #[test]
    fn pgn_openings() {
        let o = parse_pgn(b"[Opening \"x\"]\n1. h2e2 h9g7 *\n", "t.pgn").unwrap();
        assert_eq!(o[0].moves.len(), 2);
        assert_eq!(o[0].label.as_deref(), Some("x"));
    }

    #[test]
    fn orders() {
        assert_eq!(order(4, Order::Sequential, 3, 0), vec![2, 3, 0, 1]);
        let mut r = order(50, Order::Random, 1, 7);
        assert_ne!(r, order(50, Order::Sequential, 1, 7));
        assert_eq!(r, order(50, Order::Random, 1, 7));
        r.sort();
        assert_eq!(r, (0..50).collect::<Vec<_>>());
    }
}
