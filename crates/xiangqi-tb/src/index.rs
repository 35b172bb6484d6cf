//! The index of a position in its set's table.
//!
//! A table's first side is Red. The pieces are placed group by group: Red's general, Black's
//! general, then for each side the advisors, elephants, horses, chariots, cannons and
//! soldiers. Each group is indexed among the points its pieces can stand on (the rules
//! core's `can_stand_on`: a general's 9 palace points, an advisor's 5, an elephant's 7, a
//! soldier's 55, the others' 90), identical pieces as a combination (colex order, no
//! order among them). Red's general is kept on files d and e (6 points): a position with
//! it on file f is mirrored left-right first, which never changes the result. The
//! index is `turn * placements + placement`, the placement a mixed-radix number with Red's
//! general as the most significant digit. Placements with two pieces on one point, the
//! generals facing, or the side not to move in check are indices of no position
//! ("illegal").

use xiangqi::position::can_stand_on;
use xiangqi::{Board, Color, Piece, Position, Role, Setup, Square};

use crate::material::Material;

/// Binomial coefficients C(n, k) for n <= 90, k <= 5.
fn binom(n: usize, k: usize) -> u64 {
    if k > n {
        return 0;
    }
    let mut r = 1u64;
    for i in 0..k {
        r = r * (n - i) as u64 / (i as u64 + 1);
    }
    r
}

#[derive(Clone, Debug)]
struct Group {
    piece: Piece,
    count: usize,
    /// The points this group's pieces may stand on, in square order.
    squares: Vec<Square>,
    /// A square's position in `squares`, or 255.
    slot: [u8; 90],
    /// The number of placements of the group: C(squares, count).
    size: u64,
    /// `binom[n][k]` for this group.
    binom: Vec<[u64; 6]>,
}

impl Group {
    fn new(piece: Piece, count: usize, squares: Vec<Square>) -> Group {
        let mut slot = [255u8; 90];
        for (i, s) in squares.iter().enumerate() {
            slot[s.index()] = i as u8;
        }
        let binom: Vec<[u64; 6]> = (0..=squares.len())
            .map(|n| core::array::from_fn(|k| binom(n, k)))
            .collect();
        Group {
            piece,
            count,
            size: binom[squares.len()][count],
            squares,
            slot,
            binom,
        }
    }
}

/// Maps the positions of one canonical material to `0..size` and back.
#[derive(Clone, Debug)]
pub struct Indexer {
    material: Material,
    groups: Vec<Group>,
    placements: u64,
}

/// The order in which a side's non-general pieces are placed.
const GROUP_ORDER: [Role; 6] = [
    Role::Advisor,
    Role::Elephant,
    Role::Horse,
    Role::Chariot,
    Role::Cannon,
    Role::Soldier,
];

impl Indexer {
    /// The indexer of `material` (its first side is Red).
    pub fn new(material: Material) -> Indexer {
        let points =
            |p: Piece| -> Vec<Square> { Square::all().filter(|&s| can_stand_on(p, s)).collect() };
        let red_k = Piece::new(Color::Red, Role::General);
        let mut groups = vec![
            Group::new(
                red_k,
                1,
                points(red_k)
                    .into_iter()
                    .filter(|s| s.file().index() <= 4)
                    .collect(),
            ),
            Group::new(
                Piece::new(Color::Black, Role::General),
                1,
                points(Piece::new(Color::Black, Role::General)),
            ),
        ];
        for color in Color::ALL {
            for role in GROUP_ORDER {
                let n = material.counts[color.index()][role.index()] as usize;
                if n > 0 {
                    let p = Piece::new(color, role);
                    groups.push(Group::new(p, n, points(p)));
                }
            }
        }
        let placements = groups.iter().map(|g| g.size).product();
        Indexer {
            material,
            groups,
            placements,
        }
    }

    pub fn material(&self) -> &Material {
        &self.material
    }

    /// The number of indices (both sides to move).
    pub fn size(&self) -> u64 {
        2 * self.placements
    }

    /// The index of a position of this material with Red's general on file d or e.
    pub fn index_unmirrored(&self, pos: &Position) -> u64 {
        self.index_board(pos.board(), pos.turn())
    }

    /// The index of a placement of this material with Red's general on file d or e and
    /// `turn` to move (not checked legal: the unmove generator's predecessors).
    pub fn index_board(&self, b: &Board, turn: Color) -> u64 {
        let mut idx = 0u64;
        for g in &self.groups {
            let mut slots = [0u8; 5];
            let mut n = 0;
            for sq in b.by_piece(g.piece) {
                slots[n] = g.slot[sq.index()];
                debug_assert!(slots[n] != 255, "{:?} on {sq}", g.piece);
                n += 1;
            }
            debug_assert_eq!(n, g.count);
            // Bitboards iterate in square order: the slots are sorted.
            let mut sub = 0u64;
            for (i, &s) in slots[..n].iter().enumerate() {
                sub += g.binom[s as usize][i + 1];
            }
            idx = idx * g.size + sub;
        }
        idx + turn.index() as u64 * self.placements
    }

    /// The index of a position of this material (Red having the first side's pieces),
    /// mirrored left-right first if Red's general is on file f.
    pub fn index(&self, pos: &Position) -> u64 {
        if pos.general(Color::Red).file().index() > 4 {
            self.index_unmirrored(&pos.flip_horizontal())
        } else {
            self.index_unmirrored(pos)
        }
    }

    /// The position of an index, or `None` if the index is of no legal position (two pieces
    /// on a point, generals facing, the side not to move in check) or out of range.
    pub fn position(&self, idx: u64) -> Option<Position> {
        if idx >= self.size() {
            return None;
        }
        let turn = if idx >= self.placements {
            Color::Black
        } else {
            Color::Red
        };
        let mut rest = idx % self.placements;
        let mut board = Board::empty();
        for g in self.groups.iter().rev() {
            let mut sub = rest % g.size;
            rest /= g.size;
            let mut hi = g.squares.len();
            for k in (1..=g.count).rev() {
                // The largest slot s < hi with C(s, k) <= sub.
                let mut s = hi - 1;
                while g.binom[s][k] > sub {
                    s -= 1;
                }
                sub -= g.binom[s][k];
                hi = s;
                let sq = g.squares[s];
                if board.piece_at(sq).is_some() {
                    return None;
                }
                board.put(sq, g.piece);
            }
        }
        let setup = Setup {
            board,
            turn,
            halfmoves: 0,
            fullmoves: 1,
        };
        Position::from_setup(setup).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_round_trip() {
        let m = Material::parse("KRKAA").unwrap();
        let ix = Indexer::new(m);
        assert_eq!(ix.size(), 2 * 6 * 9 * 90 * 10);
        let mut legal = 0;
        for i in 0..ix.size() {
            if let Some(p) = ix.position(i) {
                legal += 1;
                assert_eq!(ix.index(&p), i, "{}", p.fen());
            }
        }
        assert!(legal > 0);
        let p = Material::parse("KPPKE").unwrap();
        assert_eq!(Indexer::new(p).size(), 2 * 6 * 9 * binom(55, 2) * 7);
    }
}
