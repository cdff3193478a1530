//! The HTTP transport shared by the OpenAI-compatible and Anthropic providers:
//! sending, streaming, classifying failures, retries with backoff, fallback models,
//! and reporting every attempt.
//!
//! This module owns the mechanics of a call. It must never know a wire format's
//! fields (the `Wire` implementations do) and never put a key anywhere but a
//! sensitive request header.
//!
//! Failure classification (one place, here):
//! - retried (with backoff, or the server's `Retry-After` / `retry-after-ms` when it
//!   is at most `RetryPolicy::max_retry_after`): HTTP 429, HTTP 5xx, connection
//!   failures, connection resets (while sending or while reading the body), timeouts;
//! - never retried: any other 4xx, an answer that arrived complete (however
//!   malformed its tool arguments), an answer the wire decoder cannot read, an
//!   `error` event inside a 200 stream, and a stream that ended cleanly without its
//!   final event (`TruncatedStream`: the server chose to stop, replaying it is not
//!   this layer's call);
//! - after the retries of a model are exhausted by retryable failures, the next
//!   fallback model is tried; a non-retryable failure ends the call at once.
//!
//! Every attempt is reported to the `AttemptObserver` as it ends and listed in the
//! response, so the caller can charge all of them to the run budget.

use std::time::{Duration, Instant};

use async_trait::async_trait;
use reqwest::header::{CONTENT_TYPE, HeaderMap, HeaderValue};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::error::LlmError;
use super::key::{ApiKey, redact};
use super::message::{
    Attempt, AttemptNext, ChatRequest, ChatResponse, RequestSize, StopReason, ToolCall, Usage,
};
use super::provider::{AttemptObserver, Provider, ProviderDescription};
use super::retry::{RetryPolicy, retry_after};
use super::sse::{SseDecoder, SseEvent};

/// Largest response body read (streamed or not); a bigger one is an error.
const MAX_RESPONSE_BYTES: usize = 16 * 1024 * 1024;
/// Characters of an error body kept in an error message.
const ERROR_BODY_CHARS: usize = 1000;

/// Settings of an HTTP provider (OpenAI-compatible or Anthropic).
#[derive(Debug)]
pub struct HttpSettings {
    /// The provider's name (for errors, attempts and `describe()`).
    pub name: String,
    /// Base URL without the endpoint path, e.g. `http://localhost:11434/v1`.
    pub base_url: String,
    /// The model asked when a request names none.
    pub model: String,
    /// Tried in order after the model's retries are exhausted.
    pub fallback_models: Vec<String>,
    /// Sent only when present.
    pub api_key: Option<ApiKey>,
    /// The name of the variable the key came from (shown by `describe()`).
    pub api_key_env: Option<String>,
    /// Whole-request timeout (connect, send, and read of the full answer).
    pub timeout: Duration,
    pub retry: RetryPolicy,
    pub context_window: Option<u32>,
}

impl HttpSettings {
    /// Settings with defaults: no key, no fallbacks, 300 s timeout, default retries.
    pub fn new(
        name: impl Into<String>,
        base_url: impl Into<String>,
        model: impl Into<String>,
    ) -> Self {
        HttpSettings {
            name: name.into(),
            base_url: base_url.into(),
            model: model.into(),
            fallback_models: Vec::new(),
            api_key: None,
            api_key_env: None,
            timeout: Duration::from_secs(300),
            retry: RetryPolicy::default(),
            context_window: None,
        }
    }
}

/// What a wire decoder produced from a complete answer.
#[derive(Debug, Default)]
pub(crate) struct Parsed {
    pub text: String,
    pub tool_calls: Vec<ToolCall>,
    pub stop_reason: Option<StopReason>,
    pub usage: Option<Usage>,
}

/// Why a wire decoder could not produce an answer.
#[derive(Debug)]
pub(crate) enum WireFailure {
    /// The payload is not the expected format.
    Invalid(String),
    /// The server reported an error inside a 200 answer (e.g. an SSE `error` event).
    Server(String),
    /// The stream ended before its final event.
    Truncated(String),
}

/// Incremental decoder of one streamed answer.
pub(crate) trait StreamAssembler: Default + Send {
    /// Takes one SSE event; returns `true` once the final event has arrived.
    fn event(&mut self, event: SseEvent) -> Result<bool, WireFailure>;
    /// The assembled answer; an error when the final event never came.
    fn finish(self) -> Result<Parsed, WireFailure>;
}

/// One wire format.
pub(crate) trait Wire: Send + Sync + 'static {
    type Stream: StreamAssembler;
    /// `openai` or `anthropic`.
    const KIND: &'static str;
    /// The endpoint URL for a base URL.
    fn url(base_url: &str) -> String;
    /// The JSON body for `request` asking `model`, and the bytes of its tool declarations.
    fn body(request: &ChatRequest, model: &str) -> (Value, u64);
    /// Headers carrying the key (marked sensitive) and the format's fixed headers.
    fn headers(key: Option<&ApiKey>) -> Result<HeaderMap, String>;
    /// Decodes a whole (non-streamed) answer.
    fn parse(body: &[u8]) -> Result<Parsed, WireFailure>;
}

/// A failed attempt and how to go on.
struct Failure {
    error: LlmError,
    status: Option<u16>,
    retryable: bool,
    retry_after: Option<Duration>,
}

impl Failure {
    fn fatal(error: LlmError, status: Option<u16>) -> Self {
        Failure {
            error,
            status,
            retryable: false,
            retry_after: None,
        }
    }
}

/// A provider speaking wire format `W` over HTTP.
pub(crate) struct HttpProvider<W: Wire> {
    settings: HttpSettings,
    client: reqwest::Client,
    _wire: std::marker::PhantomData<fn() -> W>,
}

impl<W: Wire> std::fmt::Debug for HttpProvider<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpProvider")
            .field("kind", &W::KIND)
            .field("settings", &self.settings)
            .finish_non_exhaustive()
    }
}

impl<W: Wire> HttpProvider<W> {
    /// Builds the provider and its HTTP client.
    pub(crate) fn build(settings: HttpSettings) -> Result<Self, LlmError> {
        let url =
            reqwest::Url::parse(&settings.base_url).map_err(|e| LlmError::InvalidBaseUrl {
                provider: settings.name.clone(),
                url: settings.base_url.clone(),
                message: e.to_string(),
            })?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(LlmError::InvalidBaseUrl {
                provider: settings.name.clone(),
                url: settings.base_url.clone(),
                message: "the scheme must be http or https".into(),
            });
        }
        crate::tls::ensure_crypto_provider();
        let client = reqwest::Client::builder()
            .timeout(settings.timeout)
            .connect_timeout(settings.timeout.min(Duration::from_secs(30)))
            .build()
            .map_err(|e| LlmError::Transport {
                provider: settings.name.clone(),
                model: settings.model.clone(),
                message: format!("cannot build the HTTP client: {e}"),
            })?;
        Ok(HttpProvider {
            settings,
            client,
            _wire: std::marker::PhantomData,
        })
    }

    fn size(request: &ChatRequest, model: &str) -> (Vec<u8>, RequestSize) {
        let (body, tool_bytes) = W::body(request, model);
        let bytes = serde_json::to_vec(&body).unwrap_or_default();
        let size = RequestSize::new(bytes.len() as u64, tool_bytes);
        (bytes, size)
    }

    fn scrub(&self, text: &str) -> String {
        redact(self.settings.api_key.as_ref(), text)
    }

    fn transport(&self, model: &str, error: &reqwest::Error) -> Failure {
        let error_text = self.scrub(&error_chain(error));
        let failure = if error.is_timeout() {
            LlmError::Timeout {
                provider: self.settings.name.clone(),
                model: model.to_string(),
                seconds: self.settings.timeout.as_secs(),
            }
        } else {
            LlmError::Transport {
                provider: self.settings.name.clone(),
                model: model.to_string(),
                message: error_text,
            }
        };
        // Connection failures, resets (while sending or reading) and timeouts are
        // retried; a request that could not even be built is not.
        let retryable = !error.is_builder() && !error.is_redirect() && !error.is_decode();
        Failure {
            error: failure,
            status: None,
            retryable,
            retry_after: None,
        }
    }

    fn wire_failure(&self, model: &str, failure: WireFailure, status: u16) -> Failure {
        let provider = self.settings.name.clone();
        let model = model.to_string();
        let error = match failure {
            WireFailure::Invalid(detail) => LlmError::InvalidResponse {
                provider,
                model,
                detail: self.scrub(&trim(&detail)),
            },
            WireFailure::Server(message) => LlmError::StreamError {
                provider,
                model,
                message: self.scrub(&trim(&message)),
            },
            WireFailure::Truncated(detail) => LlmError::TruncatedStream {
                provider,
                model,
                detail,
            },
        };
        // A response arrived: it is never replayed, whatever it was.
        Failure::fatal(error, Some(status))
    }

    async fn attempt(&self, body: Vec<u8>, model: &str, stream: bool) -> Result<Parsed, Failure> {
        let mut headers = W::headers(self.settings.api_key.as_ref()).map_err(|message| {
            Failure::fatal(
                LlmError::Transport {
                    provider: self.settings.name.clone(),
                    model: model.to_string(),
                    message,
                },
                None,
            )
        })?;
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        let mut response = self
            .client
            .post(W::url(&self.settings.base_url))
            .headers(headers)
            .body(body)
            .send()
            .await
            .map_err(|e| self.transport(model, &e))?;
        let status = response.status();
        if !status.is_success() {
            let wait = retry_after(response.headers());
            let body = self
                .read_capped(&mut response, model, 64 * 1024)
                .await
                .unwrap_or_default();
            let retryable = status.as_u16() == 429 || status.is_server_error();
            return Err(Failure {
                error: LlmError::HttpStatus {
                    provider: self.settings.name.clone(),
                    model: model.to_string(),
                    status: status.as_u16(),
                    body: self.scrub(&trim(&String::from_utf8_lossy(&body))),
                },
                status: Some(status.as_u16()),
                retryable,
                retry_after: wait,
            });
        }
        let is_sse = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("text/event-stream"));
        if stream && is_sse {
            return self
                .read_stream(&mut response, model, status.as_u16())
                .await;
        }
        let body = self
            .read_capped(&mut response, model, MAX_RESPONSE_BYTES)
            .await?;
        W::parse(&body).map_err(|f| self.wire_failure(model, f, status.as_u16()))
    }

    async fn read_capped(
        &self,
        response: &mut reqwest::Response,
        model: &str,
        cap: usize,
    ) -> Result<Vec<u8>, Failure> {
        let mut body = Vec::new();
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|e| self.transport(model, &e))?
        {
            if body.len() + chunk.len() > cap {
                if cap < MAX_RESPONSE_BYTES {
                    // An error body: keep the beginning, that is enough to explain.
                    body.extend_from_slice(&chunk[..cap.saturating_sub(body.len())]);
                    return Ok(body);
                }
                return Err(Failure::fatal(
                    LlmError::InvalidResponse {
                        provider: self.settings.name.clone(),
                        model: model.to_string(),
                        detail: format!("the response is larger than {cap} bytes"),
                    },
                    Some(response.status().as_u16()),
                ));
            }
            body.extend_from_slice(&chunk);
        }
        Ok(body)
    }

    async fn read_stream(
        &self,
        response: &mut reqwest::Response,
        model: &str,
        status: u16,
    ) -> Result<Parsed, Failure> {
        let mut decoder = SseDecoder::default();
        let mut assembler = W::Stream::default();
        let mut read = 0usize;
        let mut done = false;
        let invalid = |detail: String| WireFailure::Invalid(detail);
        while !done {
            let Some(chunk) = response
                .chunk()
                .await
                .map_err(|e| self.transport(model, &e))?
            else {
                for event in decoder
                    .finish()
                    .map_err(|e| self.wire_failure(model, invalid(e), status))?
                {
                    // Whether this was the final event is the assembler's to judge.
                    assembler
                        .event(event)
                        .map_err(|f| self.wire_failure(model, f, status))?;
                }
                break;
            };
            read += chunk.len();
            if read > MAX_RESPONSE_BYTES {
                return Err(self.wire_failure(
                    model,
                    invalid(format!(
                        "the stream is larger than {MAX_RESPONSE_BYTES} bytes"
                    )),
                    status,
                ));
            }
            for event in decoder
                .feed(&chunk)
                .map_err(|e| self.wire_failure(model, invalid(e), status))?
            {
                if assembler
                    .event(event)
                    .map_err(|f| self.wire_failure(model, f, status))?
                {
                    done = true;
                    break;
                }
            }
        }
        assembler
            .finish()
            .map_err(|f| self.wire_failure(model, f, status))
    }

    fn models(&self, request: &ChatRequest) -> Vec<String> {
        let primary = request
            .model
            .clone()
            .unwrap_or_else(|| self.settings.model.clone());
        let mut models = vec![primary];
        for fallback in &self.settings.fallback_models {
            if !models.contains(fallback) {
                models.push(fallback.clone());
            }
        }
        models
    }
}

#[async_trait]
impl<W: Wire> Provider for HttpProvider<W> {
    fn name(&self) -> &str {
        &self.settings.name
    }

    fn describe(&self) -> ProviderDescription {
        ProviderDescription {
            name: self.settings.name.clone(),
            kind: W::KIND.to_string(),
            base_url: self.settings.base_url.clone(),
            model: self.settings.model.clone(),
            fallback_models: self.settings.fallback_models.clone(),
            native_tools: true,
            has_api_key: self.settings.api_key.is_some(),
            api_key_env: self.settings.api_key_env.clone(),
            context_window: self.settings.context_window,
            test_double: false,
        }
    }

    fn measure(&self, request: &ChatRequest) -> RequestSize {
        let model = request.model.as_deref().unwrap_or(&self.settings.model);
        Self::size(request, model).1
    }

    async fn complete_observed(
        &self,
        request: &ChatRequest,
        cancel: CancellationToken,
        observer: &dyn AttemptObserver,
    ) -> Result<ChatResponse, LlmError> {
        let models = self.models(request);
        let policy = &self.settings.retry;
        let mut attempts: Vec<Attempt> = Vec::new();
        let mut number = 0u32;
        let mut last_error = None;
        for (model_index, model) in models.iter().enumerate() {
            let (body, size) = Self::size(request, model);
            let mut retry = 0u32;
            loop {
                number += 1;
                let started = Instant::now();
                let outcome = tokio::select! {
                    _ = cancel.cancelled() => Err(Failure::fatal(LlmError::Cancelled, None)),
                    outcome = self.attempt(body.clone(), model, request.stream) => outcome,
                };
                let mut record = Attempt {
                    provider: self.settings.name.clone(),
                    model: model.clone(),
                    number,
                    status: None,
                    usage: None,
                    request_size: size,
                    elapsed_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
                    error: None,
                    next: AttemptNext::Done,
                };
                let failure = match outcome {
                    Ok(parsed) => {
                        record.status = Some(200);
                        record.usage = parsed.usage;
                        observer.attempt(&record);
                        attempts.push(record);
                        return Ok(ChatResponse {
                            text: parsed.text,
                            tool_calls: parsed.tool_calls,
                            stop_reason: parsed.stop_reason.unwrap_or(StopReason::Unknown),
                            usage: parsed.usage,
                            model: model.clone(),
                            request_size: size,
                            attempts,
                            action_error: None,
                        });
                    }
                    Err(failure) => failure,
                };
                record.status = failure.status;
                record.error = Some(failure.error.to_string());
                let wait = failure.retry_after.unwrap_or_else(|| policy.backoff(retry));
                let may_retry = failure.retryable
                    && retry < policy.max_retries
                    && wait <= policy.max_retry_after;
                if may_retry {
                    record.next = AttemptNext::Retry {
                        wait_ms: u64::try_from(wait.as_millis()).unwrap_or(u64::MAX),
                    };
                    observer.attempt(&record);
                    attempts.push(record);
                    retry += 1;
                    tokio::select! {
                        _ = cancel.cancelled() => return Err(LlmError::Cancelled),
                        _ = tokio::time::sleep(wait) => {}
                    }
                    continue;
                }
                let next_model = models.get(model_index + 1);
                match (failure.retryable, next_model) {
                    (true, Some(next)) => {
                        record.next = AttemptNext::Fallback {
                            model: next.clone(),
                        };
                        observer.attempt(&record);
                        attempts.push(record);
                        last_error = Some(failure.error);
                        break;
                    }
                    (true, None) => {
                        record.next = AttemptNext::GiveUp;
                        observer.attempt(&record);
                        return Err(LlmError::Exhausted {
                            provider: self.settings.name.clone(),
                            attempts: number,
                            models: models.join(", "),
                            last: Box::new(failure.error),
                        });
                    }
                    (false, _) => {
                        record.next = AttemptNext::GiveUp;
                        observer.attempt(&record);
                        return Err(failure.error);
                    }
                }
            }
        }
        // Only reachable with an empty model list, which `models()` never returns.
        Err(last_error.unwrap_or(LlmError::MissingModel {
            provider: self.settings.name.clone(),
            config_path: String::new(),
        }))
    }
}

/// The error and its sources, joined (reqwest's top-level text hides the cause).
fn error_chain(error: &reqwest::Error) -> String {
    let mut text = error.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// A body cut to `ERROR_BODY_CHARS` characters, whitespace collapsed.
pub(crate) fn trim(text: &str) -> String {
    let collapsed = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if collapsed.chars().count() <= ERROR_BODY_CHARS {
        return collapsed;
    }
    let cut: String = collapsed.chars().take(ERROR_BODY_CHARS).collect();
    format!("{cut}… (trimmed)")
}

/// Inserts a header value marked sensitive (never printed by reqwest's Debug).
pub(crate) fn sensitive(value: &str) -> Result<HeaderValue, String> {
    let mut value = HeaderValue::from_str(value)
        .map_err(|_| "the API key contains characters not allowed in an HTTP header".to_string())?;
    value.set_sensitive(true);
    Ok(value)
}
