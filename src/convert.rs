//! `xiangqi convert`: reads a record file in any format the records crate knows (recognised
//! from the content) and writes its games as PGN in a chosen notation, as FENs, as DhtmlXQ, or
//! as XQF (binary, one game a file: see [`xqf_outputs`]).

use std::io::{IsTerminal, Read, Write};

use xiangqi::notation::Notation;
use xiangqi_record::detect::{read_any_mode_progress, Mode, ReadAll, RecordFormat};
use xiangqi_record::pgn;

use crate::cli::{ConvertArgs, EncodingArg, OutputFormat};

/// Inputs at least this big show a progress bar (when stderr is a terminal).
const BIG: usize = 1 << 20;

/// Runs the command; `Err((message, exit status))` on failure. A broken game is reported on
/// stderr (file, game, line or byte, reason) and the others still convert; the status is then 1.
/// A variation dropped from an illegal move on is a warning on stderr; the status stays 0.
pub fn cmd_convert(a: &ConvertArgs) -> Result<(), (String, u8)> {
    let input = a.input.clone();
    let output = a.output.clone();
    let to_fen = a.to == OutputFormat::Fen;
    let to_dhtmlxq = a.to == OutputFormat::Dhtmlxq;
    let gbk = a.encoding == EncodingArg::Gbk;
    let mode = if a.strict {
        Mode::Strict
    } else if a.lenient {
        Mode::Salvage
    } else {
        Mode::Lenient
    };
    let (all, default_notation, big) = read_records(&input, mode, "convert")?;
    if a.to == OutputFormat::Xqf {
        return write_xqf(&input, output.as_deref(), &all);
    }
    let notation = a.notation.map(Notation::from).unwrap_or(default_notation);
    let total = all.games.len();
    let mut out = String::new();
    let mut failed = 0;
    let bar = if big {
        crate::progress::items(total as u64, "writing", "games")
    } else {
        indicatif::ProgressBar::hidden()
    };
    for (n, g) in all.games.iter().enumerate() {
        bar.inc(1);
        match g {
            Ok(game) => {
                if to_fen {
                    out.push_str(&game.end_position().fen());
                    out.push('\n');
                } else if to_dhtmlxq {
                    if !out.is_empty() {
                        out.push('\n');
                    }
                    xiangqi_record::dhtmlxq::write_game(&mut out, game);
                } else {
                    pgn::write_game(&mut out, game, notation);
                }
            }
            Err(e) => {
                failed += 1;
                let game = e.game().unwrap_or(n + 1);
                bar.suspend(|| {
                    eprintln!(
                        "xiangqi convert: {input} ({}), game {game} of {total}: {e}",
                        all.format
                    )
                });
            }
        }
    }
    bar.finish_and_clear();
    let out = if gbk {
        xiangqi_record::encoding::encode_gb18030(&out)
    } else {
        out.into_bytes()
    };
    if output.as_deref().is_none_or(|o| o == "-") {
        std::io::stdout()
            .write_all(&out)
            .map_err(|e| (format!("cannot write stdout: {e}"), 2))?;
    } else {
        let o = output.expect("checked");
        std::fs::write(&o, &out).map_err(|e| (format!("cannot write {o}: {e}"), 2))?;
    }
    match failed {
        0 => Ok(()),
        f if f == total => Err((format!("{input}: no game could be read ({f} broken)"), 2)),
        f => Err((
            format!("{input}: {f} of {total} games could not be read (the others were converted)"),
            1,
        )),
    }
}

/// Where each game's XQF file goes: XQF holds one game a file. An input of several games needs
/// `-o DIR` (made if missing) and game N goes to `DIR/game-000N.xqf`, numbered by its place in
/// the input (a broken game leaves a gap); so does one game when `-o` names an existing
/// directory. Otherwise one game goes to `-o FILE`, or to stdout when stdout is not a terminal
/// (binary on a terminal is refused). `Err` is the message of a refusal.
fn xqf_outputs(
    output: Option<&str>,
    games: usize,
    stdout_terminal: bool,
) -> Result<Option<std::path::PathBuf>, String> {
    let to_stdout = output.is_none_or(|o| o == "-");
    let dir = output.filter(|o| *o != "-" && std::path::Path::new(o).is_dir());
    if games > 1 || dir.is_some() {
        if to_stdout {
            return Err(format!(
                "XQF holds one game a file and the input has {games} games: give -o DIR to \
                 write DIR/game-0001.xqf, DIR/game-0002.xqf, ..."
            ));
        }
        return Ok(Some(output.expect("checked").into()));
    }
    if to_stdout && stdout_terminal {
        return Err("XQF is binary: give -o FILE, or redirect stdout".into());
    }
    Ok(None)
}

/// `convert --to xqf`: each game read written as its own XQF file (see [`xqf_outputs`]). A
/// broken game, or one XQF cannot hold (a tag longer than its slot, ...), is reported on stderr
/// and the others are written; the exit statuses are those of the other formats.
fn write_xqf(input: &str, output: Option<&str>, all: &ReadAll) -> Result<(), (String, u8)> {
    let total = all.games.len();
    let dir = xqf_outputs(output, total, std::io::stdout().is_terminal()).map_err(|m| (m, 2))?;
    if let Some(d) = &dir {
        std::fs::create_dir_all(d).map_err(|e| (format!("cannot make {}: {e}", d.display()), 2))?;
    }
    let mut failed = 0;
    for (n, g) in all.games.iter().enumerate() {
        let bytes = match g {
            Ok(game) => xiangqi_record::xqf::write_game(game).map_err(|e| e.to_string()),
            Err(e) => Err(e.to_string()),
        };
        let game_no = g.as_ref().err().and_then(|e| e.game()).unwrap_or(n + 1);
        let bytes = match bytes {
            Ok(b) => b,
            Err(e) => {
                failed += 1;
                eprintln!(
                    "xiangqi convert: {input} ({}), game {game_no} of {total}: {e}",
                    all.format
                );
                continue;
            }
        };
        match (&dir, output) {
            (Some(d), _) => {
                let p = d.join(format!("game-{:04}.xqf", n + 1));
                std::fs::write(&p, &bytes)
                    .map_err(|e| (format!("cannot write {}: {e}", p.display()), 2))?;
            }
            (None, Some(o)) if o != "-" => {
                std::fs::write(o, &bytes).map_err(|e| (format!("cannot write {o}: {e}"), 2))?
            }
            _ => std::io::stdout()
                .write_all(&bytes)
                .map_err(|e| (format!("cannot write stdout: {e}"), 2))?,
        }
    }
    match failed {
        0 => Ok(()),
        f if f == total => Err((format!("{input}: no game could be written ({f} broken)"), 2)),
        f => Err((
            format!("{input}: {f} of {total} games could not be written (the others were)"),
            1,
        )),
    }
}

/// Reads INPUT (a file, or stdin for `-`) as any record format in `mode`, with a
/// progress bar on stderr for big inputs (when it is a terminal), and prints the readers'
/// warnings on stderr as `xiangqi CMD: warning: ...`. Answers the games, the notation to write
/// by default (the input's own for PGN, WXF for XieXie, else Chinese) and whether the input
/// was big. `xiangqi convert` and `xiangqi analyze` share it, and so its error messages.
pub fn read_records(
    input: &str,
    mode: Mode,
    cmd: &str,
) -> Result<(ReadAll, Notation, bool), (String, u8)> {
    let bytes = if input == "-" {
        let mut v = Vec::new();
        std::io::stdin()
            .read_to_end(&mut v)
            .map_err(|e| (format!("cannot read stdin: {e}"), 2))?;
        v
    } else {
        std::fs::read(input).map_err(|e| (format!("cannot read {input}: {e}"), 2))?
    };
    let big = bytes.len() >= BIG;
    let bar = if big {
        crate::progress::bytes(bytes.len() as u64, "reading")
    } else {
        indicatif::ProgressBar::hidden()
    };
    let all = read_any_mode_progress(&bytes, mode, &mut |done, total| {
        bar.set_length(total as u64);
        bar.set_position(done as u64);
    });
    bar.finish_and_clear();
    let all = all.map_err(|e| (format!("{input}: {e}"), 2))?;
    let notation = match all.format {
        RecordFormat::Pgn => {
            let (text, _) = xiangqi_record::encoding::decode(&bytes);
            let mut r = pgn::PgnReader::new(&text);
            let _ = r.next();
            r.notation().unwrap_or(Notation::Chinese)
        }
        RecordFormat::XieXie => Notation::Wxf,
        _ => Notation::Chinese,
    };
    for w in &all.warnings {
        let game = w.game().unwrap_or(1);
        eprintln!(
            "xiangqi {cmd}: warning: {input} ({}), game {game}: {w}",
            all.format
        );
    }
    Ok((all, notation, big))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `xiangqi convert ARGS` as the command line reads them.
    fn args(v: &[&str]) -> ConvertArgs {
        use clap::Parser;
        let all = ["xiangqi", "convert"].iter().chain(v);
        match crate::cli::Cli::try_parse_from(all).unwrap().command {
            Some(crate::cli::Command::Convert(a)) => a,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn xqf_goes_one_game_a_file() {
        let d = std::env::temp_dir().join(format!("xiangqi-xqf-out-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        let ds = d.to_str().unwrap();
        // Several games: -o DIR, else refused naming the rule.
        let e = xqf_outputs(None, 3, false).unwrap_err();
        assert!(e.contains("one game a file") && e.contains("-o DIR"), "{e}");
        assert!(xqf_outputs(Some("-"), 3, false).is_err());
        assert_eq!(xqf_outputs(Some("x"), 3, false), Ok(Some("x".into())));
        // One game: an existing directory, a file, or stdout when it is not a terminal.
        assert_eq!(xqf_outputs(Some(ds), 1, true), Ok(Some(d.clone())));
        assert_eq!(xqf_outputs(Some("f.xqf"), 1, true), Ok(None));
        assert_eq!(xqf_outputs(None, 1, false), Ok(None));
        let e = xqf_outputs(None, 1, true).unwrap_err();
        assert!(e.contains("binary"), "{e}");
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn converts_and_reports_broken_games() {
        let dir = std::env::temp_dir().join(format!("xiangqi-convert-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let input = dir.join("in.pgn");
        let output = dir.join("out.pgn");
        let pgn = "[Event \"a\"]\n1. h2e2 h9g7 2. h0g2 1-0\n\n[Event \"b\"]\n1. h2e2 h9h0 *\n\n[Event \"c\"]\n1. C2.5 H8+7 *\n";
        std::fs::write(&input, encoding_gbk(pgn)).unwrap();
        let (i, o) = (input.to_str().unwrap(), output.to_str().unwrap());
        let r = cmd_convert(&args(&[i, "-o", o, "--notation", "chinese"]));
        let (msg, code) = r.unwrap_err();
        assert_eq!(code, 1, "{msg}");
        assert!(msg.contains("1 of 3 games"), "{msg}");
        let out = std::fs::read_to_string(&output).unwrap();
        assert!(out.contains("1. 炮二平五 马8进7 2. 马二进三 1-0"), "{out}");
        assert!(
            out.contains("[Event \"c\"]") && !out.contains("[Event \"b\"]"),
            "{out}"
        );
        assert!(out.contains("[Format \"Chinese\"]"), "{out}");

        std::fs::write(&input, "[Event \"a\"]\n1. h2e2 h9g7 *\n").unwrap();
        cmd_convert(&args(&[i, "-o", o, "--to", "fen"])).unwrap();
        assert_eq!(
            std::fs::read_to_string(&output).unwrap(),
            "rnbakab1r/9/1c4nc1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR w - - 2 2\n"
        );
        cmd_convert(&args(&[i, "-o", o, "--to", "dhtmlxq"])).unwrap();
        let written = std::fs::read(&output).unwrap();
        assert!(String::from_utf8_lossy(&written)
            .contains("[DhtmlXQ_movelist]77477062[/DhtmlXQ_movelist]"));
        let back = xiangqi_record::detect::read_any(&written).unwrap();
        assert_eq!(back.format, RecordFormat::DhtmlXq);
        cmd_convert(&args(&[i, "-o", o, "--notation", "wxf"])).unwrap();
        assert!(std::fs::read_to_string(&output)
            .unwrap()
            .contains("1. C2.5 H8+7 *"));

        std::fs::write(&input, "not a record\n").unwrap();
        let (msg, code) = cmd_convert(&args(&[i])).unwrap_err();
        assert_eq!(code, 2);
        assert!(msg.contains("not a record format"), "{msg}");
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn a_bad_variation_is_a_warning_and_strict_refuses_it() {
        let input = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/crates/xiangqi-record/tests/data/issue18/bad-variation.dhtmlxq.txt"
        );
        let dir = std::env::temp_dir().join(format!("xiangqi-convert-w-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let output = dir.join("out.pgn");
        let o = output.to_str().unwrap();
        cmd_convert(&args(&[input, "-o", o, "--notation", "iccs"])).unwrap();
        let out = std::fs::read_to_string(&output).unwrap();
        assert!(out.contains("1. h2e2 h9g7 (1... b9c7 2. h0g2) *"), "{out}");
        let (msg, code) = cmd_convert(&args(&[input, "-o", o, "--strict"])).unwrap_err();
        assert_eq!(code, 2, "{msg}");
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn lenient_keeps_a_game_up_to_its_bad_move_and_positions_convert_to_fen() {
        let data = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/crates/xiangqi-record/tests/data/records/"
        );
        let dir = std::env::temp_dir().join(format!("xiangqi-convert-l-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let output = dir.join("out.pgn");
        let o = output.to_str().unwrap();
        // XieXie game1's 122nd ply is ambiguous: an error by default, kept up to it leniently.
        let wxf = format!("{data}elephantchess-xiexie-end-game1.wxf");
        let (_, code) = cmd_convert(&args(&[&wxf, "-o", o])).unwrap_err();
        assert_eq!(code, 2);
        cmd_convert(&args(&[&wxf, "-o", o, "--lenient", "--notation", "wxf"])).unwrap();
        let out = std::fs::read_to_string(&output).unwrap();
        assert!(out.contains("61. C6-5 *"), "{out}");
        assert!(cli_rejects(&[&wxf, "--lenient", "--strict"]));
        // A position file to FENs: one a line, in order.
        let epd = format!("{data}ianfab-books-xiangqi-first200.epd");
        let fens = dir.join("out.fen");
        cmd_convert(&args(&[&epd, "-o", fens.to_str().unwrap(), "--to", "fen"])).unwrap();
        let out = std::fs::read_to_string(&fens).unwrap();
        let want = std::fs::read_to_string(&epd).unwrap();
        assert_eq!(out, want);
        std::fs::remove_dir_all(&dir).ok();
    }

    fn cli_rejects(v: &[&str]) -> bool {
        use clap::Parser;
        let all = ["xiangqi", "convert"].iter().chain(v);
        crate::cli::Cli::try_parse_from(all).is_err()
    }

    fn encoding_gbk(s: &str) -> Vec<u8> {
        xiangqi_record::encoding::encode_gb18030(s)
    }
}
