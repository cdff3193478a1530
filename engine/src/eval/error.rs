//! Why cases could not be loaded or prepared.

use std::path::PathBuf;

use miette::Diagnostic;
use thiserror::Error;

/// A problem with the cases directory or one case.
#[derive(Debug, Error, Diagnostic)]
pub enum EvalError {
    /// The directory cannot be read.
    #[error("cannot read the cases directory `{}`: {source}", dir.display())]
    #[diagnostic(
        code(protoflow::eval::dir),
        help("give a directory holding one directory per case")
    )]
    Dir {
        /// The directory.
        dir: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A case file is missing or invalid.
    #[error("case `{}`: {reason}", case.display())]
    #[diagnostic(
        code(protoflow::eval::case),
        help("a case directory holds case.json ({{task, provider, oracle, ...}}) and project/")
    )]
    Case {
        /// The case directory.
        case: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// The working copy could not be made.
    #[error("cannot copy the project of `{name}`: {source}")]
    #[diagnostic(code(protoflow::eval::copy))]
    Copy {
        /// The case.
        name: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}
