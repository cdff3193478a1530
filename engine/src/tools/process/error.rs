//! Errors of the process core.

use miette::Diagnostic;
use thiserror::Error;

/// Why a process could not be run.
#[derive(Debug, Error, Diagnostic)]
pub enum ProcessError {
    /// The executable was not found or could not be started.
    #[error("cannot start `{program}`: {source}")]
    #[diagnostic(
        code(protoflow::process::spawn),
        help("check the program name and the PATH given in the environment; nothing is inherited")
    )]
    Spawn {
        /// The program.
        program: String,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// Waiting for or reading from the process failed.
    #[error("I/O error while running `{program}`: {source}")]
    #[diagnostic(code(protoflow::process::io))]
    Io {
        /// The program.
        program: String,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
}
