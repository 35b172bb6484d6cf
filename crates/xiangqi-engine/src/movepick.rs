//! Move ordering and static exchange evaluation.
//!
//! Moves are scored once per node and picked best-first by selection: the hash move, then
//! captures that do not lose material (most valuable victim, least valuable attacker), the
//! killer moves, quiet moves by history, and last the captures that lose material.

use xiangqi::attacks;
use xiangqi::{Bitboard, Color, Move, MoveList, Piece, Position, Role};

use crate::eval::SEE_VALUE;

const HASH_MOVE: i32 = 1 << 30;
const GOOD_CAPTURE: i32 = 1 << 28;
pub const KILLER: i32 = 1 << 26;
const BAD_CAPTURE: i32 = -(1 << 28);

/// Scores used to order moves: one per move in a list, picked best-first.
pub struct Picker {
    pub moves: MoveList,
    scores: [i32; MoveList::CAPACITY],
    next: usize,
}

impl Picker {
    /// Orders the moves of a full-width node: hash move, good captures, killers, the
    /// counter-move of the opponent's last move, quiet moves by history, bad captures.
    pub fn new(
        pos: &Position,
        moves: MoveList,
        hash_move: Option<Move>,
        killers: [Option<Move>; 2],
        counter: Option<Move>,
        quiet_score: impl Fn(Move) -> i32,
        capture_score: impl Fn(Move) -> i32,
    ) -> Picker {
        let mut scores = [0i32; MoveList::CAPACITY];
        for (i, &m) in moves.iter().enumerate() {
            scores[i] = if Some(m) == hash_move {
                HASH_MOVE
            } else if let Some(victim) = pos.piece_at(m.to()) {
                let mvv = mvv_lva(pos, m, victim.role) + capture_score(m) / 8;
                if see_ge(pos, m, 0) {
                    GOOD_CAPTURE + mvv
                } else {
                    BAD_CAPTURE + mvv
                }
            } else if Some(m) == killers[0] {
                KILLER + 1
            } else if Some(m) == killers[1] {
                KILLER
            } else if Some(m) == counter {
                KILLER - 1
            } else {
                quiet_score(m)
            };
        }
        Picker {
            moves,
            scores,
            next: 0,
        }
    }

    /// Orders captures (and, in check, evasions) for the quiescence search.
    pub fn captures(pos: &Position, moves: MoveList, hash_move: Option<Move>) -> Picker {
        let mut scores = [0i32; MoveList::CAPACITY];
        for (i, &m) in moves.iter().enumerate() {
            scores[i] = if Some(m) == hash_move {
                HASH_MOVE
            } else if let Some(victim) = pos.piece_at(m.to()) {
                GOOD_CAPTURE + mvv_lva(pos, m, victim.role)
            } else {
                0
            };
        }
        Picker {
            moves,
            scores,
            next: 0,
        }
    }

    /// Keeps the moves in the order given (the root's order from the last iteration).
    pub fn keep_order(&mut self) {
        for i in 0..self.moves.len() {
            self.scores[i] = -(i as i32);
        }
    }

    /// The next move, best first, with its ordering score.
    pub fn pick(&mut self) -> Option<(Move, i32)> {
        let n = self.moves.len();
        if self.next >= n {
            return None;
        }
        let mut best = self.next;
        for i in self.next + 1..n {
            if self.scores[i] > self.scores[best] {
                best = i;
            }
        }
        self.moves.swap(self.next, best);
        self.scores.swap(self.next, best);
        let r = (self.moves[self.next], self.scores[self.next]);
        self.next += 1;
        Some(r)
    }
}

/// Whether an ordering score belongs to a capture that loses material by exchange.
pub fn is_bad_capture_score(s: i32) -> bool {
    s < BAD_CAPTURE / 2
}

fn mvv_lva(pos: &Position, m: Move, victim: Role) -> i32 {
    let attacker = pos.piece_at(m.from()).map_or(Role::General, |p| p.role);
    SEE_VALUE[victim.index()].min(2000) * 8 - SEE_VALUE[attacker.index()].min(2000) / 16
}

/// Index into a history table of `2 * 90 * 90` entries.
#[inline]
pub fn history_index(turn: usize, m: Move) -> usize {
    turn * 8100 + m.from().index() * 90 + m.to().index()
}

/// The legal captures of the side to move (not in check: in check use all legal moves).
pub fn captures(pos: &Position) -> MoveList {
    let b = pos.board();
    let us = pos.turn();
    let occ = b.occupied();
    let enemy = b.by_color(!us);
    let mut list = MoveList::new();
    for from in b.by_color(us) {
        let piece = b.piece_at(from).expect("own piece");
        let targets = attacks::attacks(piece, from, occ) & enemy;
        for to in targets {
            let m = Move::new(from, to);
            if pos.is_legal(m) {
                list.push(m);
            }
        }
    }
    list
}

/// Appends the legal quiet moves of chariots, horses, cannons and soldiers that attack the
/// enemy general from their target (direct checks; discovered checks are not looked for).
pub fn add_quiet_checks(pos: &Position, list: &mut MoveList) {
    let b = pos.board();
    let us = pos.turn();
    let Some(k) = b.general(!us) else {
        return;
    };
    let occ = b.occupied();
    let empty = !occ;
    for role in [Role::Chariot, Role::Horse, Role::Cannon, Role::Soldier] {
        for from in b.by_piece(Piece::new(us, role)) {
            let targets = match role {
                Role::Chariot => attacks::chariot_attacks(from, occ) & empty,
                Role::Horse => attacks::horse_attacks(from, occ) & empty,
                Role::Cannon => attacks::slide_quiets(from, occ),
                _ => attacks::soldier_attacks(us, from) & empty,
            };
            for to in targets {
                let occ2 = occ.without(from).with(to);
                let checks = match role {
                    Role::Chariot => attacks::chariot_attacks(to, occ2).contains(k),
                    Role::Horse => attacks::horse_attacks(to, occ2).contains(k),
                    Role::Cannon => attacks::cannon_attacks(to, occ2).contains(k),
                    _ => attacks::soldier_attacks(us, to).contains(k),
                };
                let m = Move::new(from, to);
                if checks && pos.is_legal(m) {
                    list.push(m);
                }
            }
        }
    }
}

/// The least valuable piece of `side` among `attackers`, by exchange value.
fn least_valuable(
    pos: &Position,
    attackers: Bitboard,
    side: Color,
) -> Option<(xiangqi::Square, Role)> {
    const ORDER: [Role; 7] = [
        Role::Soldier,
        Role::Advisor,
        Role::Elephant,
        Role::Horse,
        Role::Cannon,
        Role::Chariot,
        Role::General,
    ];
    let b = pos.board();
    for role in ORDER {
        let set = attackers & b.by_piece(Piece::new(side, role));
        if let Some(sq) = set.first() {
            return Some((sq, role));
        }
    }
    None
}

/// Static exchange evaluation: the material the side to move wins by playing `m` and then
/// both sides recapturing on the target with their least valuable piece while it pays.
/// Cannon screens are recomputed as pieces leave; pins and the flying general are ignored,
/// and a general only recaptures when nothing defends the point any more.
pub fn see(pos: &Position, m: Move) -> i32 {
    let b = pos.board();
    let from = m.from();
    let to = m.to();
    let Some(mover) = b.piece_at(from) else {
        return 0;
    };
    let mut gain = [0i32; 40];
    gain[0] = b.role_at(to).map_or(0, |r| SEE_VALUE[r.index()]);
    let mut occ = b.occupied().without(from).with(to);
    let mut on_target = SEE_VALUE[mover.role.index()];
    let mut side = !mover.color;
    let mut d = 0;
    // Pieces that have been captured on `to` or have moved there are out of `occ` except the
    // current occupant; the original occupant is gone once the first capture happens.
    let mut removed = Bitboard::from_square(from);
    loop {
        let attackers = b.attackers_to(to, side, occ) & occ & !removed & !Bitboard::from_square(to);
        let Some((sq, role)) = least_valuable(pos, attackers, side) else {
            break;
        };
        if role == Role::General {
            let occ2 = occ.without(sq);
            let defenders =
                b.attackers_to(to, !side, occ2) & occ2 & !removed & !Bitboard::from_square(to);
            if defenders.any() {
                break;
            }
        }
        d += 1;
        if d >= gain.len() {
            break;
        }
        gain[d] = on_target - gain[d - 1];
        if gain[d].max(-gain[d - 1]) < 0 {
            // Neither continuing nor stopping changes the sign: prune.
            break;
        }
        on_target = SEE_VALUE[role.index()];
        occ = occ.without(sq);
        removed.set(sq);
        side = !side;
    }
    while d > 0 {
        gain[d - 1] = -((-gain[d - 1]).max(gain[d]));
        d -= 1;
    }
    gain[0]
}

/// Whether the exchange started by `m` wins at least `threshold`.
#[inline]
pub fn see_ge(pos: &Position, m: Move, threshold: i32) -> bool {
    see(pos, m) >= threshold
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mv(pos: &Position, s: &str) -> Move {
        pos.parse_uci(s).unwrap()
    }

    #[test]
    fn exchanges() {
        // Chariot takes a soldier defended by another: loses the chariot for a soldier.
        let pos = Position::from_fen("3k5/9/9/4p4/4p4/9/9/9/9/4RK3 w - - 0 1").unwrap();
        let m = mv(&pos, "e0e5");
        assert_eq!(see(&pos, m), SEE_VALUE[6] - SEE_VALUE[4]);
        // Undefended: wins the soldier.
        let pos = Position::from_fen("3k5/9/9/9/4p4/9/9/9/9/4RK3 w - - 0 1").unwrap();
        assert_eq!(see(&pos, mv(&pos, "e0e5")), SEE_VALUE[6]);
    }

    #[test]
    fn cannon_screens_change() {
        // The cannon on e0 takes the horse on e5 over the screen e3; Black's chariot on e9
        // recaptures down the open file.
        let pos = Position::from_fen("3kr4/9/9/9/4n4/9/4P4/9/9/4CK3 w - - 0 1").unwrap();
        let m = mv(&pos, "e0e5");
        // Cannon (440) takes horse (420), chariot recaptures the cannon.
        assert_eq!(see(&pos, m), SEE_VALUE[3] - SEE_VALUE[5]);
    }

    #[test]
    fn quiet_checks_are_the_direct_checks() {
        let fens = [
            xiangqi::START_FEN,
            "r1bakab1r/9/1cn3nc1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C1N2/9/RNBAKAB1R b - - 2 2",
            "5a3/9/5k3/4C4/4N4/9/9/2R6/9/4K4 w - - 0 1",
            "2b6/3Nk4/9/9/9/1R7/9/9/5K3/9 w - - 0 1",
            "3ak4/4a4/9/4P4/2n6/9/9/4C4/9/3K1R3 w - - 0 1",
        ];
        for fen in fens {
            let pos = Position::from_fen(fen).unwrap();
            let mut list = MoveList::new();
            add_quiet_checks(&pos, &mut list);
            let mut got: Vec<Move> = list.iter().copied().collect();
            let k = pos.board().general(!pos.turn()).unwrap();
            let mut want: Vec<Move> = pos
                .legal_moves()
                .iter()
                .copied()
                .filter(|&m| {
                    let role = pos.piece_at(m.from()).unwrap().role;
                    if pos.is_capture(m)
                        || !matches!(
                            role,
                            Role::Chariot | Role::Horse | Role::Cannon | Role::Soldier
                        )
                    {
                        return false;
                    }
                    let mut c = pos.clone();
                    c.play_unchecked(m);
                    let b = c.board();
                    b.general_attackers(k, !c.turn(), b.occupied())
                        .contains(m.to())
                })
                .collect();
            got.sort();
            want.sort();
            assert_eq!(got, want, "{fen}");
        }
    }

    #[test]
    fn captures_are_legal_captures() {
        let fens = [
            xiangqi::START_FEN,
            "r1bakab1r/9/1cn3nc1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C1N2/9/RNBAKAB1R b - - 2 2",
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1",
        ];
        for fen in fens {
            let pos = Position::from_fen(fen).unwrap();
            let mut a: Vec<Move> = captures(&pos).iter().copied().collect();
            let mut b: Vec<Move> = pos
                .legal_moves()
                .iter()
                .copied()
                .filter(|m| pos.is_capture(*m))
                .collect();
            a.sort();
            b.sort();
            assert_eq!(a, b, "{fen}");
        }
    }
}
