//! Prior findings: converge across review rounds instead of re-raising settled points.
//!
//! A new finding *matches* a prior one when both cite the same file and their
//! claims are similar (same threshold as dedup). Lines are ignored: code moves
//! between rounds. A match with a prior finding that was refuted, or that the
//! prior round marked `"settled": true`, suppresses the new finding (counted and
//! listed, never silently lost). A match with any other prior finding (confirmed,
//! uncertain, unverified) keeps the new finding: the point is still open, and it is
//! verified again against the new code. When several prior findings match, the
//! most similar one decides; on a tie an open one wins (the safe side).
//!
//! This module must never change a kept finding.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::model::{Finding, Rejected, Verdict};
use super::parse::{ParseOptions, parse_findings_value};
use super::similarity::claim_similarity;

/// A finding from an earlier round, and whether that round settled it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PriorFinding {
    /// The prior finding (its `verdict` matters).
    pub finding: Finding,
    /// Marked settled by the prior round (accepted as won't-fix, answered, ...).
    pub settled: bool,
}

impl PriorFinding {
    /// Whether a new duplicate of it should be suppressed.
    pub fn is_settled(&self) -> bool {
        self.settled || self.finding.verdict == Some(Verdict::Refuted)
    }
}

/// A new finding suppressed by a settled prior one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Suppressed {
    /// The new finding.
    pub finding: Finding,
    /// The prior finding's claim.
    pub prior_claim: String,
    /// `refuted` or `settled`.
    pub reason: String,
}

/// The result of checking findings against prior ones.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PriorOutcome {
    /// Findings still open.
    pub findings: Vec<Finding>,
    /// Findings suppressed as settled duplicates.
    pub suppressed: Vec<Suppressed>,
    /// How many kept findings re-raise a prior point that is still open.
    pub still_open: usize,
}

/// Reads prior findings from JSON: an array of findings, or an object with a
/// `findings` array (a previous report), or either as JSON text (a report file's
/// content). Each item may carry `"settled": true`. Invalid items are returned as
/// rejected; an empty string means no prior findings.
pub fn read_prior(
    value: &Value,
    extra_categories: &[String],
) -> (Vec<PriorFinding>, Vec<Rejected>) {
    if let Value::String(text) = value {
        if text.trim().is_empty() {
            return (Vec::new(), Vec::new());
        }
        return match serde_json::from_str::<Value>(text) {
            Ok(parsed) if !parsed.is_string() => read_prior(&parsed, extra_categories),
            Ok(_) | Err(_) => (
                Vec::new(),
                vec![Rejected {
                    source: Some("prior".to_owned()),
                    index: None,
                    raw: String::new(),
                    reason: "prior findings text is not a JSON array or report object".to_owned(),
                }],
            ),
        };
    }
    let items: Vec<Value> = match value {
        Value::Array(items) => items.clone(),
        Value::Object(map) => match map.get("findings") {
            Some(Value::Array(items)) => items.clone(),
            _ => Vec::new(),
        },
        Value::Null => return (Vec::new(), Vec::new()),
        _ => Vec::new(),
    };
    let options = ParseOptions {
        source: None,
        extra_categories: extra_categories.to_vec(),
        accept_verdicts: true,
    };
    let mut prior = Vec::new();
    let mut rejected = Vec::new();
    if items.is_empty() && !matches!(value, Value::Array(_)) {
        rejected.push(Rejected {
            source: Some("prior".to_owned()),
            index: None,
            raw: String::new(),
            reason: "prior findings must be an array or an object with a `findings` array"
                .to_owned(),
        });
    }
    for (index, item) in items.into_iter().enumerate() {
        let mut item = item;
        let settled = match &mut item {
            Value::Object(map) => map
                .remove("settled")
                .and_then(|v| v.as_bool())
                .unwrap_or(false),
            _ => false,
        };
        let parsed = parse_findings_value(&Value::Array(vec![item]), &options);
        match parsed.findings.into_iter().next() {
            Some(finding) => prior.push(PriorFinding { finding, settled }),
            None => rejected.extend(parsed.rejected.into_iter().map(|r| Rejected {
                source: Some("prior".to_owned()),
                index: Some(index),
                ..r
            })),
        }
    }
    (prior, rejected)
}

/// Drops new findings that duplicate settled prior ones.
pub fn apply_prior(findings: Vec<Finding>, prior: &[PriorFinding], threshold: f64) -> PriorOutcome {
    let mut outcome = PriorOutcome::default();
    for finding in findings {
        let best = prior
            .iter()
            .filter(|p| p.finding.file == finding.file)
            .map(|p| (claim_similarity(&p.finding.claim, &finding.claim), p))
            .filter(|(sim, _)| *sim >= threshold)
            .max_by(|(sa, pa), (sb, pb)| {
                sa.total_cmp(sb)
                    // On equal similarity, prefer the open one (settled sorts lower).
                    .then((!pa.is_settled()).cmp(&!pb.is_settled()))
            })
            .map(|(_, p)| p);
        match best {
            Some(p) if p.is_settled() => outcome.suppressed.push(Suppressed {
                prior_claim: p.finding.claim.clone(),
                reason: if p.finding.verdict == Some(Verdict::Refuted) {
                    "refuted".to_owned()
                } else {
                    "settled".to_owned()
                },
                finding,
            }),
            Some(_) => {
                outcome.still_open += 1;
                outcome.findings.push(finding);
            }
            None => outcome.findings.push(finding),
        }
    }
    outcome
}
