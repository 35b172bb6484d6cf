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
    // 联众's text export.
    ("对局名称", "Title"),
    ("對局名稱", "Title"),
    ("比赛日期", "Date"),
    ("比賽日期", "Date"),
    ("比赛地点", "Site"),
    ("比賽地點", "Site"),
    ("比赛结果", "Result"),
    ("比賽結果", "Result"),
];

/// The names that start a record: a text is this format when one of them heads a line.
const STARTS: &[&str] = &["标题", "標題", "红方", "紅方", "黑方"];

/// Whether `name` can be a header's name: 1 to 8 characters, letters or CJK, no digits.
fn is_name(name: &str) -> bool {
    let n = name.chars().count();
    (1..=8).contains(&n)
        && name
            .chars()
            .all(|c| c.is_alphabetic() && !c.is_ascii_digit())
}

/// A header line `名称：值` (or `名称:值`, `FEN ：...`, `红    方：值`): the name (spaces
/// inside it left out) and the value. More fields may follow on the line (see [`fields`]).
fn header(line: &str) -> Option<(String, &str)> {
    let l = line.trim().trim_start_matches('\u{feff}');
    let (name, value) = l.split_once('：').or_else(|| l.split_once(':'))?;
    let name: String = name.chars().filter(|c| !c.is_whitespace()).collect();
    is_name(&name).then(|| (name, value.trim()))
}

/// Every `名称：值` field of a header line: after the first, a field starts where two spaces
/// (or an ideographic one) come before a name and its colon, as in 联众's export
/// (`比赛日期：2016年12月27日20时  比赛地点：`).
fn fields(line: &str) -> Option<Vec<(String, String)>> {
    let (name, rest) = header(line)?;
    let mut out = vec![(name, String::new())];
    let mut value = rest;
    loop {
        // The next colon preceded by a name preceded by two spaces.
        let mut split = None;
        for (i, c) in value.char_indices() {
            if c != '：' && c != ':' {
                continue;
            }
            let before = &value[..i];
            let start = before
                .char_indices()
                .rev()
                .take_while(|(_, c)| !c.is_whitespace())
                .last()
                .map(|(j, _)| j);
            let Some(start) = start else { continue };
            let gap = &before[..start];
            let spaced = gap.ends_with("  ") || gap.ends_with('\u{3000}');
            if spaced && is_name(&before[start..]) {
                split = Some((gap.trim_end().len(), &before[start..], i + c.len_utf8()));
                break;
            }
        }
        match split {
            Some((end, name, after)) => {
                out.last_mut().expect("a field").1 = value[..end].trim().to_string();
                out.push((name.to_string(), String::new()));
                value = &value[after..];
            }
            None => {
                out.last_mut().expect("a field").1 = value.trim().to_string();
                return Some(out);
            }
        }
    }
}

/// A line that only decorates a record: a row of dashes or equals signs, 联众's title
/// `中 国 象 棋 对 局 记 录` and its column heads `棋谱   红方   黑方`.
fn decoration(line: &str) -> bool {
    let l: String = line.chars().filter(|c| !c.is_whitespace()).collect();
    (!l.is_empty()
        && l.chars()
            .all(|c| matches!(c, '-' | '=' | '─' | '—' | '*' | '－')))
        || l == "中国象棋对局记录"
        || l == "中國象棋對局記錄"
        || l == "棋谱红方黑方"
        || l == "棋譜紅方黑方"
}

/// Whether decoded text is a Chinese text record: its first line that is not blank is a
/// header line, and within its first 60 such lines there are a header line named `标题`,
/// `红方` or `黑方` (either script) and at least two header lines of the known names.
pub fn looks_like(text: &str) -> bool {
    let mut starts = false;
    let mut known = 0;
    let mut lines = text
        .lines()
        .filter(|l| !l.trim().is_empty() && !decoration(l))
        .take(60)
        .peekable();
    if lines.peek().is_none_or(|l| header(l).is_none()) {
        return false;
    }
    for l in lines {
        for (name, _) in fields(l).unwrap_or_default() {
            starts |= STARTS.contains(&name.as_str());
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

/// `2016年12月27日20时` (and full-width digits) as PGN's `2016.12.27`; other dates as they are.
fn date(value: &str) -> String {
    let v = half_width(value);
    let mut parts = v.split(['年', '月', '日']);
    let num = |p: Option<&str>| p.and_then(|p| p.trim().parse::<u32>().ok());
    match (num(parts.next()), num(parts.next()), num(parts.next())) {
        (Some(y), Some(m), Some(d))
            if v.contains('日') && (1..=12).contains(&m) && (1..=31).contains(&d) =>
        {
            format!("{y:04}.{m:02}.{d:02}")
        }
        (Some(y), Some(m), _) if v.contains('月') && (1..=12).contains(&m) => {
            format!("{y:04}.{m:02}.??")
        }
        _ => value.to_string(),
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

/// A line of free text among the moves (象棋桥's `最新弈法` before them): not a move number,
/// a move, a result, a comment or a variation; it becomes a comment.
fn free_text(line: &str) -> bool {
    let l = half_width(line);
    let Some(first) = l.split_whitespace().next() else {
        return false;
    };
    let chars: Vec<char> = first.chars().collect();
    let chinese_move = chars.len() == 4 && "进退平進".contains(chars[2]);
    !(first.starts_with(|c: char| c.is_ascii_digit() || "{}()[];*….".contains(c))
        || chinese_move
        || ["1-0", "0-1", "1/2-1/2"].contains(&first))
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
        if decoration(line) {
            out.push(String::new());
            continue;
        }
        let Some(fs) = fields(line) else {
            out.push(if free_text(line) {
                format!("{{{}}}", line.trim().replace(['{', '}'], ""))
            } else {
                move_line(line)
            });
            continue;
        };
        let first = tag_name(&fs[0].0);
        let mut tags = Vec::new();
        for (name, value) in &fs {
            let mut tag = tag_name(name);
            // 联众's `耗时` follows the player's name on the player's line.
            if ["耗时", "耗時", "用时", "用時"].contains(&name.as_str())
                && (first == "Red" || first == "Black")
            {
                tag = format!("{first}Time");
            }
            if value.is_empty() {
                continue;
            } else if tag == "Result" {
                tags.push(format!("[Result \"{}\"]", result(value)));
            } else if tag == "FEN" {
                tags.push(format!("[FEN \"{}\"]", quote(&half_width(value))));
            } else if tag == "Date" {
                tags.push(format!("[Date \"{}\"]", quote(&date(value))));
            } else {
                tags.push(format!("[{tag} \"{}\"]", quote(value)));
            }
        }
        out.push(tags.join(" "));
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
