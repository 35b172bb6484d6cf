//! Files, ranks and the 90 points of the board.
//!
//! A square is written file-then-rank, `a0`..`i9`, with Red at rank 0.
//! Its index is `rank * 9 + file`.

use core::fmt;
use core::str::FromStr;

use crate::types::Color;

/// A file (column), `a` (0) to `i` (8) from Red's left.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct File(u8);

impl File {
    pub const A: File = File(0);
    pub const B: File = File(1);
    pub const C: File = File(2);
    pub const D: File = File(3);
    pub const E: File = File(4);
    pub const F: File = File(5);
    pub const G: File = File(6);
    pub const H: File = File(7);
    pub const I: File = File(8);
    pub const ALL: [File; 9] = [
        File(0),
        File(1),
        File(2),
        File(3),
        File(4),
        File(5),
        File(6),
        File(7),
        File(8),
    ];

    /// The file with this index (0..=8).
    pub const fn new(index: u8) -> Option<File> {
        if index < 9 {
            Some(File(index))
        } else {
            None
        }
    }
    pub const fn index(self) -> u8 {
        self.0
    }
    /// The file's letter, `a`..`i`.
    pub const fn char(self) -> char {
        (b'a' + self.0) as char
    }
    pub fn from_char(c: char) -> Option<File> {
        match c {
            'a'..='i' => Some(File(c as u8 - b'a')),
            'A'..='I' => Some(File(c as u8 - b'A')),
            _ => None,
        }
    }
    /// The file mirrored left-right (a <-> i).
    pub const fn flip(self) -> File {
        File(8 - self.0)
    }
}

impl fmt::Display for File {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.char())
    }
}

/// A rank (row), 0 to 9 from Red's side.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct Rank(u8);

impl Rank {
    pub const ALL: [Rank; 10] = [
        Rank(0),
        Rank(1),
        Rank(2),
        Rank(3),
        Rank(4),
        Rank(5),
        Rank(6),
        Rank(7),
        Rank(8),
        Rank(9),
    ];

    /// The rank with this index (0..=9).
    pub const fn new(index: u8) -> Option<Rank> {
        if index < 10 {
            Some(Rank(index))
        } else {
            None
        }
    }
    pub const fn index(self) -> u8 {
        self.0
    }
    pub const fn char(self) -> char {
        (b'0' + self.0) as char
    }
    pub fn from_char(c: char) -> Option<Rank> {
        match c {
            '0'..='9' => Some(Rank(c as u8 - b'0')),
            _ => None,
        }
    }
    /// The rank seen from the other side (0 <-> 9).
    pub const fn flip(self) -> Rank {
        Rank(9 - self.0)
    }
    /// The side whose half of the board this rank lies in.
    pub const fn half(self) -> Color {
        if self.0 <= 4 {
            Color::Red
        } else {
            Color::Black
        }
    }
    /// This rank counted from `color`'s own back rank (0 = its back rank).
    pub const fn relative_to(self, color: Color) -> u8 {
        match color {
            Color::Red => self.0,
            Color::Black => 9 - self.0,
        }
    }
}

impl fmt::Display for Rank {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.char())
    }
}

/// One of the 90 points of the board.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Square(u8);

macro_rules! square_consts {
    ($($name:ident = $v:expr),*) => {
        impl Square {
            $(pub const $name: Square = Square($v);)*
        }
    };
}
square_consts!(
    A0 = 0,
    B0 = 1,
    C0 = 2,
    D0 = 3,
    E0 = 4,
    F0 = 5,
    G0 = 6,
    H0 = 7,
    I0 = 8,
    A1 = 9,
    B1 = 10,
    C1 = 11,
    D1 = 12,
    E1 = 13,
    F1 = 14,
    G1 = 15,
    H1 = 16,
    I1 = 17,
    A2 = 18,
    B2 = 19,
    C2 = 20,
    D2 = 21,
    E2 = 22,
    F2 = 23,
    G2 = 24,
    H2 = 25,
    I2 = 26,
    A3 = 27,
    B3 = 28,
    C3 = 29,
    D3 = 30,
    E3 = 31,
    F3 = 32,
    G3 = 33,
    H3 = 34,
    I3 = 35,
    A4 = 36,
    B4 = 37,
    C4 = 38,
    D4 = 39,
    E4 = 40,
    F4 = 41,
    G4 = 42,
    H4 = 43,
    I4 = 44,
    A5 = 45,
    B5 = 46,
    C5 = 47,
    D5 = 48,
    E5 = 49,
    F5 = 50,
    G5 = 51,
    H5 = 52,
    I5 = 53,
    A6 = 54,
    B6 = 55,
    C6 = 56,
    D6 = 57,
    E6 = 58,
    F6 = 59,
    G6 = 60,
    H6 = 61,
    I6 = 62,
    A7 = 63,
    B7 = 64,
    C7 = 65,
    D7 = 66,
    E7 = 67,
    F7 = 68,
    G7 = 69,
    H7 = 70,
    I7 = 71,
    A8 = 72,
    B8 = 73,
    C8 = 74,
    D8 = 75,
    E8 = 76,
    F8 = 77,
    G8 = 78,
    H8 = 79,
    I8 = 80,
    A9 = 81,
    B9 = 82,
    C9 = 83,
    D9 = 84,
    E9 = 85,
    F9 = 86,
    G9 = 87,
    H9 = 88,
    I9 = 89
);

impl Square {
    /// Number of points on the board.
    pub const COUNT: usize = 90;

    /// The square with this index (0..90).
    pub const fn new(index: u8) -> Option<Square> {
        if index < 90 {
            Some(Square(index))
        } else {
            None
        }
    }
    /// # Safety-free contract
    /// `index` must be below 90; larger values are a logic error (checked in debug builds).
    #[inline(always)]
    pub const fn new_unchecked(index: u8) -> Square {
        debug_assert!(index < 90);
        Square(index)
    }
    #[inline(always)]
    pub const fn from_coords(file: File, rank: Rank) -> Square {
        Square(rank.0 * 9 + file.0)
    }
    #[inline(always)]
    pub const fn index(self) -> usize {
        self.0 as usize
    }
    #[inline(always)]
    pub const fn file(self) -> File {
        File(self.0 % 9)
    }
    #[inline(always)]
    pub const fn rank(self) -> Rank {
        Rank(self.0 / 9)
    }
    /// The square mirrored left-right (a0 <-> i0).
    pub const fn flip_horizontal(self) -> Square {
        Square::from_coords(self.file().flip(), self.rank())
    }
    /// The square mirrored top-bottom (a0 <-> a9).
    pub const fn flip_vertical(self) -> Square {
        Square::from_coords(self.file(), self.rank().flip())
    }
    /// The square rotated by 180 degrees (a0 <-> i9): the same point seen from the other side.
    pub const fn rotate(self) -> Square {
        Square(89 - self.0)
    }
    /// The square offset by `df` files and `dr` ranks, if still on the board.
    pub const fn offset(self, df: i8, dr: i8) -> Option<Square> {
        let f = self.file().0 as i8 + df;
        let r = self.rank().0 as i8 + dr;
        if f >= 0 && f < 9 && r >= 0 && r < 10 {
            Some(Square((r * 9 + f) as u8))
        } else {
            None
        }
    }
    /// Whether the square lies in either palace.
    pub const fn in_palace(self) -> bool {
        let f = self.file().0;
        let r = self.rank().0;
        f >= 3 && f <= 5 && (r <= 2 || r >= 7)
    }
    /// All 90 squares, a0, b0, ..., i9.
    pub fn all() -> impl DoubleEndedIterator<Item = Square> + ExactSizeIterator {
        (0..90u8).map(Square)
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.file().char(), self.rank().char())
    }
}

impl fmt::Debug for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self}")
    }
}

/// The error for a string that is not a square name such as `e0`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseSquareError(pub String);

impl fmt::Display for ParseSquareError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "'{}' is not a square (a0..i9)", self.0)
    }
}

impl std::error::Error for ParseSquareError {}

impl FromStr for Square {
    type Err = ParseSquareError;
    fn from_str(s: &str) -> Result<Square, ParseSquareError> {
        let mut chars = s.chars();
        match (chars.next(), chars.next(), chars.next()) {
            (Some(f), Some(r), None) => match (File::from_char(f), Rank::from_char(r)) {
                (Some(f), Some(r)) => Ok(Square::from_coords(f, r)),
                _ => Err(ParseSquareError(s.to_owned())),
            },
            _ => Err(ParseSquareError(s.to_owned())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for sq in Square::all() {
            assert_eq!(sq.to_string().parse::<Square>().unwrap(), sq);
        }
        assert_eq!(Square::E0.to_string(), "e0");
        assert_eq!(Square::I9.index(), 89);
        assert_eq!("E9".parse::<Square>().unwrap(), Square::E9);
        assert!("j0".parse::<Square>().is_err());
        assert!("a10".parse::<Square>().is_err());
    }

    #[test]
    fn flips() {
        assert_eq!(Square::A0.flip_horizontal(), Square::I0);
        assert_eq!(Square::A0.flip_vertical(), Square::A9);
        assert_eq!(Square::B2.rotate(), Square::H7);
        assert!(Square::E1.in_palace() && Square::D9.in_palace() && !Square::C0.in_palace());
    }
}
