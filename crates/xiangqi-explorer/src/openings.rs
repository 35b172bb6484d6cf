//! Opening names: the table in `openings.tsv` (compiled in), each name keyed by the position
//! its moves reach, as lichess's chess-openings table keys a name by its EPD.
//!
//! The key is the explorer's (`Keyed`): a position and its left-right mirror share it, the side
//! to move is part of it, so a game that reaches a named position by another move order, or
//! mirrored, finds the name. A game's opening is that of the last (deepest) named position
//! along it (`opening_of_line`), so a game that has left the table keeps the name it had.
//!
//! The table is read once, on first use, from the text compiled into the crate (no I/O). Its
//! every line is played with the rules core when read; `tests` check the shipped table reads
//! without an error (an illegal move, a line given twice, or two names for one position).

use std::collections::HashMap;
use std::fmt;
use std::sync::OnceLock;

use xiangqi::{Move, Position};

use crate::key::{Keyed, PositionKey};

/// The shipped table (tab-separated: code, English name, Chinese name, the moves in ICCS).
pub const TABLE: &str = include_str!("../openings.tsv");

/// A named opening.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening {
    /// The ECCO code (`C20`), where one is known.
    pub eco: Option<&'static str>,
    /// The English name.
    pub name: &'static str,
    /// The Chinese name.
    pub name_zh: &'static str,
    /// The moves from the start of the table's first line for it (ICCS, space-separated).
    pub moves: &'static str,
    /// Its line in the table (from 1).
    pub line: usize,
}

/// A fault in a table: the line (from 1) and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableError {
    pub line: usize,
    pub message: String,
}

impl fmt::Display for TableError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "openings table, line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for TableError {}

/// A table of named positions.
#[derive(Debug, Default)]
pub struct Openings {
    list: Vec<Opening>,
    by_key: HashMap<PositionKey, usize>,
    lines: usize,
}

impl Openings {
    /// Reads a table: `#` lines and blank lines are skipped; every other line is `code \t
    /// English \t Chinese \t moves` (the code may be empty). Every line's moves must be legal
    /// from the start, no line may be given twice, and lines that reach one position must
    /// give it one name.
    pub fn parse(text: &'static str) -> Result<Openings, TableError> {
        let mut t = Openings::default();
        let mut seen_lines: HashMap<Vec<Move>, usize> = HashMap::new();
        for (i, raw) in text.lines().enumerate() {
            let line = i + 1;
            let err = |message: String| TableError { line, message };
            let row = raw.trim_end_matches('\r');
            if row.trim().is_empty() || row.starts_with('#') {
                continue;
            }
            let cols: Vec<&'static str> = row.split('\t').collect();
            let [eco, name, name_zh, moves] = cols[..] else {
                return Err(err(format!(
                    "{} columns, not 4 (code, English name, Chinese name, moves, separated by tabs)",
                    cols.len()
                )));
            };
            let eco = eco.trim();
            let code_ok = eco.len() == 3
                && matches!(eco.as_bytes()[0], b'A'..=b'E')
                && eco.as_bytes()[1..].iter().all(u8::is_ascii_digit);
            if !eco.is_empty() && !code_ok {
                return Err(err(format!(
                    "code '{eco}' is not a letter A to E and two digits"
                )));
            }
            if name.trim().is_empty() || name_zh.trim().is_empty() {
                return Err(err("an opening needs an English and a Chinese name".into()));
            }
            let mut pos = Position::new();
            let mut played = vec![];
            for (n, m) in moves.split_whitespace().enumerate() {
                let mv = pos
                    .parse_uci(m)
                    .map_err(|e| err(format!("move {} '{m}': {e}", n + 1)))?;
                pos.play_unchecked(mv);
                played.push(mv);
            }
            if played.is_empty() {
                return Err(err("no moves (the start is not an opening)".into()));
            }
            if let Some(first) = seen_lines.insert(played, line) {
                return Err(err(format!("the same moves as line {first}")));
            }
            let opening = Opening {
                eco: (!eco.is_empty()).then_some(eco),
                name: name.trim(),
                name_zh: name_zh.trim(),
                moves: moves.trim(),
                line,
            };
            let key = Keyed::of(&pos).key;
            match t.by_key.get(&key) {
                Some(&j) => {
                    let o = &t.list[j];
                    if (o.eco, o.name, o.name_zh) != (opening.eco, opening.name, opening.name_zh) {
                        return Err(err(format!(
                            "reaches the position of line {} (a transposition or a mirror) but names it differently ('{}', not '{}')",
                            o.line, opening.name, o.name
                        )));
                    }
                }
                None => {
                    t.by_key.insert(key, t.list.len());
                    t.list.push(opening);
                }
            }
            t.lines += 1;
        }
        Ok(t)
    }

    /// The name of this very position (or its mirror), if it has one.
    pub fn get(&self, pos: &Position) -> Option<&Opening> {
        self.by_key.get(&Keyed::of(pos).key).map(|&i| &self.list[i])
    }

    /// The opening of a game: the last named position among `start` and the positions after
    /// each of `moves` (which must be legal, in turn, from `start`).
    pub fn along(&self, start: &Position, moves: &[Move]) -> Option<&Opening> {
        let mut pos = start.clone();
        let mut found = self.get(&pos);
        for &m in moves {
            pos.play_unchecked(m);
            found = self.get(&pos).or(found);
        }
        found
    }

    /// The named positions, one per position (a transposition's other lines not repeated).
    pub fn iter(&self) -> impl Iterator<Item = &Opening> {
        self.list.iter()
    }

    /// How many positions are named.
    pub fn len(&self) -> usize {
        self.list.len()
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// How many lines the table has (a position reached by several lines counts each).
    pub fn lines(&self) -> usize {
        self.lines
    }
}

/// The shipped table, read on first use.
pub fn openings() -> &'static Openings {
    static T: OnceLock<Openings> = OnceLock::new();
    // The table is compiled in and `tests::the_shipped_table_reads` reads it, so this cannot
    // fail in a tested build.
    T.get_or_init(|| Openings::parse(TABLE).expect("the shipped openings.tsv"))
}

/// The name of this very position (or its mirror), from the shipped table.
pub fn opening_of(pos: &Position) -> Option<&'static Opening> {
    openings().get(pos)
}

/// The opening of a game from `start` with `moves` (legal in turn): the last named position
/// along it, from the shipped table.
pub fn opening_of_line(start: &Position, moves: &[Move]) -> Option<&'static Opening> {
    openings().along(start, moves)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(s: &str) -> (Position, Vec<Move>) {
        let mut pos = Position::new();
        let mut out = vec![];
        for m in s.split_whitespace() {
            let mv = pos.parse_uci(m).unwrap();
            pos.play_unchecked(mv);
            out.push(mv);
        }
        (pos, out)
    }

    #[test]
    fn the_shipped_table_reads_with_every_line_legal_and_none_twice() {
        let t = Openings::parse(TABLE).unwrap_or_else(|e| panic!("{e}"));
        assert!(t.lines() >= 100, "{} lines", t.lines());
        assert!(t.len() >= 90, "{} positions", t.len());
        // Every named position is found again from its own moves.
        for o in t.iter() {
            let (pos, _) = line(o.moves);
            assert_eq!(t.get(&pos).map(|x| x.line), Some(o.line), "{}", o.name);
        }
    }

    #[test]
    fn a_transposition_finds_the_same_name() {
        // 中炮对屏风马 by 马8进7 first and by 马2进3 first.
        let (a, _) = line("h2e2 h9g7 h0g2 b9c7");
        let (b, _) = line("h2e2 b9c7 h0g2 h9g7");
        let (oa, ob) = (opening_of(&a).unwrap(), opening_of(&b).unwrap());
        assert_eq!(oa, ob);
        assert_eq!(oa.name_zh, "中炮对屏风马");
        // 列炮 directly, and with the cannon added later (后补列炮).
        let (c, _) = line("h2e2 b7e7 h0g2 h9g7");
        let (d, _) = line("h2e2 h9g7 h0g2 b7e7");
        assert_eq!(opening_of(&c).unwrap().name_zh, "列炮");
        assert_eq!(opening_of(&c), opening_of(&d));
    }

    #[test]
    fn a_mirror_finds_the_name() {
        // 炮八平五 马2进3 马八进七 马8进7: the left-hand mirror of 中炮对屏风马.
        let (m, _) = line("b2e2 b9c7 b0c2 h9g7");
        assert_eq!(opening_of(&m).unwrap().name_zh, "中炮对屏风马");
        // 兵三进一: the mirror of 仙人指路 (兵七进一).
        let (p, _) = line("g3g4");
        let o = opening_of(&p).unwrap();
        assert_eq!((o.eco, o.name), (Some("E00"), "Pawn Opening"));
    }

    #[test]
    fn the_side_to_move_is_part_of_the_key() {
        // The board after 炮二平五 with Red to move again is not 中炮.
        let (mut p, _) = line("h2e2");
        assert_eq!(opening_of(&p).unwrap().name_zh, "中炮");
        p.play_null();
        assert_eq!(opening_of(&p), None);
    }

    #[test]
    fn an_unnamed_position_gives_the_last_named_one_before_it() {
        let start = Position::new();
        // 中炮过河车互进七兵对屏风马左马盘河, then moves the table does not name.
        let (_, moves) = line("h2e2 h9g7 h0g2 i9h9 i0h0 g6g5 h0h6 b9c7 c3c4 g7f5 e3e4 f5e3");
        let o = opening_of_line(&start, &moves).unwrap();
        assert_eq!(
            (o.eco, o.name_zh),
            (Some("C37"), "中炮过河车互进七兵对屏风马左马盘河")
        );
        // A line that leaves the table at once keeps the first name.
        let (_, moves) = line("h2e2 a6a5 a3a4");
        assert_eq!(opening_of_line(&start, &moves).unwrap().name_zh, "中炮");
        // The start has no name, and neither has a line that never reaches one.
        assert_eq!(opening_of_line(&start, &[]), None);
        let (_, moves) = line("a0a1 a9a8");
        assert_eq!(opening_of_line(&start, &moves), None);
    }

    #[test]
    fn a_bad_table_is_refused_naming_the_line_and_what_is_wrong() {
        let e = Openings::parse("# c\n\tA\tB\th2e2\n\tC\tD\th2e2 h9g7 h2h9\n").unwrap_err();
        assert_eq!(e.line, 3);
        assert!(e.message.contains("move 3 'h2h9'"), "{e}");
        let e = Openings::parse("\tA\tB\th2e2\n\tA\tB\th2e2\n").unwrap_err();
        assert_eq!(
            (e.line, e.message.as_str()),
            (2, "the same moves as line 1")
        );
        let e = Openings::parse("\tA\tB\th2e2\n\tX\tY\tb2e2\n").unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.message.contains("mirror"), "{e}");
        let e = Openings::parse("\tA\tB\n").unwrap_err();
        assert!(e.message.contains("3 columns"), "{e}");
        let e = Openings::parse("Z99\tA\tB\th2e2\n").unwrap_err();
        assert!(e.message.contains("'Z99'"), "{e}");
        let e = Openings::parse("\tA\t\th2e2\n").unwrap_err();
        assert!(e.message.contains("Chinese"), "{e}");
        assert!(Openings::parse("").unwrap().is_empty());
    }
}
