//! Versioned schema migrations of the run tables.
//!
//! Versions are kept per component in `schema_migrations` (the checkpoint tables,
//! prefixed `checkpoint_`, keep their own row), so components sharing the file
//! never trample each other's version. Migrations only ever append.

use rusqlite::{Connection, TransactionBehavior, params};

use super::StoreError;

/// This component's name in `schema_migrations`.
const COMPONENT: &str = "runs";

/// Each migration, in order; version N is `MIGRATIONS[N - 1]`.
const MIGRATIONS: &[&str] = &[
    // 1: runs, steps, events, receipts.
    r#"
    CREATE TABLE runs (
        id               TEXT PRIMARY KEY,
        recipe_name      TEXT NOT NULL,
        recipe_origin    TEXT NOT NULL,
        recipe_document  TEXT NOT NULL,
        inputs           TEXT NOT NULL,
        project_root     TEXT NOT NULL,
        status           TEXT NOT NULL,
        started_at_ms    INTEGER NOT NULL,
        finished_at_ms   INTEGER,
        pid              INTEGER NOT NULL,
        executions       INTEGER NOT NULL DEFAULT 1,
        report           TEXT
    );
    CREATE INDEX runs_started ON runs(started_at_ms);
    CREATE TABLE steps (
        run_id           TEXT NOT NULL REFERENCES runs(id),
        key              TEXT NOT NULL,
        node             TEXT NOT NULL,
        item_index       INTEGER,
        status           TEXT NOT NULL,
        attempts         INTEGER NOT NULL DEFAULT 0,
        started_at_ms    INTEGER,
        finished_at_ms   INTEGER,
        output           TEXT,
        error            TEXT,
        effects_uncertain INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (run_id, key)
    );
    CREATE TABLE events (
        run_id   TEXT NOT NULL REFERENCES runs(id),
        seq      INTEGER NOT NULL,
        at_ms    INTEGER NOT NULL,
        type     TEXT NOT NULL,
        body     TEXT NOT NULL,
        PRIMARY KEY (run_id, seq)
    );
    CREATE TABLE receipts (
        id        INTEGER PRIMARY KEY AUTOINCREMENT,
        run_id    TEXT NOT NULL REFERENCES runs(id),
        step_key  TEXT NOT NULL,
        body      TEXT NOT NULL
    );
    CREATE INDEX receipts_run ON receipts(run_id, step_key);
    "#,
    // 2: conversation memory of stateful roles, namespaced per project, run and role.
    r#"
    CREATE TABLE agent_memory (
        project        TEXT NOT NULL,
        run_id         TEXT NOT NULL,
        role           TEXT NOT NULL,
        messages       TEXT NOT NULL,
        updated_at_ms  INTEGER NOT NULL,
        PRIMARY KEY (project, run_id, role)
    );
    "#,
];

/// The newest version this build knows.
pub(crate) fn latest() -> i64 {
    MIGRATIONS.len() as i64
}

/// Brings the schema to the latest version, in one immediate transaction (two
/// processes opening a fresh store at once never both migrate).
pub(crate) fn migrate(conn: &mut Connection) -> Result<(), StoreError> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    tx.execute_batch(
        "CREATE TABLE IF NOT EXISTS schema_migrations (
            component TEXT PRIMARY KEY,
            version   INTEGER NOT NULL
        );",
    )?;
    let current: i64 = tx
        .query_row(
            "SELECT version FROM schema_migrations WHERE component = ?1",
            params![COMPONENT],
            |row| row.get(0),
        )
        .or_else(|err| match err {
            rusqlite::Error::QueryReturnedNoRows => Ok(0),
            other => Err(other),
        })?;
    if current > latest() {
        return Err(StoreError::TooNew {
            found: current,
            supported: latest(),
        });
    }
    for (index, sql) in MIGRATIONS.iter().enumerate().skip(current as usize) {
        tx.execute_batch(sql)?;
        tx.execute(
            "INSERT INTO schema_migrations (component, version) VALUES (?1, ?2)
             ON CONFLICT(component) DO UPDATE SET version = excluded.version",
            params![COMPONENT, index as i64 + 1],
        )?;
    }
    tx.commit()?;
    Ok(())
}
