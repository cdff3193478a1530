//! The SearXNG search backend: `GET {base}/search?q=...&format=json`.
//!
//! Owns building the request and reading SearXNG's JSON answer into hits. The base
//! URL comes from the user's configuration (`PROTOFLOW_SEARXNG_URL`), so it may be
//! a self-hosted instance on the local network: it is not subject to the
//! `fetch_url` address policy, which guards model-chosen URLs. It never follows
//! redirects and never prints URL credentials.

use std::time::Duration;

use async_trait::async_trait;
use serde_json::Value;
use url::Url;

use super::client::{get_json, redacted, search_client};
use super::error::WebError;
use super::search::{SearchBackend, SearchHit, read_hits};

const NAME: &str = "SearXNG";
const ANSWER_CAP: usize = 1024 * 1024;

/// A SearXNG instance (its JSON output format must be enabled in its settings).
#[derive(Debug, Clone)]
pub struct SearxngBackend {
    search_url: Url,
    timeout: Duration,
}

impl SearxngBackend {
    /// The instance at `base` (for example `https://searx.example.org/`).
    pub fn new(base: Url) -> Result<Self, WebError> {
        let misconfigured = |reason: String| WebError::SearchMisconfigured {
            backend: NAME,
            reason,
        };
        if !matches!(base.scheme(), "http" | "https") {
            return Err(misconfigured(format!(
                "PROTOFLOW_SEARXNG_URL must be an http(s) URL, not `{}`",
                redacted(&base)
            )));
        }
        let mut search_url = base.clone();
        search_url.set_query(None);
        search_url.set_fragment(None);
        search_url
            .path_segments_mut()
            .map_err(|()| misconfigured("PROTOFLOW_SEARXNG_URL cannot be a base URL".to_owned()))?
            .pop_if_empty()
            .push("search");
        Ok(SearxngBackend {
            search_url,
            timeout: Duration::from_secs(20),
        })
    }

    /// Parses `text` as the instance's base URL.
    pub fn from_text(text: &str) -> Result<Self, WebError> {
        let base = Url::parse(text).map_err(|err| WebError::SearchMisconfigured {
            backend: NAME,
            reason: format!("PROTOFLOW_SEARXNG_URL is not a valid URL: {err}"),
        })?;
        SearxngBackend::new(base)
    }
}

#[async_trait]
impl SearchBackend for SearxngBackend {
    fn describe(&self) -> Result<String, WebError> {
        Ok(format!("{NAME} at {}", redacted(&self.search_url)))
    }

    async fn search(&self, query: &str, count: usize) -> Result<Vec<SearchHit>, WebError> {
        let client = search_client(self.timeout)?;
        let mut url = self.search_url.clone();
        url.query_pairs_mut()
            .append_pair("q", query)
            .append_pair("format", "json");
        let request = client
            .get(url)
            .header(reqwest::header::ACCEPT, "application/json");
        let answer = get_json(request, NAME, ANSWER_CAP).await?;
        parse_answer(&answer, count)
    }
}

fn parse_answer(answer: &Value, count: usize) -> Result<Vec<SearchHit>, WebError> {
    let results = answer
        .get("results")
        .and_then(Value::as_array)
        .ok_or_else(|| WebError::SearchFailed {
            backend: NAME,
            reason: "the answer has no `results` list".to_owned(),
        })?;
    Ok(read_hits(results, "content", count))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn the_search_path_is_appended_to_the_base() {
        let backend = SearxngBackend::from_text("https://u:p@searx.example/sub?x=1").unwrap();
        assert_eq!(backend.search_url.path(), "/sub/search");
        let shown = backend.describe().unwrap();
        assert_eq!(shown, "SearXNG at https://searx.example/sub/search");
        let backend = SearxngBackend::from_text("http://127.0.0.1:8888/").unwrap();
        assert_eq!(backend.search_url.as_str(), "http://127.0.0.1:8888/search");
    }

    #[test]
    fn a_non_http_base_is_misconfigured() {
        assert!(matches!(
            SearxngBackend::from_text("file:///tmp/x"),
            Err(WebError::SearchMisconfigured { .. })
        ));
    }
}
