//! `xiangqi judge`: plays a game and rules on it (RULES.md §4-6).
//!
//! Prints one line: `ongoing`, or the verdict (`red-wins`, `black-wins`, `draw`), a space and
//! the reason (`checkmate`, `perpetual-chase`, ...). `--explain` adds the plain-language
//! account on the following lines.

use xiangqi::game::{Game, Rules};

use crate::{load, parse_position_args, usage, Fail};

/// Takes `--repetitions N` (or `--repetitions=N`) out of the arguments.
fn take_repetitions(args: &[String]) -> Result<(u32, Vec<String>), Fail> {
    let mut reps = None;
    let mut rest = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        let value = if a == "--repetitions" {
            i += 1;
            Some(
                args.get(i)
                    .ok_or_else(|| usage("--repetitions needs a number (2 or more)"))?
                    .clone(),
            )
        } else {
            a.strip_prefix("--repetitions=").map(str::to_string)
        };
        match value {
            Some(v) => {
                let n: u32 = v.parse().map_err(|_| {
                    usage(format!("--repetitions '{v}' is not a number (2 or more)"))
                })?;
                if n < 2 {
                    return Err(usage(format!(
                        "--repetitions {n}: a repetition needs 2 or more occurrences"
                    )));
                }
                reps = Some(n);
            }
            None => rest.push(args[i].clone()),
        }
        i += 1;
    }
    Ok((reps.unwrap_or(Rules::default().repetitions), rest))
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
    let a = parse_position_args(&args, &["--explain"])?;
    let explain = a.flags.iter().any(|f| f == "--explain");
    let start = load(&a.fen, &[])?;
    let mut game = Game::with_rules(start, Rules::default().with_repetitions(repetitions));
    for (i, s) in a.rest.iter().enumerate() {
        game.push_uci(s)
            .map_err(|e| Fail(format!("move {} ({s}): {e}", i + 1), 2))?;
    }
    let mut out = Vec::new();
    match game.ruling() {
        None => {
            out.push("ongoing".to_string());
            if explain {
                let n = game.len();
                out.push(format!(
                    "The game goes on: {} to move after {n} move{}; no rule has ended it.",
                    game.position().turn(),
                    if n == 1 { "" } else { "s" }
                ));
            }
        }
        Some(r) => {
            out.push(r.outcome.to_string());
            if explain {
                out.push(r.to_string());
            }
        }
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
        let out = run("--explain h2e2").unwrap();
        assert_eq!(
            out,
            [
                "ongoing",
                "The game goes on: black to move after 1 move; no rule has ended it."
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
        let (m, _) = run("--bogus").unwrap_err();
        assert!(m.contains("unknown option '--bogus'"), "{m}");
    }
}
