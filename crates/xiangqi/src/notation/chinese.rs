//! Chinese notation: `炮二平五`, `马8进7`, `前车进一`, `中兵平四`, `二兵平四`, `前七平六`.
//!
//! Written with simplified characters: Red 帅仕相马车炮兵 with Chinese numerals 一…九,
//! Black 将士象马车炮卒 with ASCII digits 1…9. Read leniently: traditional and variant
//! characters (帥 將 俥 車 傌 馬 砲 包 進 後 …), full-width digits (`马８进７`), numerals and
//! digits for either side, spaces (also U+3000), and a trailing check or annotation mark.

use core::fmt;
use core::str::FromStr;

use super::{
    describe, resolve, soldier_across_index, Direction, Locate, Named, NotationError,
    ParseNotationError, Pick,
};
use crate::position::Position;
use crate::types::{Color, Move, Role};

/// How a Chinese move names the moving piece.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum ChineseFrom {
    /// The piece's file, 1-9 (`炮二`).
    File(u8),
    /// 前: the front one of like pieces on a file.
    Front,
    /// 中: the middle one of three (or five) soldiers on a file.
    Middle,
    /// 后: the rear one.
    Rear,
    /// 一二三四五 before the piece: the n-th (1-5) from the front of four or five soldiers on
    /// one file; when soldiers are stacked on two files, the n-th counted across both (files
    /// from the side's right to its left, each from the front: the official rules' order).
    Nth(u8),
    /// Soldiers stacked on two files: 前七, the front soldier on file 7 (read, not written).
    FileFront(u8),
    /// Soldiers stacked on two files: 中七.
    FileMiddle(u8),
    /// Soldiers stacked on two files: 后七.
    FileRear(u8),
}

/// A move in Chinese notation, independent of any position.
///
/// `color` only chooses the characters and numerals when writing; reading against a position
/// uses the side to move.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Chinese {
    pub color: Color,
    pub role: Role,
    pub from: ChineseFrom,
    pub dir: Direction,
    /// The destination file or the number of points moved.
    pub arg: u8,
}

pub(crate) const RED_NUMERALS: [char; 9] = ['一', '二', '三', '四', '五', '六', '七', '八', '九'];

pub(crate) fn piece_char(color: Color, role: Role) -> char {
    match (color, role) {
        (Color::Red, Role::General) => '帅',
        (Color::Black, Role::General) => '将',
        (Color::Red, Role::Advisor) => '仕',
        (Color::Black, Role::Advisor) => '士',
        (Color::Red, Role::Elephant) => '相',
        (Color::Black, Role::Elephant) => '象',
        (_, Role::Horse) => '马',
        (_, Role::Chariot) => '车',
        (_, Role::Cannon) => '炮',
        (Color::Red, Role::Soldier) => '兵',
        (Color::Black, Role::Soldier) => '卒',
    }
}

/// The role of a piece character and the side it is usually written for (`None` when both
/// sides use it).
fn role_of_char(c: char) -> Option<(Role, Option<Color>)> {
    use Color::*;
    Some(match c {
        '帅' | '帥' => (Role::General, Some(Red)),
        '将' | '將' => (Role::General, Some(Black)),
        '王' | '君' => (Role::General, None),
        '仕' => (Role::Advisor, Some(Red)),
        '士' => (Role::Advisor, Some(Black)),
        '相' => (Role::Elephant, Some(Red)),
        '象' => (Role::Elephant, Some(Black)),
        '马' | '馬' | '傌' | '碼' => (Role::Horse, None),
        '车' | '車' | '俥' | '伡' => (Role::Chariot, None),
        '炮' | '砲' | '包' | '炰' => (Role::Cannon, None),
        '兵' => (Role::Soldier, Some(Red)),
        '卒' => (Role::Soldier, Some(Black)),
        _ => return None,
    })
}

/// A number 1-9 written as a Chinese numeral (red) or a digit (black, full-width mapped first).
fn number_of_char(c: char) -> Option<(u8, Color)> {
    if let Some(i) = RED_NUMERALS.iter().position(|&n| n == c) {
        return Some((i as u8 + 1, Color::Red));
    }
    match c {
        '1'..='9' => Some((c as u8 - b'0', Color::Black)),
        '壹' => Some((1, Color::Red)),
        '贰' | '貳' | '两' | '兩' => Some((2, Color::Red)),
        _ => None,
    }
}

fn direction_of_char(c: char) -> Option<Direction> {
    match c {
        '进' | '進' => Some(Direction::Forward),
        '退' => Some(Direction::Backward),
        '平' => Some(Direction::Sideways),
        _ => None,
    }
}

fn position_of_char(c: char) -> Option<ChineseFrom> {
    match c {
        '前' => Some(ChineseFrom::Front),
        '中' => Some(ChineseFrom::Middle),
        '后' | '後' => Some(ChineseFrom::Rear),
        _ => None,
    }
}

/// Whether the character occurs only in Chinese-notation moves (piece, direction or
/// position characters), so that a token holding it is a Chinese move.
pub(crate) fn is_chinese_move_char(c: char) -> bool {
    role_of_char(c).is_some() || direction_of_char(c).is_some() || position_of_char(c).is_some()
}

impl Chinese {
    /// Describes a legal move of `pos` in Chinese notation.
    ///
    /// # Panics
    /// If the move's from-square is empty (the move must be legal in `pos`).
    pub fn from_move(pos: &Position, m: Move) -> Chinese {
        let d = describe(pos, m);
        let from = match d.named {
            Named::File(f) => ChineseFrom::File(f),
            Named::Stack {
                file,
                index,
                count,
                by_file,
            } => {
                let front = index == 0;
                let rear = index + 1 == count;
                let across = soldier_across_index(pos, pos.turn(), m.from());
                match (by_file, count) {
                    (true, _) if across.is_some() => ChineseFrom::Nth(across.expect("checked") + 1),
                    (true, _) if front => ChineseFrom::FileFront(file),
                    (true, _) if rear => ChineseFrom::FileRear(file),
                    (true, _) => ChineseFrom::FileMiddle(file),
                    (false, 2 | 3) if front => ChineseFrom::Front,
                    (false, 2 | 3) if rear => ChineseFrom::Rear,
                    (false, 2 | 3) => ChineseFrom::Middle,
                    (false, _) => ChineseFrom::Nth(index + 1),
                }
            }
        };
        Chinese {
            color: pos.turn(),
            role: d.role,
            from,
            dir: d.dir,
            arg: d.arg,
        }
    }

    /// The legal move this names in `pos`.
    pub fn to_move(&self, pos: &Position) -> Result<Move, NotationError> {
        let locate = match self.from {
            ChineseFrom::File(f) => Locate::File(f, false),
            ChineseFrom::Front => Locate::Stack(None, Pick::Nth(0)),
            ChineseFrom::Middle => Locate::Stack(None, Pick::Middle),
            ChineseFrom::Rear => Locate::Stack(None, Pick::Last),
            ChineseFrom::Nth(n) if self.role == Role::Soldier => {
                Locate::Across(n.saturating_sub(1))
            }
            ChineseFrom::Nth(n) => Locate::Stack(None, Pick::Nth(n.saturating_sub(1))),
            ChineseFrom::FileFront(f) => Locate::Stack(Some(f), Pick::Nth(0)),
            ChineseFrom::FileMiddle(f) => Locate::Stack(Some(f), Pick::Middle),
            ChineseFrom::FileRear(f) => Locate::Stack(Some(f), Pick::Last),
        };
        resolve(pos, self.role, locate, self.dir, self.arg, &|| {
            self.to_string()
        })
    }

    fn number(&self, n: u8) -> char {
        match self.color {
            Color::Red => RED_NUMERALS[(n.clamp(1, 9) - 1) as usize],
            Color::Black => (b'0' + n.clamp(1, 9)) as char,
        }
    }
}

impl fmt::Display for Chinese {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = piece_char(self.color, self.role);
        let mut s = String::with_capacity(12);
        match self.from {
            ChineseFrom::File(n) => {
                s.push(p);
                s.push(self.number(n));
            }
            ChineseFrom::Front => {
                s.push('前');
                s.push(p);
            }
            ChineseFrom::Middle => {
                s.push('中');
                s.push(p);
            }
            ChineseFrom::Rear => {
                s.push('后');
                s.push(p);
            }
            ChineseFrom::Nth(n) => {
                s.push(RED_NUMERALS[(n.clamp(1, 9) - 1) as usize]);
                s.push(p);
            }
            ChineseFrom::FileFront(n) => {
                s.push('前');
                s.push(self.number(n));
            }
            ChineseFrom::FileMiddle(n) => {
                s.push('中');
                s.push(self.number(n));
            }
            ChineseFrom::FileRear(n) => {
                s.push('后');
                s.push(self.number(n));
            }
        }
        s.push(match self.dir {
            Direction::Forward => '进',
            Direction::Backward => '退',
            Direction::Sideways => '平',
        });
        s.push(self.number(self.arg));
        f.write_str(&s)
    }
}

impl FromStr for Chinese {
    type Err = ParseNotationError;

    fn from_str(s: &str) -> Result<Chinese, ParseNotationError> {
        let bad = |reason: &'static str| ParseNotationError {
            input: s.to_owned(),
            notation: "Chinese",
            reason,
        };
        let mut t: [char; 4] = ['\0'; 4];
        let mut n = 0;
        for c in s.chars() {
            let c = super::half_width(c);
            if c.is_whitespace() {
                continue;
            }
            if n == 4 {
                // A trailing check or annotation mark after a complete move.
                if matches!(c, '+' | '#' | '!' | '?') {
                    continue;
                }
                return Err(bad("too long: expected four characters like 炮二平五"));
            }
            t[n] = c;
            n += 1;
        }
        if n != 4 {
            return Err(bad("expected four characters like 炮二平五"));
        }
        let dir = direction_of_char(t[2])
            .ok_or_else(|| bad("the third character must be 进, 退 or 平"))?;
        let (arg, arg_color) =
            number_of_char(t[3]).ok_or_else(|| bad("the last character must be a number 1-9"))?;
        let mut color = arg_color;
        let (role, from) = if let Some((role, c)) = role_of_char(t[0]) {
            let (f, _) =
                number_of_char(t[1]).ok_or_else(|| bad("the piece's file must be a number 1-9"))?;
            if let Some(c) = c {
                color = c;
            }
            (role, ChineseFrom::File(f))
        } else if let Some(pos) = position_of_char(t[0]) {
            if let Some((role, _)) = role_of_char(t[1]) {
                (role, pos)
            } else if let Some((f, _)) = number_of_char(t[1]) {
                let from = match pos {
                    ChineseFrom::Front => ChineseFrom::FileFront(f),
                    ChineseFrom::Middle => ChineseFrom::FileMiddle(f),
                    _ => ChineseFrom::FileRear(f),
                };
                (Role::Soldier, from)
            } else {
                return Err(bad("前, 中 or 后 must be followed by a piece or a file"));
            }
        } else if let Some((k, _)) = number_of_char(t[0]) {
            let (role, _) =
                role_of_char(t[1]).ok_or_else(|| bad("an ordinal must be followed by a piece"))?;
            if !(1..=5).contains(&k) {
                return Err(bad("a piece's ordinal on its file must be 1-5"));
            }
            (role, ChineseFrom::Nth(k))
        } else {
            return Err(bad("expected a piece (车马炮…) or 前/中/后 first"));
        };
        if matches!(role, Role::Advisor | Role::Elephant | Role::Horse)
            && dir == Direction::Sideways
        {
            return Err(bad(
                "advisors, elephants and horses never move sideways (平)",
            ));
        }
        Ok(Chinese {
            color,
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
        s.parse::<Chinese>()
            .unwrap()
            .to_move(p)
            .unwrap()
            .to_string()
    }

    fn round_trip(p: &Position) -> Vec<(String, String)> {
        let mut v = Vec::new();
        for &m in p.legal_moves().iter() {
            let w = Chinese::from_move(p, m).to_string();
            let back = w.parse::<Chinese>().unwrap().to_move(p);
            assert_eq!(back, Ok(m), "{w} in {}", p.fen());
            v.push((m.to_string(), w));
        }
        v.sort();
        v
    }

    #[test]
    fn rules_examples() {
        let mut p = Position::new();
        let m = p.parse_uci("h2e2").unwrap();
        assert_eq!(Chinese::from_move(&p, m).to_string(), "炮二平五");
        p.play_unchecked(m);
        let m = p.parse_uci("h9g7").unwrap();
        assert_eq!(Chinese::from_move(&p, m).to_string(), "马8进7");
        assert_eq!(read(&p, "马８进７"), "h9g7");
        assert_eq!(read(&p, "馬8進7"), "h9g7");
        assert_eq!(read(&p, " 马 ８ 进 ７ "), "h9g7");
        assert_eq!(read(&p, "马八进七"), "h9g7");
    }

    #[test]
    fn traditional_and_variants() {
        let p = Position::new();
        for s in [
            "炮二平五",
            "砲二平五",
            "包二平五",
            "炮2平5",
            "炮２平５",
            "炮二平五+",
        ] {
            assert_eq!(read(&p, s), "h2e2", "{s}");
        }
        assert_eq!(read(&p, "傌二進三"), "h0g2");
        assert_eq!(read(&p, "俥一進一"), "i0i1");
        assert_eq!(read(&p, "車一進一"), "i0i1");
        assert_eq!(read(&p, "帥五進一"), "e0e1");
        assert_eq!(read(&p, "仕四進五"), "f0e1");
        assert_eq!(read(&p, "相三進五"), "g0e2");
    }

    #[test]
    fn malformed_illegal_ambiguous() {
        let p = Position::new();
        assert!("炮二走五".parse::<Chinese>().is_err());
        assert!("炮二平".parse::<Chinese>().is_err());
        assert!("马二平三".parse::<Chinese>().is_err());
        assert!("X二平五".parse::<Chinese>().is_err());
        let e = "车一平二"
            .parse::<Chinese>()
            .unwrap()
            .to_move(&p)
            .unwrap_err();
        assert!(matches!(e, NotationError::Illegal { .. }), "{e}");
        let q = pos("3k5/9/9/9/9/9/8R/9/9/4K3R w");
        let e = "车一进一"
            .parse::<Chinese>()
            .unwrap()
            .to_move(&q)
            .unwrap_err();
        assert!(matches!(e, NotationError::Ambiguous { .. }), "{e}");
        assert_eq!(read(&q, "前车进一"), "i3i4");
        assert_eq!(read(&q, "後俥進一"), "i0i1");
    }

    #[test]
    fn stacks() {
        let p = pos("5k3/9/4P4/4P4/4P4/9/9/9/9/3K5 w");
        let w = round_trip(&p);
        assert!(w.contains(&("e7d7".into(), "前兵平六".into())), "{w:?}");
        assert!(w.contains(&("e6d6".into(), "中兵平六".into())), "{w:?}");
        assert!(w.contains(&("e5d5".into(), "后兵平六".into())), "{w:?}");
        let p = pos("5k3/4P4/4P4/4P4/4P4/4P4/9/9/9/3K5 w");
        let w = round_trip(&p);
        assert!(w.contains(&("e8d8".into(), "一兵平六".into())), "{w:?}");
        assert!(w.contains(&("e6d6".into(), "三兵平六".into())), "{w:?}");
        assert!(w.contains(&("e5d5".into(), "四兵平六".into())), "{w:?}");
        // The cchess library's spelling of five: 前 二 三 四 后.
        assert_eq!(read(&p, "前兵平六"), "e8d8");
        assert_eq!(read(&p, "二兵平六"), "e7d7");
        let e = "后兵平六"
            .parse::<Chinese>()
            .unwrap()
            .to_move(&p)
            .unwrap_err();
        assert!(matches!(e, NotationError::Illegal { .. }), "{e}");
        let p = pos("5k3/9/2P6/2P1P4/2P1P4/9/9/9/9/3K5 w");
        let w = round_trip(&p);
        // Soldiers stacked on two files: counted across both with 一二三四五, the files from
        // Red's right (file 5 before file 7), each from the front.
        assert!(w.contains(&("e6d6".into(), "一兵平六".into())), "{w:?}");
        assert!(w.contains(&("e5d5".into(), "二兵平六".into())), "{w:?}");
        assert!(w.contains(&("c7d7".into(), "三兵平六".into())), "{w:?}");
        assert!(w.contains(&("c6d6".into(), "四兵平六".into())), "{w:?}");
        assert!(w.contains(&("c5d5".into(), "五兵平六".into())), "{w:?}");
        // The position-and-file form still reads.
        assert_eq!(read(&p, "前七平六"), "c7d7");
        assert_eq!(read(&p, "中七平六"), "c6d6");
        assert_eq!(read(&p, "后五平六"), "e5d5");
        // Black: two files of two, counted from Black's right (file 3 before file 7).
        let q = pos("4k4/9/9/2p3p2/2p3p2/9/9/9/9/3K5 b");
        let w = round_trip(&q);
        assert!(w.contains(&("g5g4".into(), "三卒进1".into())), "{w:?}");
        assert!(w.contains(&("c5c4".into(), "一卒进1".into())), "{w:?}");
        assert_eq!(read(&q, "一卒进1"), "c5c4");
        // Black: digits, and positions counted from Black's front (lower ranks).
        let p = pos("5k3/9/9/9/9/6p2/6p2/9/9/3K5 b");
        let w = round_trip(&p);
        assert!(w.contains(&("g3g2".into(), "前卒进1".into())), "{w:?}");
        assert!(w.contains(&("g4f4".into(), "后卒平6".into())), "{w:?}");
        let p = pos("2bk5/9/9/9/2b6/9/9/9/4A4/3AK4 b");
        let w = round_trip(&p);
        // Two elephants on a file: written by file (the direction tells them apart), and
        // the tandem form reads too.
        assert!(w.contains(&("c5e7".into(), "象3退5".into())), "{w:?}");
        assert!(w.contains(&("c9e7".into(), "象3进5".into())), "{w:?}");
        assert_eq!(read(&p, "前象退5"), "c5e7");
        assert_eq!(read(&p, "后象进1"), "c9a7");
        // Red's two advisors on file 6 (d0, d2): 仕六进五 and 仕六退五.
        let p = pos("5k3/9/9/9/9/9/9/3A5/9/3AK4 w");
        let w = round_trip(&p);
        assert!(w.contains(&("d0e1".into(), "仕六进五".into())), "{w:?}");
        assert!(w.contains(&("d2e1".into(), "仕六退五".into())), "{w:?}");
        assert_eq!(read(&p, "前仕退五"), "d2e1");
    }
}
