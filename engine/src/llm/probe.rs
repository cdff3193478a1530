//! Reachability of a configured provider, for `protoflow doctor`: one cheap
//! unauthenticated `GET` of the server's model list with a bounded timeout.
//!
//! This file owns the probe only. It never sends a key (it has none: it works from a
//! [`ProviderDescription`]), never follows redirects, and never reports a body: only
//! the status, whether the configured model is listed (when the list is readable
//! without a key), and a transport error's kind.

use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::Value;

use super::provider::ProviderDescription;

/// What the probe found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Reachability {
    /// The URL probed (base URL plus the model-list path; never a key).
    pub url: String,
    /// Whether the server answered at all (any HTTP status counts).
    pub reachable: bool,
    /// The HTTP status, when it answered.
    pub status: Option<u16>,
    /// Whether the configured model is in the list; `None` when the list could not
    /// be read (most hosted APIs need a key for it).
    pub model_listed: Option<bool>,
    /// Why it is not reachable.
    pub error: Option<String>,
    /// How long the probe took, in milliseconds.
    pub elapsed_ms: u64,
}

/// The model-list URL of a provider (`None` for the scripted double).
pub fn models_url(description: &ProviderDescription) -> Option<String> {
    let base = description.base_url.trim_end_matches('/');
    match description.kind.as_str() {
        "openai" => Some(format!("{base}/models")),
        "anthropic" => Some(format!("{base}/v1/models")),
        _ => None,
    }
}

fn listed(body: &Value, model: &str) -> Option<bool> {
    let items = body
        .get("data")
        .or_else(|| body.get("models"))?
        .as_array()?;
    Some(items.iter().any(|m| {
        ["id", "name", "model"]
            .iter()
            .any(|k| m.get(k).and_then(Value::as_str) == Some(model))
    }))
}

/// Probes `description`'s server within `timeout`.
pub async fn probe(description: &ProviderDescription, timeout: Duration) -> Reachability {
    let started = Instant::now();
    let elapsed = || u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    let Some(url) = models_url(description) else {
        return Reachability {
            url: description.base_url.clone(),
            reachable: false,
            status: None,
            model_listed: None,
            error: Some("not a network provider".into()),
            elapsed_ms: 0,
        };
    };
    let failed = |error: String, ms: u64| Reachability {
        url: url.clone(),
        reachable: false,
        status: None,
        model_listed: None,
        error: Some(error),
        elapsed_ms: ms,
    };
    crate::tls::ensure_crypto_provider();
    let client = match reqwest::Client::builder()
        .timeout(timeout)
        .connect_timeout(timeout)
        .redirect(reqwest::redirect::Policy::none())
        .build()
    {
        Ok(client) => client,
        Err(e) => return failed(format!("cannot build an HTTP client: {e}"), elapsed()),
    };
    let response = match client.get(&url).send().await {
        Ok(response) => response,
        Err(e) if e.is_timeout() => {
            return failed(
                format!("no answer within {}s", timeout.as_secs()),
                elapsed(),
            );
        }
        Err(e) if e.is_connect() => {
            return failed("connection refused or unreachable".into(), elapsed());
        }
        Err(e) => return failed(format!("request failed: {e}"), elapsed()),
    };
    let status = response.status();
    let model_listed = if status.is_success() {
        // Bounded read: a model list is small.
        match tokio::time::timeout(timeout, response.bytes()).await {
            Ok(Ok(bytes)) if bytes.len() <= 4 * 1024 * 1024 => {
                serde_json::from_slice::<Value>(&bytes)
                    .ok()
                    .and_then(|body| listed(&body, &description.model))
            }
            _ => None,
        }
    } else {
        None
    };
    Reachability {
        url,
        reachable: true,
        status: Some(status.as_u16()),
        model_listed,
        error: None,
        elapsed_ms: elapsed(),
    }
}
