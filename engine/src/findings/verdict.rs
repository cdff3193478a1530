//! The merge verdict and the gate a pipeline exits on.
//!
//! A finding *gates* when it is grounded and its verdict is confirmed or absent
//! (unverified). Refuted findings never count; uncertain and ungrounded findings
//! (including never-grounding-checked ones) can warn but never fail.
//!
//! | condition (first that holds) | verdict |
//! | --- | --- |
//! | a gating blocker or major | FAIL |
//! | any other non-refuted blocker, major or minor (uncertain, ungrounded, or minor) | WARN |
//! | otherwise (only nits, refuted findings, or nothing) | PASS |
//!
//! `fail_on` is the threshold of [`exceeds_threshold`]: true when a gating finding
//! of at least that severity remains (`never`: always false). So `major` is exactly
//! "the verdict is FAIL". This module must never know exit codes: the CLI maps the
//! boolean to its "findings over threshold" code.

use std::fmt;
use std::str::FromStr;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::error::FindingsError;
use super::model::{Finding, Severity, Verdict};

/// The overall outcome of a review.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "UPPERCASE")]
pub enum MergeVerdict {
    /// Nothing that matters remains.
    Pass,
    /// Something worth a look remains, but nothing proven blocks.
    Warn,
    /// A grounded, confirmed-or-unverified blocker or major remains.
    Fail,
}

impl MergeVerdict {
    /// `PASS`, `WARN` or `FAIL`.
    pub fn as_str(self) -> &'static str {
        match self {
            MergeVerdict::Pass => "PASS",
            MergeVerdict::Warn => "WARN",
            MergeVerdict::Fail => "FAIL",
        }
    }
}

impl fmt::Display for MergeVerdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The lowest severity that makes a run exit with "findings over threshold".
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum FailOn {
    /// Only gating blockers.
    Blocker,
    /// Gating blockers and majors (the same as a FAIL verdict).
    #[default]
    Major,
    /// Gating blockers, majors and minors.
    Minor,
    /// Never.
    Never,
}

impl FromStr for FailOn {
    type Err = FindingsError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "blocker" => Ok(FailOn::Blocker),
            "major" => Ok(FailOn::Major),
            "minor" => Ok(FailOn::Minor),
            "never" => Ok(FailOn::Never),
            _ => Err(FindingsError::InvalidSetting {
                setting: "fail_on",
                value: s.to_owned(),
                allowed: "blocker, major, minor, never",
            }),
        }
    }
}

/// Whether a finding can gate: grounded, and confirmed or not yet verified.
pub fn gates(finding: &Finding) -> bool {
    finding.is_grounded() && matches!(finding.verdict, None | Some(Verdict::Confirmed))
}

/// The merge verdict over the remaining findings.
pub fn merge_verdict(findings: &[Finding]) -> MergeVerdict {
    if findings
        .iter()
        .any(|f| f.severity >= Severity::Major && gates(f))
    {
        MergeVerdict::Fail
    } else if findings
        .iter()
        .any(|f| f.is_open() && f.severity >= Severity::Minor)
    {
        MergeVerdict::Warn
    } else {
        MergeVerdict::Pass
    }
}

/// Whether the findings are over the `fail_on` threshold.
pub fn exceeds_threshold(findings: &[Finding], fail_on: FailOn) -> bool {
    let threshold = match fail_on {
        FailOn::Never => return false,
        FailOn::Blocker => Severity::Blocker,
        FailOn::Major => Severity::Major,
        FailOn::Minor => Severity::Minor,
    };
    findings.iter().any(|f| f.severity >= threshold && gates(f))
}
