//! `search_regex(pattern, path, file_filter)`: a regular-expression search over
//! project files with ripgrep's crates (`ignore`, `grep-regex`, `grep-searcher`).
//!
//! Honours `.gitignore` (also outside a git repository), `.ignore` and hidden-file
//! rules like ripgrep; skips binary files; never follows symlinks; bounded results.
//! Reads only.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::sinks::Lossy;
use grep_searcher::{BinaryDetection, SearcherBuilder};
use ignore::overrides::{Override, OverrideBuilder};
use ignore::{WalkBuilder, WalkState};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::confine::{ConfinedPath, check_no_symlinks, confine};
use crate::evidence::ReceiptFacts;
use crate::tools::args::{builtin_spec, parse_args, schema_of};
use crate::tools::{PreparedCall, Preview, Tool, ToolContext, ToolError, ToolOutput, ToolSpec};

const NAME: &str = "search_regex";

/// Matches returned by one call, at most.
pub const MAX_MATCHES: usize = 200;
/// Characters of a matching line kept.
pub const MAX_LINE_CHARS: usize = 300;

/// Arguments of `search_regex`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchRegexArgs {
    /// A regular expression (Rust `regex` syntax, as ripgrep).
    pub pattern: String,
    /// Project-relative file or directory to search (default: the project root).
    #[serde(default)]
    pub path: Option<String>,
    /// A glob selecting files, such as `*.rs` or `src/**/*.py` (ripgrep's `-g`).
    #[serde(default)]
    pub file_filter: Option<String>,
}

/// The `search_regex` tool.
#[derive(Debug, Default, Clone, Copy)]
pub struct SearchRegex;

/// Everything a search needs, resolved at prepare time.
#[derive(Debug)]
struct SearchPlan {
    path: ConfinedPath,
    matcher: RegexMatcher,
    filter: Option<Override>,
}

/// One match.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct SearchMatch {
    /// Project-relative path.
    pub path: String,
    /// 1-based line number.
    pub line: u64,
    /// The line (cut to [`MAX_LINE_CHARS`]).
    pub text: String,
}

/// The result of a search.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchOutcome {
    /// Matches, sorted by path then line.
    pub matches: Vec<SearchMatch>,
    /// Whether the search stopped at the cap.
    pub truncated: bool,
    /// Files searched.
    pub files_searched: usize,
    /// Whether it was canceled.
    pub canceled: bool,
}

fn invalid(reason: String) -> ToolError {
    ToolError::InvalidArguments {
        tool: NAME.to_string(),
        reason,
    }
}

/// Runs a search (blocking; parallel over files). Used by the tool and the benchmark.
pub fn search_blocking(
    root: PathBuf,
    dir: PathBuf,
    matcher: RegexMatcher,
    filter: Option<Override>,
    cancel: tokio_util::sync::CancellationToken,
    max_matches: usize,
) -> SearchOutcome {
    let found: Arc<Mutex<Vec<SearchMatch>>> = Arc::new(Mutex::new(Vec::new()));
    let count = Arc::new(AtomicUsize::new(0));
    let files = Arc::new(AtomicUsize::new(0));
    let full = Arc::new(AtomicBool::new(false));
    let mut builder = WalkBuilder::new(&dir);
    builder.require_git(false).follow_links(false);
    if let Some(filter) = filter {
        builder.overrides(filter);
    }
    builder.build_parallel().run(|| {
        let matcher = matcher.clone();
        let root = root.clone();
        let found = Arc::clone(&found);
        let count = Arc::clone(&count);
        let files = Arc::clone(&files);
        let full = Arc::clone(&full);
        let cancel = cancel.clone();
        let mut searcher = SearcherBuilder::new()
            .binary_detection(BinaryDetection::quit(b'\x00'))
            .line_number(true)
            .build();
        Box::new(move |entry| {
            if cancel.is_cancelled() || full.load(Ordering::Relaxed) {
                return WalkState::Quit;
            }
            let Ok(entry) = entry else {
                return WalkState::Continue;
            };
            if !entry.file_type().is_some_and(|t| t.is_file()) {
                return WalkState::Continue;
            }
            files.fetch_add(1, Ordering::Relaxed);
            let rel = entry
                .path()
                .strip_prefix(&root)
                .unwrap_or(entry.path())
                .to_string_lossy()
                .into_owned();
            let mut local = Vec::new();
            let _ = searcher.search_path(
                &matcher,
                entry.path(),
                Lossy(|line_number, line| {
                    let text: String = line
                        .trim_end_matches(['\n', '\r'])
                        .chars()
                        .take(MAX_LINE_CHARS)
                        .collect();
                    local.push(SearchMatch {
                        path: rel.clone(),
                        line: line_number,
                        text,
                    });
                    let seen = count.fetch_add(1, Ordering::Relaxed) + 1;
                    Ok(seen < max_matches)
                }),
            );
            if !local.is_empty() {
                let mut all = found.lock().unwrap_or_else(|e| e.into_inner());
                all.extend(local);
                if all.len() >= max_matches {
                    full.store(true, Ordering::Relaxed);
                    return WalkState::Quit;
                }
            }
            WalkState::Continue
        })
    });
    let mut matches = std::mem::take(&mut *found.lock().unwrap_or_else(|e| e.into_inner()));
    matches.sort();
    let truncated = matches.len() >= max_matches || full.load(Ordering::Relaxed);
    matches.truncate(max_matches);
    SearchOutcome {
        matches,
        truncated,
        files_searched: files.load(Ordering::Relaxed),
        canceled: cancel.is_cancelled(),
    }
}

/// Builds the matcher ripgrep would build for `pattern`.
pub fn build_matcher(pattern: &str) -> Result<RegexMatcher, String> {
    RegexMatcherBuilder::new()
        .line_terminator(Some(b'\n'))
        .build(pattern)
        .map_err(|e| e.to_string())
}

#[async_trait]
impl Tool for SearchRegex {
    fn spec(&self) -> &'static ToolSpec {
        builtin_spec(NAME)
    }

    fn args_schema(&self) -> Value {
        schema_of::<SearchRegexArgs>()
    }

    async fn prepare(&self, ctx: &ToolContext, args: Value) -> Result<PreparedCall, ToolError> {
        let parsed: SearchRegexArgs = parse_args(NAME, args.clone())?;
        let path = confine(&ctx.root, parsed.path.as_deref().unwrap_or("."))?;
        let matcher =
            build_matcher(&parsed.pattern).map_err(|e| invalid(format!("invalid pattern: {e}")))?;
        let filter = match &parsed.file_filter {
            Some(glob) => {
                let mut builder = OverrideBuilder::new(&path.abs);
                builder
                    .add(glob)
                    .map_err(|e| invalid(format!("invalid file_filter: {e}")))?;
                Some(
                    builder
                        .build()
                        .map_err(|e| invalid(format!("invalid file_filter: {e}")))?,
                )
            }
            None => None,
        };
        Ok(PreparedCall {
            tool: NAME,
            args,
            preview: Preview {
                summary: format!("search `{}` for /{}/", path.display(), parsed.pattern),
                detail: None,
            },
            payload: Box::new(SearchPlan {
                path,
                matcher,
                filter,
            }),
        })
    }

    async fn execute(
        &self,
        ctx: &ToolContext,
        call: PreparedCall,
    ) -> Result<ToolOutput, ToolError> {
        let plan = call.into_payload::<SearchPlan>()?;
        let display = plan.path.display();
        check_no_symlinks(&ctx.root, &plan.path.rel, &display)?;
        if !plan.path.abs.exists() {
            return Err(ToolError::Rejected {
                tool: NAME.to_string(),
                reason: format!("`{display}` does not exist"),
            });
        }
        let root = ctx.root.clone();
        let cancel = ctx.cancel.clone();
        let outcome = tokio::task::spawn_blocking(move || {
            search_blocking(
                root,
                plan.path.abs,
                plan.matcher,
                plan.filter,
                cancel,
                MAX_MATCHES,
            )
        })
        .await
        .map_err(|e| ToolError::Io {
            tool: NAME.to_string(),
            source: std::io::Error::other(e.to_string()),
        })?;
        if outcome.canceled {
            return Err(ToolError::Canceled(NAME.to_string()));
        }
        let matches: Vec<Value> = outcome
            .matches
            .iter()
            .map(|m| json!({"path": m.path, "line": m.line, "text": m.text}))
            .collect();
        let value = json!({
            "path": display,
            "matches": matches,
            "truncated": outcome.truncated,
            "files_searched": outcome.files_searched,
        });
        Ok(ToolOutput {
            facts: ReceiptFacts {
                path: Some(display),
                output_bytes: value.to_string().len() as u64,
                truncated: outcome.truncated,
                detail: json!({"matches": outcome.matches.len(), "files_searched": outcome.files_searched}),
                ..ReceiptFacts::default()
            },
            value,
        })
    }
}
