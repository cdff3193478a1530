//! YAML with spans: text -> JSON value plus an index from JSON pointer to source span.
//!
//! Built on saphyr-parser's event API with our own tree builder, so every budget is
//! enforced while building (aliases are counted by their expanded size, so a
//! billion-laughs document is refused after a bounded amount of work and memory).
//! This module owns decoding (size cap, UTF-8), the YAML 1.2 core schema for scalars,
//! duplicate-key detection and the span index. It never knows what a recipe is.

mod build;
mod scalar;
mod spans;

pub use build::parse;
pub use spans::{SpanIndex, pointer_escape, pointer_join, pointer_parent};

use serde_json::Value;

use super::diagnostic::{Diagnostic, Diagnostics};
use super::source::Source;

/// Budgets for one YAML document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct YamlLimits {
    /// Bytes of input (checked before anything else).
    pub max_bytes: usize,
    /// Nodes after expanding aliases.
    pub max_nodes: usize,
    /// Nesting depth of sequences and mappings.
    pub max_depth: usize,
}

impl Default for YamlLimits {
    fn default() -> Self {
        YamlLimits {
            max_bytes: 4 * 1024 * 1024,
            max_nodes: 100_000,
            max_depth: 64,
        }
    }
}

/// A YAML document as JSON, with the span of every node and key.
#[derive(Debug, Clone)]
pub struct SpannedJson {
    /// The document's value (`null` for an empty document).
    pub value: Value,
    /// Where each node (and each mapping key) is in the source.
    pub spans: SpanIndex,
}

/// Checks the size cap and UTF-8, giving the text as a [`Source`] named `name`.
pub fn decode(name: &str, bytes: &[u8], limits: &YamlLimits) -> Result<Source, Diagnostic> {
    if bytes.len() > limits.max_bytes {
        return Err(Diagnostic::new(
            "yaml::too-large",
            format!(
                "the document is {} bytes, over the limit of {} bytes",
                bytes.len(),
                limits.max_bytes
            ),
        )
        .in_source(&Source::new(name, ""))
        .with_help("split the document, or move large data out of it"));
    }
    match std::str::from_utf8(bytes) {
        Ok(text) => Ok(Source::new(
            name,
            text.strip_prefix('\u{feff}').unwrap_or(text),
        )),
        Err(err) => {
            let offset = err.valid_up_to();
            let lossy = String::from_utf8_lossy(bytes).into_owned();
            let source = Source::new(name, lossy);
            let (line, col) = source.line_col(offset);
            Err(Diagnostic::new(
                "yaml::not-utf8",
                format!("the document is not valid UTF-8: invalid byte at line {line}, column {col} (byte offset {offset})"),
            )
            .at(&source, offset..offset + 1)
            .with_label("invalid UTF-8")
            .with_help("save the file as UTF-8"))
        }
    }
}

/// Decodes and parses `bytes`: the whole YAML stage.
pub fn load_yaml(
    name: &str,
    bytes: &[u8],
    limits: &YamlLimits,
) -> Result<(Source, SpannedJson), Diagnostics> {
    let source = decode(name, bytes, limits)?;
    let doc = parse(&source, limits)?;
    Ok((source, doc))
}
