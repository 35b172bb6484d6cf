//! `online --bots`: the same games played by bot accounts through lichess's Bot API.
//!
//! Before the games, 2N accounts are registered (`POST /api/account/register`), each given a
//! personal API token (`POST /api/account/tokens`) and upgraded to a bot
//! (`POST /api/bot/account/upgrade`); each bot opens its event stream (`GET
//! /api/stream/event`), as lichess-bot does, and keeps it open for the whole run. Game `i` is
//! played by bots `2i` (Red) and `2i + 1` (Black): Red challenges Black (`POST
//! /api/challenge/{name}`, 10+0 casual, Red's side) and Black accepts (`POST
//! /api/challenge/{id}/accept`); the game's id is the challenge's. The moves and streams are
//! then the bot endpoints' (`/api/bot/game/stream/{id}`, `/api/bot/game/{id}/move/{uci}`,
//! `/resign`), with the bots' tokens. The event streams' `gameStart` and `gameFinish` lines are
//! counted and checked against the games started and resigned.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tokio::sync::Semaphore;
use xiangqi_server::client::{Conn, Request};

use super::{Created, Ctx};

/// The challenge every game starts from: 10 minutes, no increment, casual, the challenger Red.
const CHALLENGE: &str = r#"{"clock":{"limit":600,"increment":0},"color":"red","rated":false}"#;
/// At most this many accounts are being registered at once (each costs a password hash).
const REGISTERING_AT_ONCE: usize = 8;

/// A bot account: its name and personal API token.
pub struct Bot {
    pub name: String,
    pub token: Arc<str>,
}

/// What the bots' event streams showed.
#[derive(Default)]
pub struct Events {
    pub open: AtomicUsize,
    pub lines: AtomicU64,
    pub game_start: AtomicU64,
    pub game_finish: AtomicU64,
    pub ended: AtomicU64,
    pub unreadable: AtomicU64,
}

/// One request on a fresh connection, with a session cookie and CSRF token when given; the
/// status, the JSON answer and the response's `set-cookie`.
async fn once(
    addr: SocketAddr,
    host: &str,
    req: Request,
) -> Result<(u16, Value, Option<String>), String> {
    let mut c = Conn::connect(addr).await?.with_host(host);
    let res = c.send(&req).await?;
    let cookie = res.header("set-cookie").map(str::to_owned);
    Ok((res.status, res.json()?, cookie))
}

/// Registers bot `i` of this run (`tag` keeps the names of runs on one data folder apart),
/// gives it a token and upgrades it.
async fn make_one(addr: SocketAddr, host: &str, tag: &str, i: usize) -> Result<Bot, String> {
    let name = format!("lg{tag}b{i}");
    let body = json!({"username": name, "password": "load generator"}).to_string();
    let (st, v, cookie) = once(
        addr,
        host,
        Request::post("/api/account/register").body("application/json", body),
    )
    .await?;
    if st != 200 {
        return Err(format!("registering {name}: {st} {v}"));
    }
    let session = cookie
        .as_deref()
        .and_then(|c| c.split(';').next())
        .ok_or_else(|| format!("registering {name}: no session cookie"))?
        .to_owned();
    let csrf = v["csrf"]
        .as_str()
        .ok_or_else(|| format!("registering {name}: no csrf in {v}"))?
        .to_owned();
    let (st, v, _) = once(
        addr,
        host,
        Request::post("/api/account/tokens")
            .header("cookie", &session)
            .header("x-csrf-token", &csrf)
            .body("application/json", r#"{"label":"loadgen"}"#),
    )
    .await?;
    let token: Arc<str> = match (st, v["token"].as_str()) {
        (200, Some(t)) => t.into(),
        _ => return Err(format!("a token for {name}: {st} {v}")),
    };
    let (st, v, _) = once(
        addr,
        host,
        Request::post("/api/bot/account/upgrade").bearer(Some(&token)),
    )
    .await?;
    if st != 200 {
        return Err(format!("upgrading {name}: {st} {v}"));
    }
    Ok(Bot { name, token })
}

/// Makes `n` bot accounts on the first node.
pub async fn make(nodes: &[(SocketAddr, String)], n: usize, seed: u64) -> Result<Vec<Bot>, String> {
    let (addr, host) = nodes[0].clone();
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let tag = format!("{:x}", (secs ^ seed.rotate_left(32)) & 0xff_ffff);
    let gate = Arc::new(Semaphore::new(REGISTERING_AT_ONCE));
    let mut pending = Vec::with_capacity(n);
    for i in 0..n {
        let (host, tag, gate) = (host.clone(), tag.clone(), gate.clone());
        pending.push(tokio::spawn(async move {
            let _permit = gate.acquire().await.map_err(|e| e.to_string())?;
            make_one(addr, &host, &tag, i).await
        }));
    }
    let mut bots = Vec::with_capacity(n);
    for p in pending {
        bots.push(p.await.map_err(|e| e.to_string())??);
    }
    Ok(bots)
}

/// Opens every bot's event stream (Red's bots on the first node, Black's on the second, with
/// several) and keeps reading them in the background; returns once all are open.
pub async fn open_events(
    nodes: &[(SocketAddr, String)],
    bots: &[Bot],
    events: &Arc<Events>,
    limit: Duration,
) -> Result<(), String> {
    let t = Instant::now();
    for (i, b) in bots.iter().enumerate() {
        let (addr, host) = &nodes[(i % 2) % nodes.len()];
        let req = Request::get("/api/stream/event").bearer(Some(&b.token));
        let mut s = Conn::connect(*addr)
            .await?
            .with_host(host)
            .stream(&req)
            .await?;
        if s.status() != 200 {
            return Err(format!("{}'s event stream: status {}", b.name, s.status()));
        }
        events.open.fetch_add(1, Ordering::SeqCst);
        let ev = events.clone();
        tokio::spawn(async move {
            while let Ok(Some(line)) = s.next_line().await {
                if line.trim().is_empty() {
                    continue;
                }
                ev.lines.fetch_add(1, Ordering::Relaxed);
                match serde_json::from_str::<Value>(&line) {
                    Ok(v) => match v["type"].as_str() {
                        Some("gameStart") => ev.game_start.fetch_add(1, Ordering::SeqCst),
                        Some("gameFinish") => ev.game_finish.fetch_add(1, Ordering::SeqCst),
                        _ => 0,
                    },
                    Err(_) => ev.unreadable.fetch_add(1, Ordering::Relaxed),
                };
            }
            ev.ended.fetch_add(1, Ordering::SeqCst);
        });
        if t.elapsed() > limit {
            return Err(format!("opened {i} event streams in {limit:?}"));
        }
    }
    Ok(())
}

/// Game `idx`'s bots start a game: Red challenges, Black accepts.
pub async fn challenge(ctx: &Ctx, idx: usize) -> Result<Created, String> {
    let (red, black) = (&ctx.bots[2 * idx], &ctx.bots[2 * idx + 1]);
    let (st, c) = ctx
        .ask(
            format!("/api/challenge/{}", black.name),
            Some(red.token.clone()),
            CHALLENGE,
        )
        .await
        .map_err(|e| format!("{} challenging {}: {e}", red.name, black.name))?;
    let id = match (st, c["id"].as_str()) {
        (200, Some(id)) => id.to_owned(),
        _ => return Err(format!("{} challenging {}: {st} {c}", red.name, black.name)),
    };
    let (st, v) = ctx
        .ask(
            format!("/api/challenge/{id}/accept"),
            Some(black.token.clone()),
            "",
        )
        .await
        .map_err(|e| format!("{} accepting {id}: {e}", black.name))?;
    if st != 200 {
        return Err(format!("{} accepting {id}: {st} {v}", black.name));
    }
    Ok(Created {
        id,
        tokens: [red.token.clone(), black.token.clone()],
    })
}
