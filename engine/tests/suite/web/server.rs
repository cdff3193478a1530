#![allow(clippy::unwrap_used, clippy::expect_used)]

//! A small HTTP/1.1 server on 127.0.0.1 standing in for the web in the web-tool tests.
//!
//! Real TCP, real HTTP/1.1 framing, one request per connection (`Connection:
//! close`). It records every request and connection, and for streamed bodies
//! counts the bytes the client actually accepted, so tests can show a capped
//! fetch stopped reading. Every task ends when the server is dropped.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

/// One request as the server saw it.
#[derive(Debug, Clone)]
pub struct Recorded {
    /// The request target (path and query).
    pub target: String,
    /// Header names (lower case) and values.
    pub headers: Vec<(String, String)>,
}

impl Recorded {
    /// The first value of header `name` (lower case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }

    /// The path, without the query.
    pub fn path(&self) -> &str {
        self.target.split('?').next().unwrap_or_default()
    }
}

/// What the server answers.
#[derive(Debug, Clone)]
pub enum Reply {
    /// A complete response.
    Full {
        status: u16,
        headers: Vec<(String, String)>,
        body: Vec<u8>,
    },
    /// `total` bytes of `a`, declared with Content-Length, written 64 KiB at a time.
    Stream { content_type: String, total: u64 },
    /// Accepts the request and never answers.
    Hang,
}

impl Reply {
    /// A 200 with `content_type` and `body`.
    pub fn ok(content_type: &str, body: impl Into<Vec<u8>>) -> Reply {
        Reply::Full {
            status: 200,
            headers: vec![("Content-Type".into(), content_type.into())],
            body: body.into(),
        }
    }

    /// A response with `status`, `content_type` and `body`.
    pub fn status(status: u16, content_type: &str, body: impl Into<Vec<u8>>) -> Reply {
        Reply::Full {
            status,
            headers: vec![("Content-Type".into(), content_type.into())],
            body: body.into(),
        }
    }

    /// A 302 to `location`.
    pub fn redirect(location: &str) -> Reply {
        Reply::Full {
            status: 302,
            headers: vec![("Location".into(), location.into())],
            body: Vec::new(),
        }
    }
}

type Route = Arc<dyn Fn(&Recorded) -> Reply + Send + Sync>;

#[derive(Debug, Default)]
struct Counters {
    requests: Mutex<Vec<Recorded>>,
    connections: AtomicUsize,
    streamed: AtomicU64,
    stream_ended: AtomicBool,
}

/// A running test server; stopped when dropped.
#[derive(Debug)]
pub struct TestServer {
    port: u16,
    counters: Arc<Counters>,
    task: JoinHandle<()>,
}

impl TestServer {
    /// Starts a server on 127.0.0.1 (a free port) answering with `route`.
    pub async fn start(route: impl Fn(&Recorded) -> Reply + Send + Sync + 'static) -> TestServer {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let counters = Arc::new(Counters::default());
        let route: Route = Arc::new(route);
        let shared = Arc::clone(&counters);
        let task = tokio::spawn(async move {
            let mut connections = tokio::task::JoinSet::new();
            while let Ok((stream, _)) = listener.accept().await {
                shared.connections.fetch_add(1, Ordering::SeqCst);
                connections.spawn(serve(stream, Arc::clone(&route), Arc::clone(&shared)));
            }
        });
        TestServer {
            port,
            counters,
            task,
        }
    }

    /// The port it listens on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// `http://127.0.0.1:PORT{path}`.
    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    /// Every request received so far.
    pub fn requests(&self) -> Vec<Recorded> {
        self.counters.requests.lock().unwrap().clone()
    }

    /// TCP connections accepted so far.
    pub fn connections(&self) -> usize {
        self.counters.connections.load(Ordering::SeqCst)
    }

    /// Waits (at most 10 s) until a streamed body ended, by completion or because
    /// the client went away, and returns the bytes the client accepted.
    pub async fn streamed_bytes_when_done(&self) -> u64 {
        for _ in 0..1000 {
            if self.counters.stream_ended.load(Ordering::SeqCst) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert!(
            self.counters.stream_ended.load(Ordering::SeqCst),
            "the streamed body did not end"
        );
        self.counters.streamed.load(Ordering::SeqCst)
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        // Dropping the accept task drops its JoinSet, which aborts every connection.
        self.task.abort();
    }
}

async fn serve(mut stream: TcpStream, route: Route, counters: Arc<Counters>) {
    let Some(request) = read_head(&mut stream).await else {
        return;
    };
    counters.requests.lock().unwrap().push(request.clone());
    match route(&request) {
        Reply::Full {
            status,
            headers,
            body,
        } => {
            let mut head = format!("HTTP/1.1 {status} {}\r\n", reason(status));
            for (name, value) in headers {
                head.push_str(&format!("{name}: {value}\r\n"));
            }
            head.push_str(&format!(
                "Content-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            ));
            let _ = stream.write_all(head.as_bytes()).await;
            let _ = stream.write_all(&body).await;
            let _ = stream.shutdown().await;
        }
        Reply::Stream {
            content_type,
            total,
        } => {
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\nContent-Length: {total}\r\n\
                 Connection: close\r\n\r\n"
            );
            if stream.write_all(head.as_bytes()).await.is_ok() {
                let chunk = vec![b'a'; 64 * 1024];
                let mut sent = 0u64;
                while sent < total {
                    let len = usize::try_from((total - sent).min(chunk.len() as u64)).unwrap();
                    if stream.write_all(&chunk[..len]).await.is_err() {
                        break;
                    }
                    sent += len as u64;
                    counters.streamed.store(sent, Ordering::SeqCst);
                }
            }
            counters.stream_ended.store(true, Ordering::SeqCst);
        }
        Reply::Hang => {
            tokio::time::sleep(Duration::from_secs(60)).await;
        }
    }
}

/// Reads the request line and headers (at most 16 KiB).
async fn read_head(stream: &mut TcpStream) -> Option<Recorded> {
    let mut buf = Vec::new();
    let mut byte = [0u8; 1024];
    while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
        let n = stream.read(&mut byte).await.ok()?;
        if n == 0 || buf.len() > 16 * 1024 {
            return None;
        }
        buf.extend_from_slice(&byte[..n]);
    }
    let text = String::from_utf8_lossy(&buf);
    let mut lines = text.split("\r\n");
    let target = lines.next()?.split(' ').nth(1)?.to_owned();
    let headers = lines
        .take_while(|line| !line.is_empty())
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_ascii_lowercase(), value.trim().to_owned()))
        .collect();
    Some(Recorded { target, headers })
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        301 => "Moved Permanently",
        302 => "Found",
        401 => "Unauthorized",
        404 => "Not Found",
        500 => "Internal Server Error",
        _ => "Status",
    }
}
