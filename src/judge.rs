//! `xiangqi judge`: plays a game and rules on it (RULES.md §4-6).
//!
//! Prints one line: `ongoing`, or the verdict (`red-wins`, `black-wins`, `draw`), a space and
//! the reason (`checkmate`, `perpetual-chase`, ...). `--explain` adds the plain-language
//! account on the following line, in English or (`--lang zh`) Chinese.

use xiangqi::game::Rules;
use xiangqi::prose;

use crate::cli::JudgeArgs;
use crate::{load, Fail};

pub(crate) fn cmd_judge(a: &JudgeArgs) -> Result<(), Fail> {
    for line in judge(a)? {
        println!("{line}");
    }
    Ok(())
}

/// The lines `xiangqi judge` prints.
fn judge(a: &JudgeArgs) -> Result<Vec<String>, Fail> {
    let game = load(
        &a.fen,
        &a.moves,
        Rules::default().with_repetitions(a.repetitions),
    )?;
    let mut out = vec![match game.outcome() {
        None => "ongoing".to_string(),
        Some(o) => o.to_string(),
    }];
    if a.explain {
        out.push(prose::explain(&game, a.lang.unwrap_or_default()));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `xiangqi judge ARGS` (split at spaces): the lines printed, or the message and exit
    /// status (clap's, for bad options).
    fn run(args: &str) -> Result<Vec<String>, (String, u8)> {
        run_args(args.split_whitespace())
    }

    fn run_args<'a>(args: impl IntoIterator<Item = &'a str>) -> Result<Vec<String>, (String, u8)> {
        use clap::Parser;
        let all = ["xiangqi", "judge"].into_iter().chain(args);
        let a = match crate::cli::Cli::try_parse_from(all) {
            Ok(crate::cli::Cli {
                command: Some(crate::cli::Command::Judge(a)),
                ..
            }) => a,
            Ok(other) => panic!("{other:?}"),
            Err(e) => return Err((e.to_string(), e.exit_code() as u8)),
        };
        judge(&a).map_err(|Fail(m, c)| (m, c))
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
        let stale = ["--fen", "3k5/R8/9/9/9/9/9/9/9/4K4 b - - 0 1"];
        assert_eq!(run_args(stale).unwrap(), ["red-wins stalemate"]);
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
        // Bad options are clap's: its message, exit status 2.
        let (m, c) = run("--repetitions 1").unwrap_err();
        assert_eq!(c, 2);
        assert!(
            m.contains("invalid value '1' for '--repetitions <N>'"),
            "{m}"
        );
        assert!(m.contains("2.."), "{m}");
        let (m, _) = run("--repetitions x").unwrap_err();
        assert!(
            m.contains("invalid value 'x' for '--repetitions <N>'"),
            "{m}"
        );
        let (m, _) = run("--repetitions").unwrap_err();
        assert!(
            m.contains("a value is required for '--repetitions <N>'"),
            "{m}"
        );
        let (m, c) = run("--explain --lang fr").unwrap_err();
        assert_eq!(c, 2);
        assert!(
            m.contains("invalid value 'fr' for '--lang <LANG>': 'fr' is not a language (en, zh-Hans or zh, zh-Hant, vi)"),
            "{m}"
        );
        let (m, _) = run("--explain --lang").unwrap_err();
        assert!(m.contains("a value is required for '--lang <LANG>'"), "{m}");
        let (m, c) = run("--lang zh h2e2").unwrap_err();
        assert_eq!(c, 2);
        assert!(m.contains("--explain"), "{m}");
        let (m, c) = run("--bogus").unwrap_err();
        assert_eq!(c, 2);
        assert!(m.contains("unexpected argument '--bogus'"), "{m}");
    }
}
