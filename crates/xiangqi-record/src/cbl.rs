//! CCBridge (象棋桥) game libraries, `.cbl`: a header (`"CCBridgeLibrary\0"`, the library's
//! name as UTF-16LE at byte 64), an index area, then game records, each a complete CBR
//! record (see [`crate::cbr`]) starting with `"CCBridge Record\0"`, usually one per 4096-byte
//! slot (a long game runs on into the next slot). A game is the bytes from its magic to the
//! next record's magic (or the end of the file).

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
    /// Byte offset of each game record in the file.
    pub offsets: Vec<usize>,
    pub games: Vec<Result<GameRecord, CblError>>,
    /// What the lenient reading ([`read_library_lenient`]) left out of the games that read:
    /// broken variations, each error naming its game. Empty for [`read_library`].
    pub dropped: Vec<CblError>,
}

/// Cheap check: the library magic.
pub fn looks_like(bytes: &[u8]) -> bool {
    bytes.starts_with(MAGIC)
}

/// Reads every game; fails on the first game that does not read (the error names it).
pub fn read(bytes: &[u8]) -> Result<Vec<GameRecord>, CblError> {
    read_library(bytes)?.games.into_iter().collect()
}

/// Reads the library, keeping going past games that do not read. Any illegal move of a game
/// (main line or variation) makes that game an error.
pub fn read_library(bytes: &[u8]) -> Result<Library, CblError> {
    read_library_impl(bytes, false)
}

/// Like [`read_library`], but an illegal move inside a variation only drops that branch
/// (listed in [`Library::dropped`]); an illegal main-line move is still the game's error.
pub fn read_library_lenient(bytes: &[u8]) -> Result<Library, CblError> {
    read_library_impl(bytes, true)
}

fn read_library_impl(bytes: &[u8], lenient: bool) -> Result<Library, CblError> {
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
    let offsets = record_offsets(bytes);
    let mut games = Vec::with_capacity(offsets.len());
    let mut dropped = Vec::new();
    for (i, &start) in offsets.iter().enumerate() {
        let end = offsets.get(i + 1).copied().unwrap_or(bytes.len());
        let mut d = Vec::new();
        let game = cbr::read_game(
            &bytes[start..end],
            start,
            Format::Cbl,
            lenient.then_some(&mut d),
        )
        .map_err(|mut e| {
            e.game = Some(i + 1);
            e
        });
        if game.is_ok() {
            dropped.extend(d.into_iter().map(|mut e| {
                e.game = Some(i + 1);
                e
            }));
        }
        games.push(game);
    }
    Ok(Library {
        name,
        offsets,
        games,
        dropped,
    })
}

/// Where the game records start: every occurrence of the record magic after the header.
fn record_offsets(bytes: &[u8]) -> Vec<usize> {
    let mut out = Vec::new();
    let mut i = MAGIC.len();
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
