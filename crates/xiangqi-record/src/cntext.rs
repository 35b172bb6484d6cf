//! Plain-text Chinese records, as 东萍象棋 (dpxq.com) and 象棋桥 (CC Bridge) copy them to the
//! clipboard and as forum posts paste them: a header block of `名称：值` lines, then the moves
//! in Chinese notation, numbered, one or two moves of each side a line:
//!
//! ```text
//! 标题：东马 邓祥年 胜 德国 克纳
//! 赛事：2011年第12届世界象棋锦标赛
//! 红方：邓祥年
//! 黑方：克纳
//! 结果：红胜
//! FEN ：rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1
//!
//!   1. 炮二平五  馬８進７    2. 馬二進三  車９平８
//! ```
//!
//! Simplified or Traditional characters (`標題`, `紅方`, `結果`), a full-width or ASCII colon,
//! full-width digits and punctuation (`１．炮二平五　马８进７`) and a `…………` in Red's place
//! when Black moves first are read. The header's names become PGN tags (`标题` Title, `赛事`
//! Event, `红方` Red, `黑方` Black, `日期` Date, `地点` Site, `轮次` Round, `结果` Result,
//! `FEN` FEN, `ECCO` ECCO, `开局` Opening, `红队`/`黑队` RedTeam/BlackTeam, `时间规则`
//! TimeControl, `解说` Annotator; others keep their own name; empty values are left out). A
//! new `标题：` (or any header line) after moves starts the next game. The moves are then read
//! by the PGN reader (so the same rules, errors and `--lenient` salvage apply), on the same
//! line numbers as the file's.

/// The header names this reader knows, Simplified and Traditional, with their PGN tag.
const KEYS: &[(&str, &str)] = &[
    ("标题", "Title"),
    ("標題", "Title"),
    ("赛事", "Event"),
    ("賽事", "Event"),
    ("红方", "Red"),
    ("紅方", "Red"),
    ("黑方", "Black"),
    ("日期", "Date"),
    ("地点", "Site"),
    ("地點", "Site"),
    ("轮次", "Round"),
    ("輪次", "Round"),
    ("结果", "Result"),
    ("結果", "Result"),
    ("FEN", "FEN"),
    ("ECCO", "ECCO"),
    ("开局", "Opening"),
    ("開局", "Opening"),
    ("红队", "RedTeam"),
    ("紅隊", "RedTeam"),
    ("黑队", "BlackTeam"),
    ("黑隊", "BlackTeam"),
    ("时间规则", "TimeControl"),
    ("時間規則", "TimeControl"),
    ("解说", "Annotator"),
    ("解說", "Annotator"),
    ("台次", "Table"),
    ("分类", "Category"),
    ("分類", "Category"),
];

/// The names that start a record: a text is this format when one of them heads a line.
const STARTS: &[&str] = &["标题", "標題", "红方", "紅方", "黑方"];

/// A header line `名称：值` (or `名称:值`, `FEN ：...`): the name and the value. The name is
/// 1 to 8 characters, letters or CJK, no digits and no spaces inside.
fn header(line: &str) -> Option<(&str, &str)> {
    let l = line.trim().trim_start_matches('\u{feff}');
    let (name, value) = l.split_once('：').or_else(|| l.split_once(':'))?;
    let name = name.trim();
    let n = name.chars().count();
    let ok = (1..=8).contains(&n)
        && name
            .chars()
            .all(|c| c.is_alphabetic() && !c.is_ascii_digit() && !c.is_whitespace());
    ok.then(|| (name, value.trim()))
}

/// Whether decoded text is a Chinese text record: its first line that is not blank is a
/// header line, and within its first 60 such lines there are a header line named `标题`,
/// `红方` or `黑方` (either script) and at least two header lines of the known names.
pub fn looks_like(text: &str) -> bool {
    let mut starts = false;
    let mut known = 0;
    let mut lines = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .take(60)
        .peekable();
    if lines.peek().is_none_or(|l| header(l).is_none()) {
        return false;
    }
    for l in lines {
        if let Some((name, _)) = header(l) {
            starts |= STARTS.contains(&name);
            known += KEYS.iter().any(|(k, _)| *k == name) as usize;
        }
    }
    starts && known >= 2
}

fn tag_name(name: &str) -> String {
    match KEYS.iter().find(|(k, _)| *k == name) {
        Some((_, t)) => (*t).to_string(),
        None => name.to_string(),
    }
}

/// `红胜` / `紅勝` / `黑胜` / `和棋` and the PGN tokens as a PGN result.
fn result(value: &str) -> &'static str {
    let v = value.trim();
    if ["1-0", "0-1", "1/2-1/2"].contains(&v) {
        return match v {
            "1-0" => "1-0",
            "0-1" => "0-1",
            _ => "1/2-1/2",
        };
    }
    if v.contains("红胜") || v.contains("紅勝") || v.contains("红先胜") || v.contains("紅先勝")
    {
        "1-0"
    } else if v.contains("黑胜")
        || v.contains("黑勝")
        || v.contains("红先负")
        || v.contains("紅先負")
    {
        "0-1"
    } else if v.contains('和') {
        "1/2-1/2"
    } else {
        "*"
    }
}

fn quote(v: &str) -> String {
    v.replace('\\', "\\\\").replace('"', "\\\"")
}

/// Full-width ASCII forms to ASCII, the ideographic space to a space, `、` and `，` (used
/// between moves) to spaces.
fn half_width(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '\u{3000}' | '、' | '，' => ' ',
            '\u{ff01}'..='\u{ff5e}' => char::from_u32(c as u32 - 0xfee0).unwrap_or(c),
            _ => c,
        })
        .collect()
}

/// One move line as PGN movetext: full-width forms made ASCII, and a Red placeholder
/// (`…………`, `……`, `...`) after a move number made `N...`.
fn move_line(line: &str) -> String {
    let l = half_width(line);
    let mut out: Vec<String> = Vec::new();
    for tok in l.split_whitespace() {
        let placeholder = !tok.is_empty() && tok.chars().all(|c| c == '…' || c == '.');
        if placeholder {
            if let Some(prev) = out.last_mut() {
                if prev.ends_with('.') && prev.trim_end_matches('.').parse::<u32>().is_ok() {
                    let n = prev.trim_end_matches('.').to_string();
                    *prev = format!("{n}...");
                    continue;
                }
            }
            continue;
        }
        out.push(tok.to_string());
    }
    out.join(" ")
}

/// The same records as PGN text, line for line (so that the PGN reader's line numbers are
/// the file's): header lines become tag lines (an empty value a blank line), move lines PGN
/// movetext.
pub fn to_pgn(text: &str) -> String {
    let mut out: Vec<String> = Vec::new();
    for line in text.trim_start_matches('\u{feff}').split('\n') {
        let line = line.trim_end_matches('\r');
        match header(line) {
            Some((name, value)) => {
                let tag = tag_name(name);
                if value.is_empty() {
                    out.push(String::new());
                } else if tag == "Result" {
                    out.push(format!("[Result \"{}\"]", result(value)));
                } else if tag == "FEN" {
                    out.push(format!("[FEN \"{}\"]", quote(&half_width(value))));
                } else {
                    out.push(format!("[{tag} \"{}\"]", quote(value)));
                }
            }
            None => out.push(move_line(line)),
        }
    }
    let mut s = out.join("\n");
    s.push('\n');
    s
}

/// Reads every record of decoded text (strictly; [`crate::detect`] reads in any mode).
pub fn read_str(text: &str) -> Vec<Result<crate::GameRecord, crate::pgn::PgnError>> {
    crate::pgn::read_all(&to_pgn(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_block_and_full_width_moves() {
        let text = "標題：甲 勝 乙\r\n紅方：甲\r\n黑方：乙\r\n結果：紅勝\r\n分類：\r\n\r\n\
                    １．炮二平五　馬８進７\r\n  2. 馬二進三  車９平８\r\n";
        assert!(looks_like(text));
        let games = read_str(text);
        assert_eq!(games.len(), 1);
        let g = games[0].as_ref().unwrap();
        assert_eq!(g.tag("Title"), Some("甲 勝 乙"));
        assert_eq!(g.tag("Red"), Some("甲"));
        assert_eq!(g.result, crate::GameResult::RedWins);
        let m: Vec<String> = g.mainline().map(|m| m.to_string()).collect();
        assert_eq!(m, ["h2e2", "h9g7", "h0g2", "i9h9"]);
    }

    #[test]
    fn black_first_and_not_this_format() {
        let text = "标题：黑先\n红方：甲\nFEN ：4k4/9/9/9/9/9/9/9/4R4/5K3 b - - 0 1\n\n\
                    1. …………  将5平4\n2. 车五平六\n";
        let g = read_str(text).remove(0).unwrap();
        assert_eq!(g.moves.len(), 2);
        assert_eq!(g.moves[0].mv.to_string(), "e9d9");
        // A chat line with a colon is no header block.
        assert!(!looks_like("张三：你好\n1. 炮二平五 马8进7\n"));
        assert!(!looks_like("[Event \"x\"]\n1. h2e2 *\n"));
        // The moves' line numbers are the file's.
        let e = read_str("标题：x\n红方：甲\n\n1. 炮二平五 马8进7\n2. 车一平二 车九进一\n")
            .remove(0)
            .unwrap_err();
        assert_eq!(e.line, 5, "{e}");
    }
}
