//! A position's key in the index: mirror-aware, with a verification.
//!
//! A position and its left-right mirror share one entry, as Xiangqi books do: the key is
//! made from whichever of the two orientations has the smaller Zobrist key (the canonical
//! one), and the moves are stored as played in that orientation. A position that is its own
//! mirror (the start, for one) stores a move and its mirror as one move: the smaller of the
//! two packed forms, so 炮二平五 and 炮八平五 from the start are counted together.
//!
//! The 16 bytes are the canonical orientation's Zobrist key (the core's, side to move
//! included) and a second, independent 64-bit hash of its board and side to move (FNV-1a
//! over the pieces by square), so that two positions share a key only if both 64-bit hashes
//! collide.

use xiangqi::zobrist::{piece_key, BLACK_TO_MOVE};
use xiangqi::{Color, Move, Position, Square};

/// A position's key: 16 bytes, big-endian, so keys sort by their Zobrist half first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PositionKey(pub [u8; 16]);

/// How a position maps to its entry: the key, and whether the entry holds it mirrored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Keyed {
    pub key: PositionKey,
    /// The entry holds the position's mirror: its moves are mirrored on the way in and out.
    pub mirrored: bool,
    /// The position is its own mirror: a move and its mirror are one entry.
    pub symmetric: bool,
}

impl Keyed {
    /// The key of `pos` and how its moves map to the entry's.
    pub fn of(pos: &Position) -> Keyed {
        let mirror = pos.flip_horizontal();
        let (a, b) = (pos.key(), mirror.key());
        let symmetric = pos.board() == mirror.board();
        let mirrored = !symmetric && b < a;
        let canonical = if mirrored { &mirror } else { pos };
        let mut key = [0u8; 16];
        key[..8].copy_from_slice(&canonical.key().to_be_bytes());
        key[8..].copy_from_slice(&verification(canonical).to_be_bytes());
        Keyed {
            key: PositionKey(key),
            mirrored,
            symmetric,
        }
    }

    /// A move of the position as the entry stores it.
    pub fn store(&self, m: Move) -> Move {
        if self.mirrored {
            m.flip_horizontal()
        } else if self.symmetric {
            let f = m.flip_horizontal();
            if f.to_u16() < m.to_u16() {
                f
            } else {
                m
            }
        } else {
            m
        }
    }

    /// A stored move as a move of the position (a symmetric position's move is answered in
    /// its stored form, which is legal there as its mirror is).
    pub fn load(&self, m: Move) -> Move {
        if self.mirrored {
            m.flip_horizontal()
        } else {
            m
        }
    }
}

/// A game's positions keyed one after another, as [`Keyed::of`] keys each: the mirror's
/// Zobrist key is kept up to date move by move (as the position keeps its own) instead of
/// building the mirrored position at every ply, and the canonical orientation's verification
/// hash is read off the position itself.
#[derive(Clone, Debug)]
pub struct KeyWalk {
    pos: Position,
    mirror_key: u64,
}

impl KeyWalk {
    pub fn new(start: &Position) -> KeyWalk {
        KeyWalk {
            pos: start.clone(),
            mirror_key: start.flip_horizontal().key(),
        }
    }

    /// The position reached.
    pub fn position(&self) -> &Position {
        &self.pos
    }

    /// The key of the position reached: equal to `Keyed::of(self.position())`.
    pub fn keyed(&self) -> Keyed {
        let (a, b) = (self.pos.key(), self.mirror_key);
        // A board equal to its mirror has equal keys; the boards are compared only then.
        let symmetric = a == b && self.pos.board().flip_horizontal() == *self.pos.board();
        let mirrored = !symmetric && b < a;
        let (zobrist, check) = if mirrored {
            (b, verification_of_mirror(&self.pos))
        } else {
            (a, verification(&self.pos))
        };
        let mut key = [0u8; 16];
        key[..8].copy_from_slice(&zobrist.to_be_bytes());
        key[8..].copy_from_slice(&check.to_be_bytes());
        Keyed {
            key: PositionKey(key),
            mirrored,
            symmetric,
        }
    }

    /// Plays `m`, which must be legal (or at least have a piece on its from-square).
    pub fn play(&mut self, m: Move) {
        let (from, to) = (m.from(), m.to());
        let piece = self
            .pos
            .piece_at(from)
            .expect("KeyWalk::play: no piece on the from-square");
        let (mf, mt) = (from.flip_horizontal(), to.flip_horizontal());
        if let Some(c) = self.pos.piece_at(to) {
            self.mirror_key ^= piece_key(c, mt);
        }
        self.mirror_key ^= piece_key(piece, mf) ^ piece_key(piece, mt) ^ BLACK_TO_MOVE;
        self.pos.play_unchecked(m);
    }
}

/// 64-bit FNV-1a of `bytes`, continuing from `h` (start from `FNV_OFFSET`).
pub(crate) fn fnv1a64(mut h: u64, bytes: &[u8]) -> u64 {
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

pub(crate) const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

/// FNV-1a over (square, piece) of every occupied square, lowest square first, then the side
/// to move.
fn verification(pos: &Position) -> u64 {
    let b = pos.board();
    verification_by(pos, b.occupied(), |sq| b.piece_at(sq))
}

/// [`verification`] of the mirror of `pos`, read off `pos` (the mirror's square `sq` holds
/// what `pos` has on `sq`'s mirror).
fn verification_of_mirror(pos: &Position) -> u64 {
    let b = pos.board();
    verification_by(pos, b.occupied().flip_horizontal(), |sq| {
        b.piece_at(sq.flip_horizontal())
    })
}

/// The hash over the squares of `occupied` (iterated lowest first, as `Square::all` orders
/// them: only the occupied ones, instead of all 90).
fn verification_by(
    pos: &Position,
    occupied: xiangqi::Bitboard,
    piece_at: impl Fn(Square) -> Option<xiangqi::Piece>,
) -> u64 {
    let mut h = FNV_OFFSET;
    for sq in occupied {
        if let Some(p) = piece_at(sq) {
            h = fnv1a64(
                h,
                &[
                    sq.index() as u8,
                    (p.color.index() * 7 + p.role.index()) as u8 + 1,
                ],
            );
        }
    }
    let side = match pos.turn() {
        Color::Red => 0xa5,
        Color::Black => 0x5a,
    };
    fnv1a64(h, &[side])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn play(pos: &mut Position, uci: &str) {
        let m = pos
            .legal_moves()
            .into_iter()
            .copied()
            .find(|m| m.to_string() == uci)
            .unwrap();
        pos.play_unchecked(m);
    }

    #[test]
    fn a_position_and_its_mirror_share_a_key_and_their_moves_map_across() {
        let mut p = Position::new();
        play(&mut p, "h2e2");
        let m = p.flip_horizontal();
        let (a, b) = (Keyed::of(&p), Keyed::of(&m));
        assert_eq!(a.key, b.key);
        assert_ne!(a.mirrored, b.mirrored);
        assert!(!a.symmetric && !b.symmetric);
        // h9g7 in one is b9c7 in the other: the same stored move.
        let h9g7 = p
            .legal_moves()
            .into_iter()
            .copied()
            .find(|m| m.to_string() == "h9g7")
            .unwrap();
        let b9c7 = m
            .legal_moves()
            .into_iter()
            .copied()
            .find(|m| m.to_string() == "b9c7")
            .unwrap();
        assert_eq!(a.store(h9g7), b.store(b9c7));
        assert_eq!(a.load(a.store(h9g7)), h9g7);
        assert_eq!(b.load(b.store(b9c7)), b9c7);
    }

    #[test]
    fn the_start_is_symmetric_and_a_move_and_its_mirror_are_one() {
        let p = Position::new();
        let k = Keyed::of(&p);
        assert!(k.symmetric && !k.mirrored);
        let mv = |s: &str| {
            p.legal_moves()
                .into_iter()
                .copied()
                .find(|m| m.to_string() == s)
                .unwrap()
        };
        assert_eq!(k.store(mv("h2e2")), k.store(mv("b2e2")));
        assert_ne!(k.store(mv("h2e2")), k.store(mv("h2d2")));
        assert!(p.is_legal(k.load(k.store(mv("h2e2")))));
    }

    #[test]
    fn the_side_to_move_and_the_board_make_different_keys() {
        let a = Position::new();
        let mut b = Position::new();
        b.play_null();
        assert_ne!(Keyed::of(&a).key, Keyed::of(&b).key);
        let mut c = Position::new();
        play(&mut c, "h2e2");
        assert_ne!(Keyed::of(&a).key, Keyed::of(&c).key);
    }

    /// The verification hash as first written: every one of the 90 squares looked at.
    fn verification_of_all_squares(pos: &Position) -> u64 {
        let mut h = FNV_OFFSET;
        for sq in Square::all() {
            if let Some(p) = pos.piece_at(sq) {
                h = fnv1a64(
                    h,
                    &[
                        sq.index() as u8,
                        (p.color.index() * 7 + p.role.index()) as u8 + 1,
                    ],
                );
            }
        }
        fnv1a64(h, &[if pos.turn() == Color::Red { 0xa5 } else { 0x5a }])
    }

    #[test]
    fn a_walk_keys_every_position_as_keyed_of_does() {
        // Random legal games (a fixed LCG), symmetric positions, captures and mirrored starts
        // among them.
        let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = |n: usize| {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            ((seed >> 33) as usize) % n
        };
        let (mut checked, mut symmetric, mut mirrored) = (0, 0, 0);
        for game in 0..300 {
            let start = if game % 3 == 2 {
                let mut p = Position::new();
                play(&mut p, "b2e2");
                p
            } else {
                Position::new()
            };
            let mut walk = KeyWalk::new(&start);
            for _ in 0..120 {
                let pos = walk.position().clone();
                let k = walk.keyed();
                assert_eq!(k, Keyed::of(&pos), "{pos:?}");
                // The hash over the occupied squares is the one over all 90 (the keys of
                // existing indexes are made of it).
                let mirror = pos.flip_horizontal();
                assert_eq!(verification(&pos), verification_of_all_squares(&pos));
                assert_eq!(verification(&mirror), verification_of_all_squares(&mirror));
                assert_eq!(verification_of_mirror(&pos), verification(&mirror));
                checked += 1;
                symmetric += usize::from(k.symmetric);
                mirrored += usize::from(k.mirrored);
                let legal: Vec<Move> = pos.legal_moves().into_iter().copied().collect();
                if legal.is_empty() {
                    break;
                }
                walk.play(legal[next(legal.len())]);
            }
        }
        assert!(checked > 20_000 && symmetric >= 200 && mirrored > 5_000);
    }
}
