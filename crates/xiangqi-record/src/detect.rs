//! One entry point for every record format: [`read_any`] looks at the bytes, decides the
//! format from the content (never from a file name) and reads every game in it.
//!
//! Binary formats are recognised by their magic (XQF, CBR, CBL, XQR), CCM by its 7-byte
//! records starting with byte 1 (squares on the board), 弈天's MXQ by its strings ending in
//! `Ends`, 联众's CHN by its 188-byte header and 32-byte records (squares on the board), QQ's CHE by its leading numbers, CBF
//! and PengFei PFC by their XML root and DhtmlXQ by its `[DhtmlXQ` markup (each by its
//! reader's `looks_like`), position files (FEN/EPD lines, [`crate::epd`]) by a board as the first field of their first line, and PGN after decoding
//! ([`crate::encoding::decode`]) by a tag line or movetext at the start.

use core::fmt;

use crate::model::GameRecord;
use crate::pgn::{PgnError, PgnErrorKind};
use crate::rawtree::ReadError;

type Lenient = fn(&[u8]) -> Result<(GameRecord, Vec<ReadError>), ReadError>;

/// The record formats [`read_any`] knows.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum RecordFormat {
    Pgn,
    Xqf,
    Cbr,
    Cbl,
    Cbf,
    DhtmlXq,
    /// The XieXie GUI's `.wxf` game file (see [`crate::xiexie`]).
    XieXie,
    /// A position file: FEN or EPD lines, or `title|FEN` (see [`crate::epd`]).
    Epd,
    /// A web page with PGN or Chinese text records in `<pre>`/`<textarea>` (see [`crate::html`]).
    Html,
    /// A plain-text Chinese record with a `标题：`/`红方：` header block (see [`crate::cntext`]).
    ChineseText,
    /// PengFei (鹏飞象棋) XML, `.pfc` (see [`crate::pfc`]).
    Pfc,
    /// QQ象棋's numeric record, `.che` (see [`crate::che`]).
    Che,
    /// XQR ("XiangQi Replay"), binary with a CRC, `.xqr` (see [`crate::xqr`]).
    Xqr,
    /// 中国游戏中心's binary move list, `.ccm` (see [`crate::ccm`]).
    Ccm,
    /// 弈天象棋's record of length-prefixed strings, `.mxq` (see [`crate::mxq`]).
    Mxq,
    /// 联众's binary move list, `.chn` (see [`crate::chn`]).
    Chn,
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
            RecordFormat::XieXie => "XieXie WXF",
            RecordFormat::Epd => "EPD/FEN",
            RecordFormat::Html => "HTML page",
            RecordFormat::ChineseText => "Chinese text record",
            RecordFormat::Pfc => "PengFei PFC",
            RecordFormat::Che => "QQ CHE",
            RecordFormat::Xqr => "XQR",
            RecordFormat::Ccm => "CCM",
            RecordFormat::Mxq => "Yitian MXQ",
            RecordFormat::Chn => "Ourgame CHN/XQI",
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
    /// The content is not read, but looks like a known format: a record format read here
    /// whose signature or header is damaged, or a known kind of file that holds no record
    /// this program reads (an archive, an SGF file). The text says which and why
    /// ([`looks_like`]).
    LooksLike(String),
    Pgn(PgnError),
    Binary(ReadError),
    /// A line of a position file that is no position.
    Epd(crate::epd::EpdError),
}

impl RecordError {
    /// 1-based game number, when the problem is in one game of several.
    pub fn game(&self) -> Option<usize> {
        match self {
            RecordError::UnknownFormat(_) | RecordError::LooksLike(_) => None,
            RecordError::Pgn(e) => Some(e.game),
            RecordError::Binary(e) => e.game,
            RecordError::Epd(e) => Some(e.game),
        }
    }
}

impl fmt::Display for RecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RecordError::UnknownFormat(s) => {
                write!(f, "not a record format this program reads: {s}")
            }
            RecordError::LooksLike(s) => write!(f, "this looks like {s}"),
            RecordError::Pgn(e) => write!(f, "PGN {e}"),
            RecordError::Binary(e) => write!(f, "{e}"),
            RecordError::Epd(e) => write!(f, "EPD/FEN {e}"),
        }
    }
}

impl std::error::Error for RecordError {}

/// The games of one input: the format found and, per game, the record or what is wrong with it.
#[derive(Debug)]
pub struct ReadAll {
    pub format: RecordFormat,
    pub games: Vec<Result<GameRecord, RecordError>>,
    /// What was left out of games that read (a variation dropped from an illegal move on, an
    /// empty record skipped, an unclosed tag ignored), each naming its game ([`RecordError::game`])
    /// and place. Always empty when reading strictly.
    pub warnings: Vec<RecordError>,
}

/// Decides the format of `bytes` from their content.
pub fn detect(bytes: &[u8]) -> Option<RecordFormat> {
    if crate::xqf::looks_like(bytes) {
        return Some(RecordFormat::Xqf);
    }
    if crate::cbl::looks_like(bytes) {
        return Some(RecordFormat::Cbl);
    }
    if crate::xqr::looks_like(bytes) {
        return Some(RecordFormat::Xqr);
    }
    if crate::ccm::looks_like(bytes) {
        return Some(RecordFormat::Ccm);
    }
    if crate::mxq::looks_like(bytes) {
        return Some(RecordFormat::Mxq);
    }
    if crate::chn::looks_like(bytes) {
        return Some(RecordFormat::Chn);
    }
    if crate::cbr::looks_like(bytes) {
        return Some(RecordFormat::Cbr);
    }
    if crate::cbf::looks_like(bytes) {
        return Some(RecordFormat::Cbf);
    }
    if crate::pfc::looks_like(bytes) {
        return Some(RecordFormat::Pfc);
    }
    if crate::dhtmlxq::looks_like(bytes) {
        return Some(RecordFormat::DhtmlXq);
    }
    if crate::che::looks_like(bytes) {
        return Some(RecordFormat::Che);
    }
    let (text, _) = crate::encoding::decode(bytes);
    if crate::html::looks_like(&text) {
        return Some(RecordFormat::Html);
    }
    if crate::xiexie::looks_like(&text) {
        return Some(RecordFormat::XieXie);
    }
    if crate::epd::looks_like(&text) {
        return Some(RecordFormat::Epd);
    }
    if crate::cntext::looks_like(&text) {
        return Some(RecordFormat::ChineseText);
    }
    if crate::pgn::looks_like(&text) {
        return Some(RecordFormat::Pgn);
    }
    None
}

/// Reads every game of a record file in any known format, leniently: a move that cannot be
/// played inside a variation drops that branch from the move on, reported in
/// [`ReadAll::warnings`]; an illegal main-line move is still that game's error. `Err` only
/// when the format is not recognised; a broken game is an `Err` entry among the games (the
/// others are still read).
pub fn read_any(bytes: &[u8]) -> Result<ReadAll, RecordError> {
    read_any_with(bytes, false)
}

/// What an unreadable input starts with, for a message: its first characters when it is text,
/// else (a binary file) its first bytes in hexadecimal, so no garbage is echoed.
fn describe_head(bytes: &[u8]) -> String {
    if bytes.is_empty() {
        return "the input is empty".to_string();
    }
    if let Some(board) = jieqi_board(&crate::encoding::decode(bytes).0) {
        return format!(
            "it is a 揭棋 (Jieqi) position ('{board}'): an x or X in the board is a face-down \
             piece (the extended FEN of .xfen files), a variant this program does not play; \
             only Xiangqi positions, with every piece known, are read"
        );
    }
    let head = &bytes[..bytes.len().min(64)];
    let binary = head
        .iter()
        .any(|&b| b == 0 || (b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r')) || b == 0x7f);
    if !binary {
        let t: String = crate::encoding::decode(head)
            .0
            .chars()
            .take(40)
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        return format!("it starts with \"{}\"", t.trim());
    }
    let hex: Vec<String> = head.iter().take(8).map(|b| format!("{b:02x}")).collect();
    format!(
        "it is binary data of no known record format (it starts with the bytes {})",
        hex.join(" ")
    )
}

/// What input that [`detect`] does not take looks like, when it looks like something known:
/// a record format read here whose signature or header is damaged (an XQF file shorter than
/// its header, a CCBridge signature that is neither a record's nor a library's), or a known
/// kind of file holding no record read here (archives, documents, images, SGF). The text
/// follows "this looks like " in [`RecordError::LooksLike`].
pub fn looks_like(bytes: &[u8]) -> Option<String> {
    // XQF: "XQ", a version byte of XQStudio 1.0-1.8, but less than the 1024-byte header.
    if bytes.len() >= 3
        && bytes.len() < 1024
        && bytes.starts_with(b"XQ")
        && (10..=18).contains(&bytes[2])
    {
        return Some(format!(
            "an XQF file whose header is damaged (byte {}: the file ends there, inside the \
             1024-byte header; XQF version byte {})",
            bytes.len(),
            bytes[2]
        ));
    }
    // CCBridge: "CCBridge Record\0" (CBR) or "CCBridgeLibrary\0" (CBL), here damaged or cut.
    if bytes.starts_with(b"CCBridge") {
        let sig = &bytes[..bytes.len().min(16)];
        let at = sig
            .iter()
            .zip(crate::cbr::MAGIC.iter())
            .zip(crate::cbl::MAGIC.iter())
            .position(|((b, r), l)| b != r && b != l)
            .unwrap_or(sig.len());
        let what = if at < sig.len() {
            format!("0x{:02x}", sig[at])
        } else {
            "the file ends there".to_string()
        };
        return Some(format!(
            "a CCBridge file (.cbr or .cbl) whose 16-byte signature is damaged (byte {at}: \
             {what}; a record starts with \"CCBridge Record\\0\", a library with \
             \"CCBridgeLibrary\\0\")"
        ));
    }
    // CCM and CHN have no signature: sound first moves, then a damaged record.
    type Damaged = fn(&[u8]) -> Option<(usize, usize, bool)>;
    let unsigned: [(&str, Damaged); 2] = [
        (
            "a 中国游戏中心 (China Game Center) .ccm record",
            crate::ccm::damaged,
        ),
        ("an 联众 (Ourgame) .chn record", crate::chn::damaged),
    ];
    for (what, damaged) in unsigned {
        if let Some((k, at, cut)) = damaged(bytes) {
            let fault = if cut { "cut short" } else { "off the board" };
            return Some(format!(
                "{what} damaged at move {k} (byte {at}: the move record is {fault}); \
                 `xiangqi convert --lenient` keeps the {} moves before it",
                k - 1
            ));
        }
    }
    let known: [(&[u8], &str); 9] = [
        (b"PK\x03\x04", "a ZIP archive"),
        (b"\x1f\x8b", "a gzip-compressed file"),
        (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"),
        (b"Rar!\x1a\x07", "a RAR archive"),
        (b"%PDF-", "a PDF document"),
        (
            b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1",
            "a Microsoft Office document (.doc, .xls)",
        ),
        (b"\x89PNG\r\n\x1a\n", "a PNG image"),
        (b"\xff\xd8\xff", "a JPEG image"),
        (b"GIF8", "a GIF image"),
    ];
    for (magic, what) in known {
        if bytes.starts_with(magic) {
            let how = if what.contains("archive") || what.contains("compressed") {
                "unpack it and read the record files inside"
            } else {
                "only game record files are read"
            };
            return Some(format!("{what}, not a game record: {how}"));
        }
    }
    // SGF (Smart Game Format): "(;" then properties; GM[7] is its number for Chinese chess.
    let text = crate::encoding::decode(&bytes[..bytes.len().min(4096)]).0;
    let t = text.trim_start_matches('\u{feff}').trim_start();
    if t.starts_with("(;") && (t.contains("GM[") || t.contains("FF[")) {
        let gm = t
            .find("GM[")
            .map(|i| &t[i + 3..])
            .and_then(|r| r.split(']').next());
        let game = match gm.map(str::trim) {
            Some("7") => " of Chinese chess (GM[7])".to_string(),
            Some(g) if !g.is_empty() => format!(" of another game (GM[{g}]; 7 is Chinese chess)"),
            _ => String::new(),
        };
        return Some(format!(
            "an SGF (Smart Game Format) file{game}: SGF is a format this program does not read"
        ));
    }
    None
}

/// The board field of the first line when it is an extended FEN of Jieqi (揭棋): ten ranks of
/// Xiangqi letters and digits with at least one `x`/`X` (a face-down piece).
fn jieqi_board(text: &str) -> Option<&str> {
    let line = text
        .trim_start_matches('\u{feff}')
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())?;
    let line = line.rsplit('|').next().unwrap_or(line).trim();
    let board = line.split_whitespace().next()?;
    let ranks: Vec<&str> = board.split('/').collect();
    let ok = ranks.len() == 10
        && board.contains(['x', 'X'])
        && ranks.iter().all(|r| {
            !r.is_empty()
                && r.chars()
                    .all(|c| "rnbakcpxRNBAKCPXeEhH123456789".contains(c))
        });
    ok.then_some(board)
}

/// Like [`read_any`], but strict: any illegal move, also inside a variation, makes its game
/// an error, and nothing is left out with a warning.
pub fn read_any_strict(bytes: &[u8]) -> Result<ReadAll, RecordError> {
    read_any_with(bytes, true)
}

/// [`read_any_strict`] when `strict`, else [`read_any`].
pub fn read_any_with(bytes: &[u8], strict: bool) -> Result<ReadAll, RecordError> {
    read_any_progress(bytes, strict, &mut |_, _| {})
}

/// How far a reading goes to keep what it can.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Any unplayable move makes its game an error ([`read_any_strict`]).
    Strict,
    /// A bad move inside a variation drops that variation's tail, with a warning; a bad
    /// main-line move is still the game's error ([`read_any`]).
    Lenient,
    /// As `Lenient`, and a well-formed main-line move that cannot be played (illegal,
    /// ambiguous) ends the game there: every game is kept with every move up to the first
    /// bad one, one warning per loss. In the binary formats (XQF, CBR, CBL, CCM, CHN, XQR,
    /// MXQ) and CHE a damaged move record (a square off the board, a record, string, number
    /// list or comment cut short) ends the game there too, keeping the moves and variations
    /// read before it, and a CCM or CHN file damaged after three sound moves is read as such;
    /// in CBF and PFC XML that goes wrong after the moves started ends it (what was read
    /// before kept); in DhtmlXQ an illegal main-line move does. The warning of these formats
    /// is a [`crate::rawtree::ErrorKind::Kept`] naming the byte.
    Salvage,
}

/// Reads every game in `mode` (see [`Mode`]).
pub fn read_any_mode(bytes: &[u8], mode: Mode) -> Result<ReadAll, RecordError> {
    read_any_mode_progress(bytes, mode, &mut |_, _| {})
}

/// [`read_any_with`], telling `progress(done, total)` how far it is: after each game of a
/// PGN or XieXie file (`done` bytes of `total` of the decoded text), and once at the end
/// (`done == total`) for every format.
pub fn read_any_progress(
    bytes: &[u8],
    strict: bool,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<ReadAll, RecordError> {
    let mode = if strict { Mode::Strict } else { Mode::Lenient };
    read_any_mode_progress(bytes, mode, progress)
}

/// [`read_any_mode`] with progress reports as [`read_any_progress`] makes them.
pub fn read_any_mode_progress(
    bytes: &[u8],
    mode: Mode,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<ReadAll, RecordError> {
    let strict = mode == Mode::Strict;
    let format = match detect(bytes) {
        Some(f) => f,
        // Kept up to the damage when salvaging (see `looks_like`).
        None if mode == Mode::Salvage && crate::ccm::damaged(bytes).is_some() => RecordFormat::Ccm,
        None if mode == Mode::Salvage && crate::chn::damaged(bytes).is_some() => RecordFormat::Chn,
        None => {
            return Err(match looks_like(bytes) {
                Some(s) => RecordError::LooksLike(s),
                None => RecordError::UnknownFormat(describe_head(bytes)),
            })
        }
    };
    let mut warnings = Vec::new();
    // A single-game binary reader, strict or lenient; its drops become warnings of game 1.
    let mut single = |strict_read: fn(&[u8]) -> Result<GameRecord, ReadError>,
                      lenient_read: Lenient,
                      salvage_read: Lenient| {
        let r = if strict {
            strict_read(bytes)
        } else {
            let read = if mode == Mode::Salvage {
                salvage_read
            } else {
                lenient_read
            };
            read(bytes).map(|(rec, dropped)| {
                warnings.extend(dropped.into_iter().map(|mut e| {
                    e.game = Some(1);
                    RecordError::Binary(e)
                }));
                rec
            })
        };
        vec![r.map_err(RecordError::Binary)]
    };
    let games = match format {
        RecordFormat::Xqf => single(
            crate::xqf::read,
            crate::xqf::read_lenient,
            crate::xqf::read_salvaging,
        ),
        RecordFormat::Cbr => single(
            crate::cbr::read,
            crate::cbr::read_lenient,
            crate::cbr::read_salvaging,
        ),
        RecordFormat::Cbf => single(
            crate::cbf::read,
            crate::cbf::read_lenient,
            crate::cbf::read_salvaging,
        ),
        RecordFormat::Pfc => single(
            crate::pfc::read,
            crate::pfc::read_lenient,
            crate::pfc::read_salvaging,
        ),
        RecordFormat::Che => single(
            crate::che::read,
            crate::che::read_lenient,
            crate::che::read_salvaging,
        ),
        RecordFormat::Xqr => single(
            crate::xqr::read,
            crate::xqr::read_lenient,
            crate::xqr::read_salvaging,
        ),
        RecordFormat::Ccm => single(
            crate::ccm::read,
            crate::ccm::read_lenient,
            crate::ccm::read_salvaging,
        ),
        RecordFormat::Mxq => single(
            crate::mxq::read,
            crate::mxq::read_lenient,
            crate::mxq::read_salvaging,
        ),
        RecordFormat::Chn => single(
            crate::chn::read,
            crate::chn::read_lenient,
            crate::chn::read_salvaging,
        ),
        RecordFormat::DhtmlXq => single(
            crate::dhtmlxq::read,
            crate::dhtmlxq::read_lenient,
            crate::dhtmlxq::read_salvaging,
        ),
        RecordFormat::Pgn | RecordFormat::XieXie | RecordFormat::ChineseText => {
            let (text, _) = crate::encoding::decode(bytes);
            let text = match format {
                RecordFormat::XieXie => std::borrow::Cow::Owned(crate::xiexie::to_pgn(&text)),
                RecordFormat::ChineseText => std::borrow::Cow::Owned(crate::cntext::to_pgn(&text)),
                _ => text,
            };
            let (v, w) = read_pgn_text(&text, mode, progress);
            warnings.extend(w);
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
        RecordFormat::Html => {
            let (text, _) = crate::encoding::decode(bytes);
            let blocks = crate::html::blocks(&text);
            let mut v = Vec::new();
            let mut records = 0;
            for b in &blocks {
                let Some(kind) = crate::html::holds(&b.text) else {
                    continue;
                };
                records += 1;
                // Blank lines before the element's text: the PGN reader's line numbers are
                // then the page's.
                let mut t = "\n".repeat(b.line - 1);
                match kind {
                    crate::html::Holds::Pgn => t.push_str(&b.text),
                    crate::html::Holds::ChineseText => t.push_str(&crate::cntext::to_pgn(&b.text)),
                }
                let before = v.len();
                let (games, w) = read_pgn_text(&t, mode, &mut |_, _| {});
                let renumber = |e: RecordError| match e {
                    RecordError::Pgn(mut p) => {
                        p.game += before;
                        RecordError::Pgn(p)
                    }
                    e => e,
                };
                v.extend(games.into_iter().map(|g| g.map_err(renumber)));
                warnings.extend(w.into_iter().map(renumber));
            }
            if records == 0 {
                return Err(RecordError::UnknownFormat(if blocks.is_empty() {
                    "an HTML page, but with no <pre> or <textarea> element and no [DhtmlXQ] \
                     record: no record in it"
                        .to_string()
                } else {
                    format!(
                        "an HTML page, but none of its {} <pre>/<textarea> elements holds a \
                         record (PGN tags or moves, or a Chinese text record)",
                        blocks.len()
                    )
                }));
            }
            if v.is_empty() {
                v.push(Err(RecordError::Pgn(PgnError {
                    game: 1,
                    line: 1,
                    kind: PgnErrorKind::NoGame,
                })));
            }
            v
        }
        RecordFormat::Epd => {
            let (text, _) = crate::encoding::decode(bytes);
            let mut v = Vec::new();
            for r in crate::epd::read_str(&text) {
                match r {
                    Ok(g) => v.push(Ok(g)),
                    // Strictly a bad line is a game's error; else it is skipped with a warning.
                    Err(e) if strict => v.push(Err(RecordError::Epd(e))),
                    Err(e) => warnings.push(RecordError::Epd(e)),
                }
            }
            if v.is_empty() {
                // No line read: the lines' errors, never an empty success.
                v = std::mem::take(&mut warnings).into_iter().map(Err).collect();
            }
            v
        }
        RecordFormat::Cbl => {
            let lib = if strict {
                crate::cbl::read_library(bytes)
            } else if mode == Mode::Salvage {
                crate::cbl::read_library_salvaging(bytes)
            } else {
                crate::cbl::read_library_lenient(bytes)
            };
            match lib {
                Ok(lib) => {
                    warnings.extend(lib.dropped.into_iter().map(RecordError::Binary));
                    lib.games
                        .into_iter()
                        .map(|g| g.map_err(RecordError::Binary))
                        .collect()
                }
                Err(e) => vec![Err(RecordError::Binary(e))],
            }
        }
    };
    progress(bytes.len(), bytes.len());
    Ok(ReadAll {
        format,
        games,
        warnings,
    })
}

/// Reads PGN text (also made from another text format) in `mode`: the games, and the
/// warnings for what was left out.
fn read_pgn_text(
    text: &str,
    mode: Mode,
    progress: &mut dyn FnMut(usize, usize),
) -> (Vec<Result<GameRecord, RecordError>>, Vec<RecordError>) {
    let mut reader = crate::pgn::PgnReader::new(text);
    match mode {
        Mode::Strict => {}
        Mode::Lenient => reader = reader.lenient(),
        Mode::Salvage => reader = reader.salvaging(),
    }
    let mut v = Vec::new();
    while let Some(r) = reader.next() {
        v.push(r.map_err(RecordError::Pgn));
        progress(reader.offset(), text.len());
    }
    let w = reader
        .take_warnings()
        .into_iter()
        .map(RecordError::Pgn)
        .collect();
    (v, w)
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
        // A Jieqi start position: refused, naming the variant and the face-down pieces.
        let e =
            read_any(b"xxxxkxxxx/9/1x5x1/x1x1x1x1x/9/9/X1X1X1X1X/1X5X1/9/XXXXKXXXX w - - 0 1\n")
                .unwrap_err()
                .to_string();
        assert!(e.contains("Jieqi") && e.contains("face-down"), "{e}");
    }

    #[test]
    fn damaged_and_unsupported_formats_are_named() {
        let msg = |b: &[u8]| read_any(b).unwrap_err().to_string();
        let mut xqf = b"XQ\x12\x00".to_vec();
        xqf.resize(300, 0);
        assert_eq!(
            msg(&xqf),
            "this looks like an XQF file whose header is damaged (byte 300: the file ends \
             there, inside the 1024-byte header; XQF version byte 18)"
        );
        assert_eq!(
            msg(b"CCBridge Recxrd\0\x01\x02"),
            "this looks like a CCBridge file (.cbr or .cbl) whose 16-byte signature is damaged \
             (byte 12: 0x78; a record starts with \"CCBridge Record\\0\", a library with \
             \"CCBridgeLibrary\\0\")"
        );
        assert!(msg(b"CCBridge Rec").contains("(byte 12: the file ends there;"));
        assert_eq!(
            msg(b"PK\x03\x04\x14\x00\x00\x00"),
            "this looks like a ZIP archive, not a game record: unpack it and read the record \
             files inside"
        );
        assert_eq!(
            msg(b"%PDF-1.4\n"),
            "this looks like a PDF document, not a game record: only game record files are read"
        );
        assert_eq!(
            msg(b"(;GM[7]FF[4]SZ[9:10];B[ab])"),
            "this looks like an SGF (Smart Game Format) file of Chinese chess (GM[7]): SGF is a \
             format this program does not read"
        );
        assert!(msg(b"(;GM[1]FF[4]SZ[19];B[pd])").contains("of another game (GM[1]; 7 is"));
        // Text that only starts like one is still unknown: "XQ" with no version byte.
        assert!(msg(b"XQ notes").starts_with("not a record format this program reads"));
        let e = read_any(&[0u8, 1, 2, 3, 9]).unwrap_err().to_string();
        assert!(
            e.starts_with("not a record format this program reads: it is binary"),
            "{e}"
        );
    }
}
