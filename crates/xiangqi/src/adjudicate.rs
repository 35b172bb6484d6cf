//! Repetition rulings: perpetual check and perpetual chase (RULES.md §5-6).
//!
//! The pieces of a game carry an identity ([`PieceId`]) that travels with them as they move, so
//! a chased piece is followed across a cycle by who it is, not by where it stands.
//!
//! [`History`] is the per-ply stack the rulings are made from. It is built for both users:
//! [`crate::game::Game`] keeps one for a whole game, and a search can keep one for the line it
//! is exploring. Pushing a move stores the position, the Zobrist key, whether the move gave
//! check and how often the position has occurred since the last capture (a hash lookup, O(1)).
//! What a move chased is worked out only when a repetition needs a ruling, and then cached.
//!
//! What counts as a chase (RULES.md §6), for a move by side S from position B to position A
//! (docs/RULES-STATUS.md explains each reading and the reference cases that require it):
//!
//! - A *threat* is a pair (attacker, victim): the attacker an S piece other than the general or
//!   a soldier, the victim an enemy piece other than the general or a soldier on its own side
//!   of the river, the attacker attacks the victim's point and S may legally capture there (a
//!   pinned attacker threatens only what it may take; a check S was in before its move is taken
//!   as answered).
//! - A threat *qualifies* when it is: a horse or cannon on a chariot, or an advisor or elephant
//!   on a chariot, horse or cannon (always, protected or not); otherwise when the victim has no
//!   defence. Defences are the legal recaptures on the victim's point after it is taken, and,
//!   for a piece of the attacker's own kind, taking the attacker back at once (an offer to
//!   exchange). False protectors (pinned pieces, a general that would face the other general,
//!   any recapture that leaves its own general attacked) do not defend; a check given by the
//!   move being judged is taken as answered.
//! - The move *chases* the victim of each qualifying threat in A unless the same attacker (by
//!   identity) already made a qualifying threat on the same victim in B. A threat that did not
//!   qualify in B becomes a chase when the move took a defence away (pinning a defender,
//!   blocking its line, moving a cannon's screen), except a defence by a piece that was bearing
//!   on the attacker itself and whose line the move shut: that move defended the attacker.
//!
//! Then (RULES.md §5) a side checks perpetually if every one of its moves in the cycle checks,
//! and chases perpetually if every one of its moves chases and some one enemy piece (by
//! identity) is chased by all of them; a move may check and chase at once.

use core::fmt;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::OnceLock;

use crate::attacks;
use crate::bitboard::Bitboard;
use crate::board::Board;
use crate::position::Position;
use crate::square::Square;
use crate::types::{Color, Move, Piece, Role};

/// The identity of a piece within one game: assigned from the start position (0, 1, ... in
/// square order a0..i9) and carried along as the piece moves. A position has at most 32 pieces.
pub type PieceId = u8;

/// A set of piece identities (bit `id` set for each member).
pub type PieceSet = u32;

const NO_ID: u8 = 0xff;

/// Which piece (by identity) stands on each point.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct PieceIds {
    ids: [u8; 90],
}

impl PieceIds {
    /// Numbers the pieces of `board` in square order, a0 first.
    pub fn new(board: &Board) -> PieceIds {
        let mut ids = [NO_ID; 90];
        for (n, (sq, _)) in board.pieces().enumerate() {
            ids[sq.index()] = n as u8;
        }
        PieceIds { ids }
    }
    /// The identity of the piece on `sq`.
    #[inline]
    pub fn get(&self, sq: Square) -> Option<PieceId> {
        match self.ids[sq.index()] {
            NO_ID => None,
            id => Some(id),
        }
    }
    /// The square the piece `id` stands on.
    pub fn square_of(&self, id: PieceId) -> Option<Square> {
        self.ids
            .iter()
            .position(|&x| x == id)
            .and_then(|i| Square::new(i as u8))
    }
    /// Moves the identity on `m.from()` to `m.to()` (a captured piece's identity disappears).
    #[inline]
    pub fn apply(&mut self, m: Move) {
        let id = self.ids[m.from().index()];
        self.ids[m.from().index()] = NO_ID;
        self.ids[m.to().index()] = id;
    }
}

impl fmt::Debug for PieceIds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut m = f.debug_map();
        for (i, &id) in self.ids.iter().enumerate() {
            if id != NO_ID {
                m.entry(&Square::new(i as u8).expect("index below 90"), &id);
            }
        }
        m.finish()
    }
}

/// One piece threatening another (RULES.md §6): positions and identities of both.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Threat {
    pub attacker: Piece,
    pub attacker_square: Square,
    pub attacker_id: PieceId,
    pub victim: Piece,
    pub victim_square: Square,
    pub victim_id: PieceId,
}

/// `pos` with `side` to move (the placement unchanged).
fn with_turn(pos: &Position, side: Color) -> Position {
    let mut p = pos.clone();
    if p.turn() != side {
        p.play_null();
    }
    p
}

/// Soldiers of `color` that have not crossed the river.
fn uncrossed_soldiers(board: &Board, color: Color) -> Bitboard {
    let own_half = match color {
        Color::Red => Bitboard::RED_HALF,
        Color::Black => Bitboard::BLACK_HALF,
    };
    board.by_piece(Piece::new(color, Role::Soldier)) & own_half
}

/// Whether the side to move in `pos` may make `m` as far as a threat is concerned: the move is
/// legal, or illegal only because that side's general stays attacked by pieces in `checkers`,
/// which attack it already. A threat is about the next move, after a check has been answered:
/// a check given by the move being judged does not make the victim's defenders false, and a
/// check the mover was in before its move does not hide its threats from that position. A
/// general's own move must be legal.
fn legal_but_for_checks(pos: &Position, m: Move, checkers: Bitboard) -> bool {
    if pos.is_legal(m) {
        return true;
    }
    if checkers.is_empty()
        || !pos.pseudo_targets(m.from()).contains(m.to())
        || pos.board().role_at(m.from()) == Some(Role::General)
    {
        return false;
    }
    let side = pos.turn();
    let mut after = pos.clone();
    after.play_unchecked(m);
    let b = after.board();
    let k = after.general(side);
    (b.general_attackers(k, !side, b.occupied()) & !checkers).is_empty()
}

/// The pieces of `color` attacking the general of the other side.
fn checkers_of(board: &Board, color: Color) -> Bitboard {
    match board.general(!color) {
        Some(k) => board.general_attackers(k, color, board.occupied()),
        None => Bitboard::EMPTY,
    }
}

/// The pieces that could legally take back on `victim` after the side to move in `us`
/// captures it from `attacker`. `checkers` are the pieces already attacking the defender's
/// general (see `legal_but_for_checks`).
fn recapturers(us: &Position, attacker: Square, victim: Square, checkers: Bitboard) -> Bitboard {
    let mut after = us.clone();
    after.play_unchecked(Move::new(attacker, victim));
    let defender = after.turn();
    let b = after.board();
    b.attackers_to(victim, defender, b.occupied())
        .into_iter()
        .filter(|&d| legal_but_for_checks(&after, Move::new(d, victim), checkers.without(attacker)))
        .collect()
}

/// A legal capture threat with what decides whether it is a chase.
#[derive(Copy, Clone, Debug)]
struct Assessed {
    threat: Threat,
    /// Whether it is a chase in itself (RULES.md §6 rules 3-5).
    qualifies: bool,
    /// The victim side's pieces that answer the threat legally: a victim of the same kind
    /// that can take the attacker back (on its own square), and the legal recapturers.
    defenders: Bitboard,
}

/// Every legal capture threat of `side` in `pos` (RULES.md §6 rules 1 and 6), assessed.
fn assess_threats(pos: &Position, ids: &PieceIds, side: Color) -> Vec<Assessed> {
    let b = pos.board();
    let occ = b.occupied();
    let enemy = !side;
    let victims = b.by_color(enemy) & !b.by_role(Role::General) & !uncrossed_soldiers(b, enemy);
    let attackers = b.by_color(side) & !b.by_role(Role::General) & !b.by_role(Role::Soldier);
    let mut out = Vec::new();
    if victims.is_empty() || attackers.is_empty() {
        return out;
    }
    let us = with_turn(pos, side);
    let mut them: Option<Position> = None;
    // Checks already given, by `side` (when it has just moved) or to it (when it is to move):
    // see `legal_but_for_checks`.
    let checkers = checkers_of(b, side);
    let checked_by = checkers_of(b, enemy);
    for a in attackers {
        let attacker = b.piece_at(a).expect("attacker square is occupied");
        let targets = attacks::attacks(attacker, a, occ) & victims;
        for v in targets {
            if !legal_but_for_checks(&us, Move::new(a, v), checked_by) {
                continue; // rule 6.6: a pinned attacker threatens only what it may take
            }
            let victim = b.piece_at(v).expect("victim square is occupied");
            let threat = Threat {
                attacker,
                attacker_square: a,
                attacker_id: ids.get(a).unwrap_or(NO_ID),
                victim,
                victim_square: v,
                victim_id: ids.get(v).unwrap_or(NO_ID),
            };
            let always = matches!(
                (attacker.role, victim.role),
                (Role::Horse | Role::Cannon, Role::Chariot)
                    | (
                        Role::Advisor | Role::Elephant,
                        Role::Chariot | Role::Horse | Role::Cannon
                    )
            );
            if always {
                out.push(Assessed {
                    threat,
                    qualifies: true,
                    defenders: Bitboard::EMPTY,
                });
                continue;
            }
            let mut defenders = Bitboard::EMPTY;
            if attacker.role == victim.role {
                // Rule 6.4: an offer to exchange when the victim can take back at once.
                if attacks::attacks(victim, v, occ).contains(a) {
                    let them = them.get_or_insert_with(|| with_turn(pos, enemy));
                    if legal_but_for_checks(them, Move::new(v, a), checkers.without(a)) {
                        defenders.set(v);
                    }
                }
            }
            if defenders.is_empty() {
                // Rule 6.5: a chase only if no legal recapture.
                defenders |= recapturers(&us, a, v, checkers);
            }
            out.push(Assessed {
                threat,
                qualifies: defenders.is_empty(),
                defenders,
            });
        }
    }
    out
}

/// Whether the piece on `from` attacks the point `to` (legality aside).
fn bears_on(pos: &Position, from: Square, to: Square) -> bool {
    let b = pos.board();
    match b.piece_at(from) {
        Some(p) => attacks::attacks(p, from, b.occupied()).contains(to),
        None => false,
    }
}

/// The threats of `side` in `pos` that are chases in themselves (RULES.md §6 rules 1 and
/// 3-6; rule 2, "new", compares two positions and is applied by [`chases`]).
pub fn qualified_threats(pos: &Position, ids: &PieceIds, side: Color) -> Vec<Threat> {
    assess_threats(pos, ids, side)
        .into_iter()
        .filter(|a| a.qualifies)
        .map(|a| a.threat)
        .collect()
}

/// The chases made by the move from `before` to `after` (RULES.md §6). A qualifying threat
/// after the move is new when the attacker could not legally capture the victim before it
/// (the mover attacks anew, uncovers the attack, or unpins the attacker), or when it could
/// but the victim was defended and the move took a defence away ("undermining the root":
/// pinning the defender, blocking its line, or moving a cannon's screen). A defence does not
/// count as taken away when the defender was bearing on the attacker itself and the move shut
/// that line: such a move defends the attacker, and the victim's defence, which ran through
/// the attacker's point, went with it.
pub fn chases(
    before: &Position,
    before_ids: &PieceIds,
    after: &Position,
    after_ids: &PieceIds,
) -> Vec<Threat> {
    let mover = before.turn();
    let old = assess_threats(before, before_ids, mover);
    let mut out = Vec::new();
    for t in assess_threats(after, after_ids, mover) {
        if !t.qualifies {
            continue;
        }
        let prior = old.iter().find(|o| {
            o.threat.attacker_id == t.threat.attacker_id && o.threat.victim_id == t.threat.victim_id
        });
        let new = match prior {
            None => true,
            Some(o) if o.qualifies => false,
            Some(o) => {
                // The victim lost a defence. It counts unless the lost defender was bearing on
                // the attacker itself and the move shut that line: then the move defended the
                // attacker, and the defence of the victim (through the attacker's point) went
                // with it.
                let lost = o.defenders & !t.defenders;
                let a_before = o.threat.attacker_square;
                let a_after = t.threat.attacker_square;
                lost.into_iter()
                    .any(|d| !bears_on(before, d, a_before) || bears_on(after, d, a_after))
            }
        };
        if new {
            out.push(t.threat);
        }
    }
    out
}

/// The identities chased by a list of threats.
pub fn victim_set(threats: &[Threat]) -> PieceSet {
    threats
        .iter()
        .filter(|t| t.victim_id < 32)
        .fold(0, |acc, t| acc | 1u32 << t.victim_id)
}

/// Whether a position has no chariot, horse, cannon or soldier on either side (RULES.md §4.4).
pub fn insufficient_material(board: &Board) -> bool {
    (board.by_role(Role::Chariot)
        | board.by_role(Role::Horse)
        | board.by_role(Role::Cannon)
        | board.by_role(Role::Soldier))
    .is_empty()
}

/// Whether `color` has a piece that can attack (a chariot, horse, cannon or soldier): one
/// that could ever give mate.
pub fn has_attacker(board: &Board, color: Color) -> bool {
    !((board.by_role(Role::Chariot)
        | board.by_role(Role::Horse)
        | board.by_role(Role::Cannon)
        | board.by_role(Role::Soldier))
        & board.by_color(color))
    .is_empty()
}

/// Checks beyond this many by one side since the last capture do not advance the move-limit
/// count (RULES.md §4.3).
pub const COUNTED_CHECKS: u32 = 10;

/// One ply of a [`History`]: the position after a move (or the start position).
#[derive(Clone, Debug)]
struct Entry {
    pos: Position,
    ids: PieceIds,
    mv: Option<Move>,
    captured: Option<Piece>,
    gave_check: bool,
    /// Index of the first entry of the no-capture window this entry belongs to.
    window: u32,
    /// The first entry of the window with the same key (this one if none earlier).
    first_same: u32,
    /// How often this entry's key has occurred in the window, this one included.
    occurrences: u32,
    /// The previous value of the key's slot in the index (restored on pop).
    shadowed: Option<u32>,
    /// Plies counted towards the move limit since the last capture.
    limit_count: u32,
    /// Checks given by Red and Black since the last capture.
    checks: [u32; 2],
    /// What the move chased (set on first use; a `OnceLock` so that a `Game` can be shared
    /// between threads, as the Python bindings need).
    chased: OnceLock<Vec<Threat>>,
}

/// Hashes a Zobrist key (already uniformly random) by taking it as it is.
#[derive(Default, Clone, Copy)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ b as u64;
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = v;
    }
}

type KeyMap = HashMap<u64, u32, BuildHasherDefault<KeyHasher>>;

/// The per-ply stack a repetition is ruled from: positions, keys, checks and (on demand)
/// chases, with piece identities. See the module documentation.
#[derive(Clone, Debug)]
pub struct History {
    entries: Vec<Entry>,
    /// Key -> index of the latest entry with that key.
    index: KeyMap,
}

impl History {
    /// A history starting at `start`. Its FEN's no-capture count starts the move-limit count.
    pub fn new(start: Position) -> History {
        let ids = PieceIds::new(start.board());
        let limit_count = start.halfmoves();
        let mut index = KeyMap::default();
        index.insert(start.key(), 0);
        History {
            entries: vec![Entry {
                ids,
                mv: None,
                captured: None,
                gave_check: start.is_check(),
                window: 0,
                first_same: 0,
                occurrences: 1,
                shadowed: None,
                limit_count,
                checks: [0, 0],
                chased: OnceLock::from(Vec::new()),
                pos: start,
            }],
            index,
        }
    }

    /// Plays `m`, which must be legal in the current position; returns the captured piece.
    pub fn push(&mut self, m: Move) -> Option<Piece> {
        let prev = self.entries.last().expect("a history is never empty");
        let mover = prev.pos.turn();
        let mut pos = prev.pos.clone();
        let captured = pos.play_unchecked(m);
        let mut ids = prev.ids.clone();
        ids.apply(m);
        let gave_check = pos.is_check();
        let n = self.entries.len() as u32;
        let key = pos.key();
        let (window, limit_count, checks) = if captured.is_some() {
            (n, 0, [0, 0])
        } else {
            let mut checks = prev.checks;
            let mut count = prev.limit_count + 1;
            if gave_check {
                checks[mover.index()] += 1;
                if checks[mover.index()] > COUNTED_CHECKS {
                    count = prev.limit_count;
                }
            }
            (prev.window, count, checks)
        };
        let shadowed = self.index.insert(key, n);
        let (first_same, occurrences) = match shadowed {
            Some(i) if i >= window => {
                let e = &self.entries[i as usize];
                (e.first_same, e.occurrences + 1)
            }
            _ => (n, 1),
        };
        self.entries.push(Entry {
            pos,
            ids,
            mv: Some(m),
            captured,
            gave_check,
            window,
            first_same,
            occurrences,
            shadowed,
            limit_count,
            checks,
            chased: OnceLock::new(),
        });
        captured
    }

    /// Takes back the last move; `None` at the start position.
    pub fn pop(&mut self) -> Option<Move> {
        if self.entries.len() <= 1 {
            return None;
        }
        let e = self.entries.pop().expect("checked above");
        let key = e.pos.key();
        match e.shadowed {
            Some(i) => self.index.insert(key, i),
            None => self.index.remove(&key),
        };
        e.mv
    }

    /// The number of moves played.
    pub fn len(&self) -> usize {
        self.entries.len() - 1
    }
    /// Whether no move has been played.
    pub fn is_empty(&self) -> bool {
        self.entries.len() == 1
    }
    /// The start position.
    pub fn start(&self) -> &Position {
        &self.entries[0].pos
    }
    /// The current position.
    pub fn position(&self) -> &Position {
        &self.last().pos
    }
    /// The position after `ply` moves (0 = the start).
    pub fn position_at(&self, ply: usize) -> &Position {
        &self.entries[ply].pos
    }
    /// The piece identities after `ply` moves.
    pub fn ids_at(&self, ply: usize) -> &PieceIds {
        &self.entries[ply].ids
    }
    /// The current piece identities.
    pub fn ids(&self) -> &PieceIds {
        &self.last().ids
    }
    /// Move number `ply` (1-based: the first move played is 1).
    pub fn move_at(&self, ply: usize) -> Option<Move> {
        self.entries.get(ply).and_then(|e| e.mv)
    }
    /// The moves played, in order.
    pub fn moves(&self) -> impl ExactSizeIterator<Item = Move> + '_ {
        self.entries[1..]
            .iter()
            .map(|e| e.mv.expect("every entry after the first has a move"))
    }
    /// The piece captured by move `ply`.
    pub fn captured_at(&self, ply: usize) -> Option<Piece> {
        self.entries.get(ply).and_then(|e| e.captured)
    }
    /// Whether move `ply` left the opponent's general attacked.
    pub fn gave_check(&self, ply: usize) -> bool {
        self.entries[ply].gave_check
    }
    /// How often the current position (placement and side to move) has occurred since the
    /// last capture, this time included. O(1).
    pub fn occurrences(&self) -> u32 {
        self.last().occurrences
    }
    /// The ply after which the current position first occurred since the last capture.
    pub fn first_occurrence(&self) -> usize {
        self.last().first_same as usize
    }
    /// [`History::occurrences`] of the position after move `ply`.
    pub fn occurrences_at(&self, ply: usize) -> u32 {
        self.entries[ply].occurrences
    }
    /// [`History::first_occurrence`] of the position after move `ply`.
    pub fn first_occurrence_at(&self, ply: usize) -> usize {
        self.entries[ply].first_same as usize
    }
    /// Plies counted towards the move limit (RULES.md §4.3): plies since the last capture,
    /// less checks beyond the tenth by one side.
    pub fn move_limit_count(&self) -> u32 {
        self.last().limit_count
    }
    /// [`History::move_limit_count`] after move `ply`.
    pub fn move_limit_count_at(&self, ply: usize) -> u32 {
        self.entries[ply].limit_count
    }
    /// Checks given by `color` since the last capture.
    pub fn checks_since_capture(&self, color: Color) -> u32 {
        self.last().checks[color.index()]
    }

    fn last(&self) -> &Entry {
        self.entries.last().expect("a history is never empty")
    }

    /// The chases made by move `ply` (1-based), worked out on first use and cached.
    pub fn chases_at(&self, ply: usize) -> &[Threat] {
        let e = &self.entries[ply];
        e.chased.get_or_init(|| {
            if ply == 0 {
                return Vec::new();
            }
            let b = &self.entries[ply - 1];
            chases(&b.pos, &b.ids, &e.pos, &e.ids)
        })
    }

    /// The identities chased by move `ply`.
    pub fn chased_at(&self, ply: usize) -> PieceSet {
        victim_set(self.chases_at(ply))
    }

    /// The ruling on the current position if it has occurred `occurrences` times or more since
    /// the last capture: the verdict only (for a search). `chase_rule` off rules chases idle.
    /// For a search, call with `occurrences = 2` to rule on any repetition inside the tree.
    pub fn repetition_verdict(&self, occurrences: u32, chase_rule: bool) -> Option<Verdict> {
        self.repetition_verdict_at(self.len(), occurrences, chase_rule)
    }

    /// [`History::repetition_verdict`] on the position after move `ply`.
    pub fn repetition_verdict_at(
        &self,
        ply: usize,
        occurrences: u32,
        chase_rule: bool,
    ) -> Option<Verdict> {
        if self.entries[ply].occurrences < occurrences.max(2) {
            return None;
        }
        let first = self.first_occurrence_at(ply);
        let last = ply;
        let mut grade = [Grade::None; 2];
        for color in Color::ALL {
            grade[color.index()] = self.grade_side(first, last, color, chase_rule);
        }
        Some(verdict_of(grade))
    }

    /// The offence of `color` over the cycle of moves `first+1..=last`.
    fn grade_side(&self, first: usize, last: usize, color: Color, chase_rule: bool) -> Grade {
        let plies = (first + 1..=last).filter(|&p| self.entries[p - 1].pos.turn() == color);
        let mut all_check = true;
        let mut common: PieceSet = !0;
        let mut any = false;
        for p in plies.clone() {
            any = true;
            if !self.entries[p].gave_check {
                all_check = false;
                break;
            }
        }
        if !any {
            return Grade::None;
        }
        if all_check {
            return Grade::Check;
        }
        if !chase_rule {
            return Grade::None;
        }
        for p in plies {
            // A move that checks and also chases counts as a chase here (the data agree:
            // see docs/RULES-STATUS.md); a side checking on every move was ruled above.
            common &= self.chased_at(p);
            if common == 0 {
                return Grade::None;
            }
        }
        Grade::Chase
    }

    /// The full ruling, with its explanation, on the cycle from the position after move
    /// `first` to the position after move `last` (the same position), under `chase_rule`.
    pub fn rule_cycle(&self, first: usize, last: usize, chase_rule: bool) -> RepetitionRuling {
        let occurrences = self.entries[last].occurrences;
        let mut sides = Vec::new();
        let mut grade = [Grade::None; 2];
        for color in Color::ALL {
            let g = self.grade_side(first, last, color, chase_rule);
            grade[color.index()] = g;
            let mut moves = Vec::new();
            for p in first + 1..=last {
                let before = &self.entries[p - 1];
                if before.pos.turn() != color {
                    continue;
                }
                let m = self.entries[p].mv.expect("a move");
                let piece = before
                    .pos
                    .piece_at(m.from())
                    .expect("the mover stands on from");
                moves.push(CycleMove {
                    ply: p,
                    mv: m,
                    piece,
                    check: self.entries[p].gave_check,
                    chases: if chase_rule {
                        self.chases_at(p).to_vec()
                    } else {
                        Vec::new()
                    },
                });
            }
            let offence = match g {
                Grade::None => None,
                Grade::Check => Some(Offence::PerpetualCheck),
                Grade::Chase => {
                    let common = moves
                        .iter()
                        .fold(!0u32, |acc, m| acc & victim_set(&m.chases));
                    let mut victims = Vec::new();
                    for id in 0..32u8 {
                        if common & (1 << id) == 0 {
                            continue;
                        }
                        let mut chasers: Vec<(PieceId, Piece)> = Vec::new();
                        let mut squares: Vec<Square> = Vec::new();
                        let mut piece = None;
                        for m in &moves {
                            for t in m.chases.iter().filter(|t| t.victim_id == id) {
                                piece = Some(t.victim);
                                if !chasers.iter().any(|c| c.0 == t.attacker_id) {
                                    chasers.push((t.attacker_id, t.attacker));
                                }
                                if !squares.contains(&t.victim_square) {
                                    squares.push(t.victim_square);
                                }
                            }
                        }
                        victims.push(ChasedPiece {
                            id,
                            piece: piece.expect("a common victim is chased by some move"),
                            squares,
                            chasers: chasers.into_iter().map(|c| c.1).collect(),
                        });
                    }
                    Some(Offence::PerpetualChase { victims })
                }
            };
            sides.push(SideConduct {
                color,
                moves,
                offence,
            });
        }
        let verdict = verdict_of(grade);
        let black = sides.pop().expect("two sides");
        let red = sides.pop().expect("two sides");
        RepetitionRuling {
            first,
            last,
            occurrences,
            red,
            black,
            verdict,
        }
    }
}

#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Grade {
    None,
    Chase,
    Check,
}

fn verdict_of(grade: [Grade; 2]) -> Verdict {
    let (r, b) = (grade[0], grade[1]);
    if r == b {
        Verdict {
            winner: None,
            reason: RepetitionReason::Draw,
        }
    } else {
        let (loser, g) = if r > b {
            (Color::Red, r)
        } else {
            (Color::Black, b)
        };
        Verdict {
            winner: Some(!loser),
            reason: if g == Grade::Check {
                RepetitionReason::PerpetualCheck
            } else {
                RepetitionReason::PerpetualChase
            },
        }
    }
}

/// Why a repetition ended the game.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum RepetitionReason {
    /// The loser checked perpetually.
    PerpetualCheck,
    /// The loser chased perpetually.
    PerpetualChase,
    /// Nobody (or both sides equally) broke a rule: a draw.
    Draw,
}

/// The result of a repetition: the winner (none for a draw) and why.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Verdict {
    pub winner: Option<Color>,
    pub reason: RepetitionReason,
}

/// A move of the cycle, as the ruling saw it.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct CycleMove {
    /// The move's number in the game (1 = the first move played).
    pub ply: usize,
    pub mv: Move,
    /// The piece that moved.
    pub piece: Piece,
    /// Whether it left the opponent's general attacked.
    pub check: bool,
    /// What it newly chased.
    pub chases: Vec<Threat>,
}

/// A piece chased on every move of a perpetual chase.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct ChasedPiece {
    pub id: PieceId,
    pub piece: Piece,
    /// Where it stood when chased (more than one point when it moved during the cycle).
    pub squares: Vec<Square>,
    /// The pieces that chased it.
    pub chasers: Vec<Piece>,
}

/// The rule a side broke.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Offence {
    PerpetualCheck,
    PerpetualChase { victims: Vec<ChasedPiece> },
}

/// What one side did over the cycle.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct SideConduct {
    pub color: Color,
    pub moves: Vec<CycleMove>,
    pub offence: Option<Offence>,
}

impl SideConduct {
    /// Whether the side neither checked nor chased in the cycle.
    pub fn is_idle(&self) -> bool {
        self.moves.iter().all(|m| !m.check && m.chases.is_empty())
    }
}

/// A ruling on a repetition, with what each side did: displays as a plain-language account
/// in English ([`crate::prose`] writes it, in Chinese too).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct RepetitionRuling {
    /// The position after move `first` (0 = the start position) ...
    pub first: usize,
    /// ... occurred again after move `last`.
    pub last: usize,
    /// How often it has occurred since the last capture.
    pub occurrences: u32,
    pub red: SideConduct,
    pub black: SideConduct,
    pub verdict: Verdict,
}

impl RepetitionRuling {
    pub fn side(&self, color: Color) -> &SideConduct {
        match color {
            Color::Red => &self.red,
            Color::Black => &self.black,
        }
    }
}
