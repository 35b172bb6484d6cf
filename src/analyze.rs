//! `xiangqi analyze`: reviews every game of a record file with the engine (the `review` module
//! of `xiangqi-engine`, the same analysis the app's Review runs) and writes PGN with an
//! evaluation on every move, `?!` / `?` / `??` on inaccuracies, mistakes and blunders, the
//! engine's better move as a variation after each, and per side the accuracy and the counts
//! (tags and a summary comment). docs/REVIEW.md describes the analysis.
//!
//! clap reads the arguments ([`AnalyzeArgs`]); they become a plain [`Options`], run by [`run`],
//! which another front end can fill itself.

use std::io::{IsTerminal, Write};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use xiangqi::notation::Notation;
use xiangqi::{Color, Move, Position};
use xiangqi_engine::review::{self, Budget, Review};
use xiangqi_engine::Engine;
use xiangqi_record::{GameRecord, MoveNode};

use crate::cli::AnalyzeArgs;
use crate::convert::read_records;

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

impl From<&AnalyzeArgs> for Options {
    fn from(a: &AnalyzeArgs) -> Options {
        // clap's group lets at most one budget through.
        let budget = match (a.nodes, a.depth, a.movetime) {
            (Some(n), _, _) => Budget::Nodes(n),
            (_, Some(d), _) => Budget::Depth(d),
            (_, _, Some(ms)) => Budget::MoveTime(ms),
            _ => Budget::Depth(DEFAULT_DEPTH),
        };
        Options {
            input: a.input.clone(),
            output: a.output.clone(),
            budget,
            threads: a.threads as usize,
            hash_mb: a.hash as usize,
            notation: a.notation.map(Notation::from),
            quiet: a.quiet,
        }
    }
}

/// `xiangqi analyze ARGS`.
pub fn cmd_analyze(a: &AnalyzeArgs) -> Result<(), Fail> {
    run(&Options::from(a))
}

/// Runs the analysis. A game that cannot be read is reported on stderr (as `convert` does) and
/// the others are analysed; the status is then 1, or 2 when no game could be read.
pub fn run(o: &Options) -> Result<(), Fail> {
    let (all, default_notation, _) =
        read_records(&o.input, xiangqi_record::detect::Mode::Lenient, "analyze")?;
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

    /// `xiangqi analyze ARGS` as the command line reads them (clap's refusal as `Err`).
    fn parse(v: &[&str]) -> Result<AnalyzeArgs, clap::Error> {
        use clap::Parser;
        let all = ["xiangqi", "analyze"].iter().chain(v);
        match crate::cli::Cli::try_parse_from(all)?.command {
            Some(crate::cli::Command::Analyze(a)) => Ok(a),
            other => panic!("{other:?}"),
        }
    }

    fn args(v: &[&str]) -> AnalyzeArgs {
        parse(v).unwrap()
    }

    fn convert_args(v: &[&str]) -> crate::cli::ConvertArgs {
        use clap::Parser;
        let all = ["xiangqi", "convert"].iter().chain(v);
        match crate::cli::Cli::try_parse_from(all).unwrap().command {
            Some(crate::cli::Command::Convert(a)) => a,
            other => panic!("{other:?}"),
        }
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
        let (cmsg, ccode) = crate::convert::cmd_convert(&convert_args(&[i])).unwrap_err();
        assert_eq!((code, msg.as_str()), (ccode, cmsg.as_str()));
        assert!(msg.contains("not a record format"), "{msg}");
        let (msg, code) = cmd_analyze(&args(&["/nonexistent/x.pgn"])).unwrap_err();
        assert_eq!(code, 2);
        assert!(msg.starts_with("cannot read /nonexistent/x.pgn"), "{msg}");
        // Bad options are clap's refusals (exit status 2).
        for bad in [
            vec![i, "--depth", "x"],
            vec![i, "--depth", "3", "--nodes", "9"],
            vec![i, "--notation", "san"],
            vec![i, "--threads", "0"],
            vec![i, "--bogus"],
            vec![],
        ] {
            let e = parse(&bad).unwrap_err();
            assert_eq!(e.exit_code(), 2, "{bad:?}: {e}");
        }
        assert_eq!(
            Options::from(&args(&[i, "--movetime", "50"])).budget,
            Budget::MoveTime(50)
        );
        assert_eq!(
            Options::from(&args(&[i])).budget,
            Budget::Depth(DEFAULT_DEPTH)
        );
        std::fs::remove_file(&input).ok();
    }
}
