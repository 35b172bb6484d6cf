//! Piece placement: which piece stands on which point.

use core::fmt;

use crate::attacks;
use crate::bitboard::Bitboard;
use crate::square::Square;
use crate::types::{Color, Piece, Role};

const EMPTY: u8 = 0xff;

/// The placement of pieces, with no side to move and no validation.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Board {
    by_color: [Bitboard; 2],
    by_role: [Bitboard; 7],
    squares: [u8; 90],
}

impl Default for Board {
    fn default() -> Board {
        Board::empty()
    }
}

impl Board {
    /// No pieces.
    pub const fn empty() -> Board {
        Board {
            by_color: [Bitboard::EMPTY; 2],
            by_role: [Bitboard::EMPTY; 7],
            squares: [EMPTY; 90],
        }
    }

    /// The start position's placement.
    pub fn start() -> Board {
        let mut b = Board::empty();
        let back = [
            Role::Chariot,
            Role::Horse,
            Role::Elephant,
            Role::Advisor,
            Role::General,
            Role::Advisor,
            Role::Elephant,
            Role::Horse,
            Role::Chariot,
        ];
        for (f, &role) in back.iter().enumerate() {
            b.put(Square::new(f as u8).unwrap(), Piece::new(Color::Red, role));
            b.put(
                Square::new(81 + f as u8).unwrap(),
                Piece::new(Color::Black, role),
            );
        }
        for sq in [Square::B2, Square::H2] {
            b.put(sq, Piece::new(Color::Red, Role::Cannon));
            b.put(sq.flip_vertical(), Piece::new(Color::Black, Role::Cannon));
        }
        for f in [0u8, 2, 4, 6, 8] {
            let sq = Square::new(27 + f).unwrap();
            b.put(sq, Piece::new(Color::Red, Role::Soldier));
            b.put(sq.flip_vertical(), Piece::new(Color::Black, Role::Soldier));
        }
        b
    }

    #[inline(always)]
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        let v = self.squares[sq.index()];
        if v == EMPTY {
            None
        } else {
            Some(Piece::from_index(v as usize))
        }
    }
    #[inline(always)]
    pub fn role_at(&self, sq: Square) -> Option<Role> {
        self.piece_at(sq).map(|p| p.role)
    }
    #[inline(always)]
    pub fn color_at(&self, sq: Square) -> Option<Color> {
        self.piece_at(sq).map(|p| p.color)
    }
    #[inline(always)]
    pub fn occupied(&self) -> Bitboard {
        self.by_color[0] | self.by_color[1]
    }
    #[inline(always)]
    pub fn by_color(&self, color: Color) -> Bitboard {
        self.by_color[color.index()]
    }
    #[inline(always)]
    pub fn by_role(&self, role: Role) -> Bitboard {
        self.by_role[role.index()]
    }
    #[inline(always)]
    pub fn by_piece(&self, piece: Piece) -> Bitboard {
        self.by_color[piece.color.index()] & self.by_role[piece.role.index()]
    }
    /// The general of `color`, if it has one (a validated position always does).
    #[inline(always)]
    pub fn general(&self, color: Color) -> Option<Square> {
        self.by_piece(Piece::new(color, Role::General)).first()
    }

    /// Puts a piece on a square, replacing what stood there.
    pub fn put(&mut self, sq: Square, piece: Piece) {
        self.remove(sq);
        self.put_unchecked(sq, piece);
    }
    /// Puts a piece on an empty square.
    #[inline(always)]
    pub(crate) fn put_unchecked(&mut self, sq: Square, piece: Piece) {
        debug_assert!(self.squares[sq.index()] == EMPTY);
        self.squares[sq.index()] = piece.index() as u8;
        self.by_color[piece.color.index()].set(sq);
        self.by_role[piece.role.index()].set(sq);
    }
    /// Removes and returns the piece on a square.
    pub fn remove(&mut self, sq: Square) -> Option<Piece> {
        let p = self.piece_at(sq)?;
        self.squares[sq.index()] = EMPTY;
        self.by_color[p.color.index()].clear(sq);
        self.by_role[p.role.index()].clear(sq);
        Some(p)
    }

    /// Pieces of `attacker` that attack `sq` with the given occupancy: pieces that could
    /// capture on `sq` if an enemy stood there (legality aside).
    #[inline]
    pub fn attackers_to(&self, sq: Square, attacker: Color, occ: Bitboard) -> Bitboard {
        let theirs = self.by_color(attacker);
        (attacks::chariot_attacks(sq, occ) & self.by_role(Role::Chariot)
            | attacks::cannon_attacks(sq, occ) & self.by_role(Role::Cannon)
            | attacks::horse_attackers_of(sq, occ) & self.by_role(Role::Horse)
            | attacks::soldier_attackers_of(attacker, sq) & self.by_role(Role::Soldier)
            | attacks::general_attacks(sq) & self.by_role(Role::General)
            | attacks::advisor_attacks(sq) & self.by_role(Role::Advisor)
            | elephant_attackers_of(sq, occ) & self.by_role(Role::Elephant))
            & theirs
    }

    /// Pieces of `attacker` that attack the general standing on `sq`: chariots, cannons,
    /// horses, soldiers, and the other general along an open file (the flying-general rule).
    #[inline]
    pub fn general_attackers(&self, sq: Square, attacker: Color, occ: Bitboard) -> Bitboard {
        let theirs = self.by_color(attacker);
        let rk =
            self.by_role(Role::Chariot) | self.by_role(Role::General) & Bitboard::file(sq.file());
        (attacks::chariot_attacks(sq, occ) & rk
            | attacks::cannon_attacks(sq, occ) & self.by_role(Role::Cannon)
            | attacks::horse_attackers_of(sq, occ) & self.by_role(Role::Horse)
            | attacks::soldier_attackers_of(attacker, sq) & self.by_role(Role::Soldier))
            & theirs
    }

    /// Iterates the pieces, a0 first.
    pub fn pieces(&self) -> impl Iterator<Item = (Square, Piece)> + '_ {
        self.occupied()
            .into_iter()
            .map(move |sq| (sq, self.piece_at(sq).expect("occupied square has a piece")))
    }

    /// Number of pieces of one kind.
    pub fn count(&self, piece: Piece) -> u32 {
        self.by_piece(piece).count()
    }

    /// The board mirrored left-right.
    pub fn flip_horizontal(&self) -> Board {
        let mut b = Board::empty();
        for (sq, p) in self.pieces() {
            b.put_unchecked(sq.flip_horizontal(), p);
        }
        b
    }
    /// The board turned around with colours swapped: what Red had, Black has, seen from
    /// the other side.
    pub fn swap_colors(&self) -> Board {
        let mut b = Board::empty();
        for (sq, p) in self.pieces() {
            b.put_unchecked(sq.flip_vertical(), Piece::new(!p.color, p.role));
        }
        b
    }
}

/// Elephant moves are symmetric: an elephant on `a` reaches `b` exactly when one on `b`
/// reaches `a` (same eye, same half of the board).
#[inline(always)]
fn elephant_attackers_of(sq: Square, occ: Bitboard) -> Bitboard {
    attacks::elephant_attacks(sq, occ)
}

/// A text diagram, rank 9 at the top, with FEN letters and `.` for empty points.
impl fmt::Display for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for r in (0..10u8).rev() {
            write!(f, "{r} ")?;
            for file in 0..9u8 {
                let sq = Square::new(r * 9 + file).unwrap();
                let c = self.piece_at(sq).map_or('.', Piece::char);
                write!(f, "{c}")?;
                if file < 8 {
                    f.write_str(" ")?;
                }
            }
            writeln!(f)?;
        }
        f.write_str("  a b c d e f g h i")
    }
}

impl fmt::Debug for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f)?;
        fmt::Display::fmt(self, f)
    }
}
