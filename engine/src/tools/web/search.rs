//! `web_search`: search the web through a pluggable backend.
//!
//! Owns the [`SearchBackend`] trait, the [`SearchHit`] shape (and reading hits
//! from a backend's JSON results), the environment-driven backend choice
//! ([`EnvSearchBackend`]: read at call time, never at start-up) and the
//! [`WebSearchTool`]. The concrete backends live in `searxng` and `brave`.
//! Results are untrusted content. It never prints a key, and never guesses a
//! backend: with none configured, the call fails and says how to configure one.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use async_trait::async_trait;
use secrecy::SecretString;
use serde_json::{Value, json};
use url::Url;

use super::brave::BraveBackend;
use super::error::WebError;
use super::html::html_to_text;
use super::searxng::SearxngBackend;
use super::{UNTRUSTED_NOTICE, catalog_spec};
use crate::evidence::ReceiptFacts;
use crate::tools::{PreparedCall, Preview, Tool, ToolContext, ToolError, ToolOutput, ToolSpec};

const TOOL: &str = "web_search";

/// The environment variable naming a SearXNG instance's base URL.
pub const SEARXNG_URL_VAR: &str = "PROTOFLOW_SEARXNG_URL";
/// The environment variable holding a Brave Search API key.
pub const BRAVE_KEY_VAR: &str = "BRAVE_SEARCH_API_KEY";

/// Results returned when the caller does not say how many.
pub const DEFAULT_COUNT: usize = 5;
/// The most results one call may ask for.
pub const MAX_COUNT: usize = 20;
/// The longest query accepted, in characters.
pub const MAX_QUERY_CHARS: usize = 400;

/// One search result. Every field is untrusted text from the backend.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchHit {
    /// The result's title (markup removed).
    pub title: String,
    /// The result's URL, as the backend gave it.
    pub url: String,
    /// The backend's snippet (markup removed).
    pub snippet: String,
}

/// Up to `count` hits from a backend's JSON `results`: each result's `url` (a
/// result without one is skipped), its `title` and its `snippet_key` field as
/// plain text (markup removed).
pub(super) fn read_hits(results: &[Value], snippet_key: &str, count: usize) -> Vec<SearchHit> {
    results
        .iter()
        .filter_map(|result| {
            let url = result.get("url").and_then(Value::as_str)?;
            let text = |key: &str| {
                result
                    .get(key)
                    .and_then(Value::as_str)
                    .map(html_to_text)
                    .unwrap_or_default()
            };
            Some(SearchHit {
                title: text("title"),
                url: url.to_owned(),
                snippet: text(snippet_key),
            })
        })
        .take(count)
        .collect()
}

/// A web search service.
#[async_trait]
pub trait SearchBackend: Send + Sync + fmt::Debug {
    /// Which backend will serve a call now (`SearXNG at ...`, `Brave Search`), or
    /// why none can. Reads configuration, performs no request.
    fn describe(&self) -> Result<String, WebError>;

    /// Up to `count` results for `query`.
    async fn search(&self, query: &str, count: usize) -> Result<Vec<SearchHit>, WebError>;
}

/// Reads one environment variable (the process environment in production).
pub type EnvReader = Arc<dyn Fn(&str) -> Option<String> + Send + Sync>;

/// The backend chosen from the environment at each call: `PROTOFLOW_SEARXNG_URL`
/// (a SearXNG instance) first, then `BRAVE_SEARCH_API_KEY` (the Brave Search API).
#[derive(Clone)]
pub struct EnvSearchBackend {
    read: EnvReader,
    brave_endpoint: Option<Url>,
}

impl fmt::Debug for EnvSearchBackend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EnvSearchBackend")
            .field("brave_endpoint", &self.brave_endpoint)
            .finish_non_exhaustive()
    }
}

enum Chosen {
    Searxng(SearxngBackend),
    Brave(BraveBackend),
}

impl EnvSearchBackend {
    /// Reads the process environment at each call.
    pub fn process() -> Self {
        EnvSearchBackend {
            read: Arc::new(|name| std::env::var(name).ok()),
            brave_endpoint: None,
        }
    }

    /// Reads variables through `read` at each call instead of the process
    /// environment (tests), and sends Brave requests to `brave_endpoint` when given.
    pub fn with_reader(read: EnvReader, brave_endpoint: Option<Url>) -> Self {
        EnvSearchBackend {
            read,
            brave_endpoint,
        }
    }

    /// Reads the fixed `vars` instead of the process environment (tests).
    pub fn from_vars(vars: BTreeMap<String, String>, brave_endpoint: Option<Url>) -> Self {
        EnvSearchBackend::with_reader(
            Arc::new(move |name| vars.get(name).cloned()),
            brave_endpoint,
        )
    }

    fn choose(&self) -> Result<Chosen, WebError> {
        let value = |name: &str| (self.read)(name).filter(|v| !v.trim().is_empty());
        if let Some(base) = value(SEARXNG_URL_VAR) {
            return SearxngBackend::from_text(base.trim()).map(Chosen::Searxng);
        }
        if let Some(key) = value(BRAVE_KEY_VAR) {
            let key = SecretString::from(key.trim().to_owned());
            return Ok(Chosen::Brave(match &self.brave_endpoint {
                Some(endpoint) => BraveBackend::with_endpoint(endpoint.clone(), key),
                None => BraveBackend::new(key),
            }));
        }
        Err(WebError::SearchNotConfigured)
    }
}

#[async_trait]
impl SearchBackend for EnvSearchBackend {
    fn describe(&self) -> Result<String, WebError> {
        match self.choose()? {
            Chosen::Searxng(backend) => backend.describe(),
            Chosen::Brave(backend) => backend.describe(),
        }
    }

    async fn search(&self, query: &str, count: usize) -> Result<Vec<SearchHit>, WebError> {
        match self.choose()? {
            Chosen::Searxng(backend) => backend.search(query, count).await,
            Chosen::Brave(backend) => backend.search(query, count).await,
        }
    }
}

/// The `web_search` tool over a [`SearchBackend`].
#[derive(Debug, Clone)]
pub struct WebSearchTool {
    backend: Arc<dyn SearchBackend>,
}

/// The validated arguments of one search.
#[derive(Debug, Clone)]
struct SearchCall {
    query: String,
    count: usize,
}

impl WebSearchTool {
    /// The production tool: the backend is chosen from the environment at each call.
    pub fn from_env() -> Self {
        WebSearchTool::new(Arc::new(EnvSearchBackend::process()))
    }

    /// A tool over `backend`.
    pub fn new(backend: Arc<dyn SearchBackend>) -> Self {
        WebSearchTool { backend }
    }

    fn parse(args: &Value) -> Result<SearchCall, ToolError> {
        let invalid = |reason: &str| ToolError::InvalidArguments {
            tool: TOOL.to_owned(),
            reason: reason.to_owned(),
        };
        let query = args
            .get("query")
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|q| !q.is_empty())
            .ok_or_else(|| invalid("`query` must be a non-empty string"))?;
        if query.chars().count() > MAX_QUERY_CHARS {
            return Err(invalid("`query` is longer than 400 characters"));
        }
        let count = match args.get("count") {
            None | Some(Value::Null) => DEFAULT_COUNT,
            Some(value) => value
                .as_u64()
                .and_then(|n| usize::try_from(n).ok())
                .filter(|n| (1..=MAX_COUNT).contains(n))
                .ok_or_else(|| invalid("`count` must be an integer from 1 to 20"))?,
        };
        Ok(SearchCall {
            query: query.to_owned(),
            count,
        })
    }
}

#[async_trait]
impl Tool for WebSearchTool {
    fn spec(&self) -> &'static ToolSpec {
        catalog_spec(TOOL)
    }

    fn args_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "query": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": MAX_QUERY_CHARS,
                    "description": "What to search for."
                },
                "count": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": MAX_COUNT,
                    "description": "How many results (default 5)."
                }
            },
            "required": ["query"],
            "additionalProperties": false
        })
    }

    async fn prepare(&self, _ctx: &ToolContext, args: Value) -> Result<PreparedCall, ToolError> {
        let call = WebSearchTool::parse(&args)?;
        let backend = self
            .backend
            .describe()
            .map_err(|err| err.into_tool_error(TOOL))?;
        let preview = Preview {
            summary: format!(
                "search the web for {:?} ({} results)",
                call.query, call.count
            ),
            detail: Some(format!(
                "backend: {backend}; the results are untrusted text"
            )),
        };
        Ok(PreparedCall {
            tool: TOOL,
            args,
            preview,
            payload: Box::new(call),
        })
    }

    async fn execute(
        &self,
        ctx: &ToolContext,
        call: PreparedCall,
    ) -> Result<ToolOutput, ToolError> {
        let search = call.into_payload::<SearchCall>()?;
        let backend = self
            .backend
            .describe()
            .map_err(|err| err.into_tool_error(TOOL))?;
        let hits = tokio::select! {
            () = ctx.cancel.cancelled() => return Err(ToolError::Canceled(TOOL.to_owned())),
            hits = self.backend.search(&search.query, search.count) => {
                hits.map_err(|err| err.into_tool_error(TOOL))?
            }
        };
        let results: Vec<Value> = hits
            .iter()
            .take(search.count)
            .map(|hit| json!({"title": hit.title, "url": hit.url, "snippet": hit.snippet}))
            .collect();
        let value = json!({
            "query": search.query,
            "backend": backend,
            "results": results,
            "untrusted": true,
            "notice": UNTRUSTED_NOTICE,
        });
        let facts = ReceiptFacts {
            output_bytes: value.to_string().len() as u64,
            detail: json!({"backend": backend, "results": results.len()}),
            ..ReceiptFacts::default()
        };
        Ok(ToolOutput { value, facts })
    }
}
