//! The run store: SQLite (rusqlite, bundled) at `<project>/.protoflow/protoflow.db`.
//!
//! This module owns the database file, its schema and migrations, and the records
//! of runs, steps, events and receipts. It never decides anything about a run: the
//! executor writes what happened; reports and `resume` read it back.
//!
//! Location: under the project (`.protoflow/protoflow.db`), not the user's data
//! directory, so that a run's history travels with the project it changed, two
//! projects never share a store, and CI finds it in the workspace. The directory is
//! created 0700 and the file 0600 (SQLite gives its `-wal`/`-shm` files the same
//! mode). WAL journal, `synchronous=NORMAL`, a busy timeout so two runs at once on
//! one store wait for each other instead of failing.

mod error;
mod memory;
mod migrations;
mod records;
mod sqlite;

pub use error::StoreError;
pub use memory::MemoryKey;
pub use records::{NewRun, RunRecord, StepRecord};
pub use sqlite::{DB_DIR, DB_FILE, Store};
