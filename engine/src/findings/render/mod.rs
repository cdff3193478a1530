//! Renderers of a [`Report`](super::report::Report): Markdown (a PR comment), SARIF
//! 2.1.0 (code scanning) and JSON (the typed report itself).
//!
//! Renderers only format; they must never decide verdicts, filter findings by
//! policy or publish raw model text.

mod markdown;
mod sarif;
mod text;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use markdown::render_markdown;
pub use sarif::{FINGERPRINT_KEY, INFORMATION_URI, SARIF_SCHEMA_URI, render_sarif};

use super::error::FindingsError;
use super::report::Report;

/// An output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// A PR comment.
    Markdown,
    /// SARIF 2.1.0.
    Sarif,
    /// The typed report.
    Json,
}

/// Default size cap of the Markdown comment (GitHub refuses comments over 65,536).
pub const DEFAULT_MAX_MARKDOWN_CHARS: usize = 60_000;

/// Rendering options.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct RenderOptions {
    /// Repository web URL (`https://github.com/owner/repo`); with `head_sha`,
    /// `file:line` becomes a link to `{base_url}/blob/{head_sha}/{file}#L{line}`.
    pub base_url: Option<String>,
    /// The reviewed commit.
    pub head_sha: Option<String>,
    /// The Markdown heading.
    pub title: String,
    /// Markdown size cap; findings past it are counted, not shown.
    pub max_chars: usize,
}

impl Default for RenderOptions {
    fn default() -> Self {
        RenderOptions {
            base_url: None,
            head_sha: None,
            title: "protoflow review".to_owned(),
            max_chars: DEFAULT_MAX_MARKDOWN_CHARS,
        }
    }
}

/// Renders a report: Markdown as a JSON string, SARIF and JSON as objects.
pub fn render(
    report: &Report,
    format: Format,
    options: &RenderOptions,
) -> Result<Value, FindingsError> {
    Ok(match format {
        Format::Markdown => Value::String(render_markdown(report, options)),
        Format::Sarif => render_sarif(report),
        Format::Json => {
            serde_json::to_value(report).map_err(|source| FindingsError::Serialize {
                what: "report",
                source,
            })?
        }
    })
}
