//! A tiny OpenAI-compatible Chat Completions server for end-to-end runs of the
//! binary: it records every request and answers `POST .../chat/completions` with
//! the scripted turns of the coding tests, in order, as native `tool_calls` in a
//! whole JSON body (the agent loop does not ask for streams; a request that does
//! gets HTTP 400, so a change there shows up here).
//!
//! Copied down from the engine's provider-test server (a test binary cannot import
//! another's modules) and reduced to what a whole run needs: plain std threads, one
//! request per connection (`connection: close`). It never interprets a request
//! beyond its `stream` flag; the tests assert on what it recorded.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

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
    /// The body as JSON (`null` when it is not JSON).
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or(Value::Null)
    }

    /// A header's value (names are compared lower-cased).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// A running server; it stops accepting when dropped with the test process.
pub struct OpenAiServer {
    /// `http://127.0.0.1:PORT/v1`, for `OPENAI_BASE_URL`.
    pub base_url: String,
    requests: Arc<Mutex<Vec<Recorded>>>,
}

impl OpenAiServer {
    /// Starts a server answering the scripted `turns` (the coding tests' shape:
    /// `{"text": ..., "tool_calls": [{"name", "args"}]}`) in order; once they are
    /// used, it answers HTTP 400 (never retried) saying so.
    pub fn start(turns: Vec<Value>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base_url = format!("http://{}/v1", listener.local_addr().unwrap());
        let requests = Arc::new(Mutex::new(Vec::new()));
        let recorded = requests.clone();
        let turns = Arc::new(Mutex::new(turns.into_iter().enumerate()));
        std::thread::spawn(move || {
            for socket in listener.incoming() {
                let Ok(socket) = socket else { return };
                let recorded = recorded.clone();
                let turns = turns.clone();
                std::thread::spawn(move || serve(socket, &recorded, &turns));
            }
        });
        OpenAiServer { base_url, requests }
    }

    /// Every request so far, in arrival order.
    pub fn requests(&self) -> Vec<Recorded> {
        self.requests.lock().unwrap().clone()
    }
}

type Turns = Mutex<std::iter::Enumerate<std::vec::IntoIter<Value>>>;

fn serve(mut socket: TcpStream, recorded: &Mutex<Vec<Recorded>>, turns: &Turns) {
    let Some(request) = read_request(&mut socket) else {
        return;
    };
    let stream = request.json()["stream"] == json!(true);
    let is_chat = request.method == "POST" && request.path.ends_with("/chat/completions");
    // Take the next turn while holding the record lock, so the n-th recorded
    // request is the one that got the n-th turn.
    let turn = {
        let mut recorded = recorded.lock().unwrap();
        recorded.push(request);
        if is_chat {
            turns.lock().unwrap().next()
        } else {
            None
        }
    };
    let response = match turn {
        Some(_) if stream => http(
            400,
            "application/json",
            r#"{"error": {"message": "the test server answers whole bodies only (stream: false)"}}"#,
        ),
        Some((index, turn)) => http(
            200,
            "application/json",
            &completion(index, &turn).to_string(),
        ),
        None => http(
            400,
            "application/json",
            r#"{"error": {"message": "the test server has no more turns (or an unknown path)"}}"#,
        ),
    };
    let _ = socket.write_all(response.as_bytes());
    let _ = socket.flush();
    let _ = socket.shutdown(std::net::Shutdown::Both);
}

fn http(status: u16, content_type: &str, body: &str) -> String {
    format!(
        "HTTP/1.1 {status} X\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    )
}

/// The turn's tool calls in the wire shape (`arguments` as a JSON string).
fn tool_calls(index: usize, turn: &Value) -> Vec<Value> {
    turn["tool_calls"]
        .as_array()
        .map(|calls| {
            calls
                .iter()
                .enumerate()
                .map(|(n, call)| {
                    json!({
                        "id": format!("call_{index}_{n}"),
                        "type": "function",
                        "function": {
                            "name": call["name"],
                            "arguments": call["args"].to_string(),
                        }
                    })
                })
                .collect()
        })
        .unwrap_or_default()
}

/// A non-streamed `chat.completion` for one turn.
fn completion(index: usize, turn: &Value) -> Value {
    let calls = tool_calls(index, turn);
    let mut message = json!({"role": "assistant", "content": turn["text"]});
    let finish = if calls.is_empty() {
        "stop"
    } else {
        message["tool_calls"] = Value::Array(calls);
        "tool_calls"
    };
    json!({
        "id": format!("chatcmpl-{index}"),
        "object": "chat.completion",
        "model": "test-model",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
    })
}

fn read_request(socket: &mut TcpStream) -> Option<Recorded> {
    let mut buffer = Vec::new();
    let mut chunk = [0u8; 8192];
    let head_end = loop {
        if let Some(pos) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
            break pos;
        }
        let n = socket.read(&mut chunk).ok()?;
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
        let n = socket.read(&mut chunk).ok()?;
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
