//! SARIF 2.1.0 for code scanning (GitHub accepts it via `upload-sarif`).
//!
//! - One run; `tool.driver` is protoflow with one rule per category: every known
//!   category (stable `ruleIndex` across runs) plus any extra category used.
//! - One result per open finding; refuted findings are omitted (GitHub turns every
//!   `error`/`warning`/`note` result into an alert).
//! - `level`: blocker/major → `error` only when the finding gates (grounded, and
//!   confirmed or unverified), else `warning`, so an ungrounded or uncertain finding
//!   cannot block a merge through code scanning either; minor → `warning`;
//!   nit → `note`.
//! - Location: `artifactLocation.uri` is the repository-relative path
//!   (percent-encoded, forward slashes) with `uriBaseId: "%SRCROOT%"`; GitHub needs
//!   `region.startLine`, so a file-level finding (line 0) is placed on line 1 and
//!   says so in its message and `properties.fileLevel`.
//! - `partialFingerprints[FINGERPRINT_KEY]` is a hash of file, category and
//!   normalized claim: stable while lines move, so alerts track across pushes.
//! - Coverage gaps become `invocations[0].toolExecutionNotifications` (level
//!   `error`) and `executionSuccessful: false`.

use serde_json::{Map, Value, json};

use super::text::encode_path;
use crate::findings::model::{Category, Finding, Severity};
use crate::findings::report::Report;
use crate::findings::verdict::gates;

/// The SARIF 2.1.0 schema URI written to `$schema`.
pub const SARIF_SCHEMA_URI: &str =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";
/// The key of protoflow's fingerprint in `partialFingerprints`.
pub const FINGERPRINT_KEY: &str = "protoflowFindingHash/v1";
/// The tool's information URI.
pub const INFORMATION_URI: &str = "https://github.com/protoflow/protoflow";

/// Renders the report as a SARIF 2.1.0 log.
pub fn render_sarif(report: &Report) -> Value {
    let open: Vec<&Finding> = report.findings.iter().filter(|f| f.is_open()).collect();
    let mut rule_ids: Vec<String> = Category::KNOWN.iter().map(|c| (*c).to_owned()).collect();
    let mut extras: Vec<String> = open
        .iter()
        .map(|f| f.category.as_str().to_owned())
        .filter(|c| !rule_ids.contains(c))
        .collect();
    extras.sort();
    extras.dedup();
    rule_ids.extend(extras);

    let rules: Vec<Value> = rule_ids.iter().map(|id| rule(id)).collect();
    let results: Vec<Value> = open
        .iter()
        .map(|f| {
            let index = rule_ids
                .iter()
                .position(|r| r == f.category.as_str())
                .unwrap_or(0);
            result(f, index)
        })
        .collect();
    let notifications: Vec<Value> = report
        .gaps()
        .map(|gap| {
            let mut text = format!(
                "Coverage gap: finder `{}` {}",
                gap.source,
                gap.status.as_str().replace('_', " ")
            );
            if let Some(reason) = &gap.reason {
                text.push_str(": ");
                text.push_str(reason);
            }
            text.push_str(". Its part of the review was not covered.");
            json!({ "level": "error", "message": { "text": text } })
        })
        .collect();

    json!({
        "$schema": SARIF_SCHEMA_URI,
        "version": "2.1.0",
        "runs": [{
            "tool": {
                "driver": {
                    "name": "protoflow",
                    "informationUri": INFORMATION_URI,
                    "version": env!("CARGO_PKG_VERSION"),
                    "semanticVersion": env!("CARGO_PKG_VERSION"),
                    "rules": rules,
                }
            },
            "invocations": [{
                "executionSuccessful": report.complete,
                "toolExecutionNotifications": notifications,
            }],
            "results": results,
        }]
    })
}

fn rule(id: &str) -> Value {
    let (short, level) = match id {
        Category::CORRECTNESS => ("Correctness: the change computes something wrong", "error"),
        Category::REMOVED_BEHAVIOR => (
            "Removed behavior: the change drops or alters existing behavior",
            "warning",
        ),
        Category::CROSS_FILE => (
            "Cross-file: the change breaks code it does not touch",
            "warning",
        ),
        Category::CONVENTIONS => (
            "Conventions: the change departs from project conventions",
            "note",
        ),
        Category::SECURITY => ("Security: the change introduces a vulnerability", "error"),
        Category::TESTS => ("Tests: missing, wrong or weakened tests", "warning"),
        _ => ("A finding in a recipe-defined category", "warning"),
    };
    let short = if Category::KNOWN.contains(&id) {
        short.to_owned()
    } else {
        format!("{short} ({id})")
    };
    json!({
        "id": id,
        "name": pascal_case(id),
        "shortDescription": { "text": short },
        "fullDescription": { "text": format!("{short}. Raised by an AI review finder, grounded in the diff and verified per finding by protoflow.") },
        "defaultConfiguration": { "level": level },
        "properties": { "tags": ["protoflow", "review", id] },
    })
}

fn result(f: &Finding, rule_index: usize) -> Value {
    let level = match f.severity {
        Severity::Blocker | Severity::Major if gates(f) => "error",
        Severity::Blocker | Severity::Major | Severity::Minor => "warning",
        Severity::Nit => "note",
    };
    let mut text = format!("[{}] {}", f.severity, f.claim.trim());
    if f.line == 0 {
        text.push_str(" (applies to the whole file)");
    }
    if let Some(verdict) = f.verdict {
        text.push_str(&format!(" Verification: {}.", verdict.as_str()));
    }
    if let Some(note) = &f.note {
        text.push(' ');
        text.push_str(note.trim());
    }
    let mut region = Map::new();
    match f.line_range() {
        Some((start, end)) => {
            region.insert("startLine".into(), json!(start));
            if end > start {
                region.insert("endLine".into(), json!(end));
            }
        }
        None => {
            region.insert("startLine".into(), json!(1));
        }
    }
    let mut properties = Map::new();
    properties.insert("severity".into(), json!(f.severity.as_str()));
    if let Some(verdict) = f.verdict {
        properties.insert("verdict".into(), json!(verdict.as_str()));
    }
    properties.insert("sources".into(), json!(f.sources));
    properties.insert(
        "grounding".into(),
        json!(f.grounding.map_or("unchecked", |g| g.as_str())),
    );
    properties.insert("grounded".into(), json!(f.is_grounded()));
    if let Some(from) = f.downgraded_from {
        properties.insert("downgradedFrom".into(), json!(from.as_str()));
    }
    if f.line == 0 {
        properties.insert("fileLevel".into(), json!(true));
    }
    if let Some(id) = &f.id {
        properties.insert("findingId".into(), json!(id));
    }
    json!({
        "ruleId": f.category.as_str(),
        "ruleIndex": rule_index,
        "level": level,
        "message": { "text": text },
        "locations": [{
            "physicalLocation": {
                "artifactLocation": { "uri": encode_path(&f.file), "uriBaseId": "%SRCROOT%" },
                "region": region,
            }
        }],
        "partialFingerprints": { (FINGERPRINT_KEY): f.fingerprint() },
        "properties": properties,
    })
}

fn pascal_case(id: &str) -> String {
    id.split('-')
        .map(|part| {
            let mut chars = part.chars();
            match chars.next() {
                Some(c) => c.to_ascii_uppercase().to_string() + chars.as_str(),
                None => String::new(),
            }
        })
        .collect()
}
