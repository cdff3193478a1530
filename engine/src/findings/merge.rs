//! The merge pipeline: parsed outputs → grounded → deduplicated → prior-checked →
//! identified findings, with everything that was set aside accounted for.
//!
//! Order matters and is fixed: grounding first (so dedup can prefer grounded
//! evidence), then dedup, then prior suppression, then ids. Ids are the first 12
//! hex digits of the finding's fingerprint (`-2`, `-3` ... on a collision, in the
//! sorted order), so they are stable across runs of the same review. This module
//! must never read files or call models; the caller passes the diff and contents.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::dedup::{DEFAULT_CLAIM_SIMILARITY, dedup};
use super::grounding::{GroundingSources, UngroundedPolicy, ground};
use super::model::{Coverage, CoverageStatus, Finding, Rejected};
use super::parse::ParsedFindings;
use super::prior::{Suppressed, apply_prior, read_prior};

/// Everything the merge needs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct MergeInput {
    /// One parse result per finder (their rejections and coverage are carried over).
    pub parsed: Vec<ParsedFindings>,
    /// Findings already typed (e.g. from a step with a typed output).
    pub findings: Vec<Finding>,
    /// The unified diff under review.
    pub diff: Option<String>,
    /// File contents at the reviewed revision, by repository-relative path.
    pub files: BTreeMap<String, String>,
    /// Findings from an earlier round (array or report object; items may carry
    /// `"settled": true`).
    pub prior: Option<Value>,
    /// What to do with ungrounded findings.
    pub ungrounded: UngroundedPolicy,
    /// Claim similarity threshold for dedup and prior matching.
    pub similarity: f64,
    /// Categories the recipe allows besides the known ones (for prior findings).
    pub extra_categories: Vec<String>,
}

impl Default for MergeInput {
    fn default() -> Self {
        MergeInput {
            parsed: Vec::new(),
            findings: Vec::new(),
            diff: None,
            files: BTreeMap::new(),
            prior: None,
            ungrounded: UngroundedPolicy::default(),
            similarity: DEFAULT_CLAIM_SIMILARITY,
            extra_categories: Vec::new(),
        }
    }
}

/// The merged findings and the account of everything set aside.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct MergeOutcome {
    /// The open findings, sorted, each with an `id` and a `grounding`.
    pub findings: Vec<Finding>,
    /// New findings suppressed by settled prior ones.
    pub suppressed: Vec<Suppressed>,
    /// Findings dropped as ungrounded (policy `drop`).
    pub dropped_ungrounded: Vec<Finding>,
    /// Items the parsers (or the prior reader) could not use.
    pub rejected: Vec<Rejected>,
    /// Per finder: `ok`, or `unparseable` when none of its output could be read.
    pub coverage: Vec<Coverage>,
    /// How many findings re-raise a prior point that is still open.
    pub still_open: usize,
}

/// Runs the merge pipeline.
pub fn merge(input: MergeInput) -> MergeOutcome {
    let mut rejected = Vec::new();
    let mut coverage = Vec::new();
    let mut findings = input.findings;
    for parsed in input.parsed {
        if let Some(gap) = &parsed.gap {
            coverage.push(gap.clone());
        } else if let Some(source) = &parsed.source {
            coverage.push(if parsed.is_unparseable() {
                Coverage {
                    source: source.clone(),
                    status: CoverageStatus::Unparseable,
                    reason: parsed.rejected.first().map(|r| r.reason.clone()),
                }
            } else {
                Coverage {
                    source: source.clone(),
                    status: CoverageStatus::Ok,
                    reason: None,
                }
            });
        }
        rejected.extend(parsed.rejected);
        findings.extend(parsed.findings);
    }

    let sources = GroundingSources {
        diff: input.diff,
        files: input.files,
    };
    let grounded = ground(findings, &sources, input.ungrounded);
    let merged = dedup(grounded.findings, input.similarity);

    let (prior, prior_rejected) = match &input.prior {
        Some(value) => read_prior(value, &input.extra_categories),
        None => (Vec::new(), Vec::new()),
    };
    rejected.extend(prior_rejected);
    let checked = apply_prior(merged, &prior, input.similarity);

    let mut findings = checked.findings;
    assign_ids(&mut findings);
    MergeOutcome {
        findings,
        suppressed: checked.suppressed,
        dropped_ungrounded: grounded.dropped,
        rejected,
        coverage,
        still_open: checked.still_open,
    }
}

/// Gives every finding without an id a stable one (see the module docs).
pub fn assign_ids(findings: &mut [Finding]) {
    let mut used: BTreeMap<String, usize> = BTreeMap::new();
    for f in findings.iter() {
        if let Some(id) = &f.id {
            used.insert(id.clone(), 1);
        }
    }
    for f in findings.iter_mut().filter(|f| f.id.is_none()) {
        let base: String = f.fingerprint().chars().take(12).collect();
        let mut id = base.clone();
        let mut n = 1;
        while used.contains_key(&id) {
            n += 1;
            id = format!("{base}-{n}");
        }
        used.insert(id.clone(), 1);
        f.id = Some(id);
    }
}
