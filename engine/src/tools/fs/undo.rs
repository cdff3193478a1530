//! Undo of a recorded change: restore the preimage after showing the reverse diff.
//!
//! Undo refuses with a conflict when the file changed since the recorded write
//! (its revision is compared; undo never forces), and re-checks that right before
//! restoring. It restores through the same confinement and atomic write as the
//! tools, and never touches protected paths' rules (the path came from a write
//! that passed them).

use std::path::Path;

use super::atomic::{Target, write_atomic};
use super::checkpoint::{Change, ChangeStatus, CheckpointStore};
use super::confine::{ConfinedPath, check_no_symlinks, normalize, read_regular};
use super::error::CheckpointError;
use super::text::unified_diff;
use crate::evidence::revision_of;

/// What an undo will do, shown before it is applied.
#[derive(Debug, Clone)]
pub struct UndoPlan {
    /// The change being undone (with its preimage).
    pub change: Change,
    /// The unified diff from the file's current content back to the preimage.
    pub reverse_diff: String,
    /// Whether undo deletes the file (it did not exist before the change).
    pub deletes: bool,
}

fn refused(path: &str, reason: impl Into<String>) -> CheckpointError {
    CheckpointError::PathRefused {
        path: path.to_string(),
        reason: reason.into(),
    }
}

fn confined(root: &Path, change: &Change) -> Result<ConfinedPath, CheckpointError> {
    let rel = normalize(root, &change.path).map_err(|e| refused(&change.path, e.to_string()))?;
    check_no_symlinks(root, &rel, &change.path)
        .map_err(|e| refused(&change.path, e.to_string()))?;
    Ok(ConfinedPath {
        abs: root.join(&rel),
        rel,
    })
}

/// The current bytes and revision of a change's file, after checking that it is
/// still exactly what the change left.
fn check_current(
    root: &Path,
    change: &Change,
) -> Result<(ConfinedPath, Option<Vec<u8>>), CheckpointError> {
    let path = confined(root, change)?;
    let current = read_regular("undo", &path)
        .map_err(|e| refused(&change.path, e.to_string()))?
        .map(|f| f.bytes);
    let found = current.as_deref().map(revision_of);
    let expected = change.revision_after.clone().unwrap_or_default();
    if found.as_deref() != Some(expected.as_str()) {
        return Err(CheckpointError::Conflict {
            id: change.id,
            path: change.path.clone(),
            expected,
            found: found.unwrap_or_else(|| "absent".to_string()),
        });
    }
    Ok((path, current))
}

/// Plans the undo of `change_id` (default: the newest applied change).
pub fn plan_undo(
    store: &CheckpointStore,
    root: &Path,
    change_id: Option<i64>,
) -> Result<UndoPlan, CheckpointError> {
    let change = match change_id {
        Some(id) => store.get(id)?,
        None => store
            .latest_applied()?
            .ok_or_else(|| CheckpointError::NotFound("(no applied change recorded)".to_string()))?,
    };
    if change.status != ChangeStatus::Applied {
        return Err(CheckpointError::NotUndoable {
            id: change.id,
            status: change.status.to_string(),
        });
    }
    let (_, current) = check_current(root, &change)?;
    let current_text = String::from_utf8_lossy(current.as_deref().unwrap_or_default()).into_owned();
    let before_text =
        String::from_utf8_lossy(change.preimage.as_deref().unwrap_or_default()).into_owned();
    let reverse_diff = unified_diff(&change.path, &current_text, &before_text);
    Ok(UndoPlan {
        deletes: !change.existed,
        change,
        reverse_diff,
    })
}

/// Applies a planned undo, after re-checking that the file is still what the change left.
pub fn apply_undo(
    store: &CheckpointStore,
    root: &Path,
    plan: &UndoPlan,
) -> Result<(), CheckpointError> {
    let change = &plan.change;
    let (path, _) = check_current(root, change)?;
    let io = |source| CheckpointError::Io {
        path: change.path.clone(),
        source,
    };
    if change.existed {
        let bytes = change.preimage.as_deref().unwrap_or_default();
        write_atomic(&path.abs, bytes, change.mode, Target::Replace).map_err(io)?;
    } else {
        std::fs::remove_file(&path.abs).map_err(io)?;
    }
    store.mark_undone(change.id)
}
