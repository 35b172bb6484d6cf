//! One entry point for every record format: [`read_any`] looks at the bytes, decides the
//! format from the content (never from a file name) and reads every game in it.
//!
//! Binary formats are recognised by their magic (XQF, CBR, CBL), CBF by its XML and DhtmlXQ by
//! its `[DhtmlXQ` markup (both by their readers' `looks_like`), and PGN after decoding
//! ([`crate::encoding::decode`]) by a tag line or movetext at the start.

use core::fmt;

use crate::model::GameRecord;
use crate::pgn::{PgnError, PgnErrorKind};
use crate::rawtree::ReadError;

/// The record formats [`read_any`] knows.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum RecordFormat {
    Pgn,
    Xqf,
    Cbr,
    Cbl,
    Cbf,
    DhtmlXq,
}

impl RecordFormat {
    pub fn name(self) -> &'static str {
        match self {
            RecordFormat::Pgn => "PGN",
            RecordFormat::Xqf => "XQF",
            RecordFormat::Cbr => "CBR",
            RecordFormat::Cbl => "CBL",
            RecordFormat::Cbf => "CBF",
            RecordFormat::DhtmlXq => "DhtmlXQ",
        }
    }
}

impl fmt::Display for RecordFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A problem reading one game (or a whole file) of any format.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RecordError {
    /// The content is no record format this crate reads.
    UnknownFormat(String),
    Pgn(PgnError),
    Binary(ReadError),
}

impl RecordError {
    /// 1-based game number, when the problem is in one game of several.
    pub fn game(&self) -> Option<usize> {
        match self {
            RecordError::UnknownFormat(_) => None,
            RecordError::Pgn(e) => Some(e.game),
            RecordError::Binary(e) => e.game,
        }
    }
}

impl fmt::Display for RecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RecordError::UnknownFormat(s) => {
                write!(f, "not a record format this program reads: {s}")
            }
            RecordError::Pgn(e) => write!(f, "PGN {e}"),
            RecordError::Binary(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for RecordError {}

/// The games of one input: the format found and, per game, the record or what is wrong with it.
#[derive(Debug)]
pub struct ReadAll {
    pub format: RecordFormat,
    pub games: Vec<Result<GameRecord, RecordError>>,
}

/// Decides the format of `bytes` from their content.
pub fn detect(bytes: &[u8]) -> Option<RecordFormat> {
    if crate::xqf::looks_like(bytes) {
        return Some(RecordFormat::Xqf);
    }
    if crate::cbl::looks_like(bytes) {
        return Some(RecordFormat::Cbl);
    }
    if crate::cbr::looks_like(bytes) {
        return Some(RecordFormat::Cbr);
    }
    if crate::cbf::looks_like(bytes) {
        return Some(RecordFormat::Cbf);
    }
    if crate::dhtmlxq::looks_like(bytes) {
        return Some(RecordFormat::DhtmlXq);
    }
    let (text, _) = crate::encoding::decode(bytes);
    if crate::pgn::looks_like(&text) {
        return Some(RecordFormat::Pgn);
    }
    None
}

/// Reads every game of a record file in any known format. `Err` only when the format is not
/// recognised; a broken game is an `Err` entry among the games (the others are still read).
pub fn read_any(bytes: &[u8]) -> Result<ReadAll, RecordError> {
    let format = detect(bytes).ok_or_else(|| {
        let head: String = crate::encoding::decode(&bytes[..bytes.len().min(64)])
            .0
            .chars()
            .take(40)
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        RecordError::UnknownFormat(if bytes.is_empty() {
            "the input is empty".to_string()
        } else {
            format!("it starts with \"{}\"", head.trim())
        })
    })?;
    let games = match format {
        RecordFormat::Pgn => {
            let (text, _) = crate::encoding::decode(bytes);
            let v: Vec<_> = crate::pgn::PgnReader::new(&text)
                .map(|r| r.map_err(RecordError::Pgn))
                .collect();
            if v.is_empty() {
                vec![Err(RecordError::Pgn(PgnError {
                    game: 1,
                    line: 1,
                    kind: PgnErrorKind::NoGame,
                }))]
            } else {
                v
            }
        }
        RecordFormat::Xqf => vec![crate::xqf::read(bytes).map_err(RecordError::Binary)],
        RecordFormat::Cbr => vec![crate::cbr::read(bytes).map_err(RecordError::Binary)],
        RecordFormat::Cbf => vec![crate::cbf::read(bytes).map_err(RecordError::Binary)],
        RecordFormat::DhtmlXq => vec![crate::dhtmlxq::read(bytes).map_err(RecordError::Binary)],
        RecordFormat::Cbl => match crate::cbl::read(bytes) {
            Ok(games) => games.into_iter().map(Ok).collect(),
            Err(e) => vec![Err(RecordError::Binary(e))],
        },
    };
    Ok(ReadAll { format, games })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_pgn_and_refuses_junk() {
        let r = read_any(b"[Event \"x\"]\n1. h2e2 *\n").unwrap();
        assert_eq!(r.format, RecordFormat::Pgn);
        assert_eq!(r.games.len(), 1);
        assert!(r.games[0].is_ok());
        let r = read_any("1. 炮二平五 马8进7 *".as_bytes()).unwrap();
        assert_eq!(r.format, RecordFormat::Pgn);
        let e = read_any(b"hello world").unwrap_err();
        assert!(e.to_string().contains("hello world"), "{e}");
        assert!(read_any(b"").unwrap_err().to_string().contains("empty"));
    }
}
