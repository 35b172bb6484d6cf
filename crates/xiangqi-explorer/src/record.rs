//! A record file's game as a game to index: its main line, result and header tags.

use xiangqi_record::{GameRecord, GameResult};

use crate::index::{GameMeta, NewGame, Target};
use crate::stats::Outcome;

/// `rec` as a masters game; `source` says where it came from (a file and game number).
/// Ratings come from `RedElo`/`BlackElo` (or `WhiteElo`/`BlackElo` as WinBoard writes
/// them), the date from `Date` (`1999.03.??`, `1999-03-14`, `1999`).
pub fn from_record(rec: &GameRecord, source: String) -> NewGame {
    let tag = |names: &[&str]| {
        names
            .iter()
            .find_map(|n| rec.tag(n))
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty() && v != "?")
            .unwrap_or_default()
    };
    let rating = |names: &[&str]| tag(names).parse::<u16>().ok().filter(|&r| r > 0);
    NewGame {
        meta: GameMeta {
            red: tag(&["Red", "White"]),
            black: tag(&["Black"]),
            red_rating: rating(&["RedElo", "WhiteElo", "RedRating"]),
            black_rating: rating(&["BlackElo", "BlackRating"]),
            outcome: match rec.result {
                GameResult::RedWins => Some(Outcome::RedWins),
                GameResult::Draw => Some(Outcome::Draw),
                GameResult::BlackWins => Some(Outcome::BlackWins),
                GameResult::Unknown => None,
            },
            date: parse_date(&tag(&["Date"])),
            event: tag(&["Event"]),
            source,
        },
        start: rec.start.clone(),
        moves: rec.mainline().collect(),
        target: Target::Masters,
    }
}

/// `yyyymmdd` of a date with `.`, `-` or `/` between its parts, an unknown part 00; 0 when
/// there is no year.
pub fn parse_date(s: &str) -> u32 {
    let mut parts = s
        .split(['.', '-', '/'])
        .map(|p| p.trim().parse::<u32>().ok());
    let Some(Some(y)) = parts.next() else {
        return 0;
    };
    if !(1000..=9999).contains(&y) {
        return 0;
    }
    let m = parts
        .next()
        .flatten()
        .filter(|m| (1..=12).contains(m))
        .unwrap_or(0);
    let d = parts
        .next()
        .flatten()
        .filter(|d| (1..=31).contains(d))
        .unwrap_or(0);
    y * 10_000 + m * 100 + d
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert_eq!(parse_date("1999.03.??"), 19_990_300);
        assert_eq!(parse_date("2024-12-01"), 20_241_201);
        assert_eq!(parse_date("1987"), 19_870_000);
        assert_eq!(parse_date("????.??.??"), 0);
        assert_eq!(parse_date(""), 0);
        assert_eq!(parse_date("12.01.2020"), 0);
    }
}
