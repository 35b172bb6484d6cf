//! The bot's HTTP: lichess's Bot API over `ureq` (rustls for https), with the account's
//! token, JSON answers, form bodies, and ndjson streams read line by line.

use std::io::{BufRead, BufReader, Read};
use std::time::Duration;

use serde_json::Value;

/// Why a request got no usable answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HttpError {
    /// No answer: the connection failed, broke or timed out. Worth trying again.
    Net(String),
    /// An answer with this status (not 2xx) and the server's message.
    Status(u16, String),
}

impl HttpError {
    /// Whether trying again later may help (a network failure, 429, 5xx).
    pub fn transient(&self) -> bool {
        match self {
            HttpError::Net(_) => true,
            HttpError::Status(s, _) => *s == 429 || *s >= 500,
        }
    }
}

impl std::fmt::Display for HttpError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HttpError::Net(e) => write!(f, "no answer ({e})"),
            HttpError::Status(s, m) => write!(f, "{s} {m}"),
        }
    }
}

/// The longest line a stream may send (a gameFull of a long game is a few KiB).
const MAX_LINE: usize = 1 << 20;

/// A server and the account's token.
pub struct Api {
    base: String,
    token: String,
    /// For calls: each has 30 s in all.
    calls: ureq::Agent,
    /// For streams: no limit in all, but 30 s at most without a byte (the server sends a
    /// keep-alive line every few seconds, so a silence that long is a dead connection).
    streams: ureq::Agent,
}

impl Api {
    /// `base` is the server's URL (`http://host:port`, a trailing `/` or not).
    pub fn new(base: &str, token: &str) -> Result<Api, String> {
        let base = base.trim_end_matches('/').to_string();
        if !(base.starts_with("http://") || base.starts_with("https://")) || base.len() < 9 {
            return Err(format!(
                "--server '{base}' is not an http:// or https:// URL"
            ));
        }
        let agent = |global: Option<Duration>, per_read: Option<Duration>| {
            ureq::Agent::config_builder()
                .http_status_as_error(false)
                .user_agent(concat!("xiangqi-bot/", env!("CARGO_PKG_VERSION")))
                .timeout_connect(Some(Duration::from_secs(10)))
                .timeout_global(global)
                .timeout_per_read(per_read)
                .build()
                .new_agent()
        };
        Ok(Api {
            base,
            token: token.to_string(),
            calls: agent(Some(Duration::from_secs(30)), None),
            streams: agent(None, Some(Duration::from_secs(30))),
        })
    }

    pub fn base(&self) -> &str {
        &self.base
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    fn auth(&self) -> String {
        format!("Bearer {}", self.token)
    }

    /// `GET path` answered with JSON.
    pub fn get(&self, path: &str) -> Result<Value, HttpError> {
        let res = self
            .calls
            .get(&self.url(path))
            .header("Authorization", &self.auth())
            .header("Accept", "application/json")
            .call();
        answer(res)
    }

    /// `POST path` with a form body (none when `form` is empty).
    pub fn post(&self, path: &str, form: &[(&str, &str)]) -> Result<Value, HttpError> {
        let req = self
            .calls
            .post(&self.url(path))
            .header("Authorization", &self.auth())
            .header("Accept", "application/json");
        let res = if form.is_empty() {
            req.send_empty()
        } else {
            req.send_form(form.iter().copied())
        };
        answer(res)
    }

    /// Opens an ndjson stream (`GET path`).
    pub fn stream(&self, path: &str) -> Result<Lines, HttpError> {
        let res = self
            .streams
            .get(&self.url(path))
            .header("Authorization", &self.auth())
            .header("Accept", "application/x-ndjson")
            .call()
            .map_err(|e| HttpError::Net(e.to_string()))?;
        let status = res.status().as_u16();
        if !(200..300).contains(&status) {
            let mut res = res;
            let text = res.body_mut().read_to_string().unwrap_or_default();
            return Err(HttpError::Status(status, message(&text)));
        }
        Ok(Lines::new(Box::new(res.into_body().into_reader())))
    }
}

/// The server's message in an error answer: its `error` field, or the text.
fn message(text: &str) -> String {
    match serde_json::from_str::<Value>(text) {
        Ok(v) => match v.get("error") {
            Some(Value::String(s)) => s.clone(),
            Some(e) => e.to_string(),
            None => text.trim().to_string(),
        },
        Err(_) => text.trim().chars().take(300).collect(),
    }
}

fn answer(res: Result<ureq::http::Response<ureq::Body>, ureq::Error>) -> Result<Value, HttpError> {
    let mut res = res.map_err(|e| HttpError::Net(e.to_string()))?;
    let status = res.status().as_u16();
    let text = res
        .body_mut()
        .read_to_string()
        .map_err(|e| HttpError::Net(e.to_string()))?;
    if (200..300).contains(&status) {
        Ok(serde_json::from_str(&text).unwrap_or(Value::String(text)))
    } else {
        Err(HttpError::Status(status, message(&text)))
    }
}

/// The lines of an ndjson stream.
pub struct Lines {
    r: BufReader<Box<dyn Read + Send>>,
}

impl Lines {
    pub fn new(r: Box<dyn Read + Send>) -> Lines {
        Lines {
            r: BufReader::new(r),
        }
    }

    /// The next line, trimmed (`Some("")` for a keep-alive), `None` at the end, or why the
    /// stream broke.
    pub fn next_line(&mut self) -> Result<Option<String>, String> {
        let mut buf = Vec::new();
        let n = (&mut self.r)
            .take(MAX_LINE as u64 + 1)
            .read_until(b'\n', &mut buf)
            .map_err(|e| e.to_string())?;
        if n == 0 {
            return Ok(None);
        }
        if buf.len() > MAX_LINE {
            return Err(format!("a line longer than {MAX_LINE} bytes"));
        }
        Ok(Some(String::from_utf8_lossy(&buf).trim().to_string()))
    }
}

/// The waits between attempts to reconnect: 1, 2, 4 ... 30 s.
#[derive(Clone, Debug)]
pub struct Backoff {
    next_ms: u64,
}

impl Default for Backoff {
    fn default() -> Backoff {
        Backoff { next_ms: 1000 }
    }
}

impl Backoff {
    pub const MAX_MS: u64 = 30_000;

    /// The wait before the next attempt (doubling up to 30 s).
    pub fn next(&mut self) -> Duration {
        let d = self.next_ms;
        self.next_ms = (self.next_ms * 2).min(Self::MAX_MS);
        Duration::from_millis(d)
    }

    /// After a success: the next wait is 1 s again.
    pub fn reset(&mut self) {
        self.next_ms = 1000;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_to_30_s_and_resets() {
        let mut b = Backoff::default();
        let s: Vec<u64> = (0..8).map(|_| b.next().as_secs()).collect();
        assert_eq!(s, [1, 2, 4, 8, 16, 30, 30, 30]);
        b.reset();
        assert_eq!(b.next().as_secs(), 1);
    }

    #[test]
    fn lines_with_keep_alives_and_a_broken_end() {
        let text = "{\"type\":\"gameFull\"}\n\n\n{\"type\":\"gameState\"}\r\n{\"partial\"";
        let mut l = Lines::new(Box::new(std::io::Cursor::new(text.as_bytes().to_vec())));
        assert_eq!(
            l.next_line().unwrap().as_deref(),
            Some("{\"type\":\"gameFull\"}")
        );
        assert_eq!(l.next_line().unwrap().as_deref(), Some(""));
        assert_eq!(l.next_line().unwrap().as_deref(), Some(""));
        assert_eq!(
            l.next_line().unwrap().as_deref(),
            Some("{\"type\":\"gameState\"}")
        );
        // The last line without its newline is given as read (its JSON then fails to parse).
        assert_eq!(l.next_line().unwrap().as_deref(), Some("{\"partial\""));
        assert_eq!(l.next_line().unwrap(), None);
        let long = vec![b'x'; MAX_LINE + 10];
        let mut l = Lines::new(Box::new(std::io::Cursor::new(long)));
        assert!(l.next_line().unwrap_err().contains("longer than"));
    }

    #[test]
    fn server_urls_and_messages() {
        assert!(Api::new("localhost:8080", "t").is_err());
        assert!(Api::new("ftp://x", "t").is_err());
        assert_eq!(Api::new("http://h:1/", "t").unwrap().base(), "http://h:1");
        assert_eq!(message("{\"error\": \"no such game\"}"), "no such game");
        assert_eq!(message("Not Found\n"), "Not Found");
        assert!(HttpError::Net("x".into()).transient());
        assert!(HttpError::Status(503, String::new()).transient());
        assert!(HttpError::Status(429, String::new()).transient());
        assert!(!HttpError::Status(400, String::new()).transient());
    }
}
