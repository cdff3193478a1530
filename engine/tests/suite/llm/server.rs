//! A tiny HTTP/1.1 server for provider tests: it records every request and answers
//! with scripted replies in order, controlling chunk timing, truncation and drops.
//! Plain tokio (no framework) so a test decides every byte and every pause.

#![allow(clippy::unwrap_used, clippy::expect_used, dead_code)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// One request as the server received it.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub method: String,
    pub path: String,
    /// Header names lower-cased.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Recorded {
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).expect("request body is JSON")
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// What the server answers to one request.
#[derive(Debug, Clone)]
pub enum Reply {
    /// A complete response with a Content-Length.
    Full {
        status: u16,
        headers: Vec<(String, String)>,
        body: String,
    },
    /// `text/event-stream`, written piece by piece with a pause between pieces,
    /// then the connection is closed (a clean end of the body).
    Stream {
        pieces: Vec<Vec<u8>>,
        pause: Duration,
    },
    /// Close the connection without answering (a reset).
    Drop,
    /// Never answer (until the test ends).
    Hang,
}

impl Reply {
    pub fn json(body: Value) -> Self {
        Reply::Full {
            status: 200,
            headers: vec![("content-type".into(), "application/json".into())],
            body: body.to_string(),
        }
    }

    pub fn status(status: u16, body: &str) -> Self {
        Reply::Full {
            status,
            headers: vec![("content-type".into(), "application/json".into())],
            body: body.to_string(),
        }
    }

    pub fn with_header(mut self, name: &str, value: &str) -> Self {
        if let Reply::Full { headers, .. } = &mut self {
            headers.push((name.into(), value.into()));
        }
        self
    }

    /// SSE events (`data:` payloads, optionally `event:` names), each piece one event.
    pub fn sse(events: &[(&str, String)]) -> Self {
        let pieces = events
            .iter()
            .map(|(event, data)| {
                if event.is_empty() {
                    format!("data: {data}\n\n").into_bytes()
                } else {
                    format!("event: {event}\ndata: {data}\n\n").into_bytes()
                }
            })
            .collect();
        Reply::Stream {
            pieces,
            pause: Duration::from_millis(2),
        }
    }

    /// The same stream re-cut into pieces of `size` bytes (cutting lines, JSON and
    /// UTF-8 sequences anywhere).
    pub fn rechunked(self, size: usize) -> Self {
        match self {
            Reply::Stream { pieces, pause } => {
                let bytes = pieces.concat();
                let pieces = bytes.chunks(size).map(<[u8]>::to_vec).collect();
                Reply::Stream { pieces, pause }
            }
            other => other,
        }
    }
}

/// A running test server.
pub struct TestServer {
    pub base_url: String,
    requests: Arc<Mutex<Vec<Recorded>>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl TestServer {
    /// Starts a server on 127.0.0.1 answering `replies` in order (then HTTP 599).
    pub async fn start(replies: Vec<Reply>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base_url = format!("http://{}", listener.local_addr().unwrap());
        let requests = Arc::new(Mutex::new(Vec::new()));
        let recorded = requests.clone();
        let replies = Arc::new(Mutex::new(replies.into_iter()));
        let task = tokio::spawn(async move {
            loop {
                let Ok((socket, _)) = listener.accept().await else {
                    return;
                };
                let recorded = recorded.clone();
                let replies = replies.clone();
                tokio::spawn(async move {
                    serve(socket, recorded, replies).await;
                });
            }
        });
        TestServer {
            base_url,
            requests,
            task,
        }
    }

    pub fn requests(&self) -> Vec<Recorded> {
        self.requests.lock().unwrap().clone()
    }
}

type Replies = Arc<Mutex<std::vec::IntoIter<Reply>>>;

async fn serve(mut socket: TcpStream, recorded: Arc<Mutex<Vec<Recorded>>>, replies: Replies) {
    let Some(request) = read_request(&mut socket).await else {
        return;
    };
    recorded.lock().unwrap().push(request);
    let reply = replies.lock().unwrap().next().unwrap_or(Reply::Full {
        status: 599,
        headers: Vec::new(),
        body: "the test server has no more replies".into(),
    });
    match reply {
        Reply::Full {
            status,
            headers,
            body,
        } => {
            let mut head = format!(
                "HTTP/1.1 {status} X\r\ncontent-length: {}\r\nconnection: close\r\n",
                body.len()
            );
            for (name, value) in headers {
                head.push_str(&format!("{name}: {value}\r\n"));
            }
            head.push_str("\r\n");
            let _ = socket.write_all(head.as_bytes()).await;
            let _ = socket.write_all(body.as_bytes()).await;
            let _ = socket.shutdown().await;
        }
        Reply::Stream { pieces, pause } => {
            let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\nconnection: close\r\n\r\n";
            let _ = socket.write_all(head.as_bytes()).await;
            for piece in pieces {
                if socket.write_all(&piece).await.is_err() {
                    return;
                }
                let _ = socket.flush().await;
                tokio::time::sleep(pause).await;
            }
            let _ = socket.shutdown().await;
        }
        Reply::Drop => {}
        Reply::Hang => {
            tokio::time::sleep(Duration::from_secs(3600)).await;
        }
    }
}

async fn read_request(socket: &mut TcpStream) -> Option<Recorded> {
    let mut buffer = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        if let Some(pos) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
            break pos;
        }
        let n = socket.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buffer.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buffer[..head_end]).to_string();
    let mut lines = head.split("\r\n");
    let mut first = lines.next()?.split(' ');
    let method = first.next()?.to_string();
    let path = first.next()?.to_string();
    let headers: Vec<(String, String)> = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let length: usize = headers
        .iter()
        .find(|(n, _)| n == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = buffer[head_end + 4..].to_vec();
    while body.len() < length {
        let n = socket.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        body.extend_from_slice(&chunk[..n]);
    }
    Some(Recorded {
        method,
        path,
        headers,
        body,
    })
}
