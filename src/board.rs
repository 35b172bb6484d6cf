//! The board as text for `xiangqi play` and `xiangqi show`: Chinese characters or letters,
//! colours (none with `NO_COLOR`, `--no-color` or when the output is not a terminal), plain
//! ASCII when the locale cannot show more, and marks for the last move, the cursor and a
//! picked piece that read without colour too.

use std::fmt::Write as _;

use crossterm::style::Stylize;

use xiangqi::notation::{file_number, Notation};
use xiangqi::{Color, File, Move, Position, Rank, Role, Square};

use crate::cli::BoardStyle;

/// How the board is drawn.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Style {
    /// Chinese characters (two columns each); else FEN letters.
    pub chinese: bool,
    /// ANSI colours and attributes.
    pub color: bool,
    /// Only ASCII characters anywhere (the move list then uses WXF unless told otherwise).
    pub ascii: bool,
}

/// Whether the locale's character set is UTF-8 (`LC_ALL`, else `LC_CTYPE`, else `LANG`).
pub fn utf8_locale() -> bool {
    for var in ["LC_ALL", "LC_CTYPE", "LANG"] {
        if let Some(v) = std::env::var_os(var).filter(|v| !v.is_empty()) {
            let v = v.to_string_lossy().to_ascii_lowercase();
            return v.contains("utf-8") || v.contains("utf8");
        }
    }
    false
}

/// Whether colours are wanted: not `--no-color`, `NO_COLOR` unset or empty, `TERM` not `dumb`.
pub fn color_wanted(no_color: bool) -> bool {
    !no_color
        && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
        && std::env::var("TERM").map_or(true, |t| t != "dumb")
}

impl Style {
    /// The style the options ask for, on an output that is (or is not) a terminal.
    pub fn from_args(a: &BoardStyle, terminal: bool) -> Style {
        let ascii = a.ascii
            || !utf8_locale()
            || std::env::var("TERM").is_ok_and(|t| t == "dumb" || t == "linux");
        Style {
            chinese: !a.letters && !ascii,
            color: terminal && color_wanted(a.no_color),
            ascii,
        }
    }

    /// The notation of the move list: the one asked for, else Chinese (WXF in ASCII).
    pub fn notation(&self, asked: Option<Notation>) -> Notation {
        asked.unwrap_or(if self.ascii {
            Notation::Wxf
        } else {
            Notation::Chinese
        })
    }
}

/// What is marked on the board.
#[derive(Clone, Debug, Default)]
pub struct Marks {
    pub last: Option<Move>,
    pub cursor: Option<Square>,
    pub picked: Option<Square>,
    /// Where the picked piece may go.
    pub targets: Vec<Square>,
}

/// The character of a piece on the board: red 帥仕相傌俥炮兵, black 將士象馬車砲卒 (distinct
/// for the two sides, so that the board reads without colour).
fn piece_glyph(color: Color, role: Role) -> char {
    match (color, role) {
        (Color::Red, Role::General) => '帥',
        (Color::Red, Role::Advisor) => '仕',
        (Color::Red, Role::Elephant) => '相',
        (Color::Red, Role::Horse) => '傌',
        (Color::Red, Role::Chariot) => '俥',
        (Color::Red, Role::Cannon) => '炮',
        (Color::Red, Role::Soldier) => '兵',
        (Color::Black, Role::General) => '將',
        (Color::Black, Role::Advisor) => '士',
        (Color::Black, Role::Elephant) => '象',
        (Color::Black, Role::Horse) => '馬',
        (Color::Black, Role::Chariot) => '車',
        (Color::Black, Role::Cannon) => '砲',
        (Color::Black, Role::Soldier) => '卒',
    }
}

/// The files left to right and the ranks top to bottom as the board is seen.
fn order(flip: bool) -> (Vec<File>, Vec<Rank>) {
    let mut files: Vec<File> = File::ALL.to_vec();
    let mut ranks: Vec<Rank> = Rank::ALL.to_vec();
    if flip {
        files.reverse();
    } else {
        ranks.reverse();
    }
    (files, ranks)
}

/// The board's lines (with ANSI codes when `style.color`). Unflipped, Red is at the bottom.
pub fn render(pos: &Position, flip: bool, marks: &Marks, style: &Style) -> Vec<String> {
    let (files, ranks) = order(flip);
    let cell = if style.chinese { 4 } else { 3 };
    let (top, bottom) = if flip {
        (Color::Red, Color::Black)
    } else {
        (Color::Black, Color::Red)
    };
    let numbers = |c: Color| {
        let mut s = String::from("   ");
        for &f in &files {
            let n = file_number(c, f).to_string();
            let _ = write!(s, "{n:^cell$}");
        }
        s.trim_end().to_string()
    };
    let mut lines = vec![numbers(top)];
    for (row, &rank) in ranks.iter().enumerate() {
        if row == 5 {
            let river = if style.chinese {
                "   楚  河              漢  界".to_string()
            } else {
                format!("   {:~^w$}", " river ", w = cell * 9)
            };
            lines.push(river);
        }
        let mut line = format!("{} ", rank.char());
        for &file in &files {
            let sq = Square::from_coords(file, rank);
            line.push_str(&render_cell(pos, sq, marks, style));
        }
        let _ = write!(line, " {}", rank.char());
        lines.push(line);
    }
    lines.push(numbers(bottom));
    let mut coords = String::from("   ");
    for &f in &files {
        let _ = write!(coords, "{:^cell$}", f.char());
    }
    lines.push(coords.trim_end().to_string());
    lines
}

fn render_cell(pos: &Position, sq: Square, marks: &Marks, style: &Style) -> String {
    let piece = pos.piece_at(sq);
    let target = marks.targets.contains(&sq);
    let glyph: String = match piece {
        Some(p) if style.chinese => piece_glyph(p.color, p.role).to_string(),
        Some(p) => p.char().to_string(),
        None if target => if style.chinese { "＊" } else { "*" }.to_string(),
        None if style.chinese => "十".to_string(),
        None => ".".to_string(),
    };
    let last = marks.last.is_some_and(|m| m.from() == sq || m.to() == sq);
    let (l, r) = if marks.cursor == Some(sq) {
        ('>', '<')
    } else if marks.picked == Some(sq) {
        ('(', ')')
    } else if last {
        ('[', ']')
    } else {
        (' ', ' ')
    };
    if !style.color {
        return format!("{l}{glyph}{r}");
    }
    let mut g = glyph.stylize();
    match piece {
        Some(p) if p.color == Color::Red => g = g.red().bold(),
        Some(_) => g = g.bold(),
        None => g = g.dark_grey(),
    }
    if target {
        g = g.on_dark_green();
    }
    if last {
        g = g.on_dark_yellow();
    }
    if marks.picked == Some(sq) {
        g = g.on_blue();
    }
    if marks.cursor == Some(sq) {
        g = g.reverse();
    }
    format!("{l}{g}{r}")
}

/// The moves of a game as numbered pairs (`1. 炮二平五 马8进7`), one line per move number;
/// `start` is the position they are played from.
pub fn move_list(start: &Position, moves: &[Move], notation: Notation) -> Vec<String> {
    let mut pos = start.clone();
    let mut lines = Vec::new();
    let mut number = 1;
    let mut line = String::new();
    for (i, &m) in moves.iter().enumerate() {
        let text = notation.write(&pos, m);
        if pos.turn() == Color::Red || i == 0 {
            if !line.is_empty() {
                lines.push(std::mem::take(&mut line));
            }
            line = if pos.turn() == Color::Red {
                format!("{number:>3}. {text}")
            } else {
                format!("{number:>3}. ...  {text}")
            };
        } else {
            let _ = write!(line, "  {text}");
        }
        if pos.turn() == Color::Black {
            number += 1;
        }
        pos.play_unchecked(m);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

/// The text without ANSI escape sequences (for tests and width counts).
#[cfg(test)]
pub fn strip_ansi(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            for d in chars.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const PLAIN: Style = Style {
        chinese: false,
        color: false,
        ascii: true,
    };

    #[test]
    fn letters_with_marks_and_flip() {
        let pos = Position::new();
        let m: Move = "h2e2"
            .parse::<xiangqi::UciMove>()
            .unwrap()
            .to_move(&pos)
            .unwrap();
        let mut after = pos.clone();
        after.play_unchecked(m);
        let marks = Marks {
            last: Some(m),
            cursor: Some(Square::from_coords(File::A, Rank::new(0).unwrap())),
            ..Marks::default()
        };
        let lines = render(&after, false, &marks, &PLAIN);
        assert_eq!(lines[0], "    1  2  3  4  5  6  7  8  9");
        assert_eq!(lines[1], "9  r  n  b  a  k  a  b  n  r  9");
        assert_eq!(lines[6], "   ~~~~~~~~~~ river ~~~~~~~~~~");
        assert_eq!(lines[9], "2  .  C  .  . [C] .  . [.] .  2");
        assert_eq!(lines[11], "0 >R< N  B  A  K  A  B  N  R  0");
        assert_eq!(lines[12], "    9  8  7  6  5  4  3  2  1");
        assert_eq!(lines[13], "    a  b  c  d  e  f  g  h  i");
        let flipped = render(&after, true, &Marks::default(), &PLAIN);
        assert_eq!(flipped[1], "0  R  N  B  A  K  A  B  N  R  0");
        assert_eq!(flipped[13], "    i  h  g  f  e  d  c  b  a");
    }

    #[test]
    fn chinese_and_colours() {
        let style = Style {
            chinese: true,
            color: true,
            ascii: false,
        };
        let lines = render(&Position::new(), false, &Marks::default(), &style);
        let plain: Vec<String> = lines.iter().map(|l| strip_ansi(l)).collect();
        assert_eq!(plain[1], "9  車  馬  象  士  將  士  象  馬  車  9");
        assert_eq!(plain[11], "0  俥  傌  相  仕  帥  仕  相  傌  俥  0");
        assert!(lines[11].contains("\x1b["), "colours: {:?}", lines[11]);
        assert_eq!(plain[6], "   楚  河              漢  界");
    }

    #[test]
    fn move_list_pairs() {
        let pos = Position::new();
        let mut p = pos.clone();
        let mut moves = Vec::new();
        for u in ["h2e2", "h9g7", "h0g2"] {
            let m = u.parse::<xiangqi::UciMove>().unwrap().to_move(&p).unwrap();
            p.play_unchecked(m);
            moves.push(m);
        }
        assert_eq!(
            move_list(&pos, &moves, Notation::Chinese),
            ["  1. 炮二平五  马8进7", "  2. 马二进三"]
        );
        assert_eq!(
            move_list(&pos, &moves, Notation::Wxf),
            ["  1. C2.5  H8+7", "  2. H2+3"]
        );
    }
}
