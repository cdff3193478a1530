//! The Brave Search API backend: `GET .../res/v1/web/search?q=...&count=N` with the
//! key in the `X-Subscription-Token` header.
//!
//! Owns building the request and reading Brave's JSON answer into hits. The key is
//! a `SecretString`: it is exposed only to set the (sensitive-marked) header, and
//! never appears in Debug output, errors or receipts. It never follows redirects
//! (a redirect would carry the key elsewhere).

use std::time::Duration;

use async_trait::async_trait;
use reqwest::header::{ACCEPT, HeaderValue};
use secrecy::{ExposeSecret, SecretString};
use serde_json::Value;
use url::Url;

use super::client::{get_json, search_client};
use super::error::WebError;
use super::search::{SearchBackend, SearchHit, read_hits};

const NAME: &str = "Brave Search";
const DEFAULT_ENDPOINT: &str = "https://api.search.brave.com/res/v1/web/search";
const ANSWER_CAP: usize = 1024 * 1024;

/// The Brave Search API with one subscription key.
#[derive(Debug, Clone)]
pub struct BraveBackend {
    endpoint: Option<Url>,
    key: SecretString,
    timeout: Duration,
}

impl BraveBackend {
    /// The public Brave Search API endpoint with `key`.
    pub fn new(key: SecretString) -> Self {
        BraveBackend {
            endpoint: None,
            key,
            timeout: Duration::from_secs(20),
        }
    }

    /// Another endpoint speaking the same API (a local server in tests).
    pub fn with_endpoint(endpoint: Url, key: SecretString) -> Self {
        BraveBackend {
            endpoint: Some(endpoint),
            ..BraveBackend::new(key)
        }
    }

    fn endpoint(&self) -> Result<Url, WebError> {
        match &self.endpoint {
            Some(endpoint) => Ok(endpoint.clone()),
            None => Url::parse(DEFAULT_ENDPOINT).map_err(|err| WebError::SearchMisconfigured {
                backend: NAME,
                reason: err.to_string(),
            }),
        }
    }
}

impl BraveBackend {
    /// Removes the key from an error's text, should a server have echoed it back.
    fn redact(&self, err: WebError) -> WebError {
        let key = self.key.expose_secret();
        match err {
            WebError::SearchFailed { backend, reason } if !key.is_empty() => {
                WebError::SearchFailed {
                    backend,
                    reason: reason.replace(key, "[redacted]"),
                }
            }
            other => other,
        }
    }
}

#[async_trait]
impl SearchBackend for BraveBackend {
    fn describe(&self) -> Result<String, WebError> {
        Ok(match &self.endpoint {
            None => NAME.to_owned(),
            Some(endpoint) => format!("{NAME} at {}", super::client::redacted(endpoint)),
        })
    }

    async fn search(&self, query: &str, count: usize) -> Result<Vec<SearchHit>, WebError> {
        let mut token = HeaderValue::from_str(self.key.expose_secret()).map_err(|_| {
            WebError::SearchMisconfigured {
                backend: NAME,
                reason: "BRAVE_SEARCH_API_KEY contains characters not allowed in a header"
                    .to_owned(),
            }
        })?;
        token.set_sensitive(true);
        let client = search_client(self.timeout)?;
        let mut url = self.endpoint()?;
        url.query_pairs_mut()
            .append_pair("q", query)
            .append_pair("count", &count.to_string());
        let request = client
            .get(url)
            .header(ACCEPT, "application/json")
            .header("X-Subscription-Token", token);
        let answer = get_json(request, NAME, ANSWER_CAP)
            .await
            .map_err(|err| self.redact(err))?;
        parse_answer(&answer, count)
    }
}

fn parse_answer(answer: &Value, count: usize) -> Result<Vec<SearchHit>, WebError> {
    let Some(web) = answer.get("web") else {
        // No `web` section: Brave found no web results for this query.
        return Ok(Vec::new());
    };
    let results = web
        .get("results")
        .and_then(Value::as_array)
        .ok_or_else(|| WebError::SearchFailed {
            backend: NAME,
            reason: "the answer's `web` section has no `results` list".to_owned(),
        })?;
    Ok(read_hits(results, "description", count))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn the_key_never_shows_in_debug_output() {
        let backend = BraveBackend::new(SecretString::from("sk-very-secret".to_owned()));
        let debug = format!("{backend:?}");
        assert!(!debug.contains("sk-very-secret"), "{debug}");
    }

    #[test]
    fn results_are_read_and_markup_removed() {
        let answer = serde_json::json!({"web": {"results": [
            {"title": "<strong>Rust</strong> book", "url": "https://doc.rust-lang.org/book/",
             "description": "The <strong>Rust</strong> Programming Language"},
            {"title": "no url"}
        ]}});
        let hits = parse_answer(&answer, 5).unwrap();
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].title, "Rust book");
        assert_eq!(hits[0].snippet, "The Rust Programming Language");
    }
}
