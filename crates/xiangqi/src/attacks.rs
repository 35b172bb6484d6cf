//! Attack tables, built at compile time, and the lookups built on them.
//!
//! Chariots and cannons look their targets up by the occupancy of the rank (9 bits) or
//! file (10 bits) through their square. Horses and elephants look theirs up leg by leg
//! (eye by eye). "Which horses attack this point" has its own table, because a horse's
//! leg sits next to the horse, not next to its target.

use crate::bitboard::Bitboard;
use crate::square::Square;
use crate::types::{Color, Piece, Role};

const fn bit(sq: i32) -> u128 {
    1u128 << sq
}

const fn on_board(f: i32, r: i32) -> bool {
    f >= 0 && f < 9 && r >= 0 && r < 10
}

const fn in_palace(f: i32, r: i32) -> bool {
    f >= 3 && f <= 5 && r >= 0 && r <= 9 && (r <= 2 || r >= 7)
}

/// Reachable squares along one line of `len` points for a slider at `pos`, given the
/// line's occupancy: `(chariot targets, cannon capture targets)`.
const fn line_attacks(pos: i32, occ: u32, len: i32) -> (u16, u16) {
    let mut slide = 0u16;
    let mut cannon = 0u16;
    let mut dir = -1;
    while dir <= 1 {
        let mut p = pos + dir;
        let mut screens = 0;
        while p >= 0 && p < len {
            let occupied = occ >> p & 1 != 0;
            if screens == 0 {
                slide |= 1 << p;
                if occupied {
                    screens = 1;
                }
            } else if occupied {
                cannon |= 1 << p;
                break;
            }
            p += dir;
        }
        dir += 2;
    }
    (slide, cannon)
}

/// Line tables: for a slider at a position on a rank (or file) and the line's occupancy,
/// the chariot targets in the low 16 bits and the cannon capture targets in the high 16 bits.
/// Padded to 16 positions so that masked indices need no bounds checks.
const fn build_line_table<const N: usize>(len: i32) -> [[u32; N]; 16] {
    let mut t = [[0u32; N]; 16];
    let mut pos = 0;
    while pos < len {
        let mut occ = 0;
        while occ < N {
            let (s, c) = line_attacks(pos, occ as u32, len);
            t[pos as usize][occ] = s as u32 | (c as u32) << 16;
            occ += 1;
        }
        pos += 1;
    }
    t
}

static RANK_LINES: [[u32; 512]; 16] = build_line_table::<512>(9);
static FILE_LINES: [[u32; 1024]; 16] = build_line_table::<1024>(10);

const fn build_file_spread() -> [u128; 1024] {
    let mut t = [0u128; 1024];
    let mut m = 0;
    while m < 1024 {
        let mut r = 0;
        while r < 10 {
            if m >> r & 1 != 0 {
                t[m] |= bit(r * 9);
            }
            r += 1;
        }
        m += 1;
    }
    t
}
/// Spreads a 10-bit file mask onto file a.
static FILE_SPREAD: [u128; 1024] = build_file_spread();

/// The occupancy of a rank as 9 bits, file a lowest.
#[inline(always)]
fn rank_bits(occ: Bitboard, rank: u32) -> usize {
    ((occ.0 >> (rank * 9)) & 0x1ff) as usize
}

/// The occupancy of a file as 10 bits, rank 0 lowest.
#[inline(always)]
fn file_bits(occ: Bitboard, file: u32) -> usize {
    let x = occ.0 >> file;
    // Bits 0, 9, ..., 63 (ranks 0-7) gathered into the top byte by one multiplication:
    // the partial products never overlap, so nothing carries.
    let lo = ((x as u64) & 0x8040_2010_0804_0201).wrapping_mul(0x0101_0101_0101_0101) >> 56;
    let hi = ((x >> 72) as u32 & 1) | (((x >> 81) as u32 & 1) << 1);
    (lo as usize | (hi as usize) << 8) & 0x3ff
}

/// Chariot targets (low half) and cannon capture targets (high half) of a slider on `sq`,
/// as (rank mask, file mask) pairs of the raw line tables.
#[inline(always)]
fn line_masks(sq: Square, occ: Bitboard) -> (u32, u32, u32, u32) {
    let f = sq.file().index() as u32;
    let r = sq.rank().index() as u32;
    let rank = RANK_LINES[(f & 15) as usize][rank_bits(occ, r)];
    let file = FILE_LINES[(r & 15) as usize][file_bits(occ, f)];
    (rank, file, r * 9, f)
}

#[inline(always)]
fn spread(rank: u32, file: u32, rank_shift: u32, file_shift: u32) -> Bitboard {
    Bitboard(rank_spread(rank, rank_shift).0 | file_spread(file, file_shift).0)
}

#[inline(always)]
fn rank_spread(rank: u32, rank_shift: u32) -> Bitboard {
    Bitboard(((rank & 0x1ff) as u128) << (rank_shift & 127))
}

#[inline(always)]
fn file_spread(file: u32, file_shift: u32) -> Bitboard {
    // file_shift is the file index (< 9): masking it lets the compiler use a short shift.
    Bitboard(FILE_SPREAD[(file & 0x3ff) as usize] << (file_shift & 15))
}

/// Squares a chariot on `sq` attacks: empty points up to and including the first piece in
/// each direction.
#[inline(always)]
pub fn chariot_attacks(sq: Square, occ: Bitboard) -> Bitboard {
    let (rank, file, rs, fs) = line_masks(sq, occ);
    spread(rank, file, rs, fs)
}

/// Squares a cannon on `sq` can capture on (if an enemy stands there): the first piece
/// beyond the first piece in each direction.
#[inline(always)]
pub fn cannon_attacks(sq: Square, occ: Bitboard) -> Bitboard {
    let (rank, file, rs, fs) = line_masks(sq, occ);
    spread(rank >> 16, file >> 16, rs, fs)
}

/// A cannon's moves in one lookup: `(quiet targets, capture targets)`, the captures not yet
/// restricted to enemy pieces.
#[inline(always)]
pub fn cannon_moves(sq: Square, occ: Bitboard) -> (Bitboard, Bitboard) {
    let (rank, file, rs, fs) = line_masks(sq, occ);
    (
        spread(rank, file, rs, fs) & !occ,
        spread(rank >> 16, file >> 16, rs, fs),
    )
}

/// Chariot attacks and cannon capture targets from `sq` in one lookup.
#[inline(always)]
pub fn slider_attacks(sq: Square, occ: Bitboard) -> (Bitboard, Bitboard) {
    let (rank, file, rs, fs) = line_masks(sq, occ);
    (
        spread(rank, file, rs, fs),
        spread(rank >> 16, file >> 16, rs, fs),
    )
}

/// Empty squares a chariot or cannon on `sq` can move to without capturing.
#[inline(always)]
pub fn slide_quiets(sq: Square, occ: Bitboard) -> Bitboard {
    chariot_attacks(sq, occ) & !occ
}

/// Leg/eye entry for a direction that leaves the board: any valid index will do, since the
/// targets through it are empty.
const NO_SQ: u8 = 0;

/// Table index of a square: masked so the compiler can drop bounds checks (tables have 128 rows).
#[inline(always)]
fn ix(sq: Square) -> usize {
    sq.index() & 127
}

struct LeaperTables {
    general: [u128; 128],
    advisor: [u128; 128],
    soldier: [[u128; 128]; 2],
    soldier_from: [[u128; 128]; 2],
    /// Orthogonal neighbour (horse leg) and the two targets through it.
    horse_leg: [[u8; 4]; 128],
    horse_to: [[u128; 4]; 128],
    /// Diagonal neighbour and the two horse squares that attack through it.
    horse_rev_leg: [[u8; 4]; 128],
    horse_from: [[u128; 4]; 128],
    /// Elephant eye and target (same half of the board only).
    elephant_eye: [[u8; 4]; 128],
    elephant_to: [[u128; 4]; 128],
    rays: [[u128; 4]; 128],
    diag_neighbours: [u128; 128],
}

const ORTH: [(i32, i32); 4] = [(0, 1), (0, -1), (1, 0), (-1, 0)];
const DIAG: [(i32, i32); 4] = [(1, 1), (-1, 1), (1, -1), (-1, -1)];

const fn build_leapers() -> LeaperTables {
    let mut t = LeaperTables {
        general: [0; 128],
        advisor: [0; 128],
        soldier: [[0; 128]; 2],
        soldier_from: [[0; 128]; 2],
        horse_leg: [[NO_SQ; 4]; 128],
        horse_to: [[0; 4]; 128],
        horse_rev_leg: [[NO_SQ; 4]; 128],
        horse_from: [[0; 4]; 128],
        elephant_eye: [[NO_SQ; 4]; 128],
        elephant_to: [[0; 4]; 128],
        rays: [[0; 4]; 128],
        diag_neighbours: [0; 128],
    };
    let mut sq = 0;
    while sq < 90 {
        let f = (sq % 9) as i32;
        let r = (sq / 9) as i32;
        let mut i = 0;
        while i < 4 {
            // General: one step orthogonally inside the palace.
            let (df, dr) = ORTH[i];
            if in_palace(f, r) && in_palace(f + df, r + dr) {
                t.general[sq] |= bit((r + dr) * 9 + f + df);
            }
            // Rays.
            let (mut ff, mut rr) = (f + df, r + dr);
            while on_board(ff, rr) {
                t.rays[sq][i] |= bit(rr * 9 + ff);
                ff += df;
                rr += dr;
            }
            // Horse: leg orthogonal, then one step diagonally outward.
            if on_board(f + df, r + dr) {
                t.horse_leg[sq][i] = ((r + dr) * 9 + f + df) as u8;
                let (pf, pr) = (dr, df); // perpendicular
                let (f1, r1) = (f + 2 * df + pf, r + 2 * dr + pr);
                let (f2, r2) = (f + 2 * df - pf, r + 2 * dr - pr);
                if on_board(f1, r1) {
                    t.horse_to[sq][i] |= bit(r1 * 9 + f1);
                }
                if on_board(f2, r2) {
                    t.horse_to[sq][i] |= bit(r2 * 9 + f2);
                }
            }
            // Diagonal steps: advisor, elephant, reverse horse.
            let (dx, dy) = DIAG[i];
            if on_board(f + dx, r + dy) {
                t.diag_neighbours[sq] |= bit((r + dy) * 9 + f + dx);
                if in_palace(f, r) && in_palace(f + dx, r + dy) {
                    t.advisor[sq] |= bit((r + dy) * 9 + f + dx);
                }
                t.horse_rev_leg[sq][i] = ((r + dy) * 9 + f + dx) as u8;
                if on_board(f + 2 * dx, r + dy) {
                    t.horse_from[sq][i] |= bit((r + dy) * 9 + f + 2 * dx);
                }
                if on_board(f + dx, r + 2 * dy) {
                    t.horse_from[sq][i] |= bit((r + 2 * dy) * 9 + f + dx);
                }
                let (tf, tr) = (f + 2 * dx, r + 2 * dy);
                if on_board(tf, tr) && (tr <= 4) == (r <= 4) {
                    t.elephant_eye[sq][i] = ((r + dy) * 9 + f + dx) as u8;
                    t.elephant_to[sq][i] = bit(tr * 9 + tf);
                }
            }
            i += 1;
        }
        // Soldiers: forward; sideways once across the river.
        let mut c = 0;
        while c < 2 {
            let fwd = if c == 0 { 1 } else { -1 };
            let crossed = if c == 0 { r >= 5 } else { r <= 4 };
            let mut m = 0u128;
            if on_board(f, r + fwd) {
                m |= bit((r + fwd) * 9 + f);
            }
            if crossed {
                if f > 0 {
                    m |= bit(r * 9 + f - 1);
                }
                if f < 8 {
                    m |= bit(r * 9 + f + 1);
                }
            }
            t.soldier[c][sq] = m;
            c += 1;
        }
        sq += 1;
    }
    // Reverse soldier table.
    let mut c = 0;
    while c < 2 {
        let mut from = 0;
        while from < 90 {
            let mut to = 0;
            while to < 90 {
                if t.soldier[c][from] >> to & 1 != 0 {
                    t.soldier_from[c][to] |= bit(from as i32);
                }
                to += 1;
            }
            from += 1;
        }
        c += 1;
    }
    t
}

static LEAPERS: LeaperTables = build_leapers();

/// Orthogonal steps of a general on `sq`, inside the palace.
#[inline(always)]
pub fn general_attacks(sq: Square) -> Bitboard {
    Bitboard(LEAPERS.general[ix(sq)])
}

/// Diagonal steps of an advisor on `sq`, inside the palace.
#[inline(always)]
pub fn advisor_attacks(sq: Square) -> Bitboard {
    Bitboard(LEAPERS.advisor[ix(sq)])
}

/// Squares a soldier of `color` on `sq` attacks.
#[inline(always)]
pub fn soldier_attacks(color: Color, sq: Square) -> Bitboard {
    Bitboard(LEAPERS.soldier[color.index()][ix(sq)])
}

/// Squares from which a soldier of `color` would attack `sq`.
#[inline(always)]
pub fn soldier_attackers_of(color: Color, sq: Square) -> Bitboard {
    Bitboard(LEAPERS.soldier_from[color.index()][ix(sq)])
}

/// Squares a horse on `sq` attacks, given the occupancy (a blocked leg stops two targets).
#[inline(always)]
pub fn horse_attacks(sq: Square, occ: Bitboard) -> Bitboard {
    let legs = &LEAPERS.horse_leg[ix(sq)];
    let to = &LEAPERS.horse_to[ix(sq)];
    let mut bb = 0u128;
    for i in 0..4 {
        let free = (occ.0 >> (legs[i] & 127)) as u32 & 1 ^ 1;
        bb |= to[i] & (free as u128).wrapping_neg();
    }
    Bitboard(bb)
}

/// Squares from which a horse would attack `sq`, given the occupancy.
#[inline(always)]
pub fn horse_attackers_of(sq: Square, occ: Bitboard) -> Bitboard {
    let legs = &LEAPERS.horse_rev_leg[ix(sq)];
    let to = &LEAPERS.horse_from[ix(sq)];
    let mut bb = 0u128;
    for i in 0..4 {
        let free = (occ.0 >> (legs[i] & 127)) as u32 & 1 ^ 1;
        bb |= to[i] & (free as u128).wrapping_neg();
    }
    Bitboard(bb)
}

/// Squares an elephant on `sq` can move to, given the occupancy (a blocked eye stops it).
#[inline(always)]
pub fn elephant_attacks(sq: Square, occ: Bitboard) -> Bitboard {
    let legs = &LEAPERS.elephant_eye[ix(sq)];
    let to = &LEAPERS.elephant_to[ix(sq)];
    let mut bb = 0u128;
    for i in 0..4 {
        let free = (occ.0 >> (legs[i] & 127)) as u32 & 1 ^ 1;
        bb |= to[i] & (free as u128).wrapping_neg();
    }
    Bitboard(bb)
}

/// The two horse squares that attack `sq` through its diagonal neighbour number `i` (0..4),
/// and that neighbour.
#[inline(always)]
pub(crate) fn horse_attackers_through(sq: Square, i: usize) -> (Option<Square>, Bitboard) {
    let from = Bitboard(LEAPERS.horse_from[ix(sq)][i]);
    let leg = LEAPERS.horse_rev_leg[ix(sq)][i];
    (if from.any() { Square::new(leg) } else { None }, from)
}

/// The squares beyond `sq` in direction `dir` (0 north, 1 south, 2 east, 3 west).
#[inline(always)]
pub fn ray(sq: Square, dir: usize) -> Bitboard {
    Bitboard(LEAPERS.rays[ix(sq)][dir])
}

/// The up to four diagonal neighbours of `sq`.
#[inline(always)]
pub fn diagonal_neighbours(sq: Square) -> Bitboard {
    Bitboard(LEAPERS.diag_neighbours[ix(sq)])
}

/// The squares strictly between two squares on one rank or file (empty otherwise).
pub fn between(a: Square, b: Square) -> Bitboard {
    for dir in 0..4 {
        let r = ray(a, dir);
        if r.contains(b) {
            return r & !ray(b, dir) & !Bitboard::from_square(b);
        }
    }
    Bitboard::EMPTY
}

/// Squares a piece attacks from `sq` given the occupancy: for a cannon, its capture targets.
pub fn attacks(piece: Piece, sq: Square, occ: Bitboard) -> Bitboard {
    match piece.role {
        Role::General => general_attacks(sq),
        Role::Advisor => advisor_attacks(sq),
        Role::Elephant => elephant_attacks(sq, occ),
        Role::Horse => horse_attacks(sq, occ),
        Role::Chariot => chariot_attacks(sq, occ),
        Role::Cannon => cannon_attacks(sq, occ),
        Role::Soldier => soldier_attacks(piece.color, sq),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(s: &str) -> Square {
        s.parse().unwrap()
    }
    fn bb(list: &[&str]) -> Bitboard {
        list.iter().map(|s| sq(s)).collect()
    }

    #[test]
    fn file_bits_gathers_every_rank() {
        for f in 0..9u32 {
            for m in 0..1024usize {
                let mut occ = Bitboard::EMPTY;
                for r in 0..10 {
                    if m >> r & 1 != 0 {
                        occ.set(Square::new((r * 9 + f) as u8).unwrap());
                    }
                }
                // Noise on other files must not leak in.
                let noise = !Bitboard::file(crate::square::File::new(f as u8).unwrap());
                assert_eq!(
                    file_bits(
                        occ | (noise & Bitboard(0x5555_5555_5555_5555_5555_5555_5555_5555)),
                        f
                    ),
                    m
                );
            }
        }
    }

    #[test]
    fn sliders() {
        let occ = bb(&["e0", "e3", "e6", "e9", "b4", "h4"]);
        assert_eq!(
            chariot_attacks(sq("e4"), occ),
            bb(&["e3", "e5", "e6", "a4", "b4", "c4", "d4", "f4", "g4", "h4"]) & !bb(&["a4"])
        );
        assert_eq!(cannon_attacks(sq("e4"), occ), bb(&["e0", "e9"]));
        assert_eq!(cannon_attacks(sq("e3"), occ), bb(&["e9"]));
    }

    #[test]
    fn leapers() {
        assert_eq!(general_attacks(sq("e0")), bb(&["d0", "f0", "e1"]));
        assert_eq!(advisor_attacks(sq("e8")), bb(&["d9", "f9", "d7", "f7"]));
        assert_eq!(
            elephant_attacks(sq("c4"), Bitboard::EMPTY),
            bb(&["a2", "e2"])
        );
        assert_eq!(
            elephant_attacks(sq("e2"), bb(&["d1"])),
            bb(&["c4", "g4", "g0"])
        );
        assert_eq!(horse_attacks(sq("b0"), bb(&["b1"])), bb(&["d1"]));
        assert_eq!(soldier_attacks(Color::Red, sq("e3")), bb(&["e4"]));
        assert_eq!(
            soldier_attacks(Color::Red, sq("e5")),
            bb(&["e6", "d5", "f5"])
        );
        assert_eq!(soldier_attacks(Color::Black, sq("a4")), bb(&["a3", "b4"]));
        assert_eq!(soldier_attacks(Color::Red, sq("a9")), bb(&["b9"]));
    }

    #[test]
    fn reverse_horse_matches_forward() {
        let occs = [Bitboard::EMPTY, bb(&["e1", "d4", "f5", "c2", "g7", "e5"])];
        for occ in occs {
            for target in Square::all() {
                let expect: Bitboard = Square::all()
                    .filter(|&h| horse_attacks(h, occ).contains(target))
                    .collect();
                assert_eq!(horse_attackers_of(target, occ), expect, "{target}");
            }
        }
    }

    #[test]
    fn between_squares() {
        assert_eq!(between(sq("e0"), sq("e4")), bb(&["e1", "e2", "e3"]));
        assert_eq!(between(sq("a3"), sq("d3")), bb(&["b3", "c3"]));
        assert_eq!(between(sq("a3"), sq("d4")), Bitboard::EMPTY);
    }
}
