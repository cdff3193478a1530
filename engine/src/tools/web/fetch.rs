//! `fetch_url`: fetch one public http(s) URL as untrusted text.
//!
//! Owns the fetch loop: for each hop, check the URL's shape, resolve the host once
//! and check every address (`resolver`), connect only to those addresses through
//! a client pinned to them, follow redirects by hand within a bound (`redirect`),
//! read the body under a byte cap (stopping, not buffering, past it), refuse
//! binary bodies (`content`), all within one total time limit and the call's
//! cancellation. The result is marked untrusted: evidence, never instructions.
//! It never follows a redirect it has not checked, never uses a proxy, and never
//! reaches a non-public address unless the policy was built for tests.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use reqwest::header::{ACCEPT, CONTENT_TYPE, LOCATION};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;
use url::Url;

use super::client::{base_builder, read_capped};
use super::content::{accept_content_type, decode_body};
use super::error::WebError;
use super::guard::FetchPolicy;
use super::redirect::{REDIRECT_STATUSES, next_hop, parse_start};
use super::resolver::{NameLookup, PinnedResolver, SystemLookup, Target, resolve_target};
use super::{UNTRUSTED_NOTICE, catalog_spec};
use crate::evidence::ReceiptFacts;
use crate::tools::{PreparedCall, Preview, Tool, ToolContext, ToolError, ToolOutput, ToolSpec};

const TOOL: &str = "fetch_url";

/// The limits and address policy of `fetch_url`.
#[derive(Debug, Clone)]
pub struct FetchConfig {
    /// Which addresses may be reached (public only, unless built for tests).
    pub policy: FetchPolicy,
    /// How host names are resolved (the system resolver in production).
    pub lookup: Arc<dyn NameLookup>,
    /// Body bytes kept; reading stops past this and the result says `truncated`.
    pub max_bytes: usize,
    /// Time for the whole fetch: every hop, connection and body read.
    pub timeout: Duration,
    /// Time to establish one connection.
    pub connect_timeout: Duration,
    /// Redirects followed before giving up.
    pub max_redirects: usize,
}

impl Default for FetchConfig {
    /// Public addresses only, the system resolver, 2 MiB, 20 s, 5 redirects.
    fn default() -> Self {
        FetchConfig {
            policy: FetchPolicy::public_only(),
            lookup: Arc::new(SystemLookup),
            max_bytes: 2 * 1024 * 1024,
            timeout: Duration::from_secs(20),
            connect_timeout: Duration::from_secs(10),
            max_redirects: 5,
        }
    }
}

/// What a fetch returned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchResult {
    /// The URL requested.
    pub url: String,
    /// The URL that answered (after redirects).
    pub final_url: String,
    /// The final HTTP status.
    pub status: u16,
    /// The final `Content-Type`, if sent.
    pub content_type: Option<String>,
    /// The body as readable text (HTML converted).
    pub text: String,
    /// Whether the body was cut at the byte cap.
    pub truncated: bool,
    /// Body bytes received from the network (at most the cap plus one chunk).
    pub bytes_read: u64,
    /// Redirects followed.
    pub redirects: usize,
}

impl FetchResult {
    /// The value returned to the caller, marked as untrusted content.
    pub fn to_value(&self) -> Value {
        json!({
            "url": self.url,
            "final_url": self.final_url,
            "status": self.status,
            "content_type": self.content_type,
            "text": self.text,
            "truncated": self.truncated,
            "untrusted": true,
            "notice": UNTRUSTED_NOTICE,
        })
    }
}

/// Performs guarded fetches under a [`FetchConfig`].
#[derive(Debug, Clone)]
pub struct Fetcher {
    config: FetchConfig,
}

impl Fetcher {
    /// A fetcher with `config`.
    pub fn new(config: FetchConfig) -> Self {
        Fetcher { config }
    }

    /// The configuration.
    pub fn config(&self) -> &FetchConfig {
        &self.config
    }

    /// Fetches `url` (text as given), within the total time limit and `cancel`.
    pub async fn fetch(
        &self,
        url: &str,
        cancel: &CancellationToken,
    ) -> Result<FetchResult, WebError> {
        let start = parse_start(url)?;
        self.fetch_url(start, cancel).await
    }

    /// Fetches an already parsed URL (its shape is checked again).
    pub async fn fetch_url(
        &self,
        start: Url,
        cancel: &CancellationToken,
    ) -> Result<FetchResult, WebError> {
        let shown = start.to_string();
        tokio::select! {
            () = cancel.cancelled() => Err(WebError::Canceled { url: shown }),
            outcome = tokio::time::timeout(self.config.timeout, self.follow(start)) => {
                outcome.unwrap_or(Err(WebError::TimedOut {
                    url: shown,
                    limit: format!("{:?}", self.config.timeout),
                }))
            }
        }
    }

    async fn follow(&self, start: Url) -> Result<FetchResult, WebError> {
        super::redirect::check_shape(&start)?;
        let mut current = start.clone();
        let mut redirects = 0;
        loop {
            let target =
                resolve_target(&current, &self.config.policy, self.config.lookup.as_ref()).await?;
            let response = self.request(&current, &target).await?;
            let status = response.status().as_u16();
            if !REDIRECT_STATUSES.contains(&status) {
                return self.read(start, current, redirects, response).await;
            }
            if redirects >= self.config.max_redirects {
                return Err(WebError::TooManyRedirects {
                    url: start.to_string(),
                    max: self.config.max_redirects,
                });
            }
            let location = response
                .headers()
                .get(LOCATION)
                .and_then(|value| value.to_str().ok());
            current = next_hop(&current, status, location)?;
            redirects += 1;
        }
    }

    /// Sends one GET to `url` through a client that can only reach `target`'s
    /// checked addresses.
    async fn request(&self, url: &Url, target: &Target) -> Result<reqwest::Response, WebError> {
        let client = base_builder(self.config.connect_timeout)
            .dns_resolver(PinnedResolver::new(target))
            .build()
            .map_err(|err| WebError::Client(err.to_string()))?;
        client
            .get(url.clone())
            .header(
                ACCEPT,
                "text/html, text/plain;q=0.9, application/json;q=0.9, \
                 application/xml;q=0.8, text/*;q=0.7",
            )
            .send()
            .await
            .map_err(|err| WebError::Request {
                url: url.to_string(),
                reason: describe(&err),
            })
    }

    async fn read(
        &self,
        start: Url,
        final_url: Url,
        redirects: usize,
        response: reqwest::Response,
    ) -> Result<FetchResult, WebError> {
        let status = response.status().as_u16();
        let content_type = response
            .headers()
            .get(CONTENT_TYPE)
            .map(|value| String::from_utf8_lossy(value.as_bytes()).into_owned());
        let binary = |reason: String| WebError::BinaryRefused {
            url: final_url.to_string(),
            content_type: content_type.clone().unwrap_or_else(|| "none".to_owned()),
            reason,
        };
        let text_type = accept_content_type(content_type.as_deref()).map_err(binary)?;
        let body = read_capped(
            response,
            self.config.max_bytes,
            |chunk| {
                if chunk.contains(&0) {
                    Err(binary("the body contains NUL bytes".to_owned()))
                } else {
                    Ok(())
                }
            },
            |err| WebError::Request {
                url: final_url.to_string(),
                reason: describe(&err),
            },
        )
        .await?;
        let text = decode_body(&body.bytes, text_type, body.truncated).map_err(binary)?;
        Ok(FetchResult {
            url: start.to_string(),
            final_url: final_url.to_string(),
            status,
            content_type,
            text,
            truncated: body.truncated,
            bytes_read: body.bytes_read,
            redirects,
        })
    }
}

/// A transport error's message with its causes, without the URL (the caller names it).
pub(super) fn describe(err: &reqwest::Error) -> String {
    let mut message = err.to_string();
    let mut source = std::error::Error::source(err);
    while let Some(cause) = source {
        message.push_str(": ");
        message.push_str(&cause.to_string());
        source = cause.source();
    }
    message
}

/// The `fetch_url` tool: a [`Fetcher`] behind the [`Tool`] trait.
#[derive(Debug, Clone)]
pub struct FetchUrlTool {
    fetcher: Fetcher,
}

impl FetchUrlTool {
    /// The production tool: public addresses only, default limits.
    pub fn public() -> Self {
        FetchUrlTool::new(FetchConfig::default())
    }

    /// A tool with `config` (tests build one with a test policy and resolver).
    pub fn new(config: FetchConfig) -> Self {
        FetchUrlTool {
            fetcher: Fetcher::new(config),
        }
    }

    /// The fetcher behind the tool.
    pub fn fetcher(&self) -> &Fetcher {
        &self.fetcher
    }
}

#[async_trait]
impl Tool for FetchUrlTool {
    fn spec(&self) -> &'static ToolSpec {
        catalog_spec(TOOL)
    }

    fn args_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "url": {
                    "type": "string",
                    "description": "An absolute http:// or https:// URL of a public page."
                }
            },
            "required": ["url"],
            "additionalProperties": false
        })
    }

    async fn prepare(&self, _ctx: &ToolContext, args: Value) -> Result<PreparedCall, ToolError> {
        let Some(text) = args.get("url").and_then(Value::as_str) else {
            return Err(ToolError::InvalidArguments {
                tool: TOOL.to_owned(),
                reason: "`url` must be a string".to_owned(),
            });
        };
        let url = parse_start(text).map_err(|err| err.into_tool_error(TOOL))?;
        // IP literals are refused before approval is even asked; names are
        // resolved and checked at execution, on every hop.
        if matches!(url.host(), Some(url::Host::Ipv4(_) | url::Host::Ipv6(_))) {
            resolve_target(&url, &self.fetcher.config.policy, &NoLookup)
                .await
                .map_err(|err| err.into_tool_error(TOOL))?;
        }
        let config = &self.fetcher.config;
        let preview = Preview {
            summary: format!("GET {url}"),
            detail: Some(format!(
                "public addresses only; at most {} body bytes, {} s in total, {} redirects; \
                 the result is untrusted text",
                config.max_bytes,
                config.timeout.as_secs(),
                config.max_redirects
            )),
        };
        Ok(PreparedCall {
            tool: TOOL,
            args,
            preview,
            payload: Box::new(url),
        })
    }

    async fn execute(
        &self,
        ctx: &ToolContext,
        call: PreparedCall,
    ) -> Result<ToolOutput, ToolError> {
        let url = call.into_payload::<Url>()?;
        let result = self
            .fetcher
            .fetch_url(url, &ctx.cancel)
            .await
            .map_err(|err| err.into_tool_error(TOOL))?;
        let facts = ReceiptFacts {
            output_bytes: result.bytes_read,
            truncated: result.truncated,
            detail: json!({
                "url": result.url,
                "final_url": result.final_url,
                "status": result.status,
                "content_type": result.content_type,
                "redirects": result.redirects,
            }),
            ..ReceiptFacts::default()
        };
        Ok(ToolOutput {
            value: result.to_value(),
            facts,
        })
    }
}

/// A lookup that never resolves (used where only IP literals are checked).
#[derive(Debug)]
struct NoLookup;

#[async_trait]
impl NameLookup for NoLookup {
    async fn lookup(&self, host: &str, _port: u16) -> std::io::Result<Vec<std::net::SocketAddr>> {
        Err(std::io::Error::other(format!(
            "`{host}` is not resolved here"
        )))
    }
}
