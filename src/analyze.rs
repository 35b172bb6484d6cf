//! `xiangqi analyze`: reviews every game of a record file with the engine (the `review` module
//! of `xiangqi-engine`, the same analysis the app's Review runs) and writes PGN with an
//! evaluation on every move, `?!` / `?` / `??` on inaccuracies, mistakes and blunders, the
//! engine's better move as a variation after each, and per side the accuracy and the counts
//! (tags and a summary comment). docs/REVIEW.md describes the analysis.
//!
//! The arguments are read by [`parse_args`] into a plain [`Options`] and run by [`run`]; a
//! front end with its own argument parser fills [`Options`] itself.

use std::io::{IsTerminal, Write};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use xiangqi::notation::Notation;
use xiangqi::{Color, Move, Position};
use xiangqi_engine::review::{self, Budget, Review};
use xiangqi_engine::Engine;
use xiangqi_record::{GameRecord, MoveNode};

use crate::convert::read_records;

pub const USAGE: &str = "  xiangqi analyze INPUT [-o OUTPUT] [--nodes N | --depth D | --movetime MS] [--threads T] [--hash MB] [--notation iccs|wxf|chinese] [--quiet]
      (every position searched, by default to depth 12; PGN with [%eval] comments, ?! ? ??,
      the better move as a variation, accuracy and counts per side; a progress bar on a
      terminal, none with --quiet; INPUT or OUTPUT '-' is stdin/stdout)";

/// The search depth when no budget is given.
pub const DEFAULT_DEPTH: i32 = 12;

/// What `xiangqi analyze` is asked to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    pub input: String,
    /// `None` or `-`: stdout.
    pub output: Option<String>,
    pub budget: Budget,
    pub threads: usize,
    pub hash_mb: usize,
    /// `None`: the input's own notation (as `convert`).
    pub notation: Option<Notation>,
    pub quiet: bool,
}

type Fail = (String, u8);

fn usage(m: String) -> Fail {
    (format!("{m}\nusage:\n{USAGE}"), 2)
}

/// Reads the command's arguments (after `analyze`).
pub fn parse_args(args: &[String]) -> Result<Options, Fail> {
    let mut input = None;
    let mut o = Options {
        input: String::new(),
        output: None,
        budget: Budget::Depth(DEFAULT_DEPTH),
        threads: 1,
        hash_mb: 64,
        notation: None,
        quiet: false,
    };
    let mut budget_set: Option<String> = None;
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        let mut value = |name: &str| -> Result<String, Fail> {
            i += 1;
            args.get(i)
                .cloned()
                .ok_or_else(|| usage(format!("{name} needs a value")))
        };
        let number = |name: &str, v: &str, min: u64, max: u64| -> Result<u64, Fail> {
            v.parse::<u64>()
                .ok()
                .filter(|n| (min..=max).contains(n))
                .ok_or_else(|| {
                    usage(format!(
                        "{name} '{v}' is not a whole number from {min} to {max}"
                    ))
                })
        };
        match a {
            "-o" | "--output" => o.output = Some(value(a)?),
            "--nodes" | "--depth" | "--movetime" => {
                if let Some(prev) = &budget_set {
                    if prev != a {
                        return Err(usage(format!(
                            "{a} and {prev} cannot both be given (one search budget)"
                        )));
                    }
                }
                budget_set = Some(a.to_string());
                let v = value(a)?;
                o.budget = match a {
                    "--nodes" => Budget::Nodes(number(a, &v, 1, 1 << 40)?),
                    "--depth" => Budget::Depth(number(a, &v, 1, 99)? as i32),
                    _ => Budget::MoveTime(number(a, &v, 1, 3_600_000)?),
                };
            }
            "--threads" => {
                let v = value(a)?;
                o.threads = number(a, &v, 1, 256)? as usize;
            }
            "--hash" => {
                let v = value(a)?;
                o.hash_mb = number(a, &v, 1, 65536)? as usize;
            }
            "--notation" => {
                let v = value(a)?;
                o.notation = Some(match v.to_ascii_lowercase().as_str() {
                    "iccs" | "uci" => Notation::Iccs,
                    "wxf" => Notation::Wxf,
                    "chinese" | "zh" => Notation::Chinese,
                    _ => {
                        return Err(usage(format!(
                            "unknown notation '{v}' (iccs, wxf or chinese)"
                        )))
                    }
                });
            }
            "--quiet" | "-q" => o.quiet = true,
            "-" => input = Some(a.to_string()),
            _ if a.starts_with('-') => return Err(usage(format!("unknown option '{a}'"))),
            _ if input.is_none() => input = Some(a.to_string()),
            _ => return Err(usage(format!("more than one input ('{a}')"))),
        }
        i += 1;
    }
    o.input = input.ok_or_else(|| usage("analyze needs an INPUT file".to_string()))?;
    Ok(o)
}

/// `xiangqi analyze ARGS`.
pub fn cmd_analyze(args: &[String]) -> Result<(), Fail> {
    run(&parse_args(args)?)
}

/// Runs the analysis. A game that cannot be read is reported on stderr (as `convert` does) and
/// the others are analysed; the status is then 1, or 2 when no game could be read.
pub fn run(o: &Options) -> Result<(), Fail> {
    let (all, default_notation) = read_records(&o.input, false, "analyze")?;
    let notation = o.notation.unwrap_or(default_notation);
    let total = all.games.len();
    let mut engine = Engine::new();
    engine
        .set_option("Threads", &o.threads.to_string())
        .and_then(|_| engine.set_option("Hash", &o.hash_mb.to_string()))
        .map_err(|e| (format!("engine: {e}"), 2))?;
    let positions: u64 = all
        .games
        .iter()
        .flatten()
        .map(|g| g.moves.len() as u64 + 1)
        .sum();
    let bar = if o.quiet || !std::io::stderr().is_terminal() {
        ProgressBar::hidden()
    } else {
        let b = ProgressBar::with_draw_target(Some(positions), ProgressDrawTarget::stderr());
        b.set_style(
            ProgressStyle::with_template(
                "{msg} [{bar:30}] {pos}/{len} positions, {elapsed_precise} (eta {eta})",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
        );
        b
    };
    let mut out = String::new();
    let mut failed = 0;
    for (n, g) in all.games.iter().enumerate() {
        match g {
            Ok(game) => {
                bar.set_message(format!("game {} of {total}", n + 1));
                let moves: Vec<Move> = game.mainline().collect();
                let r =
                    review::review_game(&mut engine, &game.start, &moves, o.budget, &mut |_, _| {
                        bar.inc(1);
                        true
                    })
                    .map_err(|e| (format!("{}: game {}: {e}", o.input, n + 1), 2))?
                    .expect("never cancelled");
                let annotated = annotate(game, &r, o.budget, notation);
                xiangqi_record::pgn::write_game(&mut out, &annotated, notation);
            }
            Err(e) => {
                failed += 1;
                let game = e.game().unwrap_or(n + 1);
                bar.suspend(|| {
                    eprintln!(
                        "xiangqi analyze: {} ({}), game {game} of {total}: {e}",
                        o.input, all.format
                    )
                });
            }
        }
    }
    bar.finish_and_clear();
    match o.output.as_deref() {
        None | Some("-") => std::io::stdout()
            .write_all(out.as_bytes())
            .map_err(|e| (format!("cannot write stdout: {e}"), 2))?,
        Some(path) => {
            std::fs::write(path, &out).map_err(|e| (format!("cannot write {path}: {e}"), 2))?
        }
    }
    match failed {
        0 => Ok(()),
        f if f == total => Err((
            format!("{}: no game could be read ({f} broken)", o.input),
            2,
        )),
        f => Err((
            format!(
                "{}: {f} of {total} games could not be read (the others were analysed)",
                o.input
            ),
            1,
        )),
    }
}

fn budget_text(b: Budget) -> String {
    match b {
        Budget::Nodes(n) => format!("{n} nodes"),
        Budget::Depth(d) => format!("depth {d}"),
        Budget::MoveTime(ms) => format!("{ms} ms"),
        Budget::DepthWithin(d, ms) => format!("depth {d}, at most {ms} ms"),
    }
}

fn plural(n: u32, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The game with the review written into it: every main-line move gets `[%eval ...]` before
/// its own comment and a NAG when it was an inaccuracy, a mistake or a blunder, with the
/// engine's line as the first variation; tags and a comment before the first move give each
/// side's accuracy and counts. The record's own comments and variations stay.
pub fn annotate(game: &GameRecord, r: &Review, budget: Budget, notation: Notation) -> GameRecord {
    let mut g = game.clone();
    g.moves.truncate(r.moves.len());
    let mut pos: Position = g.start.clone();
    for (node, m) in g.moves.iter_mut().zip(&r.moves) {
        let mut text = format!("[%eval {}]", m.eval.pgn());
        if let Some(k) = m.kind {
            node.nags.retain(|n| !matches!(n, 1..=6));
            node.nags.push(k.nag());
            if let Some(&best) = m.better.first() {
                let name = match k {
                    review::Kind::Inaccuracy => "Inaccuracy",
                    review::Kind::Mistake => "Mistake",
                    review::Kind::Blunder => "Blunder",
                };
                text.push_str(&format!(
                    " {name}. {} was best.",
                    notation.write(&pos, best)
                ));
                let line: Vec<MoveNode> = m.better.iter().map(|&mv| MoveNode::new(mv)).collect();
                node.variations.insert(0, line);
            }
        }
        if let Some(c) = &node.comment {
            text.push(' ');
            text.push_str(c);
        }
        node.comment = Some(text);
        pos.play_unchecked(m.mv);
    }
    let mut summary = vec![format!(
        "Reviewed by xiangqi analyze ({})",
        budget_text(budget)
    )];
    for side in [Color::Red, Color::Black] {
        let s = r.side(side);
        let name = if side == Color::Red { "Red" } else { "Black" };
        if let Some(a) = s.accuracy {
            g.set_tag(&format!("{name}Accuracy"), format!("{a:.1}"));
        }
        g.set_tag(&format!("{name}Inaccuracies"), s.inaccuracies.to_string());
        g.set_tag(&format!("{name}Mistakes"), s.mistakes.to_string());
        g.set_tag(&format!("{name}Blunders"), s.blunders.to_string());
        summary.push(format!(
            "{name}: accuracy {}, {}, {}, {}",
            s.accuracy.map_or("-".to_string(), |a| format!("{a:.1}%")),
            plural(s.inaccuracies, "inaccuracy", "inaccuracies"),
            plural(s.mistakes, "mistake", "mistakes"),
            plural(s.blunders, "blunder", "blunders"),
        ));
    }
    g.set_tag(
        "Annotator",
        format!("xiangqi analyze ({})", budget_text(budget)),
    );
    let summary = summary.join("; ");
    g.comment = Some(match &g.comment {
        Some(c) => format!("{summary}. [%eval {}] {c}", r.start_eval.pgn()),
        None => format!("{summary}. [%eval {}]", r.start_eval.pgn()),
    });
    g
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    fn tmp(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("xiangqi-analyze-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir.join(name)
    }

    #[test]
    fn a_planted_blunder_gets_two_question_marks_and_every_move_an_eval() {
        // Game 1: 3. C5+4?? takes the central soldier and loses the cannon to the knight.
        // Game 2 is broken (an illegal move) and is reported; game 3 is a quiet opening.
        let input = tmp("in.pgn");
        let output = tmp("out.pgn");
        std::fs::write(
            &input,
            "[Event \"planted\"]\n1. h2e2 h9g7 2. e2e6 g7e6 3. h0g2 {mine} 1-0\n\n\
             [Event \"broken\"]\n1. h2e2 h9h0 *\n\n\
             [Event \"quiet\"]\n1. h2e2 h9g7 2. h0g2 i9h9 *\n",
        )
        .unwrap();
        let (i, o) = (input.to_str().unwrap(), output.to_str().unwrap());
        let (msg, code) =
            cmd_analyze(&args(&[i, "-o", o, "--depth", "10", "--quiet"])).unwrap_err();
        assert_eq!(code, 1, "{msg}");
        assert!(msg.contains("1 of 3 games could not be read"), "{msg}");
        let out = std::fs::read_to_string(&output).unwrap();
        assert!(out.contains("2. e2e6??"), "{out}");
        assert!(out.contains("Blunder."), "{out}");
        assert!(out.contains("[RedBlunders \"1\"]"), "{out}");
        assert!(out.contains("[BlackBlunders \"0\"]"), "{out}");
        assert!(out.contains("[RedAccuracy \""), "{out}");
        assert!(!out.contains("[Event \"broken\"]"), "{out}");
        // Every main-line move of both games has an evaluation: read the output back.
        let games = xiangqi_record::pgn::read_all(&out);
        assert_eq!(games.len(), 2);
        for g in &games {
            let g = g.as_ref().unwrap();
            for (k, m) in g.moves.iter().enumerate() {
                let c = m.comment.as_deref().unwrap_or("");
                assert!(
                    c.starts_with("[%eval "),
                    "move {} of {:?}: {c}",
                    k + 1,
                    g.tag("Event")
                );
            }
        }
        let g = games[0].as_ref().unwrap();
        assert_eq!(g.moves[2].nags, vec![4]);
        assert_eq!(
            g.moves[2].variations.len(),
            1,
            "the better move as a variation"
        );
        assert!(g.moves[4].comment.as_deref().unwrap().ends_with("mine"));
        std::fs::remove_file(&input).ok();
        std::fs::remove_file(&output).ok();
    }

    #[test]
    fn bad_input_errors_as_convert() {
        let input = tmp("bad.txt");
        std::fs::write(&input, "not a record\n").unwrap();
        let i = input.to_str().unwrap();
        let (msg, code) = cmd_analyze(&args(&[i, "--quiet"])).unwrap_err();
        let (cmsg, ccode) = crate::convert::cmd_convert(&args(&[i])).unwrap_err();
        assert_eq!((code, msg.as_str()), (ccode, cmsg.as_str()));
        assert!(msg.contains("not a record format"), "{msg}");
        let (msg, code) = cmd_analyze(&args(&["/nonexistent/x.pgn"])).unwrap_err();
        assert_eq!(code, 2);
        assert!(msg.starts_with("cannot read /nonexistent/x.pgn"), "{msg}");
        for (bad, want) in [
            (vec![i, "--depth", "x"], "--depth 'x' is not a whole number"),
            (
                vec![i, "--depth", "3", "--nodes", "9"],
                "cannot both be given",
            ),
            (vec![i, "--notation", "san"], "unknown notation 'san'"),
            (vec![i, "--threads", "0"], "--threads '0'"),
            (vec![i, "--bogus"], "unknown option '--bogus'"),
            (vec![], "analyze needs an INPUT"),
        ] {
            let (msg, code) = cmd_analyze(&args(&bad)).unwrap_err();
            assert_eq!(code, 2, "{bad:?}");
            assert!(msg.contains(want), "{bad:?}: {msg}");
        }
        std::fs::remove_file(&input).ok();
    }
}
