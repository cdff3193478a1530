//! The typed finding: what a reviewer claims, where, how severe, with what evidence.
//!
//! This module owns the data shapes only (with their serde and JSON Schema forms).
//! It must never parse model prose (see `parse`), decide gating (see `verdict`) or
//! know which finder or flow produced a finding.

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::similarity::normalized_claim;

/// How much a finding matters. Ordered weakest to strongest (`Nit < Blocker`), so
/// `max()` is the strongest.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Style or taste; never gates anything.
    Nit,
    /// Worth fixing; does not block a merge on its own.
    Minor,
    /// A real defect that should block a merge once confirmed.
    Major,
    /// A defect that must block a merge.
    Blocker,
}

impl Severity {
    /// Strongest first: the order reports list severities in.
    pub const STRONGEST_FIRST: [Severity; 4] = [
        Severity::Blocker,
        Severity::Major,
        Severity::Minor,
        Severity::Nit,
    ];

    /// The lowercase name used in JSON, Markdown and SARIF properties.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Blocker => "blocker",
            Severity::Major => "major",
            Severity::Minor => "minor",
            Severity::Nit => "nit",
        }
    }

    /// One step weaker (`nit` stays `nit`).
    pub fn one_step_weaker(self) -> Severity {
        match self {
            Severity::Blocker => Severity::Major,
            Severity::Major => Severity::Minor,
            Severity::Minor | Severity::Nit => Severity::Nit,
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What kind of problem a finding is about: a validated kebab-case name.
///
/// The known categories are associated constants; a recipe may allow extra ones
/// (see `ParseOptions::extra_categories`). Whether a name is *allowed* is checked
/// by the parser against that list; this type only guarantees the name's shape
/// (`^[a-z][a-z0-9-]{0,63}$`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct Category(String);

impl Category {
    /// Logic errors: wrong results, crashes, races, wrong edge cases.
    pub const CORRECTNESS: &'static str = "correctness";
    /// Behaviour the change removes or silently alters.
    pub const REMOVED_BEHAVIOR: &'static str = "removed-behavior";
    /// Breakage in code the diff does not touch (callers, implementors, configs).
    pub const CROSS_FILE: &'static str = "cross-file";
    /// Project conventions, naming, structure, documentation.
    pub const CONVENTIONS: &'static str = "conventions";
    /// Vulnerabilities and unsafe handling of untrusted input or secrets.
    pub const SECURITY: &'static str = "security";
    /// Missing, wrong or weakened tests.
    pub const TESTS: &'static str = "tests";

    /// The known categories, in report order.
    pub const KNOWN: [&'static str; 6] = [
        Self::CORRECTNESS,
        Self::REMOVED_BEHAVIOR,
        Self::CROSS_FILE,
        Self::CONVENTIONS,
        Self::SECURITY,
        Self::TESTS,
    ];

    /// A category from a name of the right shape, or `None`.
    pub fn new(name: &str) -> Option<Category> {
        is_category_shape(name).then(|| Category(name.to_owned()))
    }

    /// The name.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether this is one of the built-in categories.
    pub fn is_known(&self) -> bool {
        Self::KNOWN.contains(&self.0.as_str())
    }
}

impl fmt::Display for Category {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

fn is_category_shape(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some('a'..='z'))
        && name.len() <= 64
        && chars.all(|c| matches!(c, 'a'..='z' | '0'..='9' | '-'))
}

impl<'de> Deserialize<'de> for Category {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = String::deserialize(d)?;
        Category::new(&name).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "category `{name}` is not a lowercase kebab-case name"
            ))
        })
    }
}

impl JsonSchema for Category {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Category".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "A lowercase kebab-case category. Known: correctness, removed-behavior, cross-file, conventions, security, tests; a recipe may allow more.",
            "type": "string",
            "pattern": "^[a-z][a-z0-9-]{0,63}$",
            "examples": Category::KNOWN,
        })
    }
}

/// The outcome of verifying one finding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// The verifier reproduced or otherwise established the problem.
    Confirmed,
    /// The verifier showed the claim is wrong. Refuted findings never count.
    Refuted,
    /// The verifier could neither confirm nor refute it.
    Uncertain,
}

impl Verdict {
    /// The lowercase name.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Confirmed => "confirmed",
            Verdict::Refuted => "refuted",
            Verdict::Uncertain => "uncertain",
        }
    }
}

/// Whether a finding's evidence quote was found in the material it cites.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Grounding {
    /// Not found in the diff or the cited file: paraphrased or invented.
    Ungrounded,
    /// Too short to prove anything (see `grounding::MIN_EVIDENCE_CHARS`).
    Weak,
    /// Found verbatim (modulo whitespace and diff prefixes) in the diff or the cited file.
    Grounded,
}

impl Grounding {
    /// The lowercase name.
    pub fn as_str(self) -> &'static str {
        match self {
            Grounding::Ungrounded => "ungrounded",
            Grounding::Weak => "weak",
            Grounding::Grounded => "grounded",
        }
    }
}

/// One review finding.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Finding {
    /// A stable identifier within one review (assigned by `merge`); used to attach
    /// verdicts from the per-finding verification back to the finding.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Repository-relative path with forward slashes, no leading `./`.
    #[schemars(length(min = 1))]
    pub file: String,
    /// Line in the new file (1-based); 0 when the finding is not anchored to a line.
    pub line: u32,
    /// Last line of the range, when the finding spans several lines.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_line: Option<u32>,
    /// How much it matters.
    pub severity: Severity,
    /// What kind of problem it is.
    pub category: Category,
    /// What is wrong, in one or two sentences.
    #[schemars(length(min = 1))]
    pub claim: String,
    /// A verbatim quote from the diff or the cited file supporting the claim.
    pub evidence: String,
    /// Set once the finding has been verified.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<Verdict>,
    /// The verifier's (or finder's) note.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// The finders that raised it (several after deduplication), sorted.
    #[serde(default)]
    pub sources: Vec<String>,
    /// Whether the evidence was found in the cited material; absent until checked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grounding: Option<Grounding>,
    /// The severity the finder gave, when grounding downgraded it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub downgraded_from: Option<Severity>,
}

impl Finding {
    /// The line range `[start, end]`, or `None` when the finding covers the whole file.
    pub fn line_range(&self) -> Option<(u32, u32)> {
        if self.line == 0 {
            return None;
        }
        let end = self.end_line.unwrap_or(self.line).max(self.line);
        Some((self.line, end))
    }

    /// Whether the finding was grounded (a finding never checked is not grounded).
    pub fn is_grounded(&self) -> bool {
        self.grounding == Some(Grounding::Grounded)
    }

    /// Whether it still counts (anything but refuted).
    pub fn is_open(&self) -> bool {
        self.verdict != Some(Verdict::Refuted)
    }

    /// A line-independent hash of file, category and normalized claim (hex SHA-256).
    ///
    /// Stable across review rounds while the code around the finding moves; used as
    /// the SARIF `partialFingerprints` value and as the basis of `id`.
    pub fn fingerprint(&self) -> String {
        let mut h = Sha256::new();
        h.update(self.file.as_bytes());
        h.update([0]);
        h.update(self.category.as_str().as_bytes());
        h.update([0]);
        h.update(normalized_claim(&self.claim).as_bytes());
        hex::encode(h.finalize())
    }
}

/// Whether a finder (or another producer of findings) covered its part of the review.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum CoverageStatus {
    /// It ran and its output was parsed (zero findings is then a real "nothing found").
    Ok,
    /// It failed (error, refused, budget exhausted).
    Failed,
    /// It ran out of time.
    TimedOut,
    /// It ran but none of its output could be parsed as findings.
    Unparseable,
    /// It did not run (condition false, cancelled).
    Skipped,
}

impl CoverageStatus {
    /// The snake_case name.
    pub fn as_str(self) -> &'static str {
        match self {
            CoverageStatus::Ok => "ok",
            CoverageStatus::Failed => "failed",
            CoverageStatus::TimedOut => "timed_out",
            CoverageStatus::Unparseable => "unparseable",
            CoverageStatus::Skipped => "skipped",
        }
    }
}

/// One finder's coverage: anything but `ok` is a gap, never "no findings".
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Coverage {
    /// The finder (step or angle) name.
    pub source: String,
    /// What happened.
    pub status: CoverageStatus,
    /// Why, when it is a gap.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl Coverage {
    /// Whether this is a gap in the review's coverage.
    pub fn is_gap(&self) -> bool {
        self.status != CoverageStatus::Ok
    }
}

/// An item (or a whole output) the parser could not turn into a finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Rejected {
    /// The finder whose output it was, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// The item's index in the chosen array; absent when the whole output was unusable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index: Option<usize>,
    /// The item as JSON text, or the start of the output (truncated). Kept for
    /// debugging; renderers never publish it.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub raw: String,
    /// Why it was rejected.
    pub reason: String,
}
