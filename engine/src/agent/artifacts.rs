//! Context artifacts: large tool results kept out of the conversation.
//!
//! A result over the offload threshold is stored here whole; the model sees a short
//! preview and the artifact id, and pages through the rest with the
//! `read_context_artifact(artifact_id, offset, limit)` tool. Artifacts live in memory
//! for one inference (one attempt of a step or one delegated call). This file never
//! decides when to offload; the loop does.

use serde_json::{Value, json};

/// Results larger than this many bytes are offloaded by default.
pub const DEFAULT_OFFLOAD_BYTES: usize = 4 * 1024;
/// Bytes of preview shown in place of an offloaded result.
pub const PREVIEW_BYTES: usize = 600;
/// The most bytes one `read_context_artifact` call returns.
pub const MAX_PAGE_BYTES: usize = 4 * 1024;

/// The artifacts of one inference.
#[derive(Debug, Default, Clone)]
pub struct Artifacts {
    items: Vec<String>,
}

/// The largest index `<= at` that is a char boundary of `text`.
fn floor_boundary(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

impl Artifacts {
    /// An empty set.
    pub fn new() -> Artifacts {
        Artifacts::default()
    }

    /// Whether any artifact exists (the paging tool is offered only then).
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Stores `content` and returns what the model sees instead: a preview, the id
    /// and how to read more.
    pub fn offload(&mut self, tool: &str, content: String) -> String {
        let id = format!("artifact-{}", self.items.len() + 1);
        let cut = floor_boundary(&content, PREVIEW_BYTES);
        let preview = &content[..cut];
        let total = content.len();
        let text = format!(
            "{preview}\n[... the result of `{tool}` is {total} bytes; the rest was offloaded to `{id}`. \
             Read it with read_context_artifact(artifact_id: \"{id}\", offset: {cut}, limit: up to {MAX_PAGE_BYTES}).]"
        );
        self.items.push(content);
        text
    }

    /// One page of an artifact, as the tool's JSON result, or why not.
    pub fn read(&self, args: &Value) -> Result<Value, String> {
        let id = args
            .get("artifact_id")
            .and_then(Value::as_str)
            .ok_or("`artifact_id` (a string) is required")?;
        let index = id
            .strip_prefix("artifact-")
            .and_then(|n| n.parse::<usize>().ok())
            .and_then(|n| n.checked_sub(1))
            .filter(|n| *n < self.items.len())
            .ok_or_else(|| {
                format!(
                    "there is no artifact `{id}`; the artifacts here are: {}",
                    (1..=self.items.len())
                        .map(|n| format!("artifact-{n}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            })?;
        let content = &self.items[index];
        let offset = args.get("offset").and_then(Value::as_u64).unwrap_or(0) as usize;
        let limit = args
            .get("limit")
            .and_then(Value::as_u64)
            .map_or(MAX_PAGE_BYTES, |l| (l as usize).clamp(1, MAX_PAGE_BYTES));
        let start = floor_boundary(content, offset);
        let end = floor_boundary(content, start.saturating_add(limit));
        let end = if end == start && start < content.len() {
            // A limit smaller than one character still makes progress.
            let mut e = start + 1;
            while !content.is_char_boundary(e) {
                e += 1;
            }
            e
        } else {
            end
        };
        Ok(json!({
            "artifact_id": id,
            "offset": start,
            "next_offset": (end < content.len()).then_some(end),
            "total_bytes": content.len(),
            "content": &content[start..end],
        }))
    }

    /// The declaration's argument schema.
    pub fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "artifact_id": {"type": "string"},
                "offset": {"type": "integer", "minimum": 0},
                "limit": {"type": "integer", "minimum": 1, "maximum": MAX_PAGE_BYTES}
            },
            "required": ["artifact_id"],
            "additionalProperties": false
        })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn an_offloaded_result_is_previewed_and_paged_back_whole() {
        let mut artifacts = Artifacts::new();
        let content: String = (0..2000).map(|i| format!("line {i} é\n")).collect();
        let shown = artifacts.offload("read_file", content.clone());
        assert!(shown.len() < 1000, "{}", shown.len());
        assert!(shown.contains("artifact-1"));
        let mut offset = 0;
        let mut rebuilt = String::new();
        loop {
            let page = artifacts
                .read(&json!({"artifact_id": "artifact-1", "offset": offset, "limit": 1000}))
                .unwrap();
            rebuilt.push_str(page["content"].as_str().unwrap());
            match page["next_offset"].as_u64() {
                Some(next) => offset = next,
                None => break,
            }
        }
        assert_eq!(rebuilt, content);
    }

    #[test]
    fn an_unknown_artifact_lists_the_known_ones() {
        let mut artifacts = Artifacts::new();
        artifacts.offload("t", "x".repeat(5000));
        let err = artifacts
            .read(&json!({"artifact_id": "artifact-9"}))
            .unwrap_err();
        assert!(err.contains("artifact-1"), "{err}");
    }
}
