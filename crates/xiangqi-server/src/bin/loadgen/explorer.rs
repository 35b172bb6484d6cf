//! `xiangqi-loadgen explorer --url http://127.0.0.1:PORT --games FILE [--rate 500]
//! [--seconds 30] [--connections 32] [--positions 20000] [--db masters] [--seed N]`: the
//! opening explorer's API (`GET /api/explorer/{db}?play=...`) at a fixed rate, open loop.
//!
//! The positions are drawn from the games of a record file (the ones the index was built
//! from): a game and a ply up to 50 at random, asked as the game's moves up to there
//! (`play=h2e2,h9g7,...`). Request `i` is due at `i / rate` seconds from the start, whatever
//! the answers before it did (open loop: a slow answer does not slow the load down); the
//! requests are dealt round-robin to keep-alive connections, and each latency is counted from
//! the request's due time to its answer, so waiting behind a slow answer counts too. It stops
//! after `rate x seconds` requests and prints the rate reached and the latency percentiles.

use std::sync::Arc;
use std::time::{Duration, Instant};

use xiangqi_record::detect::read_any;
use xiangqi_server::client::{Conn, Request};

use crate::loopback;

struct Args {
    url: String,
    games: String,
    rate: f64,
    seconds: u64,
    connections: usize,
    positions: usize,
    db: String,
    seed: u64,
}

const USAGE: &str = "usage: xiangqi-loadgen explorer --url http://127.0.0.1:PORT --games FILE \
[--rate REQUESTS_PER_S] [--seconds S] [--connections N] [--positions N] [--db masters|site] [--seed N]";

fn parse(args: &[String]) -> Result<Args, String> {
    let mut a = Args {
        url: String::new(),
        games: String::new(),
        rate: 500.0,
        seconds: 30,
        connections: 32,
        positions: 20_000,
        db: "masters".into(),
        seed: 1,
    };
    let mut i = 0;
    while i < args.len() {
        let flag = args[i].as_str();
        if flag == "-h" || flag == "--help" {
            return Err(USAGE.into());
        }
        let v = args
            .get(i + 1)
            .ok_or_else(|| format!("{flag} needs a value\n{USAGE}"))?;
        let num = || -> Result<u64, String> {
            v.parse()
                .map_err(|_| format!("{flag}: '{v}' is not a whole number"))
        };
        match flag {
            "--url" => a.url = v.clone(),
            "--games" => a.games = v.clone(),
            "--rate" => a.rate = num()? as f64,
            "--seconds" => a.seconds = num()?,
            "--connections" => a.connections = num()? as usize,
            "--positions" => a.positions = num()? as usize,
            "--db" => a.db = v.clone(),
            "--seed" => a.seed = num()?,
            _ => return Err(format!("unknown argument '{flag}'\n{USAGE}")),
        }
        i += 2;
    }
    if a.url.is_empty() || a.games.is_empty() {
        return Err(format!("--url and --games are needed\n{USAGE}"));
    }
    if !(1.0..=20_000.0).contains(&a.rate) {
        return Err("--rate must be from 1 to 20000 requests/s".into());
    }
    if a.seconds == 0 || a.seconds > 600 {
        return Err("--seconds must be from 1 to 600".into());
    }
    if a.connections == 0 || a.connections > 1024 {
        return Err("--connections must be from 1 to 1024".into());
    }
    if a.positions == 0 || a.positions > 1_000_000 {
        return Err("--positions must be from 1 to 1000000".into());
    }
    if a.db != "masters" && a.db != "site" {
        return Err("--db must be masters or site".into());
    }
    Ok(a)
}

fn next(x: &mut u64) -> u64 {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    *x
}

/// `play` parameters of positions drawn from the games of `file`.
fn positions(file: &str, n: usize, seed: u64) -> Result<Vec<String>, String> {
    let bytes = std::fs::read(file).map_err(|e| format!("--games {file}: {e}"))?;
    let all = read_any(&bytes).map_err(|e| format!("--games {file}: {e}"))?;
    let lines: Vec<Vec<String>> = all
        .games
        .iter()
        .filter_map(|g| g.as_ref().ok())
        .map(|g| g.mainline().take(50).map(|m| m.to_string()).collect())
        .collect();
    if lines.is_empty() {
        return Err(format!("--games {file}: no readable game"));
    }
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    Ok((0..n)
        .map(|_| {
            let g = &lines[(next(&mut x) % lines.len() as u64) as usize];
            let ply = (next(&mut x) % (g.len() as u64 + 1)) as usize;
            g[..ply].join(",")
        })
        .collect())
}

pub fn main() {
    let args: Vec<String> = std::env::args().skip(2).collect();
    let a = match parse(&args) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("xiangqi-loadgen explorer: {e}");
            std::process::exit(2);
        }
    };
    if let Err(e) = run(a) {
        eprintln!("xiangqi-loadgen explorer: {e}");
        std::process::exit(1);
    }
}

fn run(a: Args) -> Result<(), String> {
    let (addr, host) = loopback(&a.url)?;
    let plays = Arc::new(positions(&a.games, a.positions, a.seed)?);
    let total = (a.rate * a.seconds as f64) as u64;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let db = a.db.clone();
    let (conns, rate) = (a.connections as u64, a.rate);
    let start = Instant::now() + Duration::from_millis(200);
    let results = rt.block_on(async move {
        let mut tasks = Vec::new();
        for k in 0..conns {
            let (plays, db, host) = (plays.clone(), db.clone(), host.clone());
            tasks.push(tokio::spawn(async move {
                let mut c = Conn::connect(addr).await?.with_host(&host);
                let (mut lat, mut errors) = (Vec::new(), 0u64);
                let mut i = k;
                while i < total {
                    let due = start + Duration::from_secs_f64(i as f64 / rate);
                    tokio::time::sleep_until(due.into()).await;
                    let play = &plays[(i % plays.len() as u64) as usize];
                    let path = format!("/api/explorer/{db}?play={play}&topGames=0");
                    let res = c.send(&Request::get(&path)).await?;
                    lat.push(due.elapsed().as_micros().min(u128::from(u32::MAX)) as u32);
                    if res.status != 200 {
                        errors += 1;
                    }
                    i += conns;
                }
                Ok::<_, String>((lat, errors))
            }));
        }
        let (mut all, mut errors) = (Vec::new(), 0u64);
        for t in tasks {
            match t.await {
                Ok(Ok((l, e))) => {
                    all.extend(l);
                    errors += e;
                }
                Ok(Err(e)) => eprintln!("xiangqi-loadgen explorer: a connection failed: {e}"),
                Err(e) => eprintln!("xiangqi-loadgen explorer: a task failed: {e}"),
            }
        }
        (all, errors)
    });
    let secs = start.elapsed().as_secs_f64();
    let (mut lat, errors) = results;
    lat.sort_unstable();
    let pct = |p: f64| -> f64 {
        if lat.is_empty() {
            return 0.0;
        }
        let i = ((lat.len() as f64 * p).ceil() as usize).clamp(1, lat.len()) - 1;
        f64::from(lat[i]) / 1000.0
    };
    println!(
        "explorer: {} requests in {secs:.2} s = {:.0} requests/s (asked {rate:.0}/s, open loop) over {conns} connections; errors {errors}",
        lat.len(),
        lat.len() as f64 / secs,
    );
    println!(
        "latency ms: p50 {:.2}  p90 {:.2}  p99 {:.2}  p99.9 {:.2}  max {:.2}",
        pct(0.50),
        pct(0.90),
        pct(0.99),
        pct(0.999),
        pct(1.0)
    );
    if errors > 0 || lat.len() as u64 != total {
        return Err(format!(
            "{errors} answers were not 200, {} of {total} requests answered",
            lat.len()
        ));
    }
    Ok(())
}
