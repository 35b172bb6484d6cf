//! A set of points: 90 bits of a `u128`, bit `rank * 9 + file`.

use core::fmt;
use core::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not};

use crate::square::{File, Rank, Square};

/// A set of squares.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Default)]
pub struct Bitboard(pub u128);

const ALL_BITS: u128 = (1u128 << 90) - 1;
const FILE_A: u128 = {
    let mut bits = 0u128;
    let mut r = 0;
    while r < 10 {
        bits |= 1u128 << (r * 9);
        r += 1;
    }
    bits
};

impl Bitboard {
    pub const EMPTY: Bitboard = Bitboard(0);
    pub const FULL: Bitboard = Bitboard(ALL_BITS);
    /// Ranks 0-4.
    pub const RED_HALF: Bitboard = Bitboard((1u128 << 45) - 1);
    /// Ranks 5-9.
    pub const BLACK_HALF: Bitboard = Bitboard(ALL_BITS ^ ((1u128 << 45) - 1));

    #[inline(always)]
    pub const fn from_square(sq: Square) -> Bitboard {
        Bitboard(1u128 << sq.index())
    }
    /// All squares of a rank.
    pub const fn rank(rank: Rank) -> Bitboard {
        Bitboard(0x1ffu128 << (rank.index() as u32 * 9))
    }
    /// All squares of a file.
    #[inline(always)]
    pub const fn file(file: File) -> Bitboard {
        Bitboard(FILE_A << file.index())
    }
    #[inline(always)]
    pub const fn contains(self, sq: Square) -> bool {
        self.0 >> sq.index() & 1 != 0
    }
    #[inline(always)]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }
    #[inline(always)]
    pub const fn any(self) -> bool {
        self.0 != 0
    }
    #[inline(always)]
    pub const fn count(self) -> u32 {
        self.0.count_ones()
    }
    #[inline(always)]
    pub const fn with(self, sq: Square) -> Bitboard {
        Bitboard(self.0 | 1u128 << sq.index())
    }
    #[inline(always)]
    pub const fn without(self, sq: Square) -> Bitboard {
        Bitboard(self.0 & !(1u128 << sq.index()))
    }
    #[inline(always)]
    pub fn set(&mut self, sq: Square) {
        self.0 |= 1u128 << sq.index();
    }
    #[inline(always)]
    pub fn clear(&mut self, sq: Square) {
        self.0 &= !(1u128 << sq.index());
    }
    #[inline(always)]
    pub fn toggle(&mut self, sq: Square) {
        self.0 ^= 1u128 << sq.index();
    }
    /// The lowest square, if any.
    #[inline(always)]
    pub fn first(self) -> Option<Square> {
        if self.0 == 0 {
            None
        } else {
            Some(Square::new_unchecked(self.0.trailing_zeros() as u8))
        }
    }
    /// The only square, if the set has exactly one.
    pub fn single(self) -> Option<Square> {
        if self.count() == 1 {
            self.first()
        } else {
            None
        }
    }
    /// More than one square.
    #[inline(always)]
    pub const fn more_than_one(self) -> bool {
        self.0 & self.0.wrapping_sub(1) != 0
    }
    /// Mirror left-right.
    pub fn flip_horizontal(self) -> Bitboard {
        self.into_iter()
            .map(Square::flip_horizontal)
            .collect::<Bitboard>()
    }
    /// Mirror top-bottom.
    pub fn flip_vertical(self) -> Bitboard {
        self.into_iter().map(Square::flip_vertical).collect()
    }
}

impl FromIterator<Square> for Bitboard {
    fn from_iter<I: IntoIterator<Item = Square>>(iter: I) -> Bitboard {
        let mut bb = Bitboard::EMPTY;
        for sq in iter {
            bb.set(sq);
        }
        bb
    }
}

/// Iterates the squares of a set, lowest first.
#[derive(Clone)]
pub struct IntoIter(u128);

impl Iterator for IntoIter {
    type Item = Square;
    #[inline(always)]
    fn next(&mut self) -> Option<Square> {
        if self.0 == 0 {
            None
        } else {
            let sq = self.0.trailing_zeros() as u8;
            self.0 &= self.0 - 1;
            Some(Square::new_unchecked(sq))
        }
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for IntoIter {}

impl IntoIterator for Bitboard {
    type Item = Square;
    type IntoIter = IntoIter;
    #[inline(always)]
    fn into_iter(self) -> IntoIter {
        IntoIter(self.0)
    }
}

macro_rules! binop {
    ($tr:ident, $f:ident, $atr:ident, $af:ident, $op:tt) => {
        impl $tr for Bitboard {
            type Output = Bitboard;
            #[inline(always)]
            fn $f(self, rhs: Bitboard) -> Bitboard {
                Bitboard(self.0 $op rhs.0)
            }
        }
        impl $atr for Bitboard {
            #[inline(always)]
            fn $af(&mut self, rhs: Bitboard) {
                self.0 = self.0 $op rhs.0;
            }
        }
    };
}
binop!(BitAnd, bitand, BitAndAssign, bitand_assign, &);
binop!(BitOr, bitor, BitOrAssign, bitor_assign, |);
binop!(BitXor, bitxor, BitXorAssign, bitxor_assign, ^);

impl Not for Bitboard {
    type Output = Bitboard;
    #[inline(always)]
    fn not(self) -> Bitboard {
        Bitboard(!self.0 & ALL_BITS)
    }
}

impl From<Square> for Bitboard {
    fn from(sq: Square) -> Bitboard {
        Bitboard::from_square(sq)
    }
}

/// Draws the set as a 10 x 9 grid, rank 9 at the top.
impl fmt::Debug for Bitboard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f)?;
        for r in (0..10).rev() {
            for file in 0..9 {
                let sq = Square::new_unchecked(r * 9 + file);
                f.write_str(if self.contains(sq) { "X" } else { "." })?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn basics() {
        let bb = Bitboard::from_square(Square::E0) | Bitboard::from_square(Square::I9);
        assert_eq!(bb.count(), 2);
        assert_eq!(
            bb.into_iter().collect::<Vec<_>>(),
            vec![Square::E0, Square::I9]
        );
        assert_eq!((!Bitboard::EMPTY).count(), 90);
        assert_eq!(Bitboard::file(File::E).count(), 10);
        assert_eq!(Bitboard::rank(Rank::new(3).unwrap()).count(), 9);
        assert_eq!(Bitboard::RED_HALF.count(), 45);
        assert_eq!(
            bb.flip_horizontal().into_iter().collect::<Vec<_>>(),
            vec![Square::E0, Square::A9]
        );
    }
}
