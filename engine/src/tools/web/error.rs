//! Errors of the web tools: refusals (policy), transport failures and search configuration.
//!
//! Messages name the URL, the host and the refused range, so a model can correct
//! its call; they never contain a search API key (keys are held in `secrecy`
//! types and never formatted), nor URL credentials (URLs carrying them are refused
//! before any request and not echoed).

use miette::Diagnostic;
use thiserror::Error;

use super::guard::Refusal;
use crate::tools::ToolError;

/// Why a web tool call did not produce a result.
#[derive(Debug, Error, Diagnostic)]
pub enum WebError {
    /// The text is not an absolute URL.
    #[error("`{url}` is not a valid URL: {reason}")]
    #[diagnostic(
        code(protoflow::tools::web::invalid_url),
        help("give an absolute http:// or https:// URL")
    )]
    InvalidUrl {
        /// The URL as given.
        url: String,
        /// What the parser said.
        reason: String,
    },
    /// The scheme is not http or https.
    #[error("scheme `{scheme}` is refused (in `{url}`): only http and https may be fetched")]
    #[diagnostic(
        code(protoflow::tools::web::scheme_refused),
        help("give an http:// or https:// URL")
    )]
    SchemeRefused {
        /// The URL.
        url: String,
        /// Its scheme.
        scheme: String,
    },
    /// The URL carries a user name or password.
    #[error("URLs with credentials (user:password@) are refused")]
    #[diagnostic(
        code(protoflow::tools::web::credentials_refused),
        help("remove the user and password from the URL; fetch_url only reads public pages")
    )]
    CredentialsRefused,
    /// The URL has no host.
    #[error("`{url}` has no host")]
    #[diagnostic(
        code(protoflow::tools::web::no_host),
        help("give an absolute URL with a host name")
    )]
    NoHost {
        /// The URL.
        url: String,
    },
    /// The host is, or resolves to, an address the policy refuses.
    #[error("`{host}` is refused: address {address} is {refusal}")]
    #[diagnostic(
        code(protoflow::tools::web::address_refused),
        help(
            "fetch_url reaches public internet addresses only; loopback, private, link-local \
             (cloud metadata), unique-local and similar addresses are never fetched"
        )
    )]
    AddressRefused {
        /// The host as it appears in the URL.
        host: String,
        /// The refused address.
        address: String,
        /// The range it falls in.
        refusal: Refusal,
    },
    /// The host name could not be resolved.
    #[error("could not resolve `{host}`: {reason}")]
    #[diagnostic(
        code(protoflow::tools::web::resolve_failed),
        help("check the host name; the network may also be unavailable")
    )]
    ResolveFailed {
        /// The host.
        host: String,
        /// Why.
        reason: String,
    },
    /// A redirect from https to http.
    #[error("redirect from `{from}` to `{to}` refused: https -> http downgrade")]
    #[diagnostic(
        code(protoflow::tools::web::downgrade_refused),
        help("fetch the https URL of the target directly if it has one")
    )]
    DowngradeRefused {
        /// The https URL that redirected.
        from: String,
        /// The http URL it redirected to.
        to: String,
    },
    /// More redirects than the limit.
    #[error("too many redirects (more than {max}) starting at `{url}`")]
    #[diagnostic(
        code(protoflow::tools::web::too_many_redirects),
        help("fetch the final URL directly, or give up on this source")
    )]
    TooManyRedirects {
        /// The URL first requested.
        url: String,
        /// The limit.
        max: usize,
    },
    /// A redirect response whose Location header is missing or unusable.
    #[error("`{url}` answered {status} with an unusable Location: {reason}")]
    #[diagnostic(
        code(protoflow::tools::web::bad_redirect),
        help("the server's redirect is broken; try another source")
    )]
    BadRedirect {
        /// The URL that redirected.
        url: String,
        /// The redirect status.
        status: u16,
        /// What is wrong with the location.
        reason: String,
    },
    /// The whole fetch took longer than its time limit.
    #[error("fetching `{url}` took longer than {limit}")]
    #[diagnostic(
        code(protoflow::tools::web::timed_out),
        help("the server is slow or unreachable; try again later or another source")
    )]
    TimedOut {
        /// The URL first requested.
        url: String,
        /// The limit, as `20s` or `300ms`.
        limit: String,
    },
    /// The call was canceled.
    #[error("the fetch of `{url}` was canceled")]
    #[diagnostic(code(protoflow::tools::web::canceled))]
    Canceled {
        /// The URL first requested.
        url: String,
    },
    /// Connection, TLS or protocol failure.
    #[error("request to `{url}` failed: {reason}")]
    #[diagnostic(
        code(protoflow::tools::web::request_failed),
        help(
            "the server could not be reached or broke the connection; try again or another source"
        )
    )]
    Request {
        /// The URL of the hop that failed.
        url: String,
        /// The transport's message.
        reason: String,
    },
    /// The body is not text (binary content type, NUL bytes, or not decodable).
    #[error("`{url}` returned non-text content ({content_type}): {reason}")]
    #[diagnostic(
        code(protoflow::tools::web::binary_refused),
        help(
            "fetch_url returns text only (HTML, plain text, JSON, XML); binary content is refused"
        )
    )]
    BinaryRefused {
        /// The final URL.
        url: String,
        /// The declared content type, or `none`.
        content_type: String,
        /// Why it is not text.
        reason: String,
    },
    /// The HTTP client could not be built (TLS set-up).
    #[error("could not build the HTTP client: {0}")]
    #[diagnostic(code(protoflow::tools::web::client))]
    Client(String),
    /// No search backend is configured.
    #[error("web_search has no backend configured")]
    #[diagnostic(
        code(protoflow::tools::web::search_not_configured),
        help(
            "set PROTOFLOW_SEARXNG_URL to the base URL of a SearXNG instance with the JSON \
             format enabled, or BRAVE_SEARCH_API_KEY to a Brave Search API key \
             (see docs/web-tools.md)"
        )
    )]
    SearchNotConfigured,
    /// A configured search backend setting is unusable.
    #[error("the {backend} search backend is misconfigured: {reason}")]
    #[diagnostic(
        code(protoflow::tools::web::search_misconfigured),
        help("fix the environment variable named in the message (see docs/web-tools.md)")
    )]
    SearchMisconfigured {
        /// The backend.
        backend: &'static str,
        /// What is wrong.
        reason: String,
    },
    /// The search backend failed or answered unexpectedly.
    #[error("the {backend} search backend failed: {reason}")]
    #[diagnostic(
        code(protoflow::tools::web::search_failed),
        help("check the backend's availability and quota; try again later")
    )]
    SearchFailed {
        /// The backend.
        backend: &'static str,
        /// Why (status, transport message or parse error; never the key).
        reason: String,
    },
}

impl WebError {
    /// The engine-wide tool error for this failure, for `tool`.
    pub fn into_tool_error(self, tool: &str) -> ToolError {
        let tool = tool.to_owned();
        match self {
            WebError::InvalidUrl { .. }
            | WebError::SchemeRefused { .. }
            | WebError::CredentialsRefused
            | WebError::NoHost { .. } => ToolError::InvalidArguments {
                tool,
                reason: self.to_string(),
            },
            WebError::Canceled { .. } => ToolError::Canceled(tool),
            WebError::TimedOut { .. } => ToolError::Io {
                tool,
                source: std::io::Error::new(std::io::ErrorKind::TimedOut, self.to_string()),
            },
            WebError::Request { .. }
            | WebError::ResolveFailed { .. }
            | WebError::Client(_)
            | WebError::SearchFailed { .. } => ToolError::Io {
                tool,
                source: std::io::Error::other(self.to_string()),
            },
            WebError::AddressRefused { .. }
            | WebError::DowngradeRefused { .. }
            | WebError::TooManyRedirects { .. }
            | WebError::BadRedirect { .. }
            | WebError::BinaryRefused { .. }
            | WebError::SearchNotConfigured
            | WebError::SearchMisconfigured { .. } => {
                let reason = match miette::Diagnostic::help(&self) {
                    Some(help) => format!("{self} ({help})"),
                    None => self.to_string(),
                };
                ToolError::Rejected { tool, reason }
            }
        }
    }
}
