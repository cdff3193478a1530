//! JSON in, JSON out: the functions behind the `parse_findings`, `merge_findings`
//! and `render_report` tools (and usable from any embedding).
//!
//! Each takes the tool's arguments as one JSON object and returns one JSON value;
//! argument errors carry the JSON path of the offending field. Model output
//! problems are never errors: they come back as rejected items and coverage gaps.
//! This module must never do I/O.

use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::error::FindingsError;
use super::merge::{MergeInput, merge};
use super::model::{Coverage, CoverageStatus};
use super::parse::{ParseOptions, ParsedFindings, parse_findings_value};
use super::render::{Format, RenderOptions, render};
use super::report::{Report, ReportInput, build_report};
use super::verdict::{FailOn, exceeds_threshold};

fn args_of<T: DeserializeOwned>(function: &'static str, args: &Value) -> Result<T, FindingsError> {
    serde_path_to_error::deserialize(args.clone()).map_err(|e| FindingsError::InvalidArguments {
        function,
        reason: format!("at `{}`: {}", e.path(), e.inner()),
    })
}

fn to_json<T: serde::Serialize>(what: &'static str, value: &T) -> Result<Value, FindingsError> {
    serde_json::to_value(value).map_err(|source| FindingsError::Serialize { what, source })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ParseArgs {
    text: Value,
    #[serde(default)]
    source: Option<String>,
    #[serde(default)]
    extra_categories: Vec<String>,
    #[serde(default)]
    accept_verdicts: bool,
    #[serde(default)]
    status: Option<String>,
    #[serde(default)]
    reason: Option<String>,
}

/// The coverage status of a producer from its step's status as the executor names
/// it (`steps.ID.status`, `steps.ID.instances[i].status`): `None` for `succeeded`.
pub fn coverage_of_step_status(status: &str) -> Result<Option<CoverageStatus>, FindingsError> {
    Ok(match status {
        "succeeded" => None,
        "failed" | "canceled" | "not_run" | "interrupted" => Some(CoverageStatus::Failed),
        "timed_out" => Some(CoverageStatus::TimedOut),
        "skipped" => Some(CoverageStatus::Skipped),
        _ => {
            return Err(FindingsError::InvalidSetting {
                setting: "status",
                value: status.to_owned(),
                allowed: "succeeded, failed, timed_out, skipped, canceled, not_run, interrupted",
            });
        }
    })
}

/// `parse_findings`: `{"text": <model output string, or JSON>, "source"?: name,
/// "extra_categories"?: [..], "accept_verdicts"?: bool, "status"?: the producing
/// step's status, "reason"?: its error}` → a
/// [`ParsedFindings`](super::parse::ParsedFindings) object.
///
/// With a `status` other than `succeeded` (see [`coverage_of_step_status`]) the
/// text is not parsed at all: the result is a coverage gap for `source` with that
/// status and reason, so a failed or timed-out producer is never "no findings" and
/// its partial text never becomes findings.
pub fn parse_findings_json(args: &Value) -> Result<Value, FindingsError> {
    let args: ParseArgs = args_of("parse_findings", args)?;
    if let Some(status) = args.status.as_deref()
        && let Some(status) = coverage_of_step_status(status)?
    {
        let source = args.source.clone().unwrap_or_else(|| "unknown".to_owned());
        let parsed = ParsedFindings {
            source: args.source,
            notes: vec![format!(
                "the producer ended {}: its output was not parsed",
                status.as_str()
            )],
            gap: Some(Coverage {
                source,
                status,
                reason: args.reason.filter(|r| !r.trim().is_empty()),
            }),
            ..ParsedFindings::default()
        };
        return to_json("parsed findings", &parsed);
    }
    let options = ParseOptions {
        source: args.source,
        extra_categories: args.extra_categories,
        accept_verdicts: args.accept_verdicts,
    };
    to_json(
        "parsed findings",
        &parse_findings_value(&args.text, &options),
    )
}

/// `merge_findings`: a [`MergeInput`] object (`parsed`, `findings`, `diff`, `files`,
/// `prior`, `ungrounded`: keep|downgrade|drop, `similarity`, `extra_categories`; all
/// optional) → a [`MergeOutcome`](super::merge::MergeOutcome) object.
pub fn merge_findings_json(args: &Value) -> Result<Value, FindingsError> {
    let input: MergeInput = args_of("merge_findings", args)?;
    if !(0.0..=1.0).contains(&input.similarity) {
        return Err(FindingsError::InvalidArguments {
            function: "merge_findings",
            reason: format!("`similarity` {} is not between 0 and 1", input.similarity),
        });
    }
    to_json("merge outcome", &merge(input))
}

#[derive(Deserialize)]
struct RenderArgs {
    format: Format,
    #[serde(default)]
    report: Option<Report>,
    #[serde(flatten)]
    input: ReportInput,
    #[serde(default)]
    base_url: Option<String>,
    #[serde(default)]
    head_sha: Option<String>,
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    max_chars: Option<usize>,
    #[serde(default)]
    fail_on: Option<FailOn>,
}

/// `render_report`: `{"format": "markdown"|"sarif"|"json", "report"?: a report,
/// or the [`ReportInput`] fields (`findings`, `verdicts`, `coverage`, `rejected`,
/// `suppressed`, `dropped_ungrounded` — a merge outcome plus verdicts and coverage),
/// "base_url"?, "head_sha"?, "title"?, "max_chars"?, "fail_on"?}` →
/// (`coverage` should be the merge outcome's entries *plus* the executor's, e.g. a
/// finder step that failed or timed out; per source the worst status wins)
/// `{"format", "content" (a string for Markdown, an object otherwise), "verdict",
/// "complete", "over_threshold" (when `fail_on` is given)}`.
pub fn render_report_json(args: &Value) -> Result<Value, FindingsError> {
    let args: RenderArgs = args_of("render_report", args)?;
    let report = match args.report {
        Some(report) => report,
        None => build_report(args.input),
    };
    let defaults = RenderOptions::default();
    let options = RenderOptions {
        base_url: args.base_url,
        head_sha: args.head_sha,
        title: args.title.unwrap_or(defaults.title),
        max_chars: args.max_chars.unwrap_or(defaults.max_chars),
    };
    let content = render(&report, args.format, &options)?;
    let mut out = json!({
        "format": args.format,
        "content": content,
        "verdict": report.verdict,
        "complete": report.complete,
    });
    if let (Some(fail_on), Some(map)) = (args.fail_on, out.as_object_mut()) {
        map.insert(
            "over_threshold".into(),
            Value::Bool(exceeds_threshold(&report.findings, fail_on)),
        );
    }
    Ok(out)
}
