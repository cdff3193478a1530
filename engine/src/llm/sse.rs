//! A minimal Server-Sent Events decoder: bytes in, `(event, data)` pairs out.
//!
//! It owns framing only (lines, `event:` / `data:` fields, blank-line dispatch). It
//! must never interpret the payloads: the OpenAI and Anthropic decoders do that.

/// One dispatched SSE event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SseEvent {
    /// The `event:` field, empty when absent.
    pub event: String,
    /// The `data:` lines joined with `\n`.
    pub data: String,
}

/// Incremental decoder; feed it chunks as they arrive, at any byte boundary.
#[derive(Debug, Default)]
pub(crate) struct SseDecoder {
    buffer: Vec<u8>,
    event: String,
    data: Vec<String>,
    has_data: bool,
}

impl SseDecoder {
    /// Feeds a chunk; returns the events it completed. Invalid UTF-8 in a line is an error.
    pub fn feed(&mut self, chunk: &[u8]) -> Result<Vec<SseEvent>, String> {
        self.buffer.extend_from_slice(chunk);
        let mut events = Vec::new();
        while let Some(pos) = self.buffer.iter().position(|b| *b == b'\n') {
            let mut line: Vec<u8> = self.buffer.drain(..=pos).collect();
            line.pop();
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            let line =
                String::from_utf8(line).map_err(|e| format!("invalid UTF-8 in stream: {e}"))?;
            if let Some(event) = self.line(&line) {
                events.push(event);
            }
        }
        Ok(events)
    }

    /// Ends the stream: dispatches an event left without its blank line (lenient).
    pub fn finish(&mut self) -> Result<Vec<SseEvent>, String> {
        let mut events = Vec::new();
        if !self.buffer.is_empty() {
            let rest = std::mem::take(&mut self.buffer);
            let line =
                String::from_utf8(rest).map_err(|e| format!("invalid UTF-8 in stream: {e}"))?;
            let line = line.trim_end_matches('\r').to_string();
            if let Some(event) = self.line(&line) {
                events.push(event);
            }
        }
        if let Some(event) = self.dispatch() {
            events.push(event);
        }
        Ok(events)
    }

    fn line(&mut self, line: &str) -> Option<SseEvent> {
        if line.is_empty() {
            return self.dispatch();
        }
        if line.starts_with(':') {
            return None;
        }
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line, ""),
        };
        match field {
            "event" => self.event = value.to_string(),
            "data" => {
                self.data.push(value.to_string());
                self.has_data = true;
            }
            _ => {}
        }
        None
    }

    fn dispatch(&mut self) -> Option<SseEvent> {
        let event = std::mem::take(&mut self.event);
        let data = std::mem::take(&mut self.data);
        if !std::mem::take(&mut self.has_data) {
            return None;
        }
        Some(SseEvent {
            event,
            data: data.join("\n"),
        })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn events_split_at_any_byte_are_reassembled() {
        let text = "event: a\ndata: {\"x\":\r\ndata: 1}\n\n: comment\ndata: [DONE]\n\n";
        for split in 0..text.len() {
            let mut decoder = SseDecoder::default();
            let mut events = decoder.feed(&text.as_bytes()[..split]).unwrap();
            events.extend(decoder.feed(&text.as_bytes()[split..]).unwrap());
            events.extend(decoder.finish().unwrap());
            assert_eq!(
                events,
                vec![
                    SseEvent {
                        event: "a".into(),
                        data: "{\"x\":\n1}".into()
                    },
                    SseEvent {
                        event: String::new(),
                        data: "[DONE]".into()
                    }
                ],
                "split at {split}"
            );
        }
    }

    #[test]
    fn a_last_event_without_blank_line_is_still_dispatched() {
        let mut decoder = SseDecoder::default();
        assert!(decoder.feed(b"data: [DONE]").unwrap().is_empty());
        assert_eq!(decoder.finish().unwrap()[0].data, "[DONE]");
    }
}
