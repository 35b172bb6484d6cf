//! The one HTTP/1.1 client of the server's tests, its load generator and the fault tests:
//! a request with headers and a body, its whole answer or its chunked ndjson stream line by
//! line, over a keep-alive connection (async, tokio) or one connection per request (blocking).
//!
//! It speaks only what this server answers (a `Content-Length` or chunked body, or a body that
//! ends with the connection) and names what was wrong when an answer is not HTTP.
//!
//! ```no_run
//! # async fn f(addr: std::net::SocketAddr) -> Result<(), String> {
//! use xiangqi_server::client::{Conn, Request};
//! let mut c = Conn::connect(addr).await?;
//! let res = c.send(&Request::post("/api/challenge/open").json(&serde_json::json!({}))).await?;
//! assert_eq!(res.status, 200);
//! let id = res.json()?["id"].as_str().unwrap_or_default().to_owned();
//! let mut stream = Conn::connect(addr).await?.stream(&Request::get(&format!("/api/board/game/stream/{id}"))).await?;
//! while let Some(line) = stream.next_line().await? {
//!     println!("{line}");
//! }
//! # Ok(()) }
//! ```

use std::io::{Read, Write};
use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

/// A request: method, path (with its query), headers and body.
#[derive(Clone, Debug)]
pub struct Request {
    method: String,
    path: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Request {
    pub fn new(method: &str, path: &str) -> Request {
        Request {
            method: method.to_owned(),
            path: path.to_owned(),
            headers: Vec::new(),
            body: Vec::new(),
        }
    }

    pub fn get(path: &str) -> Request {
        Request::new("GET", path)
    }

    pub fn post(path: &str) -> Request {
        Request::new("POST", path)
    }

    /// Adds a header (sent in the order given; `Host` and `Content-Length` are the client's).
    pub fn header(mut self, name: &str, value: &str) -> Request {
        self.headers.push((name.to_owned(), value.to_owned()));
        self
    }

    /// `Authorization: Bearer TOKEN`, when there is a token.
    pub fn bearer(self, token: Option<&str>) -> Request {
        match token {
            Some(t) => self.header("authorization", &format!("Bearer {t}")),
            None => self,
        }
    }

    /// A JSON body, with its content type.
    pub fn json(self, v: &Value) -> Request {
        self.body("application/json", v.to_string())
    }

    /// A body of this content type.
    pub fn body(mut self, content_type: &str, body: impl Into<Vec<u8>>) -> Request {
        self.body = body.into();
        self.header("content-type", content_type)
    }

    fn encode(&self, host: &str, close: bool) -> Vec<u8> {
        let mut head = format!("{} {} HTTP/1.1\r\nhost: {host}\r\n", self.method, self.path);
        for (k, v) in &self.headers {
            head.push_str(&format!("{k}: {v}\r\n"));
        }
        if close {
            head.push_str("connection: close\r\n");
        }
        head.push_str(&format!("content-length: {}\r\n\r\n", self.body.len()));
        let mut out = head.into_bytes();
        out.extend_from_slice(&self.body);
        out
    }
}

/// A status line and headers.
#[derive(Clone, Debug)]
pub struct Head {
    pub status: u16,
    headers: Vec<(String, String)>,
}

impl Head {
    /// A header's value (the first of that name, any case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Every header, names in lower case, in the order they came.
    pub fn headers(&self) -> impl Iterator<Item = (&str, &str)> {
        self.headers.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }

    fn framing(&self, method: &str) -> Result<Framing, String> {
        if method.eq_ignore_ascii_case("HEAD") || matches!(self.status, 100..=199 | 204 | 304) {
            return Ok(Framing::Length(0));
        }
        if self
            .header("transfer-encoding")
            .is_some_and(|v| v.to_ascii_lowercase().contains("chunked"))
        {
            return Ok(Framing::Chunked);
        }
        match self.header("content-length") {
            Some(v) => v
                .trim()
                .parse()
                .map(Framing::Length)
                .map_err(|_| format!("bad content-length {v:?}")),
            None => Ok(Framing::UntilClose),
        }
    }

    /// The status line and headers at the front of `buf` and their length with the blank line,
    /// or `None` if they are not all there yet.
    fn parse(buf: &[u8]) -> Result<Option<(Head, usize)>, String> {
        let Some(end) = find(buf, b"\r\n\r\n") else {
            if buf.len() > 64 * 1024 {
                return Err("no end of the headers in 64 KiB".into());
            }
            return Ok(None);
        };
        let text = String::from_utf8_lossy(&buf[..end]);
        let mut lines = text.split("\r\n");
        let first = lines.next().unwrap_or("");
        let status = first
            .strip_prefix("HTTP/1.")
            .and_then(|r| r.split(' ').nth(1))
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| format!("not an HTTP status line: {first:?}"))?;
        let headers = lines
            .filter_map(|l| l.split_once(':'))
            .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
            .collect();
        Ok(Some((Head { status, headers }, end + 4)))
    }
}

/// A whole answer.
#[derive(Clone, Debug)]
pub struct Response {
    pub status: u16,
    pub head: Head,
    pub body: Vec<u8>,
}

impl Response {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.head.header(name)
    }

    /// The body as text (invalid UTF-8 replaced).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// The body as JSON.
    pub fn json(&self) -> Result<Value, String> {
        serde_json::from_slice(&self.body).map_err(|e| {
            format!(
                "the answer ({}) is not JSON: {e}: {}",
                self.status,
                self.text()
            )
        })
    }

    /// The body as JSON, or as a JSON string of its text when it is not JSON.
    pub fn value(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|_| Value::String(self.text()))
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Framing {
    Length(usize),
    Chunked,
    UntilClose,
}

/// A body being decoded from the bytes read after its head.
#[derive(Debug)]
struct Body {
    framing: Framing,
    /// The decoded body not yet handed out.
    data: Vec<u8>,
    /// Whether the whole body has come.
    done: bool,
}

impl Body {
    fn new(framing: Framing) -> Body {
        Body {
            framing,
            data: Vec::new(),
            done: framing == Framing::Length(0),
        }
    }

    /// Takes what it can decode from the front of `raw`.
    fn feed(&mut self, raw: &mut Vec<u8>) -> Result<(), String> {
        if self.done {
            // What follows is the next answer's.
            return Ok(());
        }
        match self.framing {
            // `Length` counts down the bytes still to come.
            Framing::Length(n) => {
                let take = n.min(raw.len());
                self.data.extend(raw.drain(..take));
                self.framing = Framing::Length(n - take);
                self.done = n == take;
            }
            Framing::UntilClose => self.data.append(raw),
            Framing::Chunked => {
                while let Some(eol) = find(raw, b"\r\n") {
                    let line = String::from_utf8_lossy(&raw[..eol]).into_owned();
                    let size_text = line.split(';').next().unwrap_or("").trim();
                    let size = usize::from_str_radix(size_text, 16)
                        .map_err(|_| format!("bad chunk size {size_text:?}"))?;
                    if size == 0 {
                        // The last chunk, then trailers (none here) and a blank line.
                        let Some(end) = find(&raw[eol..], b"\r\n\r\n") else {
                            break;
                        };
                        raw.drain(..eol + end + 4);
                        self.done = true;
                        break;
                    }
                    let start = eol + 2;
                    if raw.len() < start + size + 2 {
                        break;
                    }
                    if &raw[start + size..start + size + 2] != b"\r\n" {
                        return Err("a chunk does not end with CRLF".into());
                    }
                    self.data.extend_from_slice(&raw[start..start + size]);
                    raw.drain(..start + size + 2);
                }
            }
        }
        Ok(())
    }

    /// The connection ended: the end of an until-close body, else a cut-off answer.
    fn closed(&mut self) -> Result<(), String> {
        match self.framing {
            Framing::UntilClose => {
                self.done = true;
                Ok(())
            }
            _ if self.done => Ok(()),
            _ => Err("the server closed the connection in the middle of the answer".into()),
        }
    }

    /// What is left of a body that has ended, as its last line (`None` if nothing is).
    fn rest(&mut self) -> Option<String> {
        let rest = std::mem::take(&mut self.data);
        (!rest.is_empty()).then(|| String::from_utf8_lossy(&rest).into_owned())
    }

    /// The next whole line of the body (with its `\n` cut off), if one has come.
    fn line(&mut self) -> Option<String> {
        let p = self.data.iter().position(|&b| b == b'\n')?;
        let line: Vec<u8> = self.data.drain(..=p).collect();
        Some(
            String::from_utf8_lossy(&line[..p])
                .trim_end_matches('\r')
                .to_owned(),
        )
    }
}

fn find(h: &[u8], n: &[u8]) -> Option<usize> {
    h.windows(n.len()).position(|w| w == n)
}

/// A keep-alive connection to one server.
#[derive(Debug)]
pub struct Conn {
    stream: TcpStream,
    raw: Vec<u8>,
    host: String,
}

impl Conn {
    /// Connects (with `TCP_NODELAY`); the `Host` header is the address.
    pub async fn connect(addr: SocketAddr) -> Result<Conn, String> {
        Conn::connect_from(addr, None).await
    }

    /// Connects from a local address of the caller's choice (a loopback address of its own,
    /// to look like another client), or any.
    pub async fn connect_from(addr: SocketAddr, from: Option<IpAddr>) -> Result<Conn, String> {
        let sock = if addr.is_ipv4() {
            TcpSocket::new_v4()
        } else {
            TcpSocket::new_v6()
        }
        .map_err(|e| format!("socket: {e}"))?;
        if let Some(ip) = from {
            sock.bind(SocketAddr::new(ip, 0))
                .map_err(|e| format!("bind {ip}: {e}"))?;
        }
        let stream = sock
            .connect(addr)
            .await
            .map_err(|e| format!("connect {addr}: {e}"))?;
        stream.set_nodelay(true).map_err(|e| e.to_string())?;
        Ok(Conn {
            stream,
            raw: Vec::new(),
            host: addr.to_string(),
        })
    }

    /// The `Host` header to send instead of the address.
    pub fn with_host(mut self, host: &str) -> Conn {
        self.host = host.to_owned();
        self
    }

    /// Sends `req` and reads its whole answer; the connection stays open for the next.
    pub async fn send(&mut self, req: &Request) -> Result<Response, String> {
        let head = self.start(req).await?;
        let mut body = Body::new(head.framing(&req.method)?);
        body.feed(&mut self.raw)?;
        while !body.done {
            if self.fill().await? == 0 {
                body.closed()?;
            }
            body.feed(&mut self.raw)?;
        }
        Ok(Response {
            status: head.status,
            head,
            body: body.data,
        })
    }

    /// Sends `req` and reads its head; its body is then read line by line.
    pub async fn stream(mut self, req: &Request) -> Result<Stream, String> {
        let head = self.start(req).await?;
        let mut body = Body::new(head.framing(&req.method)?);
        body.feed(&mut self.raw)?;
        Ok(Stream {
            conn: self,
            head,
            body,
        })
    }

    async fn start(&mut self, req: &Request) -> Result<Head, String> {
        self.stream
            .write_all(&req.encode(&self.host, false))
            .await
            .map_err(|e| format!("write {} {}: {e}", req.method, req.path))?;
        loop {
            if let Some((head, n)) = Head::parse(&self.raw)? {
                self.raw.drain(..n);
                return Ok(head);
            }
            if self.fill().await? == 0 {
                return Err(format!(
                    "{} {}: the server closed the connection before answering",
                    req.method, req.path
                ));
            }
        }
    }

    /// Reads what has come (cancel-safe: nothing read is lost if the future is dropped).
    async fn fill(&mut self) -> Result<usize, String> {
        self.raw.reserve(16 * 1024);
        self.stream
            .read_buf(&mut self.raw)
            .await
            .map_err(|e| format!("read: {e}"))
    }
}

/// An answer whose body is read as it comes (ndjson streams).
#[derive(Debug)]
pub struct Stream {
    conn: Conn,
    pub head: Head,
    body: Body,
}

impl Stream {
    pub fn status(&self) -> u16 {
        self.head.status
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.head.header(name)
    }

    /// The next line of the body, blank ones (keep-alives) included; `None` at its end.
    /// Cancel-safe: what was read stays for the next call.
    pub async fn next_line(&mut self) -> Result<Option<String>, String> {
        loop {
            if let Some(line) = self.body.line() {
                return Ok(Some(line));
            }
            if self.body.done {
                return Ok(self.body.rest());
            }
            if self.conn.fill().await? == 0 {
                self.body.closed()?;
            }
            self.body.feed(&mut self.conn.raw)?;
        }
    }

    /// The rest of the body.
    pub async fn rest(mut self) -> Result<Vec<u8>, String> {
        while !self.body.done {
            if self.conn.fill().await? == 0 {
                self.body.closed()?;
            }
            self.body.feed(&mut self.conn.raw)?;
        }
        Ok(self.body.data)
    }
}

/// One request on a connection of its own, blocking (`Connection: close`); the answer, or why
/// there was none. `timeout` bounds the connect and each read and write.
pub fn blocking(addr: SocketAddr, req: &Request, timeout: Duration) -> Result<Response, String> {
    let mut st = BlockingStream::open(addr, req, Some(timeout))?;
    while !st.body.done {
        st.fill()?;
    }
    Ok(Response {
        status: st.head.status,
        head: st.head,
        body: st.body.data,
    })
}

/// An answer whose body is read as it comes, blocking (`Connection: close`).
#[derive(Debug)]
pub struct BlockingStream {
    s: std::net::TcpStream,
    raw: Vec<u8>,
    pub head: Head,
    body: Body,
}

impl BlockingStream {
    /// Sends `req` and reads the head of its answer; `timeout` bounds the connect and each
    /// read and write (`None`: reads wait for ever).
    pub fn open(
        addr: SocketAddr,
        req: &Request,
        timeout: Option<Duration>,
    ) -> Result<BlockingStream, String> {
        let mut s = match timeout {
            Some(t) => std::net::TcpStream::connect_timeout(&addr, t),
            None => std::net::TcpStream::connect(addr),
        }
        .map_err(|e| format!("connect {addr}: {e}"))?;
        s.set_read_timeout(timeout).map_err(|e| e.to_string())?;
        s.set_write_timeout(timeout).map_err(|e| e.to_string())?;
        s.write_all(&req.encode(&addr.to_string(), true))
            .map_err(|e| format!("write {} {}: {e}", req.method, req.path))?;
        let mut raw = Vec::new();
        let head = loop {
            if let Some((head, n)) = Head::parse(&raw)? {
                raw.drain(..n);
                break head;
            }
            let mut buf = [0u8; 16 * 1024];
            match s.read(&mut buf) {
                Ok(0) => {
                    return Err(format!(
                        "{} {}: the server closed the connection before answering",
                        req.method, req.path
                    ))
                }
                Ok(n) => raw.extend_from_slice(&buf[..n]),
                Err(e) => {
                    return Err(format!(
                        "read the answer to {} {}: {e}",
                        req.method, req.path
                    ))
                }
            }
        };
        let mut body = Body::new(head.framing(&req.method)?);
        body.feed(&mut raw)?;
        Ok(BlockingStream { s, raw, head, body })
    }

    pub fn status(&self) -> u16 {
        self.head.status
    }

    /// The next line of the body, blank ones included; `None` at its end.
    pub fn next_line(&mut self) -> Result<Option<String>, String> {
        loop {
            if let Some(line) = self.body.line() {
                return Ok(Some(line));
            }
            if self.body.done {
                return Ok(self.body.rest());
            }
            self.fill()?;
        }
    }

    fn fill(&mut self) -> Result<(), String> {
        let mut buf = [0u8; 16 * 1024];
        match self.s.read(&mut buf) {
            Ok(0) => self.body.closed()?,
            Ok(n) => self.raw.extend_from_slice(&buf[..n]),
            Err(e) => return Err(format!("read: {e}")),
        }
        self.body.feed(&mut self.raw)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_arrive_in_pieces() {
        let wire = b"5\r\nhello\r\n1;ext=1\r\n\n\r\n3\r\nab\n\r\n0\r\n\r\n".to_vec();
        let next = b"HTTP/1.1 200 OK\r\n";
        for cut in 0..wire.len() {
            let mut b = Body::new(Framing::Chunked);
            let mut raw = wire[..cut].to_vec();
            b.feed(&mut raw).unwrap();
            raw.extend_from_slice(&wire[cut..]);
            raw.extend_from_slice(next);
            b.feed(&mut raw).unwrap();
            assert!(b.done, "cut at {cut}");
            assert_eq!(b.line().as_deref(), Some("hello"));
            assert_eq!(b.line().as_deref(), Some("ab"));
            assert_eq!(raw, next, "the next answer stays");
            b.feed(&mut raw).unwrap();
            assert_eq!(raw, next);
        }
    }

    #[test]
    fn a_length_body_stops_at_its_length() {
        let mut b = Body::new(Framing::Length(3));
        let mut raw = b"ab".to_vec();
        b.feed(&mut raw).unwrap();
        assert!(!b.done);
        raw.extend_from_slice(b"cHTTP/1.1");
        b.feed(&mut raw).unwrap();
        assert!(b.done);
        assert_eq!(b.data, b"abc");
        assert_eq!(raw, b"HTTP/1.1", "the next answer stays");
        assert!(Body::new(Framing::Length(3)).closed().is_err());
    }

    #[test]
    fn heads_and_errors() {
        let (h, n) = Head::parse(b"HTTP/1.1 429 Too Many\r\nRetry-After: 1\r\n\r\nx")
            .unwrap()
            .unwrap();
        assert_eq!((h.status, n), (429, 41));
        assert_eq!(h.header("retry-after"), Some("1"));
        assert!(Head::parse(b"HTTP/1.1 200 OK\r\n").unwrap().is_none());
        let e = Head::parse(b"SSH-2.0-x\r\n\r\n").unwrap_err();
        assert!(e.contains("not an HTTP status line"), "{e}");
        let mut bad = Body::new(Framing::Chunked);
        assert!(bad
            .feed(&mut b"zz\r\n".to_vec())
            .unwrap_err()
            .contains("zz"));
    }
}
