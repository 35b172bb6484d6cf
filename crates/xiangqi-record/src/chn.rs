//! 联众 (Ourgame) records, `.chn` and `.xqi`, in two layouts.
//!
//! **The "GL" layout** (the files 联众 writes, `.chn` and `.xqi` alike): the bytes `GL`, then a
//! header of 472 bytes in all, then 36 bytes a move. Little-endian throughout:
//!
//! | bytes | what |
//! |---|---|
//! | 0-1 | `GL` |
//! | 2-7 | three 16-bit numbers (2000, 2004, 1 in the files seen) |
//! | 8-35 | the date, as C's `ctime` writes it (`Tue Dec 27 20:57:56 2016`, a newline, NULs) |
//! | 36-99 | the title, GBK, NUL-padded (`木易四郎[05355621689] - 温柔一刀[jyq0811]`) |
//! | 100, 120, 140, 160 | Red's account, Red's name, Black's account, Black's name: 20 bytes each, GBK, NUL-padded |
//! | 180-269 | the start position: 90 bytes, a column of ten a time from the left, each from the top |
//! | 270-359 | the final position, the same way |
//! | 360-471 | not known (byte 364 is the number of moves in the files seen) |
//!
//! A square holds 0 or a piece: the low four bits its kind (1 chariot, 2 horse, 3 cannon, 4
//! general, 5 advisor, 6 elephant, 7 soldier; 8 more for Black's), the high four bits which one
//! of its kind (1 the first). A move record is three 32-bit numbers (its own address in the
//! writer's memory, the previous record's and the next one's: a list dumped from memory), two
//! bytes not known, the from-square and the to-square as `row * 16 + column` (row 0 at the
//! top), the moving piece and the captured one (0 for none) in the board's code, then 18 bytes
//! (the side's clock among them). The first record is the list's head: no move, its squares
//! `0xff`. The board is read as stored; a board with Red's general at the top is turned round.
//!
//! Worked out here from two real files of one game (a `.chn` of 45 plies and an `.xqi` of 44,
//! in zfdang/chinese-chess-fish-android, MIT) against 联众's text export of it: the moves, the
//! pieces and the final position agree. No description of this layout was found.
//!
//! **The layout ElephantEye describes**: a 188-byte header, then 32 bytes a move.
//!
//! A move is sixteen little-endian 16-bit words: two not known, then the from-column, the
//! from-row, the to-column and the to-row (columns 0-8 from the left, rows 0-9 from the top
//! when Red's pieces start at the bottom), then ten not known. As in CCM, the board may be
//! turned round: when Red's first move starts in the stored top half (row 0-4), every column
//! `c` is `8 - c` and every row `r` is `9 - r`. The game starts from the standard position;
//! what the header holds is not known, so nothing of it is read.
//!
//! Where the layout comes from (read only, nothing copied): ElephantEye's `Chn2Pgn` converter
//! (xqbase/eleeye `XQFTOOLS/chn2pgn.cpp`, LGPL: the header skipped at byte 188, the 32-byte
//! record and its four coordinate words, the turned board). No file of this layout was found.

use xiangqi::{Board, Color, Piece, Role, Square};

use crate::model::{GameRecord, GameResult};
use crate::rawtree::{
    start_position, to_lines, tree_reader_entry_points, ErrorKind, Format, RawTree, ReadError, Slot,
};

/// The error type of this reader.
pub type ChnError = ReadError;

const F: Format = Format::Chn;
const HEADER: usize = 188;
const RECORD: usize = 32;
/// More moves than a game has: a longer file is no CHN record.
const MAX_MOVES: usize = 4096;

fn word(r: &[u8], i: usize) -> u16 {
    u16::from_le_bytes([r[2 * i], r[2 * i + 1]])
}

/// The stored squares of a record: from-column, from-row, to-column, to-row.
fn coords(r: &[u8]) -> (u16, u16, u16, u16) {
    (word(r, 2), word(r, 3), word(r, 4), word(r, 5))
}

/// Whether a whole record's squares are on the board and different.
fn on_board(r: &[u8]) -> bool {
    let (fc, fr, tc, tr) = coords(r);
    fc <= 8 && tc <= 8 && fr <= 9 && tr <= 9 && (fc, fr) != (tc, tr)
}

/// Where a layout's move records start, their size, the fewest a file holds and the test of
/// a sound one: the shape both layouts share.
struct Moves {
    start: usize,
    record: usize,
    least: usize,
    ok: fn(&[u8]) -> bool,
}

impl Moves {
    /// Whole records from `start` to the end, from `least` to [`MAX_MOVES`] of them, all sound.
    fn whole(&self, bytes: &[u8]) -> bool {
        bytes.len() >= self.start + self.least * self.record
            && (bytes.len() - self.start).is_multiple_of(self.record)
            && (bytes.len() - self.start) / self.record <= MAX_MOVES
            && bytes[self.start..]
                .chunks_exact(self.record)
                .all(|r| (self.ok)(r))
    }

    /// Not [`Moves::whole`], but the first [`crate::rawtree::DAMAGED_MIN_MOVES`] records
    /// whole and sound, then one unsound or cut short: its number, byte and whether it is cut
    /// short.
    fn damaged(&self, bytes: &[u8]) -> Option<(usize, usize, bool)> {
        let good = self.start + crate::rawtree::DAMAGED_MIN_MOVES * self.record;
        if self.whole(bytes)
            || bytes.len() < good
            || bytes.len() > self.start + MAX_MOVES * self.record
            || !bytes[self.start..good]
                .chunks_exact(self.record)
                .all(|r| (self.ok)(r))
        {
            return None;
        }
        let k = bytes[self.start..]
            .chunks(self.record)
            .position(|r| r.len() < self.record || !(self.ok)(r))?;
        let at = self.start + k * self.record;
        Some((k + 1, at, bytes.len() - at < self.record))
    }
}

/// The layout ElephantEye describes: a 188-byte header, then 32-byte records.
const MOVES_188: Moves = Moves {
    start: HEADER,
    record: RECORD,
    least: 1,
    ok: on_board,
};

/// Cheap check: a header and at least one whole 32-byte record, every record's squares on
/// the board and different.
pub fn looks_like(bytes: &[u8]) -> bool {
    gl::looks_like(bytes) || (!bytes.starts_with(gl::MAGIC) && MOVES_188.whole(bytes))
}

/// A CHN file damaged after its start, which [`looks_like`] does not take: a header and the
/// first [`crate::rawtree::DAMAGED_MIN_MOVES`] records whole with their squares on the board,
/// then a record off the board or cut short. Answers the damaged move's number, its byte and
/// whether it is cut short (else off the board), for a message and for `Mode::Salvage`,
/// which keeps the moves before it.
pub fn damaged(bytes: &[u8]) -> Option<(usize, usize, bool)> {
    if bytes.starts_with(gl::MAGIC) {
        return gl::damaged(bytes);
    }
    MOVES_188.damaged(bytes)
}

tree_reader_entry_points!(
    "an Ourgame CHN or XQI file (one game, no variations)",
    read_impl
);

fn read_impl(
    bytes: &[u8],
    dropped: Option<&mut Vec<ChnError>>,
    salvage: bool,
) -> Result<GameRecord, ChnError> {
    if bytes.starts_with(gl::MAGIC) {
        return gl::read(bytes, dropped, salvage);
    }
    if bytes.len() < HEADER {
        return Err(ReadError::at(
            F,
            bytes.len(),
            ErrorKind::Truncated {
                what: "the 188-byte header",
            },
        ));
    }
    let body = &bytes[HEADER..];
    let whole = body.len() / RECORD * RECORD;
    let mut tail = None;
    if whole < body.len() {
        let e = ReadError::invalid(
            F,
            HEADER + whole,
            format!(
                "a CHN file holds 32 bytes a move after its header; the last {} bytes are no \
                 whole move",
                body.len() - whole
            ),
        );
        if !salvage {
            return Err(e);
        }
        tail = Some(e);
    }
    let turned = body.len() >= RECORD && coords(body).1 < 5;
    let mut tree = RawTree::salvaging(salvage);
    let mut parent = None;
    for (k, r) in body.chunks_exact(RECORD).enumerate() {
        let at = HEADER + k * RECORD;
        let (fc, fr, tc, tr) = coords(r);
        let square = |col: u16, row: u16, what: &str, off: usize| {
            if col > 8 || row > 9 {
                return Err(ReadError::invalid(
                    F,
                    at + off,
                    format!(
                        "move {}: the {what} is column {col} (0-8), row {row} (0-9): off the board",
                        k + 1
                    ),
                ));
            }
            let (col, row) = if turned {
                (8 - col, 9 - row)
            } else {
                (col, row)
            };
            Square::new(((9 - row) * 9 + col) as u8)
                .ok_or_else(|| ReadError::invalid(F, at + off, "no square"))
        };
        let (from, to) = match square(fc, fr, "from-square", 4)
            .and_then(|f| Ok((f, square(tc, tr, "to-square", 8)?)))
        {
            Ok(x) => x,
            Err(e) => {
                let left = format!("the last {} bytes were left out", bytes.len() - at);
                tree.stop(Slot::ChildOf(parent), e, left)?;
                break;
            }
        };
        parent = Some(tree.add(Slot::ChildOf(parent), (from, to, None, at)));
    }
    if let Some(e) = tail {
        let left = format!(
            "the last {} bytes were left out",
            bytes.len() - HEADER - whole
        );
        tree.stop(Slot::ChildOf(parent), e, left)?;
    }
    let start = start_position(F, Board::start(), Color::Red, 1, &tree, 0)?;
    let moves = to_lines(F, &tree, &start, dropped)?;
    let mut rec = GameRecord {
        start,
        moves,
        ..GameRecord::default()
    };
    rec.set_tag("Result", GameResult::Unknown.as_pgn());
    Ok(rec)
}

/// The "GL" layout (see the module's documentation).
mod gl {
    use super::*;

    pub const MAGIC: &[u8] = b"GL";
    const HEADER: usize = 472;
    const RECORD: usize = 36;
    const BOARD: usize = 180;
    #[cfg(test)]
    const FINAL: usize = 270;

    /// The from- and to-square bytes of a record, `row * 16 + column`, or the head's `0xff`.
    fn squares(r: &[u8]) -> (u8, u8) {
        (r[14], r[15])
    }

    fn on_board(b: u8) -> bool {
        b >> 4 <= 9 && b & 15 <= 8
    }

    /// A move record's squares on the board and different.
    fn move_ok(r: &[u8]) -> bool {
        let (f, t) = squares(r);
        on_board(f) && on_board(t) && f != t
    }

    /// The move records, after the header and the head record.
    const MOVES: Moves = Moves {
        start: HEADER + RECORD,
        record: RECORD,
        least: 0,
        ok: move_ok,
    };

    /// `GL`, the header and the head record with no move.
    fn head(bytes: &[u8]) -> bool {
        bytes.starts_with(MAGIC)
            && bytes.len() >= HEADER + RECORD
            && squares(&bytes[HEADER..]) == (0xff, 0xff)
    }

    /// [`head`], then whole 36-byte records (at most [`MAX_MOVES`]), each a move on the board.
    pub fn looks_like(bytes: &[u8]) -> bool {
        head(bytes) && MOVES.whole(bytes)
    }

    /// As [`super::damaged`], for this layout: the head and the first records whole, then a
    /// record off the board or cut short.
    pub fn damaged(bytes: &[u8]) -> Option<(usize, usize, bool)> {
        if !head(bytes) {
            return None;
        }
        MOVES.damaged(bytes)
    }

    /// A GBK string of a NUL-padded field, trimmed; `None` when empty.
    fn text(field: &[u8]) -> Option<String> {
        let end = field.iter().position(|&b| b == 0).unwrap_or(field.len());
        let (s, _, _) = encoding_rs::GBK.decode(&field[..end]);
        let s = s.trim();
        (!s.is_empty()).then(|| s.to_string())
    }

    /// A `ctime` date (`Tue Dec 27 20:57:56 2016`) as PGN's `2016.12.27`.
    fn date(s: &str) -> Option<String> {
        let parts: Vec<&str> = s.split_whitespace().collect();
        let [_, month, day, _, year] = parts[..] else {
            return None;
        };
        const MONTHS: [&str; 12] = [
            "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
        ];
        let m = MONTHS.iter().position(|&x| x == month)? + 1;
        let d: u32 = day.parse().ok()?;
        let y: u32 = year.parse().ok()?;
        Some(format!("{y:04}.{m:02}.{d:02}"))
    }

    /// The board stored at `at`, the byte of its first bad square on an error.
    pub fn board(bytes: &[u8], at: usize) -> Result<Board, ChnError> {
        let mut board = Board::empty();
        for (i, &code) in bytes[at..at + 90].iter().enumerate() {
            if code == 0 {
                continue;
            }
            let role = match code & 7 {
                1 => Role::Chariot,
                2 => Role::Horse,
                3 => Role::Cannon,
                4 => Role::General,
                5 => Role::Advisor,
                6 => Role::Elephant,
                7 => Role::Soldier,
                _ => {
                    return Err(ReadError::invalid(
                        F,
                        at + i,
                        format!("the board's square {i} holds {code:#04x}, which is no piece"),
                    ))
                }
            };
            let color = if code & 8 == 0 {
                Color::Red
            } else {
                Color::Black
            };
            let (col, row) = (i / 10, i % 10);
            let sq = Square::new(((9 - row) * 9 + col) as u8).expect("on the board");
            board.put(sq, Piece::new(color, role));
        }
        Ok(board)
    }

    pub fn read(
        bytes: &[u8],
        dropped: Option<&mut Vec<ChnError>>,
        salvage: bool,
    ) -> Result<GameRecord, ChnError> {
        if bytes.len() < HEADER + RECORD {
            return Err(ReadError::at(
                F,
                bytes.len(),
                ErrorKind::Truncated {
                    what: "the 472-byte header and the list's head",
                },
            ));
        }
        let stored = board(bytes, BOARD)?;
        // Turned round when Red's general stands in the top half.
        let turned = stored
            .pieces()
            .any(|(sq, p)| p == Piece::new(Color::Red, Role::General) && sq.rank().index() > 4);
        let fix = |sq: Square| {
            if turned {
                Square::new(89 - sq.index() as u8).expect("on the board")
            } else {
                sq
            }
        };
        let mut start = Board::empty();
        for (sq, p) in stored.pieces() {
            start.put(fix(sq), p);
        }
        let body = &bytes[HEADER + RECORD..];
        let whole = body.len() / RECORD * RECORD;
        let mut tree = RawTree::salvaging(salvage);
        let mut parent = None;
        let mut fault = None;
        if whole < body.len() {
            fault = Some((
                ReadError::invalid(
                    F,
                    HEADER + RECORD + whole,
                    format!(
                        "a CHN file holds 36 bytes a move after its header; the last {} bytes \
                         are no whole move",
                        body.len() - whole
                    ),
                ),
                HEADER + RECORD + whole,
            ));
        }
        for (k, r) in body.chunks_exact(RECORD).enumerate() {
            let at = HEADER + RECORD + k * RECORD;
            let (f, t) = squares(r);
            let square = |b: u8, what: &str, off: usize| {
                if !on_board(b) {
                    return Err(ReadError::invalid(
                        F,
                        at + off,
                        format!(
                            "move {}: the {what} is row {}, column {} (rows 0-9, columns 0-8): \
                             off the board",
                            k + 1,
                            b >> 4,
                            b & 15
                        ),
                    ));
                }
                let sq = Square::new((9 - (b >> 4)) * 9 + (b & 15)).expect("on the board");
                Ok(fix(sq))
            };
            match square(f, "from-square", 14).and_then(|f| Ok((f, square(t, "to-square", 15)?))) {
                Ok((from, to)) => {
                    parent = Some(tree.add(Slot::ChildOf(parent), (from, to, None, at)));
                }
                Err(e) => {
                    fault = Some((e, at));
                    break;
                }
            }
        }
        if let Some((e, at)) = fault {
            let left = format!("the last {} bytes were left out", bytes.len() - at);
            tree.stop(Slot::ChildOf(parent), e, left)?;
        }
        let start = start_position(F, start, Color::Red, 1, &tree, BOARD)?;
        let moves = to_lines(F, &tree, &start, dropped)?;
        let mut rec = GameRecord {
            start,
            moves,
            ..GameRecord::default()
        };
        if let Some(title) = text(&bytes[36..100]) {
            rec.set_tag("Event", title);
        }
        if let Some(d) = text(&bytes[8..36]).and_then(|s| date(&s)) {
            rec.set_tag("Date", d);
        }
        for (tag, at) in [("Red", 120), ("Black", 160)] {
            if let Some(name) = text(&bytes[at..at + 20]) {
                rec.set_tag(tag, name);
            }
        }
        for (tag, at) in [("RedId", 100), ("BlackId", 140)] {
            if let Some(id) = text(&bytes[at..at + 20]) {
                rec.set_tag(tag, id);
            }
        }
        rec.set_tag("Result", GameResult::Unknown.as_pgn());
        Ok(rec)
    }

    /// The final position the file stores (turned as the start is), for the tests.
    #[cfg(test)]
    pub fn final_board(bytes: &[u8]) -> Board {
        board(bytes, FINAL).expect("a board")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file of moves given as (from-column, from-row, to-column, to-row) from the top.
    fn build(moves: &[(u16, u16, u16, u16)]) -> Vec<u8> {
        let mut b = vec![0u8; HEADER];
        for &(a, b2, c, d) in moves {
            let mut r = [0u16; 16];
            r[2..6].copy_from_slice(&[a, b2, c, d]);
            b.extend(r.iter().flat_map(|w| w.to_le_bytes()));
        }
        b
    }

    #[test]
    fn either_way_up() {
        // 炮二平五 马8进7: h2e2 is column 7 to 4 on row 7; h9g7 column 7 to 6, row 0 to 2.
        let up = build(&[(7, 7, 4, 7), (7, 0, 6, 2)]);
        assert!(looks_like(&up));
        let rec = read(&up).unwrap();
        let ml: Vec<String> = rec.mainline().map(|m| m.to_string()).collect();
        assert_eq!(ml, ["h2e2", "h9g7"]);
        let turned = build(&[(1, 2, 4, 2), (1, 9, 2, 7)]);
        assert_eq!(read(&turned).unwrap(), rec);
    }

    #[test]
    fn gl_file_ends_in_its_stored_final_position() {
        for bytes in [
            &include_bytes!("../tests/data/records/zfdang-ourgame.chn")[..],
            &include_bytes!("../tests/data/records/zfdang-ourgame.xqi")[..],
        ] {
            assert!(gl::looks_like(bytes) && looks_like(bytes));
            let rec = read(bytes).unwrap();
            let mut p = rec.start.clone();
            for m in rec.mainline() {
                p.play_unchecked(m);
            }
            assert_eq!(p.board(), &gl::final_board(bytes));
        }
        // A board square that holds no piece is named.
        let mut b = include_bytes!("../tests/data/records/zfdang-ourgame.chn").to_vec();
        b[180 + 5] = 0x08;
        let e = read(&b).unwrap_err().to_string();
        assert!(e.contains("byte 185") && e.contains("no piece"), "{e}");
    }

    #[test]
    fn errors_name_the_move() {
        let b = build(&[(7, 7, 4, 7), (7, 0, 9, 2)]);
        assert!(!looks_like(&b));
        let e = read(&b).unwrap_err().to_string();
        assert!(
            e.starts_with("CHN at byte 228") && e.contains("move 2"),
            "{e}"
        );
        let b = build(&[(7, 7, 4, 7)]);
        let e = read(&b[..b.len() - 3]).unwrap_err().to_string();
        assert!(e.contains("no whole move"), "{e}");
        assert!(read(&b[..100]).unwrap_err().to_string().contains("header"));
    }
}
