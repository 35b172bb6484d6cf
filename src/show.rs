//! `xiangqi show FILE|FEN`: prints a position, or a game of a record file; in a terminal the
//! game is stepped through with the arrow keys.

use std::io::IsTerminal;

use xiangqi::game::{Game, Rules};
use xiangqi::notation::Notation;
use xiangqi::prose::{self, Lang};
use xiangqi::Position;
use xiangqi_record::model::GameRecord;

use crate::board::{self, Marks, Style};
use crate::cli::ShowArgs;
use crate::play::{Key, Keys, RawTerminal};
use crate::{parse_fen, Fail};

/// A game to step through: the record, its main line replayed and how it is drawn.
pub struct Viewer {
    title: String,
    record: GameRecord,
    /// The game after every ply of the main line (`games[k]`: after k plies).
    moves: Vec<xiangqi::Move>,
    notation: Notation,
    style: Style,
    pub flip: bool,
    pub ply: usize,
}

impl Viewer {
    pub fn new(title: String, record: GameRecord, notation: Notation, style: Style) -> Viewer {
        let moves = record.mainline().collect();
        Viewer {
            title,
            record,
            moves,
            notation,
            style,
            flip: false,
            ply: 0,
        }
    }

    pub fn len(&self) -> usize {
        self.moves.len()
    }

    /// The game after `ply` plies of the main line.
    fn game_at(&self, ply: usize) -> Game {
        let mut g = Game::with_rules(self.record.start.clone(), Rules::default());
        for &m in &self.moves[..ply] {
            g.push_unchecked(m);
        }
        g
    }

    /// The lines shown at `self.ply`.
    pub fn frame(&self) -> Vec<String> {
        let game = self.game_at(self.ply);
        let last = self.ply.checked_sub(1).map(|k| self.moves[k]);
        let marks = Marks {
            last,
            ..Marks::default()
        };
        let mut lines = vec![self.title.clone()];
        lines.extend(board::render(
            game.position(),
            self.flip,
            &marks,
            &self.style,
        ));
        let n = self.len();
        let mut at = format!("Ply {} of {n}", self.ply);
        if let Some(m) = last {
            let before = self.game_at(self.ply - 1);
            let pos = before.position();
            let number = pos.fullmoves();
            let dots = if pos.turn() == xiangqi::Color::Red {
                "."
            } else {
                "..."
            };
            at.push_str(&format!(": {number}{dots} {}", self.notation.write(pos, m)));
            let comment = self.record.moves.get(self.ply - 1).and_then(|node| {
                // Comments are kept on the main line's nodes.
                node.comment.clone()
            });
            lines.push(at);
            if let Some(c) = comment {
                lines.push(format!("{{{c}}}"));
            }
        } else {
            lines.push(at);
            if let Some(c) = &self.record.comment {
                lines.push(format!("{{{c}}}"));
            }
        }
        lines.extend(status(&game));
        if self.ply == n && n > 0 {
            lines.push(format!("Result: {}", self.record.result.as_pgn()));
        }
        lines
    }

    /// Handles a key; `false` to stop.
    pub fn key(&mut self, k: Key) -> bool {
        let n = self.len();
        match k {
            Key::Right | Key::Enter | Key::Char(' ') => self.ply = (self.ply + 1).min(n),
            Key::Left | Key::Backspace => self.ply = self.ply.saturating_sub(1),
            Key::Down => self.ply = (self.ply + 10).min(n),
            Key::Up => self.ply = self.ply.saturating_sub(10),
            Key::Home => self.ply = 0,
            Key::End => self.ply = n,
            Key::Char('f') => self.flip = !self.flip,
            Key::Char('q') | Key::Esc | Key::Quit => return false,
            _ => {}
        }
        true
    }
}

/// Whose turn and check, or the game's result with the account of the ruling.
fn status(game: &Game) -> Vec<String> {
    let pos = game.position();
    match game.outcome() {
        Some(o) => vec![format!("Game over: {o}."), prose::explain(game, Lang::En)],
        None => {
            let mut s = format!("{} to move", pos.turn());
            if pos.is_check() {
                s.push_str(": check!");
            }
            vec![s]
        }
    }
}

/// Steps through the viewer with keys until quit or the keys end.
pub fn step(
    v: &mut Viewer,
    keys: &mut dyn Keys,
    draw: &mut dyn FnMut(&Viewer) -> std::io::Result<()>,
) -> std::io::Result<()> {
    loop {
        draw(v)?;
        match keys.next_key()? {
            Some(k) if v.key(k) => {}
            _ => return Ok(()),
        }
    }
}

/// `xiangqi show`.
pub fn cmd_show(a: &ShowArgs) -> Result<(), Fail> {
    let out_terminal = std::io::stdout().is_terminal();
    let style = Style::from_args(&a.style, out_terminal);
    let notation = style.notation(a.notation.map(Notation::from));
    let path = std::path::Path::new(&a.target);
    if !path.exists() {
        if !a.target.contains('/') {
            return Err(Fail::input(format!(
                "{}: no such file, and not a FEN",
                a.target
            )));
        }
        let pos: Position = parse_fen(&a.target)?;
        if a.ply.is_some() || a.all {
            return Err(Fail::input(
                "--ply and --all are for a record file, not a FEN",
            ));
        }
        for l in board::render(&pos, false, &Marks::default(), &style) {
            println!("{l}");
        }
        println!("FEN: {}", pos.fen());
        for l in status(&Game::new(pos)) {
            println!("{l}");
        }
        return Ok(());
    }
    let bytes =
        std::fs::read(path).map_err(|e| Fail::input(format!("cannot read {}: {e}", a.target)))?;
    let all = xiangqi_record::detect::read_any(&bytes)
        .map_err(|e| Fail::input(format!("{}: {e}", a.target)))?;
    let count = all.games.len();
    let k = a.game as usize;
    let record = match all.games.into_iter().nth(k - 1) {
        Some(Ok(r)) => r,
        Some(Err(e)) => {
            return Err(Fail::input(format!(
                "{} ({}), game {k} of {count}: {e}",
                a.target, all.format
            )))
        }
        None => {
            return Err(Fail::input(format!(
                "{} has {count} game{}: there is no game {k}",
                a.target,
                if count == 1 { "" } else { "s" }
            )))
        }
    };
    let tag = |t: &str| record.tag(t).unwrap_or("?").to_string();
    let title = format!(
        "{} ({}), game {k} of {count}: {} - {}, {}",
        a.target,
        all.format,
        tag("Red"),
        tag("Black"),
        tag("Event")
    );
    let mut v = Viewer::new(title, record, notation, style);
    let n = v.len();
    if let Some(p) = a.ply {
        if p > n {
            return Err(Fail::input(format!(
                "--ply {p}: the main line has {n} plies"
            )));
        }
    }
    let interactive = a.ply.is_none() && !a.all && out_terminal && std::io::stdin().is_terminal();
    if interactive {
        let io = |e: std::io::Error| Fail(format!("terminal: {e}"), 1);
        let guard = RawTerminal::enter().map_err(io)?;
        let r = step(&mut v, &mut crate::play::TerminalKeys, &mut |v| {
            let mut lines = v.frame();
            lines.push("left/right: a move, up/down: ten, Home/End, f: flip, q: quit".to_string());
            RawTerminal::draw(&lines)
        });
        drop(guard);
        return r.map_err(io);
    }
    let plies: Vec<usize> = if a.all {
        (0..=n).collect()
    } else {
        vec![a.ply.unwrap_or(n)]
    };
    for (i, p) in plies.into_iter().enumerate() {
        if i > 0 {
            println!();
        }
        v.ply = p;
        for l in v.frame() {
            println!("{l}");
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const PLAIN: Style = Style {
        chinese: false,
        color: false,
        ascii: true,
    };

    #[test]
    fn steps_through_a_game_with_keys() {
        let text = "[Event \"t\"]\n[Red \"A\"]\n[Black \"B\"]\n1. h2e2 {centre} h9g7 2. h0g2 1-0\n";
        let all = xiangqi_record::detect::read_any(text.as_bytes()).unwrap();
        let rec = all.games.into_iter().next().unwrap().unwrap();
        let mut v = Viewer::new("t".into(), rec, Notation::Wxf, PLAIN);
        let mut frames = Vec::new();
        let keys = [
            Key::Right,
            Key::End,
            Key::Left,
            Key::Home,
            Key::Char('f'),
            Key::Char('q'),
            Key::Right,
        ];
        step(&mut v, &mut keys.into_iter(), &mut |v| {
            frames.push(v.frame());
            Ok(())
        })
        .unwrap();
        assert_eq!(frames.len(), 6, "q stops before the last key");
        assert!(
            frames[0].contains(&"Ply 0 of 3".to_string()),
            "{:#?}",
            frames[0]
        );
        assert!(
            frames[1].contains(&"Ply 1 of 3: 1. C2.5".to_string()),
            "{:#?}",
            frames[1]
        );
        assert!(
            frames[1].contains(&"{centre}".to_string()),
            "{:#?}",
            frames[1]
        );
        assert!(
            frames[2].contains(&"Ply 3 of 3: 2. H2+3".to_string()),
            "{:#?}",
            frames[2]
        );
        assert!(frames[2].contains(&"Result: 1-0".to_string()));
        assert!(
            frames[3].contains(&"Ply 2 of 3: 1... H8+7".to_string()),
            "{:#?}",
            frames[3]
        );
        assert_eq!(frames[4], frames[0]);
        assert!(
            frames[5][2].starts_with("0  R"),
            "flipped: {:#?}",
            frames[5]
        );
    }
}
