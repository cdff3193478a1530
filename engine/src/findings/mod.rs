//! Findings: the typed results of a review, from model output to published report.
//!
//! The pipeline is `parse` (tolerant, per finder) → `merge` (grounding, dedup,
//! prior suppression, ids) → verification verdicts attached by id → `report` →
//! `render` (Markdown, SARIF, JSON). `api` exposes each stage as JSON in / JSON out
//! for the `parse_findings`, `merge_findings` and `render_report` tools.
//!
//! This module is mechanism: it never knows which finders, angles or roles a
//! recipe uses, never reads files or runs git, and never maps outcomes to exit codes.

pub mod api;
pub mod dedup;
mod error;
mod extract;
pub mod grounding;
pub mod merge;
pub mod model;
pub mod parse;
pub mod prior;
pub mod render;
mod repair;
pub mod report;
pub mod schema;
pub mod similarity;
pub mod verdict;

pub use api::{merge_findings_json, parse_findings_json, render_report_json};
pub use error::FindingsError;
pub use grounding::{GroundingSources, MIN_EVIDENCE_CHARS, UngroundedPolicy, ground};
pub use merge::{MergeInput, MergeOutcome, merge};
pub use model::{
    Category, Coverage, CoverageStatus, Finding, Grounding, Rejected, Severity, Verdict,
};
pub use parse::{ParseOptions, ParsedFindings, map_severity, parse_findings, parse_findings_value};
pub use prior::{PriorFinding, Suppressed, apply_prior, read_prior};
pub use render::{Format, RenderOptions, render, render_markdown, render_sarif};
pub use report::{Report, ReportInput, VerdictUpdate, apply_verdicts, build_report};
pub use schema::{finding_schema, findings_schema, report_schema, verdict_schema};
pub use verdict::{FailOn, MergeVerdict, exceeds_threshold, gates, merge_verdict};
