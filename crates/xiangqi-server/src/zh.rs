//! The plain-language account of a ruling in Chinese: the counterpart of `Ruling`'s
//! `Display` (English) in the rules core, naming the same moves, pieces and squares. Moves
//! are written in Chinese notation (the game is needed for the positions they were played in).

use xiangqi::adjudicate::{ConductTally, CycleMove, Offence, RepetitionRuling, SideConduct};
use xiangqi::game::{Detail, Ruling};
use xiangqi::notation::Notation;
use xiangqi::{Color, Game, Piece, Role};

fn side(c: Color) -> &'static str {
    match c {
        Color::Red => "红方",
        Color::Black => "黑方",
    }
}

/// The piece's character (帅/将, 仕/士, 相/象, 马, 车, 炮, 兵/卒).
fn role(p: Piece) -> &'static str {
    match (p.role, p.color) {
        (Role::General, Color::Red) => "帅",
        (Role::General, Color::Black) => "将",
        (Role::Advisor, Color::Red) => "仕",
        (Role::Advisor, Color::Black) => "士",
        (Role::Elephant, Color::Red) => "相",
        (Role::Elephant, Color::Black) => "象",
        (Role::Horse, _) => "马",
        (Role::Chariot, _) => "车",
        (Role::Cannon, _) => "炮",
        (Role::Soldier, Color::Red) => "兵",
        (Role::Soldier, Color::Black) => "卒",
    }
}

/// "红方的车".
fn piece(p: Piece) -> String {
    format!("{}的{}", side(p.color), role(p))
}

fn count(n: usize) -> String {
    match n {
        2 => "两".to_string(),
        3 => "三".to_string(),
        4 => "四".to_string(),
        5 => "五".to_string(),
        n => n.to_string(),
    }
}

fn join(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [a] => a.clone(),
        [rest @ .., last] => format!("{}和{last}", rest.join("、")),
    }
}

/// "黑方的车", "黑方的两个炮", "黑方的车和黑方的炮".
fn pieces(list: &[Piece]) -> String {
    let mut names = Vec::new();
    let mut seen: Vec<Piece> = Vec::new();
    for p in list {
        if seen.contains(p) {
            continue;
        }
        seen.push(*p);
        let n = list.iter().filter(|q| *q == p).count();
        names.push(if n == 1 {
            piece(*p)
        } else {
            format!("{}的{}个{}", side(p.color), count(n), role(*p))
        });
    }
    join(&names)
}

/// "第5着（炮二平五）".
fn move_text(game: &Game, m: &CycleMove) -> String {
    let h = game.history();
    let written = if m.ply >= 1 && m.ply <= h.len() {
        Notation::Chinese.write(h.position_at(m.ply - 1), m.mv)
    } else {
        m.mv.to_string()
    };
    format!("第{}着（{written}）", m.ply)
}

fn span(game: &Game, moves: &[CycleMove]) -> String {
    match moves {
        [] => "无着".to_string(),
        [m] => move_text(game, m),
        [a, .., b] => format!("从{}到{}", move_text(game, a), move_text(game, b)),
    }
}

/// "红方从第3着（…）到第9着（…）每着都将军".
fn offence_text(game: &Game, s: &SideConduct, o: &Offence) -> String {
    let sp = span(game, &s.moves);
    let every = if s.moves.len() == 1 {
        sp
    } else {
        format!("{sp}每着都")
    };
    match o {
        Offence::PerpetualCheck => format!("{}{every}将军", side(s.color)),
        Offence::PerpetualChase { victims } => {
            let parts: Vec<String> = victims
                .iter()
                .map(|v| {
                    let squares: Vec<String> = v.squares.iter().map(|q| q.to_string()).collect();
                    let at = if squares.len() == 1 {
                        format!("位于{}的", squares[0])
                    } else {
                        format!("（先后位于{}）", squares.join("、"))
                    };
                    if squares.len() == 1 {
                        format!("{}捉{at}{}", pieces(&v.chasers), piece(v.piece))
                    } else {
                        format!("{}捉{}{at}", pieces(&v.chasers), piece(v.piece))
                    }
                })
                .collect();
            format!("{}：{every}如此", join(&parts))
        }
    }
}

/// What a side did that was not perpetual.
fn conduct(s: &SideConduct) -> String {
    let ConductTally {
        total,
        checks,
        chasing,
        chased,
    } = s.tally();
    let mut parts = Vec::new();
    if checks > 0 {
        parts.push(format!("{total}着中有{checks}着将军"));
    }
    if chasing > 0 {
        let what = if chasing == total {
            "，但并非每着都捉同一子"
        } else {
            ""
        };
        parts.push(format!(
            "{total}着中有{chasing}着捉{}{what}",
            pieces(&chased)
        ));
    }
    if parts.is_empty() {
        format!("{}既未将军也未捉子", side(s.color))
    } else {
        format!("{}{}", side(s.color), parts.join("，"))
    }
}

fn what(o: &Offence) -> &'static str {
    match o {
        Offence::PerpetualCheck => "长将",
        Offence::PerpetualChase { .. } => "长捉",
    }
}

/// The headline "红方长将" / "黑方长捉红方的车".
fn headline(s: &SideConduct, o: &Offence) -> String {
    match o {
        Offence::PerpetualCheck => format!("{}长将", side(s.color)),
        Offence::PerpetualChase { victims } => {
            let v: Vec<Piece> = victims.iter().map(|v| v.piece).collect();
            format!("{}长捉{}", side(s.color), pieces(&v))
        }
    }
}

fn repetition(game: &Game, r: &RepetitionRuling) -> String {
    let occurred = format!(
        "第{}着后的局面自上次吃子以来第{}次出现（首次出现{}）",
        r.last,
        r.occurrences,
        if r.first == 0 {
            "于开局".to_string()
        } else {
            format!("在第{}着后", r.first)
        }
    );
    match r.verdict.winner {
        Some(winner) => {
            let loser = r.side(!winner);
            let Some(offence) = loser.offence.as_ref() else {
                return format!("{}胜。{occurred}。", side(winner));
            };
            let mut s = format!(
                "{}，判负：{}。",
                headline(loser, offence),
                offence_text(game, loser, offence)
            );
            let other = r.side(winner);
            match &other.offence {
                Some(o) => s.push_str(&format!(
                    "{}虽也{}，但属较轻的犯规：{}。",
                    side(other.color),
                    what(o),
                    offence_text(game, other, o)
                )),
                None => s.push_str(&format!("{}。", conduct(other))),
            }
            s.push_str(&format!("{occurred}。"));
            s
        }
        None => {
            let mut s = format!("双方不变作和：{occurred}。");
            match (&r.red.offence, &r.black.offence) {
                (Some(a), Some(b)) => s.push_str(&format!(
                    "双方都{}，互不判负：{}；{}。",
                    what(a),
                    offence_text(game, &r.red, a),
                    offence_text(game, &r.black, b)
                )),
                _ if r.red.is_idle() && r.black.is_idle() => s.push_str("双方都没有将军或捉子。"),
                _ => s.push_str(&format!(
                    "双方都没有每着将军或捉子：{}；{}。",
                    conduct(&r.red),
                    conduct(&r.black)
                )),
            }
            s
        }
    }
}

/// The Chinese account of `ruling` in `game`.
pub fn ruling_text(game: &Game, ruling: &Ruling) -> String {
    match &ruling.detail {
        Detail::NoLegalMove { loser, in_check } => {
            if *in_check {
                format!(
                    "{}胜：{}被将军且无棋可走（将死）。",
                    side(!*loser),
                    side(*loser)
                )
            } else {
                format!(
                    "{}胜：{}未被将军但无棋可走（困毙），在象棋中判负。",
                    side(!*loser),
                    side(*loser)
                )
            }
        }
        Detail::Repetition(r) => repetition(game, r),
        Detail::MoveLimit {
            plies,
            counted,
            limit,
        } => {
            let mut s = format!("和棋：已连续{plies}步（任一方走一着计一步）没有吃子");
            if *counted as usize != *plies {
                s.push_str(&format!(
                    "，其中计入{counted}步（一方自上次吃子以来第十次以后的将军不计）"
                ));
            }
            s.push_str(&format!("，达到{limit}步的自然限着。"));
            s
        }
        Detail::InsufficientMaterial => {
            "和棋：双方都没有车、马、炮、兵（卒）可以进攻。".to_string()
        }
        Detail::Resignation { loser } => format!("{}胜：{}认输。", side(!*loser), side(*loser)),
        Detail::Agreement => "双方同意和棋。".to_string(),
        Detail::Time { loser } => format!("{}胜：{}超时。", side(!*loser), side(*loser)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use xiangqi::Position;

    fn text(fen: &str) -> String {
        let game = Game::new(Position::from_fen(fen).unwrap());
        let r = game.ruling().expect("the game is over");
        ruling_text(&game, &r)
    }

    #[test]
    fn simple_endings() {
        assert_eq!(
            text("3k5/4R4/3R5/9/9/9/9/9/9/4K4 b - - 0 1"),
            "红方胜：黑方被将军且无棋可走（将死）。"
        );
        assert_eq!(
            text("4k4/9/9/9/9/9/9/9/9/3K5 w - - 0 1"),
            "和棋：双方都没有车、马、炮、兵（卒）可以进攻。"
        );
        let mut game = Game::new(Position::new());
        game.resign(Color::Red);
        let r = game.ruling().unwrap();
        assert_eq!(ruling_text(&game, &r), "黑方胜：红方认输。");
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
        assert_eq!(pieces(&[c, c]), "黑方的两个炮");
        assert_eq!(pieces(&[c, r]), "黑方的炮和红方的车");
        assert_eq!(pieces(&[r]), "红方的车");
    }
}
