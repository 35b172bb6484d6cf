//! WXF notation: `C2.5`, `H8+7`, `R+.3`, `P-+1`, `++.4`, `3+.4`.
//!
//! Written as the official WXF/AXF form (`.` for sideways moves, letters K A E H R C P).
//! Read leniently: `=` for `.`, lower case, full-width characters, spaces, a trailing check or
//! annotation mark (`+`, `#`, `!`, `?`), the letters B/N/G/M of other systems, the sign written
//! before the letter (`+P+1`), the sideways mark left out (`C25`), and Fairy-Stockfish's
//! `<ordinal><file>` form for stacked soldiers (`25=6`, second soldier on file 5).

use core::fmt;
use core::str::FromStr;

use super::{describe, resolve, Direction, Locate, Named, NotationError, ParseNotationError, Pick};
use crate::position::Position;
use crate::types::{Move, Role};

/// How a WXF move names the moving piece.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum WxfFrom {
    /// The piece's file, 1-9 (`C2`). With three or five soldiers on that file (and no other
    /// stacked file) it names the middle one (`P3.4`).
    File(u8),
    /// `+` after the letter: the front of two or three like pieces on a file, the second
    /// from the front of four or five soldiers.
    Front,
    /// `-` after the letter: the rear of two or three, the second from the rear of four or five.
    Rear,
    /// `++`: the foremost of four or five soldiers on a file.
    Foremost,
    /// `--`: the rearmost of four or five soldiers on a file.
    Rearmost,
    /// Soldiers stacked on two files: `3+` the front soldier on file 3.
    FileFront(u8),
    /// Soldiers stacked on two files: `3-` the rear soldier on file 3.
    FileRear(u8),
    /// Soldiers stacked on two files: `33` the middle of three soldiers on file 3.
    FileMiddle(u8),
    /// Fairy-Stockfish's form `25`: the second soldier from the front on file 5 (read only;
    /// written as the official form).
    Ordinal { nth: u8, file: u8 },
}

/// A move in WXF notation, independent of any position.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Wxf {
    pub role: Role,
    pub from: WxfFrom,
    pub dir: Direction,
    /// The destination file (sideways moves; advisor, elephant and horse moves) or the number
    /// of points moved.
    pub arg: u8,
}

fn letter(role: Role) -> char {
    match role {
        Role::General => 'K',
        Role::Advisor => 'A',
        Role::Elephant => 'E',
        Role::Horse => 'H',
        Role::Chariot => 'R',
        Role::Cannon => 'C',
        Role::Soldier => 'P',
    }
}

fn role_of_letter(c: char) -> Option<Role> {
    Some(match c.to_ascii_uppercase() {
        'K' => Role::General,
        'A' | 'G' => Role::Advisor,
        'E' | 'B' | 'M' => Role::Elephant,
        'H' | 'N' => Role::Horse,
        'R' => Role::Chariot,
        'C' => Role::Cannon,
        'P' => Role::Soldier,
        _ => return None,
    })
}

impl Wxf {
    /// Describes a legal move of `pos` in WXF notation.
    ///
    /// # Panics
    /// If the move's from-square is empty (the move must be legal in `pos`).
    pub fn from_move(pos: &Position, m: Move) -> Wxf {
        let d = describe(pos, m);
        let from = match d.named {
            Named::File(f) => WxfFrom::File(f),
            Named::Stack {
                file,
                index,
                count,
                by_file,
            } => {
                if by_file {
                    match (index, count) {
                        (0, _) => WxfFrom::FileFront(file),
                        (i, c) if i + 1 == c => WxfFrom::FileRear(file),
                        _ => WxfFrom::FileMiddle(file),
                    }
                } else {
                    match (count, index) {
                        (2 | 3, 0) => WxfFrom::Front,
                        (2, _) => WxfFrom::Rear,
                        (3, 1) => WxfFrom::File(file),
                        (3, _) => WxfFrom::Rear,
                        (_, 0) => WxfFrom::Foremost,
                        (_, 1) => WxfFrom::Front,
                        (c, i) if i + 1 == c => WxfFrom::Rearmost,
                        (c, i) if i + 2 == c => WxfFrom::Rear,
                        _ => WxfFrom::File(file), // the middle of five
                    }
                }
            }
        };
        Wxf {
            role: d.role,
            from,
            dir: d.dir,
            arg: d.arg,
        }
    }

    /// The legal move this names in `pos`.
    pub fn to_move(&self, pos: &Position) -> Result<Move, NotationError> {
        let locate = match self.from {
            WxfFrom::File(f) => Locate::File(f, true),
            WxfFrom::Front => Locate::Stack(None, Pick::WxfPlus),
            WxfFrom::Rear => Locate::Stack(None, Pick::WxfMinus),
            WxfFrom::Foremost => Locate::Stack(None, Pick::Nth(0)),
            WxfFrom::Rearmost => Locate::Stack(None, Pick::Last),
            WxfFrom::FileFront(f) => Locate::Stack(Some(f), Pick::Nth(0)),
            WxfFrom::FileRear(f) => Locate::Stack(Some(f), Pick::Last),
            WxfFrom::FileMiddle(f) => Locate::Stack(Some(f), Pick::Middle),
            WxfFrom::Ordinal { nth, file } => {
                Locate::Stack(Some(file), Pick::Nth(nth.saturating_sub(1)))
            }
        };
        resolve(pos, self.role, locate, self.dir, self.arg, &|| {
            self.to_string()
        })
    }
}

impl fmt::Display for Wxf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let l = letter(self.role);
        match self.from {
            WxfFrom::File(n) => write!(f, "{l}{n}")?,
            WxfFrom::Front => write!(f, "{l}+")?,
            WxfFrom::Rear => write!(f, "{l}-")?,
            WxfFrom::Foremost => f.write_str("++")?,
            WxfFrom::Rearmost => f.write_str("--")?,
            WxfFrom::FileFront(n) => write!(f, "{n}+")?,
            WxfFrom::FileRear(n) => write!(f, "{n}-")?,
            WxfFrom::FileMiddle(n) => write!(f, "{n}{n}")?,
            WxfFrom::Ordinal { nth, file } => write!(f, "{nth}{file}")?,
        }
        let d = match self.dir {
            Direction::Forward => '+',
            Direction::Backward => '-',
            Direction::Sideways => '.',
        };
        write!(f, "{d}{}", self.arg)
    }
}

impl FromStr for Wxf {
    type Err = ParseNotationError;

    fn from_str(s: &str) -> Result<Wxf, ParseNotationError> {
        let bad = |reason: &'static str| ParseNotationError {
            input: s.to_owned(),
            notation: "WXF",
            reason,
        };
        let mut t: Vec<char> = Vec::with_capacity(8);
        for c in s.chars() {
            let c = super::half_width(c);
            if c.is_whitespace() {
                continue;
            }
            if t.len() >= 8 {
                return Err(bad("too long"));
            }
            t.push(match c {
                '=' => '.',
                c => c.to_ascii_uppercase(),
            });
        }
        // Trailing marks: check (`+`, `#`) and annotations (`!`, `?`), after a complete move.
        while t.len() > 4 && matches!(t.last(), Some('+' | '#' | '!' | '?')) {
            t.pop();
        }
        while t.len() == 4 && matches!(t.last(), Some('!' | '?' | '#')) {
            t.pop();
        }
        if t.len() == 3 && role_of_letter(t[0]).is_some() && t[1].is_ascii_digit() {
            // `C25`: the sideways mark left out.
            t.insert(2, '.');
        }
        if t.len() != 4 {
            return Err(bad("expected four characters like C2.5"));
        }
        let digit = |c: char| {
            c.to_digit(10)
                .filter(|d| (1..=9).contains(d))
                .map(|d| d as u8)
        };
        let dir = match t[2] {
            '+' => Direction::Forward,
            '-' => Direction::Backward,
            '.' => Direction::Sideways,
            _ => return Err(bad("the third character must be +, - or . (=)")),
        };
        let arg = digit(t[3]).ok_or_else(|| bad("the last character must be a digit 1-9"))?;
        let (role, from) = match (t[0], t[1]) {
            (a, b) if role_of_letter(a).is_some() => {
                let role = role_of_letter(a).expect("checked");
                let from = match b {
                    '+' => WxfFrom::Front,
                    '-' => WxfFrom::Rear,
                    b => WxfFrom::File(
                        digit(b).ok_or_else(|| bad("the piece's file must be a digit 1-9"))?,
                    ),
                };
                (role, from)
            }
            ('+', b) if role_of_letter(b).is_some() => {
                (role_of_letter(b).expect("checked"), WxfFrom::Front)
            }
            ('-', b) if role_of_letter(b).is_some() => {
                (role_of_letter(b).expect("checked"), WxfFrom::Rear)
            }
            ('+', '+') => (Role::Soldier, WxfFrom::Foremost),
            ('-', '-') => (Role::Soldier, WxfFrom::Rearmost),
            (a, b) if digit(a).is_some() => {
                let f = digit(a).expect("checked");
                let from = match b {
                    '+' => WxfFrom::FileFront(f),
                    '-' => WxfFrom::FileRear(f),
                    b => match digit(b) {
                        Some(g) if g == f => WxfFrom::FileMiddle(f),
                        Some(g) if f <= 5 => WxfFrom::Ordinal { nth: f, file: g },
                        _ => return Err(bad("a soldier's position must be +, - or its file")),
                    },
                };
                (Role::Soldier, from)
            }
            _ => return Err(bad("expected a piece letter K A E H R C P")),
        };
        if matches!(role, Role::Advisor | Role::Elephant | Role::Horse)
            && dir == Direction::Sideways
        {
            return Err(bad("advisors, elephants and horses never move sideways"));
        }
        Ok(Wxf {
            role,
            from,
            dir,
            arg,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(fen: &str) -> Position {
        Position::from_fen(fen).unwrap()
    }

    fn read(p: &Position, s: &str) -> String {
        s.parse::<Wxf>().unwrap().to_move(p).unwrap().to_string()
    }

    /// Every legal move of `p` written and read back gives itself; returns the writings.
    fn round_trip(p: &Position) -> Vec<(String, String)> {
        let mut v = Vec::new();
        for &m in p.legal_moves().iter() {
            let w = Wxf::from_move(p, m).to_string();
            let back = w.parse::<Wxf>().unwrap().to_move(p);
            assert_eq!(back, Ok(m), "{w} in {}", p.fen());
            v.push((m.to_string(), w));
        }
        v.sort();
        v
    }

    #[test]
    fn rules_example() {
        let mut p = Position::new();
        let moves = ["h2e2", "h9g7", "h0g2", "c9e7", "a0a2", "i9h9"];
        let wxf = ["C2.5", "H8+7", "H2+3", "E3+5", "R9+2", "R9.8"];
        for (u, w) in moves.iter().zip(wxf) {
            let m = p.parse_uci(u).unwrap();
            assert_eq!(Wxf::from_move(&p, m).to_string(), w);
            assert_eq!(read(&p, w), *u);
            p.play_unchecked(m);
        }
    }

    #[test]
    fn lenient_reading() {
        let p = Position::new();
        for s in [
            "C2=5",
            "C2.5",
            "c2.5",
            "Ｃ２＝５",
            " C2 = 5 ",
            "C25",
            "C2.5!?",
            "Ｃ２．５",
        ] {
            assert_eq!(read(&p, s), "h2e2", "{s}");
        }
        assert_eq!(read(&p, "N2+3"), "h0g2");
        assert_eq!(read(&p, "B3+5"), "g0e2");
        assert_eq!(read(&p, "A4+5"), "f0e1");
    }

    #[test]
    fn malformed_illegal_ambiguous() {
        let p = Position::new();
        assert!("X2.5".parse::<Wxf>().is_err());
        assert!("C2.0".parse::<Wxf>().is_err());
        assert!("C2*5".parse::<Wxf>().is_err());
        assert!("H2.3".parse::<Wxf>().is_err());
        assert!("".parse::<Wxf>().is_err());
        let e = "C2+9".parse::<Wxf>().unwrap().to_move(&p).unwrap_err();
        assert!(matches!(e, NotationError::Illegal { .. }), "{e}");
        let e = "R5+1".parse::<Wxf>().unwrap().to_move(&p).unwrap_err();
        assert!(matches!(e, NotationError::Illegal { .. }), "{e}");
        // Two red chariots on file 1 (i0, i3): "R1+1" fits both i0i1 and i3i4.
        let q = pos("3k5/9/9/9/9/9/8R/9/9/4K3R w");
        let e = "R1+1".parse::<Wxf>().unwrap().to_move(&q).unwrap_err();
        assert!(matches!(e, NotationError::Ambiguous { .. }), "{e}");
        assert_eq!(read(&q, "R++1"), "i3i4");
        assert_eq!(read(&q, "R-+1"), "i0i1");
        assert_eq!(read(&q, "+R+1"), "i3i4");
    }

    #[test]
    fn black_numbering() {
        let mut p = Position::new();
        p.play_unchecked(p.parse_uci("h2e2").unwrap());
        let m = p.parse_uci("h9g7").unwrap();
        assert_eq!(Wxf::from_move(&p, m).to_string(), "H8+7");
        let m = p.parse_uci("b7e7").unwrap();
        assert_eq!(Wxf::from_move(&p, m).to_string(), "C2.5");
    }

    #[test]
    fn tandem_pieces() {
        let p = pos("3k5/9/9/9/9/9/8R/9/9/4K3R w");
        let w = round_trip(&p);
        assert!(w.contains(&("i3h3".into(), "R+.2".into())), "{w:?}");
        assert!(w.contains(&("i0h0".into(), "R-.2".into())), "{w:?}");
        // Two black elephants on file 3 (c9 and c5; c5 is the front): written by file, the
        // direction telling them apart; the tandem form reads too.
        let p = pos("2bk5/9/9/9/2b6/9/9/9/4A4/3AK4 b");
        let w = round_trip(&p);
        assert!(w.contains(&("c5e7".into(), "E3-5".into())), "{w:?}");
        assert!(w.contains(&("c9a7".into(), "E3+1".into())), "{w:?}");
        assert_eq!(read(&p, "E+-5"), "c5e7");
        assert_eq!(read(&p, "E-+1"), "c9a7");
        // Red's two advisors on file 6 (d0, d2).
        let p = pos("5k3/9/9/9/9/9/9/3A5/9/3AK4 w");
        let w = round_trip(&p);
        assert!(w.contains(&("d0e1".into(), "A6+5".into())), "{w:?}");
        assert!(w.contains(&("d2e1".into(), "A6-5".into())), "{w:?}");
        assert_eq!(read(&p, "A+-5"), "d2e1");
        // Horses keep the tandem form.
        let p = pos("5k3/9/9/9/9/9/9/3N5/9/3NK4 w");
        let w = round_trip(&p);
        assert!(w.contains(&("d2c4".into(), "H++7".into())), "{w:?}");
    }

    #[test]
    fn tandem_soldiers() {
        // Three red soldiers on file 5 (e5 e6 e7).
        let p = pos("5k3/9/4P4/4P4/4P4/9/9/9/9/3K5 w");
        let w = round_trip(&p);
        assert!(w.contains(&("e7d7".into(), "P+.6".into())), "{w:?}");
        assert!(w.contains(&("e6d6".into(), "P5.6".into())), "{w:?}");
        assert!(w.contains(&("e5d5".into(), "P-.6".into())), "{w:?}");
        // Four: ++ P+ P- --.
        let p = pos("5k3/9/4P4/4P4/4P4/4P4/9/9/9/3K5 w");
        let w = round_trip(&p);
        assert!(w.contains(&("e7d7".into(), "++.6".into())), "{w:?}");
        assert!(w.contains(&("e6d6".into(), "P+.6".into())), "{w:?}");
        assert!(w.contains(&("e5d5".into(), "P-.6".into())), "{w:?}");
        assert!(w.contains(&("e7e8".into(), "+++1".into())), "{w:?}");
        // Five: ++ P+ P5 P- --.
        let p = pos("5k3/4P4/4P4/4P4/4P4/4P4/9/9/9/3K5 w");
        let w = round_trip(&p);
        assert!(w.contains(&("e8d8".into(), "++.6".into())), "{w:?}");
        assert!(w.contains(&("e6d6".into(), "P5.6".into())), "{w:?}");
        assert!(w.contains(&("e5d5".into(), "P-.6".into())), "{w:?}");
        assert!(w.contains(&("e7d7".into(), "P+.6".into())), "{w:?}");
        // Stacked on two files: three on file 7 (c), two on file 5 (e).
        let p = pos("5k3/9/2P6/2P1P4/2P1P4/9/9/9/9/3K5 w");
        let w = round_trip(&p);
        assert!(w.contains(&("c7d7".into(), "7+.6".into())), "{w:?}");
        assert!(w.contains(&("c6d6".into(), "77.6".into())), "{w:?}");
        assert!(w.contains(&("c5d5".into(), "7-.6".into())), "{w:?}");
        assert!(w.contains(&("e6d6".into(), "5+.6".into())), "{w:?}");
        assert!(w.contains(&("e5d5".into(), "5-.6".into())), "{w:?}");
        // Fairy-Stockfish's ordinal form is read too.
        assert_eq!(read(&p, "27=6"), "c6d6");
        assert_eq!(read(&p, "15=6"), "e6d6");
    }

    #[test]
    fn wukong_sign_before_letter() {
        // Two black soldiers on file 7 (g4, g3 from Black's side: g3 is the front).
        let p = pos("5k3/9/9/9/9/6p2/6p2/9/9/3K5 b");
        assert_eq!(read(&p, "＋Ｐ＋１"), "g3g2");
        assert_eq!(read(&p, "－Ｐ＝６"), "g4f4");
    }
}
