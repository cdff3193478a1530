//! Errors of the run store.

use miette::Diagnostic;
use thiserror::Error;

/// Why a store operation failed.
#[derive(Debug, Error, Diagnostic)]
pub enum StoreError {
    /// SQLite refused an operation.
    #[error("run store: {0}")]
    #[diagnostic(
        code(protoflow::store::sqlite),
        help(
            "another protoflow may hold the store for long; retry, or check .protoflow/protoflow.db"
        )
    )]
    Sqlite(#[from] rusqlite::Error),
    /// The store's directory or file could not be created or secured.
    #[error("run store at `{path}`: {source}")]
    #[diagnostic(
        code(protoflow::store::io),
        help("check that the project directory is writable")
    )]
    Io {
        /// The path.
        path: String,
        /// The error.
        #[source]
        source: std::io::Error,
    },
    /// A stored value could not be decoded.
    #[error("run store holds an unreadable value in {what}: {reason}")]
    #[diagnostic(
        code(protoflow::store::corrupt),
        help("the store was written by another version of protoflow, or edited by hand")
    )]
    Corrupt {
        /// Where.
        what: String,
        /// Why.
        reason: String,
    },
    /// The store was written by a newer protoflow.
    #[error("run store schema version {found} is newer than this protoflow supports ({supported})")]
    #[diagnostic(code(protoflow::store::too_new), help("upgrade protoflow"))]
    TooNew {
        /// The version found.
        found: i64,
        /// The version this build knows.
        supported: i64,
    },
    /// No run has that id.
    #[error("no run `{0}` in this project's store")]
    #[diagnostic(
        code(protoflow::store::unknown_run),
        help("`protoflow runs` lists the runs of this project")
    )]
    UnknownRun(String),
}
