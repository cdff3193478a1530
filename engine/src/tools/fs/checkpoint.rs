//! The checkpoint store: the preimage of every file write, kept in SQLite so a
//! change can be listed and undone.
//!
//! Owns the `checkpoint_*` tables of the project's `.protoflow/protoflow.db`
//! (shared with the run store, so every table and the schema version here are
//! prefixed and opening is idempotent). It never touches project files itself:
//! the write tools and `undo` do.

use std::fs::{DirBuilder, OpenOptions};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rusqlite::{Connection, OptionalExtension, params};
use serde::Serialize;

use super::error::CheckpointError;
use crate::evidence::Revision;

/// The schema version of the `checkpoint_*` tables this build writes.
pub const CHECKPOINT_SCHEMA_VERSION: i64 = 1;

/// The database file inside a project, relative to its root.
pub const PROJECT_DB: &str = ".protoflow/protoflow.db";

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS checkpoint_meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS checkpoint_changes (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    created_at_ms   INTEGER NOT NULL,
    path            TEXT NOT NULL,
    tool            TEXT NOT NULL,
    existed         INTEGER NOT NULL,
    preimage        BLOB,
    mode            INTEGER,
    revision_before TEXT,
    revision_after  TEXT,
    status          TEXT NOT NULL,
    undone_at_ms    INTEGER
);
CREATE INDEX IF NOT EXISTS checkpoint_changes_path ON checkpoint_changes(path);
";

/// Where a recorded change stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ChangeStatus {
    /// The preimage is stored; the write has not completed (or the process died).
    Pending,
    /// The write completed.
    Applied,
    /// The write failed; the file should be unchanged.
    Failed,
    /// The change was undone.
    Undone,
}

impl ChangeStatus {
    /// The name stored in the database.
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeStatus::Pending => "pending",
            ChangeStatus::Applied => "applied",
            ChangeStatus::Failed => "failed",
            ChangeStatus::Undone => "undone",
        }
    }

    fn parse(text: &str) -> ChangeStatus {
        match text {
            "applied" => ChangeStatus::Applied,
            "failed" => ChangeStatus::Failed,
            "undone" => ChangeStatus::Undone,
            _ => ChangeStatus::Pending,
        }
    }
}

impl std::fmt::Display for ChangeStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The preimage of a write, recorded before the write happens.
#[derive(Debug, Clone)]
pub struct NewChange<'a> {
    /// Project-relative path.
    pub path: &'a str,
    /// The tool that writes.
    pub tool: &'a str,
    /// The bytes and permission bits before the write; `None` when the file is absent.
    pub preimage: Option<(&'a [u8], u32)>,
    /// The revision before the write (`None` when absent).
    pub revision_before: Option<&'a str>,
}

/// One recorded change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Change {
    /// The change id (`protoflow undo ID`).
    pub id: i64,
    /// Milliseconds since the Unix epoch when it was recorded.
    pub created_at_ms: u64,
    /// Project-relative path.
    pub path: String,
    /// The tool that wrote.
    pub tool: String,
    /// Whether the file existed before.
    pub existed: bool,
    /// Permission bits before (when it existed).
    pub mode: Option<u32>,
    /// Revision before (when it existed).
    pub revision_before: Option<Revision>,
    /// Revision the write left.
    pub revision_after: Option<Revision>,
    /// Where it stands.
    pub status: ChangeStatus,
    /// When it was undone.
    pub undone_at_ms: Option<u64>,
    /// The bytes before (only loaded by [`CheckpointStore::get`]).
    #[serde(skip)]
    pub preimage: Option<Vec<u8>>,
}

/// The checkpoint store. Cheap to share (`Arc`); every call takes a short lock.
pub struct CheckpointStore {
    path: PathBuf,
    conn: Mutex<Connection>,
}

impl std::fmt::Debug for CheckpointStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CheckpointStore")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

fn io_err(path: &Path, source: std::io::Error) -> CheckpointError {
    CheckpointError::Io {
        path: path.display().to_string(),
        source,
    }
}

impl CheckpointStore {
    /// Opens (creating when needed) `ROOT/.protoflow/protoflow.db`: the directory
    /// is created 0700 and the file 0600.
    pub fn open_project(root: &Path) -> Result<CheckpointStore, CheckpointError> {
        let dir = root.join(".protoflow");
        match std::fs::symlink_metadata(&dir) {
            Ok(meta) if meta.file_type().is_symlink() => {
                return Err(CheckpointError::PathRefused {
                    path: dir.display().to_string(),
                    reason: "`.protoflow` is a symbolic link".to_string(),
                });
            }
            Ok(_) => {}
            Err(_) => DirBuilder::new()
                .mode(0o700)
                .recursive(true)
                .create(&dir)
                .map_err(|e| io_err(&dir, e))?,
        }
        Self::open(&root.join(PROJECT_DB))
    }

    /// Opens (creating when needed, mode 0600) the database at `path`, in WAL mode,
    /// and creates the `checkpoint_*` tables if they are missing. Idempotent.
    pub fn open(path: &Path) -> Result<CheckpointStore, CheckpointError> {
        OpenOptions::new()
            .create(true)
            .append(true)
            .mode(0o600)
            .custom_flags(nix::libc::O_NOFOLLOW)
            .open(path)
            .map_err(|e| io_err(path, e))?;
        let conn = Connection::open(path)?;
        conn.busy_timeout(Duration::from_secs(5))?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.execute_batch(SCHEMA)?;
        let found: Option<String> = conn
            .query_row(
                "SELECT value FROM checkpoint_meta WHERE key = 'schema_version'",
                [],
                |row| row.get(0),
            )
            .optional()?;
        match found.and_then(|v| v.parse::<i64>().ok()) {
            Some(v) if v > CHECKPOINT_SCHEMA_VERSION => {
                return Err(CheckpointError::SchemaTooNew {
                    found: v,
                    supported: CHECKPOINT_SCHEMA_VERSION,
                });
            }
            Some(_) => {}
            None => {
                conn.execute(
                    "INSERT OR IGNORE INTO checkpoint_meta(key, value) VALUES ('schema_version', ?1)",
                    params![CHECKPOINT_SCHEMA_VERSION.to_string()],
                )?;
            }
        }
        Ok(CheckpointStore {
            path: path.to_path_buf(),
            conn: Mutex::new(conn),
        })
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn conn(&self) -> MutexGuard<'_, Connection> {
        // A poisoned lock only means another thread panicked mid-call; SQLite's own
        // transactions keep the data consistent, so keep going.
        self.conn.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Records the preimage of a write about to happen; returns the change id.
    pub fn record(&self, change: &NewChange<'_>) -> Result<i64, CheckpointError> {
        let conn = self.conn();
        conn.execute(
            "INSERT INTO checkpoint_changes
               (created_at_ms, path, tool, existed, preimage, mode, revision_before, status)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 'pending')",
            params![
                i64::try_from(now_ms()).unwrap_or(i64::MAX),
                change.path,
                change.tool,
                change.preimage.is_some(),
                change.preimage.map(|(bytes, _)| bytes),
                change.preimage.map(|(_, mode)| i64::from(mode)),
                change.revision_before,
            ],
        )?;
        Ok(conn.last_insert_rowid())
    }

    /// Marks a change as applied, with the revision the write left.
    pub fn mark_applied(&self, id: i64, revision_after: &str) -> Result<(), CheckpointError> {
        self.conn().execute(
            "UPDATE checkpoint_changes SET status = 'applied', revision_after = ?2 WHERE id = ?1",
            params![id, revision_after],
        )?;
        Ok(())
    }

    /// Marks a change as failed (the write did not happen).
    pub fn mark_failed(&self, id: i64) -> Result<(), CheckpointError> {
        self.conn().execute(
            "UPDATE checkpoint_changes SET status = 'failed' WHERE id = ?1",
            params![id],
        )?;
        Ok(())
    }

    /// Marks a change as undone.
    pub fn mark_undone(&self, id: i64) -> Result<(), CheckpointError> {
        self.conn().execute(
            "UPDATE checkpoint_changes SET status = 'undone', undone_at_ms = ?2 WHERE id = ?1",
            params![id, i64::try_from(now_ms()).unwrap_or(i64::MAX)],
        )?;
        Ok(())
    }

    /// The latest changes, newest first, without their preimages.
    pub fn list(&self, limit: usize) -> Result<Vec<Change>, CheckpointError> {
        let conn = self.conn();
        let mut stmt = conn.prepare(
            "SELECT id, created_at_ms, path, tool, existed, mode, revision_before,
                    revision_after, status, undone_at_ms, NULL
               FROM checkpoint_changes ORDER BY id DESC LIMIT ?1",
        )?;
        let rows = stmt.query_map(
            params![i64::try_from(limit).unwrap_or(i64::MAX)],
            row_to_change,
        )?;
        Ok(rows.collect::<Result<Vec<_>, _>>()?)
    }

    /// One change with its preimage.
    pub fn get(&self, id: i64) -> Result<Change, CheckpointError> {
        self.conn()
            .query_row(
                "SELECT id, created_at_ms, path, tool, existed, mode, revision_before,
                        revision_after, status, undone_at_ms, preimage
                   FROM checkpoint_changes WHERE id = ?1",
                params![id],
                row_to_change,
            )
            .optional()?
            .ok_or_else(|| CheckpointError::NotFound(id.to_string()))
    }

    /// The newest applied (not undone) change, with its preimage.
    pub fn latest_applied(&self) -> Result<Option<Change>, CheckpointError> {
        let id: Option<i64> = self
            .conn()
            .query_row(
                "SELECT id FROM checkpoint_changes WHERE status = 'applied' ORDER BY id DESC LIMIT 1",
                [],
                |row| row.get(0),
            )
            .optional()?;
        id.map(|id| self.get(id)).transpose()
    }
}

fn row_to_change(row: &rusqlite::Row<'_>) -> rusqlite::Result<Change> {
    let created: i64 = row.get(1)?;
    let mode: Option<i64> = row.get(5)?;
    let status: String = row.get(8)?;
    let undone: Option<i64> = row.get(9)?;
    Ok(Change {
        id: row.get(0)?,
        created_at_ms: u64::try_from(created).unwrap_or(0),
        path: row.get(2)?,
        tool: row.get(3)?,
        existed: row.get(4)?,
        mode: mode.and_then(|m| u32::try_from(m).ok()),
        revision_before: row.get(6)?,
        revision_after: row.get(7)?,
        status: ChangeStatus::parse(&status),
        undone_at_ms: undone.and_then(|u| u64::try_from(u).ok()),
        preimage: row.get(10)?,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn opening_twice_is_idempotent_and_private() {
        let dir = tempfile::tempdir().unwrap();
        let first = CheckpointStore::open_project(dir.path()).unwrap();
        let id = first
            .record(&NewChange {
                path: "a.txt",
                tool: "edit_file",
                preimage: Some((b"old", 0o644)),
                revision_before: Some("sha256:x"),
            })
            .unwrap();
        first.mark_applied(id, "sha256:y").unwrap();
        drop(first);
        let again = CheckpointStore::open_project(dir.path()).unwrap();
        let change = again.get(id).unwrap();
        assert_eq!(change.preimage.as_deref(), Some(&b"old"[..]));
        assert_eq!(change.status, ChangeStatus::Applied);
        assert_eq!(change.mode, Some(0o644));
        let db_mode = std::fs::metadata(dir.path().join(PROJECT_DB))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(db_mode & 0o777, 0o600);
        let dir_mode = std::fs::metadata(dir.path().join(".protoflow"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(dir_mode & 0o777, 0o700);
        assert_eq!(again.latest_applied().unwrap().map(|c| c.id), Some(id));
    }
}
