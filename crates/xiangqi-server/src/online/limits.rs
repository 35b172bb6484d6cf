//! Per-client limits on the online endpoints, by the client's IP address: how often it may
//! create games and seeks, how fast it may send moves, and how many streams it may hold
//! open. A client over a limit gets `429` with a JSON error saying which limit and when to
//! try again (`Retry-After`). `xiangqi serve --no-rate-limits` turns them off (benchmarks on
//! loopback).
//!
//! Behind a reverse proxy every client has the proxy's address; such a setup needs the
//! proxy's own limits (a later issue adds trusted forwarding headers).

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Instant;

use axum::body::Body;
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::Json;

/// A token bucket: `burst` tokens, refilled at `per_second`.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Rate {
    pub burst: f64,
    pub per_second: f64,
}

/// The limits per client.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Limits {
    /// Creating games and seeks (`/api/challenge/open`, `/api/board/seek`).
    pub create: Rate,
    /// Board actions (moves, offers, resign ...).
    pub act: Rate,
    /// Streams open at once (game streams, the lobby, seeks).
    pub streams: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            // 20 at once, then one every 3 s (20 a minute).
            create: Rate {
                burst: 20.0,
                per_second: 1.0 / 3.0,
            },
            // 40 at once, then 10 a second: far above what people play, and a bot too.
            act: Rate {
                burst: 40.0,
                per_second: 10.0,
            },
            streams: 64,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Kind {
    Create,
    Act,
}

#[derive(Debug)]
struct Bucket {
    tokens: f64,
    at: Instant,
}

/// The limits' state: buckets and open-stream counts per client.
#[derive(Debug)]
pub struct RateLimits {
    limits: Limits,
    buckets: Mutex<HashMap<(IpAddr, Kind), Bucket>>,
    streams: Arc<Mutex<HashMap<IpAddr, usize>>>,
}

/// The most clients remembered; beyond it, full buckets (idle clients) are forgotten.
const MAX_CLIENTS: usize = 100_000;

impl RateLimits {
    pub fn new(limits: Limits) -> Arc<RateLimits> {
        Arc::new(RateLimits {
            limits,
            buckets: Mutex::new(HashMap::new()),
            streams: Arc::new(Mutex::new(HashMap::new())),
        })
    }

    /// Takes a token for `kind`; `Err(seconds to wait)` when there is none.
    fn take(&self, ip: IpAddr, kind: Kind, now: Instant) -> Result<(), u64> {
        let rate = match kind {
            Kind::Create => self.limits.create,
            Kind::Act => self.limits.act,
        };
        let mut b = self.buckets.lock().unwrap_or_else(|p| p.into_inner());
        if b.len() >= MAX_CLIENTS {
            b.retain(|(_, k), v| {
                let r = match k {
                    Kind::Create => self.limits.create,
                    Kind::Act => self.limits.act,
                };
                v.tokens + now.duration_since(v.at).as_secs_f64() * r.per_second < r.burst
            });
        }
        let e = b.entry((ip, kind)).or_insert(Bucket {
            tokens: rate.burst,
            at: now,
        });
        e.tokens =
            (e.tokens + now.duration_since(e.at).as_secs_f64() * rate.per_second).min(rate.burst);
        e.at = now;
        if e.tokens >= 1.0 {
            e.tokens -= 1.0;
            Ok(())
        } else {
            Err(((1.0 - e.tokens) / rate.per_second).ceil() as u64)
        }
    }

    /// Counts a stream of `ip` in; `None` when it already has the most.
    fn open_stream(&self, ip: IpAddr) -> Option<StreamSlot> {
        let mut s = self.streams.lock().unwrap_or_else(|p| p.into_inner());
        let n = s.entry(ip).or_insert(0);
        if *n >= self.limits.streams {
            return None;
        }
        *n += 1;
        Some(StreamSlot {
            ip,
            streams: self.streams.clone(),
        })
    }
}

/// One open stream, counted out when its body is dropped (the client went away).
struct StreamSlot {
    ip: IpAddr,
    streams: Arc<Mutex<HashMap<IpAddr, usize>>>,
}

impl Drop for StreamSlot {
    fn drop(&mut self) {
        let mut s = self.streams.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(n) = s.get_mut(&self.ip) {
            *n -= 1;
            if *n == 0 {
                s.remove(&self.ip);
            }
        }
    }
}

/// A response body that holds a stream slot while it is sent.
struct Counted {
    inner: Body,
    _slot: StreamSlot,
}

impl http_body::Body for Counted {
    type Data = axum::body::Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        std::pin::Pin::new(&mut self.inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}

fn too_many(what: &str, retry: Option<u64>) -> Response {
    let mut msg = format!("too many {what} from your address");
    if let Some(s) = retry {
        msg.push_str(&format!("; try again in {s} s"));
    }
    let mut res = (
        StatusCode::TOO_MANY_REQUESTS,
        Json(serde_json::json!({ "error": msg })),
    )
        .into_response();
    if let Some(s) = retry {
        if let Ok(v) = HeaderValue::from_str(&s.to_string()) {
            res.headers_mut().insert(header::RETRY_AFTER, v);
        }
    }
    res
}

/// Which limit a request falls under.
fn classify(method: &Method, path: &str) -> Option<Result<Kind, ()>> {
    let post = method == Method::POST;
    if post && (path == "/api/challenge/open" || path == "/api/board/seek") {
        return Some(Ok(Kind::Create));
    }
    if post && (path.starts_with("/api/board/seek/") || path.starts_with("/api/challenge/")) {
        return Some(Ok(Kind::Create));
    }
    if post && (path.starts_with("/api/board/game/") || path.starts_with("/api/bot/game/")) {
        return Some(Ok(Kind::Act));
    }
    if method == Method::GET
        && (path.starts_with("/api/board/game/stream/")
            || path.starts_with("/api/bot/game/stream/")
            || path == "/api/stream/event"
            || path == "/api/lobby/stream")
    {
        // A stream: counted while open (`Err` marks it).
        return Some(Err(()));
    }
    None
}

/// The middleware: applies the limits to the online endpoints.
pub async fn limit(State(limits): State<Arc<RateLimits>>, req: Request, next: Next) -> Response {
    let ip = req
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|c| c.0.ip());
    let (Some(ip), Some(class)) = (ip, classify(req.method(), req.uri().path())) else {
        return next.run(req).await;
    };
    let seek = req.method() == Method::POST && req.uri().path() == "/api/board/seek";
    if let Ok(kind) = class {
        if let Err(wait) = limits.take(ip, kind, Instant::now()) {
            let what = match kind {
                Kind::Create => "new games and seeks",
                Kind::Act => "moves and actions",
            };
            return too_many(what, Some(wait));
        }
        if !seek {
            return next.run(req).await;
        }
    }
    // Streams (and a seek, which streams until taken) hold a slot while open.
    let Some(slot) = limits.open_stream(ip) else {
        return too_many("open streams", None);
    };
    let res = next.run(req).await;
    let (parts, body) = res.into_parts();
    Response::from_parts(
        parts,
        Body::new(Counted {
            inner: body,
            _slot: slot,
        }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn buckets_refill_at_their_rate() {
        let l = RateLimits::new(Limits {
            create: Rate {
                burst: 2.0,
                per_second: 1.0,
            },
            act: Rate {
                burst: 1.0,
                per_second: 10.0,
            },
            streams: 1,
        });
        let ip: IpAddr = "127.0.0.1".parse().unwrap();
        let other: IpAddr = "127.0.0.2".parse().unwrap();
        let t = Instant::now();
        assert!(l.take(ip, Kind::Create, t).is_ok());
        assert!(l.take(ip, Kind::Create, t).is_ok());
        assert_eq!(l.take(ip, Kind::Create, t), Err(1));
        assert!(l.take(other, Kind::Create, t).is_ok(), "per client");
        assert!(l.take(ip, Kind::Act, t).is_ok(), "per kind");
        assert!(l
            .take(ip, Kind::Create, t + Duration::from_millis(1_000))
            .is_ok());
        let slot = l.open_stream(ip).unwrap();
        assert!(l.open_stream(ip).is_none());
        drop(slot);
        assert!(l.open_stream(ip).is_some());
    }

    #[test]
    fn requests_are_classified() {
        assert_eq!(
            classify(&Method::POST, "/api/challenge/open"),
            Some(Ok(Kind::Create))
        );
        assert_eq!(
            classify(&Method::POST, "/api/board/game/abc/move/h2e2"),
            Some(Ok(Kind::Act))
        );
        assert_eq!(
            classify(&Method::GET, "/api/board/game/stream/abc"),
            Some(Err(()))
        );
        assert_eq!(classify(&Method::GET, "/api/board/game/abc"), None);
        assert_eq!(classify(&Method::POST, "/api/games"), None);
    }
}
