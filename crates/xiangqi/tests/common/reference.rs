//! A deliberately simple reference move generator, used only by tests and fuzz targets.
//!
//! Everything here is written straight from `shared/RULES.md` §2-3 and §7 on a plain mailbox
//! board (`cells[rank][file]`), with no bitboards and no lookup tables, and shares no code with
//! `src/movegen.rs`, `src/attacks.rs` or `src/board.rs`. It is slow on purpose: every legality
//! test plays the move on a copy of the board and asks whether any enemy piece could then move
//! onto the mover's general, or whether the two generals face each other on an open file.
//!
//! The only things it takes from the crate are the plain types used to exchange positions and
//! moves with it (`Position::piece_at`, `Square`, `Move`, `Color`, `Role`).

#![allow(dead_code)]

use xiangqi::{Color, Move, Piece, Position, Role, Square};

/// The two sides, kept separate from the crate's `Color` on purpose.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Hash)]
pub enum Side {
    Red,
    Black,
}

impl Side {
    pub fn other(self) -> Side {
        match self {
            Side::Red => Side::Black,
            Side::Black => Side::Red,
        }
    }
}

/// The seven kinds of piece.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Hash)]
pub enum Kind {
    General,
    Advisor,
    Elephant,
    Horse,
    Chariot,
    Cannon,
    Soldier,
}

pub const KINDS: [Kind; 7] = [
    Kind::General,
    Kind::Advisor,
    Kind::Elephant,
    Kind::Horse,
    Kind::Chariot,
    Kind::Cannon,
    Kind::Soldier,
];

/// A piece on the reference board.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Hash)]
pub struct Man {
    pub side: Side,
    pub kind: Kind,
}

/// The reference form of a crate piece.
pub fn man_of(piece: Piece) -> Man {
    let side = match piece.color {
        Color::Red => Side::Red,
        Color::Black => Side::Black,
    };
    let kind = match piece.role {
        Role::General => Kind::General,
        Role::Advisor => Kind::Advisor,
        Role::Elephant => Kind::Elephant,
        Role::Horse => Kind::Horse,
        Role::Chariot => Kind::Chariot,
        Role::Cannon => Kind::Cannon,
        Role::Soldier => Kind::Soldier,
    };
    Man { side, kind }
}

/// A point: file 0..=8 (a..i), rank 0..=9 (Red's back rank is 0).
#[derive(Copy, Clone, PartialEq, Eq, Debug, Hash, PartialOrd, Ord)]
pub struct Pt {
    pub file: i32,
    pub rank: i32,
}

impl Pt {
    pub fn new(file: i32, rank: i32) -> Pt {
        Pt { file, rank }
    }
    pub fn on_board(self) -> bool {
        (0..9).contains(&self.file) && (0..10).contains(&self.rank)
    }
    pub fn step(self, df: i32, dr: i32) -> Pt {
        Pt::new(self.file + df, self.rank + dr)
    }
    /// The point as the crate's square.
    pub fn square(self) -> Square {
        Square::new((self.rank * 9 + self.file) as u8).expect("point on the board")
    }
    pub fn from_square(sq: Square) -> Pt {
        let i = sq.index() as i32;
        Pt::new(i % 9, i / 9)
    }
}

/// A reference move: from-point, to-point.
pub type RefMove = (Pt, Pt);

/// The four orthogonal steps.
const ORTHOGONAL: [(i32, i32); 4] = [(0, 1), (0, -1), (1, 0), (-1, 0)];
/// The four diagonal steps.
const DIAGONAL: [(i32, i32); 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];

/// Whether `p` lies in `side`'s palace (files d-f, ranks 0-2 for Red, 7-9 for Black).
pub fn in_palace(side: Side, p: Pt) -> bool {
    let ranks = match side {
        Side::Red => 0..=2,
        Side::Black => 7..=9,
    };
    (3..=5).contains(&p.file) && ranks.contains(&p.rank)
}

/// Whether `p` lies on `side`'s own half of the board (Red ranks 0-4, Black ranks 5-9).
pub fn on_own_half(side: Side, p: Pt) -> bool {
    match side {
        Side::Red => p.rank <= 4,
        Side::Black => p.rank >= 5,
    }
}

/// The rank step that takes `side`'s soldiers forward.
pub fn forward(side: Side) -> i32 {
    match side {
        Side::Red => 1,
        Side::Black => -1,
    }
}

/// A mailbox board with the side to move.
#[derive(Clone, PartialEq, Eq, Debug, Hash)]
pub struct RefBoard {
    pub cells: [[Option<Man>; 9]; 10],
    pub turn: Side,
}

impl RefBoard {
    pub fn empty(turn: Side) -> RefBoard {
        RefBoard {
            cells: [[None; 9]; 10],
            turn,
        }
    }

    pub fn at(&self, p: Pt) -> Option<Man> {
        self.cells[p.rank as usize][p.file as usize]
    }
    pub fn set(&mut self, p: Pt, m: Option<Man>) {
        self.cells[p.rank as usize][p.file as usize] = m;
    }

    /// Copies the placement and side to move of a crate position.
    pub fn from_position(pos: &Position) -> RefBoard {
        let turn = match pos.turn() {
            Color::Red => Side::Red,
            Color::Black => Side::Black,
        };
        let mut b = RefBoard::empty(turn);
        for rank in 0..10 {
            for file in 0..9 {
                let p = Pt::new(file, rank);
                if let Some(piece) = pos.piece_at(p.square()) {
                    b.set(p, Some(man_of(piece)));
                }
            }
        }
        b
    }

    /// Reads the first two fields of a FEN (placement and side), with its own small parser.
    /// Returns `None` for anything it does not understand; it checks no rule.
    pub fn from_fen(fen: &str) -> Option<RefBoard> {
        let mut fields = fen.split_whitespace();
        let placement = fields.next()?;
        let turn = match fields.next() {
            None | Some("w") | Some("r") => Side::Red,
            Some("b") => Side::Black,
            Some(_) => return None,
        };
        let mut b = RefBoard::empty(turn);
        let rows: Vec<&str> = placement.split('/').collect();
        if rows.len() != 10 {
            return None;
        }
        for (i, row) in rows.iter().enumerate() {
            let rank = 9 - i as i32;
            let mut file = 0;
            for c in row.chars() {
                if ('1'..='9').contains(&c) {
                    file += c as i32 - '0' as i32;
                    continue;
                }
                let kind = match c.to_ascii_lowercase() {
                    'k' => Kind::General,
                    'a' => Kind::Advisor,
                    'b' | 'e' => Kind::Elephant,
                    'n' | 'h' => Kind::Horse,
                    'r' => Kind::Chariot,
                    'c' => Kind::Cannon,
                    'p' => Kind::Soldier,
                    _ => return None,
                };
                let side = if c.is_ascii_uppercase() {
                    Side::Red
                } else {
                    Side::Black
                };
                if file >= 9 {
                    return None;
                }
                b.set(Pt::new(file, rank), Some(Man { side, kind }));
                file += 1;
            }
            if file != 9 {
                return None;
            }
        }
        Some(b)
    }

    /// Every occupied point with its piece.
    pub fn men(&self) -> Vec<(Pt, Man)> {
        let mut v = Vec::new();
        for rank in 0..10 {
            for file in 0..9 {
                let p = Pt::new(file, rank);
                if let Some(m) = self.at(p) {
                    v.push((p, m));
                }
            }
        }
        v
    }

    /// Where `side`'s general stands (the first one found), if anywhere.
    pub fn general(&self, side: Side) -> Option<Pt> {
        let wanted = Some(Man {
            side,
            kind: Kind::General,
        });
        for rank in 0..10 {
            for file in 0..9 {
                if self.cells[rank as usize][file as usize] == wanted {
                    return Some(Pt::new(file, rank));
                }
            }
        }
        None
    }

    /// The points the piece on `from` may move to by §2 alone, ignoring the safety of its own
    /// general: never onto a piece of its own side.
    pub fn targets(&self, from: Pt) -> Vec<Pt> {
        let Some(man) = self.at(from) else {
            return Vec::new();
        };
        let side = man.side;
        let mut out = Vec::new();
        // A landing point is fine if it is on the board and holds no piece of our own side.
        let free = |p: Pt| p.on_board() && !matches!(self.at(p), Some(m) if m.side == side);
        match man.kind {
            Kind::General => {
                for (df, dr) in ORTHOGONAL {
                    let to = from.step(df, dr);
                    if in_palace(side, to) && free(to) {
                        out.push(to);
                    }
                }
            }
            Kind::Advisor => {
                for (df, dr) in DIAGONAL {
                    let to = from.step(df, dr);
                    if in_palace(side, to) && free(to) {
                        out.push(to);
                    }
                }
            }
            Kind::Elephant => {
                for (df, dr) in DIAGONAL {
                    let eye = from.step(df, dr);
                    let to = from.step(2 * df, 2 * dr);
                    if to.on_board() && on_own_half(side, to) && self.at(eye).is_none() && free(to)
                    {
                        out.push(to);
                    }
                }
            }
            Kind::Horse => {
                // First one point orthogonally (the leg), then one diagonally outward.
                for (df, dr) in ORTHOGONAL {
                    let leg = from.step(df, dr);
                    if !leg.on_board() || self.at(leg).is_some() {
                        continue;
                    }
                    let outward = if df == 0 {
                        [leg.step(1, dr), leg.step(-1, dr)]
                    } else {
                        [leg.step(df, 1), leg.step(df, -1)]
                    };
                    for to in outward {
                        if free(to) {
                            out.push(to);
                        }
                    }
                }
            }
            Kind::Chariot => {
                for (df, dr) in ORTHOGONAL {
                    let mut to = from.step(df, dr);
                    while to.on_board() {
                        match self.at(to) {
                            None => out.push(to),
                            Some(m) => {
                                if m.side != side {
                                    out.push(to);
                                }
                                break;
                            }
                        }
                        to = to.step(df, dr);
                    }
                }
            }
            Kind::Cannon => {
                for (df, dr) in ORTHOGONAL {
                    let mut to = from.step(df, dr);
                    // Quiet moves up to the first piece, which is the screen.
                    while to.on_board() && self.at(to).is_none() {
                        out.push(to);
                        to = to.step(df, dr);
                    }
                    // Past the screen, the first piece is the only possible capture.
                    to = to.step(df, dr);
                    while to.on_board() {
                        if let Some(m) = self.at(to) {
                            if m.side != side {
                                out.push(to);
                            }
                            break;
                        }
                        to = to.step(df, dr);
                    }
                }
            }
            Kind::Soldier => {
                let fwd = forward(side);
                let ahead = from.step(0, fwd);
                if free(ahead) {
                    out.push(ahead);
                }
                let crossed = !on_own_half(side, from);
                if crossed {
                    for df in [1, -1] {
                        let to = from.step(df, 0);
                        if free(to) {
                            out.push(to);
                        }
                    }
                }
            }
        }
        out
    }

    /// Whether the two generals stand on one file with no piece between them (§3.2).
    pub fn generals_face(&self) -> bool {
        let (Some(r), Some(b)) = (self.general(Side::Red), self.general(Side::Black)) else {
            return false;
        };
        if r.file != b.file {
            return false;
        }
        let (lo, hi) = if r.rank < b.rank {
            (r.rank, b.rank)
        } else {
            (b.rank, r.rank)
        };
        ((lo + 1)..hi).all(|rank| self.at(Pt::new(r.file, rank)).is_none())
    }

    /// The enemy pieces that attack `side`'s general: those that could move onto it by §2,
    /// plus the enemy general when the generals face each other (§3.2-3).
    pub fn attackers_of_general(&self, side: Side) -> Vec<Pt> {
        let Some(g) = self.general(side) else {
            return Vec::new();
        };
        let mut v = Vec::new();
        for rank in 0..10 {
            for file in 0..9 {
                let p = Pt::new(file, rank);
                match self.at(p) {
                    Some(m) if m.side != side && self.targets(p).contains(&g) => v.push(p),
                    _ => {}
                }
            }
        }
        if self.generals_face() {
            let other = self.general(side.other()).expect("generals face");
            if !v.contains(&other) {
                v.push(other);
            }
        }
        v.sort();
        v
    }

    /// Whether `side`'s general is attacked.
    pub fn general_attacked(&self, side: Side) -> bool {
        !self.attackers_of_general(side).is_empty()
    }

    /// Whether the side to move is in check (§3.3).
    pub fn is_check(&self) -> bool {
        self.general_attacked(self.turn)
    }

    /// Plays a move on the board (no legality test) and passes the turn.
    pub fn apply(&mut self, (from, to): RefMove) -> Option<Man> {
        let man = self.at(from);
        let captured = self.at(to);
        self.set(to, man);
        self.set(from, None);
        self.turn = self.turn.other();
        captured
    }

    /// Whether a move of the side to move is legal: it is one of the piece's §2 moves and,
    /// after it, the mover's general is not attacked (which covers the flying general).
    pub fn is_legal(&self, (from, to): RefMove) -> bool {
        if !from.on_board() || !to.on_board() {
            return false;
        }
        match self.at(from) {
            Some(m) if m.side == self.turn => {}
            _ => return false,
        }
        if !self.targets(from).contains(&to) {
            return false;
        }
        let mut after = self.clone();
        after.apply((from, to));
        !after.general_attacked(self.turn)
    }

    /// All legal moves of the side to move, sorted.
    pub fn legal_moves(&self) -> Vec<RefMove> {
        let mut v = Vec::new();
        for (from, m) in self.men() {
            if m.side != self.turn {
                continue;
            }
            for to in self.targets(from) {
                if self.is_legal((from, to)) {
                    v.push((from, to));
                }
            }
        }
        v.sort();
        v
    }

    /// The legal moves as the crate's moves, sorted by their packed value.
    pub fn legal_moves_as_crate(&self) -> Vec<Move> {
        let mut v: Vec<Move> = self
            .legal_moves()
            .into_iter()
            .map(|(f, t)| Move::new(f.square(), t.square()))
            .collect();
        v.sort();
        v
    }

    /// Checks the rules a position must meet (§7 FEN rejections other than syntax): at most
    /// 1/2/2/2/2/2/5 of a piece, both generals present, every general, advisor, elephant and
    /// soldier on a point it can reach, the generals not facing, the side not to move not in
    /// check. Returns the first problem found (the order is not the crate's).
    pub fn validate(&self) -> Result<(), String> {
        for side in [Side::Red, Side::Black] {
            for kind in KINDS {
                let n = self
                    .men()
                    .iter()
                    .filter(|(_, m)| m.side == side && m.kind == kind)
                    .count();
                let max = match kind {
                    Kind::General => 1,
                    Kind::Soldier => 5,
                    _ => 2,
                };
                if n > max {
                    return Err(format!("{n} {side:?} {kind:?}s"));
                }
                if kind == Kind::General && n == 0 {
                    return Err(format!("no {side:?} general"));
                }
            }
        }
        for (p, m) in self.men() {
            if !reachable(m, p) {
                return Err(format!("{m:?} cannot stand on {p:?}"));
            }
        }
        if self.generals_face() {
            return Err("generals face".into());
        }
        if self.general_attacked(self.turn.other()) {
            return Err("side not to move in check".into());
        }
        Ok(())
    }

    /// The board mirrored left-right, same side to move.
    pub fn flip_horizontal(&self) -> RefBoard {
        let mut b = RefBoard::empty(self.turn);
        for (p, m) in self.men() {
            b.set(Pt::new(8 - p.file, p.rank), Some(m));
        }
        b
    }
}

/// The points a piece can ever stand on, listed from RULES.md §2 for Red and mirrored top to
/// bottom for Black.
pub fn reachable(m: Man, p: Pt) -> bool {
    // Seen from the piece's own side: rank 0 is its back rank.
    let rel = match m.side {
        Side::Red => p.rank,
        Side::Black => 9 - p.rank,
    };
    let (f, r) = (p.file, rel);
    match m.kind {
        Kind::General => (3..=5).contains(&f) && (0..=2).contains(&r),
        Kind::Advisor => [(3, 0), (5, 0), (4, 1), (3, 2), (5, 2)].contains(&(f, r)),
        Kind::Elephant => {
            [(2, 0), (6, 0), (0, 2), (4, 2), (8, 2), (2, 4), (6, 4)].contains(&(f, r))
        }
        Kind::Horse | Kind::Chariot | Kind::Cannon => true,
        // Start on ranks 3 (files a, c, e, g, i), move forward, then sideways across the river.
        Kind::Soldier => r >= 5 || ((r == 3 || r == 4) && f % 2 == 0),
    }
}

/// Counts leaf nodes of the reference move tree (to check the reference itself against the
/// published perft counts).
pub fn perft(b: &RefBoard, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let moves = b.legal_moves();
    if depth == 1 {
        return moves.len() as u64;
    }
    let mut n = 0;
    for m in moves {
        let mut child = b.clone();
        child.apply(m);
        n += perft(&child, depth - 1);
    }
    n
}
