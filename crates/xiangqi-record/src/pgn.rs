//! PGN for Xiangqi: a streaming reader (many games per file) and a writer in ICCS, WXF or
//! Chinese notation.
//!
//! Reading is lenient, because real files are messy: tags with multi-line values, FEN tags
//! with a missing or malformed side field (the side is then taken from the first move),
//! results as `1-0`/`0-1`/`1/2-1/2`/`*` or as the Chinese words 红胜/黑胜/和棋/未知, junk
//! after the result (skipped up to the next tag line), comments `{...}` and `; ...`,
//! variations `(...)`, NAGs `$n` and `!`/`?` marks, move numbers glued to moves or
//! parentheses, CR, LF and CR LF line ends. The movetext notation comes from the `Format`
//! tag and, when that is missing or wrong, from the moves themselves (each move is read in
//! the game's notation first and in whichever notation it looks like after that; WinBoard's
//! coordinate SAN `Che2`/`Cxe6` is read too). Input bytes are decoded by
//! [`crate::encoding::decode`] (UTF-8 with or without BOM, UTF-16 with BOM, GBK/GB18030).
//!
//! Each problem is a [`PgnError`] naming the game (1-based) and the line; the reader then
//! goes on with the next game.
//!
//! Writing is strict: tags in the record's order, then `Result`, `FEN` (when the start is not
//! the standard one) and `Format`; movetext in the chosen notation with move numbers,
//! comments, NAGs and variations, wrapped at 80 columns; the result token; a blank line.

use core::fmt;

use xiangqi::notation::{half_width, Notation, ReadMoveError};
use xiangqi::{fen, Color, Move, Position, Role, Setup, Square};

use crate::model::{GameRecord, GameResult, MoveNode};

/// Variations nested deeper than this are refused.
pub const MAX_DEPTH: usize = 200;

/// What went wrong in a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PgnErrorKind {
    /// The `FEN` tag is not a legal position.
    BadFen { fen: String, reason: String },
    /// A move that cannot be read or played.
    BadMove {
        token: String,
        ply: usize,
        reason: String,
    },
    /// A token that is neither a move nor anything else PGN knows.
    UnknownToken(String),
    /// A tag line that cannot be read.
    BadTag(String),
    /// A comment that is never closed.
    UnterminatedComment,
    /// A variation before any move, or nested too deep.
    BadVariation(&'static str),
    /// Nothing that looks like a game.
    NoGame,
}

impl fmt::Display for PgnErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PgnErrorKind::BadFen { fen, reason } => write!(f, "bad FEN \"{fen}\": {reason}"),
            PgnErrorKind::BadMove { token, ply, reason } => {
                write!(f, "move '{token}' (ply {ply}): {reason}")
            }
            PgnErrorKind::UnknownToken(t) => write!(f, "'{t}' is not a move, result or annotation"),
            PgnErrorKind::BadTag(t) => write!(f, "unreadable tag: {t}"),
            PgnErrorKind::UnterminatedComment => f.write_str("comment '{' is never closed"),
            PgnErrorKind::BadVariation(s) => write!(f, "bad variation: {s}"),
            PgnErrorKind::NoGame => f.write_str("no PGN game found"),
        }
    }
}

/// A problem in one game of a PGN file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PgnError {
    /// 1-based number of the game in the file.
    pub game: usize,
    /// 1-based line of the problem.
    pub line: usize,
    pub kind: PgnErrorKind,
}

impl fmt::Display for PgnError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "game {}, line {}: {}", self.game, self.line, self.kind)
    }
}

impl std::error::Error for PgnError {}

/// Reads a result word: PGN tokens and the Chinese words of some converters.
pub fn parse_result(s: &str) -> Option<GameResult> {
    let t = s.trim();
    Some(match t {
        "1-0" | "红胜" | "紅勝" | "红先胜" | "黑负" | "黑先负" => GameResult::RedWins,
        "0-1" | "黑胜" | "黑勝" | "黑先胜" | "红负" | "红先负" => GameResult::BlackWins,
        "1/2-1/2" | "½-½" | "和棋" | "和" | "红先和" | "黑先和" | "1/2" => {
            GameResult::Draw
        }
        "*" | "未知" | "" => GameResult::Unknown,
        _ => return None,
    })
}

/// Reads a FEN leniently. Returns the position and whether the side to move was given
/// (`false`: missing or malformed, like hbsxcjp's ` -b`; Red is assumed).
pub fn parse_fen_lenient(s: &str) -> Result<(Position, bool), String> {
    let fields: Vec<&str> = s.split_whitespace().collect();
    let placement = fields.first().ok_or_else(|| "empty FEN".to_string())?;
    let board = fen::parse_board(placement).map_err(|e| e.to_string())?;
    let (turn, known) = match fields.get(1).copied() {
        Some("w" | "W" | "r" | "R") => (Color::Red, true),
        Some("b" | "B") => (Color::Black, true),
        _ => (Color::Red, false),
    };
    let num = |i: usize| fields.get(i).and_then(|v| v.parse::<u32>().ok());
    let setup = Setup {
        board,
        turn,
        halfmoves: num(4).unwrap_or(0),
        fullmoves: num(5).unwrap_or(1).max(1),
    };
    match Position::from_setup(setup.clone()) {
        Ok(p) => Ok((p, known)),
        Err(e) if !known => {
            // Red to move is impossible (Black in check): Black it is.
            let mut s2 = setup;
            s2.turn = Color::Black;
            Position::from_setup(s2)
                .map(|p| (p, false))
                .map_err(|_| e.to_string())
        }
        Err(e) => Err(e.to_string()),
    }
}

fn is_space_at(b: &[u8], i: usize) -> usize {
    match b[i] {
        b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c => 1,
        0xE3 if b.get(i + 1) == Some(&0x80) && b.get(i + 2) == Some(&0x80) => 3, // U+3000
        0xEF if b.get(i + 1) == Some(&0xBB) && b.get(i + 2) == Some(&0xBF) => 3, // U+FEFF
        _ => 0,
    }
}

fn is_delim(c: u8) -> bool {
    matches!(c, b'{' | b'}' | b'(' | b')' | b'[' | b']' | b';' | b'"')
}

/// A streaming PGN reader over decoded text: an iterator of games.
pub struct PgnReader<'a> {
    s: &'a str,
    i: usize,
    line: usize,
    game: usize,
    notation: Option<Notation>,
    lenient: bool,
    salvage: bool,
    warnings: Vec<PgnError>,
}

impl<'a> PgnReader<'a> {
    pub fn new(text: &'a str) -> PgnReader<'a> {
        PgnReader {
            s: text,
            i: 0,
            line: 1,
            game: 0,
            notation: None,
            lenient: false,
            salvage: false,
            warnings: Vec::new(),
        }
    }

    /// A lenient reader: a move that cannot be played inside a variation drops that
    /// variation from the move on (the game is still read) and is reported by
    /// [`PgnReader::take_warnings`]. A bad main-line move is still the game's error.
    pub fn lenient(mut self) -> PgnReader<'a> {
        self.lenient = true;
        self
    }

    /// A salvaging reader: lenient, and besides a well-formed main-line move that cannot be
    /// played (illegal, ambiguous) ends its game there: the game is kept up to the move
    /// before, the rest left out, with a warning naming the game, line and move.
    pub fn salvaging(mut self) -> PgnReader<'a> {
        self.lenient = true;
        self.salvage = true;
        self
    }

    /// What the lenient reader left out so far (each naming its game and line), emptied.
    pub fn take_warnings(&mut self) -> Vec<PgnError> {
        std::mem::take(&mut self.warnings)
    }

    /// The notation the last game's moves were (mostly) written in.
    /// How far into the text the reader is, in bytes (for progress reports).
    pub fn offset(&self) -> usize {
        self.i
    }

    pub fn notation(&self) -> Option<Notation> {
        self.notation
    }

    /// The current line (1-based).
    pub fn line(&self) -> usize {
        self.line
    }

    fn b(&self) -> &'a [u8] {
        self.s.as_bytes()
    }

    fn peek(&self) -> Option<u8> {
        self.b().get(self.i).copied()
    }

    fn bump(&mut self) {
        let b = self.b();
        match b[self.i] {
            b'\n' => self.line += 1,
            b'\r' if b.get(self.i + 1) != Some(&b'\n') => self.line += 1,
            _ => {}
        }
        self.i += 1;
    }

    fn skip_ws(&mut self) {
        let b = self.b();
        while self.i < b.len() {
            let n = is_space_at(b, self.i);
            if n == 0 {
                break;
            }
            if n == 1 {
                self.bump();
            } else {
                self.i += n;
            }
        }
    }

    fn skip_line(&mut self) {
        while let Some(c) = self.peek() {
            self.bump();
            if c == b'\n' || (c == b'\r' && self.peek() != Some(b'\n')) {
                break;
            }
        }
    }

    /// Whether the rest of the current line (from `i`) starts a tag.
    fn at_line_start_tag(&self) -> bool {
        self.peek() == Some(b'[')
    }

    /// Skips to the next line whose first non-blank character is `[` (or the end).
    fn skip_to_next_game(&mut self) {
        loop {
            self.skip_line();
            let save = (self.i, self.line);
            // Leading blanks on the line.
            while matches!(self.peek(), Some(b' ' | b'\t')) {
                self.bump();
            }
            match self.peek() {
                None => return,
                Some(b'[') => return,
                _ => {
                    let _ = save;
                }
            }
        }
    }

    fn read_token(&mut self) -> &'a str {
        let b = self.b();
        let start = self.i;
        while self.i < b.len() && !is_delim(b[self.i]) && is_space_at(b, self.i) == 0 {
            self.i += 1;
        }
        &self.s[start..self.i]
    }

    /// Reads `[Name "value"]` (the `[` is current). Lenient: unquoted values up to `]`.
    fn read_tag(&mut self) -> Result<(String, String), PgnErrorKind> {
        self.bump(); // [
        self.skip_ws();
        let b = self.b();
        let start = self.i;
        while self.i < b.len() && !matches!(b[self.i], b'"' | b']') && is_space_at(b, self.i) == 0 {
            self.i += 1;
        }
        let name = self.s[start..self.i].to_string();
        self.skip_ws();
        let mut value = String::new();
        match self.peek() {
            Some(b'"') => {
                self.bump();
                let mut seg = self.i;
                loop {
                    match self.peek() {
                        None => {
                            return Err(PgnErrorKind::BadTag(format!(
                                "[{name} \"{value}: no closing quote"
                            )))
                        }
                        Some(b'\\') if matches!(self.b().get(self.i + 1), Some(b'"' | b'\\')) => {
                            value.push_str(&self.s[seg..self.i]);
                            self.bump();
                            value.push(self.b()[self.i] as char);
                            self.bump();
                            seg = self.i;
                        }
                        Some(b'"') => {
                            value.push_str(&self.s[seg..self.i]);
                            self.bump();
                            break;
                        }
                        Some(_) => self.bump(),
                    }
                }
                // Up to the closing bracket on this line.
                while let Some(c) = self.peek() {
                    if c == b']' {
                        self.bump();
                        break;
                    }
                    if c == b'\n' || c == b'\r' || c == b'[' {
                        break;
                    }
                    self.bump();
                }
            }
            _ => {
                let start = self.i;
                while let Some(c) = self.peek() {
                    if c == b']' || c == b'\n' || c == b'\r' {
                        break;
                    }
                    self.bump();
                }
                value = self.s[start..self.i].trim().to_string();
                if self.peek() == Some(b']') {
                    self.bump();
                } else if name.is_empty() {
                    return Err(PgnErrorKind::BadTag(format!("[{value}")));
                }
            }
        }
        if name.is_empty() {
            return Err(PgnErrorKind::BadTag(format!("[ \"{value}\"]: no tag name")));
        }
        Ok((name, normalize_newlines(&value)))
    }

    fn read_comment(&mut self) -> Result<String, PgnErrorKind> {
        self.bump(); // {
        let start = self.i;
        while let Some(c) = self.peek() {
            if c == b'}' {
                let text = &self.s[start..self.i];
                self.bump();
                return Ok(normalize_newlines(
                    text.trim_matches(|c: char| c.is_ascii_whitespace()),
                ));
            }
            self.bump();
        }
        Err(PgnErrorKind::UnterminatedComment)
    }

    fn next_game(&mut self) -> Option<Result<GameRecord, PgnError>> {
        // Find the start of a game: a tag line, or movetext at the very start of the file.
        loop {
            self.skip_ws();
            match self.peek() {
                None => return None,
                Some(b'[') => break,
                Some(b'%') => self.skip_line(),
                Some(_) if self.game == 0 && self.i_looks_like_movetext() => break,
                Some(_) => self.skip_to_next_game(),
            }
        }
        self.game += 1;
        let game_line = self.line;
        let mut g = GameBuilder::new();
        g.lenient = self.lenient;
        g.salvage = self.salvage;
        // Tags.
        while self.at_line_start_tag() {
            let line = self.line;
            match self.read_tag() {
                Ok((k, v)) => g.tags.push((k, v)),
                Err(kind) => {
                    let e = self.error(line, kind);
                    self.skip_to_next_game();
                    return Some(Err(e));
                }
            }
            self.skip_ws();
        }
        let _ = game_line;
        // The rank numbering of coordinate SAN is looked for in the movetext only when a move
        // needs it (most games are in another notation).
        g.san_text.set(Some(&self.s[self.i..]));
        let read = self.movetext(&mut g);
        let dropped = std::mem::take(&mut g.dropped);
        match read {
            Ok(()) => {
                for (line, kind) in dropped {
                    let w = self.error(line, kind);
                    self.warnings.push(w);
                }
            }
            Err((line, kind)) => {
                let e = self.error(line, kind);
                self.skip_to_next_game();
                return Some(Err(e));
            }
        }
        self.notation = g.notation;
        Some(Ok(g.finish()))
    }

    fn error(&self, line: usize, kind: PgnErrorKind) -> PgnError {
        PgnError {
            game: self.game,
            line,
            kind,
        }
    }

    /// At the very start: does the first token look like movetext (a move number, a move or a
    /// comment)?
    fn i_looks_like_movetext(&self) -> bool {
        let rest = &self.s[self.i..];
        let tok: String = rest
            .chars()
            .take_while(|c| !c.is_whitespace() && !matches!(c, '{' | '(' | '['))
            .collect();
        rest.starts_with('{')
            || (tok.ends_with('.')
                && tok
                    .trim_end_matches('.')
                    .chars()
                    .all(|c| c.is_ascii_digit())
                && !tok.starts_with('.'))
            || Notation::guess(strip_number(&tok)).is_some()
    }

    fn movetext(&mut self, g: &mut GameBuilder<'a>) -> Result<(), (usize, PgnErrorKind)> {
        g.start(self)?;
        loop {
            self.skip_ws();
            let line = self.line;
            let Some(c) = self.peek() else {
                break;
            };
            match c {
                b'[' => {
                    if g.frames.len() == 1 {
                        break; // the next game's tags: this game had no result token
                    }
                    // A bracket inside a variation: not PGN; skip it as junk.
                    self.bump();
                }
                b'{' => {
                    let text = self.read_comment().map_err(|k| (line, k))?;
                    if !g.top().dead {
                        g.comment(text);
                    }
                }
                b';' => {
                    self.bump();
                    let start = self.i;
                    while !matches!(self.peek(), None | Some(b'\n' | b'\r')) {
                        self.bump();
                    }
                    // A brace comment cannot hold '}': keep the model writable as one.
                    let text = self.s[start..self.i].trim().replace('}', "\u{FF5D}");
                    if !g.top().dead {
                        g.comment(text);
                    }
                }
                b'(' => {
                    self.bump();
                    g.open().map_err(|k| (line, k))?;
                }
                b')' => {
                    self.bump();
                    g.close();
                }
                b'}' | b']' | b'"' => self.bump(),
                _ => {
                    let tok = self.read_token();
                    if tok.is_empty() {
                        self.bump();
                        continue;
                    }
                    if g.top().dead {
                        // Inside a variation already dropped: only a result token matters
                        // (it cannot end the game from inside a variation).
                        continue;
                    }
                    if self.token(g, tok, line)? {
                        // Result at the top level: the game ends here.
                        break;
                    }
                    if g.frames.len() == 1 && g.frames[0].dead {
                        // A game cut at a bad main-line move (salvaging) is skipped from there
                        // to the next line that starts with `[`, as the strict reader skips a
                        // broken game: an unclosed `(` or `{` in the text after the cut does
                        // not swallow the next games.
                        self.skip_to_next_game();
                        break;
                    }
                }
            }
        }
        while g.frames.len() > 1 {
            g.close();
        }
        Ok(())
    }

    /// Handles one movetext token; `Ok(true)` when it is the game's result.
    fn token(
        &mut self,
        g: &mut GameBuilder<'_>,
        tok: &str,
        line: usize,
    ) -> Result<bool, (usize, PgnErrorKind)> {
        if let Some(rest) = tok.strip_prefix('$') {
            if let Ok(n) = rest.parse::<u8>() {
                g.nag(n);
                return Ok(false);
            }
        }
        if let Some(r) = parse_result(tok).filter(|_| !tok.is_empty()) {
            if g.frames.len() == 1 {
                g.result_token = Some(r);
                return Ok(true);
            }
            return Ok(false);
        }
        // A mark glued before the next move number (XieXie: `!!12.`): the last move's.
        let marks = tok.len() - tok.trim_start_matches(['!', '?']).len();
        let tok = match glyph_nag(&tok[..marks]) {
            Some(n) if tok[marks..].starts_with(|c: char| c.is_ascii_digit()) => {
                g.nag(n);
                &tok[marks..]
            }
            _ => tok,
        };
        let tok = strip_number(tok);
        if tok.is_empty() || tok.chars().all(|c| c == '.' || c == '…') {
            return Ok(false);
        }
        // Stand-alone annotation marks.
        if let Some(n) = glyph_nag(tok) {
            g.nag(n);
            return Ok(false);
        }
        // Annotation marks glued to the move.
        let core = tok.trim_end_matches(['!', '?']);
        let glyph = glyph_nag(&tok[core.len()..]);
        g.play(core, line)?;
        if let Some(n) = glyph {
            g.nag(n);
        }
        Ok(false)
    }
}

fn normalize_newlines(s: &str) -> String {
    if s.contains('\r') {
        s.replace("\r\n", "\n").replace('\r', "\n")
    } else {
        s.to_string()
    }
}

/// Strips a move number glued to the front (`12.`, `12...`, `12…`) when something follows,
/// and dots with no number (`...B7-D7`).
fn strip_number(tok: &str) -> &str {
    let digits = tok.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        // Black's move written straight after dots, with no number: `...B7-D7`, `…B7-D7`.
        let after = tok.trim_start_matches(['.', '…']);
        if after.len() < tok.len() && after.chars().count() >= 2 {
            return after;
        }
        return tok;
    }
    let rest = &tok[digits..];
    let dots = rest.len() - rest.trim_start_matches(['.', '…']).len();
    if dots == 0 {
        return tok;
    }
    let after = &rest[dots..];
    if after.is_empty() {
        return "";
    }
    // `33.4` (WXF: the middle soldier of file 3) is a move, not a number and a digit.
    if after.chars().count() < 2 {
        return tok;
    }
    after
}

fn glyph_nag(s: &str) -> Option<u8> {
    Some(match s {
        "!" => 1,
        "?" => 2,
        "!!" => 3,
        "??" => 4,
        "!?" => 5,
        "?!" => 6,
        _ => return None,
    })
}

/// The glyph written for a move-quality NAG (the reverse of `glyph_nag`).
fn nag_glyph(n: u8) -> Option<&'static str> {
    Some(match n {
        1 => "!",
        2 => "?",
        3 => "!!",
        4 => "??",
        5 => "!?",
        6 => "?!",
        _ => return None,
    })
}

struct Frame {
    line: Vec<MoveNode>,
    /// The position before the line's last move.
    before_last: Position,
    /// The position after the line's last move.
    pos: Position,
    /// A comment before the line's first move (variations only): joined to it.
    pending: Option<String>,
    /// Ply number of the line's first move.
    ply0: usize,
    /// A move of this variation could not be played: the rest of it is skipped (lenient).
    dead: bool,
}

struct GameBuilder<'a> {
    tags: Vec<(String, String)>,
    start: Position,
    /// The start position with the other side to move, when the FEN did not say who moves.
    start_alt: Option<Position>,
    comment: Option<String>,
    frames: Vec<Frame>,
    result_token: Option<GameResult>,
    notation: Option<Notation>,
    format_tag: Option<Notation>,
    plies: usize,
    lenient: bool,
    /// A main-line move that cannot be played ends the game there (kept, with a warning).
    salvage: bool,
    /// Where (line) and why the lenient reading dropped a variation's tail.
    dropped: Vec<(usize, PgnErrorKind)>,
    /// The rank numbering of the game's coordinate-SAN moves, once known: from the movetext
    /// ([`detect_san_ranks`]) or from the first move only one numbering can read.
    san_ranks: std::cell::Cell<Option<SanRanks>>,
    /// The text from the game's movetext on, until the numbering is first looked for there
    /// ([`GameBuilder::san_ranks`]; then `None`).
    san_text: std::cell::Cell<Option<&'a str>>,
}

impl<'a> GameBuilder<'a> {
    fn new() -> GameBuilder<'a> {
        GameBuilder {
            tags: Vec::new(),
            start: Position::new(),
            start_alt: None,
            comment: None,
            frames: Vec::new(),
            result_token: None,
            notation: None,
            format_tag: None,
            plies: 0,
            lenient: false,
            salvage: false,
            dropped: Vec::new(),
            san_ranks: std::cell::Cell::new(None),
            san_text: std::cell::Cell::new(None),
        }
    }

    /// Sets up the start position and notation from the tags.
    fn start(&mut self, r: &PgnReader) -> Result<(), (usize, PgnErrorKind)> {
        if let Some((_, fen)) = self
            .tags
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case("FEN"))
        {
            let fen = fen.trim().to_string();
            if !fen.is_empty() {
                let (pos, known) = parse_fen_lenient(&fen).map_err(|reason| {
                    (
                        r.line,
                        PgnErrorKind::BadFen {
                            fen: fen.clone(),
                            reason,
                        },
                    )
                })?;
                if !known {
                    let mut s = pos.to_setup();
                    s.turn = !s.turn;
                    self.start_alt = Position::from_setup(s).ok();
                }
                self.start = pos;
            }
        }
        if let Some((_, f)) = self
            .tags
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case("Format"))
        {
            self.format_tag = Notation::from_format_tag(f);
        }
        self.frames.push(Frame {
            line: Vec::new(),
            before_last: self.start.clone(),
            pos: self.start.clone(),
            pending: None,
            ply0: 1,
            dead: false,
        });
        Ok(())
    }

    fn top(&mut self) -> &mut Frame {
        self.frames.last_mut().expect("a frame")
    }

    fn comment(&mut self, text: String) {
        if text.is_empty() {
            return;
        }
        let root = self.frames.len() == 1;
        let f = self.frames.last_mut().expect("a frame");
        let slot = match f.line.last_mut() {
            Some(n) => &mut n.comment,
            None if root => &mut self.comment,
            None => &mut f.pending,
        };
        match slot {
            Some(c) => {
                c.push('\n');
                c.push_str(&text);
            }
            None => *slot = Some(text),
        }
    }

    fn nag(&mut self, n: u8) {
        if let Some(node) = self.top().line.last_mut() {
            node.nags.push(n);
        }
    }

    fn open(&mut self) -> Result<(), PgnErrorKind> {
        if self.frames.len() > MAX_DEPTH {
            return Err(PgnErrorKind::BadVariation("nested too deep"));
        }
        let f = self.top();
        let dead = f.dead;
        if f.line.is_empty() && !dead {
            return Err(PgnErrorKind::BadVariation("a variation before any move"));
        }
        let start = f.before_last.clone();
        let ply0 = (f.ply0 + f.line.len()).saturating_sub(1).max(1);
        self.frames.push(Frame {
            line: Vec::new(),
            before_last: start.clone(),
            pos: start,
            pending: None,
            ply0,
            // Inside a dropped variation, nested ones go too.
            dead,
        });
        Ok(())
    }

    fn close(&mut self) {
        if self.frames.len() < 2 {
            return; // an unmatched ')': ignored
        }
        let child = self.frames.pop().expect("two frames");
        if child.line.is_empty() {
            return;
        }
        if let Some(node) = self.top().line.last_mut() {
            node.variations.push(child.line);
        }
    }

    /// The rank numbering of the game's coordinate SAN as known so far: on the first call,
    /// what the movetext says ([`detect_san_ranks`]).
    fn san_ranks(&self) -> Option<SanRanks> {
        if let Some(rest) = self.san_text.take() {
            self.san_ranks.set(detect_san_ranks(movetext_ahead(rest)));
        }
        self.san_ranks.get()
    }

    fn read_move(&self, pos: &Position, tok: &str) -> Result<(Move, Notation), ReadMoveError> {
        let first = self.notation.or(self.format_tag);
        let mut err = None;
        // `A9e8`, `E5e3`: a piece letter, then a lower-case target file: coordinate SAN, not
        // ICCS (which writes both files in one case).
        if is_mixed_case_san(tok) {
            if let Some((m, ranks)) = read_san_any(pos, tok, self.san_ranks()) {
                self.san_ranks.set(Some(ranks));
                return Ok((m, first.unwrap_or(Notation::Iccs)));
            }
        }
        if let Some(n) = first {
            match n.read(pos, tok) {
                Ok(m) => return Ok((m, n)),
                Err(e @ ReadMoveError::Move(_)) => return Err(e),
                Err(e) => err = Some(e),
            }
        }
        let t: String = tok.chars().map(half_width).collect();
        if let Some(n) = Notation::guess(&t).filter(|&n| Some(n) != first) {
            return n.read(pos, tok).map(|m| (m, n));
        }
        if let Some((m, ranks)) = read_san_any(pos, &t, self.san_ranks()) {
            self.san_ranks.set(Some(ranks));
            return Ok((m, first.unwrap_or(Notation::Iccs)));
        }
        if san_parts(&t).is_some() {
            return Err(ReadMoveError::Parse(
                xiangqi::notation::ParseNotationError {
                    input: tok.to_string(),
                    notation: match self.san_ranks() {
                        Some(SanRanks::OneToTen) => "coordinate SAN, ranks 1-10 (pychess)",
                        Some(SanRanks::ZeroToNine) => "coordinate SAN, ranks 0-9 (WinBoard)",
                        None => "coordinate SAN",
                    },
                    reason: "no single legal move of that piece goes to that square",
                },
            ));
        }
        Err(err.unwrap_or_else(|| {
            ReadMoveError::Parse(xiangqi::notation::ParseNotationError {
                input: tok.to_string(),
                notation: "any",
                reason: "not a move in ICCS, WXF or Chinese notation",
            })
        }))
    }

    fn play(&mut self, tok: &str, line: usize) -> Result<(), (usize, PgnErrorKind)> {
        let depth = self.frames.len();
        let ply = self.top().ply0 + self.top().line.len();
        let pos = self.top().pos.clone();
        let res = self.read_move(&pos, tok);
        let (m, n) = match res {
            Ok(x) => x,
            Err(e) => {
                // The FEN did not say who moves: maybe it is the other side.
                if depth == 1 && self.top().line.is_empty() {
                    if let Some(alt) = self.start_alt.take() {
                        if let Ok(x) = self.read_move(&alt, tok) {
                            self.start = alt.clone();
                            let f = self.top();
                            f.pos = alt.clone();
                            f.before_last = alt;
                            return self.push_move(x.0, x.1);
                        }
                    }
                }
                let kind = match e {
                    ReadMoveError::Parse(_)
                        if Notation::guess(tok).is_none() && san_parts(tok).is_none() =>
                    {
                        PgnErrorKind::UnknownToken(tok.to_string())
                    }
                    // A well-formed move that cannot be played (illegal, ambiguous) inside a
                    // variation: drop the variation from it on; the game reads on. Text that
                    // is no move at all stays an error: the file is broken there.
                    // On the main line: the game is kept up to the move before it.
                    // (A coordinate-SAN move no legal move fits is such a move too.)
                    e if self.lenient
                        && (depth > 1 || self.salvage)
                        && (matches!(e, ReadMoveError::Move(_)) || san_parts(tok).is_some()) =>
                    {
                        let what = if depth > 1 {
                            "left out with the rest of its variation"
                        } else {
                            "the game is kept up to the move before it, the rest left out"
                        };
                        self.dropped.push((
                            line,
                            PgnErrorKind::BadMove {
                                token: tok.to_string(),
                                ply,
                                reason: format!("{e} (position {}); {what}", pos.fen()),
                            },
                        ));
                        self.top().dead = true;
                        return Ok(());
                    }
                    e => PgnErrorKind::BadMove {
                        token: tok.to_string(),
                        ply,
                        reason: e.to_string(),
                    },
                };
                return Err((line, kind));
            }
        };
        self.push_move(m, n)
    }

    fn push_move(&mut self, m: Move, n: Notation) -> Result<(), (usize, PgnErrorKind)> {
        if self.notation.is_none() {
            self.notation = Some(n);
        }
        self.start_alt = None;
        self.plies += 1;
        let f = self.frames.last_mut().expect("a frame");
        f.before_last.clone_from(&f.pos);
        f.pos.play_unchecked(m);
        let mut node = MoveNode::new(m);
        node.comment = f.pending.take();
        f.line.push(node);
        Ok(())
    }

    fn finish(mut self) -> GameRecord {
        let root = self
            .frames
            .drain(..)
            .next()
            .map(|f| f.line)
            .unwrap_or_default();
        let tag_result = self
            .tags
            .iter()
            .find(|(k, _)| k == "Result")
            .and_then(|(_, v)| parse_result(v));
        let result = match self.result_token {
            Some(GameResult::Unknown) | None => tag_result.unwrap_or(GameResult::Unknown),
            Some(r) => r,
        };
        self.tags.retain(|(k, _)| !is_derived_tag(k));
        GameRecord {
            tags: self.tags,
            start: self.start,
            comment: self.comment,
            moves: root,
            result,
        }
    }
}

/// The rank numbering of coordinate SAN: WinBoard/xboard count the ranks 0-9 (`Che2`,
/// `Rb0`), pychess-variants and elephantchess.io 1-10 (`Che3`, `Rh10`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SanRanks {
    /// WinBoard/xboard: ranks 0-9, Red's back rank 0.
    ZeroToNine,
    /// pychess-variants: ranks 1-10, Red's back rank 1.
    OneToTen,
}

/// A coordinate-SAN token taken apart: piece letter, from-file and from-rank hints as
/// written, capture, target file and target rank as written (not yet shifted to 0-9).
struct SanParts {
    role: Role,
    dfile: Option<u8>,
    drank: Option<u8>,
    file: u8,
    rank: u8,
}

/// Splits `Che2`, `Cbg7`, `Cxe6`, `Rh10`, `A10e9`, `H8e7`, `exe5`, `ab4`, `Ecxe2+` (the piece
/// letters K A E/B H/N R C P; no letter: a soldier). `None` when the token is not of this form.
fn san_parts(tok: &str) -> Option<SanParts> {
    let t = tok.trim_end_matches(['+', '#', '!', '?']);
    let b = t.as_bytes();
    if b.len() < 2 || !b.is_ascii() {
        return None;
    }
    // The target: a file letter and one or two rank digits at the end.
    let digits = b.iter().rev().take_while(|c| c.is_ascii_digit()).count();
    if digits == 0 || digits > 2 || b.len() < digits + 1 {
        return None;
    }
    let fpos = b.len() - digits - 1;
    if !(b'a'..=b'i').contains(&b[fpos]) {
        return None;
    }
    let rank: u8 = t[fpos + 1..].parse().ok()?;
    if rank > 10 {
        return None;
    }
    let file = b[fpos] - b'a';
    let mut head = &t[..fpos];
    let role = match head.as_bytes().first() {
        Some(c) if c.is_ascii_uppercase() => {
            let r = match c {
                b'K' => Role::General,
                b'A' => Role::Advisor,
                b'E' | b'B' => Role::Elephant,
                b'H' | b'N' => Role::Horse,
                b'R' => Role::Chariot,
                b'C' => Role::Cannon,
                b'P' => Role::Soldier,
                _ => return None,
            };
            head = &head[1..];
            r
        }
        _ => Role::Soldier,
    };
    let head = head.strip_suffix('x').unwrap_or(head);
    let (mut dfile, mut drank) = (None, None);
    let hb = head.as_bytes();
    let mut i = 0;
    while i < hb.len() {
        match hb[i] {
            c @ b'a'..=b'i' if dfile.is_none() && drank.is_none() => dfile = Some(c - b'a'),
            b'1' if hb.get(i + 1) == Some(&b'0') && drank.is_none() => {
                drank = Some(10);
                i += 1;
            }
            c @ b'0'..=b'9' if drank.is_none() => drank = Some(c - b'0'),
            _ => return None,
        }
        i += 1;
    }
    Some(SanParts {
        role,
        dfile,
        drank,
        file,
        rank,
    })
}

/// Whether a token is coordinate SAN by its letters' case: an upper-case piece letter and a
/// lower-case file (`A9e8`, `Che2`), which no ICCS move has.
fn is_mixed_case_san(tok: &str) -> bool {
    tok.as_bytes()
        .first()
        .is_some_and(|c| b"KAEBHNRCP".contains(c))
        && tok.bytes().skip(1).any(|c| (b'a'..=b'i').contains(&c))
        && san_parts(tok).is_some()
}

/// What the ranks written in a coordinate-SAN token say about the numbering: a rank 10 only
/// pychess writes, a rank 0 only WinBoard.
fn san_ranks_hint(tok: &str) -> Option<SanRanks> {
    let p = san_parts(tok)?;
    match (p.rank, p.drank) {
        (10, _) | (_, Some(10)) => Some(SanRanks::OneToTen),
        (0, _) | (_, Some(0)) => Some(SanRanks::ZeroToNine),
        _ => None,
    }
}

/// The numbering the coordinate-SAN moves of a movetext use, from the first token that
/// can only be one of them (`None`: none tells, or no such tokens).
pub fn detect_san_ranks(movetext: &str) -> Option<SanRanks> {
    // Comments (`{...}`, `; ...` to the line's end) left out: their words are no moves.
    let mut text = String::with_capacity(movetext.len());
    let mut comment = None;
    for c in movetext.chars() {
        match (comment, c) {
            (None, '{') => comment = Some('}'),
            (None, ';') => comment = Some('\n'),
            (Some(end), c) if c == end => {
                comment = None;
                text.push(' ');
            }
            (Some(_), _) => {}
            (None, c) => text.push(c),
        }
    }
    text.split(|c: char| c.is_whitespace() || matches!(c, '(' | ')'))
        .map(strip_number)
        .filter(|t| t.len() >= 2 && t.len() <= 8)
        // ICCS (`h2e2`, `h0g2`) counts 0-9 too but is no SAN: leave it out.
        .filter(|t| Notation::guess(t) != Some(Notation::Iccs))
        .find_map(san_ranks_hint)
}

/// The text of `rest` up to the next line that starts with `[` (the next game's tags): a
/// game's movetext, for a look ahead.
fn movetext_ahead(rest: &str) -> &str {
    let end = rest
        .match_indices('\n')
        .find(|(k, _)| {
            rest[k + 1..]
                .trim_start_matches([' ', '\t'])
                .starts_with('[')
        })
        .map_or(rest.len(), |(k, _)| k);
    &rest[..end]
}

/// Reads a coordinate-SAN move with the given rank numbering; `None` when the token is no
/// such move or no single legal move fits it.
fn read_san(pos: &Position, tok: &str, ranks: SanRanks) -> Option<Move> {
    let p = san_parts(tok)?;
    let shift = |r: u8| match ranks {
        SanRanks::ZeroToNine => (r <= 9).then_some(r),
        SanRanks::OneToTen => r.checked_sub(1),
    };
    let to = Square::from_coords(
        xiangqi::File::new(p.file)?,
        xiangqi::Rank::new(shift(p.rank)?)?,
    );
    let drank = match p.drank {
        Some(r) => Some(shift(r)?),
        None => None,
    };
    let mut found = None;
    for &m in pos.legal_moves().iter() {
        if m.to() != to || pos.board().role_at(m.from()) != Some(p.role) {
            continue;
        }
        if p.dfile.is_some_and(|f| m.from().file().index() != f)
            || drank.is_some_and(|r| m.from().rank().index() != r)
        {
            continue;
        }
        if found.is_some() {
            return None;
        }
        found = Some(m);
    }
    found
}

/// Reads a coordinate-SAN move: in `ranks` when known, else in whichever numbering gives a
/// legal move (WinBoard's first when both do). Returns the numbering that read it.
fn read_san_any(pos: &Position, tok: &str, ranks: Option<SanRanks>) -> Option<(Move, SanRanks)> {
    match ranks {
        Some(r) => read_san(pos, tok, r).map(|m| (m, r)),
        None => [SanRanks::ZeroToNine, SanRanks::OneToTen]
            .into_iter()
            .find_map(|r| read_san(pos, tok, r).map(|m| (m, r))),
    }
}

impl Iterator for PgnReader<'_> {
    type Item = Result<GameRecord, PgnError>;
    fn next(&mut self) -> Option<Self::Item> {
        self.next_game()
    }
}

/// Reads every game of a PGN text. A text with no game at all gives one [`PgnErrorKind::NoGame`].
pub fn read_all(text: &str) -> Vec<Result<GameRecord, PgnError>> {
    let v: Vec<_> = PgnReader::new(text).collect();
    if v.is_empty() {
        return vec![Err(PgnError {
            game: 1,
            line: 1,
            kind: PgnErrorKind::NoGame,
        })];
    }
    v
}

/// Decodes bytes (see [`crate::encoding::decode`]) and reads every game.
pub fn read_bytes(bytes: &[u8]) -> Vec<Result<GameRecord, PgnError>> {
    let (text, _) = crate::encoding::decode(bytes);
    read_all(&text)
}

/// Whether decoded text looks like PGN: a tag line, or movetext, near the start.
pub fn looks_like(text: &str) -> bool {
    let mut r = PgnReader::new(text);
    r.skip_ws();
    match r.peek() {
        Some(b'[') => {
            // `[Name "value"]` or `[Name value]`: a name of letters, digits or `_`.
            let rest = &text[r.i + 1..];
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            !name.is_empty() && rest[name.len()..].trim_start().starts_with(['"', ']'])
                || rest[name.len()..].starts_with(' ')
        }
        Some(_) => r.i_looks_like_movetext(),
        None => false,
    }
}

/// Tags the record model keeps elsewhere (`result`, `start`, the notation written).
fn is_derived_tag(k: &str) -> bool {
    k == "Result" || k.eq_ignore_ascii_case("FEN") || k.eq_ignore_ascii_case("Format")
}

fn escape_tag(v: &str) -> String {
    v.replace('\\', "\\\\").replace('"', "\\\"")
}

/// Writes text with line wrapping between tokens.
struct Wrap<'a> {
    out: &'a mut String,
    col: usize,
    width: usize,
}

impl Wrap<'_> {
    fn token(&mut self, t: &str) {
        let len = t.chars().count();
        if self.col > 0 {
            if self.col + 1 + len > self.width {
                self.out.push('\n');
                self.col = 0;
            } else {
                self.out.push(' ');
                self.col += 1;
            }
        }
        self.out.push_str(t);
        match t.rfind('\n') {
            Some(i) => self.col = t[i + 1..].chars().count(),
            None => self.col += len,
        }
    }
}

/// Writes one game as PGN in `notation`. Every move of every line must be legal (as the
/// reader guarantees).
pub fn write_game(out: &mut String, game: &GameRecord, notation: Notation) {
    for (k, v) in &game.tags {
        if is_derived_tag(k) {
            continue; // written below from the record itself
        }
        out.push_str(&format!("[{k} \"{}\"]\n", escape_tag(v)));
    }
    out.push_str(&format!("[Result \"{}\"]\n", game.result.as_pgn()));
    if game.start.fen() != xiangqi::START_FEN {
        out.push_str(&format!("[FEN \"{}\"]\n", game.start.fen()));
    }
    out.push_str(&format!("[Format \"{}\"]\n\n", notation.name()));
    let mut tokens: Vec<String> = Vec::new();
    if let Some(c) = &game.comment {
        tokens.push(comment_text(c));
    }
    write_line(&mut tokens, &game.start, &game.moves, notation);
    tokens.push(game.result.as_pgn().to_string());
    let mut w = Wrap {
        out,
        col: 0,
        width: 80,
    };
    for t in &tokens {
        w.token(t);
    }
    w.out.push_str("\n\n");
}

fn comment_text(c: &str) -> String {
    format!("{{{}}}", c.replace('}', "\u{FF5D}"))
}

fn write_line(tokens: &mut Vec<String>, start: &Position, line: &[MoveNode], notation: Notation) {
    let mut pos = start.clone();
    let mut need_number = true;
    for node in line {
        let n = pos.fullmoves();
        let mut mv = notation.write(&pos, node.mv);
        // The first move-quality glyph (`!`, `?`, `!!`, `??`, `!?`, `?!`: NAGs 1-6) is written
        // after the move, as lichess and ChessBase export it; other NAGs (and a second glyph,
        // which glued on would not read back) as `$n`.
        let glued = node.nags.iter().position(|&n| nag_glyph(n).is_some());
        if let Some(g) = glued.and_then(|k| nag_glyph(node.nags[k])) {
            mv.push_str(g);
        }
        // The move number and its move stay on one line.
        if pos.turn() == Color::Red {
            tokens.push(format!("{n}. {mv}"));
        } else if need_number {
            tokens.push(format!("{n}... {mv}"));
        } else {
            tokens.push(mv);
        }
        need_number = false;
        for (k, nag) in node.nags.iter().enumerate() {
            if Some(k) != glued {
                tokens.push(format!("${nag}"));
            }
        }
        if let Some(c) = &node.comment {
            tokens.push(comment_text(c));
            need_number = true;
        }
        for v in &node.variations {
            let first = tokens.len();
            write_line(tokens, &pos, v, notation);
            if tokens.len() > first {
                tokens[first].insert(0, '(');
                tokens.last_mut().expect("non-empty").push(')');
            }
            need_number = true;
        }
        pos.play_unchecked(node.mv);
    }
}

/// Writes games as PGN.
pub fn write_games<'a>(
    games: impl IntoIterator<Item = &'a GameRecord>,
    notation: Notation,
) -> String {
    let mut s = String::new();
    for g in games {
        write_game(&mut s, g, notation);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_tokens() {
        assert_eq!(strip_number("1."), "");
        assert_eq!(strip_number("12..."), "");
        assert_eq!(strip_number("1.h2e2"), "h2e2");
        assert_eq!(strip_number("33.4"), "33.4");
        assert_eq!(strip_number("15.C2.5"), "C2.5");
        assert_eq!(strip_number("h2e2"), "h2e2");
        assert_eq!(parse_result("红胜"), Some(GameResult::RedWins));
        assert_eq!(parse_result("未知"), Some(GameResult::Unknown));
        assert_eq!(parse_result("和棋"), Some(GameResult::Draw));
        assert_eq!(parse_result("黑胜"), Some(GameResult::BlackWins));
    }

    #[test]
    fn reads_a_simple_game() {
        let pgn = "[Event \"x\"]\n[Result \"1-0\"]\n\n1. h2e2 h9g7 2. h0g2 {good} i9h9 (2... c9e7 3. a0a1) 3. i0h0 $1 1-0\n";
        let games = read_all(pgn);
        assert_eq!(games.len(), 1);
        let g = games[0].as_ref().unwrap();
        assert_eq!(g.moves.len(), 5);
        assert_eq!(g.result, GameResult::RedWins);
        assert_eq!(g.moves[2].comment.as_deref(), Some("good"));
        assert_eq!(g.moves[3].variations.len(), 1);
        assert_eq!(g.moves[3].variations[0].len(), 2);
        assert_eq!(g.moves[4].nags, vec![1]);
        assert_eq!(g.tags, vec![("Event".to_string(), "x".to_string())]);
        for n in [Notation::Iccs, Notation::Wxf, Notation::Chinese] {
            let text = write_games([g], n);
            let back = read_all(&text);
            assert_eq!(back.len(), 1, "{text}");
            assert_eq!(back[0].as_ref().unwrap(), g, "{text}");
        }
    }

    #[test]
    fn move_quality_nags_are_written_as_glyphs_after_the_move() {
        let pgn = "1. h2e2 $4 h9g7 $6 $14 2. h0g2 $2 {x} i9h9 $1 $3 *\n";
        let g = read_all(pgn).remove(0).unwrap();
        let mut text = String::new();
        write_game(&mut text, &g, Notation::Iccs);
        assert!(
            text.contains("1. h2e2?? h9g7?! $14 2. h0g2? {x} 2... i9h9! $3 *"),
            "{text}"
        );
        let mut zh = String::new();
        write_game(&mut zh, &g, Notation::Chinese);
        assert!(zh.contains("1. 炮二平五?? 马8进7?! $14"), "{zh}");
        for t in [&text, &zh] {
            assert_eq!(read_all(t).remove(0).unwrap().moves, g.moves, "{t}");
        }
    }

    #[test]
    fn errors_name_game_and_line() {
        let pgn = "[Event \"a\"]\n\n1. h2e2 h9g7 *\n\n[Event \"b\"]\n\n1. h2e2\nh9h0 *\n\n[Event \"c\"]\n1. C2.5 *\n";
        let games = read_all(pgn);
        assert_eq!(games.len(), 3);
        assert!(games[0].is_ok());
        let e = games[1].as_ref().unwrap_err();
        assert_eq!((e.game, e.line), (2, 8), "{e}");
        assert!(e.to_string().contains("h9h0"), "{e}");
        assert!(games[2].is_ok());
    }

    #[test]
    fn side_from_first_move() {
        let pgn = "[FEN \"9/3kaN3/9/9/9/9/9/9/9/4K4 -b\"]\n1. f8e6 d8d7 *";
        let g = read_all(pgn).remove(0).unwrap();
        assert_eq!(g.start.turn(), Color::Red);
        let pgn = "[FEN \"9/3kaN3/9/9/9/9/9/9/9/4K4\"]\n1... d8d7 *";
        let g = read_all(pgn).remove(0).unwrap();
        assert_eq!(g.start.turn(), Color::Black);
    }

    #[test]
    fn san_of_winboard() {
        let pgn = "[Variant \"xiangqi\"]\n1. Che2 {+0,10/7} Cbg7 2. Cxe6 Cxg3 *";
        let g = read_all(pgn).remove(0).unwrap();
        let ms: Vec<String> = g.mainline().map(|m| m.to_string()).collect();
        assert_eq!(ms, ["h2e2", "b7g7", "e2e6", "g7g3"]);
    }

    #[test]
    fn notation_from_the_moves_when_the_format_tag_is_wrong() {
        let pgn = "[Format \"ICCS\"]\n1. 炮二平五 马８进７ 2. Ｈ２＋３ i9h9 *\n";
        let mut r = PgnReader::new(pgn);
        let g = r.next().unwrap().unwrap();
        assert_eq!(r.notation(), Some(Notation::Chinese));
        let ms: Vec<String> = g.mainline().map(|m| m.to_string()).collect();
        assert_eq!(ms, ["h2e2", "h9g7", "h0g2", "i9h9"]);
        assert!(g.tags.is_empty());
        // Movetext alone, no tags, CR line ends.
        let g = read_all("1. h2e2 h9g7\r2. h0g2 *").remove(0).unwrap();
        assert_eq!(g.moves.len(), 3);
    }
}
