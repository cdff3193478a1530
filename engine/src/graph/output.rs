//! Typed outputs: find JSON in a step's text, tolerantly, then validate it.
//!
//! Accepted forms: bare JSON, a fenced ```json block (or any fenced block), or a
//! JSON object/array embedded in prose. When several candidates exist, the most
//! complete one (the longest JSON text) wins; the whole text wins when it parses.
//! Validation uses the step's declared JSON Schema. This module never retries or
//! corrects: the executor decides what an invalid output means for the step.

use serde_json::Value;

/// Why a typed output was not accepted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OutputError {
    /// No JSON value could be found in the text.
    NoJson,
    /// JSON was found but does not satisfy the schema (each error with its path).
    Invalid(Vec<String>),
    /// The declared schema itself is not a valid JSON Schema.
    BadSchema(String),
}

impl std::fmt::Display for OutputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OutputError::NoJson => f.write_str("the output contains no JSON value"),
            OutputError::Invalid(errors) => {
                write!(
                    f,
                    "the output does not match its schema: {}",
                    errors.join("; ")
                )
            }
            OutputError::BadSchema(reason) => write!(f, "the output schema is invalid: {reason}"),
        }
    }
}

/// Text longer than this is not scanned for embedded JSON (bare JSON still parses).
const MAX_SCAN_BYTES: usize = 1 << 20;

/// Finds the most complete JSON value in `text`.
pub fn extract_json(text: &str) -> Option<Value> {
    let trimmed = text.trim();
    if let Ok(value) = serde_json::from_str::<Value>(trimmed) {
        return Some(value);
    }
    let mut best: Option<(usize, Value)> = None;
    let mut consider = |len: usize, value: Value| {
        if best.as_ref().is_none_or(|(best_len, _)| len > *best_len) {
            best = Some((len, value));
        }
    };
    for block in fenced_blocks(trimmed) {
        if let Ok(value) = serde_json::from_str::<Value>(block.trim()) {
            consider(block.trim().len(), value);
        }
    }
    if trimmed.len() <= MAX_SCAN_BYTES {
        let bytes = trimmed.as_bytes();
        let mut at = 0;
        while at < bytes.len() {
            if bytes[at] == b'{' || bytes[at] == b'[' {
                let mut stream =
                    serde_json::Deserializer::from_str(&trimmed[at..]).into_iter::<Value>();
                if let Some(Ok(value)) = stream.next() {
                    let len = stream.byte_offset();
                    consider(len, value);
                    // Anything starting inside this value is part of it.
                    at += len.max(1);
                    continue;
                }
            }
            at += 1;
        }
    }
    best.map(|(_, value)| value)
}

/// The bodies of fenced code blocks (```json ... ``` or ``` ... ```).
fn fenced_blocks(text: &str) -> Vec<&str> {
    let mut blocks = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find("```") {
        let after = &rest[open + 3..];
        let Some(newline) = after.find('\n') else {
            break;
        };
        let body = &after[newline + 1..];
        let Some(close) = body.find("```") else {
            break;
        };
        blocks.push(&body[..close]);
        rest = &body[close + 3..];
    }
    blocks
}

/// Validates `value` against `schema`.
pub fn validate(schema: &Value, value: &Value) -> Result<(), OutputError> {
    let validator =
        jsonschema::validator_for(schema).map_err(|e| OutputError::BadSchema(e.to_string()))?;
    let errors: Vec<String> = validator
        .iter_errors(value)
        .map(|e| {
            let path = e.instance_path().to_string();
            if path.is_empty() {
                e.to_string()
            } else {
                format!("at {path}: {e}")
            }
        })
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(OutputError::Invalid(errors))
    }
}

/// Parses a step's raw result into a typed output: strings are searched for JSON;
/// other values are validated as they are.
pub fn typed_output(schema: &Value, raw: &Value) -> Result<Value, OutputError> {
    let value = match raw {
        Value::String(text) => extract_json(text).ok_or(OutputError::NoJson)?,
        other => other.clone(),
    };
    validate(schema, &value)?;
    Ok(value)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use serde_json::json;

    #[test]
    fn bare_json_parses() {
        assert_eq!(extract_json(" {\"a\": 1} "), Some(json!({"a": 1})));
    }

    #[test]
    fn a_fenced_block_parses() {
        let text = "Here you go:\n```json\n{\"findings\": []}\n```\nThanks.";
        assert_eq!(extract_json(text), Some(json!({"findings": []})));
    }

    #[test]
    fn json_in_prose_parses_and_the_most_complete_candidate_wins() {
        let text = "I looked at [1] and found {\"findings\": [{\"id\": 1}, {\"id\": 2}]} in total.";
        assert_eq!(
            extract_json(text),
            Some(json!({"findings": [{"id": 1}, {"id": 2}]}))
        );
    }

    #[test]
    fn prose_without_json_has_none() {
        assert_eq!(extract_json("all good, nothing to report {not json"), None);
    }

    #[test]
    fn validation_reports_the_path() {
        let schema =
            json!({"type": "object", "required": ["n"], "properties": {"n": {"type": "integer"}}});
        assert!(typed_output(&schema, &json!("{\"n\": 3}")).is_ok());
        let err = typed_output(&schema, &json!({"n": "x"})).unwrap_err();
        assert!(err.to_string().contains("/n"), "{err}");
        assert_eq!(
            typed_output(&schema, &json!("nothing")),
            Err(OutputError::NoJson)
        );
    }
}
