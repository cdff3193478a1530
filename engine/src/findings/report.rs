//! The typed review report: verdict, counts, findings, and the account of coverage,
//! suppression and rejected output. This is the JSON output and what the Markdown
//! and SARIF renderers read.
//!
//! Verdicts from the per-finding verification are attached by finding `id`
//! ([`apply_verdicts`]), so a later step never has to re-print findings as text.
//! Raw model text never reaches a report: rejected items keep only their source,
//! index and reason. This module must never render text formats.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::model::{Coverage, CoverageStatus, Finding, Grounding, Rejected, Severity, Verdict};
use super::prior::Suppressed;
use super::verdict::{MergeVerdict, merge_verdict};

/// A verification result for one finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VerdictUpdate {
    /// The finding's `id`.
    pub id: String,
    /// The verdict.
    pub verdict: Verdict,
    /// The verifier's note.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// What a report is built from: a merge outcome's fields plus verdicts and the
/// executor's coverage (unknown fields are ignored, so a merge outcome can be
/// passed as is).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct ReportInput {
    /// The findings (merged).
    pub findings: Vec<Finding>,
    /// Verification results to attach by id.
    pub verdicts: Vec<VerdictUpdate>,
    /// Coverage per finder (from the merge and from the executor; per source the
    /// worst status wins).
    pub coverage: Vec<Coverage>,
    /// Rejected parse items.
    pub rejected: Vec<Rejected>,
    /// Findings suppressed by prior rounds.
    pub suppressed: Vec<Suppressed>,
    /// Findings dropped as ungrounded.
    pub dropped_ungrounded: Vec<Finding>,
}

/// Counts of the findings in a report.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Counts {
    /// Open (non-refuted) blockers.
    pub blocker: usize,
    /// Open majors.
    pub major: usize,
    /// Open minors.
    pub minor: usize,
    /// Open nits.
    pub nit: usize,
    /// Refuted findings (listed, never counted above).
    pub refuted: usize,
    /// Open findings whose evidence was not grounded.
    pub ungrounded: usize,
    /// Open findings without a verdict.
    pub unverified: usize,
}

/// The review report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Report {
    /// PASS, WARN or FAIL.
    pub verdict: MergeVerdict,
    /// False when a finder has a coverage gap: the verdict then covers less than asked.
    pub complete: bool,
    /// Counts.
    pub counts: Counts,
    /// All findings, strongest first, then by file and line (refuted ones included,
    /// marked).
    pub findings: Vec<Finding>,
    /// How many new findings prior rounds suppressed.
    pub suppressed: usize,
    /// How many findings were dropped as ungrounded.
    pub dropped_ungrounded: usize,
    /// What could not be parsed (without raw text).
    pub rejected: Vec<Rejected>,
    /// Coverage per finder.
    pub coverage: Vec<Coverage>,
    /// Verdict ids that matched no finding.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unmatched_verdicts: Vec<String>,
}

impl Report {
    /// The coverage gaps.
    pub fn gaps(&self) -> impl Iterator<Item = &Coverage> {
        self.coverage.iter().filter(|c| c.is_gap())
    }
}

/// Attaches verdicts by id; returns the ids that matched nothing.
pub fn apply_verdicts(findings: &mut [Finding], verdicts: &[VerdictUpdate]) -> Vec<String> {
    let mut unmatched = Vec::new();
    for update in verdicts {
        let mut hit = false;
        for f in findings
            .iter_mut()
            .filter(|f| f.id.as_deref() == Some(update.id.as_str()))
        {
            f.verdict = Some(update.verdict);
            if let Some(note) = &update.note {
                f.note = Some(note.clone());
            }
            hit = true;
        }
        if !hit {
            unmatched.push(update.id.clone());
        }
    }
    unmatched
}

/// Builds the report.
pub fn build_report(input: ReportInput) -> Report {
    let mut findings = input.findings;
    let unmatched_verdicts = apply_verdicts(&mut findings, &input.verdicts);
    findings.sort_by(|a, b| {
        (
            a.verdict == Some(Verdict::Refuted),
            std::cmp::Reverse(a.severity),
            &a.file,
            a.line,
            &a.claim,
        )
            .cmp(&(
                b.verdict == Some(Verdict::Refuted),
                std::cmp::Reverse(b.severity),
                &b.file,
                b.line,
                &b.claim,
            ))
    });
    let mut counts = Counts::default();
    for f in &findings {
        if !f.is_open() {
            counts.refuted += 1;
            continue;
        }
        match f.severity {
            Severity::Blocker => counts.blocker += 1,
            Severity::Major => counts.major += 1,
            Severity::Minor => counts.minor += 1,
            Severity::Nit => counts.nit += 1,
        }
        if f.grounding != Some(Grounding::Grounded) {
            counts.ungrounded += 1;
        }
        if f.verdict.is_none() {
            counts.unverified += 1;
        }
    }
    let coverage = combine_coverage(input.coverage);
    Report {
        verdict: merge_verdict(&findings),
        complete: coverage.iter().all(|c| !c.is_gap()),
        counts,
        findings,
        suppressed: input.suppressed.len(),
        dropped_ungrounded: input.dropped_ungrounded.len(),
        rejected: input
            .rejected
            .into_iter()
            .map(|r| Rejected {
                raw: String::new(),
                ..r
            })
            .collect(),
        coverage,
        unmatched_verdicts,
    }
}

/// One entry per source, the worst status winning (any gap beats `ok`), in first
/// appearance order.
fn combine_coverage(coverage: Vec<Coverage>) -> Vec<Coverage> {
    let mut order: Vec<String> = Vec::new();
    let mut by_source: BTreeMap<String, Coverage> = BTreeMap::new();
    for c in coverage {
        match by_source.get(&c.source) {
            None => {
                order.push(c.source.clone());
                by_source.insert(c.source.clone(), c);
            }
            Some(existing) if existing.status == CoverageStatus::Ok && c.is_gap() => {
                by_source.insert(c.source.clone(), c);
            }
            Some(_) => {}
        }
    }
    order
        .into_iter()
        .filter_map(|s| by_source.remove(&s))
        .collect()
}
