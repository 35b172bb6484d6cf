//! `xiangqi play`: a game against the engine in the terminal.
//!
//! [`Play`] is the game and everything the screen shows; [`Play::key`] and
//! [`Play::command`] change it, [`Play::screen`] draws it as lines. [`run`] is the input
//! loop over any source of [`Key`]s: the terminal's (crossterm, raw mode) or a script in
//! tests. When stdin is not a terminal, [`run_lines`] reads one move or command per line.

use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};

use xiangqi::game::{Game, Rules};
use xiangqi::notation::Notation;
use xiangqi::prose::{self, Lang};
use xiangqi::{Color, Move, Square};
use xiangqi_engine::{Engine, Limits};
use xiangqi_record::model::{GameRecord, GameResult, MoveNode};

use crate::board::{self, Marks, Style};
use crate::cli::{PlayArgs, SideArg};
use crate::{parse_fen, Fail};

/// A key, as the input loop sees it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Key {
    Char(char),
    Enter,
    Backspace,
    Esc,
    Up,
    Down,
    Left,
    Right,
    Home,
    End,
    /// Ctrl-C or Ctrl-D.
    Quit,
}

const HELP: &str = "moves: h2e2, H2-E2, C2.5 or 炮二平五 then Enter; or arrows and Enter/Space \
                    to pick a piece and its square; Esc cancels. Commands: undo, flip, save \
                    [FILE], resign, new, help, quit";

/// A game against the engine and the state of its screen.
pub struct Play {
    pub game: Game,
    pub human: Color,
    engine: Engine,
    movetime: u64,
    level: i32,
    pub flip: bool,
    pub cursor: Square,
    pub picked: Option<Square>,
    pub input: String,
    pub message: String,
    notation: Notation,
    lang: Lang,
    pgn: PathBuf,
    pub style: Style,
    pub quit: bool,
}

impl Play {
    /// A new game from the options, drawn in `style`.
    pub fn new(a: &PlayArgs, style: Style) -> Result<Play, Fail> {
        let start = parse_fen(&a.fen)?;
        let human = match a.side {
            SideArg::Red => Color::Red,
            SideArg::Black => Color::Black,
        };
        let mut engine = Engine::new();
        engine
            .set_option("Skill Level", &a.level.to_string())
            .map_err(Fail::input)?;
        // The play levels play from a book: the one given, else the named openings' lines
        // that ship (`--no-book`: none).
        let book = match &a.book {
            Some(book) => Some(book.display().to_string()),
            None if a.no_book => None,
            None => Some("<openings>".to_owned()),
        };
        if let Some(book) = book {
            engine
                .set_option("BookFile", &book)
                .map_err(|e| Fail::input(format!("--book: {e}")))?;
            engine.set_option("OwnBook", "true").map_err(Fail::input)?;
        }
        let cursor = start.general(human);
        Ok(Play {
            game: Game::with_rules(start, Rules::default()),
            human,
            engine,
            movetime: a.movetime,
            level: a.level,
            flip: human == Color::Black,
            cursor,
            picked: None,
            input: String::new(),
            message: format!("You play {human}. Type help for the commands."),
            notation: style.notation(a.notation.map(Notation::from)),
            lang: a.lang,
            pgn: a.pgn.clone(),
            style,
            quit: false,
        })
    }

    /// Whether the engine is to move now.
    pub fn engine_to_move(&self) -> bool {
        self.game.outcome().is_none() && self.game.position().turn() != self.human
    }

    /// The engine plays its move (searching `movetime` milliseconds).
    pub fn engine_move(&mut self) {
        let start = self.game.start().clone();
        let moves = self.game.moves();
        if let Err(e) = self.engine.set_position(start, &moves) {
            self.message = format!("the engine cannot take the position: {}", e.0);
            return;
        }
        let (best, _) = self.engine.search(Limits {
            movetime: Some(self.movetime),
            ..Limits::default()
        });
        match best {
            Some(m) if self.game.position().is_legal(m) => {
                let text = self.notation.write(self.game.position(), m);
                self.game.push_unchecked(m);
                self.message = format!("The engine played {text}.");
            }
            Some(m) => self.message = format!("the engine answered an illegal move {m}"),
            None => self.message = "the engine has no move".to_string(),
        }
    }

    /// Handles one key.
    pub fn key(&mut self, k: Key) {
        let (df, dr): (i8, i8) = match k {
            Key::Up => (0, 1),
            Key::Down => (0, -1),
            Key::Left => (-1, 0),
            Key::Right => (1, 0),
            _ => (0, 0),
        };
        if df != 0 || dr != 0 {
            let (df, dr) = if self.flip { (-df, -dr) } else { (df, dr) };
            if let Some(sq) = self.cursor.offset(df, dr) {
                self.cursor = sq;
            }
            return;
        }
        match k {
            Key::Quit => self.quit = true,
            Key::Esc => {
                self.input.clear();
                self.picked = None;
            }
            Key::Backspace => {
                self.input.pop();
            }
            Key::Char(' ') if self.input.is_empty() => self.pick(),
            Key::Char(c) => self.input.push(c),
            Key::Enter if self.input.trim().is_empty() => {
                self.input.clear();
                self.pick()
            }
            Key::Enter => {
                let text = std::mem::take(&mut self.input);
                self.command(&text);
            }
            _ => {}
        }
    }

    /// Picks the piece under the cursor, or moves the picked one there.
    fn pick(&mut self) {
        if self.game.outcome().is_some() {
            self.message = "The game is over: undo, new or quit.".into();
            return;
        }
        let pos = self.game.position();
        let own = pos
            .piece_at(self.cursor)
            .is_some_and(|p| p.color == self.human);
        match self.picked {
            Some(from) if from == self.cursor => self.picked = None,
            _ if own => {
                if self.targets(self.cursor).is_empty() {
                    self.message = "That piece has no legal move.".into();
                } else {
                    self.picked = Some(self.cursor);
                }
            }
            Some(from) => {
                let m = Move::new(from, self.cursor);
                if pos.is_legal(m) {
                    self.picked = None;
                    self.play_human(m);
                } else {
                    self.message = format!("{m} is not a legal move.");
                }
            }
            None => self.message = "Pick one of your pieces.".into(),
        }
    }

    /// Where the piece on `from` may go.
    fn targets(&self, from: Square) -> Vec<Square> {
        self.game
            .position()
            .legal_moves()
            .iter()
            .filter(|m| m.from() == from)
            .map(|m| m.to())
            .collect()
    }

    fn play_human(&mut self, m: Move) {
        let text = self.notation.write(self.game.position(), m);
        self.game.push_unchecked(m);
        self.message = format!("You played {text}.");
    }

    /// A typed line: a move in any notation or a command.
    pub fn command(&mut self, text: &str) {
        let text = text.trim();
        let (word, rest) = match text.split_once(char::is_whitespace) {
            Some((w, r)) => (w, r.trim()),
            None => (text, ""),
        };
        match word.to_ascii_lowercase().as_str() {
            "" => {}
            "quit" | "exit" | "q" => self.quit = true,
            "help" | "?" => self.message = HELP.to_string(),
            "flip" => self.flip = !self.flip,
            "undo" | "takeback" | "back" => self.undo(),
            "new" => {
                let start = self.game.start().clone();
                self.game = Game::with_rules(start, Rules::default());
                self.engine.new_game();
                self.picked = None;
                self.message = "A new game.".into();
            }
            "resign" => {
                if self.game.outcome().is_none() {
                    self.game.resign(self.human);
                }
            }
            "save" => {
                let path = if rest.is_empty() {
                    self.pgn.clone()
                } else {
                    PathBuf::from(rest)
                };
                self.message = match self.save(&path) {
                    Ok(()) => format!("The game was added to {}.", path.display()),
                    Err(e) => format!("cannot save to {}: {e}", path.display()),
                };
            }
            _ => self.typed_move(text),
        }
    }

    fn typed_move(&mut self, text: &str) {
        if self.game.outcome().is_some() {
            self.message = "The game is over: undo, new or quit.".into();
            return;
        }
        if self.game.position().turn() != self.human {
            self.message = "It is the engine's turn.".into();
            return;
        }
        match read_move(self.game.position(), text) {
            Ok(m) => {
                self.picked = None;
                self.play_human(m);
            }
            Err(e) => self.message = e,
        }
    }

    /// Takes back a resignation, or the last move of the human and the engine's reply to
    /// it: back to a position where the human is to move.
    fn undo(&mut self) {
        self.picked = None;
        if self
            .game
            .outcome()
            .is_some_and(|o| o.reason == xiangqi::Reason::Resignation)
        {
            self.game.clear_declared();
            self.message = "Took back the resignation.".into();
            return;
        }
        let before = self.game.len();
        while self.game.pop().is_some() {
            if self.game.position().turn() == self.human {
                break;
            }
        }
        self.message = match before - self.game.len() {
            0 => "Nothing to take back.".into(),
            n => format!("Took back {n} move{}.", if n == 1 { "" } else { "s" }),
        };
    }

    /// Appends the game to `path` as PGN (a new file is made when there is none).
    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        let mut text = String::new();
        xiangqi_record::pgn::write_game(&mut text, &self.record(), self.notation);
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)?;
        if f.metadata()?.len() > 0 {
            f.write_all(b"\n")?;
        }
        f.write_all(text.as_bytes())
    }

    /// The game as a record.
    pub fn record(&self) -> GameRecord {
        let engine = format!("xiangqi engine (level {})", self.level);
        let (red, black) = match self.human {
            Color::Red => ("You".to_string(), engine),
            Color::Black => (engine, "You".to_string()),
        };
        let result = match self.game.outcome() {
            Some(o) => match o.winner {
                Some(Color::Red) => GameResult::RedWins,
                Some(Color::Black) => GameResult::BlackWins,
                None => GameResult::Draw,
            },
            None => GameResult::Unknown,
        };
        let mut rec = GameRecord {
            start: self.game.start().clone(),
            moves: self.game.moves().into_iter().map(MoveNode::new).collect(),
            result,
            ..GameRecord::default()
        };
        rec.set_tag("Event", "xiangqi play");
        rec.set_tag("Date", xiangqi_record::date::pgn_today());
        rec.set_tag("Red", red);
        rec.set_tag("Black", black);
        if let Some(o) = self.game.outcome() {
            rec.set_tag("Termination", o.reason.to_string());
        }
        rec
    }

    /// The lines of the screen: the board with the move list beside it, then the state of
    /// the game, the last message and the input line.
    pub fn screen(&self, thinking: bool) -> Vec<String> {
        let marks = Marks {
            last: self.game.moves().last().copied(),
            cursor: Some(self.cursor),
            picked: self.picked,
            targets: self.picked.map(|p| self.targets(p)).unwrap_or_default(),
        };
        let board = board::render(self.game.position(), self.flip, &marks, &self.style);
        let list = board::move_list(self.game.start(), &self.game.moves(), self.notation);
        let shown = board.len();
        let list = &list[list.len().saturating_sub(shown)..];
        let width = board.iter().map(|l| visible_width(l)).max().unwrap_or(0);
        let mut lines: Vec<String> = board
            .iter()
            .enumerate()
            .map(|(i, l)| match list.get(i) {
                Some(m) => {
                    let pad = width - visible_width(l);
                    format!("{l}{}   {m}", " ".repeat(pad))
                }
                None => l.clone(),
            })
            .collect();
        lines.push(String::new());
        lines.extend(self.status_lines(thinking));
        lines.push(self.message.clone());
        lines.push(format!("> {}", self.input));
        lines
    }

    /// Who is to move (and check), or the result with the account of the ruling.
    pub fn status_lines(&self, thinking: bool) -> Vec<String> {
        let pos = self.game.position();
        match self.game.outcome() {
            Some(o) => vec![
                format!("Game over: {o}."),
                prose::explain(&self.game, self.lang),
            ],
            None => {
                let who = if pos.turn() == self.human {
                    "you"
                } else {
                    "the engine"
                };
                let mut s = format!("{} to move ({who})", pos.turn());
                if pos.is_check() {
                    s.push_str(": check!");
                }
                if thinking {
                    s.push_str("; the engine is thinking...");
                }
                vec![s]
            }
        }
    }
}

/// Reads a move in any notation (ICCS, WXF or Chinese), or says why it is none.
pub fn read_move(pos: &xiangqi::Position, text: &str) -> Result<Move, String> {
    let text = text.trim();
    let order = match Notation::guess(text) {
        Some(n) => vec![n],
        None => vec![Notation::Iccs, Notation::Wxf, Notation::Chinese],
    };
    let mut last = String::new();
    for n in order {
        match n.read(pos, text) {
            Ok(m) => return Ok(m),
            Err(e) => last = e.to_string(),
        }
    }
    Err(format!("'{text}' is not a move here: {last}"))
}

/// The columns a line takes on the terminal (ANSI codes take none; CJK characters two).
pub fn visible_width(s: &str) -> usize {
    let mut w = 0;
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            for d in chars.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
            continue;
        }
        let u = c as u32;
        w += if (0x1100..=0x115F).contains(&u)
            || (0x2E80..=0xA4CF).contains(&u)
            || (0xAC00..=0xD7A3).contains(&u)
            || (0xF900..=0xFAFF).contains(&u)
            || (0xFE30..=0xFE4F).contains(&u)
            || (0xFF00..=0xFF60).contains(&u)
            || (0xFFE0..=0xFFE6).contains(&u)
        {
            2
        } else {
            1
        };
    }
    w
}

/// A source of keys: `Ok(None)` when there are no more.
pub trait Keys {
    fn next_key(&mut self) -> std::io::Result<Option<Key>>;
}

/// Keys from a list (tests).
impl<I: Iterator<Item = Key>> Keys for I {
    fn next_key(&mut self) -> std::io::Result<Option<Key>> {
        Ok(self.next())
    }
}

/// The input loop: draws, lets the engine move when it is its turn, reads a key and handles
/// it, until quit or the keys end.
pub fn run(
    play: &mut Play,
    keys: &mut dyn Keys,
    draw: &mut dyn FnMut(&Play, bool) -> std::io::Result<()>,
) -> std::io::Result<()> {
    loop {
        if play.quit {
            return Ok(());
        }
        if play.engine_to_move() {
            draw(play, true)?;
            play.engine_move();
            continue;
        }
        draw(play, false)?;
        match keys.next_key()? {
            Some(k) => play.key(k),
            None => return Ok(()),
        }
    }
}

/// The terminal's keys (crossterm events in raw mode).
pub struct TerminalKeys;

impl Keys for TerminalKeys {
    fn next_key(&mut self) -> std::io::Result<Option<Key>> {
        use crossterm::event::{self, Event, KeyCode, KeyEventKind, KeyModifiers};
        loop {
            let Event::Key(k) = event::read()? else {
                continue;
            };
            if k.kind == KeyEventKind::Release {
                continue;
            }
            let ctrl = k.modifiers.contains(KeyModifiers::CONTROL);
            return Ok(Some(match k.code {
                KeyCode::Char('c') | KeyCode::Char('d') if ctrl => Key::Quit,
                KeyCode::Char(c) => Key::Char(c),
                KeyCode::Enter => Key::Enter,
                KeyCode::Backspace => Key::Backspace,
                KeyCode::Esc => Key::Esc,
                KeyCode::Up => Key::Up,
                KeyCode::Down => Key::Down,
                KeyCode::Left => Key::Left,
                KeyCode::Right => Key::Right,
                KeyCode::Home => Key::Home,
                KeyCode::End => Key::End,
                _ => continue,
            }));
        }
    }
}

/// Raw mode and the alternate screen while it lives; the terminal is given back as it was
/// when it is dropped (also after an error or a panic).
pub struct RawTerminal;

impl RawTerminal {
    pub fn enter() -> std::io::Result<RawTerminal> {
        crossterm::terminal::enable_raw_mode()?;
        let mut out = std::io::stdout();
        crossterm::execute!(
            out,
            crossterm::terminal::EnterAlternateScreen,
            crossterm::cursor::Hide
        )?;
        Ok(RawTerminal)
    }

    /// Clears the screen and writes the lines (raw mode needs `\r\n`).
    pub fn draw(lines: &[String]) -> std::io::Result<()> {
        let mut out = std::io::stdout().lock();
        crossterm::queue!(
            out,
            crossterm::cursor::MoveTo(0, 0),
            crossterm::terminal::Clear(crossterm::terminal::ClearType::All)
        )?;
        for l in lines {
            write!(out, "{l}\r\n")?;
        }
        out.flush()
    }
}

impl Drop for RawTerminal {
    fn drop(&mut self) {
        let _ = crossterm::execute!(
            std::io::stdout(),
            crossterm::cursor::Show,
            crossterm::terminal::LeaveAlternateScreen
        );
        let _ = crossterm::terminal::disable_raw_mode();
    }
}

/// One move or command per line of `input`; the board and state are written to `out` at the
/// start and after each line that changed the game.
pub fn run_lines(
    play: &mut Play,
    input: &mut dyn BufRead,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let show = |play: &Play, out: &mut dyn Write| -> std::io::Result<()> {
        let marks = Marks {
            last: play.game.moves().last().copied(),
            ..Marks::default()
        };
        for l in board::render(play.game.position(), play.flip, &marks, &play.style) {
            writeln!(out, "{l}")?;
        }
        for l in play.status_lines(false) {
            writeln!(out, "{l}")?;
        }
        Ok(())
    };
    writeln!(out, "{}", play.message)?;
    if play.engine_to_move() {
        play.engine_move();
        writeln!(out, "{}", play.message)?;
    }
    show(play, out)?;
    let mut line = String::new();
    loop {
        line.clear();
        if input.read_line(&mut line)? == 0 || play.quit {
            return Ok(());
        }
        let before = (play.game.len(), play.flip, play.game.outcome());
        play.message.clear();
        play.command(&line);
        if play.engine_to_move() {
            if !play.message.is_empty() {
                writeln!(out, "{}", play.message)?;
            }
            play.engine_move();
        }
        if !play.message.is_empty() {
            writeln!(out, "{}", play.message)?;
        }
        if play.quit {
            return Ok(());
        }
        if (play.game.len(), play.flip, play.game.outcome()) != before {
            show(play, out)?;
        }
        out.flush()?;
    }
}

/// `xiangqi play`.
pub fn cmd_play(a: &PlayArgs) -> Result<(), Fail> {
    let terminal = std::io::stdin().is_terminal() && std::io::stdout().is_terminal();
    let style = Style::from_args(&a.style, std::io::stdout().is_terminal());
    let mut play = Play::new(a, style)?;
    let io = |e: std::io::Error| Fail(format!("terminal: {e}"), 1);
    if !terminal {
        let stdin = std::io::stdin();
        let mut out = std::io::stdout();
        return run_lines(&mut play, &mut stdin.lock(), &mut out).map_err(io);
    }
    let guard = RawTerminal::enter().map_err(io)?;
    let r = run(&mut play, &mut TerminalKeys, &mut |p, thinking| {
        RawTerminal::draw(&p.screen(thinking))
    });
    drop(guard);
    r.map_err(io)?;
    // What the game came to stays on the terminal after the alternate screen is left.
    for l in play.status_lines(false) {
        println!("{l}");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    fn args(v: &[&str]) -> PlayArgs {
        let all = ["xiangqi", "play"].iter().chain(v);
        match crate::cli::Cli::try_parse_from(all).unwrap().command {
            Some(crate::cli::Command::Play(a)) => a,
            other => panic!("{other:?}"),
        }
    }

    const PLAIN: Style = Style {
        chinese: false,
        color: false,
        ascii: true,
    };

    fn keys(s: &str) -> Vec<Key> {
        s.chars()
            .map(|c| if c == '\n' { Key::Enter } else { Key::Char(c) })
            .collect()
    }

    /// Runs scripted keys; returns the frames drawn.
    fn script(play: &mut Play, ks: Vec<Key>) -> Vec<Vec<String>> {
        let mut frames = Vec::new();
        run(play, &mut ks.into_iter(), &mut |p, t| {
            frames.push(p.screen(t));
            Ok(())
        })
        .unwrap();
        frames
    }

    /// `--book`: the engine answers from the book while the game is in it; a file that is
    /// not a book is refused, naming the option.
    #[test]
    fn the_engine_plays_from_the_book() {
        use xiangqi_explorer::book::{encode, Entry, Header};
        let mut after = xiangqi::Position::new();
        after.play_unchecked(after.parse_uci("h2e2").unwrap());
        let bytes = encode(
            vec![Entry::new(
                &after,
                after.parse_uci("a6a5").unwrap(),
                1,
                1,
                1,
            )],
            Header::default(),
        )
        .unwrap();
        let dir = std::env::temp_dir().join(format!("xq_play_book_{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("b.xqb");
        std::fs::write(&path, bytes).unwrap();
        let book = path.to_str().unwrap();
        for level in ["0", "20"] {
            let a = args(&["--movetime", "30", "--level", level, "--book", book]);
            let mut p = Play::new(&a, PLAIN).unwrap();
            script(&mut p, keys("h2e2\n"));
            assert_eq!(p.game.moves()[1].to_string(), "a6a5", "level {level}");
        }
        let a = args(&["--book", dir.to_str().unwrap()]);
        let e = Play::new(&a, PLAIN).err().unwrap();
        assert!(e.0.starts_with("--book: BookFile: cannot read"), "{}", e.0);
        std::fs::remove_dir_all(&dir).ok();
    }

    /// Without `--book` the engine answers from the named openings' lines that ship: after
    /// 炮二平五 its reply is one of the table's answers to it; `--no-book` plays none (its
    /// level-0 search is free to answer anything).
    #[test]
    fn the_named_openings_are_the_default_book() {
        let book = xiangqi_explorer::book::openings_book();
        let mut after = xiangqi::Position::new();
        after.play_unchecked(after.parse_uci("h2e2").unwrap());
        let answers: Vec<String> = book
            .probe(&after)
            .iter()
            .map(|m| m.mv.to_string())
            .collect();
        assert!(answers.len() >= 3, "{answers:?}");
        for _ in 0..5 {
            let mut p = Play::new(&args(&["--movetime", "30", "--level", "0"]), PLAIN).unwrap();
            script(&mut p, keys("h2e2\n"));
            let reply = p.game.moves()[1].to_string();
            assert!(answers.contains(&reply), "{reply} not among {answers:?}");
        }
        assert!(Play::new(&args(&["--no-book"]), PLAIN)
            .unwrap()
            .engine
            .book()
            .is_none());
        assert!(Play::new(&args(&[]), PLAIN)
            .unwrap()
            .engine
            .book()
            .is_some());
        assert!(crate::cli::Cli::try_parse_from([
            "xiangqi",
            "play",
            "--no-book",
            "--book",
            "b.xqb"
        ])
        .is_err());
    }

    #[test]
    fn typed_moves_in_every_notation_get_replies() {
        let mut p = Play::new(&args(&["--movetime", "30", "--level", "0"]), PLAIN).unwrap();
        // ICCS, then WXF and Chinese (each read in the position after the engine's reply).
        let frames = script(&mut p, keys("H2-E2\n"));
        assert_eq!(p.game.len(), 2, "{:?}", frames.last());
        assert!(frames
            .iter()
            .any(|f| f.iter().any(|l| l.contains("thinking"))));
        let mut ks = keys("H8+7\n");
        if p.game.position().piece_at("h0".parse().unwrap()).is_none() {
            ks = keys("C8.5\n");
        }
        script(&mut p, ks);
        assert_eq!(p.game.len(), 4, "{}", p.message);
        // Chinese: the rook on a0 (red's file 九) one step forward, unless the engine's
        // replies have taken it or blocked it.
        let a0 = "a0".parse().unwrap();
        let a1 = "a1".parse().unwrap();
        let pos = p.game.position();
        if pos.piece_at(a0).is_some_and(|q| q.color == Color::Red) && pos.piece_at(a1).is_none() {
            script(&mut p, keys("车九进一\n"));
            assert_eq!(p.game.len(), 6, "{}", p.message);
            assert_eq!(p.game.moves()[4].to_string(), "a0a1");
        }
        // Nonsense is refused with the reason and changes nothing.
        let n = p.game.len();
        script(&mut p, keys("zz9\n"));
        assert_eq!(p.game.len(), n);
        assert!(
            p.message.starts_with("'zz9' is not a move here"),
            "{}",
            p.message
        );
        // The screen: the board, the move list beside it, whose turn.
        let screen = p.screen(false);
        assert!(screen[0].contains("1. C2.5"), "{screen:#?}");
        assert!(
            screen.iter().any(|l| l.starts_with("red to move (you)")),
            "{screen:#?}"
        );
        assert_eq!(screen.last().unwrap(), "> ");
    }

    #[test]
    fn arrows_pick_and_move_and_undo_flip() {
        let mut p = Play::new(&args(&["--movetime", "30"]), PLAIN).unwrap();
        assert_eq!(p.cursor.to_string(), "e0");
        // e0 -> h2: right 3, up 2; pick the cannon, then left 3 to e2 and move.
        let mut ks = vec![
            Key::Right,
            Key::Right,
            Key::Right,
            Key::Up,
            Key::Up,
            Key::Enter,
        ];
        ks.extend([Key::Left, Key::Left, Key::Left]);
        script(&mut p, ks);
        assert_eq!(p.picked.map(|s| s.to_string()).as_deref(), Some("h2"));
        let screen = p.screen(false);
        assert!(screen.iter().any(|l| l.contains("(C)")), "{screen:#?}");
        assert!(screen.iter().any(|l| l.contains(">*<")), "{screen:#?}");
        script(&mut p, vec![Key::Char(' ')]);
        assert_eq!(p.game.moves()[0].to_string(), "h2e2");
        assert_eq!(p.game.len(), 2);
        // The last move is marked.
        let last = p.game.moves()[1];
        assert!(p.screen(false).iter().any(|l| l.contains('[')), "{last}");
        script(&mut p, keys("undo\n"));
        assert_eq!(p.game.len(), 0, "{}", p.message);
        assert_eq!(p.message, "Took back 2 moves.");
        script(&mut p, keys("undo\n"));
        assert_eq!(p.message, "Nothing to take back.");
        script(&mut p, keys("flip\n"));
        assert!(p.flip);
        assert!(
            p.screen(false)[1].starts_with("0  R"),
            "{:#?}",
            p.screen(false)
        );
        // Flipped, the arrows follow the screen: up goes towards rank 0 (now at the top),
        // left towards file i; the cursor stays on the board.
        assert_eq!(p.cursor.to_string(), "e2");
        script(&mut p, vec![Key::Up, Key::Up]);
        assert_eq!(p.cursor.to_string(), "e0");
        script(&mut p, vec![Key::Up, Key::Left]);
        assert_eq!(p.cursor.to_string(), "f0");
        // Quit ends the loop.
        script(&mut p, vec![Key::Quit, Key::Char('x')]);
        assert!(p.quit && p.input.is_empty());
    }

    #[test]
    fn game_over_is_explained_and_saved_as_pgn() {
        // Red mates at once: a chariot to the back rank, the other holds rank 8 and the red
        // general the e-file.
        let fen = "3k5/1R7/R8/9/9/9/9/9/9/4K4 w - - 0 1";
        let mut p = Play::new(&args(&["--fen", fen, "--movetime", "30"]), PLAIN).unwrap();
        script(&mut p, keys("a7a9\n"));
        assert_eq!(p.game.len(), 1, "{}", p.message);
        let status = p.status_lines(false);
        assert_eq!(status[0], "Game over: red-wins checkmate.");
        assert!(status[1].contains("checkmate"), "{status:?}");
        let dir = std::env::temp_dir().join(format!("xiangqi-play-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("g.pgn");
        script(&mut p, keys(&format!("save {}\n", file.display())));
        assert!(
            p.message.starts_with("The game was added to"),
            "{}",
            p.message
        );
        script(&mut p, keys(&format!("save {}\n", file.display())));
        let text = std::fs::read_to_string(&file).unwrap();
        assert_eq!(
            text.matches("[Event \"xiangqi play\"]").count(),
            2,
            "{text}"
        );
        assert!(
            text.contains("[Result \"1-0\"]") && text.contains("R9+2"),
            "{text}"
        );
        assert!(text.contains(&format!("[FEN \"{fen}\"]")), "{text}");
        // It reads back as the same game.
        let back = xiangqi_record::detect::read_any(text.as_bytes()).unwrap();
        let g = back.games[0].as_ref().unwrap();
        assert_eq!(g.mainline().collect::<Vec<_>>(), p.game.moves());
        std::fs::remove_dir_all(&dir).ok();
        // Perpetual check is explained with its reason (the rules core's account).
        let mut q = Play::new(&args(&["--movetime", "30"]), PLAIN).unwrap();
        script(&mut q, keys("resign\n"));
        assert_eq!(q.status_lines(false)[1], "Black wins: red resigned.");
        script(&mut q, keys("undo\n"));
        assert!(q.game.outcome().is_none());
    }

    #[test]
    fn perpetual_chase_is_explained_at_the_end() {
        let fen = "2bakabnr/9/r1n1c4/2p1p1p1p/PP7/9/4P1P1P/2C3NC1/9/1NBAKAB1R w - - 0 1";
        let mut p = Play::new(&args(&["--fen", fen, "--movetime", "30"]), PLAIN).unwrap();
        // The chase, the engine's replies replaced by the chased chariot's own moves.
        for u in [
            "c2a2", "a7b7", "a2b2", "b7a7", "b2a2", "a7b7", "a2b2", "b7a7",
        ] {
            p.game.push_uci(u).unwrap();
        }
        assert!(!p.engine_to_move());
        script(&mut p, keys("b2a2\n"));
        assert!(!p.engine_to_move(), "no engine move after the end");
        let status = p.status_lines(false);
        assert_eq!(status[0], "Game over: black-wins perpetual-chase.");
        assert!(
            status[1].starts_with(
                "Red loses by perpetual chase: the red cannon chased the black chariot"
            ),
            "{status:?}"
        );
        // In Chinese with --lang zh.
        let mut q = Play::new(
            &args(&["--fen", fen, "--movetime", "30", "--lang", "zh"]),
            PLAIN,
        )
        .unwrap();
        q.game = p.game.clone();
        assert!(
            q.status_lines(false)[1].starts_with("红方长捉黑方的车，判负"),
            "{:?}",
            q.status_lines(false)
        );
        // A move after the end is refused; undo goes back before the chase's last move.
        script(&mut p, keys("a2a3\n"));
        assert_eq!(p.message, "The game is over: undo, new or quit.");
        script(&mut p, keys("undo\n"));
        assert!(p.game.outcome().is_none());
    }

    #[test]
    fn black_side_engine_moves_first_and_lines_mode() {
        let a = args(&["--side", "black", "--movetime", "30", "--lang", "zh"]);
        let mut p = Play::new(&a, PLAIN).unwrap();
        let mut out = Vec::new();
        let input = b"help\nflip\nnonsense\nquit\n";
        run_lines(&mut p, &mut &input[..], &mut out).unwrap();
        let out = String::from_utf8(out).unwrap();
        assert!(out.starts_with("You play black."), "{out}");
        assert!(out.contains("The engine played"), "{out}");
        assert!(out.contains("black to move (you)"), "{out}");
        assert!(out.contains("'nonsense' is not a move here"), "{out}");
        assert!(out.contains("Commands: undo, flip"), "{out}");
        assert_eq!(p.game.len(), 1);
    }

    #[test]
    fn widths() {
        assert_eq!(visible_width("\x1b[31m帥\x1b[0m a"), 4);
        assert_eq!(xiangqi_record::date::pgn_today().len(), 10);
    }
}
