//! The task's mutable state and the plan rules (`plan_task`).
//!
//! Plain data behind the handle's lock. Paths are project-relative and
//! normalized; nothing here performs I/O.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

use globset::{GlobBuilder, GlobMatcher};

use super::contract::Classification;
use super::error::TaskError;
use crate::evidence::completion::Completion;
use crate::evidence::{LedgerEntry, Revision, WorkerReport};
use crate::tools::fs::confine::normalize;

/// The plan: what may be written, what must hold, which checks prove it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct PlanState {
    pub summary: String,
    pub write_paths: Vec<String>,
    pub criteria: Vec<String>,
    pub sources: Vec<String>,
}

/// What `plan_task` asks for; `None` keeps the current value.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PlanRequest {
    /// One line: the approach.
    pub summary: Option<String>,
    /// Project-relative files, directories or globs that may be written.
    pub paths: Option<Vec<String>>,
    /// Observable acceptance criteria.
    pub criteria: Option<Vec<String>>,
    /// Check ids that prove the criteria.
    pub check_ids: Option<Vec<String>>,
    /// Files the plan is based on.
    pub sources: Option<Vec<String>>,
}

#[derive(Debug, Default)]
pub(crate) struct TaskState {
    /// The recipe declared a `task:` block: the rules apply from the start.
    pub declared: bool,
    pub objective: String,
    pub classification: Option<Classification>,
    pub deferred: bool,
    pub problems: Vec<String>,
    pub plan: Option<PlanState>,
    pub selected: Vec<String>,
    /// Why the plan is frozen.
    pub frozen: Option<String>,
    /// Why editing is closed (a final check ran).
    pub closed: Option<String>,
    /// A repair round is open for writes.
    pub repair_open: bool,
    /// Repair rounds opened (0: the first attempt).
    pub round: u32,
    pub repairs_max: u32,
    pub ledger: Vec<LedgerEntry>,
    pub reports: Vec<WorkerReport>,
    pub originals: BTreeMap<String, Option<Vec<u8>>>,
    pub reads: BTreeSet<String>,
    pub stops: Vec<String>,
    pub snapshots: HashMap<u64, BTreeMap<String, Option<Revision>>>,
    pub next_snapshot: u64,
    pub last_completion: Option<Completion>,
    pub last_failure: Option<String>,
}

impl TaskState {
    /// Whether the task's rules apply (declared by the recipe, or a plan exists).
    pub fn active(&self) -> bool {
        self.declared || self.plan.is_some()
    }

    /// Whether the request may change files.
    pub fn may_write(&self) -> bool {
        self.classification
            .as_ref()
            .is_none_or(Classification::may_write)
    }

    /// Whether `path` (normalized) is inside the plan's write paths.
    pub fn in_scope(&self, path: &str) -> bool {
        let Some(plan) = &self.plan else { return false };
        plan.write_paths.iter().any(|wp| path_matches(wp, path))
    }

    /// Applies a plan request (see `plan_task`).
    pub fn apply_plan(
        &mut self,
        root: &Path,
        request: PlanRequest,
        available: &[String],
        is_docs: impl Fn(&str) -> bool,
    ) -> Result<(), TaskError> {
        if let Some(why) = &self.frozen {
            return Err(TaskError::Frozen { why: why.clone() });
        }
        if let Some(ids) = &request.check_ids {
            let unknown: Vec<String> = ids
                .iter()
                .filter(|id| !available.contains(id))
                .cloned()
                .collect();
            if !unknown.is_empty() {
                return Err(TaskError::UnknownChecks {
                    unknown,
                    available: available.to_vec(),
                });
            }
        }
        let current = self.plan.clone().unwrap_or_default();
        let write_paths = match request.paths {
            Some(paths) => {
                let mut out = Vec::new();
                for raw in paths {
                    out.push(normalize_write_path(root, &raw)?);
                }
                out
            }
            None => current.write_paths,
        };
        if !write_paths.is_empty()
            && let Some(class) = self.classification.as_ref().filter(|c| !c.may_write())
        {
            return Err(TaskError::ReadOnly {
                class: class.class.clone(),
            });
        }
        let selected = request.check_ids.unwrap_or_else(|| self.selected.clone());
        let code: Vec<String> = write_paths
            .iter()
            .filter(|p| !is_docs(p))
            .cloned()
            .collect();
        if !code.is_empty() && selected.is_empty() && !available.is_empty() && !self.deferred {
            return Err(TaskError::NoChecks {
                paths: code,
                available: available.to_vec(),
            });
        }
        self.plan = Some(PlanState {
            summary: request.summary.unwrap_or(current.summary),
            write_paths,
            criteria: request.criteria.unwrap_or(current.criteria),
            sources: request.sources.unwrap_or(current.sources),
        });
        self.selected = selected;
        Ok(())
    }
}

fn is_glob(text: &str) -> bool {
    text.contains(['*', '?', '[', '{'])
}

fn glob(pattern: &str) -> Option<GlobMatcher> {
    GlobBuilder::new(pattern)
        .literal_separator(true)
        .build()
        .ok()
        .map(|g| g.compile_matcher())
}

/// A write path as stored: project-relative, `/`-separated, no trailing `/`
/// (`.` is the whole project); globs are kept as written.
fn normalize_write_path(root: &Path, raw: &str) -> Result<String, TaskError> {
    let bad = |reason: String| TaskError::BadPath {
        path: raw.to_string(),
        reason,
    };
    let trimmed = raw.trim().trim_end_matches('/');
    if trimmed.is_empty() || trimmed == "." {
        return Ok(".".into());
    }
    if is_glob(trimmed) {
        if trimmed.starts_with('/') || trimmed.split('/').any(|c| c == "..") {
            return Err(bad(
                "a glob must be project-relative and without `..`".into()
            ));
        }
        return glob(trimmed)
            .map(|_| trimmed.to_string())
            .ok_or_else(|| bad("not a valid glob".into()));
    }
    let rel = normalize(root, trimmed).map_err(|e| bad(e.to_string()))?;
    let parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    Ok(if parts.is_empty() {
        ".".into()
    } else {
        parts.join("/")
    })
}

/// Whether the normalized `path` is within the write path `scope`.
pub(crate) fn path_matches(scope: &str, path: &str) -> bool {
    if scope == "." {
        return true;
    }
    if is_glob(scope) {
        return glob(scope).is_some_and(|g| g.is_match(path));
    }
    path == scope
        || path
            .strip_prefix(scope)
            .is_some_and(|rest| rest.starts_with('/'))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn write_scopes_are_files_directories_or_globs() {
        assert!(path_matches("src", "src/a.rs"));
        assert!(!path_matches("src", "srcx/a.rs"));
        assert!(path_matches("calc.py", "calc.py"));
        assert!(path_matches("docs/*.md", "docs/a.md"));
        assert!(!path_matches("docs/*.md", "docs/x/a.md"));
        assert!(path_matches(".", "anything/at/all"));
    }

    #[test]
    fn plans_reject_unknown_checks_keep_the_selection_and_freeze() {
        let root = Path::new("/tmp");
        let available = vec!["py:test".to_string(), "lint".to_string()];
        let docs = |p: &str| p.ends_with(".md");
        let mut s = TaskState::default();
        let err = s
            .apply_plan(
                root,
                PlanRequest {
                    check_ids: Some(vec!["nope".into()]),
                    ..PlanRequest::default()
                },
                &available,
                docs,
            )
            .unwrap_err();
        assert!(err.to_string().contains("py:test, lint"), "{err}");
        let err = s
            .apply_plan(
                root,
                PlanRequest {
                    paths: Some(vec!["a.py".into()]),
                    check_ids: Some(vec![]),
                    ..PlanRequest::default()
                },
                &available,
                docs,
            )
            .unwrap_err();
        assert!(matches!(err, TaskError::NoChecks { .. }));
        s.apply_plan(
            root,
            PlanRequest {
                paths: Some(vec!["README.md".into()]),
                check_ids: Some(vec![]),
                ..PlanRequest::default()
            },
            &available,
            docs,
        )
        .unwrap();
        s.apply_plan(
            root,
            PlanRequest {
                paths: Some(vec!["a.py".into(), "./src/".into()]),
                check_ids: Some(vec!["py:test".into()]),
                ..PlanRequest::default()
            },
            &available,
            docs,
        )
        .unwrap();
        s.apply_plan(
            root,
            PlanRequest {
                criteria: Some(vec!["it works".into()]),
                ..PlanRequest::default()
            },
            &available,
            docs,
        )
        .unwrap();
        assert_eq!(s.selected, vec!["py:test"], "omitting check ids keeps them");
        assert_eq!(s.plan.as_ref().unwrap().write_paths, vec!["a.py", "src"]);
        assert!(
            s.apply_plan(
                root,
                PlanRequest {
                    paths: Some(vec!["../x".into()]),
                    ..PlanRequest::default()
                },
                &available,
                docs
            )
            .is_err()
        );
        s.frozen = Some("the first write".into());
        assert!(matches!(
            s.apply_plan(root, PlanRequest::default(), &available, docs),
            Err(TaskError::Frozen { .. })
        ));
    }
}
