//! Legal move generation.
//!
//! Moves are generated legal, not pseudo-legal-then-filtered: before generating, the
//! generator works out which points can matter for the safety of the side to move's general
//! (the rays from the general that hold an enemy chariot, cannon or the enemy general, and the
//! horse legs next to it that an enemy horse is waiting behind). A move that neither leaves
//! nor enters those points cannot expose the general, so whole target sets are accepted at
//! once; only the few moves that touch them are tested by looking at the general's attackers
//! with the move applied. Counting (perft) then needs no per-move work for most moves.

use core::ops::{Deref, DerefMut};

use crate::attacks;
use crate::bitboard::Bitboard;
use crate::position::Position;
use crate::square::{File, Square};
use crate::types::{Color, Move, Role};

/// The legal moves of a position: a fixed-capacity list (no position has more than 128).
#[derive(Clone)]
pub struct MoveList {
    moves: [Move; MoveList::CAPACITY],
    len: usize,
}

impl MoveList {
    pub const CAPACITY: usize = 128;

    pub fn new() -> MoveList {
        MoveList {
            moves: [Move::new(Square::A0, Square::A0); MoveList::CAPACITY],
            len: 0,
        }
    }
    #[inline(always)]
    pub fn push(&mut self, m: Move) {
        debug_assert!(self.len < MoveList::CAPACITY);
        if self.len < MoveList::CAPACITY {
            self.moves[self.len] = m;
            self.len += 1;
        }
    }
    pub fn clear(&mut self) {
        self.len = 0;
    }
    pub fn truncate(&mut self, len: usize) {
        self.len = self.len.min(len);
    }
    pub fn swap_remove(&mut self, i: usize) -> Move {
        let m = self.moves[i];
        self.len -= 1;
        self.moves[i] = self.moves[self.len];
        m
    }
}

impl Default for MoveList {
    fn default() -> MoveList {
        MoveList::new()
    }
}

impl Deref for MoveList {
    type Target = [Move];
    #[inline(always)]
    fn deref(&self) -> &[Move] {
        &self.moves[..self.len]
    }
}

impl DerefMut for MoveList {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut [Move] {
        &mut self.moves[..self.len]
    }
}

impl core::fmt::Debug for MoveList {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<'a> IntoIterator for &'a MoveList {
    type Item = &'a Move;
    type IntoIter = core::slice::Iter<'a, Move>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// Receives generated moves.
trait Sink {
    fn add(&mut self, m: Move);
    /// Every square of `to` is a legal target for the piece on `from`.
    fn add_many(&mut self, from: Square, to: Bitboard);
    /// Every square `t` of `to` is a legal target for the piece on `t - delta`.
    fn add_shifted(&mut self, to: Bitboard, delta: i32);
}

impl Sink for MoveList {
    #[inline(always)]
    fn add(&mut self, m: Move) {
        self.push(m);
    }
    #[inline(always)]
    fn add_many(&mut self, from: Square, to: Bitboard) {
        for t in to {
            self.push(Move::new(from, t));
        }
    }
    #[inline(always)]
    fn add_shifted(&mut self, to: Bitboard, delta: i32) {
        for t in to {
            let from = Square::new_unchecked((t.index() as i32 - delta) as u8);
            self.push(Move::new(from, t));
        }
    }
}

struct Counter(usize);

impl Sink for Counter {
    #[inline(always)]
    fn add(&mut self, _m: Move) {
        self.0 += 1;
    }
    #[inline(always)]
    fn add_many(&mut self, _from: Square, to: Bitboard) {
        self.0 += to.count() as usize;
    }
    #[inline(always)]
    fn add_shifted(&mut self, to: Bitboard, _delta: i32) {
        self.0 += to.count() as usize;
    }
}

/// What one generation pass needs to know about the general's safety.
struct Safety {
    us: Color,
    general: Square,
    occ: Bitboard,
    in_check: bool,
    /// Our pieces whose moves need a test: those pinned to the general along a line (by a
    /// chariot, the enemy general, or a cannon with two screens) and those standing on a horse
    /// leg next to the general with an enemy horse behind it.
    sensitive: Bitboard,
    /// Empty points between the general and an enemy cannon facing it with nothing in
    /// between: a piece arriving there would become the cannon's screen.
    screens: Bitboard,
    enemy_rk: Bitboard,
    enemy_cannons: Bitboard,
    enemy_horses: Bitboard,
}

/// The nearest square of `bb` (non-empty) along ray direction `dir` from the ray's origin.
#[inline(always)]
fn nearest(bb: Bitboard, dir: usize) -> Square {
    let i = if dir == 0 || dir == 2 {
        bb.0.trailing_zeros()
    } else {
        127 - bb.0.leading_zeros()
    };
    Square::new_unchecked(i as u8)
}

impl Position {
    #[inline(always)]
    fn safety(&self) -> Safety {
        let us = self.turn();
        let them = !us;
        let b = self.board();
        let k = self.general(us);
        let occ = b.occupied();
        let own = b.by_color(us);
        let enemy = b.by_color(them);
        let chariots = b.by_role(Role::Chariot) & enemy;
        let cannons = b.by_role(Role::Cannon) & enemy;
        let horses = b.by_role(Role::Horse) & enemy;
        let enemy_rk = chariots | b.by_role(Role::General) & enemy;
        let mut sensitive = Bitboard::EMPTY;
        let mut screens = Bitboard::EMPTY;
        let mut in_check = false;
        for dir in 0..4 {
            let ray = attacks::ray(k, dir);
            // The enemy general only attacks along the file; on a rank it is just a piece.
            let rk = if dir < 2 { enemy_rk } else { chariots };
            if (ray & (rk | cannons)).is_empty() {
                continue;
            }
            let mut blockers = ray & occ;
            let b1 = nearest(blockers, dir);
            if rk.contains(b1) {
                in_check = true;
                continue;
            }
            if cannons.contains(b1) {
                screens |= attacks::between(k, b1);
            }
            blockers.clear(b1);
            if blockers.is_empty() {
                continue;
            }
            let b2 = nearest(blockers, dir);
            if cannons.contains(b2) {
                in_check = true;
                continue;
            }
            if rk.contains(b2) {
                sensitive |= Bitboard::from_square(b1) & own;
                continue;
            }
            blockers.clear(b2);
            if blockers.any() && cannons.contains(nearest(blockers, dir)) {
                sensitive |= (Bitboard::from_square(b1) | Bitboard::from_square(b2)) & own;
            }
        }
        if (horses & HORSE_ZONE[k.index() & 127]).any() {
            for i in 0..4 {
                let (leg, from) = attacks::horse_attackers_through(k, i);
                if let Some(leg) = leg {
                    if (from & horses).any() {
                        if occ.contains(leg) {
                            sensitive |= Bitboard::from_square(leg) & own;
                        } else {
                            in_check = true;
                        }
                    }
                }
            }
        }
        if !in_check {
            in_check =
                (attacks::soldier_attackers_of(them, k) & b.by_role(Role::Soldier) & enemy).any();
        }
        Safety {
            us,
            general: k,
            occ,
            in_check,
            sensitive,
            screens,
            enemy_rk,
            enemy_cannons: cannons,
            enemy_horses: horses,
        }
    }

    /// Whether the general of the side to move (on `k` after the move) is safe when the
    /// occupancy is `occ` and any enemy piece on `to` has been captured.
    #[inline(never)]
    fn general_safe(&self, us: Color, k: Square, occ: Bitboard, to: Square) -> bool {
        let b = self.board();
        let enemy = b.by_color(!us).without(to);
        let rk = (b.by_role(Role::Chariot) | b.by_role(Role::General)) & enemy;
        let cannons = b.by_role(Role::Cannon) & enemy;
        let (r, c) = attacks::slider_attacks(k, occ);
        if (r & rk).any() || (c & cannons).any() {
            return false;
        }
        let horses = b.by_role(Role::Horse) & enemy;
        if (horses & HORSE_ZONE[k.index() & 127]).any()
            && (attacks::horse_attackers_of(k, occ) & horses).any()
        {
            return false;
        }
        (attacks::soldier_attackers_of(!us, k) & b.by_role(Role::Soldier) & enemy).is_empty()
    }

    /// Safety of a move of a sensitive piece (not the general) when not in check: only lines
    /// through the general and horse legs next to it can change.
    #[inline(never)]
    fn line_or_leg_safe(&self, s: &Safety, from: Square, to: Square) -> bool {
        let k = s.general;
        let occ = s.occ.without(from).with(to);
        let keep = !Bitboard::from_square(to);
        if from.file() == k.file()
            || to.file() == k.file()
            || from.rank() == k.rank()
            || to.rank() == k.rank()
        {
            let (r, c) = attacks::slider_attacks(k, occ);
            if (r & s.enemy_rk & keep).any() || (c & s.enemy_cannons & keep).any() {
                return false;
            }
        }
        (attacks::horse_attackers_of(k, occ) & s.enemy_horses & keep).is_empty()
    }

    /// Emits the moves to `targets` from `from` that leave the general safe (full test).
    #[inline(never)]
    fn emit_tested<S: Sink>(&self, s: &Safety, from: Square, targets: Bitboard, sink: &mut S) {
        let occ = s.occ.without(from);
        for to in targets {
            if self.general_safe(s.us, s.general, occ.with(to), to) {
                sink.add(Move::new(from, to));
            }
        }
    }

    /// Emits the moves of the pieces `pieces`, whose targets `targets(from)` gives.
    #[inline(always)]
    fn emit_role<S: Sink>(
        &self,
        s: &Safety,
        pieces: Bitboard,
        targets: impl Fn(Square) -> Bitboard,
        sink: &mut S,
    ) {
        if s.in_check {
            for from in pieces {
                self.emit_tested(s, from, targets(from), sink);
            }
            return;
        }
        for from in pieces & !s.sensitive {
            sink.add_many(from, targets(from) & !s.screens);
        }
        for from in pieces & s.sensitive {
            for to in targets(from) {
                if self.line_or_leg_safe(s, from, to) {
                    sink.add(Move::new(from, to));
                }
            }
        }
    }

    fn generate<S: Sink>(&self, sink: &mut S) {
        let s = self.safety();
        let b = self.board();
        let us = s.us;
        let occ = s.occ;
        let own = b.by_color(us);
        let enemy = b.by_color(!us);
        let not_own = !own;

        let chariots = b.by_role(Role::Chariot) & own;
        self.emit_role(
            &s,
            chariots,
            |f| attacks::chariot_attacks(f, occ) & not_own,
            sink,
        );
        let cannons = b.by_role(Role::Cannon) & own;
        self.emit_role(
            &s,
            cannons,
            |f| {
                let (quiets, captures) = attacks::cannon_moves(f, occ);
                quiets | captures & enemy
            },
            sink,
        );
        let horses = b.by_role(Role::Horse) & own;
        self.emit_role(
            &s,
            horses,
            |f| attacks::horse_attacks(f, occ) & not_own,
            sink,
        );
        let soldiers = b.by_role(Role::Soldier) & own;
        if s.in_check {
            self.emit_role(
                &s,
                soldiers,
                |f| attacks::soldier_attacks(us, f) & not_own,
                sink,
            );
        } else {
            // Soldiers that cannot expose the general move as one set, by shifting.
            self.emit_role(
                &s,
                soldiers & s.sensitive,
                |f| attacks::soldier_attacks(us, f) & not_own,
                sink,
            );
            let free = soldiers & !s.sensitive;
            let (forward, delta, crossed) = match us {
                Color::Red => (Bitboard(free.0 << 9), 9, free & Bitboard::BLACK_HALF),
                Color::Black => (Bitboard(free.0 >> 9), -9, free & Bitboard::RED_HALF),
            };
            let left = Bitboard((crossed & !Bitboard::file(File::A)).0 >> 1);
            let right = Bitboard((crossed & !Bitboard::file(File::I)).0 << 1);
            for (targets, delta) in [(forward, delta), (left, -1), (right, 1)] {
                sink.add_shifted(targets & not_own & !s.screens, delta);
            }
        }
        let elephants = b.by_role(Role::Elephant) & own;
        self.emit_role(
            &s,
            elephants,
            |f| attacks::elephant_attacks(f, occ) & not_own,
            sink,
        );
        let advisors = b.by_role(Role::Advisor) & own;
        self.emit_role(
            &s,
            advisors,
            |f| attacks::advisor_attacks(f) & not_own,
            sink,
        );
        // The general: every target is tested.
        let k = s.general;
        let occ_k = occ.without(k);
        for to in attacks::general_attacks(k) & not_own {
            if self.general_safe(us, to, occ_k.with(to), to) {
                sink.add(Move::new(k, to));
            }
        }
    }

    /// All legal moves.
    pub fn legal_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        self.generate(&mut list);
        list
    }

    /// Fills `list` with the legal moves (clearing it first).
    pub fn legal_moves_into(&self, list: &mut MoveList) {
        list.clear();
        self.generate(list);
    }

    /// The number of legal moves, counted without listing them.
    pub fn count_legal_moves(&self) -> usize {
        let mut c = Counter(0);
        self.generate(&mut c);
        c.0
    }

    /// Whether the side to move has no legal move (a loss: checkmate or stalemate).
    pub fn has_no_legal_move(&self) -> bool {
        self.count_legal_moves() == 0
    }
    /// Checkmate: in check with no legal move.
    pub fn is_checkmate(&self) -> bool {
        self.is_check() && self.has_no_legal_move()
    }
    /// Stalemate: not in check, with no legal move (a loss in Xiangqi).
    pub fn is_stalemate(&self) -> bool {
        !self.is_check() && self.has_no_legal_move()
    }

    /// The targets the piece on `from` could move to if the safety of its own general were
    /// no concern (pseudo-legal targets); empty if `from` holds no piece of the side to move.
    pub fn pseudo_targets(&self, from: Square) -> Bitboard {
        let b = self.board();
        let Some(piece) = b.piece_at(from) else {
            return Bitboard::EMPTY;
        };
        let occ = b.occupied();
        let own = b.by_color(piece.color);
        let enemy = b.by_color(!piece.color);
        match piece.role {
            Role::Cannon => {
                attacks::slide_quiets(from, occ) | attacks::cannon_attacks(from, occ) & enemy
            }
            _ => attacks::attacks(piece, from, occ) & !own,
        }
    }

    /// Whether `m` is legal in this position.
    pub fn is_legal(&self, m: Move) -> bool {
        let from = m.from();
        let to = m.to();
        match self.piece_at(from) {
            Some(p) if p.color == self.turn() => {
                if !self.pseudo_targets(from).contains(to) {
                    return false;
                }
                let occ = self.board().occupied().without(from).with(to);
                let k = if p.role == Role::General {
                    to
                } else {
                    self.general(p.color)
                };
                self.general_safe(p.color, k, occ, to)
            }
            _ => false,
        }
    }

    /// Whether the move would leave the enemy general attacked (gives check). `m` must be legal.
    pub fn gives_check(&self, m: Move) -> bool {
        let mut after = self.clone();
        after.play_unchecked(m);
        after.is_check()
    }
}

const fn build_horse_zone() -> [Bitboard; 128] {
    // Squares within a horse's jump of each square: a cheap pre-filter.
    let mut t = [Bitboard::EMPTY; 128];
    let jumps = [
        (1, 2),
        (2, 1),
        (-1, 2),
        (-2, 1),
        (1, -2),
        (2, -1),
        (-1, -2),
        (-2, -1),
    ];
    let mut sq = 0;
    while sq < 90 {
        let f = (sq % 9) as i32;
        let r = (sq / 9) as i32;
        let mut i = 0;
        let mut bits = 0u128;
        while i < 8 {
            let (df, dr) = jumps[i];
            let (nf, nr) = (f + df, r + dr);
            if nf >= 0 && nf < 9 && nr >= 0 && nr < 10 {
                bits |= 1u128 << (nr * 9 + nf);
            }
            i += 1;
        }
        t[sq] = Bitboard(bits);
        sq += 1;
    }
    t
}
static HORSE_ZONE: [Bitboard; 128] = build_horse_zone();

/// Counts leaf nodes `depth` plies deep. The last ply's moves are counted without being
/// played (bulk counting), as the fastest programs do.
pub fn perft(pos: &Position, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => pos.count_legal_moves() as u64,
        _ => {
            let moves = pos.legal_moves();
            let mut n = 0;
            for &m in moves.iter() {
                let mut child = pos.clone();
                child.play_unchecked(m);
                n += perft(&child, depth - 1);
            }
            n
        }
    }
}

/// Counts leaf nodes by playing every move down to depth 0 (measures move making too).
pub fn perft_no_bulk(pos: &Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let moves = pos.legal_moves();
    let mut n = 0;
    for &m in moves.iter() {
        let mut child = pos.clone();
        child.play_unchecked(m);
        n += perft_no_bulk(&child, depth - 1);
    }
    n
}
