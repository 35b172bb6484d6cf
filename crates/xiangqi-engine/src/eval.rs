//! Static evaluation, in centipawns (a soldier on its own side of the river is about 100),
//! from the point of view of the side to move.
//!
//! Terms: material and piece-square values tapered between middlegame and endgame by the
//! attacking material left, mobility of chariots, horses and cannons, king safety (attackers
//! near the palace against the defenders left), and Xiangqi specifics: advisor/elephant
//! structure, crossed soldiers, cannons on the general's file (an empty-headed cannon with no
//! screen, a cannon with one screen), horses with blocked legs, and scaling of endgames where
//! the side ahead has nothing left to attack with.

use xiangqi::attacks;
use xiangqi::{Bitboard, Board, Color, Piece, Position, Role, Square};

/// The evaluation's tunable weights (centipawns unless said otherwise), indexed by the
/// `W_*` constants; [`Weights::DEFAULT`] is what the engine plays with. The Texel tuner
/// (`examples/texel.rs`) fits them to game results.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Weights(pub [i32; NW]);

macro_rules! weights {
    ($($idx:ident = $i:expr, $name:literal, $val:expr;)*) => {
        $(pub const $idx: usize = $i;)*
        /// Number of weights.
        pub const NW: usize = [$($i),*].len();
        /// The weights' names, for the tuner's output.
        pub const WEIGHT_NAMES: [&str; NW] = [$($name),*];
        impl Weights {
            pub const DEFAULT: Weights = Weights([$($val),*]);
        }
    };
}

// Values: Texel-tuned (`examples/texel.rs`) on 44,518 quiet positions of 744 games (our
// engine's self-play at 5,000 nodes a move and its games against Fairy-Stockfish, plus the
// human games of shared/data/records), then scaled by 0.75 so that a chariot stays 900 in
// the middlegame (the search's margins are in those units). Held-out loss 0.1063 -> 0.0992.
// Tempo is not tuned. docs/STRENGTH.md has the runs and the matches that accepted them.
weights! {
    W_ADVISOR_MG = 0, "advisor mg", 142;
    W_ADVISOR_EG = 1, "advisor eg", 128;
    W_ELEPHANT_MG = 2, "elephant mg", 142;
    W_ELEPHANT_EG = 3, "elephant eg", 128;
    W_HORSE_MG = 4, "horse mg", 341;
    W_HORSE_EG = 5, "horse eg", 401;
    W_CHARIOT_MG = 6, "chariot mg", 900;
    W_CHARIOT_EG = 7, "chariot eg", 938;
    W_CANNON_MG = 8, "cannon mg", 562;
    W_CANNON_EG = 9, "cannon eg", 345;
    W_SOLDIER_MG = 10, "soldier mg", 30;
    W_SOLDIER_EG = 11, "soldier eg", 180;
    W_CROSSED_MG = 12, "crossed soldier mg", 52;
    W_CROSSED_EG = 13, "crossed soldier eg", 60;
    W_CHARIOT_MOB_MG = 14, "chariot mobility mg", 7;
    W_CHARIOT_MOB_EG = 15, "chariot mobility eg", 12;
    W_HORSE_MOB_MG = 16, "horse mobility mg", 28;
    W_HORSE_MOB_EG = 17, "horse mobility eg", -5;
    W_HORSE_BLOCKED = 18, "horse blocked (% of 40/20/8)", 56;
    W_CANNON_MOB = 19, "cannon mobility", -1;
    W_EMPTY_CANNON_MG = 20, "empty-headed cannon mg", 81;
    W_EMPTY_CANNON_EG = 21, "empty-headed cannon eg", -30;
    W_SCREEN_ENEMY_MG = 22, "cannon, enemy screen mg", 19;
    W_SCREEN_ENEMY_EG = 23, "cannon, enemy screen eg", 8;
    W_SCREEN_OWN_MG = 24, "cannon, own screen mg", 9;
    W_SCREEN_OWN_EG = 25, "cannon, own screen eg", 4;
    W_SCREEN_TWO = 26, "cannon, two screens mg", 50;
    W_OPEN_FILE_MG = 27, "chariot open file mg", 27;
    W_OPEN_FILE_EG = 28, "chariot open file eg", -23;
    W_DANGER = 29, "king danger (%)", 176;
    W_ADVISOR_PAIR_MG = 30, "advisor pair mg", -38;
    W_ADVISOR_PAIR_EG = 31, "advisor pair eg", -34;
    W_ELEPHANT_PAIR_MG = 32, "elephant pair mg", 24;
    W_ELEPHANT_PAIR_EG = 33, "elephant pair eg", -38;
    W_GENERAL_OFF_FILE = 34, "general off the e-file mg", -50;
    W_TEMPO = 35, "tempo", 10;
    W_PST_MG = 36, "piece-square scale mg (%)", 131;
    W_PST_EG = 37, "piece-square scale eg (%)", 4;
}

/// Material values (middlegame, endgame) by role under the weights `w`.
const fn material(w: &Weights) -> [(i32, i32); 7] {
    let v = &w.0;
    [
        (0, 0),
        (v[W_ADVISOR_MG], v[W_ADVISOR_EG]),
        (v[W_ELEPHANT_MG], v[W_ELEPHANT_EG]),
        (v[W_HORSE_MG], v[W_HORSE_EG]),
        (v[W_CHARIOT_MG], v[W_CHARIOT_EG]),
        (v[W_CANNON_MG], v[W_CANNON_EG]),
        (v[W_SOLDIER_MG], v[W_SOLDIER_EG]),
    ]
}

/// A rough value of each role for move ordering and exchange evaluation.
pub const SEE_VALUE: [i32; 7] = [10000, 190, 190, 420, 920, 440, 100];

/// Game phase weight of each role; the start position has `PHASE_MAX`.
pub const PHASE: [i32; 7] = [0, 0, 0, 2, 4, 2, 0];
/// The phase of the start position (and of any position with more attacking material).
pub const PHASE_MAX: i32 = 32;

/// The bonus for having the move.
#[cfg(test)]
const TEMPO: i32 = Weights::DEFAULT.0[W_TEMPO];

/// The value of a draw.
pub const DRAW: i32 = 0;

type Pair = (i32, i32);

fn add(a: &mut Pair, b: Pair, sign: i32) {
    a.0 += sign * b.0;
    a.1 += sign * b.1;
}

const fn min(a: i32, b: i32) -> i32 {
    if a < b {
        a
    } else {
        b
    }
}

/// Piece-square bonus for a piece of `color` and `role` on `sq`, as (mg, eg).
const fn pst(color: Color, role: Role, sq: Square) -> Pair {
    let rel = sq.rank().relative_to(color) as i32; // 0 = own back rank
    let f = sq.file().index() as i32;
    let centre = 4 - (f - 4).abs(); // 0 at the edge, 4 on the e-file
    match role {
        Role::General => {
            // Stay home: every step up or sideways exposes the general.
            let up = -12 * rel;
            let side = if f == 4 { 0 } else { -6 };
            (up + side, rel * 2)
        }
        Role::Advisor => {
            if f == 4 {
                (8, 4)
            } else {
                (0, 0)
            }
        }
        Role::Elephant => {
            if f == 4 && rel == 2 {
                (10, 5)
            } else if rel == 4 {
                (-8, -4)
            } else {
                (0, 0)
            }
        }
        Role::Horse => {
            let mut mg = centre * 5 + min(rel, 7) * 6;
            if f == 0 || f == 8 {
                mg -= 20;
            }
            // Horses near the enemy palace threaten mate.
            if rel >= 6 && rel <= 8 && f >= 2 && f <= 6 {
                mg += 25;
            }
            if rel == 9 {
                mg -= 20;
            }
            (mg, mg / 2 + centre * 4)
        }
        Role::Chariot => {
            let mut mg = centre * 2;
            if rel == 6 || rel == 7 {
                mg += 20;
            }
            if rel >= 3 {
                mg += 8;
            }
            (mg, mg / 2)
        }
        Role::Cannon => {
            let mut mg = 0;
            if f == 4 {
                mg += 18;
            }
            if rel == 2 || rel == 3 {
                mg += 6;
            }
            if rel == 9 {
                mg += 10;
            }
            (mg, min(rel, 6))
        }
        Role::Soldier => {
            if rel <= 4 {
                let mg = if rel == 4 { 10 } else { 0 };
                (mg + if f == 4 { 6 } else { 0 }, mg)
            } else if rel == 9 {
                // An old soldier on the last rank can only move sideways.
                (20, 30)
            } else {
                // Plus the flat crossed-soldier weight, added in `evaluate_with`.
                let mg = centre * 8 + (rel - 5) * 14;
                let eg = centre * 12 + (rel - 5) * 16;
                (mg, eg)
            }
        }
    }
}

/// Piece-square value of every piece on every point, from its owner's view (mg, eg),
/// indexed by `Piece::index()` and square.
static PIECE_SQUARE: [[Pair; 90]; 14] = build_piece_square().0;

/// Number of piece-square slots of [`PST_DELTA`]: by role, rank counted from the owner's
/// back rank and file folded onto a-e (the board is symmetric left to right).
pub const PST_SLOTS: usize = 7 * 50;

/// The slot of [`PST_DELTA`] for a piece of `color` and `role` on `sq`.
pub const fn pst_slot(color: Color, role: Role, sq: Square) -> usize {
    let rel = sq.rank().relative_to(color) as usize;
    let f = sq.file().index() as usize;
    let folded = if f > 4 { 8 - f } else { f };
    role.index() * 50 + rel * 5 + folded
}

/// Per-square corrections (mg, eg) added to the hand-written piece-square values, fitted to
/// game results (`examples/texel.rs tune-pst`); indexed by [`pst_slot`].
pub const PST_DELTA: [(i16, i16); PST_SLOTS] = include!("pst_delta.rs");

/// [`PST_DELTA`] by `Piece::index()` and square.
static DELTA_SQUARE: [[Pair; 90]; 14] = build_piece_square().1;

/// The hand-written values and the fitted corrections, by `Piece::index()` and square.
#[allow(clippy::type_complexity)]
const fn build_piece_square() -> ([[Pair; 90]; 14], [[Pair; 90]; 14]) {
    let mut t = [[(0, 0); 90]; 14];
    let mut d = [[(0, 0); 90]; 14];
    let mut p = 0;
    while p < 14 {
        let piece = Piece::from_index(p);
        let mut s = 0;
        while s < 90 {
            let sq = Square::new_unchecked(s as u8);
            t[p][s] = pst(piece.color, piece.role, sq);
            let delta = PST_DELTA[pst_slot(piece.color, piece.role, sq)];
            d[p][s] = (delta.0 as i32, delta.1 as i32);
            s += 1;
        }
        p += 1;
    }
    (t, d)
}

/// Evaluates `pos` for the side to move.
#[inline]
pub fn evaluate(pos: &Position) -> i32 {
    evaluate_with(pos, &Weights::DEFAULT)
}

/// Evaluates `pos` for the side to move with the weights `w`.
#[inline(always)]
pub fn evaluate_with(pos: &Position, w: &Weights) -> i32 {
    let material = material(w);
    let wv = &w.0;
    let b = pos.board();
    let mut total: Pair = (0, 0);
    let mut phase = 0;
    let mut attack_material = [0i32; 2];
    let mut defenders = [0i32; 2];
    let occ = b.occupied();

    for color in Color::ALL {
        let sign = if color == Color::Red { 1 } else { -1 };
        let c = color.index();
        let own_half = match color {
            Color::Red => Bitboard::RED_HALF,
            Color::Black => Bitboard::BLACK_HALF,
        };
        for role in Role::ALL {
            let piece = Piece::new(color, role);
            let bb = b.by_piece(piece);
            if bb.is_empty() {
                continue;
            }
            let n = bb.count() as i32;
            let table = &PIECE_SQUARE[piece.index()];
            let delta = &DELTA_SQUARE[piece.index()];
            let mut sq_total: Pair = (0, 0);
            let mut delta_total: Pair = (0, 0);
            for sq in bb {
                add(&mut sq_total, table[sq.index()], 1);
                add(&mut delta_total, delta[sq.index()], 1);
            }
            let m = material[role.index()];
            add(
                &mut total,
                (
                    m.0 * n + sq_total.0 * wv[W_PST_MG] / 100 + delta_total.0,
                    m.1 * n + sq_total.1 * wv[W_PST_EG] / 100 + delta_total.1,
                ),
                sign,
            );
            phase += PHASE[role.index()] * n;
            match role {
                Role::Chariot | Role::Horse | Role::Cannon => {
                    attack_material[c] += material[role.index()].1 * n
                }
                Role::Soldier => {
                    let home = (bb & own_half).count() as i32;
                    let crossed = n - home;
                    add(
                        &mut total,
                        (wv[W_CROSSED_MG] * crossed, wv[W_CROSSED_EG] * crossed),
                        sign,
                    );
                    attack_material[c] += 60 * home + 100 * crossed;
                }
                Role::Advisor | Role::Elephant => defenders[c] += n,
                Role::General => {}
            }
        }
    }

    for color in Color::ALL {
        let sign = if color == Color::Red { 1 } else { -1 };
        add(&mut total, side_terms(b, color, occ, wv), sign);
    }

    let phase = phase.min(PHASE_MAX);
    let mut score = (total.0 * phase + total.1 * (PHASE_MAX - phase)) / PHASE_MAX;

    // Endgame scaling: a side with nothing to attack with cannot win.
    let strong = if score > 0 { Color::Red } else { Color::Black };
    let sa = attack_material[strong.index()];
    if sa == 0 {
        score /= 16;
    } else if sa <= 120 && defenders[(!strong).index()] >= 2 {
        // A lone soldier against a defended palace is mostly a draw.
        score /= 4;
    }

    // From the side to move's point of view, with a small bonus for having the move.
    match pos.turn() {
        Color::Red => score + wv[W_TEMPO],
        Color::Black => -score + wv[W_TEMPO],
    }
}

/// Mobility, king safety and structure terms for one side, as (mg, eg).
#[inline(always)]
fn side_terms(b: &Board, us: Color, occ: Bitboard, w: &[i32; NW]) -> Pair {
    let them = !us;
    let own = b.by_color(us);
    let enemy = b.by_color(them);
    let mut s: Pair = (0, 0);
    let their_k = b.general(them).unwrap_or(Square::E9);
    let our_k = b.general(us).unwrap_or(Square::E0);
    let their_palace = palace(them);
    let mut attackers = 0;
    let mut attack_weight = 0;

    // Squares attacked by the enemy's soldiers: unsafe for our horses to land on.
    let mut soldier_att = Bitboard::EMPTY;
    for sq in b.by_piece(Piece::new(them, Role::Soldier)) {
        soldier_att |= attacks::soldier_attacks(them, sq);
    }

    for sq in b.by_piece(Piece::new(us, Role::Chariot)) {
        let a = attacks::chariot_attacks(sq, occ);
        let mob = (a & !own).count() as i32;
        add(
            &mut s,
            (
                w[W_CHARIOT_MOB_MG] * mob - 20,
                w[W_CHARIOT_MOB_EG] * mob - 15,
            ),
            1,
        );
        if (a & their_palace).any() {
            attackers += 1;
            attack_weight += 4;
        }
        // A chariot on an open file (no soldier of ours ahead of it).
        if (Bitboard::file(sq.file()) & b.by_piece(Piece::new(us, Role::Soldier))).is_empty() {
            add(&mut s, (w[W_OPEN_FILE_MG], w[W_OPEN_FILE_EG]), 1);
        }
    }
    for sq in b.by_piece(Piece::new(us, Role::Horse)) {
        let a = attacks::horse_attacks(sq, occ);
        let mob = (a & !own & !soldier_att).count() as i32;
        // A horse with its legs blocked is a poor piece.
        let pen = match mob {
            0 => -40,
            1 => -20,
            2 => -8,
            _ => 0,
        } * w[W_HORSE_BLOCKED]
            / 100;
        add(
            &mut s,
            (w[W_HORSE_MOB_MG] * mob + pen, w[W_HORSE_MOB_EG] * mob + pen),
            1,
        );
        if (a & their_palace).any() {
            attackers += 1;
            attack_weight += 3;
        }
    }
    for sq in b.by_piece(Piece::new(us, Role::Cannon)) {
        let quiet = attacks::slide_quiets(sq, occ).count() as i32;
        add(
            &mut s,
            (w[W_CANNON_MOB] * quiet, w[W_CANNON_MOB] * quiet),
            1,
        );
        let caps = attacks::cannon_attacks(sq, occ);
        if (caps & their_palace).any() {
            attackers += 1;
            attack_weight += 2;
        }
        if sq.file() == their_k.file() {
            let between = attacks::between(sq, their_k) & occ;
            match between.count() {
                // Empty-headed cannon: the general cannot leave its file safely and its
                // advisors/elephants cannot step in front without becoming a screen.
                0 => add(&mut s, (w[W_EMPTY_CANNON_MG], w[W_EMPTY_CANNON_EG]), 1),
                // One screen: the screen is pinned (a real threat if it is the enemy's own piece).
                1 => {
                    let screen = between.first().expect("one square");
                    if enemy.contains(screen) {
                        add(&mut s, (w[W_SCREEN_ENEMY_MG], w[W_SCREEN_ENEMY_EG]), 1);
                    } else {
                        add(&mut s, (w[W_SCREEN_OWN_MG], w[W_SCREEN_OWN_EG]), 1);
                    }
                }
                2 => add(&mut s, (w[W_SCREEN_TWO], 0), 1),
                _ => {}
            }
        }
    }
    for sq in b.by_piece(Piece::new(us, Role::Soldier)) {
        let rel = sq.rank().relative_to(us);
        if rel >= 5 && (attacks::soldier_attacks(us, sq) & their_palace).any() {
            attackers += 1;
            attack_weight += 2;
        }
    }

    // King safety of the enemy: attackers against its remaining defenders.
    let their_adv = b.count(Piece::new(them, Role::Advisor)) as i32;
    let their_ele = b.count(Piece::new(them, Role::Elephant)) as i32;
    if attackers >= 2 {
        let missing = (2 - their_adv) * 2 + (2 - their_ele);
        let danger = attack_weight * (4 + missing) * attackers * w[W_DANGER] / 100;
        add(&mut s, (danger, danger / 3), 1);
    }

    // Our own structure: paired advisors and elephants defend each other.
    let adv = b.count(Piece::new(us, Role::Advisor)) as i32;
    let ele = b.count(Piece::new(us, Role::Elephant)) as i32;
    if adv == 2 {
        add(&mut s, (w[W_ADVISOR_PAIR_MG], w[W_ADVISOR_PAIR_EG]), 1);
    }
    if ele == 2 {
        let es = b.by_piece(Piece::new(us, Role::Elephant));
        let first = es.first().expect("two elephants");
        if (attacks::elephant_attacks(first, occ) & es).any() {
            add(&mut s, (w[W_ELEPHANT_PAIR_MG], w[W_ELEPHANT_PAIR_EG]), 1);
        }
    }
    // The general off its file with our pieces on the file ahead is boxed in; in the
    // middlegame prefer the general at home on the e-file.
    if our_k.file().index() != 4 && (b.by_piece(Piece::new(them, Role::Chariot))).any() {
        add(&mut s, (w[W_GENERAL_OFF_FILE], 0), 1);
    }
    s
}

/// The nine palace points of `color`.
fn palace(color: Color) -> Bitboard {
    // d0-f0, d1-f1, d2-f2 and their mirror images on ranks 7-9.
    const RED: u128 = (0b111 << 3) | (0b111 << 12) | (0b111 << 21);
    const BLACK: u128 = (0b111 << 66) | (0b111 << 75) | (0b111 << 84);
    match color {
        Color::Red => Bitboard(RED),
        Color::Black => Bitboard(BLACK),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_position_is_balanced() {
        let pos = Position::new();
        let red = evaluate(&pos);
        let mut p = pos.clone();
        p.play_null();
        let black = evaluate(&p);
        // The same position for either side to move, up to the tempo bonus.
        assert_eq!((red, black), (TEMPO, TEMPO));
    }

    #[test]
    fn symmetric_under_colour_swap_and_mirror() {
        let fens = [
            "r1bakab1r/9/1cn3nc1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C1N2/9/RNBAKAB1R b - - 2 2",
            "3k5/4a4/9/9/2P6/9/9/9/4A4/4K4 w - - 0 1",
            "2bak4/4a4/4b4/4R4/9/9/9/4C4/9/3K5 w - - 0 1",
        ];
        for fen in fens {
            let pos = Position::from_fen(fen).unwrap();
            let e = evaluate(&pos);
            assert_eq!(e, evaluate(&pos.swap_colors()), "{fen}");
            assert_eq!(e, evaluate(&pos.flip_horizontal()), "{fen}");
        }
    }

    /// Red minus Black evaluation of a position given with Red to move.
    fn red(fen: &str) -> i32 {
        evaluate(&Position::from_fen(fen).unwrap())
    }

    #[test]
    fn xiangqi_terms_point_the_right_way() {
        // An empty-headed cannon (on the general's file, nothing between) beats the same
        // cannon on another file.
        let empty = red("r2k4r/9/9/9/9/9/9/3C5/9/R3K3R w - - 0 1");
        let aside = red("r2k4r/9/9/9/9/9/9/2C6/9/R3K3R w - - 0 1");
        assert!(empty > aside + 20, "{empty} {aside}");
        // A soldier across the river is worth more than one at home.
        let crossed = red("3k5/9/9/9/4P4/9/9/9/9/4K4 w - - 0 1");
        let home = red("3k5/9/9/9/9/9/4P4/9/9/4K4 w - - 0 1");
        assert!(crossed > home + 10, "{crossed} {home}");
        // Without advisors the black general suffers from four attackers by more than the
        // advisors' material (about 355 at this phase).
        let safe = red("3aka3/R8/8R/3N1N3/9/9/9/9/9/3K5 w - - 0 1");
        let bare = red("4k4/R8/8R/3N1N3/9/9/9/9/9/3K5 w - - 0 1");
        assert!(bare > safe + 420, "{safe} {bare}");
    }

    #[test]
    fn palace_points() {
        for c in Color::ALL {
            let expect: Bitboard = Square::all()
                .filter(|s| s.in_palace() && s.rank().half() == c)
                .collect();
            assert_eq!(palace(c), expect);
        }
    }

    #[test]
    fn material_matters() {
        // Red has an extra chariot.
        let pos = Position::from_fen("3k5/9/9/9/9/9/9/9/9/R3K4 w - - 0 1").unwrap();
        assert!(evaluate(&pos) > 700);
        let pos = Position::from_fen("3k5/9/9/9/9/9/9/9/9/R3K4 b - - 0 1").unwrap();
        assert!(evaluate(&pos) < -700);
    }
}
