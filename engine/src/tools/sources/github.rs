//! `github_pull_request(number, repo?)`: a pull request's diff at its head SHA,
//! from the GitHub REST API.
//!
//! Configuration is read from the environment at call time, never at start-up:
//! `GITHUB_API_URL` (default `https://api.github.com`; GitHub Enterprise and tests
//! point it elsewhere), `GITHUB_REPOSITORY` (`owner/name`, when the call gives no
//! `repo`) and `GITHUB_TOKEN` (sent as a bearer token when set). The token is held
//! as a secret, sent only in a sensitive header, scrubbed from any error text, and
//! never part of a preview, a receipt or the result.
//!
//! Three requests: the pull request as JSON (head and base SHAs), its diff
//! (`Accept: application/vnd.github.diff`, at most [`MAX_DIFF_BYTES`]), and the
//! JSON again: when the head moved in between, the call fails rather than return a
//! diff that belongs to no single SHA.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use reqwest::header::{ACCEPT, AUTHORIZATION, HeaderMap, HeaderValue};
use schemars::JsonSchema;
use secrecy::{ExposeSecret, SecretString};
use serde::Deserialize;
use serde_json::{Value, json};
use url::Url;

use crate::evidence::ReceiptFacts;
use crate::tls::ensure_crypto_provider;
use crate::tools::args::{builtin_spec, parse_args, schema_of};
use crate::tools::web::{EnvReader, USER_AGENT};
use crate::tools::{PreparedCall, Preview, Tool, ToolContext, ToolError, ToolOutput, ToolSpec};

const NAME: &str = "github_pull_request";

/// The variable naming the API's base URL.
pub const API_URL_VAR: &str = "GITHUB_API_URL";
/// The variable naming the repository (`owner/name`) when a call gives none.
pub const REPOSITORY_VAR: &str = "GITHUB_REPOSITORY";
/// The variable holding the token.
pub const TOKEN_VAR: &str = "GITHUB_TOKEN";
/// The public API.
const DEFAULT_API_URL: &str = "https://api.github.com";
/// The largest diff accepted (GitHub itself refuses diffs over about 3,000 files).
pub const MAX_DIFF_BYTES: usize = 4 * 1024 * 1024;
/// The largest JSON answer read.
const MAX_JSON_BYTES: usize = 2 * 1024 * 1024;
/// Whole-request timeout.
const TIMEOUT: Duration = Duration::from_secs(60);

/// Arguments of `github_pull_request`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GithubPullRequestArgs {
    /// The pull request's number.
    #[schemars(range(min = 1))]
    pub number: u64,
    /// `owner/name`; default: the `GITHUB_REPOSITORY` variable.
    #[serde(default)]
    pub repo: Option<String>,
}

/// The `github_pull_request` tool.
#[derive(Clone)]
pub struct GithubPullRequest {
    read: EnvReader,
}

impl std::fmt::Debug for GithubPullRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GithubPullRequest").finish_non_exhaustive()
    }
}

impl GithubPullRequest {
    /// Reads its configuration from the process environment at each call.
    pub fn from_env() -> Self {
        GithubPullRequest {
            read: Arc::new(|name| std::env::var(name).ok()),
        }
    }

    /// Reads its configuration through `read` at each call (embedders, tests).
    pub fn with_reader(read: EnvReader) -> Self {
        GithubPullRequest { read }
    }

    fn var(&self, name: &str) -> Option<String> {
        (self.read)(name)
            .map(|v| v.trim().to_owned())
            .filter(|v| !v.is_empty())
    }
}

/// What `prepare` resolved.
struct Target {
    url: Url,
    repo: String,
    number: u64,
}

fn rejected(reason: impl Into<String>) -> ToolError {
    ToolError::Rejected {
        tool: NAME.to_string(),
        reason: reason.into(),
    }
}

fn valid_repo(repo: &str) -> bool {
    let mut parts = repo.split('/');
    let ok = |p: Option<&str>| {
        p.is_some_and(|p| {
            !p.is_empty()
                && p.len() <= 100
                && !p.starts_with('.')
                && p.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
        })
    };
    ok(parts.next()) && ok(parts.next()) && parts.next().is_none()
}

/// Replaces the token in `text`.
fn scrub(text: &str, token: Option<&SecretString>) -> String {
    match token {
        Some(token) if !token.expose_secret().is_empty() => {
            text.replace(token.expose_secret(), &format!("[REDACTED:{TOKEN_VAR}]"))
        }
        _ => text.to_owned(),
    }
}

#[async_trait]
impl Tool for GithubPullRequest {
    fn spec(&self) -> &'static ToolSpec {
        builtin_spec(NAME)
    }

    fn args_schema(&self) -> Value {
        schema_of::<GithubPullRequestArgs>()
    }

    async fn prepare(&self, _ctx: &ToolContext, args: Value) -> Result<PreparedCall, ToolError> {
        let parsed: GithubPullRequestArgs = parse_args(NAME, args.clone())?;
        if parsed.number == 0 {
            return Err(ToolError::InvalidArguments {
                tool: NAME.to_string(),
                reason: "`number` must be a pull request number (1 or more)".into(),
            });
        }
        let repo = match parsed.repo.map(|r| r.trim().to_owned()).filter(|r| !r.is_empty()) {
            Some(repo) => repo,
            None => self.var(REPOSITORY_VAR).ok_or_else(|| ToolError::InvalidArguments {
                tool: NAME.to_string(),
                reason: format!(
                    "no repository: pass `repo: owner/name`, or set {REPOSITORY_VAR} (GitHub Actions sets it)"
                ),
            })?,
        };
        if !valid_repo(&repo) {
            return Err(ToolError::InvalidArguments {
                tool: NAME.to_string(),
                reason: format!("`{repo}` is not a repository name of the form owner/name"),
            });
        }
        let base = self
            .var(API_URL_VAR)
            .unwrap_or_else(|| DEFAULT_API_URL.to_owned());
        let base = Url::parse(base.trim_end_matches('/'))
            .map_err(|e| rejected(format!("{API_URL_VAR} is not a URL: {e}")))?;
        if !matches!(base.scheme(), "http" | "https")
            || !base.username().is_empty()
            || base.password().is_some()
        {
            return Err(rejected(format!(
                "{API_URL_VAR} must be an http(s) URL without credentials"
            )));
        }
        let url = Url::parse(&format!(
            "{}/repos/{repo}/pulls/{}",
            base.as_str().trim_end_matches('/'),
            parsed.number
        ))
        .map_err(|e| rejected(format!("cannot build the request URL: {e}")))?;
        let authenticated = self.var(TOKEN_VAR).is_some();
        Ok(PreparedCall {
            tool: NAME,
            args,
            preview: Preview {
                summary: format!("fetch pull request {repo}#{} from {}", parsed.number, base),
                detail: Some(format!(
                    "GET {url} (JSON, then the diff){}",
                    if authenticated {
                        format!(" with the token from {TOKEN_VAR}")
                    } else {
                        String::from(" without a token")
                    }
                )),
            },
            payload: Box::new(Target {
                url,
                repo,
                number: parsed.number,
            }),
        })
    }

    async fn execute(
        &self,
        ctx: &ToolContext,
        call: PreparedCall,
    ) -> Result<ToolOutput, ToolError> {
        let target = call.into_payload::<Target>()?;
        let token = self.var(TOKEN_VAR).map(SecretString::from);
        let client = client(token.as_ref())?;
        // The pull request is read before and after its diff: a head that moves in
        // between is refused.
        let get_pull = || {
            get(
                &client,
                &target.url,
                "application/vnd.github+json",
                MAX_JSON_BYTES,
                token.as_ref(),
            )
        };
        let fetch = async {
            let pull = get_pull().await?;
            let head = pull_shas(&pull)?;
            let diff_bytes = get(
                &client,
                &target.url,
                "application/vnd.github.diff",
                MAX_DIFF_BYTES,
                token.as_ref(),
            )
            .await?;
            let again = get_pull().await?;
            let after = pull_shas(&again)?;
            if after.head_sha != head.head_sha {
                return Err(rejected(format!(
                    "the pull request's head moved from {} to {} while it was fetched; run again",
                    head.head_sha, after.head_sha
                )));
            }
            let diff = String::from_utf8(diff_bytes)
                .map_err(|_| rejected("the diff GitHub returned is not UTF-8 text"))?;
            Ok::<_, ToolError>((head, diff))
        };
        let (pull, diff) = tokio::select! {
            result = fetch => result?,
            () = ctx.cancel.cancelled() => return Err(ToolError::Canceled(NAME.to_string())),
        };
        let bytes = diff.len() as u64;
        Ok(ToolOutput {
            value: json!({
                "repo": target.repo,
                "number": target.number,
                "head_sha": pull.head_sha,
                "base_sha": pull.base_sha,
                "head_ref": pull.head_ref,
                "base_ref": pull.base_ref,
                "html_url": pull.html_url,
                "authenticated": token.is_some(),
                "bytes": bytes,
                "diff": diff,
            }),
            facts: ReceiptFacts {
                output_bytes: bytes,
                detail: json!({
                    "repo": target.repo,
                    "number": target.number,
                    "head_sha": pull.head_sha,
                }),
                ..ReceiptFacts::default()
            },
        })
    }
}

fn client(token: Option<&SecretString>) -> Result<reqwest::Client, ToolError> {
    ensure_crypto_provider();
    let mut headers = HeaderMap::new();
    headers.insert(
        "X-GitHub-Api-Version",
        HeaderValue::from_static("2022-11-28"),
    );
    if let Some(token) = token {
        let mut value = HeaderValue::from_str(&format!("Bearer {}", token.expose_secret()))
            .map_err(|_| {
                rejected(format!(
                    "{TOKEN_VAR} contains characters a header cannot carry"
                ))
            })?;
        value.set_sensitive(true);
        headers.insert(AUTHORIZATION, value);
    }
    reqwest::Client::builder()
        .timeout(TIMEOUT)
        .connect_timeout(Duration::from_secs(15))
        .redirect(reqwest::redirect::Policy::limited(3))
        .user_agent(USER_AGENT)
        .default_headers(headers)
        .build()
        .map_err(|e| rejected(format!("cannot build the HTTP client: {e}")))
}

/// GETs `url` with `accept`, reading at most `cap` bytes; a non-2xx status is an
/// error with a short, token-free excerpt of the body.
async fn get(
    client: &reqwest::Client,
    url: &Url,
    accept: &'static str,
    cap: usize,
    token: Option<&SecretString>,
) -> Result<Vec<u8>, ToolError> {
    let mut response = client
        .get(url.clone())
        .header(ACCEPT, accept)
        .send()
        .await
        .map_err(|e| {
            rejected(scrub(
                &format!("GitHub request failed: {}", e.without_url()),
                token,
            ))
        })?;
    let status = response.status();
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(|e| {
        rejected(scrub(
            &format!("reading GitHub's answer failed: {}", e.without_url()),
            token,
        ))
    })? {
        if body.len() + chunk.len() > cap {
            return Err(rejected(format!(
                "GitHub's answer is larger than {cap} bytes; use a smaller change"
            )));
        }
        body.extend_from_slice(&chunk);
    }
    if !status.is_success() {
        let excerpt: String = String::from_utf8_lossy(&body).chars().take(300).collect();
        let hint = match status.as_u16() {
            401 => format!(" (check {TOKEN_VAR}; its value is never shown)"),
            403 | 404 => {
                format!(" (the pull request does not exist, or {TOKEN_VAR} cannot read it)")
            }
            _ => String::new(),
        };
        return Err(rejected(scrub(
            &format!("GitHub answered HTTP {status}{hint}: {}", excerpt.trim()),
            token,
        )));
    }
    Ok(body)
}

struct PullShas {
    head_sha: String,
    base_sha: String,
    head_ref: Value,
    base_ref: Value,
    html_url: Value,
}

fn pull_shas(body: &[u8]) -> Result<PullShas, ToolError> {
    let value: Value = serde_json::from_slice(body)
        .map_err(|e| rejected(format!("GitHub's answer is not the pull request JSON: {e}")))?;
    let sha = |side: &str| -> Result<String, ToolError> {
        value
            .get(side)
            .and_then(|s| s.get("sha"))
            .and_then(Value::as_str)
            .filter(|s| s.len() >= 7 && s.chars().all(|c| c.is_ascii_hexdigit()))
            .map(str::to_owned)
            .ok_or_else(|| rejected(format!("GitHub's answer has no `{side}.sha`")))
    };
    let field = |side: &str, key: &str| {
        value
            .get(side)
            .and_then(|s| s.get(key))
            .cloned()
            .unwrap_or(Value::Null)
    };
    Ok(PullShas {
        head_sha: sha("head")?,
        base_sha: sha("base")?,
        head_ref: field("head", "ref"),
        base_ref: field("base", "ref"),
        html_url: value.get("html_url").cloned().unwrap_or(Value::Null),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repository_names_are_owner_slash_name() {
        assert!(valid_repo("octo/hello-world"));
        assert!(valid_repo("a.b/c_d"));
        assert!(!valid_repo("octo"));
        assert!(!valid_repo("octo/x/y"));
        assert!(!valid_repo("../x"));
        assert!(!valid_repo("octo/x?y"));
    }

    #[test]
    fn the_token_is_scrubbed_from_error_text() {
        let token = SecretString::from("ghp_supersecret123".to_owned());
        assert_eq!(
            scrub("bad ghp_supersecret123 here", Some(&token)),
            "bad [REDACTED:GITHUB_TOKEN] here"
        );
    }
}
