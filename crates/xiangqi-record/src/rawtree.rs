//! Shared machinery of the binary and text record readers (XQF, DhtmlXQ, CBF, CBR, CBL):
//! the error type, a move tree as these formats store it (squares only, not yet checked
//! against the rules), and its conversion into the record model with every move of every
//! line checked for legality.
//!
//! The tree is kept in an arena (first child / next sibling indices), so that neither
//! building it nor dropping it recurses: hostile input cannot overflow the stack.

use core::fmt;

use xiangqi::{Board, Color, Move, Piece, Position, PositionError, Role, Setup, Square};

use crate::model::MoveNode;

/// How many whole, sound move records a CCM or CHN file (formats with no signature) must
/// start with before a damaged one for it to be taken as such a file, damaged: a chance
/// byte pattern passes one record's check about once in 500,000, so three are never passed
/// by chance.
pub const DAMAGED_MIN_MOVES: usize = 3;

/// Variations nested deeper than this are refused (converting them recurses once per level).
pub const MAX_VARIATION_DEPTH: usize = 400;

/// The record formats these readers handle.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// XQStudio's binary `.xqf`.
    Xqf,
    /// DhtmlXQ / UBB text record (`[DhtmlXQ_movelist]...`).
    DhtmlXq,
    /// XQBox / CCBridge XML record (`.cbf`).
    Cbf,
    /// CCBridge binary single game (`.cbr`).
    Cbr,
    /// CCBridge binary library of games (`.cbl`).
    Cbl,
    /// PengFei (鹏飞象棋) XML move tree (`.pfc`).
    Pfc,
    /// QQ象棋 numeric text record (`.che`).
    Che,
    /// XQR ("XiangQi Replay") binary record with a CRC (`.xqr`).
    Xqr,
    /// 中国游戏中心 (China Game Center) binary move list (`.ccm`).
    Ccm,
    /// 弈天象棋 (Yitian) record of length-prefixed strings (`.mxq`).
    Mxq,
    /// 联众 (Ourgame) binary move list (`.chn`).
    Chn,
}

impl Format {
    pub fn name(self) -> &'static str {
        match self {
            Format::Xqf => "XQF",
            Format::DhtmlXq => "DhtmlXQ",
            Format::Cbf => "CBF",
            Format::Cbr => "CBR",
            Format::Cbl => "CBL",
            Format::Pfc => "PFC",
            Format::Che => "CHE",
            Format::Xqr => "XQR",
            Format::Ccm => "CCM",
            Format::Mxq => "MXQ",
            Format::Chn => "CHN",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What is wrong with a record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// The data does not start the way this format starts (wrong magic, not the expected markup).
    NotThisFormat(String),
    /// The data ends inside a structure.
    Truncated { what: &'static str },
    /// A square code that is off the board.
    BadSquare { what: &'static str, value: u32 },
    /// The start position the record sets up is not a legal position.
    BadPosition { fen: String, reason: String },
    /// Two pieces placed on one square in the set-up.
    SquareTwice { square: Square },
    /// A move that is not legal where it is played.
    IllegalMove {
        /// Ply number of the move in the game (1 = the first move from the start position).
        ply: usize,
        /// Whether the move is on the main line (false: inside a variation).
        mainline: bool,
        mv: Move,
        fen: String,
    },
    /// Variations nested deeper than [`MAX_VARIATION_DEPTH`].
    TooDeep,
    /// A game record whose board holds no piece (an empty slot of a library).
    EmptyRecord,
    /// Anything else, described.
    Invalid(String),
    /// Lenient reading (`--lenient`, [`crate::detect::Mode::Salvage`]) kept a game up to a
    /// fault: a warning, never an error. `kept` says how far (`kept as far as Red's move
    /// 12`), `cause` what was wrong there, `left_out` what was not read.
    Kept {
        kept: String,
        cause: Box<ErrorKind>,
        left_out: String,
    },
}

/// An error reading a record: the format, where (game number in a library, byte offset), and what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadError {
    pub format: Format,
    /// 1-based game number inside a library (CBL), when the error is in one game.
    pub game: Option<usize>,
    /// Byte offset in the input (in the whole file, also for a game inside a library).
    pub offset: Option<usize>,
    pub kind: ErrorKind,
}

impl ReadError {
    pub fn new(format: Format, offset: Option<usize>, kind: ErrorKind) -> ReadError {
        ReadError {
            format,
            game: None,
            offset,
            kind,
        }
    }
    pub(crate) fn at(format: Format, offset: usize, kind: ErrorKind) -> ReadError {
        ReadError::new(format, Some(offset), kind)
    }
    pub(crate) fn invalid(format: Format, offset: usize, msg: impl Into<String>) -> ReadError {
        ReadError::at(format, offset, ErrorKind::Invalid(msg.into()))
    }
    pub(crate) fn truncated(format: Format, offset: usize, what: &'static str) -> ReadError {
        ReadError::at(format, offset, ErrorKind::Truncated { what })
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ErrorKind::NotThisFormat(s) => write!(f, "not this format: {s}"),
            ErrorKind::Truncated { what } => write!(f, "data ends inside {what}"),
            ErrorKind::BadSquare { what, value } => {
                write!(
                    f,
                    "{what} holds square code {value}, which is off the board"
                )
            }
            ErrorKind::BadPosition { fen, reason } => {
                write!(f, "the start position {fen} is not legal: {reason}")
            }
            ErrorKind::SquareTwice { square } => {
                write!(f, "the set-up puts two pieces on {square}")
            }
            ErrorKind::IllegalMove {
                ply,
                mainline,
                mv,
                fen,
            } => write!(
                f,
                "illegal move {mv} at ply {ply} ({}) in position {fen}",
                if *mainline {
                    "main line"
                } else {
                    "in a variation"
                }
            ),
            ErrorKind::TooDeep => {
                write!(f, "variations nested more than {MAX_VARIATION_DEPTH} deep")
            }
            ErrorKind::EmptyRecord => f.write_str("an empty record: the board holds no piece"),
            ErrorKind::Invalid(s) => f.write_str(s),
            ErrorKind::Kept {
                kept,
                cause,
                left_out,
            } => write!(f, "{kept}: {cause}; {left_out}"),
        }
    }
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.format.name())?;
        if let Some(g) = self.game {
            write!(f, " game {g}")?;
        }
        if let Some(o) = self.offset {
            write!(f, " at byte {o} (0x{o:x})")?;
        }
        write!(f, ": {}", self.kind)
    }
}

impl std::error::Error for ReadError {}

const NONE: u32 = u32::MAX;

/// One move as a format stores it: two squares, a comment, and where it was read.
#[derive(Clone, Debug)]
pub(crate) struct RawNode {
    pub from: Square,
    pub to: Square,
    pub comment: Option<String>,
    /// Byte offset of the move's record in the input.
    pub offset: usize,
    first_child: u32,
    /// The last child added (a hint: later siblings may follow it; see [`RawTree::add`]).
    last_child: u32,
    next_sibling: u32,
}

/// A move tree: the root stands for the start position; a node's children are the moves
/// that may follow it, the first child being the main continuation.
#[derive(Clone, Debug, Default)]
pub(crate) struct RawTree {
    nodes: Vec<RawNode>,
    root_first: u32,
    root_last: u32,
    /// Comment on the start position.
    pub root_comment: Option<String>,
    /// Salvage reading ([`crate::detect::Mode::Salvage`]): an illegal main-line move ends the
    /// game there instead of failing it, and a reader may stop at a fault ([`RawTree::stop`]).
    pub salvage: bool,
    /// Where the reader stopped, salvaging: the error, whether it was on the main line, and
    /// what was left out (a reader that checks a part before reading the moves, as a last
    /// record cut short, may add one more).
    faults: Vec<(ReadError, bool, String)>,
}

/// A place where the next node read goes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Slot {
    /// First child of a node (`None`: of the root).
    ChildOf(Option<usize>),
    /// Next sibling of a node: an alternative to it.
    SiblingOf(usize),
}

impl RawTree {
    pub fn new() -> RawTree {
        RawTree {
            nodes: Vec::new(),
            root_first: NONE,
            root_last: NONE,
            root_comment: None,
            salvage: false,
            faults: Vec::new(),
        }
    }
    /// A tree read for salvaging (see [`RawTree::salvage`]).
    pub fn salvaging(salvage: bool) -> RawTree {
        RawTree {
            salvage,
            ..RawTree::new()
        }
    }
    /// Called by a tree reader at a fault (a record cut short, a square off the board) while
    /// reading the node meant for `slot`: strictly (not salvaging) answers the error back;
    /// salvaging, keeps it with `left_out` (what the reader leaves unread) and answers `Ok`,
    /// and the reader stops, keeping what it read.
    pub fn stop(&mut self, slot: Slot, err: ReadError, left_out: String) -> Result<(), ReadError> {
        if !self.salvage {
            return Err(err);
        }
        let mainline = match slot {
            Slot::ChildOf(None) => true,
            Slot::ChildOf(Some(p)) => self.on_main_line(p),
            Slot::SiblingOf(_) => false,
        };
        self.faults.push((err, mainline, left_out));
        Ok(())
    }
    /// Whether a reader stopped at a fault ([`RawTree::stop`]).
    pub fn stopped(&self) -> bool {
        !self.faults.is_empty()
    }
    fn on_main_line(&self, i: usize) -> bool {
        let mut cur = self.first();
        while let Some(j) = cur {
            if j == i {
                return true;
            }
            cur = self.child(j);
        }
        false
    }
    /// The nodes from `i` on: `i`, its continuations and the alternatives after it, with
    /// theirs.
    fn count_from(&self, i: usize) -> usize {
        let mut n = 0;
        let mut stack = vec![i];
        while let Some(j) = stack.pop() {
            n += 1;
            stack.extend(self.child(j));
            stack.extend(self.sibling(j));
        }
        n
    }
    /// Adds a node at a slot; returns its index. Appending as a child of a node that has
    /// children already adds it after the last of them.
    pub fn add(&mut self, slot: Slot, node: (Square, Square, Option<String>, usize)) -> usize {
        let idx = self.nodes.len();
        self.nodes.push(RawNode {
            from: node.0,
            to: node.1,
            comment: node.2,
            offset: node.3,
            first_child: NONE,
            last_child: NONE,
            next_sibling: NONE,
        });
        let mut cur = match slot {
            Slot::ChildOf(None) => {
                if self.root_first == NONE {
                    self.root_first = idx as u32;
                    self.root_last = idx as u32;
                    return idx;
                }
                self.root_last as usize
            }
            Slot::ChildOf(Some(p)) => {
                if self.nodes[p].first_child == NONE {
                    self.nodes[p].first_child = idx as u32;
                    self.nodes[p].last_child = idx as u32;
                    return idx;
                }
                self.nodes[p].last_child as usize
            }
            Slot::SiblingOf(s) => s,
        };
        // Walk to the last sibling: usually there already (the last child added, or the node
        // an alternative is read for), so appending stays cheap however many children.
        while self.nodes[cur].next_sibling != NONE {
            cur = self.nodes[cur].next_sibling as usize;
        }
        self.nodes[cur].next_sibling = idx as u32;
        match slot {
            Slot::ChildOf(None) => self.root_last = idx as u32,
            Slot::ChildOf(Some(p)) => self.nodes[p].last_child = idx as u32,
            Slot::SiblingOf(_) => {}
        }
        idx
    }
    pub fn node(&self, i: usize) -> &RawNode {
        &self.nodes[i]
    }
    /// The last node added at a slot's place, for appending comments.
    pub fn node_mut(&mut self, i: usize) -> &mut RawNode {
        &mut self.nodes[i]
    }
    fn first(&self) -> Option<usize> {
        opt(self.root_first)
    }
    fn child(&self, i: usize) -> Option<usize> {
        opt(self.nodes[i].first_child)
    }
    fn sibling(&self, i: usize) -> Option<usize> {
        opt(self.nodes[i].next_sibling)
    }
}

fn opt(v: u32) -> Option<usize> {
    if v == NONE {
        None
    } else {
        Some(v as usize)
    }
}

/// Builds the start position from a board: the side to move is the colour of the piece on
/// the first move's from-square when there is one (files often get the side wrong or leave
/// it out), else `turn`. An empty board (a library's page of text) is named as such, with
/// the start of the text it holds.
pub(crate) fn start_position(
    format: Format,
    board: Board,
    turn: Color,
    fullmoves: u32,
    tree: &RawTree,
    offset: usize,
) -> Result<Position, ReadError> {
    if board.pieces().next().is_none() {
        // A page of a book with no diagram: its text is all the file holds.
        let text = tree
            .root_comment
            .as_deref()
            .map(|c| c.trim().chars().take(40).collect::<String>())
            .filter(|c| !c.is_empty());
        let reason = match text {
            Some(t) => {
                format!("the board is empty, no position, only the file's text (\"{t}...\")")
            }
            None => "the board is empty, no position and no move".to_string(),
        };
        return Err(ReadError::at(
            format,
            offset,
            ErrorKind::BadPosition {
                fen: "9/9/9/9/9/9/9/9/9/9 w - - 0 1".to_string(),
                reason,
            },
        ));
    }
    let mut turn = turn;
    if let Some(first) = tree.first() {
        if let Some(p) = board.piece_at(tree.node(first).from) {
            turn = p.color;
        }
    }
    let setup = Setup {
        board,
        turn,
        halfmoves: 0,
        fullmoves: fullmoves.max(1),
    };
    let fen = xiangqi::Fen(setup.clone()).to_string();
    Position::from_setup(setup).map_err(|e: PositionError| {
        ReadError::at(
            format,
            offset,
            ErrorKind::BadPosition {
                fen,
                reason: e.to_string(),
            },
        )
    })
}

/// The roles of a side's 16 pieces in the order XQF and DhtmlXQ list their squares:
/// chariot, horse, elephant, advisor, general, advisor, elephant, horse, chariot, two cannons,
/// five soldiers.
pub(crate) const SIDE_ROLES: [Role; 16] = [
    Role::Chariot,
    Role::Horse,
    Role::Elephant,
    Role::Advisor,
    Role::General,
    Role::Advisor,
    Role::Elephant,
    Role::Horse,
    Role::Chariot,
    Role::Cannon,
    Role::Cannon,
    Role::Soldier,
    Role::Soldier,
    Role::Soldier,
    Role::Soldier,
    Role::Soldier,
];

/// Places a piece on a board being set up, refusing a square used twice.
pub(crate) fn place(
    format: Format,
    offset: usize,
    board: &mut Board,
    sq: Square,
    piece: Piece,
) -> Result<(), ReadError> {
    if board.piece_at(sq).is_some() {
        return Err(ReadError::at(
            format,
            offset,
            ErrorKind::SquareTwice { square: sq },
        ));
    }
    board.put(sq, piece);
    Ok(())
}

/// Converts a tree into the model's main line (with variations), checking every move.
/// Strict (`dropped` is `None`): the first illegal move is the error. Lenient: an illegal
/// move inside a variation ends that branch instead (the move and what follows it are left
/// out; an alternative to it, if any, carries the line on) and the error is added to
/// `dropped`. An illegal move on the main line is an error either way.
pub(crate) fn to_lines(
    format: Format,
    tree: &RawTree,
    start: &Position,
    dropped: Option<&mut Vec<ReadError>>,
) -> Result<Vec<MoveNode>, ReadError> {
    let salvage = tree.salvage && dropped.is_some();
    let mut conv = Converter {
        format,
        tree,
        dropped,
        salvage,
    };
    let moves = conv.line(start, tree.first(), false, 0, 1)?;
    let Some(d) = conv.dropped else {
        return Ok(moves);
    };
    for (err, mainline, left_out) in &tree.faults {
        let kept = if *mainline {
            format!("kept as far as {}", as_far_as(start, moves.len()))
        } else {
            format!(
                "kept with its main line whole (to {}) and a variation cut",
                as_far_as(start, moves.len())
            )
        };
        d.push(ReadError {
            kind: ErrorKind::Kept {
                kept,
                cause: Box::new(err.kind.clone()),
                left_out: left_out.clone(),
            },
            ..err.clone()
        });
    }
    Ok(moves)
}

/// The last of `plies` main-line moves from `start`, for a message: `Red's move 12`, or `the
/// start position (no move)`.
pub(crate) fn as_far_as(start: &Position, plies: usize) -> String {
    if plies == 0 {
        return "the start position (no move)".to_string();
    }
    let black_first = start.turn() == Color::Black;
    let k = plies - 1 + black_first as usize;
    let side = if k.is_multiple_of(2) { "Red" } else { "Black" };
    format!("{side}'s move {}", start.fullmoves() as usize + k / 2)
}

struct Converter<'a> {
    format: Format,
    tree: &'a RawTree,
    dropped: Option<&'a mut Vec<ReadError>>,
    salvage: bool,
}

impl Converter<'_> {
    fn line(
        &mut self,
        start: &Position,
        first: Option<usize>,
        first_is_variation: bool,
        depth: usize,
        ply0: usize,
    ) -> Result<Vec<MoveNode>, ReadError> {
        let tree = self.tree;
        let mut out = Vec::new();
        let mut pos = start.clone();
        let mut cur = first;
        let mut ply = ply0;
        let mut at_first = true;
        while let Some(i) = cur {
            let n = tree.node(i);
            let m = Move::new(n.from, n.to);
            if !pos.is_legal(m) {
                let err = ReadError::at(
                    self.format,
                    n.offset,
                    ErrorKind::IllegalMove {
                        ply,
                        mainline: depth == 0,
                        mv: m,
                        fen: pos.fen(),
                    },
                );
                match self.dropped.as_deref_mut() {
                    // The main line is the game: an illegal move there is always an error.
                    Some(d) if depth > 0 => {
                        d.push(err);
                        if at_first && first_is_variation {
                            // The caller reads this move's alternatives.
                            break;
                        }
                        // An alternative to the bad move, when there is one, carries the line on.
                        cur = tree.sibling(i);
                        continue;
                    }
                    // Salvaging: the game is kept up to the move before it.
                    Some(d) if self.salvage => {
                        let n = tree.count_from(i);
                        d.push(ReadError {
                            kind: ErrorKind::Kept {
                                kept: format!("kept as far as {}", as_far_as(start, out.len())),
                                cause: Box::new(err.kind),
                                left_out: if n == 1 {
                                    "this move record was left out".to_string()
                                } else {
                                    format!(
                                        "this move record and the {} after it were left out",
                                        n - 1
                                    )
                                },
                            },
                            ..err
                        });
                        break;
                    }
                    _ => return Err(err),
                }
            }
            let mut node = MoveNode::new(m);
            node.comment = n.comment.clone();
            if !(at_first && first_is_variation) {
                let mut s = tree.sibling(i);
                while let Some(j) = s {
                    if depth + 1 > MAX_VARIATION_DEPTH {
                        return Err(ReadError::at(
                            self.format,
                            tree.node(j).offset,
                            ErrorKind::TooDeep,
                        ));
                    }
                    let v = self.line(&pos, Some(j), true, depth + 1, ply)?;
                    if !v.is_empty() {
                        node.variations.push(v);
                    }
                    s = tree.sibling(j);
                }
            }
            at_first = false;
            pos.play_unchecked(m);
            out.push(node);
            cur = tree.child(i);
            ply += 1;
        }
        Ok(out)
    }
}

/// Decodes GBK/GB18030 text (XQF strings and comments), replacing undecodable bytes.
pub(crate) fn gbk(bytes: &[u8]) -> String {
    let (s, _) = encoding_rs::GB18030.decode_without_bom_handling(bytes);
    s.into_owned()
}

/// Reads a little-endian u32 at `at`, if there are four bytes.
pub(crate) fn le32(data: &[u8], at: usize) -> Option<u32> {
    let b = data.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// Trims a string and drops it when empty.
pub(crate) fn nonempty(s: String) -> Option<String> {
    let t = s.trim_matches(|c: char| c.is_whitespace() || c == '\0');
    if t.is_empty() {
        None
    } else {
        Some(t.to_owned())
    }
}

/// Counts the variations (branch points) in a converted line, recursively.
pub fn count_variations(line: &[MoveNode]) -> usize {
    line.iter()
        .map(|n| {
            n.variations.len()
                + n.variations
                    .iter()
                    .map(|v| count_variations(v))
                    .sum::<usize>()
        })
        .sum()
}

/// A text format's bytes as text, and the length of the UTF-8 byte-order mark skipped (0 or 3,
/// for error offsets in the file): UTF-8 when the bytes are UTF-8, else GBK (how Chinese
/// Windows programs write).
pub(crate) fn decode_text(bytes: &[u8]) -> (std::borrow::Cow<'_, str>, usize) {
    let (body, shift) = match bytes.strip_prefix(b"\xef\xbb\xbf") {
        Some(rest) => (rest, 3),
        None => (bytes, 0),
    };
    match std::str::from_utf8(body) {
        Ok(s) => (std::borrow::Cow::Borrowed(s), shift),
        Err(_) => (std::borrow::Cow::Owned(gbk(body)), shift),
    }
}

/// The three entry points every tree reader offers — `read` (any fault is the error),
/// `read_lenient` (an illegal move inside a variation drops that branch, with a warning) and
/// `read_salvaging` (a fault on the main line also ends the game there) — around one
/// function `imp(bytes, dropped, salvage)` that does the reading. `$what` names the file in
/// the docs; an optional last literal adds to `read_salvaging`'s doc.
macro_rules! tree_reader_entry_points {
    ($what:literal, $imp:expr $(, $salvage_doc:literal)?) => {
        #[doc = concat!("Reads ", $what, ". Any illegal move (main line or variation) is an error.")]
        pub fn read(bytes: &[u8]) -> Result<GameRecord, ReadError> {
            $imp(bytes, None, false)
        }

        #[doc = concat!(
            "Like [`read`], but an illegal move inside a variation only drops that branch from ",
            "the move on (see [`crate::rawtree`]); the errors for what was left out are returned ",
            "beside the record. An illegal main-line move is still the error."
        )]
        pub fn read_lenient(bytes: &[u8]) -> Result<(GameRecord, Vec<ReadError>), ReadError> {
            let mut dropped = Vec::new();
            let rec = $imp(bytes, Some(&mut dropped), false)?;
            Ok((rec, dropped))
        }

        #[doc = concat!(
            "Like [`read_lenient`], and a fault on the main line ends the game there instead of ",
            "failing it (`xiangqi convert --lenient`, [`crate::detect::Mode::Salvage`]): the ",
            "game is kept with every move before it, and the fault is returned among the ",
            "warnings as [`crate::rawtree::ErrorKind::Kept`], naming its byte.",
            $(" ", $salvage_doc)?
        )]
        pub fn read_salvaging(bytes: &[u8]) -> Result<(GameRecord, Vec<ReadError>), ReadError> {
            let mut dropped = Vec::new();
            let rec = $imp(bytes, Some(&mut dropped), true)?;
            Ok((rec, dropped))
        }
    };
}
pub(crate) use tree_reader_entry_points;
