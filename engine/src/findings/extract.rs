//! Finding JSON candidates inside model prose: fenced blocks and bare balanced
//! `[...]` / `{...}` spans.
//!
//! This module only locates text spans; it must never interpret them as findings
//! (that is `parse`) nor change their content (that is `repair`).

/// Model output longer than this is cut before scanning (the cut is reported).
pub const MAX_SCANNED_BYTES: usize = 2 * 1024 * 1024;

/// How many times the scanner restarts after an unclosed bracket, bounding its cost.
const MAX_RESTARTS: usize = 256;

/// A span of text that may hold JSON, with its byte offset in the scanned text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Span<'a> {
    /// Byte offset of the span's start in the whole text (orders candidates).
    pub offset: usize,
    /// The span's text.
    pub text: &'a str,
}

/// All candidate spans, in text order: balanced spans inside JSON-ish fences
/// (```json, ```jsonc, ```json5, ```js, or no info string) and balanced spans in
/// the prose outside fences. Fences in other languages are code, not findings.
pub(crate) fn candidate_spans(text: &str) -> Vec<Span<'_>> {
    let mut spans = Vec::new();
    let mut prose_start = 0;
    let mut pos = 0;
    let mut fence: Option<(usize, usize, bool)> = None; // (backticks, content start, json-ish)
    for line in text.split_inclusive('\n') {
        let line_start = pos;
        pos += line.len();
        let trimmed = line.trim_start_matches([' ', '\t']);
        let ticks = trimmed.chars().take_while(|&c| c == '`').count();
        match fence {
            None if ticks >= 3 => {
                scan_balanced(text, prose_start, line_start, &mut spans);
                let info = trimmed[ticks..].trim().to_ascii_lowercase();
                let jsonish = matches!(info.as_str(), "" | "json" | "jsonc" | "json5" | "js");
                fence = Some((ticks, pos, jsonish));
            }
            Some((open, content_start, jsonish))
                if ticks >= open && trimmed[ticks..].trim().is_empty() =>
            {
                if jsonish {
                    scan_balanced(text, content_start, line_start, &mut spans);
                }
                fence = None;
                prose_start = pos;
            }
            _ => {}
        }
    }
    match fence {
        // An unclosed fence: treat its content like a fenced block (models get cut off).
        Some((_, content_start, true)) => {
            scan_balanced(text, content_start, text.len(), &mut spans)
        }
        Some((_, _, false)) => {}
        None => scan_balanced(text, prose_start, text.len(), &mut spans),
    }
    spans
}

/// Pushes the top-level balanced bracket spans of `text[from..to]`.
///
/// Strings in double or single quotes are skipped (so brackets inside them do not
/// count). A span that never closes restarts the scan one byte after its opening.
fn scan_balanced<'a>(text: &'a str, from: usize, to: usize, out: &mut Vec<Span<'a>>) {
    let region = &text.as_bytes()[..to];
    let mut i = from;
    let mut restarts = 0;
    while i < to {
        if region[i] != b'[' && region[i] != b'{' {
            i += 1;
            continue;
        }
        match closing_of(region, i) {
            Some(end) => {
                out.push(Span {
                    offset: i,
                    text: &text[i..=end],
                });
                i = end + 1;
            }
            None => {
                restarts += 1;
                if restarts > MAX_RESTARTS {
                    return;
                }
                i += 1;
            }
        }
    }
}

/// The index of the bracket closing the one at `start`, or `None` when it never
/// closes or a mismatched bracket appears.
fn closing_of(bytes: &[u8], start: usize) -> Option<usize> {
    let mut stack: Vec<u8> = Vec::new();
    let mut quote: Option<u8> = None;
    let mut escaped = false;
    for (i, &b) in bytes.iter().enumerate().skip(start) {
        if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == q {
                quote = None;
            } else if b == b'\n' && q == b'\'' {
                // A single-quoted "string" never spans lines: it was an apostrophe.
                return None;
            }
            continue;
        }
        match b {
            b'"' | b'\'' => quote = Some(b),
            b'[' => stack.push(b']'),
            b'{' => stack.push(b'}'),
            b']' | b'}' => {
                if stack.pop() != Some(b) {
                    return None;
                }
                if stack.is_empty() {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn texts(s: &str) -> Vec<&str> {
        candidate_spans(s).into_iter().map(|s| s.text).collect()
    }

    #[test]
    fn finds_bare_arrays_in_prose() {
        assert_eq!(
            texts("Here: [1, [2]] and {\"a\": \"]\"} done"),
            vec!["[1, [2]]", "{\"a\": \"]\"}"]
        );
    }

    #[test]
    fn finds_fenced_json_and_skips_other_languages() {
        let s = "a\n```json\n[{\"x\": 1}]\n```\n```rust\nlet v = vec![1];\n```\nb [2]";
        assert_eq!(texts(s), vec!["[{\"x\": 1}]", "[2]"]);
    }

    #[test]
    fn an_apostrophe_does_not_swallow_the_rest() {
        assert_eq!(texts("it's [\"ok\"] now"), vec!["[\"ok\"]"]);
        assert_eq!(texts("[Bob's note\n] then [3]"), vec!["[3]"]);
    }

    #[test]
    fn unclosed_brackets_restart() {
        assert_eq!(texts("[ unclosed { [4]"), vec!["[4]"]);
    }
}
