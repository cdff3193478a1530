//! Resolving a project's checks: configured checks from `.protoflow/project.json` take
//! precedence; otherwise static discovery per ecosystem (Cargo, Python, npm), plus a
//! bootstrap Python unittest check when a Python project has no tests and no runner.
//!
//! Discovery reads a few small files (capped) and walks the tree once (bounded); it never
//! runs project code. A [`Discovery`] keeps the reasons and the skipped candidates so
//! `protoflow checks` can say what it found and why.

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::config::{
    CheckConfig, LoadedConfig, ProjectConfig, YamlLoader, load_project_config, normalize_relative,
    validate_project_config,
};
use super::error::ChecksError;
use super::inventory::{Inventory, WALK_ENTRY_LIMIT};
use super::kind::{default_purpose, infer_kind};
use super::spec::{
    CheckKind, CheckPurpose, CheckSet, CheckSource, CheckSpec, DEPENDENCY_FILE_LIMIT,
    DependencyPaths, compile_patterns,
};
use super::{cargo, npm, python};

/// Options for [`resolve_checks`] and [`discover_checks`].
#[derive(Clone, Copy)]
pub struct DiscoverOptions<'a> {
    /// Parser for `.protoflow/project.yaml`; without it a YAML config is an error.
    pub yaml_loader: Option<YamlLoader<'a>>,
    /// Bound on listed dependency files per check (default [`DEPENDENCY_FILE_LIMIT`]).
    pub dependency_limit: usize,
    /// Bound on directory entries walked (default [`WALK_ENTRY_LIMIT`]).
    pub walk_limit: usize,
}

impl Default for DiscoverOptions<'_> {
    fn default() -> Self {
        DiscoverOptions {
            yaml_loader: None,
            dependency_limit: DEPENDENCY_FILE_LIMIT,
            walk_limit: WALK_ENTRY_LIMIT,
        }
    }
}

impl std::fmt::Debug for DiscoverOptions<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DiscoverOptions")
            .field("yaml_loader", &self.yaml_loader.map(|_| "<loader>"))
            .field("dependency_limit", &self.dependency_limit)
            .field("walk_limit", &self.walk_limit)
            .finish()
    }
}

/// What was configured or discovered in a project, and why.
#[derive(Debug, Clone, Serialize)]
pub struct Discovery {
    /// The project root as given.
    pub root: PathBuf,
    /// The project config that supplied the checks or was consulted (project-relative).
    pub config_file: Option<String>,
    /// The checks, configured or discovered.
    pub checks: CheckSet,
    /// Human-readable remarks: why discovery ran or not, what was looked at.
    pub notes: Vec<String>,
    /// Candidates that were considered and not offered, each with the reason.
    pub skipped: Vec<SkippedCandidate>,
    /// The project walk stopped at its bound; dependency listings are incomplete.
    pub walk_truncated: bool,
}

/// A check that was considered and not offered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SkippedCandidate {
    /// The candidate, e.g. `npm:test` or `discovery`.
    pub candidate: String,
    /// Why it was skipped.
    pub reason: String,
}

/// A discovered check before its dependency files are listed.
#[derive(Debug, Clone)]
pub(crate) struct Candidate {
    pub id: String,
    pub argv: Vec<String>,
    pub env: Vec<(String, String)>,
    pub patterns: Vec<String>,
    pub reason: String,
    pub bootstrap: bool,
    pub kind: CheckKind,
    pub purpose: CheckPurpose,
}

/// What the ecosystem detectors report.
#[derive(Debug, Default)]
pub(crate) struct Findings {
    pub candidates: Vec<Candidate>,
    pub notes: Vec<String>,
    pub skipped: Vec<SkippedCandidate>,
}

impl Findings {
    pub(crate) fn skip(&mut self, candidate: &str, reason: impl Into<String>) {
        self.skipped.push(SkippedCandidate {
            candidate: candidate.to_string(),
            reason: reason.into(),
        });
    }
}

/// The project's checks: the configured ones when `.protoflow/project.json` (or a YAML
/// config, with a loader) lists any, else the discovered ones.
pub fn resolve_checks(
    root: &Path,
    options: &DiscoverOptions<'_>,
) -> Result<Discovery, ChecksError> {
    ensure_root(root)?;
    let loaded = load_project_config(root, options.yaml_loader)?;
    let inventory = Inventory::walk(root, options.walk_limit);
    match loaded {
        Some(loaded) if !loaded.config.checks.is_empty() => {
            Ok(configured(root, loaded, &inventory, options))
        }
        Some(loaded) => {
            let mut discovery = discovered(root, &inventory, options);
            discovery.notes.insert(
                0,
                format!("{} lists no checks, so checks were discovered", loaded.file),
            );
            discovery.config_file = Some(loaded.file);
            Ok(discovery)
        }
        None => {
            let mut discovery = discovered(root, &inventory, options);
            discovery.notes.insert(
                0,
                "no .protoflow/project.json, so checks were discovered".to_string(),
            );
            Ok(discovery)
        }
    }
}

/// The checks a recipe declares (`label` names the recipe in notes and sources).
/// They take precedence over the project config and discovery, like a project
/// config's, and are validated by the same rules.
pub fn resolve_declared_checks(
    root: &Path,
    label: &str,
    checks: Vec<CheckConfig>,
    options: &DiscoverOptions<'_>,
) -> Result<Discovery, ChecksError> {
    ensure_root(root)?;
    let config = ProjectConfig {
        schema: None,
        checks,
    };
    validate_project_config(Path::new(label), &config)?;
    let inventory = Inventory::walk(root, options.walk_limit);
    let loaded = LoadedConfig {
        file: label.to_string(),
        path: PathBuf::from(label),
        config,
    };
    Ok(configured(root, loaded, &inventory, options))
}

/// Static discovery only, ignoring any project config.
pub fn discover_checks(
    root: &Path,
    options: &DiscoverOptions<'_>,
) -> Result<Discovery, ChecksError> {
    ensure_root(root)?;
    let inventory = Inventory::walk(root, options.walk_limit);
    Ok(discovered(root, &inventory, options))
}

fn ensure_root(root: &Path) -> Result<(), ChecksError> {
    if root.is_dir() {
        Ok(())
    } else {
        Err(ChecksError::ProjectRoot {
            path: root.to_path_buf(),
        })
    }
}

fn run_detectors(root: &Path, inventory: &Inventory) -> Findings {
    let mut findings = Findings::default();
    cargo::detect(root, inventory, &mut findings);
    python::detect(root, inventory, &mut findings);
    npm::detect(root, inventory, &mut findings);
    findings
}

fn discovered(root: &Path, inventory: &Inventory, options: &DiscoverOptions<'_>) -> Discovery {
    let findings = run_detectors(root, inventory);
    let mut notes = findings.notes;
    let mut skipped = findings.skipped;
    let mut specs = Vec::new();
    for candidate in findings.candidates {
        let source = if candidate.bootstrap {
            CheckSource::Bootstrap {
                reason: candidate.reason,
            }
        } else {
            CheckSource::Discovered {
                reason: candidate.reason,
            }
        };
        match dependency_paths(inventory, candidate.patterns, options.dependency_limit) {
            Ok(paths) => specs.push(CheckSpec {
                id: candidate.id,
                argv: candidate.argv,
                cwd: ".".to_string(),
                env: candidate.env.into_iter().collect(),
                paths,
                source,
                kind: candidate.kind,
                purpose: candidate.purpose,
                description: None,
            }),
            // Discovery's own patterns are constants; this only guards against a bug.
            Err(err) => skipped.push(SkippedCandidate {
                candidate: candidate.id,
                reason: err.to_string(),
            }),
        }
    }
    if specs.is_empty() {
        notes.push("no checks were found: no Cargo.toml, Python project or package.json scripts at the project root".to_string());
    }
    let (checks, duplicates) = CheckSet::from_unique(specs);
    for duplicate in duplicates {
        skipped.push(SkippedCandidate {
            candidate: duplicate.id,
            reason: "another discovered check already has this id".to_string(),
        });
    }
    note_truncation(inventory, options.walk_limit, &mut notes);
    Discovery {
        root: root.to_path_buf(),
        config_file: None,
        checks,
        notes,
        skipped,
        walk_truncated: inventory.truncated,
    }
}

fn configured(
    root: &Path,
    loaded: LoadedConfig,
    inventory: &Inventory,
    options: &DiscoverOptions<'_>,
) -> Discovery {
    let mut notes = vec![format!(
        "{} lists {} check(s); configured checks take precedence over discovery",
        loaded.file,
        loaded.config.checks.len()
    )];
    let mut skipped = Vec::new();
    let superseded = run_detectors(root, inventory);
    if superseded.candidates.is_empty() {
        skipped.push(SkippedCandidate {
            candidate: "discovery".to_string(),
            reason: format!("not used: {} configures the checks", loaded.file),
        });
    }
    for candidate in superseded.candidates {
        skipped.push(SkippedCandidate {
            candidate: candidate.id,
            reason: format!(
                "discovered ({}) but not used: {} configures the checks",
                candidate.reason, loaded.file
            ),
        });
    }

    let mut specs = Vec::new();
    for check in loaded.config.checks {
        let (inferred_kind, inferred_purpose) = infer_kind(&check.argv);
        let kind = check.kind.unwrap_or(inferred_kind);
        let purpose = check.purpose.unwrap_or(match check.kind {
            Some(explicit) if explicit != inferred_kind => default_purpose(explicit),
            _ => inferred_purpose,
        });
        let patterns = if check.paths.is_empty() {
            notes.push(format!(
                "check `{}` lists no paths: every project file counts as its dependency",
                check.id
            ));
            vec!["**".to_string()]
        } else {
            check
                .paths
                .iter()
                .filter_map(|path| normalize_relative(path).ok())
                .map(|path| configured_pattern(root, path))
                .collect()
        };
        let paths = match dependency_paths(inventory, patterns, options.dependency_limit) {
            Ok(paths) => paths,
            Err(err) => {
                // Validation compiled every pattern already; keep the check, depend on all.
                notes.push(format!(
                    "check `{}`: {err}; depending on every file",
                    check.id
                ));
                let everything = vec!["**".to_string()];
                match dependency_paths(inventory, everything, options.dependency_limit) {
                    Ok(paths) => paths,
                    Err(_) => continue,
                }
            }
        };
        specs.push(CheckSpec {
            cwd: normalize_relative(&check.cwd).unwrap_or_else(|_| ".".to_string()),
            id: check.id,
            argv: check.argv,
            env: check.env,
            paths,
            source: CheckSource::Configured {
                file: loaded.file.clone(),
            },
            kind,
            purpose,
            description: check.description,
        });
    }
    let (checks, _) = CheckSet::from_unique(specs);
    note_truncation(inventory, options.walk_limit, &mut notes);
    Discovery {
        root: root.to_path_buf(),
        config_file: Some(loaded.file),
        checks,
        notes,
        skipped,
        walk_truncated: inventory.truncated,
    }
}

/// A configured path becomes a glob: a plain existing directory means everything under it.
fn configured_pattern(root: &Path, path: String) -> String {
    if path == "." {
        return "**".to_string();
    }
    let has_glob = path.contains(['*', '?', '[', '{']);
    let is_dir =
        !has_glob && std::fs::symlink_metadata(root.join(&path)).is_ok_and(|meta| meta.is_dir());
    if is_dir { format!("{path}/**") } else { path }
}

fn dependency_paths(
    inventory: &Inventory,
    patterns: Vec<String>,
    limit: usize,
) -> Result<DependencyPaths, ChecksError> {
    let set = compile_patterns(&patterns)?;
    let (files, truncated) = inventory.matching(&set, limit);
    Ok(DependencyPaths {
        patterns,
        files,
        truncated,
        limit,
    })
}

fn note_truncation(inventory: &Inventory, walk_limit: usize, notes: &mut Vec<String>) {
    if inventory.truncated {
        notes.push(format!(
            "the project walk stopped after {walk_limit} entries: dependency listings are incomplete (their patterns still apply)"
        ));
    }
}
