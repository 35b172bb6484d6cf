//! `xiangqi bot`: a UCI or UCCI engine on a server account, through lichess's Bot API.
//!
//! The main thread reads the account's event stream (`GET /api/stream/event`), reopening it
//! with backoff after a loss; it accepts or declines each `challenge` by the policy
//! ([`policy`]) and starts a thread for each `gameStart` (on reconnecting, the stream names
//! the games going on again, and those without a thread get one). Each game ([`game`]) has
//! its own engine process, driven by the match runner's driver (`xiangqi_match::engine`).
//! docs/BOTS.md describes the policy and the flags.

pub mod game;
pub mod http;
pub mod policy;

use std::collections::{HashMap, HashSet};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::Value;
use xiangqi_match::cli::{EngineSpec, FenLetters, Proto};
use xiangqi_match::engine::EngineProc;

use crate::cli::{BotArgs, ProtoArg};
use crate::Fail;
use game::{color_of, GameCtx, Me, Settings};
use http::{Api, Backoff, HttpError};
use policy::{Challenge, Opponents, Policy};

/// A line on stderr, with the time of day (UTC).
pub fn log(msg: &str) {
    let s = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
        % 86_400;
    eprintln!("{:02}:{:02}:{:02} {msg}", s / 3600, s / 60 % 60, s % 60);
}

/// The token: the text given, or a file's first line for `@FILE`.
fn read_token(t: &str) -> Result<String, Fail> {
    let token = match t.strip_prefix('@') {
        Some(path) => std::fs::read_to_string(path)
            .map_err(|e| Fail::input(format!("--token: cannot read {path}: {e}")))?
            .lines()
            .next()
            .unwrap_or("")
            .trim()
            .to_string(),
        None => t.trim().to_string(),
    };
    if token.is_empty() || token.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(Fail::input(
            "--token: empty, or with spaces or control characters",
        ));
    }
    Ok(token)
}

/// The engine's specification for the match runner's driver.
fn engine_spec(a: &BotArgs) -> Result<EngineSpec, Fail> {
    let mut words = a.engine.split_whitespace().map(str::to_string);
    let cmd = words
        .next()
        .ok_or_else(|| Fail::input("--engine: no command given"))?;
    let name = std::path::Path::new(&cmd)
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_else(|| cmd.clone());
    let ranks1 = a.ranks == "1";
    Ok(EngineSpec {
        name,
        cmd,
        args: words.collect(),
        proto: match a.proto {
            ProtoArg::Uci => Proto::Uci,
            ProtoArg::Ucci => Proto::Ucci,
        },
        ranks1,
        variant: ranks1.then(|| "xiangqi".to_string()),
        fen_letters: FenLetters::Auto,
        options: a.options.clone(),
        ..EngineSpec::default()
    })
}

/// Starts the engine once to see that it runs (a bad command stops the bot before it takes
/// any challenge) and, with `--ranks auto`, to learn its ranks from its name.
fn check_engine(mut spec: EngineSpec, auto_ranks: bool) -> Result<EngineSpec, Fail> {
    let stop = Arc::new(AtomicBool::new(false));
    let mut e = EngineProc::start(Arc::new(spec.clone()), None, false, "check", stop)
        .map_err(|f| Fail::input(format!("--engine: the engine {f}")))?;
    e.init()
        .map_err(|f| Fail::input(format!("--engine: the engine {f}")))?;
    let name = e.id_name.clone().unwrap_or_default();
    e.quit();
    if auto_ranks && name.to_ascii_lowercase().starts_with("fairy-stockfish") {
        spec.ranks1 = true;
        spec.variant = Some("xiangqi".into());
    }
    if !name.is_empty() {
        spec.name = name;
    }
    Ok(spec)
}

/// The account (`GET /api/account`): its id and name, and whether it is a bot.
fn account(api: &Api) -> Result<(Me, bool), Fail> {
    let v = api
        .get("/api/account")
        .map_err(|e| Fail(format!("GET /api/account: {e}"), 1))?;
    let name = v
        .get("username")
        .or_else(|| v.get("name"))
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let id = v
        .get("id")
        .and_then(Value::as_str)
        .map(str::to_string)
        .unwrap_or_else(|| name.to_lowercase());
    let bot = v.get("title").and_then(Value::as_str) == Some("BOT")
        || v.get("bot").and_then(Value::as_bool) == Some(true);
    Ok((Me { id, name }, bot))
}

/// The games going on and the challenges accepted whose game has not started yet.
#[derive(Default)]
struct Busy {
    games: HashSet<String>,
    accepted: HashMap<String, Instant>,
}

impl Busy {
    fn count(&mut self) -> usize {
        self.accepted
            .retain(|_, at| at.elapsed() < Duration::from_secs(30));
        let pending = self
            .accepted
            .keys()
            .filter(|k| !self.games.contains(*k))
            .count();
        self.games.len() + pending
    }
}

pub fn cmd_bot(a: &BotArgs) -> Result<(), Fail> {
    let token = read_token(&a.token)?;
    let api = Arc::new(Api::new(&a.server, &token).map_err(Fail::input)?);
    if let Some(d) = &a.log_dir {
        std::fs::create_dir_all(d)
            .map_err(|e| Fail::input(format!("--log-dir: cannot make {}: {e}", d.display())))?;
    }
    let spec = check_engine(engine_spec(a)?, a.ranks == "auto")?;
    log(&format!(
        "engine {} ({}{})",
        spec.name,
        a.engine,
        if spec.ranks1 { ", ranks 1-10" } else { "" }
    ));
    let spec = Arc::new(spec);

    let (me, is_bot) = account(&api)?;
    if !is_bot {
        if a.upgrade {
            api.post("/api/bot/account/upgrade", &[])
                .map_err(|e| Fail(format!("upgrading {} to a bot account: {e}", me.name), 1))?;
            log(&format!("the account {} is now a bot account", me.name));
        } else {
            return Err(Fail(
                format!(
                    "the account {} is not a bot account: run once with --upgrade (it must have played no game)",
                    me.name
                ),
                1,
            ));
        }
    }
    log(&format!("playing as {} on {}", me.name, api.base()));

    let policy = Policy {
        speeds: a.accept_tc.0.clone(),
        min_initial: a.min_initial,
        max_initial: a.max_initial,
        min_increment: a.min_increment,
        max_increment: a.max_increment,
        rated: !a.casual,
        casual: !a.rated,
        opponents: if a.no_bots {
            Opponents::NoBots
        } else if a.only_bots {
            Opponents::OnlyBots
        } else {
            Opponents::Everyone
        },
        max_games: a.max_games as usize,
    };
    let settings = Arc::new(Settings {
        move_overhead_ms: a.move_overhead,
        corr_movetime_ms: a.corr_movetime,
        resign: a.resign_score.map(|s| (s, a.resign_moves)),
        draw: a.draw_score.map(|s| (s, a.draw_moves, a.draw_pieces)),
        log_dir: a.log_dir.clone(),
    });
    let busy = Arc::new(Mutex::new(Busy::default()));
    let mut backoff = Backoff::default();
    loop {
        match api.stream("/api/stream/event") {
            Ok(mut lines) => {
                backoff.reset();
                log("event stream open");
                loop {
                    match lines.next_line() {
                        Ok(Some(l)) if l.is_empty() => {}
                        Ok(Some(l)) => match serde_json::from_str::<Value>(&l) {
                            Ok(v) => on_event(&v, &api, &me, &policy, &spec, &settings, &busy),
                            Err(e) => log(&format!("event stream: a line that is not JSON ({e})")),
                        },
                        Ok(None) => {
                            log("event stream ended; reconnecting");
                            break;
                        }
                        Err(e) => {
                            log(&format!("event stream broke ({e}); reconnecting"));
                            break;
                        }
                    }
                }
            }
            Err(HttpError::Status(s @ (401 | 403), m)) => {
                return Err(Fail(format!("the event stream was refused: {s} {m}"), 1));
            }
            Err(e) => log(&format!("event stream: {e}; reconnecting")),
        }
        std::thread::sleep(backoff.next());
    }
}

/// One event of the event stream.
fn on_event(
    v: &Value,
    api: &Arc<Api>,
    me: &Me,
    policy: &Policy,
    spec: &Arc<EngineSpec>,
    settings: &Arc<Settings>,
    busy: &Arc<Mutex<Busy>>,
) {
    let kind = v.get("type").and_then(Value::as_str).unwrap_or("");
    match kind {
        "challenge" => {
            let c = match Challenge::from_json(v.get("challenge").unwrap_or(&Value::Null)) {
                Ok(c) => c,
                Err(e) => {
                    log(&format!("a challenge that cannot be read: {e}"));
                    return;
                }
            };
            if c.challenger_id.eq_ignore_ascii_case(&me.id) {
                return; // the bot's own challenge, as the challenged side sees it
            }
            let verdict = {
                let mut b = busy.lock().unwrap_or_else(|p| p.into_inner());
                let n = b.count();
                let v = policy.decide(&c, n);
                if v.is_ok() {
                    b.accepted.insert(c.id.clone(), Instant::now());
                }
                v
            };
            match verdict {
                Ok(()) => match api.post(&format!("/api/challenge/{}/accept", c.id), &[]) {
                    Ok(_) => log(&format!("accepted challenge {} ({})", c.id, c.describe())),
                    Err(e) => {
                        busy.lock()
                            .unwrap_or_else(|p| p.into_inner())
                            .accepted
                            .remove(&c.id);
                        log(&format!("could not accept challenge {}: {e}", c.id))
                    }
                },
                Err(reason) => {
                    match api.post(
                        &format!("/api/challenge/{}/decline", c.id),
                        &[("reason", reason)],
                    ) {
                        Ok(_) => log(&format!(
                            "declined challenge {} ({}): {reason}",
                            c.id,
                            c.describe()
                        )),
                        Err(e) => log(&format!("could not decline challenge {}: {e}", c.id)),
                    }
                }
            }
        }
        "gameStart" => {
            let g = v.get("game").unwrap_or(&Value::Null);
            let Some(id) = g
                .get("gameId")
                .or_else(|| g.get("id"))
                .and_then(Value::as_str)
                .map(str::to_string)
            else {
                log("a gameStart without a game id");
                return;
            };
            {
                let mut b = busy.lock().unwrap_or_else(|p| p.into_inner());
                if !b.games.insert(id.clone()) {
                    return; // already playing it (the stream repeats games on reconnecting)
                }
                b.accepted.remove(&id);
            }
            let ctx = GameCtx {
                api: api.clone(),
                id: id.clone(),
                me: me.clone(),
                color_hint: g.get("color").and_then(Value::as_str).and_then(color_of),
                spec: spec.clone(),
                settings: settings.clone(),
            };
            let busy = busy.clone();
            std::thread::spawn(move || {
                game::play(ctx);
                busy.lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .games
                    .remove(&id);
            });
        }
        "gameFinish" => {
            let id = v
                .get("game")
                .and_then(|g| g.get("gameId").or_else(|| g.get("id")))
                .and_then(Value::as_str)
                .unwrap_or("?");
            log(&format!("[{id}] finished (event stream)"));
        }
        "challengeCanceled" | "challengeDeclined" => {
            let id = v
                .get("challenge")
                .and_then(|c| c.get("id"))
                .and_then(Value::as_str)
                .unwrap_or("?");
            busy.lock()
                .unwrap_or_else(|p| p.into_inner())
                .accepted
                .remove(id);
            log(&format!("challenge {id}: {kind}"));
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn busy_counts_games_and_accepted_challenges_once() {
        let mut b = Busy::default();
        assert_eq!(b.count(), 0);
        b.accepted.insert("a".into(), Instant::now());
        assert_eq!(b.count(), 1);
        b.games.insert("a".into());
        assert_eq!(b.count(), 1);
        b.games.insert("b".into());
        assert_eq!(b.count(), 2);
        b.accepted
            .insert("old".into(), Instant::now() - Duration::from_secs(31));
        assert_eq!(b.count(), 2);
    }

    #[test]
    fn tokens_from_the_line_or_a_file() {
        assert_eq!(read_token(" xqt_1 ").unwrap(), "xqt_1");
        assert!(read_token("").is_err());
        assert!(read_token("a b").is_err());
        let p = std::env::temp_dir().join(format!("xq-bot-token-{}", std::process::id()));
        std::fs::write(&p, "xqt_abc\nmore\n").unwrap();
        assert_eq!(read_token(&format!("@{}", p.display())).unwrap(), "xqt_abc");
        std::fs::remove_file(&p).unwrap();
        let e = read_token("@/nonexistent/token").unwrap_err();
        assert!(e.0.contains("cannot read /nonexistent/token"), "{}", e.0);
    }
}
