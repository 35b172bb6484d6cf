//! XQStudio's binary `.xqf` records, every version: 1.0 (`0x0A`, plain) and 1.1 to 1.8
//! (`0x0B`..`0x12`, encrypted with keys derived from the header).
//!
//! Layout (all offsets in bytes): a 1024-byte header, then the move tree.
//!
//! * Header: `"XQ"`, the version byte, the key bytes (3: mask, 8..12: or-keys, 12: key sum,
//!   13: piece-position key, 14: from-square key, 15: to-square key); 16..48 the squares of the
//!   32 pieces (Red's chariot, horse, elephant, advisor, general, advisor, elephant, horse,
//!   chariot, two cannons, five soldiers, then Black's in the same order), a square being
//!   `file * 10 + rank` with rank 0 on Red's side and anything above 89 meaning "not on the
//!   board"; 50: side to move (1 = Black); 51: result (0 unknown, 1 Red wins, 2 Black wins,
//!   3 or 4 draw); 64: kind of record (0 full game, 1 opening, 2 middle game, 3 endgame);
//!   then length-prefixed GBK strings: title (80), event (208), date (272), site (288), Red
//!   (304), Black (320), time rule (336), Red's time (400), Black's time (416), annotator
//!   (464), author (480).
//! * Encryption (version >= 11): piece squares are shifted by a key (and, from version 12,
//!   rotated in the array); the move area is a byte stream minus a 32-byte key stream built
//!   from the header keys and the string `"[(C) Copyright Mr. Dong Shiwei.]"`; move squares are
//!   shifted by two more keys and comment lengths by a fourth.
//! * Move tree: records of 4 bytes (from + 24, to + 32, flags, reserved) in pre-order. In
//!   version 10 every record is followed by a 4-byte comment length; the flags' high nibble
//!   says "a move follows" and the low nibble "an alternative to this move follows". From
//!   version 11 the flags are bits: `0x80` a move follows, `0x40` an alternative follows,
//!   `0x20` a comment (4-byte length, then the text) follows. The first record stands for the
//!   start position and carries the game's opening comment.

use xiangqi::{Board, Color, Piece, Square};

use crate::model::{GameRecord, GameResult, MoveNode};
use crate::rawtree::{
    gbk, le32, nonempty, place, start_position, to_lines, tree_reader_entry_points, ErrorKind,
    Format, RawTree, ReadError, Slot, SIDE_ROLES,
};

/// The error type of this reader.
pub type XqfError = ReadError;

const F: Format = Format::Xqf;
const HEADER_LEN: usize = 0x400;
const KEY_STREAM_MASK: &[u8; 32] = b"[(C) Copyright Mr. Dong Shiwei.]";

/// What the header says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct XqfHeader {
    /// 10 for XQF 1.0 ... 18 for XQF 1.8.
    pub version: u8,
    /// Whether the move area and piece squares are encrypted (version >= 11).
    pub encrypted: bool,
    /// 0 full game, 1 opening, 2 middle game, 3 endgame (as stored).
    pub game_type: u8,
    /// The raw result byte.
    pub result_byte: u8,
    pub result: GameResult,
    /// Side to move as the header states it (the reader trusts the first move instead).
    pub black_to_move: bool,
    pub title: Option<String>,
    pub event: Option<String>,
    pub date: Option<String>,
    pub site: Option<String>,
    pub red: Option<String>,
    pub black: Option<String>,
    pub time_rule: Option<String>,
    pub red_time: Option<String>,
    pub black_time: Option<String>,
    pub annotator: Option<String>,
    pub author: Option<String>,
}

/// Cheap check: the `XQ` magic and room for the 1024-byte header.
pub fn looks_like(bytes: &[u8]) -> bool {
    bytes.len() >= HEADER_LEN && bytes.starts_with(b"XQ")
}

/// The keys of an encrypted file.
#[derive(Clone, Debug, Default)]
struct Keys {
    piece: u8,
    from: u8,
    to: u8,
    comment: u32,
    stream: [u8; 32],
}

fn square54(b: u8) -> u32 {
    // (((((b*b)*3+9)*3+8)*2+1)*3+8) = 54*b*b + 221; only the low byte is ever used.
    let b = b as u32;
    b.wrapping_mul(b).wrapping_mul(54).wrapping_add(221)
}

fn keys(h: &[u8]) -> Keys {
    let mask = h[3];
    let sum = h[12];
    let xy = h[13];
    let xyf = h[14];
    let xyt = h[15];
    let piece = (square54(xy).wrapping_mul(xy as u32) & 0xff) as u8;
    let from = (square54(xyf).wrapping_mul(piece as u32) & 0xff) as u8;
    let to = (square54(xyt).wrapping_mul(from as u32) & 0xff) as u8;
    let comment = ((sum as u32 * 256 + xy as u32) % 32000) + 767;
    let k = [
        (sum & mask) | h[8],
        (xy & mask) | h[9],
        (xyf & mask) | h[10],
        (xyt & mask) | h[11],
    ];
    let mut stream = [0u8; 32];
    for (i, s) in stream.iter_mut().enumerate() {
        *s = k[i % 4] & KEY_STREAM_MASK[i];
    }
    Keys {
        piece,
        from,
        to,
        comment,
        stream,
    }
}

fn header_string(h: &[u8], at: usize, cap: usize) -> Option<String> {
    let len = (h[at] as usize).min(cap);
    nonempty(gbk(&h[at + 1..at + 1 + len]))
}

/// Reads the header only.
pub fn read_header(bytes: &[u8]) -> Result<XqfHeader, XqfError> {
    if !bytes.starts_with(b"XQ") {
        let shown: Vec<String> = bytes.iter().take(4).map(|b| format!("{b:02x}")).collect();
        return Err(ReadError::at(
            F,
            0,
            ErrorKind::NotThisFormat(format!(
                "an XQF file starts with \"XQ\", this one with [{}]",
                shown.join(" ")
            )),
        ));
    }
    if bytes.len() < HEADER_LEN {
        return Err(ReadError::truncated(F, bytes.len(), "the 1024-byte header"));
    }
    let h = &bytes[..HEADER_LEN];
    let version = h[2];
    let result_byte = h[51];
    let result = match result_byte {
        1 => GameResult::RedWins,
        2 => GameResult::BlackWins,
        3 | 4 => GameResult::Draw,
        _ => GameResult::Unknown,
    };
    Ok(XqfHeader {
        version,
        encrypted: version > 10,
        game_type: h[64],
        result_byte,
        result,
        black_to_move: h[50] == 1,
        title: header_string(h, 80, 127),
        event: header_string(h, 208, 63),
        date: header_string(h, 272, 15),
        site: header_string(h, 288, 15),
        red: header_string(h, 304, 15),
        black: header_string(h, 320, 15),
        time_rule: header_string(h, 336, 63),
        red_time: header_string(h, 400, 15),
        black_time: header_string(h, 416, 15),
        annotator: header_string(h, 464, 15),
        author: header_string(h, 480, 15),
    })
}

tree_reader_entry_points!(
    "an XQF file: tags, set-up position, comments and the whole variation tree", read_impl,
    "The faults: an illegal move, a square off the board, a record or comment cut short; the variations read before the fault are kept too. A bad header (the start position) is still the error."
);

fn read_impl(
    bytes: &[u8],
    dropped: Option<&mut Vec<XqfError>>,
    salvage: bool,
) -> Result<GameRecord, XqfError> {
    let r = read_known(bytes, dropped, salvage);
    // A version byte XQStudio never wrote is read as the nearest layout; when that fails, the
    // version byte is the likely damage, and the error says so.
    match (r, bytes.get(2)) {
        (Err(e), Some(&v)) if bytes.starts_with(b"XQ") && !(10..=18).contains(&v) => {
            Err(ReadError::invalid(
                F,
                2,
                format!(
                    "the header is damaged: version byte {v} is none XQStudio writes (10-18, \
                     XQF 1.0-1.8); read as XQF 1.{}, the file fails: {e}",
                    if v > 10 { "1 or later" } else { "0" }
                ),
            ))
        }
        (r, _) => r,
    }
}

fn read_known(
    bytes: &[u8],
    dropped: Option<&mut Vec<XqfError>>,
    salvage: bool,
) -> Result<GameRecord, XqfError> {
    let header = read_header(bytes)?;
    let h = &bytes[..HEADER_LEN];
    let version = header.version;
    let keys = if header.encrypted {
        keys(h)
    } else {
        Keys::default()
    };

    // Piece squares.
    let mut squares = [0u8; 32];
    for (i, &raw) in h[16..48].iter().enumerate() {
        let slot = if version >= 12 {
            (keys.piece as usize + i + 1) & 31
        } else {
            i
        };
        squares[slot] = raw.wrapping_sub(keys.piece);
    }
    let mut board = Board::empty();
    for (i, &code) in squares.iter().enumerate() {
        if code > 89 {
            continue;
        }
        let color = if i < 16 { Color::Red } else { Color::Black };
        let sq = xqf_square(code).expect("code <= 89");
        place(F, 16, &mut board, sq, Piece::new(color, SIDE_ROLES[i % 16]))?;
    }

    // Move area, decrypted.
    let mut data = bytes[HEADER_LEN..].to_vec();
    if header.encrypted {
        for (i, b) in data.iter_mut().enumerate() {
            *b = b.wrapping_sub(keys.stream[i % 32]);
        }
    }
    let tree = read_tree(&data, version, &keys, salvage)?;

    let turn = if header.black_to_move {
        Color::Black
    } else {
        Color::Red
    };
    let start = start_position(F, board, turn, 1, &tree, 16)?;
    let moves = to_lines(F, &tree, &start, dropped)?;

    let mut rec = GameRecord {
        start,
        comment: tree.root_comment.clone(),
        moves,
        result: header.result,
        ..GameRecord::default()
    };
    let tags: [(&str, &Option<String>); 11] = [
        ("Event", &header.event),
        ("Site", &header.site),
        ("Date", &header.date),
        ("Red", &header.red),
        ("Black", &header.black),
        ("Title", &header.title),
        ("TimeControl", &header.time_rule),
        ("RedTime", &header.red_time),
        ("BlackTime", &header.black_time),
        ("Annotator", &header.annotator),
        ("Author", &header.author),
    ];
    for (name, value) in tags {
        if let Some(v) = value {
            rec.set_tag(name, v.clone());
        }
    }
    rec.set_tag("Result", header.result.as_pgn());
    Ok(rec)
}

/// An XQF square code (`file * 10 + rank`, 0..=89) as a square.
fn xqf_square(code: u8) -> Option<Square> {
    if code > 89 {
        return None;
    }
    Square::new((code % 10) * 9 + code / 10)
}

/// One move record, as read.
struct Record {
    src: u8,
    dst: u8,
    has_next: bool,
    has_alt: bool,
    comment: Option<String>,
}

fn read_record(data: &[u8], pos: &mut usize, version: u8, keys: &Keys) -> Result<Record, XqfError> {
    let at = *pos;
    let file_at = HEADER_LEN + at;
    let rec = data
        .get(at..at + 4)
        .ok_or_else(|| ReadError::truncated(F, file_at, "a move record (4 bytes)"))?;
    let (src, dst, tag) = (rec[0], rec[1], rec[2]);
    *pos += 4;
    let (has_next, has_alt, comment_len) = if version <= 10 {
        let len = le32(data, *pos)
            .ok_or_else(|| ReadError::truncated(F, file_at, "a move record's comment length"))?;
        *pos += 4;
        (tag & 0xf0 != 0, tag & 0x0f != 0, len as i64)
    } else {
        let len = if tag & 0x20 != 0 {
            let raw = le32(data, *pos).ok_or_else(|| {
                ReadError::truncated(F, file_at, "a move record's comment length")
            })?;
            *pos += 4;
            raw as i32 as i64 - keys.comment as i64
        } else {
            0
        };
        (tag & 0x80 != 0, tag & 0x40 != 0, len)
    };
    let comment = if comment_len > 0 {
        let len = comment_len as usize;
        let text = data.get(*pos..*pos + len).ok_or_else(|| {
            ReadError::invalid(
                F,
                file_at,
                format!(
                    "a comment of {len} bytes, but only {} bytes are left",
                    data.len() - *pos
                ),
            )
        })?;
        *pos += len;
        nonempty(gbk(text))
    } else if comment_len < 0 && version <= 10 {
        return Err(ReadError::invalid(
            F,
            file_at,
            format!("negative comment length {comment_len}"),
        ));
    } else {
        None
    };
    Ok(Record {
        src: src.wrapping_sub(0x18).wrapping_sub(keys.from),
        dst: dst.wrapping_sub(0x20).wrapping_sub(keys.to),
        has_next,
        has_alt,
        comment,
    })
}

/// Reads the move tree. Salvaging, a fault (a record cut short, a square off the board) stops
/// the reading there, keeping what was read (see [`RawTree::stop`]).
fn read_tree(data: &[u8], version: u8, keys: &Keys, salvage: bool) -> Result<RawTree, XqfError> {
    let mut tree = RawTree::salvaging(salvage);
    if data.is_empty() {
        return Ok(tree);
    }
    let left = |at: usize| {
        let n = data.len() - at;
        format!(
            "the last {n} byte{} of the file, from this record on, were left out",
            if n == 1 { "" } else { "s" }
        )
    };
    let mut pos = 0usize;
    let root = match read_record(data, &mut pos, version, keys) {
        Ok(r) => r,
        Err(e) => {
            tree.stop(Slot::ChildOf(None), e, left(0))?;
            return Ok(tree);
        }
    };
    tree.root_comment = root.comment;
    // A file that ends right after the root record is a position with no move, whatever the
    // root's flags announce: XQStudio's v10 files of a bare diagram often say a move follows
    // (flags 0xf0) and end there. Nothing of a record is cut, so nothing is lost.
    if !root.has_next || pos == data.len() {
        return Ok(tree);
    }
    let mut pending = vec![Slot::ChildOf(None)];
    while let Some(slot) = pending.pop() {
        let rel = pos;
        let at = HEADER_LEN + pos;
        let squares = read_record(data, &mut pos, version, keys).and_then(|r| {
            let bad = |what, value: u8| {
                ReadError::at(
                    F,
                    at,
                    ErrorKind::BadSquare {
                        what,
                        value: value as u32,
                    },
                )
            };
            let from = xqf_square(r.src).ok_or_else(|| bad("a move's from-square", r.src))?;
            let to = xqf_square(r.dst).ok_or_else(|| bad("a move's to-square", r.dst))?;
            Ok((from, to, r))
        });
        let (from, to, r) = match squares {
            Ok(x) => x,
            Err(e) => {
                tree.stop(slot, e, left(rel))?;
                break;
            }
        };
        let idx = tree.add(slot, (from, to, r.comment, at));
        // Pre-order: this move's continuation comes first, then its alternative.
        if r.has_alt {
            pending.push(Slot::SiblingOf(idx));
        }
        if r.has_next {
            pending.push(Slot::ChildOf(Some(idx)));
        }
    }
    Ok(tree)
}

/// Why [`write_game`] refused a game: what XQF cannot hold.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct XqfWriteError(pub String);

impl std::fmt::Display for XqfWriteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "cannot write XQF: {}", self.0)
    }
}

impl std::error::Error for XqfWriteError {}

/// The header strings the writer fills: tag, offset of the length byte, most bytes (GBK).
const WRITTEN_STRINGS: [(&str, usize, usize); 11] = [
    ("Title", 80, 127),
    ("Event", 208, 63),
    ("Date", 272, 15),
    ("Site", 288, 15),
    ("Red", 304, 15),
    ("Black", 320, 15),
    ("TimeControl", 336, 63),
    ("RedTime", 400, 15),
    ("BlackTime", 416, 15),
    ("Annotator", 464, 15),
    ("Author", 480, 15),
];

/// Writes one game as an XQF file.
///
/// The version written is 1.0 (`0x0A`, unencrypted). It is XQStudio's first layout, which the
/// later XQStudio versions keep reading (files of every version circulate), and cchess's
/// `read_from_xqf` reads it (it decrypts only from 1.1 on and reads 1.0's 4-byte comment
/// length after every record; tests/oracle/xqf_cchess.py checks it on the test collection).
/// The encrypted 1.1-1.8 layouts hold nothing more of a game, only keys derived from header
/// bytes, and an error in writing them would be read as a different game. (No XQStudio run
/// checked the files: it is a Windows program.) Written:
///
/// * the 32 piece squares of the start position (`file * 10 + rank`, `0xFF` for a piece not on
///   the board), Black to move in byte 50, the result in byte 51 (0 unknown, 1 Red wins,
///   2 Black wins, 3 draw), the kind of record in byte 64 (0 full game, 3 endgame for a set-up);
/// * the tags `Title`, `Event`, `Date`, `Site`, `Red`, `Black`, `TimeControl`, `RedTime`,
///   `BlackTime`, `Annotator`, `Author` as length-prefixed GB18030 (GBK) strings in their fixed
///   header slots (at most 127 bytes for the title, 63 for the event and the time rule, 15 for
///   the others); other tags (`Round`, `Opening`, ...) have no place in XQF and are left out;
/// * the move tree in pre-order: a first record for the start position with the game's
///   opening comment, then each move with its comment, its continuation, then its alternative.
///   An alternative to an alternative's first move (PGN's `(a (b))`) is one more alternative
///   at that ply, as XQF has no other way to hold it.
///
/// Refused: a tag value longer than its slot, and a start position with more pieces of a kind
/// than a side's 16 slots hold (three chariots). XQF keeps no move number or half-move clock:
/// the game reads back from move 1.
pub fn write_game(game: &GameRecord) -> Result<Vec<u8>, XqfWriteError> {
    let mut f = vec![0u8; HEADER_LEN];
    f[0] = b'X';
    f[1] = b'Q';
    f[2] = 10;
    // The piece squares, in the slots of SIDE_ROLES; 0xFF for an empty slot.
    for b in &mut f[16..48] {
        *b = 0xff;
    }
    for (sq, piece) in game.start.board().pieces() {
        let base = if piece.color == Color::Red { 16 } else { 32 };
        let k = (0..16)
            .find(|&k| SIDE_ROLES[k] == piece.role && f[base + k] == 0xff)
            .ok_or_else(|| {
                XqfWriteError(format!(
                    "the start position has more {:?} {:?}s than XQF's piece slots hold",
                    piece.color, piece.role
                ))
            })?;
        let i = sq.index();
        f[base + k] = (i % 9 * 10 + i / 9) as u8;
    }
    f[50] = (game.start.turn() == Color::Black) as u8;
    f[51] = match game.result {
        GameResult::Unknown => 0,
        GameResult::RedWins => 1,
        GameResult::BlackWins => 2,
        GameResult::Draw => 3,
    };
    f[64] = if game.start == xiangqi::Position::new() {
        0
    } else {
        3
    };
    for (tag, at, cap) in WRITTEN_STRINGS {
        let Some(v) = game.tag(tag).map(str::trim).filter(|v| !v.is_empty()) else {
            continue;
        };
        let bytes = crate::encoding::encode_gb18030(v);
        if bytes.len() > cap {
            return Err(XqfWriteError(format!(
                "the {tag} tag is {} bytes in GBK, XQF holds at most {cap}: {v:?}",
                bytes.len()
            )));
        }
        f[at] = bytes.len() as u8;
        f[at + 1..at + 1 + bytes.len()].copy_from_slice(&bytes);
    }

    // The start position's record.
    push_record(&mut f, 0, 0, !game.moves.is_empty(), false, &game.comment)?;
    // Pre-order with an explicit stack (a main line may be long): a move, its continuation's
    // subtree, then its alternative.
    let mut stack: Vec<(&[MoveNode], bool)> = Vec::new();
    push_siblings(&mut stack, &game.moves);
    while let Some((line, has_alt)) = stack.pop() {
        let node = &line[0];
        let code = |s: Square| {
            let i = s.index();
            (i % 9 * 10 + i / 9) as u8
        };
        let rest = &line[1..];
        push_record(
            &mut f,
            code(node.mv.from()),
            code(node.mv.to()),
            !rest.is_empty(),
            has_alt,
            &node.comment,
        )?;
        push_siblings(&mut stack, rest);
    }
    Ok(f)
}

/// The lines that start at one ply: `line` and, depth first, the alternatives to its first
/// move (and to theirs), pushed so that `line` pops first; each but the last has an
/// alternative after it.
fn push_siblings<'a>(stack: &mut Vec<(&'a [MoveNode], bool)>, line: &'a [MoveNode]) {
    fn collect<'a>(line: &'a [MoveNode], out: &mut Vec<&'a [MoveNode]>) {
        if line.is_empty() {
            return;
        }
        out.push(line);
        for v in &line[0].variations {
            collect(v, out);
        }
    }
    let mut lines = Vec::new();
    collect(line, &mut lines);
    let n = lines.len();
    for (i, l) in lines.into_iter().enumerate().rev() {
        stack.push((l, i + 1 < n));
    }
}

/// One version-1.0 record: from + 24, to + 32, flags (`0xF0` a move follows, `0x0F` an
/// alternative follows), a reserved byte, then the comment's length (4 bytes, little-endian)
/// and its GB18030 bytes.
fn push_record(
    f: &mut Vec<u8>,
    from: u8,
    to: u8,
    has_next: bool,
    has_alt: bool,
    comment: &Option<String>,
) -> Result<(), XqfWriteError> {
    let flags = if has_next { 0xf0 } else { 0 } | if has_alt { 0x0f } else { 0 };
    f.extend_from_slice(&[from + 0x18, to + 0x20, flags, 0]);
    let text = comment
        .as_deref()
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .map(crate::encoding::encode_gb18030)
        .unwrap_or_default();
    let len = i32::try_from(text.len())
        .map_err(|_| XqfWriteError(format!("a comment of {} bytes", text.len())))?;
    f.extend_from_slice(&len.to_le_bytes());
    f.extend_from_slice(&text);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_match_the_published_formula() {
        // (((((b*b)*3+9)*3+8)*2+1)*3+8) written out for a few bytes.
        for b in [0u8, 1, 7, 200, 255] {
            let x = b as u64;
            let long = (((((x * x) * 3 + 9) * 3 + 8) * 2 + 1) * 3 + 8) * x;
            assert_eq!(
                (square54(b).wrapping_mul(b as u32) & 0xff) as u64,
                long & 0xff
            );
        }
    }

    #[test]
    fn not_xqf_is_named() {
        let e = read(b"PK\x03\x04 not an xqf").unwrap_err();
        assert!(matches!(e.kind, ErrorKind::NotThisFormat(_)));
        assert!(
            e.to_string()
                .starts_with("XQF at byte 0 (0x0): not this format"),
            "{e}"
        );
    }

    #[test]
    fn short_header_is_truncated() {
        let e = read(b"XQ\x0a").unwrap_err();
        assert!(matches!(e.kind, ErrorKind::Truncated { .. }), "{e}");
    }

    /// Builds a version-10 file with the standard start and the given records.
    fn v10(moves: &[(u8, u8, u8)]) -> Vec<u8> {
        let mut f = vec![0u8; HEADER_LEN];
        f[0] = b'X';
        f[1] = b'Q';
        f[2] = 10;
        // Squares are file * 10 + rank.
        let red: [u8; 16] = [0, 10, 20, 30, 40, 50, 60, 70, 80, 12, 72, 3, 23, 43, 63, 83];
        let black: [u8; 16] = [9, 19, 29, 39, 49, 59, 69, 79, 89, 17, 77, 6, 26, 46, 66, 86];
        f[16..32].copy_from_slice(&red);
        f[32..48].copy_from_slice(&black);
        f.extend_from_slice(&[0x18, 0x20, if moves.is_empty() { 0 } else { 0xf0 }, 0xff]);
        f.extend_from_slice(&[0, 0, 0, 0]);
        for (i, &(from, to, alt)) in moves.iter().enumerate() {
            let last = i + 1 == moves.len();
            f.extend_from_slice(&[from + 24, to + 32, if last { 0 } else { 0xf0 } | alt, 0]);
            f.extend_from_slice(&[0, 0, 0, 0]);
        }
        f
    }

    #[test]
    fn an_unknown_version_byte_is_named_when_reading_fails() {
        let mut f = v10(&[(72, 42, 0), (79, 49, 0)]);
        f[2] = 3;
        let e = read(&f).unwrap_err().to_string();
        assert!(
            e.starts_with(
                "XQF at byte 2 (0x2): the header is damaged: version byte 3 is none XQStudio \
                 writes (10-18, XQF 1.0-1.8); read as XQF 1.0, the file fails: XQF at byte 1040"
            ),
            "{e}"
        );
        // A file that reads is kept whatever its version byte.
        let mut f = v10(&[(72, 42, 0), (79, 67, 0)]);
        f[2] = 3;
        assert_eq!(read(&f).unwrap().moves.len(), 2);
    }

    #[test]
    fn plain_v10_main_line() {
        // h2e2 (code 72 -> 42), h9g7 (79 -> 67)
        let f = v10(&[(72, 42, 0), (79, 67, 0)]);
        let rec = read(&f).unwrap();
        let ml: Vec<String> = rec.mainline().map(|m| m.to_string()).collect();
        assert_eq!(ml, ["h2e2", "h9g7"]);
        assert_eq!(rec.start, xiangqi::Position::new());
    }

    #[test]
    fn illegal_move_names_offset_and_ply() {
        // The horse on h9 cannot go to e9.
        let f = v10(&[(72, 42, 0), (79, 49, 0)]);
        let e = read(&f).unwrap_err();
        assert_eq!(e.offset, Some(HEADER_LEN + 16));
        match e.kind {
            ErrorKind::IllegalMove { ply, mainline, .. } => {
                assert_eq!(ply, 2);
                assert!(mainline);
            }
            k => panic!("{k:?}"),
        }
    }

    #[test]
    fn truncated_tree_is_an_error() {
        let mut f = v10(&[(72, 42, 0), (79, 67, 0)]);
        f.truncate(f.len() - 6);
        let e = read(&f).unwrap_err();
        assert!(matches!(e.kind, ErrorKind::Truncated { .. }), "{e}");
    }
}
