//! CCBridge (象棋桥) game libraries, `.cbl`: a header (`"CCBridgeLibrary\0"`, the library's
//! name as UTF-16LE at byte 64), an index area, then game records, each a complete CBR
//! record (see [`crate::cbr`]) starting with `"CCBridge Record\0"`, usually one per 4096-byte
//! slot (a long game runs on into the next slot). A game is the bytes from its magic to the
//! next record's magic (or the end of the file).
//!
//! Some libraries are stored compressed: `"CCBridge"`, a little header, then a zlib stream
//! holding the library above. The reader finds the stream (the first zlib header among the
//! first bytes that inflates), inflates it and reads what it holds as an uncompressed library,
//! or, when it is the other layout (GBK strings with a length before them, each game a block
//! of its own: `src/cbl/gbk.rs`), as that; byte offsets in errors are then offsets in the inflated
//! library.

mod gbk;

use crate::cbr;
use crate::model::GameRecord;
use crate::rawtree::{ErrorKind, Format, ReadError};

/// The error type of this reader.
pub type CblError = ReadError;

/// The 16 bytes a library starts with.
pub const MAGIC: &[u8; 16] = b"CCBridgeLibrary\0";

/// A library as read: its name and each game, or the error that game gave.
#[derive(Clone, Debug)]
pub struct Library {
    pub name: Option<String>,
    /// The library's preface (in the GBK layout; the other has none).
    pub preface: Option<String>,
    /// Byte offset of each game record in the file (of the inflated library when compressed).
    /// The lenient reading leaves empty records out of `offsets` and `games`.
    pub offsets: Vec<usize>,
    pub games: Vec<Result<GameRecord, CblError>>,
    /// What the lenient reading ([`read_library_lenient`]) left out of the games that read:
    /// broken variations, each error naming its game. Empty for [`read_library`].
    pub dropped: Vec<CblError>,
}

/// What a compressed library starts with.
pub const COMPRESSED_MAGIC: &[u8; 8] = b"CCBridge";

/// The most an inflated library may hold (a guard against a zip bomb).
pub const MAX_INFLATED: u64 = 1 << 30;

/// Cheap check: the library magic, or `"CCBridge"` (not a single record's magic) followed by a
/// zlib header.
pub fn looks_like(bytes: &[u8]) -> bool {
    bytes.starts_with(MAGIC) || is_compressed(bytes)
}

fn is_compressed(bytes: &[u8]) -> bool {
    bytes.starts_with(COMPRESSED_MAGIC)
        && !bytes.starts_with(MAGIC)
        && !bytes.starts_with(cbr::MAGIC)
        && zlib_starts(bytes).next().is_some()
}

/// Where a zlib stream may start after the magic: a header of deflate (method 8) with a window
/// of at most 32 KiB, no preset dictionary, and its check bits right.
fn zlib_starts(bytes: &[u8]) -> impl Iterator<Item = usize> + '_ {
    let end = bytes.len().min(COMPRESSED_MAGIC.len() + 256);
    (COMPRESSED_MAGIC.len()..end.saturating_sub(1)).filter(move |&i| {
        let (cmf, flg) = (bytes[i], bytes[i + 1]);
        cmf & 0x0f == 8
            && cmf >> 4 <= 7
            && flg & 0x20 == 0
            && (cmf as u16 * 256 + flg as u16).is_multiple_of(31)
    })
}

/// Inflates a compressed library's body.
fn inflate(bytes: &[u8]) -> Result<Vec<u8>, CblError> {
    use std::io::Read;
    let mut last = None;
    for at in zlib_starts(bytes) {
        let mut out = Vec::new();
        let mut z = flate2::read::ZlibDecoder::new(&bytes[at..]).take(MAX_INFLATED + 1);
        match z.read_to_end(&mut out) {
            Ok(_) if out.len() as u64 > MAX_INFLATED => {
                return Err(ReadError::invalid(
                    Format::Cbl,
                    at,
                    format!("the compressed library inflates to more than {MAX_INFLATED} bytes"),
                ))
            }
            Ok(_) => return Ok(out),
            Err(e) => last = Some((at, e)),
        }
    }
    Err(match last {
        Some((at, e)) => ReadError::invalid(
            Format::Cbl,
            at,
            format!("the compressed library does not inflate: {e}"),
        ),
        None => ReadError::invalid(
            Format::Cbl,
            COMPRESSED_MAGIC.len(),
            "\"CCBridge\" but neither a library, a record nor a zlib stream follows",
        ),
    })
}

/// Reads every game; fails on the first game that does not read (the error names it).
pub fn read(bytes: &[u8]) -> Result<Vec<GameRecord>, CblError> {
    read_library(bytes)?.games.into_iter().collect()
}

/// Reads the library, keeping going past games that do not read. Any illegal move of a game
/// (main line or variation) makes that game an error.
pub fn read_library(bytes: &[u8]) -> Result<Library, CblError> {
    read_library_impl(bytes, false, false)
}

/// Like [`read_library`], but an illegal move inside a variation only drops that branch
/// (listed in [`Library::dropped`]); an illegal main-line move is still the game's error.
pub fn read_library_lenient(bytes: &[u8]) -> Result<Library, CblError> {
    read_library_impl(bytes, true, false)
}

/// Like [`read_library_lenient`], and a fault on a game's main line (an illegal move, a
/// square off the board, a record cut short) ends that game there instead of failing it
/// (`xiangqi convert --lenient`): see [`cbr::read_salvaging`]; the fault is listed in
/// [`Library::dropped`] as [`ErrorKind::Kept`].
pub fn read_library_salvaging(bytes: &[u8]) -> Result<Library, CblError> {
    read_library_impl(bytes, true, true)
}

fn read_library_impl(bytes: &[u8], lenient: bool, salvage: bool) -> Result<Library, CblError> {
    if is_compressed(bytes) {
        let body = inflate(bytes)?;
        if body.starts_with(MAGIC) {
            return read_library_impl(&body, lenient, salvage);
        }
        if gbk::looks_like(&body) {
            return gbk::read_library(&body, lenient, salvage);
        }
        // The records without the library header.
        return read_games(&body, None, record_offsets(&body, 0), lenient, salvage);
    }
    if !bytes.starts_with(MAGIC) {
        let shown: Vec<String> = bytes.iter().take(16).map(|b| format!("{b:02x}")).collect();
        return Err(ReadError::at(
            Format::Cbl,
            0,
            ErrorKind::NotThisFormat(format!(
                "a CCBridge library starts with \"CCBridgeLibrary\\0\", this one with [{}]",
                shown.join(" ")
            )),
        ));
    }
    let name = cbr::field_string(bytes, 64, 512);
    read_games(
        bytes,
        name,
        record_offsets(bytes, MAGIC.len()),
        lenient,
        salvage,
    )
}

fn read_games(
    bytes: &[u8],
    name: Option<String>,
    offsets: Vec<usize>,
    lenient: bool,
    salvage: bool,
) -> Result<Library, CblError> {
    // A library that holds data but no game record is an error, not an empty success (a
    // convert of it would otherwise write nothing and exit 0); an empty one (nothing but
    // zeros after its header) has no games.
    let header = if bytes.starts_with(MAGIC) {
        MAGIC.len()
    } else {
        0
    };
    if offsets.is_empty() && bytes[header..].iter().any(|&b| b != 0) {
        return Err(ReadError::invalid(
            Format::Cbl,
            0,
            format!(
                "no game record in the library: \"CCBridge Record\\0\" does not occur in its {} bytes{}",
                bytes.len(),
                if bytes.starts_with(MAGIC) { "" } else { " (inflated)" }
            ),
        ));
    }
    let mut games = Vec::with_capacity(offsets.len());
    let mut kept = Vec::with_capacity(offsets.len());
    let mut dropped = Vec::new();
    for (i, &start) in offsets.iter().enumerate() {
        let end = offsets.get(i + 1).copied().unwrap_or(bytes.len());
        let mut d = Vec::new();
        let game = cbr::read_game(
            &bytes[start..end],
            start,
            Format::Cbl,
            lenient.then_some(&mut d),
            salvage,
        )
        .map_err(|mut e| {
            e.game = Some(i + 1);
            e
        });
        match game {
            // An empty slot is no game: skipped, with a warning.
            Err(e) if lenient && e.kind == ErrorKind::EmptyRecord => {
                dropped.push(e);
                continue;
            }
            Ok(_) => dropped.extend(d.into_iter().map(|mut e| {
                e.game = Some(i + 1);
                e
            })),
            Err(_) => {}
        }
        games.push(game);
        kept.push(start);
    }
    Ok(Library {
        name,
        preface: None,
        offsets: kept,
        games,
        dropped,
    })
}

/// Where the game records start: every occurrence of the record magic from `from` on.
fn record_offsets(bytes: &[u8], from: usize) -> Vec<usize> {
    let mut out = Vec::new();
    let mut i = from;
    while i + cbr::MAGIC.len() <= bytes.len() {
        // Find the next 'C' quickly, then compare.
        match bytes[i..].iter().position(|&b| b == b'C') {
            None => break,
            Some(k) => i += k,
        }
        if bytes[i..].starts_with(cbr::MAGIC) {
            out.push(i);
            i += cbr::MAGIC.len();
        } else {
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn not_a_library() {
        let e = read(b"CCBridge Record\0").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("CBL at byte 0 (0x0): not this format"),
            "{e}"
        );
    }

    #[test]
    fn empty_library_has_no_games() {
        let mut f = MAGIC.to_vec();
        f.resize(1000, 0);
        assert!(read(&f).unwrap().is_empty());
    }

    #[test]
    fn broken_game_is_numbered() {
        let mut f = MAGIC.to_vec();
        f.resize(4096, 0);
        f.extend_from_slice(cbr::MAGIC);
        f.resize(4096 + 100, 0);
        let e = read(&f).unwrap_err();
        assert_eq!(e.game, Some(1));
        assert!(e.to_string().starts_with("CBL game 1 at byte"), "{e}");
    }
}
