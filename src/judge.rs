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
    let (repetitions, args) = take_repetitions(args)?;
    let a = parse_position_args(&args, &["--explain"])?;
    let explain = a.flags.iter().any(|f| f == "--explain");
    let start = load(&a.fen, &[])?;
    let mut game = Game::with_rules(start, Rules::default().with_repetitions(repetitions));
    for (i, s) in a.rest.iter().enumerate() {
        game.push_uci(s)
            .map_err(|e| Fail(format!("move {} ({s}): {e}", i + 1), 2))?;
    }
    match game.ruling() {
        None => {
            println!("ongoing");
            if explain {
                let pos = game.position();
                println!(
                    "The game goes on: {} to move after {} move{}; no rule has ended it.",
                    pos.turn(),
                    game.len(),
                    if game.len() == 1 { "" } else { "s" }
                );
            }
        }
        Some(r) => {
            println!("{}", r.outcome);
            if explain {
                println!("{r}");
            }
        }
    }
    Ok(())
}
