//! The command line, in cutechess-cli's style: `-engine name=A cmd=PATH ... -each tc=10+0.1
//! -games 2 -rounds N -repeat -concurrency K -openings file=F -pgnout F -sprt ... -draw ...
//! -resign ...`.

use std::path::PathBuf;

use xiangqi::Rules;

use crate::stats::{EloModel, Penta, Sprt};

pub const USAGE: &str =
    "usage: xiangqi match -engine name=A cmd=PATH [options] -engine name=B cmd=PATH [options]
       [-each options] [-games N] [-rounds N] [-repeat] [-concurrency K]
       [-openings file=FILE [format=epd|pgn|book] [order=sequential|random] [start=N] [plies=N]]
       [-srand N]
       [-pgnout FILE] [-sprt elo0=E elo1=E alpha=A beta=B model=normalized|logistic
              earlier=LL,LD,WL+DD,WD,WW]
       [-draw movenumber=N movecount=N score=N] [-resign movecount=N score=N [twosided=true]]
       [-rules repetitions=3 movelimit=120|off chase=on|off] [-log DIR [-debug]]
       [-event NAME] [-notation iccs|wxf|chinese] [-wait MS]
engine options (in -engine or -each):
  name=NAME cmd=PATH arg=ARG (repeatable) dir=DIR proto=uci|ucci ranks=0|1
  variant=NAME (sends UCI_Variant; default xiangqi when ranks=1) fen=standard|he|auto
  option.NAME=VALUE   tc=[MOVES/]SECONDS[+INC] | nodes=N | depth=N | st=SECONDS
  timemargin=MS (time past the clock tolerated, default 0) timeout=SECONDS (hang limit of
  nodes/depth searches, default 60) starttimeout=SECONDS (limit of each start-up answer, default 10)
See docs/MATCH.md.";

/// How an engine talks.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Proto {
    Uci,
    Ucci,
}

/// The piece letters of FENs sent to an engine.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum FenLetters {
    /// N for the horse, B for the elephant (Pikafish, Fairy-Stockfish, ours).
    Standard,
    /// H and E (Sjaak II).
    He,
    /// He when the engine's name starts with "Sjaak", else standard.
    Auto,
}

/// A search limit.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Limit {
    /// A clock: `base_ms` for the game (or for each `moves` moves), `inc_ms` added per move.
    Clock {
        moves: Option<u32>,
        base_ms: u64,
        inc_ms: u64,
    },
    Nodes(u64),
    Depth(u32),
    /// A fixed time per move.
    MoveTime(u64),
}

impl std::fmt::Display for Limit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let secs = |ms: u64| {
            let s = format!("{:.3}", ms as f64 / 1000.0);
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        };
        match *self {
            Limit::Clock {
                moves,
                base_ms,
                inc_ms,
            } => {
                if let Some(m) = moves {
                    write!(f, "{m}/")?;
                }
                write!(f, "{}", secs(base_ms))?;
                if inc_ms > 0 {
                    write!(f, "+{}", secs(inc_ms))?;
                }
                Ok(())
            }
            Limit::Nodes(n) => write!(f, "nodes={n}"),
            Limit::Depth(d) => write!(f, "depth={d}"),
            Limit::MoveTime(ms) => write!(f, "st={}", secs(ms)),
        }
    }
}

/// One engine of the match.
#[derive(Clone, Debug, PartialEq)]
pub struct EngineSpec {
    pub name: String,
    pub cmd: String,
    pub args: Vec<String>,
    pub dir: Option<PathBuf>,
    pub proto: Proto,
    /// Ranks numbered 1-10 (Fairy-Stockfish, Sjaak II) instead of 0-9.
    pub ranks1: bool,
    /// The `UCI_Variant` to set, if any.
    pub variant: Option<String>,
    pub fen_letters: FenLetters,
    pub options: Vec<(String, String)>,
    pub limit: Option<Limit>,
    pub timemargin_ms: u64,
    pub timeout_ms: u64,
    /// The limit for each answer of the start-up handshake.
    pub start_timeout_ms: u64,
}

impl Default for EngineSpec {
    fn default() -> EngineSpec {
        EngineSpec {
            name: String::new(),
            cmd: String::new(),
            args: Vec::new(),
            dir: None,
            proto: Proto::Uci,
            ranks1: false,
            variant: None,
            fen_letters: FenLetters::Auto,
            options: Vec::new(),
            limit: None,
            timemargin_ms: 0,
            timeout_ms: 60_000,
            start_timeout_ms: 10_000,
        }
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Order {
    Sequential,
    Random,
}

#[derive(Clone, Debug, PartialEq)]
pub struct OpeningsSpec {
    pub file: PathBuf,
    /// `Some(true)` for PGN, `Some(false)` for EPD/FEN lines, `None` to tell by content.
    pub pgn: Option<bool>,
    pub order: Order,
    /// The first opening to use (1-based).
    pub start: usize,
    /// An engine book (`xiangqi explorer book`): openings are weighted random walks in it
    /// (also when the file starts as a book does and no format is given).
    pub book: bool,
    /// The most plies a book walk takes (default [`DEFAULT_BOOK_PLIES`]).
    pub plies: Option<usize>,
}

/// The plies of a book walk when `plies=` is not given.
pub const DEFAULT_BOOK_PLIES: usize = 8;

/// Draw adjudication: from move `movenumber` on, both engines' scores within ±`score` for
/// `movecount` consecutive moves each.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct DrawAdj {
    pub movenumber: u32,
    pub movecount: u32,
    pub score: i32,
}

/// Resign adjudication: an engine's score at or below -`score` for `movecount` consecutive
/// moves of its own (and with `twosided`, its opponent's at or above `score` too).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ResignAdj {
    pub movecount: u32,
    pub score: i32,
    pub twosided: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct MatchConfig {
    pub engines: [EngineSpec; 2],
    pub games: u32,
    pub rounds: u32,
    pub repeat: bool,
    pub concurrency: usize,
    pub openings: Option<OpeningsSpec>,
    pub srand: u64,
    pub pgnout: Option<PathBuf>,
    pub sprt: Option<Sprt>,
    pub draw: Option<DrawAdj>,
    pub resign: Option<ResignAdj>,
    pub rules: Rules,
    /// Where engine logs go (`-log DIR`); none unless asked.
    pub logdir: Option<PathBuf>,
    pub debug: bool,
    pub event: String,
    pub notation: xiangqi::notation::Notation,
    /// Pause between games of a worker, in milliseconds.
    pub wait_ms: u64,
}

impl MatchConfig {
    /// The number of games to play.
    pub fn total_games(&self) -> u64 {
        self.games as u64 * self.rounds as u64
    }
}

fn num<T: std::str::FromStr>(what: &str, v: &str) -> Result<T, String> {
    v.parse()
        .map_err(|_| format!("{what}: '{v}' is not a valid number"))
}

fn seconds_ms(what: &str, v: &str) -> Result<u64, String> {
    let s: f64 = num(what, v)?;
    if !(s.is_finite() && s >= 0.0) {
        return Err(format!("{what}: '{v}' is not a time in seconds"));
    }
    Ok((s * 1000.0).round() as u64)
}

/// Reads `tc=[MOVES/]SECONDS[+INC]` (SECONDS may be `M:SS`).
pub fn parse_tc(v: &str) -> Result<Limit, String> {
    let bad = || format!("tc: '{v}' is not a time control like 10+0.1, 40/60 or 1:30+1");
    let (moves, rest) = match v.split_once('/') {
        Some((m, r)) => (Some(m.parse::<u32>().map_err(|_| bad())?), r),
        None => (None, v),
    };
    let (base, inc) = match rest.split_once('+') {
        Some((b, i)) => (b, Some(i)),
        None => (rest, None),
    };
    let base_ms = match base.split_once(':') {
        Some((m, s)) => {
            let m: u64 = m.parse().map_err(|_| bad())?;
            m * 60_000 + seconds_ms("tc", s).map_err(|_| bad())?
        }
        None => seconds_ms("tc", base).map_err(|_| bad())?,
    };
    let inc_ms = match inc {
        Some(i) => seconds_ms("tc", i).map_err(|_| bad())?,
        None => 0,
    };
    if base_ms == 0 && inc_ms == 0 || moves == Some(0) {
        return Err(bad());
    }
    Ok(Limit::Clock {
        moves,
        base_ms,
        inc_ms,
    })
}

fn apply_engine_pair(e: &mut EngineSpec, key: &str, v: &str) -> Result<(), String> {
    match key {
        "name" => e.name = v.to_string(),
        "cmd" => e.cmd = v.to_string(),
        "arg" => e.args.push(v.to_string()),
        "dir" => e.dir = Some(PathBuf::from(v)),
        "proto" => {
            e.proto = match v {
                "uci" => Proto::Uci,
                "ucci" => Proto::Ucci,
                _ => return Err(format!("proto: '{v}' is not uci or ucci")),
            }
        }
        "ranks" => {
            e.ranks1 = match v {
                "0" => false,
                "1" => true,
                _ => return Err(format!("ranks: '{v}' is not 0 (a0..i9) or 1 (a1..i10)")),
            }
        }
        "variant" => e.variant = Some(v.to_string()),
        "fen" => {
            e.fen_letters = match v {
                "standard" => FenLetters::Standard,
                "he" => FenLetters::He,
                "auto" => FenLetters::Auto,
                _ => return Err(format!("fen: '{v}' is not standard, he or auto")),
            }
        }
        "tc" => e.limit = Some(parse_tc(v)?),
        "nodes" => {
            let n: u64 = num("nodes", v)?;
            if n == 0 {
                return Err("nodes: must be at least 1".into());
            }
            e.limit = Some(Limit::Nodes(n));
        }
        "depth" => {
            let d: u32 = num("depth", v)?;
            if d == 0 {
                return Err("depth: must be at least 1".into());
            }
            e.limit = Some(Limit::Depth(d));
        }
        "st" => {
            let ms = seconds_ms("st", v)?;
            if ms == 0 {
                return Err("st: must be more than 0 seconds".into());
            }
            e.limit = Some(Limit::MoveTime(ms));
        }
        "timemargin" => e.timemargin_ms = num("timemargin", v)?,
        "timeout" => {
            let ms = seconds_ms("timeout", v)?;
            if ms == 0 {
                return Err("timeout: must be more than 0 seconds".into());
            }
            e.timeout_ms = ms;
        }
        "starttimeout" => {
            let ms = seconds_ms("starttimeout", v)?;
            if ms == 0 {
                return Err("starttimeout: must be more than 0 seconds".into());
            }
            e.start_timeout_ms = ms;
        }
        _ => {
            if let Some(name) = key.strip_prefix("option.") {
                if name.is_empty() {
                    return Err("option.: the option needs a name (option.Hash=64)".into());
                }
                e.options.retain(|(k, _)| k != name);
                e.options.push((name.to_string(), v.to_string()));
            } else {
                return Err(format!("unknown engine setting '{key}'"));
            }
        }
    }
    Ok(())
}

/// Splits `key=value` tokens after a flag, up to the next `-flag`.
fn pairs<'a>(
    args: &'a [String],
    i: &mut usize,
    flag: &str,
) -> Result<Vec<(&'a str, &'a str)>, String> {
    let mut out = Vec::new();
    while let Some(t) = args.get(*i) {
        if t.starts_with('-') {
            break;
        }
        let (k, v) = t
            .split_once('=')
            .ok_or_else(|| format!("{flag}: '{t}' is not of the form key=value"))?;
        out.push((k, v));
        *i += 1;
    }
    Ok(out)
}

fn single<'a>(args: &'a [String], i: &mut usize, flag: &str) -> Result<&'a str, String> {
    let v = args
        .get(*i)
        .filter(|v| !v.starts_with('-') || v.parse::<f64>().is_ok())
        .ok_or_else(|| format!("{flag} needs a value"))?;
    *i += 1;
    Ok(v)
}

fn on_off(what: &str, v: &str) -> Result<bool, String> {
    match v {
        "on" | "true" | "1" | "yes" => Ok(true),
        "off" | "false" | "0" | "no" => Ok(false),
        _ => Err(format!("{what}: '{v}' is not on or off")),
    }
}

/// Parses the arguments after `match`.
pub fn parse(args: &[String]) -> Result<MatchConfig, String> {
    let mut engine_pairs: Vec<Vec<(&str, &str)>> = Vec::new();
    let mut each: Vec<(&str, &str)> = Vec::new();
    let mut games = 2u32;
    let mut rounds = 1u32;
    let mut repeat = false;
    let mut concurrency = 1usize;
    let mut openings = None;
    let mut srand = None;
    let mut pgnout = None;
    let mut sprt = None;
    let mut draw = None;
    let mut resign = None;
    let mut rules = Rules::default();
    let mut logdir = None;
    let mut debug = false;
    let mut event = String::from("xiangqi match");
    let mut notation = xiangqi::notation::Notation::Iccs;
    let mut wait_ms = 0;
    let mut i = 0;
    while i < args.len() {
        let flag = args[i].as_str();
        i += 1;
        match flag {
            "-engine" => engine_pairs.push(pairs(args, &mut i, flag)?),
            "-each" => each.extend(pairs(args, &mut i, flag)?),
            "-games" => {
                games = num("-games", single(args, &mut i, flag)?)?;
                if games == 0 {
                    return Err("-games must be at least 1".into());
                }
            }
            "-rounds" => {
                rounds = num("-rounds", single(args, &mut i, flag)?)?;
                if rounds == 0 {
                    return Err("-rounds must be at least 1".into());
                }
            }
            "-repeat" => repeat = true,
            "-concurrency" => {
                concurrency = num("-concurrency", single(args, &mut i, flag)?)?;
                if concurrency == 0 {
                    return Err("-concurrency must be at least 1".into());
                }
            }
            "-srand" => srand = Some(num("-srand", single(args, &mut i, flag)?)?),
            "-pgnout" => pgnout = Some(PathBuf::from(single(args, &mut i, flag)?)),
            "-log" | "-logdir" => logdir = Some(PathBuf::from(single(args, &mut i, flag)?)),
            "-debug" => debug = true,
            "-event" => event = single(args, &mut i, flag)?.to_string(),
            "-wait" => wait_ms = num("-wait", single(args, &mut i, flag)?)?,
            "-notation" => {
                let v = single(args, &mut i, flag)?;
                notation = match v.to_ascii_lowercase().as_str() {
                    "iccs" | "uci" => xiangqi::notation::Notation::Iccs,
                    "wxf" => xiangqi::notation::Notation::Wxf,
                    "chinese" => xiangqi::notation::Notation::Chinese,
                    _ => return Err(format!("-notation: '{v}' is not iccs, wxf or chinese")),
                };
            }
            "-openings" => {
                let mut spec = OpeningsSpec {
                    file: PathBuf::new(),
                    pgn: None,
                    order: Order::Sequential,
                    start: 1,
                    book: false,
                    plies: None,
                };
                for (k, v) in pairs(args, &mut i, flag)? {
                    match k {
                        "file" => spec.file = PathBuf::from(v),
                        "format" => {
                            spec.book = v == "book";
                            spec.pgn = match v {
                                "pgn" => Some(true),
                                "epd" | "fen" => Some(false),
                                "book" => None,
                                _ => {
                                    return Err(format!(
                                        "-openings format: '{v}' is not epd, pgn or book"
                                    ))
                                }
                            }
                        }
                        "order" => {
                            spec.order = match v {
                                "sequential" => Order::Sequential,
                                "random" => Order::Random,
                                _ => {
                                    return Err(format!(
                                        "-openings order: '{v}' is not sequential or random"
                                    ))
                                }
                            }
                        }
                        "start" => {
                            spec.start = num("-openings start", v)?;
                            if spec.start == 0 {
                                return Err("-openings start: openings are numbered from 1".into());
                            }
                        }
                        "plies" => {
                            let n: usize = num("-openings plies", v)?;
                            if n == 0 {
                                return Err(
                                    "-openings plies: a book walk needs at least 1 ply".into()
                                );
                            }
                            spec.plies = Some(n);
                        }
                        "policy" => {} // accepted for cutechess compatibility
                        _ => return Err(format!("-openings: unknown setting '{k}'")),
                    }
                }
                if spec.file.as_os_str().is_empty() {
                    return Err("-openings needs file=FILE".into());
                }
                openings = Some(spec);
            }
            "-sprt" => {
                let (mut e0, mut e1, mut a, mut b) = (None, None, 0.05, 0.05);
                let mut model = EloModel::Normalized;
                let mut earlier = Penta::default();
                for (k, v) in pairs(args, &mut i, flag)? {
                    match k {
                        "model" => {
                            model = match v {
                                "normalized" => EloModel::Normalized,
                                "logistic" => EloModel::Logistic,
                                _ => {
                                    return Err(format!(
                                        "-sprt model: '{v}' is not normalized or logistic"
                                    ))
                                }
                            }
                        }
                        "elo0" => e0 = Some(num("-sprt elo0", v)?),
                        "elo1" => e1 = Some(num("-sprt elo1", v)?),
                        "alpha" => a = num("-sprt alpha", v)?,
                        "beta" => b = num("-sprt beta", v)?,
                        "earlier" => {
                            earlier = Penta::parse(v).map_err(|e| format!("-sprt earlier: {e}"))?
                        }
                        _ => return Err(format!("-sprt: unknown setting '{k}'")),
                    }
                }
                let (Some(e0), Some(e1)) = (e0, e1) else {
                    return Err("-sprt needs elo0= and elo1=".into());
                };
                sprt = Some(
                    Sprt::new(e0, e1, a, b)
                        .map_err(|e| format!("-sprt: {e}"))?
                        .with_model(model)
                        .with_earlier(earlier),
                );
            }
            "-draw" => {
                let mut d = DrawAdj {
                    movenumber: 0,
                    movecount: 0,
                    score: 0,
                };
                let (mut seen_c, mut seen_s) = (false, false);
                for (k, v) in pairs(args, &mut i, flag)? {
                    match k {
                        "movenumber" => d.movenumber = num("-draw movenumber", v)?,
                        "movecount" => {
                            d.movecount = num("-draw movecount", v)?;
                            seen_c = true
                        }
                        "score" => {
                            d.score = num("-draw score", v)?;
                            seen_s = true
                        }
                        _ => return Err(format!("-draw: unknown setting '{k}'")),
                    }
                }
                if !seen_c || !seen_s || d.movecount == 0 || d.score < 0 {
                    return Err(
                        "-draw needs movecount=N (at least 1) and score=N (at least 0)".into(),
                    );
                }
                draw = Some(d);
            }
            "-resign" => {
                let mut r = ResignAdj {
                    movecount: 0,
                    score: 0,
                    twosided: false,
                };
                for (k, v) in pairs(args, &mut i, flag)? {
                    match k {
                        "movecount" => r.movecount = num("-resign movecount", v)?,
                        "score" => r.score = num("-resign score", v)?,
                        "twosided" => r.twosided = on_off("-resign twosided", v)?,
                        _ => return Err(format!("-resign: unknown setting '{k}'")),
                    }
                }
                if r.movecount == 0 || r.score <= 0 {
                    return Err("-resign needs movecount=N and score=N (both at least 1)".into());
                }
                resign = Some(r);
            }
            "-rules" => {
                for (k, v) in pairs(args, &mut i, flag)? {
                    match k {
                        "repetitions" => {
                            let n: u32 = num("-rules repetitions", v)?;
                            if n < 2 {
                                return Err("-rules repetitions: must be at least 2".into());
                            }
                            rules = rules.with_repetitions(n);
                        }
                        "movelimit" => {
                            rules = rules.with_move_limit(if v == "off" {
                                None
                            } else {
                                Some(num("-rules movelimit", v)?)
                            })
                        }
                        "chase" => rules = rules.with_chase_rule(on_off("-rules chase", v)?),
                        _ => return Err(format!("-rules: unknown setting '{k}'")),
                    }
                }
            }
            _ => return Err(format!("unknown option '{flag}'")),
        }
    }
    if engine_pairs.len() != 2 {
        return Err(format!(
            "a match needs exactly two -engine (got {}); gauntlets and round robins are not supported",
            engine_pairs.len()
        ));
    }
    let mut engines = [EngineSpec::default(), EngineSpec::default()];
    for (n, (e, own)) in engines.iter_mut().zip(&engine_pairs).enumerate() {
        for (k, v) in each.iter().chain(own.iter()) {
            apply_engine_pair(e, k, v).map_err(|m| format!("engine {}: {m}", n + 1))?;
        }
        if e.cmd.is_empty() {
            return Err(format!("engine {}: cmd=PATH is missing", n + 1));
        }
        if e.limit.is_none() {
            return Err(format!(
                "engine {}: no search limit: give tc=..., nodes=N, depth=N or st=SECONDS (in -engine or -each)",
                n + 1
            ));
        }
        if e.ranks1 && e.variant.is_none() {
            e.variant = Some("xiangqi".into());
        }
        if e.name.is_empty() {
            e.name = std::path::Path::new(&e.cmd)
                .file_name()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| e.cmd.clone());
        }
    }
    if engines[0].name == engines[1].name {
        let n = engines[0].name.clone();
        engines[0].name = format!("{n}-1");
        engines[1].name = format!("{n}-2");
    }
    let srand = srand.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(1)
    });
    if sprt.is_some_and(|s| s.earlier.pairs() > 0) && !repeat {
        return Err(
            "-sprt earlier= counts game pairs: it needs -repeat (the pentanomial test)".into(),
        );
    }
    if debug && logdir.is_none() {
        return Err("-debug writes the engines' traffic into the log folder: give -log DIR".into());
    }
    Ok(MatchConfig {
        engines,
        games,
        rounds,
        repeat,
        concurrency,
        openings,
        srand,
        pgnout,
        sprt,
        draw,
        resign,
        rules,
        logdir,
        debug,
        event,
        notation,
        wait_ms,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn full_command_line() {
        let c = parse(&args(
            "-engine name=A cmd=/bin/a arg=-x option.Hash=64 -engine name=B cmd=/bin/b proto=ucci \
             ranks=1 option.Threads=2 -each tc=10+0.1 option.Hash=32 timemargin=50 -games 2 \
             -rounds 7 -repeat -concurrency 2 -openings file=o.epd order=random -pgnout out.pgn \
             -sprt elo0=0 elo1=5 alpha=0.05 beta=0.1 -draw movenumber=40 movecount=8 score=10 \
             -resign movecount=3 score=600 -srand 5",
        ))
        .unwrap();
        assert_eq!(c.engines[0].args, vec!["-x"]);
        // -each comes first; the engine's own setting wins.
        assert_eq!(
            c.engines[0].options,
            vec![("Hash".to_string(), "64".to_string())]
        );
        assert_eq!(
            c.engines[1].options,
            vec![
                ("Hash".to_string(), "32".to_string()),
                ("Threads".to_string(), "2".to_string())
            ]
        );
        assert_eq!(c.engines[1].proto, Proto::Ucci);
        assert!(c.engines[1].ranks1);
        assert_eq!(c.engines[1].variant.as_deref(), Some("xiangqi"));
        assert_eq!(
            c.engines[0].limit,
            Some(Limit::Clock {
                moves: None,
                base_ms: 10_000,
                inc_ms: 100
            })
        );
        assert_eq!(c.engines[0].timemargin_ms, 50);
        assert_eq!(c.total_games(), 14);
        assert!(c.repeat);
        assert_eq!(c.concurrency, 2);
        assert_eq!(c.openings.as_ref().unwrap().order, Order::Random);
        assert_eq!(c.sprt.unwrap().beta, 0.1);
        assert_eq!(
            c.draw,
            Some(DrawAdj {
                movenumber: 40,
                movecount: 8,
                score: 10
            })
        );
        assert_eq!(c.resign.unwrap().score, 600);
        assert_eq!(c.srand, 5);
    }

    #[test]
    fn time_controls() {
        assert_eq!(
            parse_tc("40/1:30+0.5").unwrap(),
            Limit::Clock {
                moves: Some(40),
                base_ms: 90_000,
                inc_ms: 500
            }
        );
        assert_eq!(parse_tc("0+0.1").unwrap().to_string(), "0+0.1");
        assert_eq!(parse_tc("10+0.1").unwrap().to_string(), "10+0.1");
        for bad in ["", "x", "10+", "0", "0/10", "-5", "10+y"] {
            assert!(parse_tc(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn errors_name_the_problem() {
        let e = |s: &str| parse(&args(s)).unwrap_err();
        assert!(e("-engine cmd=a -each tc=1").contains("exactly two"));
        assert!(
            e("-engine cmd=a -engine name=b -each tc=1").contains("engine 2: cmd=PATH is missing")
        );
        assert!(e("-engine cmd=a -engine cmd=b").contains("no search limit"));
        assert!(e("-engine cmd=a -engine cmd=b -each nodes=x").contains("nodes: 'x'"));
        assert!(e("-engine cmd=a -engine cmd=b -each tc=1 -games").contains("-games needs a value"));
        assert!(e("-engine cmd=a -engine cmd=b -each tc=1 -foo").contains("unknown option '-foo'"));
        assert!(e("-engine cmd=a bogus -engine cmd=b").contains("'bogus' is not of the form"));
        assert!(
            e("-engine cmd=a -engine cmd=b -each tc=1 -sprt elo0=5 elo1=0").contains("elo0 < elo1")
        );
        assert!(e("-engine cmd=a -engine cmd=b -each tc=1 wibble=3")
            .contains("unknown engine setting 'wibble'"));
        assert!(
            e("-engine cmd=a -engine cmd=b -each tc=1 -sprt elo0=0 elo1=2 earlier=1,2,3,4,5")
                .contains("-sprt earlier= counts game pairs: it needs -repeat")
        );
        assert!(e(
            "-engine cmd=a -engine cmd=b -each tc=1 -repeat -sprt elo0=0 elo1=2 earlier=1,2"
        )
        .contains("-sprt earlier: '1,2' is not five counts"));
    }

    #[test]
    fn an_sprt_continues_from_earlier_pairs() {
        let c = parse(&args(
            "-engine cmd=a -engine cmd=b -each tc=1 -repeat -sprt elo0=0 elo1=5 earlier=52,108,161,118,68",
        ))
        .unwrap();
        assert_eq!(c.sprt.unwrap().earlier.0, [52, 108, 161, 118, 68]);
        let c = parse(&args(
            "-engine cmd=a -engine cmd=b -each tc=1 -sprt elo0=0 elo1=5",
        ))
        .unwrap();
        assert_eq!(c.sprt.unwrap().earlier.pairs(), 0);
    }

    #[test]
    fn default_names_are_distinct() {
        let c = parse(&args("-engine cmd=/x/eng -engine cmd=/y/eng -each depth=2")).unwrap();
        assert_eq!(c.engines[0].name, "eng-1");
        assert_eq!(c.engines[1].name, "eng-2");
    }
}
