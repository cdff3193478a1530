//! Tolerant parsing of model output into validated findings.
//!
//! The output may hold several JSON candidates (fenced or bare arrays, an object
//! with a `findings` array, a single finding object) amid prose. Each candidate is
//! parsed (after conservative repairs, see `repair`), its items validated one by
//! one, and the candidate with the most valid findings wins (ties: the last one,
//! the model's final answer). Invalid items of the winner are reported as
//! [`Rejected`] with the reason, never dropped silently; an output with no usable
//! candidate is reported as one whole-output rejection.
//!
//! This module must never guess content: a field is mapped only through the
//! documented tables below, and grounding/gating are decided elsewhere.
//!
//! ## Field rules
//! | field | accepted as | rule |
//! | --- | --- | --- |
//! | `file` | `file`, `path` | required; repository-relative (`\` → `/`, leading `./` removed); absolute paths and `..` rejected |
//! | `line` | `line`, `start_line` | integer or digit string ≥ 0; absent or null → 0 (not line-anchored) |
//! | `end_line` | `end_line` | optional; equal to `line` → absent; before `line`, or set while `line` is 0 → rejected |
//! | `severity` | `severity` | required, mapped by [`map_severity`]; unmappable → rejected |
//! | `category` | `category` | required; lowercased, `_`/space → `-`, `behaviour` → `behavior`, singular `test`/`convention` → plural; must be known or allowed by the recipe |
//! | `claim` | `claim` | required, non-empty, at most [`MAX_CLAIM_CHARS`] |
//! | `evidence` | `evidence`, `quote` | required string (may be empty: it will not ground), at most [`MAX_EVIDENCE_CHARS`] |
//! | `verdict` | `verdict` | optional; confirmed/refuted/uncertain (any case) or rejected; ignored (and noted) unless `accept_verdicts` |
//! | `sources` | `sources`, `source` | strings; the parse's own `source` is added |
//! | `grounding`, `downgraded_from` | — | never taken from model text (computed by `grounding`) |

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::extract::{MAX_SCANNED_BYTES, Span, candidate_spans};
use super::model::{Category, Coverage, Finding, Rejected, Severity, Verdict};
use super::repair::repair;

/// Longest claim accepted, in characters.
pub const MAX_CLAIM_CHARS: usize = 2_000;
/// Longest evidence quote accepted, in characters.
pub const MAX_EVIDENCE_CHARS: usize = 8_000;
/// Most items taken from one candidate; the rest are rejected as over the limit.
pub const MAX_ITEMS: usize = 500;
/// Raw text kept in a [`Rejected`] entry, in characters.
const MAX_RAW_CHARS: usize = 400;

/// How to parse one producer's output.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct ParseOptions {
    /// The producer (finder) name, added to every finding's `sources`.
    pub source: Option<String>,
    /// Categories the recipe allows besides the known ones (kebab-case).
    pub extra_categories: Vec<String>,
    /// Keep `verdict` fields from the text (for verification output). Off by
    /// default: a finder cannot verify its own findings.
    pub accept_verdicts: bool,
}

/// The result of parsing one output.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ParsedFindings {
    /// The producer, when given in the options.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// The valid findings of the winning candidate.
    pub findings: Vec<Finding>,
    /// Items (or whole outputs) that could not be used, with reasons.
    #[serde(default)]
    pub rejected: Vec<Rejected>,
    /// How many JSON candidates shaped like findings were seen.
    pub candidates_seen: usize,
    /// Repairs applied to the winning candidate (empty when it was valid JSON).
    #[serde(default)]
    pub repairs: Vec<String>,
    /// Other things worth knowing (ignored verdicts, cut input).
    #[serde(default)]
    pub notes: Vec<String>,
    /// The producer did not finish (its step failed, timed out or was skipped, as
    /// the caller says): a coverage gap, and nothing was parsed from its output.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gap: Option<Coverage>,
}

impl ParsedFindings {
    /// Whether the output was unusable as a whole (no candidate at all, or only
    /// malformed ones): a coverage gap, not "no findings".
    pub fn is_unparseable(&self) -> bool {
        self.candidates_seen == 0
    }
}

/// Maps a severity word to a [`Severity`], case-insensitively:
///
/// | words | severity |
/// | --- | --- |
/// | blocker, critical, blocking | blocker |
/// | major, high, error, serious | major |
/// | minor, medium, moderate, warning, warn | minor |
/// | nit, nitpick, low, info, informational, trivial, style, note | nit |
///
/// Anything else is `None` (the item is rejected).
pub fn map_severity(word: &str) -> Option<Severity> {
    Some(match word.trim().to_ascii_lowercase().as_str() {
        "blocker" | "critical" | "blocking" => Severity::Blocker,
        "major" | "high" | "error" | "serious" => Severity::Major,
        "minor" | "medium" | "moderate" | "warning" | "warn" => Severity::Minor,
        "nit" | "nitpick" | "low" | "info" | "informational" | "trivial" | "style" | "note" => {
            Severity::Nit
        }
        _ => return None,
    })
}

/// Parses model output text into findings. Never fails: problems are reported.
pub fn parse_findings(text: &str, options: &ParseOptions) -> ParsedFindings {
    let mut notes = Vec::new();
    let text = if text.len() > MAX_SCANNED_BYTES {
        notes.push(format!(
            "output longer than {MAX_SCANNED_BYTES} bytes: only the start was scanned"
        ));
        &text[..floor_char_boundary(text, MAX_SCANNED_BYTES)]
    } else {
        text
    };

    let mut candidates: Vec<Candidate> = Vec::new();
    let mut malformed: Vec<Rejected> = Vec::new();
    for span in candidate_spans(text) {
        match read_span(span) {
            SpanRead::Candidate(items, repairs) => {
                candidates.push(validate_items(&items, repairs, options))
            }
            SpanRead::Malformed(reason) => malformed.push(Rejected {
                source: options.source.clone(),
                index: None,
                raw: truncate(span.text),
                reason: format!("a findings-like JSON block could not be parsed: {reason}"),
            }),
            SpanRead::NotFindings => {}
        }
    }
    finish(candidates, malformed, text, notes, options)
}

/// Parses findings already held as JSON (an array, an object with `findings`, a
/// single finding object, or a string of model text).
pub fn parse_findings_value(value: &Value, options: &ParseOptions) -> ParsedFindings {
    if let Value::String(text) = value {
        return parse_findings(text, options);
    }
    match findings_items(value.clone()) {
        Some(items) => finish(
            vec![validate_items(&items, Vec::new(), options)],
            Vec::new(),
            "",
            Vec::new(),
            options,
        ),
        None => finish(
            Vec::new(),
            Vec::new(),
            &value.to_string(),
            Vec::new(),
            options,
        ),
    }
}

struct Candidate {
    findings: Vec<Finding>,
    rejected: Vec<Rejected>,
    objects: usize,
    repairs: Vec<&'static str>,
    notes: Vec<String>,
}

enum SpanRead {
    Candidate(Vec<Value>, Vec<&'static str>),
    Malformed(String),
    NotFindings,
}

fn read_span(span: Span<'_>) -> SpanRead {
    let (value, repairs) = match serde_json::from_str::<Value>(span.text) {
        Ok(v) => (v, Vec::new()),
        Err(first) => match repair(span.text) {
            Some((fixed, repairs)) => match serde_json::from_str::<Value>(&fixed) {
                Ok(v) => (v, repairs),
                Err(_) => return malformed_or_not(span.text, &first),
            },
            None => return malformed_or_not(span.text, &first),
        },
    };
    match findings_items(value) {
        Some(items) => SpanRead::Candidate(items, repairs),
        None => SpanRead::NotFindings,
    }
}

fn malformed_or_not(text: &str, error: &serde_json::Error) -> SpanRead {
    let looks_like_findings = ["claim", "severity", "evidence"]
        .iter()
        .any(|key| text.contains(&format!("\"{key}\"")) || text.contains(&format!("'{key}'")));
    if looks_like_findings {
        SpanRead::Malformed(error.to_string())
    } else {
        SpanRead::NotFindings
    }
}

/// The items of a value shaped like findings, or `None` when it is something else.
fn findings_items(value: Value) -> Option<Vec<Value>> {
    match value {
        Value::Array(items) if items.is_empty() || items.iter().any(Value::is_object) => {
            Some(items)
        }
        Value::Object(mut map) => match map.remove("findings") {
            Some(Value::Array(items)) => Some(items),
            Some(_) => None,
            None if map.contains_key("claim") => Some(vec![Value::Object(map)]),
            None => None,
        },
        _ => None,
    }
}

fn validate_items(
    items: &[Value],
    repairs: Vec<&'static str>,
    options: &ParseOptions,
) -> Candidate {
    let mut candidate = Candidate {
        findings: Vec::new(),
        rejected: Vec::new(),
        objects: items.iter().filter(|v| v.is_object()).count(),
        repairs,
        notes: Vec::new(),
    };
    for (index, item) in items.iter().enumerate() {
        let result = if index >= MAX_ITEMS {
            Err(format!("more than {MAX_ITEMS} items: not read"))
        } else {
            finding_from_item(item, options, index, &mut candidate.notes)
        };
        match result {
            Ok(finding) => candidate.findings.push(finding),
            Err(reason) => candidate.rejected.push(Rejected {
                source: options.source.clone(),
                index: Some(index),
                raw: truncate(&item.to_string()),
                reason,
            }),
        }
    }
    candidate
}

fn finish(
    candidates: Vec<Candidate>,
    malformed: Vec<Rejected>,
    text: &str,
    mut notes: Vec<String>,
    options: &ParseOptions,
) -> ParsedFindings {
    let candidates_seen = candidates.len();
    let best = candidates.into_iter().reduce(|best, next| {
        if (next.findings.len(), next.objects) >= (best.findings.len(), best.objects) {
            next
        } else {
            best
        }
    });
    let mut rejected = malformed;
    match best {
        Some(best) => {
            rejected.extend(best.rejected);
            notes.extend(best.notes);
            ParsedFindings {
                source: options.source.clone(),
                findings: best.findings,
                rejected,
                candidates_seen,
                repairs: best.repairs.into_iter().map(str::to_owned).collect(),
                notes,
                gap: None,
            }
        }
        None => {
            if rejected.is_empty() {
                rejected.push(Rejected {
                    source: options.source.clone(),
                    index: None,
                    raw: truncate(text),
                    reason: "no JSON array of findings found in the output".to_owned(),
                });
            }
            ParsedFindings {
                source: options.source.clone(),
                findings: Vec::new(),
                rejected,
                candidates_seen,
                repairs: Vec::new(),
                notes,
                gap: None,
            }
        }
    }
}

/// Validates one item into a finding, or says why not.
fn finding_from_item(
    item: &Value,
    options: &ParseOptions,
    index: usize,
    notes: &mut Vec<String>,
) -> Result<Finding, String> {
    let Value::Object(map) = item else {
        return Err(format!("item is {}, not an object", kind_of(item)));
    };
    let file = normalize_file(&required_string(map, &["file", "path"])?)?;
    let line = optional_line(map, &["line", "start_line"])?.unwrap_or(0);
    let end_line = match optional_line(map, &["end_line"])? {
        None => None,
        Some(end) if end == line => None,
        Some(_) if line == 0 => return Err("`end_line` given without a `line`".to_owned()),
        Some(end) if end < line => {
            return Err(format!("`end_line` {end} is before `line` {line}"));
        }
        Some(end) => Some(end),
    };
    let severity_word = required_string(map, &["severity"])?;
    let severity = map_severity(&severity_word).ok_or_else(|| {
        format!(
            "unknown severity `{severity_word}` (use blocker, major, minor or nit; see the mapping table)"
        )
    })?;
    let category = category_of(&required_string(map, &["category"])?, options)?;
    let claim = required_string(map, &["claim"])?.trim().to_owned();
    if claim.is_empty() {
        return Err("`claim` is empty".to_owned());
    }
    if claim.chars().count() > MAX_CLAIM_CHARS {
        return Err(format!(
            "`claim` is longer than {MAX_CLAIM_CHARS} characters"
        ));
    }
    let evidence = required_string(map, &["evidence", "quote"])?;
    if evidence.chars().count() > MAX_EVIDENCE_CHARS {
        return Err(format!(
            "`evidence` is longer than {MAX_EVIDENCE_CHARS} characters"
        ));
    }
    let mut verdict = match map.get("verdict") {
        None | Some(Value::Null) => None,
        Some(Value::String(word)) => Some(verdict_of(word)?),
        Some(other) => return Err(format!("`verdict` is {}, not a string", kind_of(other))),
    };
    if let Some(v) = verdict
        && !options.accept_verdicts
    {
        notes.push(format!(
            "item {index}: verdict `{}` ignored (verdicts come from verification)",
            v.as_str()
        ));
        verdict = None;
    }
    let note = match map.get("note") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) if s.trim().is_empty() => None,
        Some(Value::String(s)) => Some(s.trim().to_owned()),
        Some(other) => return Err(format!("`note` is {}, not a string", kind_of(other))),
    };
    let id = match map.get("id") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(other) => return Err(format!("`id` is {}, not a string", kind_of(other))),
    };
    let mut sources = sources_of(map)?;
    if let Some(source) = &options.source {
        sources.push(source.clone());
    }
    sources.sort();
    sources.dedup();
    Ok(Finding {
        id,
        file,
        line,
        end_line,
        severity,
        category,
        claim,
        evidence,
        verdict,
        note,
        sources,
        grounding: None,
        downgraded_from: None,
    })
}

fn required_string(map: &Map<String, Value>, keys: &[&str]) -> Result<String, String> {
    for key in keys {
        match map.get(*key) {
            None | Some(Value::Null) => continue,
            Some(Value::String(s)) => return Ok(s.clone()),
            Some(other) => return Err(format!("`{key}` is {}, not a string", kind_of(other))),
        }
    }
    Err(format!("missing required field `{}`", keys[0]))
}

fn optional_line(map: &Map<String, Value>, keys: &[&str]) -> Result<Option<u32>, String> {
    for key in keys {
        let parsed = match map.get(*key) {
            None | Some(Value::Null) => continue,
            Some(Value::Number(n)) => n.as_u64().and_then(|n| u32::try_from(n).ok()),
            Some(Value::String(s)) => s.trim().parse::<u32>().ok(),
            Some(_) => None,
        };
        return match parsed {
            Some(n) => Ok(Some(n)),
            None => Err(format!("`{key}` is not a non-negative line number")),
        };
    }
    Ok(None)
}

/// Repository-relative, forward slashes, no leading `./`; refuses absolute paths
/// and parent components.
pub(crate) fn normalize_file(raw: &str) -> Result<String, String> {
    let mut path = raw.trim().replace('\\', "/");
    while let Some(rest) = path.strip_prefix("./") {
        path = rest.to_owned();
    }
    let absolute =
        path.starts_with('/') || path.as_bytes().get(1) == Some(&b':') || path.contains("://");
    if path.is_empty() {
        return Err("`file` is empty".to_owned());
    }
    if absolute || path.split('/').any(|part| part == "..") {
        return Err(format!("`file` `{raw}` is not a repository-relative path"));
    }
    Ok(path)
}

fn category_of(raw: &str, options: &ParseOptions) -> Result<Category, String> {
    let mut name = raw.trim().to_ascii_lowercase().replace(['_', ' '], "-");
    name = name.replace("behaviour", "behavior");
    name = match name.as_str() {
        "test" => "tests".to_owned(),
        "convention" => "conventions".to_owned(),
        "crossfile" => "cross-file".to_owned(),
        _ => name,
    };
    let allowed =
        Category::KNOWN.contains(&name.as_str()) || options.extra_categories.contains(&name);
    match Category::new(&name) {
        Some(category) if allowed => Ok(category),
        _ => {
            let mut all: Vec<&str> = Category::KNOWN.to_vec();
            all.extend(options.extra_categories.iter().map(String::as_str));
            Err(format!(
                "unknown category `{raw}` (allowed: {})",
                all.join(", ")
            ))
        }
    }
}

fn verdict_of(word: &str) -> Result<Verdict, String> {
    match word.trim().to_ascii_lowercase().as_str() {
        "confirmed" => Ok(Verdict::Confirmed),
        "refuted" => Ok(Verdict::Refuted),
        "uncertain" => Ok(Verdict::Uncertain),
        _ => Err(format!(
            "unknown verdict `{word}` (use confirmed, refuted or uncertain)"
        )),
    }
}

fn sources_of(map: &Map<String, Value>) -> Result<Vec<String>, String> {
    let mut sources = Vec::new();
    match map.get("sources") {
        None | Some(Value::Null) => {}
        Some(Value::Array(items)) => {
            for item in items {
                match item {
                    Value::String(s) if !s.trim().is_empty() => sources.push(s.trim().to_owned()),
                    _ => return Err("`sources` must be an array of names".to_owned()),
                }
            }
        }
        Some(_) => return Err("`sources` must be an array of names".to_owned()),
    }
    match map.get("source") {
        None | Some(Value::Null) => {}
        Some(Value::String(s)) if !s.trim().is_empty() => sources.push(s.trim().to_owned()),
        Some(_) => return Err("`source` must be a name".to_owned()),
    }
    Ok(sources)
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn truncate(text: &str) -> String {
    match text.char_indices().nth(MAX_RAW_CHARS) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}

fn floor_char_boundary(text: &str, mut at: usize) -> usize {
    while at > 0 && !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn severity_table() {
        assert_eq!(map_severity("Critical"), Some(Severity::Blocker));
        assert_eq!(map_severity("high"), Some(Severity::Major));
        assert_eq!(map_severity("MEDIUM"), Some(Severity::Minor));
        assert_eq!(map_severity("info"), Some(Severity::Nit));
        assert_eq!(map_severity("catastrophic"), None);
    }

    #[test]
    fn file_paths_are_normalized_or_refused() {
        assert_eq!(normalize_file(".\\src\\a.rs").unwrap(), "src/a.rs");
        assert!(normalize_file("/etc/passwd").is_err());
        assert!(normalize_file("src/../../x").is_err());
        assert!(normalize_file("C:/x").is_err());
    }
}
