//! Colours, roles, pieces and moves.

use core::fmt;
use core::ops::Not;

use crate::square::Square;

/// The two sides. Red moves first and starts on ranks 0-4.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub enum Color {
    Red = 0,
    Black = 1,
}

impl Color {
    pub const ALL: [Color; 2] = [Color::Red, Color::Black];

    #[inline(always)]
    pub const fn index(self) -> usize {
        self as usize
    }
    /// The other side.
    #[inline(always)]
    pub const fn other(self) -> Color {
        match self {
            Color::Red => Color::Black,
            Color::Black => Color::Red,
        }
    }
    /// Lower-case English name.
    pub const fn name(self) -> &'static str {
        match self {
            Color::Red => "red",
            Color::Black => "black",
        }
    }
    /// `+1` for Red, whose soldiers advance to higher ranks; `-1` for Black.
    pub const fn forward(self) -> i8 {
        match self {
            Color::Red => 1,
            Color::Black => -1,
        }
    }
    /// Picks `red` or `black` by colour.
    pub fn fold<T>(self, red: T, black: T) -> T {
        match self {
            Color::Red => red,
            Color::Black => black,
        }
    }
}

impl Not for Color {
    type Output = Color;
    #[inline(always)]
    fn not(self) -> Color {
        self.other()
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The seven kinds of piece.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub enum Role {
    General = 0,
    Advisor = 1,
    Elephant = 2,
    Horse = 3,
    Chariot = 4,
    Cannon = 5,
    Soldier = 6,
}

impl Role {
    pub const ALL: [Role; 7] = [
        Role::General,
        Role::Advisor,
        Role::Elephant,
        Role::Horse,
        Role::Chariot,
        Role::Cannon,
        Role::Soldier,
    ];

    #[inline(always)]
    pub const fn index(self) -> usize {
        self as usize
    }
    pub const fn from_index(i: usize) -> Option<Role> {
        if i < 7 {
            Some(Role::ALL[i])
        } else {
            None
        }
    }
    /// The FEN letter in lower case: k a b n r c p.
    pub const fn char(self) -> char {
        match self {
            Role::General => 'k',
            Role::Advisor => 'a',
            Role::Elephant => 'b',
            Role::Horse => 'n',
            Role::Chariot => 'r',
            Role::Cannon => 'c',
            Role::Soldier => 'p',
        }
    }
    /// Reads a FEN letter of either case, accepting `e` for the elephant and `h` for the horse.
    pub fn from_char(c: char) -> Option<Role> {
        Some(match c.to_ascii_lowercase() {
            'k' => Role::General,
            'a' => Role::Advisor,
            'b' | 'e' => Role::Elephant,
            'n' | 'h' => Role::Horse,
            'r' => Role::Chariot,
            'c' => Role::Cannon,
            'p' => Role::Soldier,
            _ => return None,
        })
    }
    /// English name in lower case.
    pub const fn name(self) -> &'static str {
        match self {
            Role::General => "general",
            Role::Advisor => "advisor",
            Role::Elephant => "elephant",
            Role::Horse => "horse",
            Role::Chariot => "chariot",
            Role::Cannon => "cannon",
            Role::Soldier => "soldier",
        }
    }
    /// How many of this role one side may have.
    pub const fn max_count(self) -> u32 {
        match self {
            Role::General => 1,
            Role::Soldier => 5,
            _ => 2,
        }
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A piece: a role and a colour.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct Piece {
    pub color: Color,
    pub role: Role,
}

impl Piece {
    pub const fn new(color: Color, role: Role) -> Piece {
        Piece { color, role }
    }
    /// A dense index 0..14: colour * 7 + role.
    #[inline(always)]
    pub const fn index(self) -> usize {
        self.color as usize * 7 + self.role as usize
    }
    #[inline(always)]
    pub const fn from_index(i: usize) -> Piece {
        let color = if i < 7 { Color::Red } else { Color::Black };
        Piece {
            color,
            role: Role::ALL[i % 7],
        }
    }
    /// The FEN letter: upper case for Red.
    pub const fn char(self) -> char {
        let c = self.role.char();
        match self.color {
            Color::Red => c.to_ascii_uppercase(),
            Color::Black => c,
        }
    }
    /// Reads a FEN letter (upper case Red), accepting E/e and H/h.
    pub fn from_char(c: char) -> Option<Piece> {
        let role = Role::from_char(c)?;
        let color = if c.is_ascii_uppercase() {
            Color::Red
        } else {
            Color::Black
        };
        Some(Piece { color, role })
    }
}

impl fmt::Display for Piece {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.color, self.role)
    }
}

/// A move: from-square and to-square, packed in 16 bits.
///
/// A `Move` carries no piece; the position it is played in gives the piece and any capture.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Move(u16);

impl Move {
    #[inline(always)]
    pub const fn new(from: Square, to: Square) -> Move {
        Move(from.index() as u16 | ((to.index() as u16) << 7))
    }
    #[inline(always)]
    pub const fn from(self) -> Square {
        Square::new_unchecked((self.0 & 0x7f) as u8)
    }
    #[inline(always)]
    pub const fn to(self) -> Square {
        Square::new_unchecked((self.0 >> 7) as u8)
    }
    /// The packed 16-bit form.
    pub const fn to_u16(self) -> u16 {
        self.0
    }
    /// Unpacks a 16-bit move; `None` if either square is off the board.
    pub const fn from_u16(v: u16) -> Option<Move> {
        if (v & 0x7f) < 90 && (v >> 7) < 90 && v >> 14 == 0 {
            Some(Move(v))
        } else {
            None
        }
    }
    /// The move mirrored left-right.
    pub const fn flip_horizontal(self) -> Move {
        Move::new(self.from().flip_horizontal(), self.to().flip_horizontal())
    }
    /// The move mirrored top-bottom.
    pub const fn flip_vertical(self) -> Move {
        Move::new(self.from().flip_vertical(), self.to().flip_vertical())
    }
}

/// UCI/ICCS form, `h2e2`.
impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.from(), self.to())
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.from(), self.to())
    }
}
