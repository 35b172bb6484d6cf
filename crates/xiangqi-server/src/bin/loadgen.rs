//! A bounded load generator for the server, on loopback only. Three modes:
//!
//! `xiangqi-loadgen --url http://127.0.0.1:PORT [--connections 64] [--seconds 10]
//! [--requests 200000]` loads the move endpoint of stored games (`POST /api/games/{id}/moves`);
//!
//! `xiangqi-loadgen online --url http://127.0.0.1:PORT --games N --rate MOVES_PER_S
//! --seconds S ...` plays live games between people through the board API, with both
//! players' game streams open (see `online.rs`);
//!
//! `xiangqi-loadgen explorer --url http://127.0.0.1:PORT --games FILE --rate R --seconds S`
//! asks the opening explorer's API for positions of the games at a fixed rate, open loop
//! (see `explorer.rs`).
//!
//! In the first mode each connection (one keep-alive HTTP/1.1 connection) creates a two-player game and plays
//! random legal moves in it, one request at a time, taking the next move from the legal
//! moves the server answered; a finished game (or one 200 plies long) is replaced by a new
//! one. Only move requests are timed. It stops after the request budget or the time budget,
//! whichever comes first, and prints requests per second and latency percentiles.

#![forbid(unsafe_code)]

use std::net::{IpAddr, SocketAddr, ToSocketAddrs};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;
use xiangqi_server::client::{Conn, Request};

#[path = "loadgen/explorer.rs"]
mod explorer;
#[path = "loadgen/online.rs"]
mod online;

struct Args {
    addr: SocketAddr,
    host: String,
    connections: usize,
    seconds: u64,
    requests: u64,
}

fn parse_args() -> Result<Args, String> {
    let mut url = None;
    let mut connections = 64usize;
    let mut seconds = 10u64;
    let mut requests = 200_000u64;
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    while i < args.len() {
        let v = args.get(i + 1).cloned();
        let need = |v: Option<String>| v.ok_or_else(|| format!("{} needs a value", args[i]));
        match args[i].as_str() {
            "--url" => url = Some(need(v)?),
            "--connections" => {
                connections = need(v)?
                    .parse()
                    .map_err(|_| "--connections: not a number")?
            }
            "--seconds" => seconds = need(v)?.parse().map_err(|_| "--seconds: not a number")?,
            "--requests" => requests = need(v)?.parse().map_err(|_| "--requests: not a number")?,
            "-h" | "--help" => {
                return Err(
                    "usage: xiangqi-loadgen --url http://127.0.0.1:PORT [--connections N] \
                            [--seconds S] [--requests N]"
                        .into(),
                )
            }
            a => return Err(format!("unknown argument '{a}'")),
        }
        i += 2;
    }
    let url = url.ok_or("--url is needed (http://127.0.0.1:PORT)")?;
    let (addr, hostport) = loopback(&url)?;
    if connections == 0 || connections > 1024 {
        return Err("--connections must be from 1 to 1024".into());
    }
    if seconds == 0 || seconds > 600 {
        return Err("--seconds must be from 1 to 600".into());
    }
    if requests == 0 || requests > 10_000_000 {
        return Err("--requests must be from 1 to 10000000".into());
    }
    Ok(Args {
        addr,
        host: hostport,
        connections,
        seconds,
        requests,
    })
}

/// The address of an `http://` URL, which must be on loopback, and its `host:port`.
fn loopback(url: &str) -> Result<(SocketAddr, String), String> {
    let rest = url
        .strip_prefix("http://")
        .ok_or("only http:// URLs on loopback")?;
    let hostport = rest.split('/').next().unwrap_or(rest).to_string();
    let addr = hostport
        .to_socket_addrs()
        .map_err(|e| format!("cannot resolve {hostport}: {e}"))?
        .next()
        .ok_or_else(|| format!("cannot resolve {hostport}"))?;
    let is_loopback = match addr.ip() {
        IpAddr::V4(a) => a.is_loopback(),
        IpAddr::V6(a) => a.is_loopback(),
    };
    if !is_loopback {
        return Err(format!(
            "{addr} is not a loopback address: this tool only loads loopback"
        ));
    }
    Ok((addr, hostport))
}

/// One request on a keep-alive connection (the shared client, `xiangqi_server::client`): its
/// status and JSON answer.
async fn ask(
    c: &mut Conn,
    method: &str,
    path: &str,
    bearer: Option<&str>,
    body: &str,
) -> Result<(u16, Value), String> {
    let req = Request::new(method, path)
        .bearer(bearer)
        .body("application/json", body);
    let res = c.send(&req).await?;
    Ok((res.status, res.json()?))
}

struct Totals {
    issued: AtomicU64,
    errors: AtomicU64,
}

async fn worker(
    args: Arc<Args>,
    totals: Arc<Totals>,
    deadline: Instant,
    seed: u64,
) -> Result<Vec<u32>, String> {
    let mut c = Conn::connect(args.addr).await?.with_host(&args.host);
    let mut lat = Vec::new();
    let mut rng = seed | 1;
    let mut game: Option<(i64, Vec<String>, usize)> = None;
    loop {
        if Instant::now() >= deadline {
            break;
        }
        let (id, legal, ply) = match game.take() {
            Some(g) if !g.1.is_empty() && g.2 < 200 => g,
            _ => {
                let (s, v) = ask(
                    &mut c,
                    "POST",
                    "/api/games",
                    None,
                    "{\"mode\":\"two-player\"}",
                )
                .await?;
                if s != 201 {
                    return Err(format!("creating a game: {s} {v}"));
                }
                (v["id"].as_i64().unwrap_or(0), legal_of(&v), 0)
            }
        };
        if totals.issued.fetch_add(1, Ordering::SeqCst) >= args.requests {
            break;
        }
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        let mv = &legal[(rng % legal.len() as u64) as usize];
        let body = format!("{{\"move\":\"{mv}\",\"ply\":{ply}}}");
        let t = Instant::now();
        let (s, v) = ask(
            &mut c,
            "POST",
            &format!("/api/games/{id}/moves"),
            None,
            &body,
        )
        .await?;
        lat.push(t.elapsed().as_micros().min(u32::MAX as u128) as u32);
        if s != 200 {
            totals.errors.fetch_add(1, Ordering::SeqCst);
            continue;
        }
        game = Some((id, legal_of(&v), ply + 1));
    }
    Ok(lat)
}

fn legal_of(v: &Value) -> Vec<String> {
    v["legal"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|m| m.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

fn main() {
    if std::env::args().nth(1).as_deref() == Some("online") {
        online::main();
        return;
    }
    if std::env::args().nth(1).as_deref() == Some("explorer") {
        explorer::main();
        return;
    }
    let args = match parse_args() {
        Ok(a) => Arc::new(a),
        Err(e) => {
            eprintln!("xiangqi-loadgen: {e}");
            std::process::exit(2);
        }
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("runtime");
    let totals = Arc::new(Totals {
        issued: AtomicU64::new(0),
        errors: AtomicU64::new(0),
    });
    let start = Instant::now();
    let deadline = start + Duration::from_secs(args.seconds);
    let results = rt.block_on(async {
        let mut tasks = Vec::new();
        for k in 0..args.connections {
            tasks.push(tokio::spawn(worker(
                args.clone(),
                totals.clone(),
                deadline,
                0x9e37_79b9_7f4a_7c15 ^ (k as u64 + 1).wrapping_mul(0x2545_f491_4f6c_dd1d),
            )));
        }
        let mut all = Vec::new();
        for t in tasks {
            match t.await {
                Ok(Ok(l)) => all.extend(l),
                Ok(Err(e)) => eprintln!("xiangqi-loadgen: a connection failed: {e}"),
                Err(e) => eprintln!("xiangqi-loadgen: a task failed: {e}"),
            }
        }
        all
    });
    let secs = start.elapsed().as_secs_f64();
    let mut lat = results;
    lat.sort_unstable();
    let pct = |p: f64| -> f64 {
        if lat.is_empty() {
            return 0.0;
        }
        let i = ((lat.len() as f64 * p).ceil() as usize).clamp(1, lat.len()) - 1;
        lat[i] as f64 / 1000.0
    };
    println!(
        "moves: {} in {:.2} s = {:.0} moves/s over {} connections; errors {}",
        lat.len(),
        secs,
        lat.len() as f64 / secs,
        args.connections,
        totals.errors.load(Ordering::SeqCst)
    );
    println!(
        "latency ms: p50 {:.2}  p90 {:.2}  p99 {:.2}  p99.9 {:.2}  max {:.2}",
        pct(0.50),
        pct(0.90),
        pct(0.99),
        pct(0.999),
        pct(1.0)
    );
}
