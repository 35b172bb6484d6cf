//! `xiangqi convert`: reads a record file in any format the records crate knows (recognised
//! from the content) and writes its games as PGN in a chosen notation, or as FENs.

use std::io::{Read, Write};

use xiangqi::notation::Notation;
use xiangqi_record::detect::{read_any, RecordFormat};
use xiangqi_record::pgn;

pub const USAGE: &str =
    "  xiangqi convert INPUT [-o OUTPUT] [--notation iccs|wxf|chinese] [--to pgn|fen]
      (INPUT or OUTPUT '-' is stdin/stdout; --to fen writes each game's final position)";

/// Runs the command; `Err((message, exit status))` on failure. A broken game is reported on
/// stderr (file, game, line or byte, reason) and the others still convert; the status is then 1.
pub fn cmd_convert(args: &[String]) -> Result<(), (String, u8)> {
    let usage = |m: String| (format!("{m}\nusage:\n{USAGE}"), 2u8);
    let mut input: Option<String> = None;
    let mut output: Option<String> = None;
    let mut notation: Option<Notation> = None;
    let mut to_fen = false;
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
            "-" => input = Some(a.to_string()),
            _ if a.starts_with('-') => return Err(usage(format!("unknown option '{a}'"))),
            _ if input.is_none() => input = Some(a.to_string()),
            _ => return Err(usage(format!("more than one input ('{a}')"))),
        }
        i += 1;
    }
    let input = input.ok_or_else(|| usage("convert needs an INPUT file".to_string()))?;
    let bytes = if input == "-" {
        let mut v = Vec::new();
        std::io::stdin()
            .read_to_end(&mut v)
            .map_err(|e| (format!("cannot read stdin: {e}"), 2))?;
        v
    } else {
        std::fs::read(&input).map_err(|e| (format!("cannot read {input}: {e}"), 2))?
    };
    let all = read_any(&bytes).map_err(|e| (format!("{input}: {e}"), 2))?;
    // Default notation: the input's own for PGN, Chinese otherwise.
    let notation = notation.unwrap_or_else(|| match all.format {
        RecordFormat::Pgn => {
            let (text, _) = xiangqi_record::encoding::decode(&bytes);
            let mut r = pgn::PgnReader::new(&text);
            let _ = r.next();
            r.notation().unwrap_or(Notation::Chinese)
        }
        _ => Notation::Chinese,
    });
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
    if output.as_deref().is_none_or(|o| o == "-") {
        std::io::stdout()
            .write_all(out.as_bytes())
            .map_err(|e| (format!("cannot write stdout: {e}"), 2))?;
    } else {
        let o = output.expect("checked");
        std::fs::write(&o, out.as_bytes()).map_err(|e| (format!("cannot write {o}: {e}"), 2))?;
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
