//! The HTTP client settings every web tool shares, and bounded body reading.
//!
//! Owns the TLS provider installation (ring, installed once and idempotently:
//! reqwest is built without a default provider and panics without one), the
//! base client settings (no proxy, no automatic redirects, no compression, a
//! connect timeout; a search backend's client adds a total timeout) and
//! [`read_capped`], which stops reading a body at a byte cap instead of
//! buffering it whole. It never decides which addresses are allowed: the fetch
//! pins its client to checked addresses.

use std::time::Duration;

use reqwest::redirect;

/// The User-Agent of every request protoflow's web tools make.
pub const USER_AGENT: &str = concat!("protoflow/", env!("CARGO_PKG_VERSION"), " (web tools)");

/// A client builder with the settings every web request uses: no proxy (the
/// address checks must apply to the real peer), no automatic redirects (each
/// hop is checked by the caller), a connect timeout and protoflow's User-Agent.
pub fn base_builder(connect_timeout: Duration) -> reqwest::ClientBuilder {
    crate::tls::ensure_crypto_provider();
    reqwest::Client::builder()
        .no_proxy()
        .redirect(redirect::Policy::none())
        .connect_timeout(connect_timeout)
        .user_agent(USER_AGENT)
}

/// The client of a search backend: the base settings, with `timeout` for the
/// connection and for the whole request.
pub fn search_client(timeout: Duration) -> Result<reqwest::Client, super::error::WebError> {
    base_builder(timeout)
        .timeout(timeout)
        .build()
        .map_err(|err| super::error::WebError::Client(err.to_string()))
}

/// A body read under a byte cap.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CappedBody {
    /// At most `cap` bytes: the start of the body.
    pub bytes: Vec<u8>,
    /// Bytes received from the network (at most `cap` plus one chunk).
    pub bytes_read: u64,
    /// Whether the body was longer than the cap (reading stopped there).
    pub truncated: bool,
}

/// Reads `response`'s body chunk by chunk, keeping at most `cap` bytes, and stops
/// (dropping the connection) as soon as the cap is passed. `on_chunk` sees each
/// chunk first and may refuse the body early (for example on a NUL byte).
pub async fn read_capped<E>(
    mut response: reqwest::Response,
    cap: usize,
    mut on_chunk: impl FnMut(&[u8]) -> Result<(), E>,
    transport: impl Fn(reqwest::Error) -> E,
) -> Result<CappedBody, E> {
    let expected = response
        .content_length()
        .and_then(|len| usize::try_from(len).ok())
        .unwrap_or(0);
    let mut bytes = Vec::with_capacity(expected.min(cap));
    let mut bytes_read = 0u64;
    let mut truncated = false;
    while let Some(chunk) = response.chunk().await.map_err(&transport)? {
        bytes_read += chunk.len() as u64;
        on_chunk(&chunk)?;
        let room = cap - bytes.len();
        if chunk.len() > room {
            bytes.extend_from_slice(&chunk[..room]);
            truncated = true;
            break;
        }
        bytes.extend_from_slice(&chunk);
    }
    Ok(CappedBody {
        bytes,
        bytes_read,
        truncated,
    })
}

/// Sends a search backend's request and parses its JSON answer, reading at most
/// `cap` bytes. Errors name `backend` and the status, never the request's headers
/// (which may carry a key) nor the URL's credentials.
pub async fn get_json(
    request: reqwest::RequestBuilder,
    backend: &'static str,
    cap: usize,
) -> Result<serde_json::Value, super::error::WebError> {
    use super::error::WebError;
    let failed = |reason: String| WebError::SearchFailed { backend, reason };
    let response = request
        .send()
        .await
        .map_err(|err| failed(super::fetch::describe(&err.without_url())))?;
    let status = response.status();
    let body = read_capped(
        response,
        cap,
        |_| Ok(()),
        |err| failed(super::fetch::describe(&err.without_url())),
    )
    .await?;
    if !status.is_success() {
        let excerpt: String = String::from_utf8_lossy(&body.bytes)
            .chars()
            .take(200)
            .collect();
        return Err(failed(format!("HTTP {status}: {}", excerpt.trim())));
    }
    if body.truncated {
        return Err(failed(format!("the answer is larger than {cap} bytes")));
    }
    serde_json::from_slice(&body.bytes)
        .map_err(|err| failed(format!("the answer is not the expected JSON: {err}")))
}

/// `url` without user name and password, for messages.
pub fn redacted(url: &url::Url) -> String {
    let mut shown = url.clone();
    let _ = shown.set_username("");
    let _ = shown.set_password(None);
    shown.to_string()
}
