//! The SQLite connection and every query of the run tables.

use std::fs::{DirBuilder, OpenOptions};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use rusqlite::{Connection, OptionalExtension, Row, params};
use serde_json::Value;

use super::records::{NewRun, RunRecord, StepRecord};
use super::{StoreError, migrations};
use crate::events::{Event, RunStatus, StepStatus};
use crate::evidence::Receipt;

/// The directory under the project root that holds the store.
pub const DB_DIR: &str = ".protoflow";
/// The store's file name inside [`DB_DIR`].
pub const DB_FILE: &str = "protoflow.db";

/// How long a writer waits for another process's transaction before failing.
const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

/// A handle on the run store. Cheap to clone; every clone shares one connection.
///
/// Writes are short single statements (or one transaction), so callers on async
/// threads may call them directly.
#[derive(Clone)]
pub struct Store {
    conn: Arc<Mutex<Connection>>,
    path: PathBuf,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store").field("path", &self.path).finish()
    }
}

fn io_err(path: &Path, source: std::io::Error) -> StoreError {
    StoreError::Io {
        path: path.display().to_string(),
        source,
    }
}

fn corrupt(what: &str, reason: impl std::fmt::Display) -> StoreError {
    StoreError::Corrupt {
        what: what.to_string(),
        reason: reason.to_string(),
    }
}

fn to_json(value: &impl serde::Serialize) -> Result<String, StoreError> {
    serde_json::to_string(value).map_err(|e| corrupt("a value to store", e))
}

fn from_json(what: &str, text: &str) -> Result<Value, StoreError> {
    serde_json::from_str(text).map_err(|e| corrupt(what, e))
}

impl Store {
    /// Opens (creating if needed) the store of the project at `root`.
    pub fn open_project(root: &Path) -> Result<Store, StoreError> {
        let dir = root.join(DB_DIR);
        if !dir.exists() {
            DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(&dir)
                .map_err(|e| io_err(&dir, e))?;
        }
        Store::open(&dir.join(DB_FILE))
    }

    /// Opens the store of the project at `root` only when it exists: `Ok(None)`
    /// when the project has no store yet, so that commands which only read the
    /// history (`runs`, `report`, `resume`) never create one.
    pub fn open_existing_project(root: &Path) -> Result<Option<Store>, StoreError> {
        let path = root.join(DB_DIR).join(DB_FILE);
        match std::fs::symlink_metadata(&path) {
            Ok(_) => Store::open_project(root).map(Some),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(io_err(&path, e)),
        }
    }

    /// Opens (creating if needed) a store file at `path`, migrating it.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        // Create the file ourselves so it is 0600 from its first byte; SQLite gives
        // the -wal and -shm files the database file's mode.
        OpenOptions::new()
            .create(true)
            .append(true)
            .mode(0o600)
            .open(path)
            .map_err(|e| io_err(path, e))?;
        let mode = std::fs::metadata(path)
            .map_err(|e| io_err(path, e))?
            .permissions()
            .mode();
        if mode & 0o077 != 0 {
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))
                .map_err(|e| io_err(path, e))?;
        }
        let mut conn = Connection::open(path)?;
        conn.busy_timeout(BUSY_TIMEOUT)?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        migrations::migrate(&mut conn)?;
        Ok(Store {
            conn: Arc::new(Mutex::new(conn)),
            path: path.to_path_buf(),
        })
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    pub(super) fn conn(&self) -> MutexGuard<'_, Connection> {
        // A panic while holding the lock cannot leave SQLite inconsistent (every write
        // is a statement or a transaction), so a poisoned lock is still usable.
        self.conn
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Records a new run as `running`.
    pub fn create_run(&self, run: &NewRun) -> Result<(), StoreError> {
        self.conn().execute(
            "INSERT INTO runs (id, recipe_name, recipe_origin, recipe_document, inputs,
                               project_root, status, started_at_ms, pid)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'running', ?7, ?8)",
            params![
                run.id,
                run.recipe_name,
                run.recipe_origin,
                to_json(&run.recipe_document)?,
                to_json(&run.inputs)?,
                run.project_root,
                run.started_at_ms as i64,
                std::process::id(),
            ],
        )?;
        Ok(())
    }

    /// Marks a stored run as running again in this process (a resume).
    pub fn reopen_run(&self, run_id: &str) -> Result<(), StoreError> {
        let changed = self.conn().execute(
            "UPDATE runs SET status = 'running', pid = ?2, executions = executions + 1,
                             finished_at_ms = NULL
             WHERE id = ?1",
            params![run_id, std::process::id()],
        )?;
        if changed == 0 {
            return Err(StoreError::UnknownRun(run_id.to_string()));
        }
        Ok(())
    }

    /// Records a run's end with its report.
    pub fn finish_run(
        &self,
        run_id: &str,
        status: RunStatus,
        finished_at_ms: u64,
        report: &Value,
    ) -> Result<(), StoreError> {
        self.conn().execute(
            "UPDATE runs SET status = ?2, finished_at_ms = ?3, report = ?4 WHERE id = ?1",
            params![
                run_id,
                status.as_str(),
                finished_at_ms as i64,
                to_json(report)?
            ],
        )?;
        Ok(())
    }

    /// Appends an event.
    pub fn append_event(&self, event: &Event) -> Result<(), StoreError> {
        self.conn().execute(
            "INSERT INTO events (run_id, seq, at_ms, type, body) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![
                event.run_id,
                event.seq as i64,
                event.at_ms as i64,
                event.kind.type_name(),
                to_json(event)?,
            ],
        )?;
        Ok(())
    }

    /// Inserts or replaces a step's record.
    pub fn put_step(&self, run_id: &str, step: &StepRecord) -> Result<(), StoreError> {
        let output = step.output.as_ref().map(to_json).transpose()?;
        self.conn().execute(
            "INSERT INTO steps (run_id, key, node, item_index, status, attempts, started_at_ms,
                                finished_at_ms, output, error, effects_uncertain)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)
             ON CONFLICT(run_id, key) DO UPDATE SET
                node = excluded.node, item_index = excluded.item_index,
                status = excluded.status, attempts = excluded.attempts,
                started_at_ms = excluded.started_at_ms, finished_at_ms = excluded.finished_at_ms,
                output = excluded.output, error = excluded.error,
                effects_uncertain = excluded.effects_uncertain",
            params![
                run_id,
                step.key,
                step.node,
                step.item_index.map(|i| i as i64),
                step.status.as_str(),
                step.attempts,
                step.started_at_ms.map(|t| t as i64),
                step.finished_at_ms.map(|t| t as i64),
                output,
                step.error,
                step.effects_uncertain,
            ],
        )?;
        Ok(())
    }

    /// Records a tool call's receipt.
    pub fn add_receipt(
        &self,
        run_id: &str,
        step_key: &str,
        receipt: &Receipt,
    ) -> Result<(), StoreError> {
        self.conn().execute(
            "INSERT INTO receipts (run_id, step_key, body) VALUES (?1, ?2, ?3)",
            params![run_id, step_key, to_json(receipt)?],
        )?;
        Ok(())
    }

    /// One run.
    pub fn run(&self, run_id: &str) -> Result<RunRecord, StoreError> {
        let conn = self.conn();
        let row = conn
            .query_row(
                &format!("SELECT {RUN_COLUMNS} FROM runs WHERE id = ?1"),
                params![run_id],
                raw_run,
            )
            .optional()?;
        match row {
            Some(raw) => raw.decode(),
            None => Err(StoreError::UnknownRun(run_id.to_string())),
        }
    }

    /// The most recent runs first, at most `limit`.
    pub fn runs(&self, limit: usize) -> Result<Vec<RunRecord>, StoreError> {
        let conn = self.conn();
        let mut stmt = conn.prepare(&format!(
            "SELECT {RUN_COLUMNS} FROM runs ORDER BY started_at_ms DESC, id DESC LIMIT ?1"
        ))?;
        let raws = stmt
            .query_map(params![limit as i64], raw_run)?
            .collect::<Result<Vec<_>, _>>()?;
        raws.into_iter().map(RawRun::decode).collect()
    }

    /// A run's steps, in the order they were first recorded.
    pub fn steps(&self, run_id: &str) -> Result<Vec<StepRecord>, StoreError> {
        let conn = self.conn();
        let mut stmt = conn.prepare(
            "SELECT key, node, item_index, status, attempts, started_at_ms, finished_at_ms,
                    output, error, effects_uncertain
             FROM steps WHERE run_id = ?1 ORDER BY rowid",
        )?;
        let rows = stmt
            .query_map(params![run_id], |row| {
                Ok((
                    row.get::<_, String>(0)?,
                    row.get::<_, String>(1)?,
                    row.get::<_, Option<i64>>(2)?,
                    row.get::<_, String>(3)?,
                    row.get::<_, u32>(4)?,
                    row.get::<_, Option<i64>>(5)?,
                    row.get::<_, Option<i64>>(6)?,
                    row.get::<_, Option<String>>(7)?,
                    row.get::<_, Option<String>>(8)?,
                    row.get::<_, bool>(9)?,
                ))
            })?
            .collect::<Result<Vec<_>, _>>()?;
        rows.into_iter()
            .map(
                |(
                    key,
                    node,
                    index,
                    status,
                    attempts,
                    started,
                    finished,
                    output,
                    error,
                    uncertain,
                )| {
                    Ok(StepRecord {
                        status: StepStatus::parse(&status)
                            .ok_or_else(|| corrupt("steps.status", &status))?,
                        output: output.map(|o| from_json("steps.output", &o)).transpose()?,
                        key,
                        node,
                        item_index: index.map(|i| i as usize),
                        attempts,
                        started_at_ms: started.map(|t| t as u64),
                        finished_at_ms: finished.map(|t| t as u64),
                        error,
                        effects_uncertain: uncertain,
                    })
                },
            )
            .collect()
    }

    /// A run's events in order.
    pub fn events(&self, run_id: &str) -> Result<Vec<Event>, StoreError> {
        let conn = self.conn();
        let mut stmt = conn.prepare("SELECT body FROM events WHERE run_id = ?1 ORDER BY seq")?;
        let bodies = stmt
            .query_map(params![run_id], |row| row.get::<_, String>(0))?
            .collect::<Result<Vec<_>, _>>()?;
        bodies
            .iter()
            .map(|b| serde_json::from_str(b).map_err(|e| corrupt("events.body", e)))
            .collect()
    }

    /// The highest event sequence number of a run (0 when it has none).
    pub fn last_seq(&self, run_id: &str) -> Result<u64, StoreError> {
        let seq: Option<i64> = self.conn().query_row(
            "SELECT MAX(seq) FROM events WHERE run_id = ?1",
            params![run_id],
            |row| row.get(0),
        )?;
        Ok(seq.unwrap_or(0) as u64)
    }

    /// A run's receipts with the step that made each, in order.
    pub fn receipts(&self, run_id: &str) -> Result<Vec<(String, Receipt)>, StoreError> {
        let conn = self.conn();
        let mut stmt =
            conn.prepare("SELECT step_key, body FROM receipts WHERE run_id = ?1 ORDER BY id")?;
        let rows = stmt
            .query_map(params![run_id], |row| {
                Ok((row.get::<_, String>(0)?, row.get::<_, String>(1)?))
            })?
            .collect::<Result<Vec<_>, _>>()?;
        rows.into_iter()
            .map(|(step, body)| {
                serde_json::from_str(&body)
                    .map(|r| (step, r))
                    .map_err(|e| corrupt("receipts.body", e))
            })
            .collect()
    }

    /// Runs `PRAGMA integrity_check` and returns its verdict (`ok` when sound).
    pub fn integrity_check(&self) -> Result<String, StoreError> {
        Ok(self
            .conn()
            .query_row("PRAGMA integrity_check", [], |row| row.get(0))?)
    }
}

const RUN_COLUMNS: &str = "id, recipe_name, recipe_origin, recipe_document, inputs, project_root,
     status, started_at_ms, finished_at_ms, pid, executions, report";

struct RawRun {
    id: String,
    recipe_name: String,
    recipe_origin: String,
    recipe_document: String,
    inputs: String,
    project_root: String,
    status: String,
    started_at_ms: i64,
    finished_at_ms: Option<i64>,
    pid: u32,
    executions: u32,
    report: Option<String>,
}

fn raw_run(row: &Row<'_>) -> rusqlite::Result<RawRun> {
    Ok(RawRun {
        id: row.get(0)?,
        recipe_name: row.get(1)?,
        recipe_origin: row.get(2)?,
        recipe_document: row.get(3)?,
        inputs: row.get(4)?,
        project_root: row.get(5)?,
        status: row.get(6)?,
        started_at_ms: row.get(7)?,
        finished_at_ms: row.get(8)?,
        pid: row.get(9)?,
        executions: row.get(10)?,
        report: row.get(11)?,
    })
}

impl RawRun {
    fn decode(self) -> Result<RunRecord, StoreError> {
        Ok(RunRecord {
            status: RunStatus::parse(&self.status)
                .ok_or_else(|| corrupt("runs.status", &self.status))?,
            recipe_document: from_json("runs.recipe_document", &self.recipe_document)?,
            inputs: from_json("runs.inputs", &self.inputs)?,
            report: self
                .report
                .map(|r| from_json("runs.report", &r))
                .transpose()?,
            id: self.id,
            recipe_name: self.recipe_name,
            recipe_origin: self.recipe_origin,
            project_root: self.project_root,
            started_at_ms: self.started_at_ms as u64,
            finished_at_ms: self.finished_at_ms.map(|t| t as u64),
            pid: self.pid,
            executions: self.executions,
        })
    }
}
