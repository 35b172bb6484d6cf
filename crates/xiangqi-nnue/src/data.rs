//! The training-data format: what `xiangqi-engine datagen` writes and the trainer reads.
//!
//! A file is a 16-byte header followed by 32-byte records, nothing else:
//!
//! | bytes | header field |
//! |---|---|
//! | 0-7 | magic `XQNNDATA` |
//! | 8-9 | version (`u16`, [`DATA_VERSION`]) |
//! | 10-11 | record length (`u16`, 32) |
//! | 12-15 | reserved, zero |
//!
//! | bytes | record field |
//! |---|---|
//! | 0-11 | occupied points: bit `i` of this 96-bit little-endian number is point `i` (rank * 9 + file, a0 = 0); bits 90-95 zero |
//! | 12-27 | the pieces on the occupied points, lowest point first, 4 bits each (low nibble first): colour * 7 + role (red 0-6, black 7-13; general, advisor, elephant, horse, chariot, cannon, soldier); unused nibbles 15 |
//! | 28-29 | the search score in centipawns from the side to move (`i16`) |
//! | 30 | the game's result from Red's side: 0 Black won, 1 draw, 2 Red won |
//! | 31 | flags: bit 0 set when Black is to move; other bits zero |
//!
//! Records are only ever appended, a whole game's at a time, so an interrupted run leaves
//! at most a partial last record: [`DataReader`] stops cleanly before it (and says so),
//! and [`DataWriter::open`] cuts it off before appending again.

use std::fs::{File, OpenOptions};
use std::io::{BufReader, Read, Seek, SeekFrom, Write};
use std::path::Path;

use xiangqi::{Bitboard, Board, Color, Piece};

pub const DATA_MAGIC: &[u8; 8] = b"XQNNDATA";
pub const DATA_VERSION: u16 = 1;
pub const HEADER_LEN: usize = 16;
pub const RECORD_LEN: usize = 32;

/// A game's result.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum GameResult {
    BlackWin = 0,
    Draw = 1,
    RedWin = 2,
}

impl GameResult {
    pub fn from_winner(w: Option<Color>) -> GameResult {
        match w {
            None => GameResult::Draw,
            Some(Color::Red) => GameResult::RedWin,
            Some(Color::Black) => GameResult::BlackWin,
        }
    }
    /// 1 for a win of `side`, 0.5 for a draw, 0 for a loss.
    pub fn score_for(self, side: Color) -> f32 {
        let red = self as u8 as f32 / 2.0;
        match side {
            Color::Red => red,
            Color::Black => 1.0 - red,
        }
    }
}

/// One training position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    pub board: Board,
    pub turn: Color,
    /// The search score in centipawns from the side to move.
    pub score: i16,
    pub result: GameResult,
}

/// Why data could not be read or written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DataError(pub String);

impl std::fmt::Display for DataError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for DataError {}

impl Record {
    /// The record's 32 bytes; `None` when the board has more than 32 pieces.
    pub fn encode(&self) -> Option<[u8; RECORD_LEN]> {
        let mut b = [0u8; RECORD_LEN];
        let occ = self.board.occupied();
        if occ.count() > 32 {
            return None;
        }
        b[..12].copy_from_slice(&occ.0.to_le_bytes()[..12]);
        b[12..28].fill(0xff);
        for (i, (_, p)) in self.board.pieces().enumerate() {
            let byte = &mut b[12 + i / 2];
            let v = p.index() as u8;
            *byte = if i % 2 == 0 {
                (*byte & 0xf0) | v
            } else {
                (*byte & 0x0f) | (v << 4)
            };
        }
        b[28..30].copy_from_slice(&self.score.to_le_bytes());
        b[30] = self.result as u8;
        b[31] = (self.turn == Color::Black) as u8;
        Some(b)
    }

    /// Reads a record, checking every field; the error says what is wrong.
    pub fn decode(b: &[u8; RECORD_LEN]) -> Result<Record, String> {
        let mut o = [0u8; 16];
        o[..12].copy_from_slice(&b[..12]);
        let occ = Bitboard(u128::from_le_bytes(o));
        if occ.0 >> 90 != 0 {
            return Err("occupancy bits above point 89 are set".into());
        }
        let n = occ.count() as usize;
        if n > 32 {
            return Err(format!("{n} occupied points (at most 32)"));
        }
        let mut board = Board::empty();
        for (i, sq) in occ.into_iter().enumerate() {
            let v = (b[12 + i / 2] >> (4 * (i % 2))) & 0xf;
            if v >= 14 {
                return Err(format!("piece code {v} on point {sq} (codes are 0-13)"));
            }
            board.put(sq, Piece::from_index(v as usize));
        }
        for i in n..32 {
            if (b[12 + i / 2] >> (4 * (i % 2))) & 0xf != 0xf {
                return Err(format!("unused piece slot {i} is not 15"));
            }
        }
        for c in Color::ALL {
            let g = board.count(Piece::new(c, xiangqi::Role::General));
            if g != 1 {
                return Err(format!("{g} {c} generals (need exactly one)"));
            }
        }
        let result = match b[30] {
            0 => GameResult::BlackWin,
            1 => GameResult::Draw,
            2 => GameResult::RedWin,
            r => return Err(format!("result code {r} (0, 1 or 2)")),
        };
        if b[31] & !1 != 0 {
            return Err(format!("flags {:#04x} set reserved bits", b[31]));
        }
        Ok(Record {
            board,
            turn: if b[31] & 1 == 1 {
                Color::Black
            } else {
                Color::Red
            },
            score: i16::from_le_bytes([b[28], b[29]]),
            result,
        })
    }
}

fn header() -> [u8; HEADER_LEN] {
    let mut h = [0u8; HEADER_LEN];
    h[..8].copy_from_slice(DATA_MAGIC);
    h[8..10].copy_from_slice(&DATA_VERSION.to_le_bytes());
    h[10..12].copy_from_slice(&(RECORD_LEN as u16).to_le_bytes());
    h
}

fn check_header(h: &[u8], what: &str) -> Result<(), DataError> {
    if h.len() < HEADER_LEN {
        return Err(DataError(format!(
            "{what}: {} bytes, shorter than the {HEADER_LEN}-byte header",
            h.len()
        )));
    }
    if &h[..8] != DATA_MAGIC {
        return Err(DataError(format!(
            "{what}: not a training-data file (the first 8 bytes are not XQNNDATA)"
        )));
    }
    let v = u16::from_le_bytes([h[8], h[9]]);
    if v != DATA_VERSION {
        return Err(DataError(format!(
            "{what}: data version {v}, this build reads version {DATA_VERSION}"
        )));
    }
    let len = u16::from_le_bytes([h[10], h[11]]) as usize;
    if len != RECORD_LEN {
        return Err(DataError(format!(
            "{what}: record length {len}, expected {RECORD_LEN}"
        )));
    }
    Ok(())
}

/// Appends records to a data file.
pub struct DataWriter {
    file: File,
    records: u64,
}

impl DataWriter {
    /// Opens `path` for appending, creating it with a header if it does not exist or is
    /// empty. An existing file's header is checked, and a partial last record (from an
    /// interrupted run) is cut off. Returns the writer; [`DataWriter::records`] is the
    /// number of whole records already there.
    pub fn open(path: &Path) -> Result<DataWriter, DataError> {
        let what = path.display().to_string();
        let io = |e: std::io::Error| DataError(format!("{what}: {e}"));
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
            .map_err(io)?;
        let mut len = file.metadata().map_err(io)?.len();
        if len > 0 && len < HEADER_LEN as u64 {
            // A run killed while writing the header: start again if that is what it is.
            let mut h = Vec::new();
            file.read_to_end(&mut h).map_err(io)?;
            if header().starts_with(&h) {
                file.set_len(0).map_err(io)?;
                file.seek(SeekFrom::Start(0)).map_err(io)?;
                len = 0;
            } else {
                check_header(&h, &what)?;
            }
        }
        if len == 0 {
            file.write_all(&header()).map_err(io)?;
            file.sync_data().map_err(io)?;
            return Ok(DataWriter { file, records: 0 });
        }
        let mut h = vec![0u8; HEADER_LEN.min(len as usize)];
        file.read_exact(&mut h).map_err(io)?;
        check_header(&h, &what)?;
        let records = (len - HEADER_LEN as u64) / RECORD_LEN as u64;
        let whole = HEADER_LEN as u64 + records * RECORD_LEN as u64;
        if whole != len {
            file.set_len(whole).map_err(io)?;
        }
        file.seek(SeekFrom::Start(whole)).map_err(io)?;
        Ok(DataWriter { file, records })
    }

    /// Whole records in the file.
    pub fn records(&self) -> u64 {
        self.records
    }

    /// Appends records in one write and flushes them to the file.
    pub fn append(&mut self, records: &[Record]) -> Result<(), DataError> {
        let mut buf = Vec::with_capacity(records.len() * RECORD_LEN);
        for r in records {
            let b = r
                .encode()
                .ok_or_else(|| DataError("a record has more than 32 pieces".into()))?;
            buf.extend_from_slice(&b);
        }
        self.file
            .write_all(&buf)
            .and_then(|_| self.file.flush())
            .map_err(|e| DataError(format!("writing training data: {e}")))?;
        self.records += records.len() as u64;
        Ok(())
    }
}

/// Reads a data file record by record.
pub struct DataReader {
    input: BufReader<File>,
    what: String,
    index: u64,
    /// Bytes of a partial last record found at the end (0 when the file ends cleanly).
    pub truncated: usize,
}

impl DataReader {
    pub fn open(path: &Path) -> Result<DataReader, DataError> {
        let what = path.display().to_string();
        let file = File::open(path).map_err(|e| DataError(format!("{what}: {e}")))?;
        let mut input = BufReader::with_capacity(1 << 20, file);
        let mut h = Vec::with_capacity(HEADER_LEN);
        (&mut input)
            .take(HEADER_LEN as u64)
            .read_to_end(&mut h)
            .map_err(|e| DataError(format!("{what}: {e}")))?;
        check_header(&h, &what)?;
        Ok(DataReader {
            input,
            what,
            index: 0,
            truncated: 0,
        })
    }

    /// The next record; `None` at the end of the file or before a partial last record
    /// ([`DataReader::truncated`] then counts its bytes). A damaged record is an error
    /// naming its index and byte offset.
    pub fn next_record(&mut self) -> Option<Result<Record, DataError>> {
        let mut b = [0u8; RECORD_LEN];
        let mut got = 0;
        while got < RECORD_LEN {
            match self.input.read(&mut b[got..]) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Some(Err(DataError(format!("{}: {e}", self.what)))),
            }
        }
        if got < RECORD_LEN {
            self.truncated = got;
            return None;
        }
        let i = self.index;
        self.index += 1;
        Some(Record::decode(&b).map_err(|e| {
            DataError(format!(
                "{}: record {i} (byte {}): {e}",
                self.what,
                HEADER_LEN as u64 + i * RECORD_LEN as u64
            ))
        }))
    }

    /// Records read so far.
    pub fn records(&self) -> u64 {
        self.index
    }
}

impl Iterator for DataReader {
    type Item = Result<Record, DataError>;
    fn next(&mut self) -> Option<Self::Item> {
        self.next_record()
    }
}

/// Reads every whole record of `path` (up to `limit`); a partial last record is ignored.
pub fn read_all(path: &Path, limit: Option<usize>) -> Result<Vec<Record>, DataError> {
    let mut r = DataReader::open(path)?;
    let mut out = Vec::new();
    while limit.is_none_or(|l| out.len() < l) {
        match r.next_record() {
            Some(rec) => out.push(rec?),
            None => break,
        }
    }
    Ok(out)
}
