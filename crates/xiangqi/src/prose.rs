//! The plain-language account of a ruling, in English and in Chinese, written by one piece of
//! code so that every front end (the CLI, the server, bindings) says the same thing.
//!
//! The account is built once, sentence by sentence, from the ruling: who won and why, what each
//! side did over a repetition cycle (counted once, here), which pieces chased which. Only the
//! phrases differ by [`Lang`], and each phrase has its English and Chinese forms side by side.
//! Chinese names pieces with the characters of [`crate::notation::chinese`] and writes moves
//! in Chinese notation, for which the positions of the game are needed: so the entry points
//! take the [`Game`]. English writes moves in coordinates and needs no game: `Ruling`'s and
//! `RepetitionRuling`'s `Display` give the English account.
//!
//! ```
//! use xiangqi::game::Game;
//! use xiangqi::prose::{self, Lang};
//! use xiangqi::Color;
//!
//! let mut game = Game::default();
//! assert_eq!(prose::explain(&game, Lang::Zh), "对局继续：轮到红方走第1回合；尚无规则结束对局。");
//! game.resign(Color::Red);
//! let ruling = game.ruling().unwrap();
//! assert_eq!(ruling.text(&game, Lang::En), "Black wins: red resigned.");
//! assert_eq!(ruling.text(&game, Lang::Zh), "黑方胜：红方认输。");
//! assert_eq!(ruling.to_string(), ruling.text(&game, Lang::En));
//! assert_eq!("zh".parse::<Lang>(), Ok(Lang::Zh));
//! ```

use core::fmt;
use core::str::FromStr;

use crate::adjudicate::{CycleMove, History, Offence, RepetitionRuling, SideConduct};
use crate::game::{Detail, Game, Ruling};
use crate::notation::chinese::{piece_char, RED_NUMERALS};
use crate::notation::Chinese;
use crate::square::Square;
use crate::types::{Color, Piece, Role};

/// A language the accounts are written in.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub enum Lang {
    /// English (the default).
    #[default]
    En,
    /// Chinese, simplified characters (`zh`, `zh-Hans`).
    Zh,
    /// Chinese, traditional characters as Taiwan and Hong Kong write it (`zh-Hant`): the same
    /// account, in traditional characters, with Red's 帥 俥 傌 and Black's 將 車 馬 砲.
    ZhHant,
    /// Vietnamese (`vi`), with the cờ tướng terms: Tướng, Sĩ, Tượng, Xe, Pháo, Mã, Tốt.
    Vi,
}

impl Lang {
    /// Every language, in the order the app lists them.
    pub const ALL: [Lang; 4] = [Lang::En, Lang::Zh, Lang::ZhHant, Lang::Vi];

    /// The language code: `en`, `zh`, `zh-Hant`, `vi`.
    pub const fn code(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Zh => "zh",
            Lang::ZhHant => "zh-Hant",
            Lang::Vi => "vi",
        }
    }

    /// The code the web app uses (BCP 47 with the script for Chinese): `en`, `zh-Hans`,
    /// `zh-Hant`, `vi`.
    pub const fn web_code(self) -> &'static str {
        match self {
            Lang::Zh => "zh-Hans",
            l => l.code(),
        }
    }

    /// The writer of this language's accounts.
    const fn writer<'a>(self, history: Option<&'a History>) -> Writer<'a> {
        let (lang, hant) = match self {
            Lang::En => (Tongue::En, false),
            Lang::Zh => (Tongue::Zh, false),
            Lang::ZhHant => (Tongue::Zh, true),
            Lang::Vi => (Tongue::Vi, false),
        };
        Writer {
            lang,
            hant,
            history,
        }
    }
}

impl fmt::Display for Lang {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

/// The string is not a language code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseLangError(pub String);

impl fmt::Display for ParseLangError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "'{}' is not a language (en, zh-Hans or zh, zh-Hant, vi)",
            self.0
        )
    }
}
impl std::error::Error for ParseLangError {}

/// Reads a language code (in any case): `en`; `zh`, `zh-Hans`, `zh-CN`, `zh-SG` (simplified);
/// `zh-Hant`, `zh-TW`, `zh-HK`, `zh-MO` (traditional); `vi`.
impl FromStr for Lang {
    type Err = ParseLangError;
    fn from_str(s: &str) -> Result<Lang, ParseLangError> {
        match s.to_ascii_lowercase().replace('_', "-").as_str() {
            "en" => Ok(Lang::En),
            "zh" | "zh-hans" | "zh-cn" | "zh-sg" => Ok(Lang::Zh),
            "zh-hant" | "zh-tw" | "zh-hk" | "zh-mo" => Ok(Lang::ZhHant),
            "vi" => Ok(Lang::Vi),
            _ => Err(ParseLangError(s.to_string())),
        }
    }
}

impl Ruling {
    /// The account of this ruling, made in `game`, in `lang`. Chinese writes the moves of a
    /// repetition in Chinese notation from the positions of `game`; a move `game` did not play
    /// is written in coordinates instead.
    pub fn text(&self, game: &Game, lang: Lang) -> String {
        let w = lang.writer(Some(game.history()));
        w.finish(w.ruling(self))
    }
}

/// The account of where `game` stands: its ruling's account if it has ended, else that it
/// goes on and who is to move.
pub fn explain(game: &Game, lang: Lang) -> String {
    match game.ruling() {
        Some(r) => r.text(game, lang),
        None => ongoing(game, lang),
    }
}

/// That `game` goes on: who is to play which move (numbered as a move list numbers moves).
pub fn ongoing(game: &Game, lang: Lang) -> String {
    let turn = game.position().turn();
    let w = lang.writer(Some(game.history()));
    let (n, _) = w.numbered(game.len() + 1);
    w.finish(match w.lang {
        En => format!("The game goes on: {turn} to play move {n}; no rule has ended it."),
        Zh => format!(
            "对局继续：轮到{}走第{n}回合；尚无规则结束对局。",
            w.side(turn)
        ),
        Vi => format!(
            "Ván cờ đang tiếp diễn: đến lượt {} đi nước {n}; chưa có luật nào kết thúc ván cờ.",
            w.side(turn)
        ),
    })
}

/// The English account.
impl fmt::Display for Ruling {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&Writer::ENGLISH.ruling(self))
    }
}

/// The English account.
impl fmt::Display for RepetitionRuling {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let w = Writer::ENGLISH;
        f.write_str(&w.sentences(&w.repetition(self)))
    }
}

/// Counts of what a side did in a cycle.
struct Tally {
    /// The side's moves in the cycle.
    total: usize,
    /// Moves that gave check.
    checks: usize,
    /// Moves that did not check but chased something.
    chasing: usize,
    /// The pieces chased by those moves, each identity once, in order of first chase.
    chased: Vec<Piece>,
}

fn tally(side: &SideConduct) -> Tally {
    let mut chased = Vec::new();
    let mut seen_ids = Vec::new();
    for m in side.moves.iter().filter(|m| !m.check) {
        for t in &m.chases {
            if !seen_ids.contains(&t.victim_id) {
                seen_ids.push(t.victim_id);
                chased.push(t.victim);
            }
        }
    }
    Tally {
        total: side.moves.len(),
        checks: side.moves.iter().filter(|m| m.check).count(),
        chasing: side
            .moves
            .iter()
            .filter(|m| !m.check && !m.chases.is_empty())
            .count(),
        chased,
    }
}

/// Each distinct piece of `list` with how often it occurs, in order of first occurrence.
fn group(list: &[Piece]) -> Vec<(Piece, usize)> {
    let mut out: Vec<(Piece, usize)> = Vec::new();
    for p in list {
        match out.iter_mut().find(|(q, _)| q == p) {
            Some((_, n)) => *n += 1,
            None => out.push((*p, 1)),
        }
    }
    out
}

fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
        None => String::new(),
    }
}

fn ordinal(n: u32) -> String {
    let suffix = match (n % 10, n % 100) {
        (1, x) if x != 11 => "st",
        (2, x) if x != 12 => "nd",
        (3, x) if x != 13 => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// "两" for 2, a Chinese numeral up to 9, digits beyond.
fn zh_count(n: usize) -> String {
    match n {
        2 => "两".to_string(),
        1..=9 => RED_NUMERALS[n - 1].to_string(),
        n => n.to_string(),
    }
}

/// The phrasing of an account: traditional Chinese is the simplified phrasing written in
/// traditional characters (`Writer::hant`).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Tongue {
    En,
    Zh,
    Vi,
}

/// Writes accounts in one language: the structure once, the phrases per language.
#[derive(Copy, Clone)]
struct Writer<'a> {
    lang: Tongue,
    /// Chinese in traditional characters (Taiwan, Hong Kong).
    hant: bool,
    /// The game's positions, for writing moves in Chinese notation.
    history: Option<&'a History>,
}

use Tongue::{En, Vi, Zh};

/// The simplified characters of the Chinese accounts and their traditional forms as Taiwan
/// writes them (吃 stays 吃; 着 is 著).
const HANT: [(char, char); 41] = [
    ('两', '兩'),
    ('个', '個'),
    ('于', '於'),
    ('从', '從'),
    ('军', '軍'),
    ('则', '則'),
    ('双', '雙'),
    ('变', '變'),
    ('后', '後'),
    ('对', '對'),
    ('将', '將'),
    ('属', '屬'),
    ('并', '並'),
    ('开', '開'),
    ('无', '無'),
    ('时', '時'),
    ('来', '來'),
    ('毙', '斃'),
    ('没', '沒'),
    ('现', '現'),
    ('红', '紅'),
    ('结', '結'),
    ('继', '繼'),
    ('续', '續'),
    ('胜', '勝'),
    ('虽', '雖'),
    ('规', '規'),
    ('计', '計'),
    ('认', '認'),
    ('负', '負'),
    ('车', '車'),
    ('轮', '輪'),
    ('轻', '輕'),
    ('较', '較'),
    ('输', '輸'),
    ('达', '達'),
    ('进', '進'),
    ('连', '連'),
    ('长', '長'),
    ('马', '馬'),
    ('着', '著'),
];

/// Simplified text in traditional characters (the pieces are written by side before this).
fn to_hant(s: &str) -> String {
    s.chars()
        .map(|c| HANT.iter().find(|(a, _)| *a == c).map_or(c, |&(_, b)| b))
        .collect()
}

/// A piece's character in traditional Chinese: Red's 帥 仕 相 傌 俥 炮 兵, Black's 將 士 象
/// 馬 車 砲 卒.
fn hant_piece(c: char, color: Color) -> char {
    match (color, c) {
        (Color::Red, '帅') => '帥',
        (Color::Red, '马') => '傌',
        (Color::Red, '车') => '俥',
        (Color::Black, '将') => '將',
        (Color::Black, '马') => '馬',
        (Color::Black, '车') => '車',
        (Color::Black, '炮') => '砲',
        (_, c) => c,
    }
}

/// A piece's name in Vietnamese.
fn vi_role(role: Role) -> &'static str {
    match role {
        Role::General => "Tướng",
        Role::Advisor => "Sĩ",
        Role::Elephant => "Tượng",
        Role::Horse => "Mã",
        Role::Chariot => "Xe",
        Role::Cannon => "Pháo",
        Role::Soldier => "Tốt",
    }
}

impl Writer<'_> {
    const ENGLISH: Writer<'static> = Writer {
        lang: En,
        hant: false,
        history: None,
    };

    /// The finished account: in traditional characters for `zh-Hant`.
    fn finish(self, s: String) -> String {
        if self.hant {
            to_hant(&s)
        } else {
            s
        }
    }

    /// A piece's character in this writer's Chinese.
    fn piece_char(self, color: Color, role: Role) -> char {
        let c = piece_char(color, role);
        if self.hant {
            hant_piece(c, color)
        } else {
            c
        }
    }

    /// Sentences as a paragraph: "First. Second." / "第一。第二。"
    fn sentences(self, parts: &[String]) -> String {
        match self.lang {
            En | Vi => parts
                .iter()
                .map(|s| capitalize(s) + ".")
                .collect::<Vec<_>>()
                .join(" "),
            Zh => parts.iter().map(|s| format!("{s}。")).collect(),
        }
    }

    fn ruling(self, r: &Ruling) -> String {
        let one = |s: String| self.sentences(&[s]);
        match &r.detail {
            Detail::Repetition(rep) => self.sentences(&self.repetition(rep)),
            Detail::NoLegalMove { loser, in_check } => one(self.no_legal_move(*loser, *in_check)),
            Detail::MoveLimit {
                plies,
                counted,
                limit,
            } => one(self.move_limit(*plies, *counted, *limit)),
            Detail::InsufficientMaterial => one(match self.lang {
                En => {
                    "Draw by insufficient material: neither side has a chariot, horse, \
                           cannon or soldier left"
                }
                Zh => "和棋：双方都没有车、马、炮、兵（卒）可以进攻",
                Vi => "Hòa do không đủ quân: không bên nào còn Xe, Mã, Pháo hay Tốt",
            }
            .to_string()),
            Detail::Resignation { loser } => one(self.declared(*loser, false)),
            Detail::Time { loser } => one(self.declared(*loser, true)),
            Detail::TimeNoMate { flagged } => one({
                let (f, o) = (self.side(*flagged), self.side(!*flagged));
                match self.lang {
                    En => format!(
                        "Draw: {f} ran out of time, but {o} has no chariot, horse, cannon or \
                         soldier left to mate with"
                    ),
                    Zh => format!("和棋：{f}超时，但{o}已无车、马、炮、兵可以将死对方"),
                    Vi => format!(
                        "Hòa: {f} hết giờ, nhưng {o} không còn Xe, Mã, Pháo hay Tốt để chiếu bí"
                    ),
                }
            }),
            Detail::Agreement => one(match self.lang {
                En => "Draw by agreement",
                Zh => "双方同意和棋",
                Vi => "Hòa do hai bên đồng ý",
            }
            .to_string()),
        }
    }

    /// "red" / "红方".
    fn side(self, c: Color) -> &'static str {
        match (self.lang, c) {
            (En, c) => c.name(),
            (Zh, Color::Red) => "红方",
            (Zh, Color::Black) => "黑方",
            (Vi, Color::Red) => "Đỏ",
            (Vi, Color::Black) => "Đen",
        }
    }

    /// "the black chariot" / "黑方的车".
    fn piece(self, p: Piece) -> String {
        match self.lang {
            En => format!("the {} {}", p.color, p.role),
            Zh => format!(
                "{}的{}",
                self.side(p.color),
                self.piece_char(p.color, p.role)
            ),
            Vi => format!("{} {}", vi_role(p.role), self.side(p.color)),
        }
    }

    /// "a, b, and c" / "a、b和c".
    fn join(self, items: &[String]) -> String {
        match (self.lang, items) {
            (_, []) => String::new(),
            (_, [a]) => a.clone(),
            (En, [a, b]) => format!("{a} and {b}"),
            (En, [rest @ .., last]) => format!("{}, and {last}", rest.join(", ")),
            (Zh, [rest @ .., last]) => format!("{}和{last}", rest.join("、")),
            (Vi, [rest @ .., last]) => format!("{} và {last}", rest.join(", ")),
        }
    }

    /// "the black chariot", "the two black cannons", "the black chariot and the black cannon";
    /// "黑方的车", "黑方的两个炮", "黑方的车和黑方的炮".
    fn pieces(self, list: &[Piece]) -> String {
        let names: Vec<String> = group(list)
            .into_iter()
            .map(|(p, n)| match (self.lang, n) {
                (_, 1) => self.piece(p),
                (En, 2) => format!("the two {} {}s", p.color, p.role),
                (En, _) => format!("the {} {}s", p.color, p.role),
                (Zh, n) => format!(
                    "{}的{}个{}",
                    self.side(p.color),
                    zh_count(n),
                    self.piece_char(p.color, p.role)
                ),
                (Vi, 2) => format!("hai {} {}", vi_role(p.role), self.side(p.color)),
                (Vi, n) => format!("{n} {} {}", vi_role(p.role), self.side(p.color)),
            })
            .collect();
        self.join(&names)
    }

    /// The number of ply `ply` (from 1) as a move list numbers moves (Red's move and
    /// Black's reply share one number, the start position's move number first), and its side.
    /// Without the game the numbering starts at 1 with Red.
    fn numbered(self, ply: usize) -> (usize, Color) {
        let (first, black_first) = match self.history {
            Some(h) => {
                let p = h.position_at(0);
                (p.fullmoves().max(1) as usize, p.turn() == Color::Black)
            }
            None => (1, false),
        };
        let idx = ply.saturating_sub(1) + usize::from(black_first);
        let side = if idx.is_multiple_of(2) {
            Color::Red
        } else {
            Color::Black
        };
        (first + idx / 2, side)
    }

    /// "Red's move 3" / "第3回合红方": ply `ply` as the move list numbers it.
    fn move_number(self, ply: usize) -> String {
        let (n, side) = self.numbered(ply);
        match self.lang {
            En => format!("{}'s move {n}", capitalize(side.name())),
            Zh => format!("第{n}回合{}", self.side(side)),
            Vi => format!("nước {n} của {}", self.side(side)),
        }
    }

    /// "move 3 (h2e2)" / "第3回合（炮二平五）", numbered as the move list numbers moves (one
    /// convention everywhere: a move number counts Red's move and Black's reply). The side is
    /// the sentence's: a span holds one side's moves.
    fn move_text(self, m: &CycleMove) -> String {
        let (n, side) = self.numbered(m.ply);
        match self.lang {
            En => format!("move {n} ({})", m.mv),
            Vi => format!("nước {n} ({})", m.mv),
            Zh => {
                // The position the move was played in, if it is this game's move.
                let pos = self
                    .history
                    .filter(|h| m.ply >= 1 && m.ply <= h.len() && h.move_at(m.ply) == Some(m.mv))
                    .map(|h| h.position_at(m.ply - 1));
                let written = match pos {
                    Some(pos) if self.hant => Chinese::from_move(pos, m.mv)
                        .to_string()
                        .chars()
                        .map(|c| hant_piece(c, side))
                        .collect(),
                    Some(pos) => Chinese::from_move(pos, m.mv).to_string(),
                    None => m.mv.to_string(),
                };
                format!("第{n}回合（{written}）")
            }
        }
    }

    /// The moves from the first to the last.
    fn span(self, moves: &[CycleMove]) -> String {
        match (self.lang, moves) {
            (En, []) => "no move".to_string(),
            (Zh, []) => "无着".to_string(),
            (Vi, []) => "không có nước nào".to_string(),
            (_, [m]) => self.move_text(m),
            (En, [a, .., b]) => format!("{} to {}", self.move_text(a), self.move_text(b)),
            (Zh, [a, .., b]) => format!("从{}到{}", self.move_text(a), self.move_text(b)),
            (Vi, [a, .., b]) => format!("từ {} đến {}", self.move_text(a), self.move_text(b)),
        }
    }

    fn no_legal_move(self, loser: Color, in_check: bool) -> String {
        let (w, l) = (self.side(!loser), self.side(loser));
        match (self.lang, in_check) {
            (En, true) => format!("{w} wins by checkmate: {l} is in check and has no legal move"),
            (En, false) => format!(
                "{w} wins by stalemate: {l} is not in check but has no legal move, which loses \
                 in Xiangqi"
            ),
            (Zh, true) => format!("{w}胜：{l}被将军且无棋可走（将死）"),
            (Zh, false) => format!("{w}胜：{l}未被将军但无棋可走（困毙），在象棋中判负"),
            (Vi, true) => {
                format!("{w} thắng do chiếu bí: {l} bị chiếu tướng và không còn nước đi hợp lệ")
            }
            (Vi, false) => format!(
                "{w} thắng do hết nước đi: {l} không bị chiếu nhưng không còn nước đi hợp lệ, \
                 trong cờ tướng như vậy là thua"
            ),
        }
    }

    /// A resignation, or (`on_time`) a loss on time.
    fn declared(self, loser: Color, on_time: bool) -> String {
        let (w, l) = (self.side(!loser), self.side(loser));
        match (self.lang, on_time) {
            (En, false) => format!("{w} wins: {l} resigned"),
            (En, true) => format!("{w} wins on time: {l} ran out of time"),
            (Zh, false) => format!("{w}胜：{l}认输"),
            (Zh, true) => format!("{w}胜：{l}超时"),
            (Vi, false) => format!("{w} thắng: {l} xin thua"),
            (Vi, true) => format!("{w} thắng do hết giờ: {l} đã hết thời gian"),
        }
    }

    fn move_limit(self, plies: usize, counted: u32, limit: u32) -> String {
        let mut s = match self.lang {
            En => format!(
                "Draw by the move limit: {plies} plies (moves by either side) without a capture"
            ),
            Zh => format!("和棋：已连续{plies}步（任一方走一着计一步）没有吃子"),
            Vi => format!(
                "Hòa do giới hạn số nước: {plies} nửa nước (nước đi của bên nào cũng tính) liền \
                 không ăn quân"
            ),
        };
        if counted as usize != plies {
            s.push_str(&match self.lang {
                En => format!(
                    ", of which {counted} count (checks beyond a side's tenth since the last \
                     capture do not),"
                ),
                Zh => format!("，其中计入{counted}步（一方自上次吃子以来第十次以后的将军不计）"),
                Vi => format!(
                    ", trong đó tính {counted} (các nước chiếu sau lần thứ mười của một bên kể \
                     từ lần ăn quân gần nhất không được tính),"
                ),
            });
        }
        s.push_str(&match self.lang {
            En => format!(" reached the limit of {limit}"),
            Zh => format!("，达到{limit}步的自然限着"),
            Vi => format!(", đã đến giới hạn {limit}"),
        });
        s
    }

    /// "perpetual check" / "长将".
    fn offence_name(self, o: &Offence) -> &'static str {
        match (self.lang, o) {
            (En, Offence::PerpetualCheck) => "perpetual check",
            (En, Offence::PerpetualChase { .. }) => "perpetual chase",
            (Zh, Offence::PerpetualCheck) => "长将",
            (Zh, Offence::PerpetualChase { .. }) => "长捉",
            (Vi, Offence::PerpetualCheck) => "chiếu mãi",
            (Vi, Offence::PerpetualChase { .. }) => "đuổi bắt mãi",
        }
    }

    /// "the red cannon chased the black chariot on a7" / "红方的炮捉位于a7的黑方的车".
    fn chased(self, chasers: &[Piece], victim: Piece, squares: &[Square]) -> String {
        let who = self.pieces(chasers);
        let victim = self.piece(victim);
        let list = |sep: &str| {
            let names: Vec<String> = squares.iter().map(|s| s.to_string()).collect();
            names.join(sep)
        };
        match (self.lang, squares) {
            (En, [sq]) => format!("{who} chased {victim} on {sq}"),
            (En, _) => format!("{who} chased {victim} as it moved ({})", list(", ")),
            (Zh, [sq]) => format!("{who}捉位于{sq}的{victim}"),
            (Zh, _) => format!("{who}捉{victim}（先后位于{}）", list("、")),
            (Vi, [sq]) => format!("{who} đuổi bắt {victim} ở {sq}"),
            (Vi, _) => format!("{who} đuổi bắt {victim} khi nó di chuyển ({})", list(", ")),
        }
    }

    /// What the side did on every move of the cycle: "red gave check on every red move from
    /// move 2 (…) to move 5 (…)" / "红方从第2回合（…）到第5回合（…）每着都将军".
    fn offence(self, s: &SideConduct, o: &Offence) -> String {
        let span = self.span(&s.moves);
        let side = self.side(s.color);
        let every = match (self.lang, s.moves.len()) {
            (En, 1) => format!("on {span}"),
            (En, _) => format!("on every {side} move from {span}"),
            (Zh, 1) => span,
            (Zh, _) => format!("{span}每着都"),
            (Vi, 1) => format!("ở {span}"),
            (Vi, _) => format!("ở mọi nước của {side} {span}"),
        };
        match (self.lang, o) {
            (En, Offence::PerpetualCheck) => format!("{side} gave check {every}"),
            (Zh, Offence::PerpetualCheck) => format!("{side}{every}将军"),
            (Vi, Offence::PerpetualCheck) => format!("{side} chiếu tướng {every}"),
            (lang, Offence::PerpetualChase { victims }) => {
                let parts: Vec<String> = victims
                    .iter()
                    .map(|v| self.chased(&v.chasers, v.piece, &v.squares))
                    .collect();
                let all = self.join(&parts);
                match lang {
                    En | Vi => format!("{all} {every}"),
                    Zh => format!("{all}：{every}如此"),
                }
            }
        }
    }

    /// What a side did that was not perpetual: "red checked on 2 of 3 moves and chased ..." /
    /// "红方3着中有2着将军，……".
    fn conduct(self, s: &SideConduct) -> String {
        let Tally {
            total,
            checks,
            chasing,
            chased,
        } = tally(s);
        let mut parts = Vec::new();
        if checks > 0 {
            parts.push(match self.lang {
                En => format!("checked on {checks} of {total} moves"),
                Zh => format!("{total}着中有{checks}着将军"),
                Vi => format!("chiếu {checks} trên {total} nước"),
            });
        }
        if chasing > 0 {
            let every = chasing == total;
            let what = self.pieces(&chased);
            parts.push(match (self.lang, every) {
                (En, false) => format!("chased {what} on {chasing} of {total} moves"),
                (En, true) => format!(
                    "chased {what} on {chasing} of {total} moves but never the same piece on \
                     every move"
                ),
                (Zh, false) => format!("{total}着中有{chasing}着捉{what}"),
                (Zh, true) => format!("{total}着中有{chasing}着捉{what}，但并非每着都捉同一子"),
                (Vi, false) => format!("đuổi bắt {what} ở {chasing} trên {total} nước"),
                (Vi, true) => format!(
                    "đuổi bắt {what} ở {chasing} trên {total} nước nhưng không phải nước nào \
                     cũng đuổi cùng một quân"
                ),
            });
        }
        let side = self.side(s.color);
        match (self.lang, parts.is_empty()) {
            (En, true) => format!("{side} neither checked nor chased"),
            (Zh, true) => format!("{side}既未将军也未捉子"),
            (En, false) => format!("{side} {}", self.join(&parts)),
            (Zh, false) => format!("{side}{}", parts.join("，")),
            (Vi, true) => format!("{side} không chiếu cũng không đuổi bắt"),
            (Vi, false) => format!("{side} {}", self.join(&parts)),
        }
    }

    /// "the position after Red's move 5 occurred for the 3rd time since the last capture
    /// (first after Red's move 1)" / "第5回合红方走后的局面自上次吃子以来第3次出现（首次出现在
    /// 第1回合红方走后）".
    fn occurred(self, r: &RepetitionRuling) -> String {
        let (n, first_ply) = (r.occurrences, r.first);
        let last = self.move_number(r.last);
        let first = self.move_number(first_ply);
        match (self.lang, first_ply) {
            (En, 0) => format!(
                "the position after {last} occurred for the {} time since the last \
                 capture (first at the start)",
                ordinal(n)
            ),
            (En, _) => format!(
                "the position after {last} occurred for the {} time since the last \
                 capture (first after {first})",
                ordinal(n)
            ),
            (Zh, 0) => format!("{last}走后的局面自上次吃子以来第{n}次出现（首次出现于开局）"),
            (Zh, _) => {
                format!("{last}走后的局面自上次吃子以来第{n}次出现（首次出现在{first}走后）")
            }
            (Vi, 0) => format!(
                "thế cờ sau {last} xuất hiện lần thứ {n} kể từ lần ăn quân gần nhất (lần đầu \
                 ở thế cờ ban đầu)"
            ),
            (Vi, _) => format!(
                "thế cờ sau {last} xuất hiện lần thứ {n} kể từ lần ăn quân gần nhất (lần đầu \
                 sau {first})"
            ),
        }
    }

    /// The sentences of a repetition ruling.
    fn repetition(self, r: &RepetitionRuling) -> Vec<String> {
        let occurred = self.occurred(r);
        let Some(winner) = r.verdict.winner else {
            return self.repetition_draw(r, occurred);
        };
        let loser = r.side(!winner);
        let other = r.side(winner);
        let Some(offence) = &loser.offence else {
            // Not made by the rulings (a loser always broke a rule), but said plainly.
            let w = self.side(winner);
            return vec![
                match self.lang {
                    En => format!("{w} wins"),
                    Zh => format!("{w}胜"),
                    Vi => format!("{w} thắng"),
                },
                occurred,
            ];
        };
        let (l, what, text) = (
            self.side(loser.color),
            self.offence_name(offence),
            self.offence(loser, offence),
        );
        let first = match (self.lang, offence) {
            (En, _) => format!("{l} loses by {what}: {text}"),
            (Vi, _) => format!("{l} thua do {what}: {text}"),
            (Zh, Offence::PerpetualCheck) => format!("{l}{what}，判负：{text}"),
            (Zh, Offence::PerpetualChase { victims }) => {
                let chased: Vec<Piece> = victims.iter().map(|v| v.piece).collect();
                format!("{l}{what}{}，判负：{text}", self.pieces(&chased))
            }
        };
        let second = match &other.offence {
            Some(o) => {
                let (s, text) = (self.side(other.color), self.offence(other, o));
                match (self.lang, o) {
                    (En, Offence::PerpetualCheck) => {
                        format!("{s} checked perpetually too: {text}, a lesser offence")
                    }
                    (En, Offence::PerpetualChase { .. }) => {
                        format!("{s} chased perpetually too: {text}, a lesser offence")
                    }
                    (Zh, o) => format!("{s}虽也{}，但属较轻的犯规：{text}", self.offence_name(o)),
                    (Vi, o) => format!(
                        "{s} cũng {}: {text}, nhưng đó là lỗi nhẹ hơn",
                        self.offence_name(o)
                    ),
                }
            }
            None => self.conduct(other),
        };
        vec![first, second, occurred]
    }

    fn repetition_draw(self, r: &RepetitionRuling, occurred: String) -> Vec<String> {
        let first = match self.lang {
            En => format!("Draw by repetition: {occurred}"),
            Zh => format!("双方不变作和：{occurred}"),
            Vi => format!("Hòa do lặp lại thế cờ: {occurred}"),
        };
        let second = match (&r.red.offence, &r.black.offence) {
            (Some(a), Some(b)) => {
                let (red, black) = (self.offence(&r.red, a), self.offence(&r.black, b));
                match (self.lang, a) {
                    (En, Offence::PerpetualCheck) => {
                        format!("Both sides checked perpetually, so neither loses: {red}; {black}")
                    }
                    (En, Offence::PerpetualChase { .. }) => {
                        format!("Both sides chased perpetually, so neither loses: {red}; {black}")
                    }
                    (Zh, a) => format!("双方都{}，互不判负：{red}；{black}", self.offence_name(a)),
                    (Vi, a) => format!(
                        "Cả hai bên đều {}, nên không bên nào thua: {red}; {black}",
                        self.offence_name(a)
                    ),
                }
            }
            _ if r.red.is_idle() && r.black.is_idle() => match self.lang {
                En => "Neither side checked or chased".to_string(),
                Zh => "双方都没有将军或捉子".to_string(),
                Vi => "Không bên nào chiếu hay đuổi bắt".to_string(),
            },
            _ => {
                let (red, black) = (self.conduct(&r.red), self.conduct(&r.black));
                match self.lang {
                    En => format!("Neither side checked or chased on every move: {red}; {black}"),
                    Zh => format!("双方都没有每着将军或捉子：{red}；{black}"),
                    Vi => format!("Không bên nào chiếu hay đuổi bắt ở mọi nước: {red}; {black}"),
                }
            }
        };
        vec![first, second]
    }
}

#[cfg(test)]
mod tests {
    use super::Lang::{En, Vi, Zh, ZhHant};
    use super::*;
    use crate::position::Position;

    fn text(fen: &str, lang: Lang) -> String {
        let game = Game::new(Position::from_fen(fen).unwrap());
        let r = game.ruling().expect("the game is over");
        r.text(&game, lang)
    }

    fn zh() -> Writer<'static> {
        Zh.writer(None)
    }

    #[test]
    fn simple_endings() {
        let mate = "3k5/4R4/3R5/9/9/9/9/9/9/4K4 b - - 0 1";
        assert_eq!(text(mate, Zh), "红方胜：黑方被将军且无棋可走（将死）。");
        assert_eq!(
            text(mate, En),
            "Red wins by checkmate: black is in check and has no legal move."
        );
        let bare = "4k4/9/9/9/9/9/9/9/9/3K5 w - - 0 1";
        assert_eq!(
            text(bare, Zh),
            "和棋：双方都没有车、马、炮、兵（卒）可以进攻。"
        );
        assert_eq!(
            text(bare, En),
            "Draw by insufficient material: neither side has a chariot, horse, cannon or \
             soldier left."
        );
        let mut game = Game::new(Position::new());
        game.resign(Color::Red);
        let r = game.ruling().unwrap();
        assert_eq!(r.text(&game, Zh), "黑方胜：红方认输。");
        assert_eq!(r.text(&game, En), "Black wins: red resigned.");
        assert_eq!(r.to_string(), r.text(&game, En));
    }

    #[test]
    fn move_limit_with_uncounted_checks() {
        let r = Ruling {
            outcome: crate::game::Outcome {
                winner: None,
                reason: crate::game::Reason::MoveLimit,
            },
            detail: Detail::MoveLimit {
                plies: 125,
                counted: 120,
                limit: 120,
            },
        };
        let game = Game::default();
        assert_eq!(
            r.text(&game, En),
            "Draw by the move limit: 125 plies (moves by either side) without a capture, of \
             which 120 count (checks beyond a side's tenth since the last capture do not), \
             reached the limit of 120."
        );
        assert_eq!(
            r.text(&game, Zh),
            "和棋：已连续125步（任一方走一着计一步）没有吃子，其中计入120步（一方自上次吃子\
             以来第十次以后的将军不计），达到120步的自然限着。"
        );
    }

    #[test]
    fn pieces_are_named_and_counted() {
        let c = Piece {
            color: Color::Black,
            role: Role::Cannon,
        };
        let r = Piece {
            color: Color::Red,
            role: Role::Chariot,
        };
        assert_eq!(zh().pieces(&[c, c]), "黑方的两个炮");
        assert_eq!(zh().pieces(&[c, r]), "黑方的炮和红方的车");
        assert_eq!(zh().pieces(&[r]), "红方的车");
        assert_eq!(zh().pieces(&[r, c, r, r]), "红方的三个车和黑方的炮");
        let en = Writer::ENGLISH;
        assert_eq!(en.pieces(&[c, c]), "the two black cannons");
        assert_eq!(en.pieces(&[c, r]), "the black cannon and the red chariot");
        assert_eq!(
            en.pieces(&[c, r, c, c]),
            "the black cannons and the red chariot"
        );
    }

    /// The same repetition in both languages, moves in Chinese notation from the game.
    #[test]
    fn repetition_in_both_languages() {
        let fen = "2bakabnr/9/r1n1c4/2p1p1p1p/PP7/9/4P1P1P/2C3NC1/9/1NBAKAB1R w - - 0 1";
        let game = Game::from_uci(
            fen,
            "c2a2 a7b7 a2b2 b7a7 b2a2 a7b7 a2b2 b7a7 b2a2".split(' '),
        )
        .unwrap();
        let r = game.ruling().unwrap();
        assert_eq!(
            r.text(&game, En),
            "Red loses by perpetual chase: the red cannon chased the black chariot as it moved \
             (b7, a7) on every red move from move 2 (a2b2) to move 5 (b2a2). Black \
             neither checked nor chased. The position after Red's move 5 occurred for the 3rd \
             time since the last capture (first after Red's move 1)."
        );
        assert_eq!(
            r.text(&game, Zh),
            "红方长捉黑方的车，判负：红方的炮捉黑方的车（先后位于b7、a7）：从第2回合（炮九平八）\
             到第5回合（炮八平九）每着都如此。黑方既未将军也未捉子。第5回合红方走后的局面自上次\
             吃子以来第3次出现（首次出现在第1回合红方走后）。"
        );
        // A ruling shown with a game that did not play its moves: coordinates, no panic.
        let other = Game::default();
        let t = r.text(&other, Zh);
        assert!(t.contains("从第2回合（a2b2）到第5回合（b2a2）"), "{t}");
    }

    #[test]
    fn ongoing_games() {
        let mut game = Game::default();
        assert_eq!(
            explain(&game, En),
            "The game goes on: red to play move 1; no rule has ended it."
        );
        game.push_uci("h2e2").unwrap();
        assert_eq!(
            explain(&game, En),
            "The game goes on: black to play move 1; no rule has ended it."
        );
        assert_eq!(
            explain(&game, Zh),
            "对局继续：轮到黑方走第1回合；尚无规则结束对局。"
        );
    }

    #[test]
    fn languages_by_code() {
        assert_eq!("en".parse::<Lang>(), Ok(En));
        assert_eq!("ZH".parse::<Lang>(), Ok(Zh));
        assert_eq!(Lang::default(), En);
        assert_eq!(Zh.to_string(), "zh");
        let e = "fr".parse::<Lang>().unwrap_err();
        assert_eq!(
            e.to_string(),
            "'fr' is not a language (en, zh-Hans or zh, zh-Hant, vi)"
        );
        for (code, lang) in [
            ("zh-Hans", Zh),
            ("zh-CN", Zh),
            ("zh-Hant", ZhHant),
            ("zh_TW", ZhHant),
            ("zh-HK", ZhHant),
            ("vi", Vi),
        ] {
            assert_eq!(code.parse::<Lang>(), Ok(lang), "{code}");
        }
        for l in Lang::ALL {
            assert_eq!(l.code().parse::<Lang>(), Ok(l));
            assert_eq!(l.web_code().parse::<Lang>(), Ok(l));
        }
        assert_eq!(ZhHant.to_string(), "zh-Hant");
        assert_eq!(Zh.web_code(), "zh-Hans");
    }

    /// Traditional Chinese and Vietnamese: the endings, a repetition with its moves, an
    /// ongoing game.
    #[test]
    fn traditional_chinese_and_vietnamese() {
        let mate = "3k5/4R4/3R5/9/9/9/9/9/9/4K4 b - - 0 1";
        let stale = "3k5/4R4/9/9/9/9/9/9/9/4K4 b - - 0 1";
        let bare = "4k4/9/9/9/9/9/9/9/9/3K5 w - - 0 1";
        assert_eq!(text(mate, ZhHant), "紅方勝：黑方被將軍且無棋可走（將死）。");
        assert_eq!(
            text(mate, Vi),
            "Đỏ thắng do chiếu bí: Đen bị chiếu tướng và không còn nước đi hợp lệ."
        );
        assert_eq!(
            text(stale, Vi),
            "Đỏ thắng do hết nước đi: Đen không bị chiếu nhưng không còn nước đi hợp lệ, trong \
             cờ tướng như vậy là thua."
        );
        assert_eq!(
            text(bare, ZhHant),
            "和棋：雙方都沒有車、馬、炮、兵（卒）可以進攻。"
        );
        assert_eq!(
            text(bare, Vi),
            "Hòa do không đủ quân: không bên nào còn Xe, Mã, Pháo hay Tốt."
        );
        let mut game = Game::default();
        game.resign(Color::Red);
        let r = game.ruling().unwrap();
        assert_eq!(r.text(&game, ZhHant), "黑方勝：紅方認輸。");
        assert_eq!(r.text(&game, Vi), "Đen thắng: Đỏ xin thua.");
        let fen = "2bakabnr/9/r1n1c4/2p1p1p1p/PP7/9/4P1P1P/2C3NC1/9/1NBAKAB1R w - - 0 1";
        let game = Game::from_uci(
            fen,
            "c2a2 a7b7 a2b2 b7a7 b2a2 a7b7 a2b2 b7a7 b2a2".split(' '),
        )
        .unwrap();
        let r = game.ruling().unwrap();
        assert_eq!(
            r.text(&game, ZhHant),
            "紅方長捉黑方的車，判負：紅方的炮捉黑方的車（先後位於b7、a7）：從第2回合（炮九平八）\
             到第5回合（炮八平九）每著都如此。黑方既未將軍也未捉子。第5回合紅方走後的局面自上次\
             吃子以來第3次出現（首次出現在第1回合紅方走後）。"
        );
        assert_eq!(
            r.text(&game, Vi),
            "Đỏ thua do đuổi bắt mãi: Pháo Đỏ đuổi bắt Xe Đen khi nó di chuyển (b7, a7) ở mọi \
             nước của Đỏ từ nước 2 (a2b2) đến nước 5 (b2a2). Đen không chiếu cũng không đuổi \
             bắt. Thế cờ sau nước 5 của Đỏ xuất hiện lần thứ 3 kể từ lần ăn quân gần nhất (lần \
             đầu sau nước 1 của Đỏ)."
        );
        // No simplified character of the accounts is left in traditional Chinese.
        let hant = r.text(&game, ZhHant);
        assert!(
            !hant.chars().any(|c| HANT.iter().any(|(s, _)| *s == c)),
            "{hant}"
        );
        assert_eq!(
            explain(&Game::default(), ZhHant),
            "對局繼續：輪到紅方走第1回合；尚無規則結束對局。"
        );
        assert_eq!(
            explain(&Game::default(), Vi),
            "Ván cờ đang tiếp diễn: đến lượt Đỏ đi nước 1; chưa có luật nào kết thúc ván cờ."
        );
        // Pieces by side in traditional Chinese and Vietnamese.
        let (rh, bc) = (
            Piece {
                color: Color::Red,
                role: Role::Horse,
            },
            Piece {
                color: Color::Black,
                role: Role::Cannon,
            },
        );
        assert_eq!(
            ZhHant.writer(None).pieces(&[rh, bc, bc]),
            "红方的傌和黑方的两个砲"
        );
        assert_eq!(
            Vi.writer(None).pieces(&[rh, bc, bc]),
            "Mã Đỏ và hai Pháo Đen"
        );
    }
}
