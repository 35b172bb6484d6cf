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

use crate::model::{GameRecord, GameResult};
use crate::rawtree::{
    gbk, le32, nonempty, place, start_position, to_lines, ErrorKind, Format, RawTree, ReadError,
    Slot, SIDE_ROLES,
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

/// Reads an XQF file: tags, set-up position, comments and the whole variation tree. Any
/// illegal move (main line or variation) is an error.
pub fn read(bytes: &[u8]) -> Result<GameRecord, XqfError> {
    read_impl(bytes, None)
}

/// Like [`read`], but an illegal move inside a variation only drops that branch from the move
/// on (see [`crate::rawtree`]); the errors for what was left out are returned beside the
/// record. An illegal main-line move is still the error.
pub fn read_lenient(bytes: &[u8]) -> Result<(GameRecord, Vec<XqfError>), XqfError> {
    let mut dropped = Vec::new();
    let rec = read_impl(bytes, Some(&mut dropped))?;
    Ok((rec, dropped))
}

fn read_impl(bytes: &[u8], dropped: Option<&mut Vec<XqfError>>) -> Result<GameRecord, XqfError> {
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
    let tree = read_tree(&data, version, &keys)?;

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
        .ok_or_else(|| ReadError::truncated(F, HEADER_LEN + data.len(), "a move record"))?;
    let (src, dst, tag) = (rec[0], rec[1], rec[2]);
    *pos += 4;
    let (has_next, has_alt, comment_len) = if version <= 10 {
        let len = le32(data, *pos)
            .ok_or_else(|| ReadError::truncated(F, HEADER_LEN + data.len(), "a comment length"))?;
        *pos += 4;
        (tag & 0xf0 != 0, tag & 0x0f != 0, len as i64)
    } else {
        let len = if tag & 0x20 != 0 {
            let raw = le32(data, *pos).ok_or_else(|| {
                ReadError::truncated(F, HEADER_LEN + data.len(), "a comment length")
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

fn read_tree(data: &[u8], version: u8, keys: &Keys) -> Result<RawTree, XqfError> {
    let mut tree = RawTree::new();
    if data.is_empty() {
        return Ok(tree);
    }
    let mut pos = 0usize;
    let root = read_record(data, &mut pos, version, keys)?;
    tree.root_comment = root.comment;
    if !root.has_next {
        return Ok(tree);
    }
    let mut pending = vec![Slot::ChildOf(None)];
    while let Some(slot) = pending.pop() {
        let at = HEADER_LEN + pos;
        let r = read_record(data, &mut pos, version, keys)?;
        let from = xqf_square(r.src).ok_or(ReadError::at(
            F,
            at,
            ErrorKind::BadSquare {
                what: "a move's from-square",
                value: r.src as u32,
            },
        ))?;
        let to = xqf_square(r.dst).ok_or(ReadError::at(
            F,
            at,
            ErrorKind::BadSquare {
                what: "a move's to-square",
                value: r.dst as u32,
            },
        ))?;
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
