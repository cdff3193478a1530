//! Current file revisions (read once per computation) and the files a run changed.
//!
//! Reads only project-relative paths the run's own receipts named, never through
//! a symlink, at most [`MAX_FILE_BYTES`] each. Never writes.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use super::model::FileChange;
use crate::evidence::{LedgerEntry, ReceiptStatus, Revision, revision_of};
use crate::tools::fs::confine::{MAX_FILE_BYTES, check_no_symlinks, normalize};
use crate::tools::fs::unified_diff;
use crate::tools::{Effect, lookup};

/// Bytes of diff kept per file.
const DIFF_BYTES: usize = 16 * 1024;

/// What a path holds now, read once.
#[derive(Debug)]
pub(crate) struct Current {
    root: PathBuf,
    cache: HashMap<String, Option<Vec<u8>>>,
}

impl Current {
    pub(crate) fn new(root: &Path) -> Current {
        Current {
            root: root.to_path_buf(),
            cache: HashMap::new(),
        }
    }

    /// The file's bytes now (`None`: absent, unreadable, too large or not confined).
    pub(crate) fn bytes(&mut self, path: &str) -> Option<&[u8]> {
        if !self.cache.contains_key(path) {
            let bytes = read_confined(&self.root, path);
            self.cache.insert(path.to_string(), bytes);
        }
        self.cache.get(path).and_then(|b| b.as_deref())
    }

    /// The file's revision now.
    pub(crate) fn revision(&mut self, path: &str) -> Option<Revision> {
        self.bytes(path).map(revision_of)
    }
}

/// Reads a project file without following symlinks out of the project.
pub(crate) fn read_confined(root: &Path, path: &str) -> Option<Vec<u8>> {
    let rel = normalize(root, path).ok()?;
    check_no_symlinks(root, &rel, path).ok()?;
    let abs = root.join(&rel);
    let meta = std::fs::symlink_metadata(&abs).ok()?;
    if !meta.is_file() || meta.len() > MAX_FILE_BYTES {
        return None;
    }
    std::fs::read(abs).ok()
}

/// Whether a receipt is an executed file write with a path.
pub(crate) fn written_path(entry: &LedgerEntry) -> Option<&str> {
    let r = &entry.receipt;
    (r.status == ReceiptStatus::Executed
        && lookup(&r.tool).is_some_and(|s| s.effect == Effect::Write)
        && r.facts.revision_after.is_some())
    .then_some(r.facts.path.as_deref())
    .flatten()
}

/// The files the run changed, in the order first written, with their diffs.
pub(crate) fn changed_files(
    ledger: &[LedgerEntry],
    originals: &BTreeMap<String, Option<Vec<u8>>>,
    current: &mut Current,
) -> Vec<FileChange> {
    let mut order: Vec<String> = Vec::new();
    let mut first_before: HashMap<String, Option<Revision>> = HashMap::new();
    let mut last_after: HashMap<String, Option<Revision>> = HashMap::new();
    for entry in ledger {
        let Some(path) = written_path(entry) else {
            continue;
        };
        if !first_before.contains_key(path) {
            order.push(path.to_string());
            first_before.insert(
                path.to_string(),
                entry.receipt.facts.revision_before.clone(),
            );
        }
        last_after.insert(path.to_string(), entry.receipt.facts.revision_after.clone());
    }
    order
        .into_iter()
        .map(|path| {
            let revision_after = last_after.remove(&path).flatten();
            let current_revision = current.revision(&path);
            let old = originals
                .get(&path)
                .and_then(|o| o.as_deref())
                .map(|b| String::from_utf8_lossy(b).into_owned())
                .unwrap_or_default();
            let new = current
                .bytes(&path)
                .map(|b| String::from_utf8_lossy(b).into_owned())
                .unwrap_or_default();
            let mut diff = unified_diff(&path, &old, &new);
            if diff.len() > DIFF_BYTES {
                let mut cut = DIFF_BYTES;
                while !diff.is_char_boundary(cut) {
                    cut -= 1;
                }
                diff.truncate(cut);
                diff.push_str("\n[diff truncated]\n");
            }
            FileChange {
                applied: current_revision.is_some() && current_revision == revision_after,
                revision_before: first_before.remove(&path).flatten(),
                revision_after,
                current_revision,
                diff,
                path,
            }
        })
        .collect()
}

/// Whether a path is documentation only (`.md`, `.rst`, `.txt`).
pub fn is_docs(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    [".md", ".rst", ".txt"]
        .iter()
        .any(|ext| lower.ends_with(ext))
}
