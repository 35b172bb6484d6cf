//! `xiangqi convert`: reads a record file in any format the records crate knows (recognised
//! from the content) and writes its games as PGN in a chosen notation, or as FENs.

use std::io::{Read, Write};

use xiangqi::notation::Notation;
use xiangqi_record::detect::{read_any_with, ReadAll, RecordFormat};
use xiangqi_record::pgn;

pub const USAGE: &str =
    "  xiangqi convert INPUT [-o OUTPUT] [--notation iccs|wxf|chinese] [--to pgn|fen] [--encoding utf8|gbk] [--strict]
      (INPUT or OUTPUT '-' is stdin/stdout; --to fen writes each game's final position;
      an illegal move inside a variation drops that branch with a warning, --strict refuses
      the game instead)";

/// Runs the command; `Err((message, exit status))` on failure. A broken game is reported on
/// stderr (file, game, line or byte, reason) and the others still convert; the status is then 1.
/// A variation dropped from an illegal move on is a warning on stderr; the status stays 0.
pub fn cmd_convert(args: &[String]) -> Result<(), (String, u8)> {
    let usage = |m: String| (format!("{m}\nusage:\n{USAGE}"), 2u8);
    let mut input: Option<String> = None;
    let mut output: Option<String> = None;
    let mut notation: Option<Notation> = None;
    let mut to_fen = false;
    let mut gbk = false;
    let mut strict = false;
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        let mut value = |name: &str| -> Result<String, (String, u8)> {
            i += 1;
            args.get(i)
                .cloned()
                .ok_or_else(|| usage(format!("{name} needs a value")))
        };
        match a {
            "-o" | "--output" => output = Some(value(a)?),
            "--notation" => {
                let v = value(a)?;
                notation = Some(match v.to_ascii_lowercase().as_str() {
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
            "--to" => {
                let v = value(a)?;
                to_fen = match v.to_ascii_lowercase().as_str() {
                    "pgn" => false,
                    "fen" => true,
                    _ => return Err(usage(format!("unknown output format '{v}' (pgn or fen)"))),
                };
            }
            "--encoding" => {
                let v = value(a)?;
                gbk = match v.to_ascii_lowercase().as_str() {
                    "utf8" | "utf-8" => false,
                    "gbk" | "gb18030" => true,
                    _ => return Err(usage(format!("unknown encoding '{v}' (utf8 or gbk)"))),
                };
            }
            "--strict" => strict = true,
            "-" => input = Some(a.to_string()),
            _ if a.starts_with('-') => return Err(usage(format!("unknown option '{a}'"))),
            _ if input.is_none() => input = Some(a.to_string()),
            _ => return Err(usage(format!("more than one input ('{a}')"))),
        }
        i += 1;
    }
    let input = input.ok_or_else(|| usage("convert needs an INPUT file".to_string()))?;
    let (all, default_notation) = read_records(&input, strict, "convert")?;
    let notation = notation.unwrap_or(default_notation);
    let total = all.games.len();
    let mut out = String::new();
    let mut failed = 0;
    for (n, g) in all.games.iter().enumerate() {
        match g {
            Ok(game) => {
                if to_fen {
                    out.push_str(&game.end_position().fen());
                    out.push('\n');
                } else {
                    pgn::write_game(&mut out, game, notation);
                }
            }
            Err(e) => {
                failed += 1;
                let game = e.game().unwrap_or(n + 1);
                eprintln!(
                    "xiangqi convert: {input} ({}), game {game} of {total}: {e}",
                    all.format
                );
            }
        }
    }
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

/// Reads INPUT (a file, or stdin for `-`) as any record format, strictly or not, and prints
/// the readers' warnings on stderr as `xiangqi CMD: warning: ...`. Answers the games and the
/// notation to write by default: the input's own for PGN, WXF for XieXie, else Chinese.
/// `xiangqi convert` and `xiangqi analyze` share it, and so its error messages.
pub fn read_records(
    input: &str,
    strict: bool,
    cmd: &str,
) -> Result<(ReadAll, Notation), (String, u8)> {
    let bytes = if input == "-" {
        let mut v = Vec::new();
        std::io::stdin()
            .read_to_end(&mut v)
            .map_err(|e| (format!("cannot read stdin: {e}"), 2))?;
        v
    } else {
        std::fs::read(input).map_err(|e| (format!("cannot read {input}: {e}"), 2))?
    };
    let all = read_any_with(&bytes, strict).map_err(|e| (format!("{input}: {e}"), 2))?;
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
    Ok((all, notation))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
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
        cmd_convert(&args(&[i, "-o", o, "--notation", "wxf"])).unwrap();
        assert!(std::fs::read_to_string(&output)
            .unwrap()
            .contains("1. C2.5 H8+7 *"));

        std::fs::write(&input, "not a record\n").unwrap();
        let (msg, code) = cmd_convert(&args(&[i])).unwrap_err();
        assert_eq!(code, 2);
        assert!(msg.contains("not a record format"), "{msg}");
        let (msg, code) = cmd_convert(&args(&[i, "--notation", "san"])).unwrap_err();
        assert_eq!(code, 2);
        assert!(msg.contains("unknown notation"), "{msg}");
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

    fn encoding_gbk(s: &str) -> Vec<u8> {
        xiangqi_record::encoding::encode_gb18030(s)
    }
}
