//! The input features: each piece on each point, seen from one side (a *perspective*).
//!
//! A perspective `p` sees the board with its own side at the bottom (Black's view is the
//! board turned top to bottom) and its pieces as "ours": feature
//! `bucket * 1260 + (relation * 7 + role) * 90 + point`, where `relation` is 0 for `p`'s
//! pieces and 1 for the other side's and `point` is the oriented point (rank * 9 + file).
//!
//! **Mirroring.** The view is also mirrored left-right when `p`'s general stands right of
//! the centre file (files f-i seen from `p`), and, when the general is on the centre file,
//! when the mirrored board sorts before the board itself (piece kind by piece kind, ours
//! first, comparing the oriented bitboards as numbers). So a position and its left-right
//! mirror image have exactly the same features, and so do a position and its colour-flipped
//! twin (the same game seen by the other side): the net evaluates them equally by
//! construction, not by training.
//!
//! **King buckets** ([`KingBuckets::Palace`], optional, as Pikafish does): the features
//! are repeated for each point the (mirrored) general can stand on: ranks 0-2 of files d and
//! e, 6 buckets. With [`KingBuckets::None`] there is one bucket.
//!
//! A move changes at most three features of a perspective (the mover leaves its point and
//! arrives on another; a captured piece leaves) unless the perspective's view changes (its
//! general moved to another bucket, or the mirroring flipped): then the perspective is
//! recomputed from scratch. [`changes`] says which.

use xiangqi::{Board, Color, Piece, Role, Square};

/// Kinds of piece seen from a perspective (ours and theirs, seven roles each).
pub const KINDS: usize = 14;
/// Points of the board.
pub const POINTS: usize = 90;
/// Features per king bucket.
pub const PIECE_FEATURES: usize = KINDS * POINTS;
/// At most this many features are active per perspective (32 pieces).
pub const MAX_ACTIVE: usize = 32;

/// Whether the features are repeated per point of the general.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum KingBuckets {
    /// One set of features.
    None,
    /// One set per point the mirrored general can stand on (6).
    Palace,
}

impl KingBuckets {
    /// Number of buckets.
    pub const fn count(self) -> usize {
        match self {
            KingBuckets::None => 1,
            KingBuckets::Palace => 6,
        }
    }
    /// The code stored in network files.
    pub const fn code(self) -> u32 {
        match self {
            KingBuckets::None => 0,
            KingBuckets::Palace => 1,
        }
    }
    pub fn from_code(c: u32) -> Option<KingBuckets> {
        match c {
            0 => Some(KingBuckets::None),
            1 => Some(KingBuckets::Palace),
            _ => None,
        }
    }
    /// The command-line name (`none` or `palace`).
    pub const fn name(self) -> &'static str {
        match self {
            KingBuckets::None => "none",
            KingBuckets::Palace => "palace",
        }
    }
    pub fn from_name(s: &str) -> Option<KingBuckets> {
        match s {
            "none" => Some(KingBuckets::None),
            "palace" => Some(KingBuckets::Palace),
            _ => None,
        }
    }
    /// Number of input features.
    pub const fn inputs(self) -> usize {
        self.count() * PIECE_FEATURES
    }
}

/// How a perspective sees the board: mirrored or not, and its king bucket.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct View {
    pub mirror: bool,
    pub bucket: u8,
}

/// The point `sq` seen from `p` (its side at the bottom), mirrored when `mirror`.
#[inline]
pub fn orient(p: Color, mirror: bool, sq: Square) -> usize {
    let s = match p {
        Color::Red => sq,
        Color::Black => sq.flip_vertical(),
    };
    if mirror {
        s.flip_horizontal().index()
    } else {
        s.index()
    }
}

/// Whether perspective `p` mirrors the board (see the module documentation).
pub fn mirror_flag(board: &Board, p: Color) -> bool {
    let file = board.general(p).map_or(4, |k| k.file().index());
    if file != 4 {
        return file > 4;
    }
    for color in [p, !p] {
        for role in Role::ALL {
            let bb = board.by_piece(Piece::new(color, role));
            let m = bb.flip_horizontal();
            if bb != m {
                let (a, b) = match p {
                    Color::Red => (bb, m),
                    Color::Black => (bb.flip_vertical(), m.flip_vertical()),
                };
                return b.0 < a.0;
            }
        }
    }
    false
}

/// Perspective `p`'s view of `board`.
pub fn view(board: &Board, p: Color, buckets: KingBuckets) -> View {
    let mirror = mirror_flag(board, p);
    let bucket = match buckets {
        KingBuckets::None => 0,
        KingBuckets::Palace => board.general(p).map_or(0, |k| {
            let o = orient(p, mirror, k);
            let (rank, file) = (o / 9, o % 9);
            if rank <= 2 && (file == 3 || file == 4) {
                (rank * 2 + (file - 3)) as u8
            } else {
                0
            }
        }),
    };
    View { mirror, bucket }
}

/// The feature of `piece` on `sq` for perspective `p` with view `v`.
#[inline]
pub fn feature(p: Color, v: View, piece: Piece, sq: Square) -> usize {
    let rel = (piece.color != p) as usize;
    v.bucket as usize * PIECE_FEATURES
        + (rel * 7 + piece.role.index()) * POINTS
        + orient(p, v.mirror, sq)
}

/// The active features of perspective `p`, appended to `out`; returns the view.
pub fn active(board: &Board, p: Color, buckets: KingBuckets, out: &mut Vec<u16>) -> View {
    let v = view(board, p, buckets);
    for (sq, piece) in board.pieces() {
        out.push(feature(p, v, piece, sq) as u16);
    }
    v
}

/// What a move changes for one perspective.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Change {
    /// The view is the same: these features leave and these arrive.
    Delta {
        removed: [Option<u16>; 2],
        added: u16,
    },
    /// The view changed: recompute from scratch.
    Refresh(View),
}

/// What moving `piece` from `from` to `to` (capturing `captured`) changes for perspective
/// `p`, whose view was `before` and, on the board after the move `after`, is recomputed.
#[allow(clippy::too_many_arguments)]
pub fn changes(
    after: &Board,
    p: Color,
    buckets: KingBuckets,
    before: View,
    piece: Piece,
    from: Square,
    to: Square,
    captured: Option<Piece>,
) -> Change {
    let v = view(after, p, buckets);
    if v != before {
        return Change::Refresh(v);
    }
    Change::Delta {
        removed: [
            Some(feature(p, v, piece, from) as u16),
            captured.map(|c| feature(p, v, c, to) as u16),
        ],
        added: feature(p, v, piece, to) as u16,
    }
}

/// The output bucket: by the number of pieces on the board (2..=32) into `n` buckets.
#[inline]
pub fn output_bucket(board: &Board, n: usize) -> usize {
    let pieces = board.occupied().count() as usize;
    (pieces.saturating_sub(2) * n / 31).min(n - 1)
}
