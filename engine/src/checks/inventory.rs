//! One bounded walk of the project tree that discovery and dependency listing share.
//!
//! Honours `.gitignore` (also outside a git repository), `.ignore` and `.git/info/exclude`,
//! but not the user's global gitignore (so results do not depend on who runs them). Skips
//! dependency and build trees (`node_modules`, `target`, `.git`, virtualenvs, caches) and
//! never follows symlinks. Visits at most [`WALK_ENTRY_LIMIT`] entries and says so when it
//! stops early. Reads no file contents.

use std::path::Path;

use globset::GlobSet;
use ignore::WalkBuilder;

/// The most directory entries one discovery walk visits.
pub const WALK_ENTRY_LIMIT: usize = 100_000;

/// Directory names never walked into.
const SKIPPED_DIRS: &[&str] = &[
    ".git",
    ".hg",
    ".svn",
    ".protoflow",
    "node_modules",
    "target",
    ".venv",
    "venv",
    "__pycache__",
    ".tox",
    ".nox",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
];

/// The project's files, as project-relative `/`-separated paths, sorted.
#[derive(Debug, Clone, Default)]
pub(crate) struct Inventory {
    pub files: Vec<String>,
    /// The walk stopped at [`WALK_ENTRY_LIMIT`]; `files` is incomplete.
    pub truncated: bool,
}

impl Inventory {
    /// Walks `root`, bounded by `entry_limit`.
    pub(crate) fn walk(root: &Path, entry_limit: usize) -> Inventory {
        let mut builder = WalkBuilder::new(root);
        builder
            .hidden(false)
            .require_git(false)
            .git_global(false)
            .follow_links(false)
            .sort_by_file_name(|a, b| a.cmp(b))
            .filter_entry(|entry| {
                if entry.depth() == 0 {
                    return true;
                }
                let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
                if !is_dir {
                    return true;
                }
                let name = entry.file_name().to_string_lossy();
                !SKIPPED_DIRS.contains(&name.as_ref()) && !entry.path().join("pyvenv.cfg").exists()
            });
        let mut inventory = Inventory::default();
        let mut visited = 0usize;
        for entry in builder.build() {
            let Ok(entry) = entry else { continue };
            if entry.depth() == 0 {
                continue;
            }
            visited += 1;
            if visited > entry_limit {
                inventory.truncated = true;
                break;
            }
            if !entry.file_type().is_some_and(|t| t.is_file()) {
                continue;
            }
            let Ok(relative) = entry.path().strip_prefix(root) else {
                continue;
            };
            let parts: Option<Vec<&str>> = relative
                .components()
                .map(|c| c.as_os_str().to_str())
                .collect();
            if let Some(parts) = parts {
                inventory.files.push(parts.join("/"));
            }
        }
        inventory.files.sort();
        inventory
    }

    /// Whether a file exists at this project-relative path (and was not ignored).
    pub(crate) fn contains(&self, relative: &str) -> bool {
        self.files
            .binary_search_by(|f| f.as_str().cmp(relative))
            .is_ok()
    }

    /// The files matching `set`, at most `limit` of them, and whether more matched (or the
    /// walk itself was truncated).
    pub(crate) fn matching(&self, set: &GlobSet, limit: usize) -> (Vec<String>, bool) {
        let mut files = Vec::new();
        let mut truncated = self.truncated;
        for file in &self.files {
            if set.is_match(file) {
                if files.len() == limit {
                    truncated = true;
                    break;
                }
                files.push(file.clone());
            }
        }
        (files, truncated)
    }
}
