//! Move notations players write: WXF (`C2.5`) and Chinese (`炮二平五`).
//!
//! Each notation has a position-free type ([`Wxf`], [`Chinese`]) in the style of shakmaty's
//! `San`: read one with [`str::parse`] (lenient: `C2=5`, `c2.5`, full-width `Ｃ２＝５`,
//! traditional characters, stray spaces), write one with [`Wxf::from_move`] /
//! [`Chinese::from_move`] and `Display` (strict: official WXF with `.` for sideways moves,
//! simplified Chinese characters), and turn one into a [`Move`] with `to_move(&Position)`.
//!
//! Both notations describe a move by the piece, the file it stands on (numbered 1-9 from the
//! mover's own right: for Red file `i` is 1, for Black file `a` is 1), the direction
//! (forward, backward, sideways) and either the destination file (sideways moves, and every
//! advisor, elephant and horse move) or the number of points moved. When several like pieces
//! stand on one file the file number gives way to front/rear markers; see docs/NOTATION.md
//! for every case.
//!
//! Errors: parsing gives a [`ParseNotationError`] (the text is not a move in that notation);
//! `to_move` gives a [`NotationError`] that tells an illegal (or impossible) move from an
//! ambiguous one.
//!
//! ```
//! use xiangqi::Position;
//! use xiangqi::notation::{Chinese, Wxf};
//! let pos = Position::new();
//! let m = "C2=5".parse::<Wxf>().unwrap().to_move(&pos).unwrap();
//! assert_eq!(m.to_string(), "h2e2");
//! assert_eq!(Wxf::from_move(&pos, m).to_string(), "C2.5");
//! assert_eq!(Chinese::from_move(&pos, m).to_string(), "炮二平五");
//! assert_eq!("砲二平五".parse::<Chinese>().unwrap().to_move(&pos).unwrap(), m);
//! ```

use core::fmt;

use crate::bitboard::Bitboard;
use crate::position::Position;
use crate::square::{File, Rank, Square};
use crate::types::{Color, Move, Piece, Role};

pub mod chinese;
pub mod wxf;

pub use chinese::{Chinese, ChineseFrom};
pub use wxf::{Wxf, WxfFrom};

/// The direction part of a move in WXF or Chinese notation.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Direction {
    /// `+` / 进: towards the opponent.
    Forward,
    /// `-` / 退: towards the mover's own side.
    Backward,
    /// `.` (read `=`) / 平: along the rank.
    Sideways,
}

/// The text is not a move in the notation (malformed).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseNotationError {
    /// The text as given.
    pub input: String,
    /// Which notation was expected: `"WXF"` or `"Chinese"`.
    pub notation: &'static str,
    /// What is wrong with it.
    pub reason: &'static str,
}

impl fmt::Display for ParseNotationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "'{}' is not a {} move: {}",
            self.input, self.notation, self.reason
        )
    }
}

impl std::error::Error for ParseNotationError {}

/// A well-formed move in WXF or Chinese notation that does not name exactly one legal move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NotationError {
    /// No legal move fits: no such piece there, the piece cannot move that way, or the move
    /// would leave the mover's general attacked.
    Illegal {
        notation: String,
        reason: &'static str,
    },
    /// More than one legal move fits.
    Ambiguous {
        notation: String,
        candidates: Vec<Move>,
    },
}

impl fmt::Display for NotationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NotationError::Illegal { notation, reason } => {
                write!(f, "illegal move {notation}: {reason}")
            }
            NotationError::Ambiguous {
                notation,
                candidates,
            } => {
                write!(f, "ambiguous move {notation}: it fits")?;
                for (i, m) in candidates.iter().enumerate() {
                    let sep = if i == 0 { " " } else { ", " };
                    write!(f, "{sep}{m}")?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for NotationError {}

/// The file as the side `color` numbers it: 1-9 from its own right.
#[inline]
pub fn file_number(color: Color, file: File) -> u8 {
    match color {
        Color::Red => 9 - file.index(),
        Color::Black => file.index() + 1,
    }
}

/// The file that side `color` calls `n` (1-9).
#[inline]
pub fn file_of_number(color: Color, n: u8) -> Option<File> {
    if !(1..=9).contains(&n) {
        return None;
    }
    File::new(match color {
        Color::Red => 9 - n,
        Color::Black => n - 1,
    })
}

fn file_mask(file: File) -> Bitboard {
    let mut b = Bitboard::EMPTY;
    for r in Rank::ALL {
        b.set(Square::from_coords(file, r));
    }
    b
}

/// The pieces `piece` on `file`, from the front (nearest the opponent) to the rear.
pub fn stack_on_file(pos: &Position, piece: Piece, file: File) -> Vec<Square> {
    let mut v: Vec<Square> = (pos.board().by_piece(piece) & file_mask(file))
        .into_iter()
        .collect();
    // Squares iterate from rank 0 up; Red's front is the highest rank.
    if piece.color == Color::Red {
        v.reverse();
    }
    v
}

/// The files on which side `color` has two or more soldiers.
pub fn soldier_stack_files(pos: &Position, color: Color) -> Vec<File> {
    let soldiers = pos.board().by_piece(Piece::new(color, Role::Soldier));
    File::ALL
        .into_iter()
        .filter(|&f| (soldiers & file_mask(f)).count() >= 2)
        .collect()
}

/// How a move names the piece that moves, independent of the notation's spelling.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum Named {
    /// The only such piece on its file (file number 1-9).
    File(u8),
    /// Index `index` (0 = front) of `count` like pieces on one file; `file` is the file number,
    /// and `by_file` says that soldiers stand stacked on two files, so the file must be named.
    Stack {
        file: u8,
        index: u8,
        count: u8,
        by_file: bool,
    },
}

/// The parts of a move common to WXF and Chinese: how the piece is named, the direction and
/// the number after it.
pub(crate) struct Described {
    pub role: Role,
    pub named: Named,
    pub dir: Direction,
    pub arg: u8,
}

/// Describes a legal move for writing.
pub(crate) fn describe(pos: &Position, m: Move) -> Described {
    let from = m.from();
    let to = m.to();
    let piece = pos
        .piece_at(from)
        .expect("from_move: no piece on the move's from-square");
    let color = piece.color;
    let dr = (to.rank().index() as i8 - from.rank().index() as i8) * color.forward();
    let dir = match dr {
        0 => Direction::Sideways,
        d if d > 0 => Direction::Forward,
        _ => Direction::Backward,
    };
    let arg = match (dir, piece.role) {
        (Direction::Sideways, _) | (_, Role::Advisor) | (_, Role::Elephant) | (_, Role::Horse) => {
            file_number(color, to.file())
        }
        _ => dr.unsigned_abs(),
    };
    let file = file_number(color, from.file());
    let stack = stack_on_file(pos, piece, from.file());
    // Two advisors or two elephants on one file are told apart by the move alone (one can
    // only go forward, the other only back): written by file, as players write them.
    let named = if stack.len() <= 1 || matches!(piece.role, Role::Advisor | Role::Elephant) {
        Named::File(file)
    } else {
        let index = stack.iter().position(|&s| s == from).expect("on its file") as u8;
        let by_file = piece.role == Role::Soldier && soldier_stack_files(pos, color).len() > 1;
        Named::Stack {
            file,
            index,
            count: stack.len() as u8,
            by_file,
        }
    };
    Described {
        role: piece.role,
        named,
        dir,
        arg,
    }
}

/// Which piece of a stack a reading selects.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum Pick {
    /// By index from the front (0 = front).
    Nth(u8),
    /// The last one.
    Last,
    /// The middle one of an odd number.
    Middle,
    /// WXF `+` with a letter: front of two or three, second of four or five.
    WxfPlus,
    /// WXF `-` with a letter: rear of two or three, second from the rear of four or five.
    WxfMinus,
}

impl Pick {
    fn select(self, n: usize) -> Option<usize> {
        match self {
            Pick::Nth(i) => ((i as usize) < n).then_some(i as usize),
            Pick::Last => n.checked_sub(1),
            Pick::Middle => (n % 2 == 1 && n >= 3).then_some(n / 2),
            Pick::WxfPlus => match n {
                2 | 3 => Some(0),
                4 | 5 => Some(1),
                _ => None,
            },
            Pick::WxfMinus => match n {
                2 | 3 => Some(n - 1),
                4 | 5 => Some(n - 2),
                _ => None,
            },
        }
    }
}

/// How a reading locates the moving piece.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum Locate {
    /// Pieces on this file number. `strict_mid`: three or five soldiers on a file named by the
    /// file alone mean the middle one (WXF's rule for tandem soldiers).
    File(u8, bool),
    /// A piece picked from a stack (two or more like pieces on one file): on the given file
    /// number, or on whichever file has a stack.
    Stack(Option<u8>, Pick),
    /// Soldiers stacked on two files, counted across both (see [`soldier_across_index`]):
    /// the n-th (0 = 一). With only one stacked file, the n-th on it.
    Across(u8),
}

/// Soldiers of one side stacked on two files (each holding two or more), in the order the
/// official rules count them with 一二三四五: the files from the side's right to its left
/// (file number 1 to 9), on each file from the front to the rear.
pub(crate) fn soldiers_across(pos: &Position, color: Color) -> Vec<Square> {
    let piece = Piece::new(color, Role::Soldier);
    let mut files = soldier_stack_files(pos, color);
    files.sort_by_key(|&f| file_number(color, f));
    files
        .into_iter()
        .flat_map(|f| stack_on_file(pos, piece, f))
        .collect()
}

/// The index (0 = 一) of the soldier on `from` among [`soldiers_across`], when its side has
/// soldiers stacked on two or more files and this one is among them.
pub(crate) fn soldier_across_index(pos: &Position, color: Color, from: Square) -> Option<u8> {
    if soldier_stack_files(pos, color).len() < 2 {
        return None;
    }
    soldiers_across(pos, color)
        .iter()
        .position(|&s| s == from)
        .map(|i| i as u8)
}

/// Turns a described move back into a legal move.
pub(crate) fn resolve(
    pos: &Position,
    role: Role,
    locate: Locate,
    dir: Direction,
    arg: u8,
    text: &dyn Fn() -> String,
) -> Result<Move, NotationError> {
    let color = pos.turn();
    let piece = Piece::new(color, role);
    let illegal = |reason: &'static str| NotationError::Illegal {
        notation: text(),
        reason,
    };
    let mut froms: [Option<Square>; 10] = [None; 10];
    let mut nfrom = 0;
    let mut push = |sq: Square| {
        if nfrom < froms.len() {
            froms[nfrom] = Some(sq);
            nfrom += 1;
        }
    };
    match locate {
        Locate::File(n, strict_mid) => {
            let file = file_of_number(color, n).ok_or_else(|| illegal("no such file"))?;
            let stack = stack_on_file(pos, piece, file);
            if strict_mid
                && role == Role::Soldier
                && (stack.len() == 3 || stack.len() == 5)
                && soldier_stack_files(pos, color).len() == 1
            {
                push(stack[stack.len() / 2]);
            } else {
                for s in stack {
                    push(s);
                }
            }
        }
        Locate::Stack(file, pick) => {
            let files: Vec<File> = match file {
                Some(n) => vec![file_of_number(color, n).ok_or_else(|| illegal("no such file"))?],
                None => File::ALL.to_vec(),
            };
            for f in files {
                let stack = stack_on_file(pos, piece, f);
                if stack.len() < 2 {
                    continue;
                }
                if let Some(i) = pick.select(stack.len()) {
                    push(stack[i]);
                }
            }
        }
        Locate::Across(n) => {
            if soldier_stack_files(pos, color).len() >= 2 {
                if let Some(&sq) = soldiers_across(pos, color).get(n as usize) {
                    push(sq);
                }
            } else {
                // One stacked file (four or five soldiers): the n-th from its front.
                for f in File::ALL {
                    let stack = stack_on_file(pos, piece, f);
                    if stack.len() >= 2 {
                        if let Some(i) = Pick::Nth(n).select(stack.len()) {
                            push(stack[i]);
                        }
                    }
                }
            }
        }
    }
    if nfrom == 0 {
        return Err(illegal(match locate {
            Locate::File(..) => "no such piece on that file",
            Locate::Stack(..) => "no such piece among like pieces on one file",
            Locate::Across(..) => "no such soldier among those stacked on files",
        }));
    }
    let mut found: Vec<Move> = Vec::new();
    let mut pseudo = false;
    for from in froms[..nfrom].iter().flatten().copied() {
        let Some(to) = destination(color, role, from, dir, arg) else {
            continue;
        };
        let m = Move::new(from, to);
        if !pos.pseudo_targets(from).contains(to) {
            continue;
        }
        pseudo = true;
        if pos.is_legal(m) {
            found.push(m);
        }
    }
    match found.len() {
        1 => Ok(found[0]),
        0 if pseudo => Err(illegal(
            "it would leave the general attacked or facing the other general",
        )),
        0 => Err(illegal("the piece cannot move that way")),
        _ => Err(NotationError::Ambiguous {
            notation: text(),
            candidates: found,
        }),
    }
}

/// Where the piece on `from` lands for a direction and number, by the geometry of its role
/// (not yet checked against the board).
fn destination(color: Color, role: Role, from: Square, dir: Direction, arg: u8) -> Option<Square> {
    let fwd = color.forward();
    match role {
        Role::General | Role::Chariot | Role::Cannon | Role::Soldier => match dir {
            Direction::Sideways => {
                let tf = file_of_number(color, arg)?;
                if tf == from.file() {
                    return None;
                }
                Some(Square::from_coords(tf, from.rank()))
            }
            Direction::Forward | Direction::Backward => {
                if arg == 0 || arg > 9 {
                    return None;
                }
                let sign = if dir == Direction::Forward { fwd } else { -fwd };
                from.offset(0, sign * arg as i8)
            }
        },
        Role::Advisor | Role::Elephant | Role::Horse => {
            if dir == Direction::Sideways {
                return None;
            }
            let tf = file_of_number(color, arg)?;
            let df = (tf.index() as i8 - from.file().index() as i8).abs();
            let dr = match (role, df) {
                (Role::Advisor, 1) => 1,
                (Role::Elephant, 2) => 2,
                (Role::Horse, 1) => 2,
                (Role::Horse, 2) => 1,
                _ => return None,
            };
            let sign = if dir == Direction::Forward { fwd } else { -fwd };
            from.offset(tf.index() as i8 - from.file().index() as i8, sign * dr)
        }
    }
}

/// Maps full-width ASCII forms (U+FF01..U+FF5E) to ASCII and the ideographic space to a space.
#[inline]
pub fn half_width(c: char) -> char {
    match c {
        '\u{FF01}'..='\u{FF5E}' => char::from_u32(c as u32 - 0xFEE0).unwrap_or(c),
        '\u{3000}' => ' ',
        '—' | '–' | '−' => '-',
        _ => c,
    }
}

/// The notation a movetext token is written in, guessed from its characters alone.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Notation {
    /// Coordinates: `h2e2`, `H2-E2`.
    Iccs,
    /// `C2.5`.
    Wxf,
    /// `炮二平五`.
    Chinese,
}

impl Notation {
    /// The PGN `Format` tag value: `ICCS`, `WXF` or `Chinese`.
    pub fn name(self) -> &'static str {
        match self {
            Notation::Iccs => "ICCS",
            Notation::Wxf => "WXF",
            Notation::Chinese => "Chinese",
        }
    }

    /// Reads a `Format` tag value (case-insensitive; `UCI` and `iccs` read as ICCS,
    /// `Chinese`/`中文`/`zh` as Chinese); `None` for anything else.
    pub fn from_format_tag(s: &str) -> Option<Notation> {
        let t = s.trim().to_ascii_lowercase();
        match t.as_str() {
            "iccs" | "uci" | "coordinate" | "coordinates" => Some(Notation::Iccs),
            "wxf" | "axf" | "international" => Some(Notation::Wxf),
            "chinese" | "zh" | "cn" | "中文" | "traditional" => Some(Notation::Chinese),
            _ => None,
        }
    }

    /// Guesses the notation of one token: `None` when it looks like none of them.
    pub fn guess(token: &str) -> Option<Notation> {
        let mut ascii = true;
        let mut n = 0;
        for c in token.chars() {
            n += 1;
            let h = half_width(c);
            if !h.is_ascii() {
                ascii = false;
                if chinese::is_chinese_move_char(c) {
                    return Some(Notation::Chinese);
                }
            }
        }
        if !ascii || n == 0 {
            return None;
        }
        let t: String = token.chars().map(half_width).collect();
        if t.parse::<crate::uci::UciMove>().is_ok() {
            Some(Notation::Iccs)
        } else if t.parse::<Wxf>().is_ok() {
            Some(Notation::Wxf)
        } else {
            None
        }
    }

    /// Writes a legal move in this notation.
    pub fn write(self, pos: &Position, m: Move) -> String {
        match self {
            Notation::Iccs => m.to_string(),
            Notation::Wxf => Wxf::from_move(pos, m).to_string(),
            Notation::Chinese => Chinese::from_move(pos, m).to_string(),
        }
    }

    /// Reads a move in this notation and checks it against the position.
    pub fn read(self, pos: &Position, s: &str) -> Result<Move, ReadMoveError> {
        match self {
            Notation::Iccs => {
                let t: String = s.chars().map(half_width).collect();
                let u: crate::uci::UciMove = t.parse().map_err(|_| {
                    ReadMoveError::Parse(ParseNotationError {
                        input: s.to_owned(),
                        notation: "ICCS",
                        reason: "expected coordinates like h2e2 or H2-E2",
                    })
                })?;
                u.to_move(pos).map_err(|e| {
                    ReadMoveError::Move(NotationError::Illegal {
                        notation: s.to_owned(),
                        reason: e.reason,
                    })
                })
            }
            Notation::Wxf => {
                let w: Wxf = s.parse().map_err(ReadMoveError::Parse)?;
                w.to_move(pos).map_err(ReadMoveError::Move)
            }
            Notation::Chinese => {
                let c: Chinese = s.parse().map_err(ReadMoveError::Parse)?;
                c.to_move(pos).map_err(ReadMoveError::Move)
            }
        }
    }
}

impl fmt::Display for Notation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Either error from reading a move in some notation against a position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReadMoveError {
    /// Malformed.
    Parse(ParseNotationError),
    /// Well-formed, but illegal or ambiguous.
    Move(NotationError),
}

impl fmt::Display for ReadMoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadMoveError::Parse(e) => e.fmt(f),
            ReadMoveError::Move(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for ReadMoveError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_numbers() {
        assert_eq!(file_number(Color::Red, File::I), 1);
        assert_eq!(file_number(Color::Red, File::A), 9);
        assert_eq!(file_number(Color::Black, File::A), 1);
        assert_eq!(file_number(Color::Black, File::I), 9);
        for c in Color::ALL {
            for f in File::ALL {
                assert_eq!(file_of_number(c, file_number(c, f)), Some(f));
            }
        }
        assert_eq!(file_of_number(Color::Red, 0), None);
        assert_eq!(file_of_number(Color::Red, 10), None);
    }

    #[test]
    fn guesses() {
        assert_eq!(Notation::guess("h2e2"), Some(Notation::Iccs));
        assert_eq!(Notation::guess("H2-E2"), Some(Notation::Iccs));
        assert_eq!(Notation::guess("C2.5"), Some(Notation::Wxf));
        assert_eq!(Notation::guess("Ｃ２＝５"), Some(Notation::Wxf));
        assert_eq!(Notation::guess("炮二平五"), Some(Notation::Chinese));
        assert_eq!(Notation::guess("马８进７"), Some(Notation::Chinese));
        assert_eq!(Notation::guess("1-0"), None);
        assert_eq!(Notation::guess("hello"), None);
    }
}
