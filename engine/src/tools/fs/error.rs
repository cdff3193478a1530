//! Errors of the checkpoint store and of undo.

use miette::Diagnostic;
use thiserror::Error;

/// Why a checkpoint could not be stored, listed or undone.
#[derive(Debug, Error, Diagnostic)]
pub enum CheckpointError {
    /// The SQLite database failed.
    #[error("checkpoint database error: {0}")]
    #[diagnostic(
        code(protoflow::checkpoints::database),
        help("check that `.protoflow/protoflow.db` is readable and writable and not corrupt")
    )]
    Database(#[from] rusqlite::Error),
    /// A file or directory could not be created, read or written.
    #[error("checkpoint I/O error on `{path}`: {source}")]
    #[diagnostic(code(protoflow::checkpoints::io))]
    Io {
        /// The path involved.
        path: String,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The database was written by a newer protoflow.
    #[error(
        "checkpoint schema version {found} is newer than this protoflow understands ({supported})"
    )]
    #[diagnostic(
        code(protoflow::checkpoints::schema),
        help("upgrade protoflow, or move `.protoflow/protoflow.db` aside")
    )]
    SchemaTooNew {
        /// The version in the database.
        found: i64,
        /// The newest version this build knows.
        supported: i64,
    },
    /// No change with that id (or no change at all).
    #[error("no change {0} to undo")]
    #[diagnostic(
        code(protoflow::checkpoints::not_found),
        help("run `protoflow checkpoints` to list the recorded changes")
    )]
    NotFound(String),
    /// The change was already undone, or never completed.
    #[error("change {id} cannot be undone: it is {status}")]
    #[diagnostic(
        code(protoflow::checkpoints::not_undoable),
        help("only applied changes can be undone; run `protoflow checkpoints` to list them")
    )]
    NotUndoable {
        /// The change.
        id: i64,
        /// Its status.
        status: String,
    },
    /// The file changed since the recorded write: undo never forces.
    #[error(
        "`{path}` changed since change {id} wrote it (expected {expected}, found {found}); nothing was restored"
    )]
    #[diagnostic(
        code(protoflow::checkpoints::conflict),
        help("undo the later changes first, or restore the file by hand")
    )]
    Conflict {
        /// The change.
        id: i64,
        /// The file.
        path: String,
        /// The revision the change left.
        expected: String,
        /// What is there now (`absent` when the file is gone).
        found: String,
    },
    /// The recorded path is no longer safe to touch (a symlink appeared, ...).
    #[error("cannot restore `{path}`: {reason}")]
    #[diagnostic(code(protoflow::checkpoints::path_refused))]
    PathRefused {
        /// The file.
        path: String,
        /// Why.
        reason: String,
    },
}
