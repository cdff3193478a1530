//! Grounding: does a finding's evidence quote occur in the material it cites?
//!
//! A quote is looked for in the cited file's part of the unified diff (its new
//! side, its old side, and the hunk as printed) and in the cited file's content
//! when given. Matching normalizes every whitespace run to one space, strips the
//! one-character diff prefixes (`+`, `-`, ` `) from diff lines, and tries the quote
//! both as written and with such prefixes stripped from its own lines. A quote may
//! elide with `...` or `…`: every fragment must then occur. Surrounding backticks,
//! quotes and code-fence lines around the quote are ignored.
//!
//! Evidence with fewer than [`MIN_EVIDENCE_CHARS`] non-whitespace characters is
//! [`Grounding::Weak`]: too short to prove anything (`x += 1` occurs everywhere).
//! Weak counts as not grounded.
//!
//! What happens to a finding that is not grounded is the recipe's
//! [`UngroundedPolicy`]; whatever it is, `verdict` never lets an ungrounded finding
//! produce FAIL. This module must never read files or run git: the caller hands in
//! the diff text and file contents.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::model::{Finding, Grounding};

/// Minimum non-whitespace characters (after normalization) for evidence to ground.
pub const MIN_EVIDENCE_CHARS: usize = 10;

/// What to do with a finding whose evidence is not grounded.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum UngroundedPolicy {
    /// Keep it as it is, marked ungrounded (it still cannot produce FAIL).
    Keep,
    /// Lower its severity by one step (blocker → major → minor → nit), once,
    /// recording the original in `downgraded_from`.
    #[default]
    Downgrade,
    /// Remove it (it is counted in the report as dropped).
    Drop,
}

/// The material evidence may be found in.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct GroundingSources {
    /// The unified diff under review (`git diff` output).
    pub diff: Option<String>,
    /// File contents at the reviewed revision, by repository-relative path.
    pub files: BTreeMap<String, String>,
}

/// Findings after grounding: the kept ones (marked) and the dropped ones.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GroundingOutcome {
    /// Kept findings, each with `grounding` set.
    pub findings: Vec<Finding>,
    /// Findings removed by [`UngroundedPolicy::Drop`].
    pub dropped: Vec<Finding>,
}

/// Marks every finding's grounding and applies the policy to the ungrounded ones.
pub fn ground(
    findings: Vec<Finding>,
    sources: &GroundingSources,
    policy: UngroundedPolicy,
) -> GroundingOutcome {
    let index = DiffIndex::new(sources.diff.as_deref().unwrap_or(""));
    let mut outcome = GroundingOutcome::default();
    for mut finding in findings {
        let grounding = grounding_of(&finding, &index, &sources.files);
        finding.grounding = Some(grounding);
        if grounding == Grounding::Grounded {
            outcome.findings.push(finding);
            continue;
        }
        match policy {
            UngroundedPolicy::Keep => outcome.findings.push(finding),
            UngroundedPolicy::Drop => outcome.dropped.push(finding),
            UngroundedPolicy::Downgrade => {
                if finding.downgraded_from.is_none() {
                    let weaker = finding.severity.one_step_weaker();
                    if weaker != finding.severity {
                        finding.downgraded_from = Some(finding.severity);
                        finding.severity = weaker;
                    }
                }
                outcome.findings.push(finding);
            }
        }
    }
    outcome
}

/// The grounding of one finding against a diff index and file contents.
pub fn grounding_of(
    finding: &Finding,
    diff: &DiffIndex,
    files: &BTreeMap<String, String>,
) -> Grounding {
    let variants = evidence_variants(&finding.evidence);
    let strength = variants
        .iter()
        .map(|fragments| {
            fragments
                .iter()
                .map(|f| f.chars().filter(|c| *c != ' ').count())
                .sum()
        })
        .max()
        .unwrap_or(0);
    if strength < MIN_EVIDENCE_CHARS {
        return Grounding::Weak;
    }
    let mut haystacks: Vec<&str> = diff.haystacks_for(&finding.file);
    let file_text = files.get(&finding.file).map(|t| normalize_ws(t));
    if let Some(text) = &file_text {
        haystacks.push(text);
    }
    let found = variants.iter().any(|fragments| {
        haystacks.iter().any(|hay| {
            fragments
                .iter()
                .all(|fragment| hay.contains(fragment.as_str()))
        })
    });
    if found {
        Grounding::Grounded
    } else {
        Grounding::Ungrounded
    }
}

/// A unified diff split per file into normalized haystacks.
#[derive(Debug, Clone, Default)]
pub struct DiffIndex {
    /// Haystacks per path (both the old and the new path of a file point here).
    by_path: BTreeMap<String, usize>,
    /// Per section: new side, old side, and the hunks as printed (prefixes stripped).
    sections: Vec<[String; 3]>,
}

impl DiffIndex {
    /// Splits a unified diff (`git diff` or plain `diff -u` output) per file. A diff
    /// without file headers is one section that every path matches.
    pub fn new(diff: &str) -> DiffIndex {
        let mut index = DiffIndex::default();
        let mut current: Option<SectionBuilder> = None;
        let mut in_hunk = false;
        let lines: Vec<&str> = diff.lines().collect();
        for (n, &line) in lines.iter().enumerate() {
            if let Some(rest) = line.strip_prefix("diff --git ") {
                index.finish(current.take());
                let mut builder = SectionBuilder::default();
                if let Some((a, b)) = split_git_header(rest) {
                    builder.paths.push(a);
                    builder.paths.push(b);
                }
                current = Some(builder);
                in_hunk = false;
                continue;
            }
            if !in_hunk && (line.starts_with("--- ") || line.starts_with("+++ ")) {
                let builder = current.get_or_insert_with(SectionBuilder::default);
                if let Some(path) = header_path(&line[4..]) {
                    builder.paths.push(path);
                }
                continue;
            }
            if line.starts_with("@@") {
                in_hunk = true;
                current.get_or_insert_with(SectionBuilder::default);
                continue;
            }
            let next_is_new_header = lines.get(n + 1).is_some_and(|l| l.starts_with("+++ "));
            if in_hunk && line.starts_with("--- ") && next_is_new_header {
                // `--- x` then `+++ y` after hunks: the next file of a diff without
                // `diff --git` lines (a removed line `-- x` would not be followed by `+++`).
                index.finish(current.take());
                let mut builder = SectionBuilder::default();
                if let Some(path) = header_path(&line[4..]) {
                    builder.paths.push(path);
                }
                current = Some(builder);
                in_hunk = false;
                continue;
            }
            if !in_hunk {
                continue;
            }
            let builder = current.get_or_insert_with(SectionBuilder::default);
            let (marker, body) = match line.chars().next() {
                Some(c @ ('+' | '-' | ' ')) => (c, &line[1..]),
                Some('\\') => continue, // "\ No newline at end of file"
                _ => (' ', line),
            };
            builder.printed.push_str(body);
            builder.printed.push('\n');
            if marker != '-' {
                builder.new_side.push_str(body);
                builder.new_side.push('\n');
            }
            if marker != '+' {
                builder.old_side.push_str(body);
                builder.old_side.push('\n');
            }
        }
        index.finish(current);
        index
    }

    fn finish(&mut self, builder: Option<SectionBuilder>) {
        let Some(b) = builder else { return };
        let at = self.sections.len();
        self.sections.push([
            normalize_ws(&b.new_side),
            normalize_ws(&b.old_side),
            normalize_ws(&b.printed),
        ]);
        for path in b.paths {
            self.by_path.entry(path).or_insert(at);
        }
    }

    /// The haystacks a finding citing `path` may be grounded in.
    fn haystacks_for(&self, path: &str) -> Vec<&str> {
        let section = if self.by_path.is_empty() && self.sections.len() == 1 {
            self.sections.first()
        } else {
            self.by_path.get(path).and_then(|&i| self.sections.get(i))
        };
        section
            .map(|s| s.iter().map(String::as_str).collect())
            .unwrap_or_default()
    }
}

#[derive(Default)]
struct SectionBuilder {
    paths: Vec<String>,
    new_side: String,
    old_side: String,
    printed: String,
}

/// `a/x b/y` → (`x`, `y`) for paths without spaces; quoted or spaced paths are
/// left to the `---`/`+++` lines.
fn split_git_header(rest: &str) -> Option<(String, String)> {
    let (a, b) = rest.split_once(' ')?;
    let a = a.strip_prefix("a/")?;
    let b = b.strip_prefix("b/")?;
    (!b.contains(' ')).then(|| (a.to_owned(), b.to_owned()))
}

fn header_path(raw: &str) -> Option<String> {
    let raw = raw.split('\t').next().unwrap_or(raw).trim();
    if raw == "/dev/null" {
        return None;
    }
    let raw = raw.trim_matches('"');
    let path = raw
        .strip_prefix("a/")
        .or_else(|| raw.strip_prefix("b/"))
        .unwrap_or(raw);
    Some(path.to_owned())
}

/// Collapses every whitespace run to one space and trims.
pub fn normalize_ws(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The evidence as fragment lists to look for: as written, and with diff prefixes
/// stripped from its lines. Fragments are split at `...` / `…` and normalized.
fn evidence_variants(evidence: &str) -> Vec<Vec<String>> {
    let cleaned = strip_wrapping(evidence);
    let stripped: String = cleaned
        .lines()
        .map(|line| match line.chars().next() {
            Some('+' | '-') => &line[1..],
            _ => line,
        })
        .collect::<Vec<_>>()
        .join("\n");
    let mut variants = vec![fragments(&cleaned)];
    if stripped != cleaned {
        variants.push(fragments(&stripped));
    }
    variants.retain(|v| !v.is_empty());
    variants
}

fn fragments(text: &str) -> Vec<String> {
    text.replace('…', "...")
        .split("...")
        .map(normalize_ws)
        .filter(|f| !f.is_empty())
        .collect()
}

/// Removes code-fence lines and one layer of matching quotes or backticks.
fn strip_wrapping(evidence: &str) -> String {
    let body: Vec<&str> = evidence
        .lines()
        .filter(|line| !line.trim_start().starts_with("```"))
        .collect();
    let joined = body.join("\n");
    let trimmed = joined.trim();
    for q in ['`', '"', '\''] {
        if trimmed.len() >= 2
            && trimmed.starts_with(q)
            && trimmed.ends_with(q)
            && !trimmed[1..trimmed.len() - 1].contains(q)
        {
            return trimmed[1..trimmed.len() - 1].to_owned();
        }
    }
    trimmed.to_owned()
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    const DIFF: &str = "diff --git a/src/lib.rs b/src/lib.rs\nindex 1..2 100644\n--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -1,3 +1,3 @@ fn f\n fn total(xs: &[u32]) -> u32 {\n-    xs.iter().sum()\n+    xs.iter().skip(1).sum()\n }\n";

    #[test]
    fn splits_diff_per_file_and_sides() {
        let index = DiffIndex::new(DIFF);
        let hay = index.haystacks_for("src/lib.rs");
        assert_eq!(
            hay[0],
            "fn total(xs: &[u32]) -> u32 { xs.iter().skip(1).sum() }"
        );
        assert_eq!(hay[1], "fn total(xs: &[u32]) -> u32 { xs.iter().sum() }");
        assert!(index.haystacks_for("other.rs").is_empty());
    }

    #[test]
    fn wrapping_is_stripped() {
        assert_eq!(strip_wrapping("`a b`"), "a b");
        assert_eq!(strip_wrapping("```rust\nlet x = 1;\n```"), "let x = 1;");
    }
}
