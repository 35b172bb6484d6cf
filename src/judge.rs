//! `xiangqi judge`: plays a game and rules on it (RULES.md §4-6).
//!
//! Prints one line: `ongoing`, or the verdict (`red-wins`, `black-wins`, `draw`), a space and
//! the reason (`checkmate`, `perpetual-chase`, ...). `--explain` adds the plain-language
//! account on the following line, in English or (`--lang zh`) Chinese.

use xiangqi::game::Rules;
use xiangqi::prose::{self, Lang};

use crate::{load, parse_position_args, usage, Fail};

/// Takes the option `name` with its value (`NAME V` or `NAME=V`) out of the arguments; `what`
/// says what the value is, for the message when it is missing. The last one given counts.
fn take_option(
    args: &[String],
    name: &str,
    what: &str,
) -> Result<(Option<String>, Vec<String>), Fail> {
    let mut value = None;
    let mut rest = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        if a == name {
            i += 1;
            let v = args
                .get(i)
                .ok_or_else(|| usage(format!("{name} needs {what}")))?;
            value = Some(v.clone());
        } else if let Some(v) = a.strip_prefix(name).and_then(|v| v.strip_prefix('=')) {
            value = Some(v.to_string());
        } else {
            rest.push(args[i].clone());
        }
        i += 1;
    }
    Ok((value, rest))
}

/// Takes `--repetitions N` (or `--repetitions=N`) out of the arguments.
fn take_repetitions(args: &[String]) -> Result<(u32, Vec<String>), Fail> {
    let (value, rest) = take_option(args, "--repetitions", "a number (2 or more)")?;
    let Some(v) = value else {
        return Ok((Rules::default().repetitions, rest));
    };
    let n: u32 = v
        .parse()
        .map_err(|_| usage(format!("--repetitions '{v}' is not a number (2 or more)")))?;
    if n < 2 {
        return Err(usage(format!(
            "--repetitions {n}: a repetition needs 2 or more occurrences"
        )));
    }
    Ok((n, rest))
}

/// Takes `--lang en|zh` (or `--lang=zh`) out of the arguments.
fn take_lang(args: &[String]) -> Result<(Option<Lang>, Vec<String>), Fail> {
    let (value, rest) = take_option(args, "--lang", "a language (en or zh)")?;
    let lang = match value {
        Some(v) => Some(
            v.parse::<Lang>()
                .map_err(|e| usage(format!("--lang: {e}")))?,
        ),
        None => None,
    };
    Ok((lang, rest))
}

pub(crate) fn cmd_judge(args: &[String]) -> Result<(), Fail> {
    for line in judge(args)? {
        println!("{line}");
    }
    Ok(())
}

/// The lines `xiangqi judge` prints.
fn judge(args: &[String]) -> Result<Vec<String>, Fail> {
    let (repetitions, args) = take_repetitions(args)?;
    let (lang, args) = take_lang(&args)?;
    let a = parse_position_args(&args, &["--explain"])?;
    let explain = a.flags.iter().any(|f| f == "--explain");
    if lang.is_some() && !explain {
        return Err(usage(
            "--lang chooses the language of the --explain account: give --explain too",
        ));
    }
    let lang = lang.unwrap_or_default();
    let game = load(
        &a.fen,
        &a.rest,
        Rules::default().with_repetitions(repetitions),
    )?;
    let mut out = vec![match game.outcome() {
        None => "ongoing".to_string(),
        Some(o) => o.to_string(),
    }];
    if explain {
        out.push(prose::explain(&game, lang));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(args: &str) -> Result<Vec<String>, (String, u8)> {
        let args: Vec<String> = args.split_whitespace().map(str::to_string).collect();
        judge(&args).map_err(|Fail(m, c)| (m, c))
    }

    const CHASE: &str = "--fen 2bakabnr/9/r1n1c4/2p1p1p1p/PP7/9/4P1P1P/2C3NC1/9/1NBAKAB1R \
                         c2a2 a7b7 a2b2 b7a7 b2a2";

    #[test]
    fn verdicts() {
        assert_eq!(run("").unwrap(), ["ongoing"]);
        assert_eq!(run("h2e2 h9g7").unwrap(), ["ongoing"]);
        // Ruled at the 2nd occurrence only when asked.
        assert_eq!(run(CHASE).unwrap(), ["ongoing"]);
        let two = format!("--repetitions 2 {CHASE}");
        assert_eq!(run(&two).unwrap(), ["black-wins perpetual-chase"]);
        let two = format!("--repetitions=2 {CHASE}");
        assert_eq!(run(&two).unwrap(), ["black-wins perpetual-chase"]);
        let stale = ["--fen", "3k5/R8/9/9/9/9/9/9/9/4K4 b - - 0 1"].map(String::from);
        assert_eq!(judge(&stale).ok().unwrap(), ["red-wins stalemate"]);
    }

    #[test]
    fn explain_adds_the_account() {
        let out = run(&format!("--explain --repetitions 2 {CHASE}")).unwrap();
        assert_eq!(out.len(), 2);
        assert_eq!(out[0], "black-wins perpetual-chase");
        assert!(
            out[1].starts_with(
                "Red loses by perpetual chase: the red cannon chased the black chariot"
            ),
            "{}",
            out[1]
        );
        let out = run(&format!("--explain --lang zh --repetitions 2 {CHASE}")).unwrap();
        assert_eq!(out[0], "black-wins perpetual-chase");
        assert!(
            out[1].starts_with("红方长捉黑方的车，判负：红方的炮捉黑方的车（先后位于b7、a7）"),
            "{}",
            out[1]
        );
        let en = run(&format!("--explain --lang=en --repetitions 2 {CHASE}")).unwrap();
        assert_eq!(
            en,
            run(&format!("--explain --repetitions 2 {CHASE}")).unwrap()
        );
        let out = run("--explain --lang zh h2e2").unwrap();
        assert_eq!(
            out,
            ["ongoing", "对局继续：轮到黑方走第1回合；尚无规则结束对局。"]
        );
        let out = run("--explain h2e2").unwrap();
        assert_eq!(
            out,
            [
                "ongoing",
                "The game goes on: black to play move 1; no rule has ended it."
            ]
        );
    }

    #[test]
    fn errors_name_the_problem() {
        let (m, c) = run("h2e2 h9g7 h2h9").unwrap_err();
        assert_eq!(c, 2);
        assert!(m.starts_with("move 3 (h2h9): illegal move"), "{m}");
        let (m, c) = run("h2e2 zz").unwrap_err();
        assert_eq!(c, 2);
        assert!(m.starts_with("move 2 (zz): "), "{m}");
        let (m, c) = run("--fen 9/9").unwrap_err();
        assert_eq!(c, 2);
        assert!(m.starts_with("bad FEN '9/9'"), "{m}");
        let (m, c) = run("--repetitions 1").unwrap_err();
        assert_eq!(c, 2);
        assert!(m.contains("2 or more"), "{m}");
        let (m, _) = run("--repetitions x").unwrap_err();
        assert!(m.contains("'x' is not a number"), "{m}");
        let (m, _) = run("--repetitions").unwrap_err();
        assert!(m.contains("needs a number"), "{m}");
        let (m, c) = run("--explain --lang fr").unwrap_err();
        assert_eq!(c, 2);
        assert!(
            m.starts_with("--lang: 'fr' is not a language (en or zh)"),
            "{m}"
        );
        let (m, _) = run("--explain --lang").unwrap_err();
        assert!(m.starts_with("--lang needs a language (en or zh)"), "{m}");
        let (m, c) = run("--lang zh h2e2").unwrap_err();
        assert_eq!(c, 2);
        assert!(m.contains("give --explain too"), "{m}");
        let (m, _) = run("--bogus").unwrap_err();
        assert!(m.contains("unknown option '--bogus'"), "{m}");
    }
}
