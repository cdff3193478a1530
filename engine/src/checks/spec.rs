//! Resolved checks: [`CheckSpec`] (a frozen argv/cwd/env plus the files the check depends
//! on), where it came from ([`CheckSource`]), what runs it ([`CheckKind`]) and the
//! [`CheckSet`] a run looks checks up in.
//!
//! A `CheckSpec` is data only. This module never runs a check and never reads a file; the
//! `run_check` tool expands a spec into a command and the evidence layer uses
//! [`DependencyPaths`] to decide when a passing result became stale.

use std::collections::BTreeMap;

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::error::ChecksError;

/// The default bound on the number of dependency files listed per check.
pub const DEPENDENCY_FILE_LIMIT: usize = 512;

/// A resolved, frozen check: the model never supplies the command, only the id.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CheckSpec {
    /// Stable id, matching `^[a-z0-9][a-z0-9_.:-]*$` (e.g. `cargo:test`, `npm:lint`).
    pub id: String,
    /// Program and arguments; never run through a shell.
    pub argv: Vec<String>,
    /// Project-relative working directory (`.` for the root), `/`-separated, never escaping.
    pub cwd: String,
    /// Variables this check sets on top of the base environment the runner provides
    /// (the runner decides the base, e.g. PATH and HOME; nothing is inherited here).
    pub env: BTreeMap<String, String>,
    /// The files this check depends on: a change to one of them makes a result stale.
    pub paths: DependencyPaths,
    /// Where the check came from, with the reason.
    pub source: CheckSource,
    /// Which runner the check is, for counting executed tests from its output.
    pub kind: CheckKind,
    /// What the check is for (tests, type checking, lint, build, or anything else).
    pub purpose: CheckPurpose,
    /// Optional human description (from the config).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

impl CheckSpec {
    /// Whether `relative_path` (project-relative, `/`-separated) is one of this check's
    /// dependencies. Matches the patterns, so it also covers files created after discovery
    /// and files beyond the listing bound.
    pub fn depends_on(&self, relative_path: &str) -> Result<bool, ChecksError> {
        Ok(self.paths.matcher()?.is_match(relative_path))
    }

    /// True when this check is expected to execute tests (so an empty suite is detectable).
    pub fn runs_tests(&self) -> bool {
        self.purpose == CheckPurpose::Test
    }
}

/// Where a check came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum CheckSource {
    /// Listed in the project config (`file` is project-relative, e.g. `.protoflow/project.json`).
    Configured { file: String },
    /// Found by static discovery; `reason` says which file showed it.
    Discovered { reason: String },
    /// Offered because the project has no tests and no runner: it runs a suite a change may
    /// create. A bootstrap check failing before that suite exists is expected.
    Bootstrap { reason: String },
}

impl CheckSource {
    /// A one-line human explanation of the source.
    pub fn describe(&self) -> String {
        match self {
            CheckSource::Configured { file } => format!("configured in {file}"),
            CheckSource::Discovered { reason } => format!("discovered: {reason}"),
            CheckSource::Bootstrap { reason } => format!("bootstrap: {reason}"),
        }
    }

    /// Short label: `configured`, `discovered` or `bootstrap`.
    pub fn label(&self) -> &'static str {
        match self {
            CheckSource::Configured { .. } => "configured",
            CheckSource::Discovered { .. } => "discovered",
            CheckSource::Bootstrap { .. } => "bootstrap",
        }
    }
}

/// The runner behind a check, used to read how many tests ran from its output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CheckKind {
    /// `cargo test` (libtest output).
    Cargo,
    /// pytest.
    Pytest,
    /// Python's `unittest`.
    Unittest,
    /// An npm script (jest, vitest, mocha, `node --test` summaries are recognised).
    Npm,
    /// Anything else: the number of executed tests cannot be told from its output.
    Custom,
}

/// What a check is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CheckPurpose {
    /// Runs a test suite.
    Test,
    /// Type checking.
    Typecheck,
    /// Linting.
    Lint,
    /// Building.
    Build,
    /// A configured command whose purpose is not known.
    Custom,
}

/// The files a check depends on.
///
/// `patterns` are project-relative globs (`*` stays within one directory, `**` crosses
/// directories); `files` lists the existing files they matched at discovery, sorted, at
/// most `limit` of them. `truncated` says that more files matched (or that the project
/// walk itself hit its bound), so `files` is incomplete: use [`DependencyPaths::matcher`]
/// for membership, and hash `files` only as a sample.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DependencyPaths {
    /// Project-relative glob patterns.
    pub patterns: Vec<String>,
    /// Existing files matching the patterns (project-relative, `/`-separated, sorted).
    pub files: Vec<String>,
    /// More files matched than were listed.
    pub truncated: bool,
    /// The bound that applied to `files`.
    pub limit: usize,
}

impl DependencyPaths {
    /// Compiles the patterns into a matcher for project-relative `/`-separated paths.
    pub fn matcher(&self) -> Result<GlobSet, ChecksError> {
        compile_patterns(&self.patterns)
    }
}

/// Compiles project-relative glob patterns (`*` does not cross `/`).
pub(crate) fn compile_patterns(patterns: &[String]) -> Result<GlobSet, ChecksError> {
    let mut builder = GlobSetBuilder::new();
    for pattern in patterns {
        let glob = GlobBuilder::new(pattern)
            .literal_separator(true)
            .backslash_escape(true)
            .build()
            .map_err(|err| ChecksError::Pattern {
                pattern: pattern.clone(),
                message: err.kind().to_string(),
            })?;
        builder.add(glob);
    }
    builder.build().map_err(|err| ChecksError::Pattern {
        pattern: patterns.join(", "),
        message: err.to_string(),
    })
}

/// The checks of a project, in a stable order, with unique ids.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(transparent)]
pub struct CheckSet {
    checks: Vec<CheckSpec>,
}

impl CheckSet {
    /// Builds a set; the first check with a given id wins and later duplicates are
    /// returned separately (discovery never produces duplicates; config validation
    /// rejects them before this point).
    pub(crate) fn from_unique(checks: Vec<CheckSpec>) -> (Self, Vec<CheckSpec>) {
        let mut kept: Vec<CheckSpec> = Vec::with_capacity(checks.len());
        let mut duplicates = Vec::new();
        for check in checks {
            if kept.iter().any(|existing| existing.id == check.id) {
                duplicates.push(check);
            } else {
                kept.push(check);
            }
        }
        (CheckSet { checks: kept }, duplicates)
    }

    /// The check with this id, if any.
    pub fn get(&self, id: &str) -> Option<&CheckSpec> {
        self.checks.iter().find(|check| check.id == id)
    }

    /// The check with this id, or an error listing the available ids.
    pub fn require(&self, id: &str) -> Result<&CheckSpec, ChecksError> {
        self.get(id).ok_or_else(|| ChecksError::UnknownCheck {
            id: id.to_string(),
            available: self.ids().map(str::to_string).collect(),
        })
    }

    /// All ids, in order.
    pub fn ids(&self) -> impl Iterator<Item = &str> {
        self.checks.iter().map(|check| check.id.as_str())
    }

    /// All checks, in order.
    pub fn iter(&self) -> std::slice::Iter<'_, CheckSpec> {
        self.checks.iter()
    }

    /// Number of checks.
    pub fn len(&self) -> usize {
        self.checks.len()
    }

    /// True when there are no checks.
    pub fn is_empty(&self) -> bool {
        self.checks.is_empty()
    }

    /// Checks that are bootstrap offers rather than an existing suite.
    pub fn bootstrap(&self) -> impl Iterator<Item = &CheckSpec> {
        self.checks
            .iter()
            .filter(|check| matches!(check.source, CheckSource::Bootstrap { .. }))
    }
}

impl<'a> IntoIterator for &'a CheckSet {
    type Item = &'a CheckSpec;
    type IntoIter = std::slice::Iter<'a, CheckSpec>;

    fn into_iter(self) -> Self::IntoIter {
        self.checks.iter()
    }
}

/// Whether `id` matches `^[a-z0-9][a-z0-9_.:-]*$`.
pub fn is_valid_check_id(id: &str) -> bool {
    let mut chars = id.chars();
    match chars.next() {
        Some(first) if first.is_ascii_lowercase() || first.is_ascii_digit() => {}
        _ => return false,
    }
    chars
        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '_' | '.' | ':' | '-'))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn check_ids_follow_the_documented_pattern() {
        for good in ["cargo:test", "npm:lint", "a", "0", "py.unit_test-2"] {
            assert!(is_valid_check_id(good), "{good}");
        }
        for bad in ["", "Cargo", ":x", "-x", "a b", "a/b", "ünit", "_x"] {
            assert!(!is_valid_check_id(bad), "{bad}");
        }
    }

    #[test]
    fn star_does_not_cross_directories_but_double_star_does() {
        let set = compile_patterns(&["src/*.rs".to_string(), "tests/**".to_string()]).unwrap();
        assert!(set.is_match("src/lib.rs"));
        assert!(!set.is_match("src/a/b.rs"));
        assert!(set.is_match("tests/a/b/c.rs"));
        let any_py = compile_patterns(&["**/*.py".to_string()]).unwrap();
        assert!(any_py.is_match("app.py"));
        assert!(any_py.is_match("pkg/sub/mod.py"));
    }
}
