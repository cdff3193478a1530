//! Errors of the policy layer (approval policies).

use miette::Diagnostic;
use thiserror::Error;

/// Why an approval policy could not be loaded.
#[derive(Debug, Error, Diagnostic)]
pub enum PolicyError {
    /// An unknown `--approve` preset.
    #[error("unknown approval preset `{0}`")]
    #[diagnostic(
        code(protoflow::policy::preset),
        help("use one of: none, reads-only, checks, writes, all")
    )]
    UnknownPreset(String),
    /// The policy file could not be read.
    #[error("cannot read the approval policy `{path}`: {source}")]
    #[diagnostic(code(protoflow::policy::read))]
    Read {
        /// The file.
        path: String,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The policy file is not valid.
    #[error("invalid approval policy `{path}`: {message}")]
    #[diagnostic(
        code(protoflow::policy::parse),
        help(
            "a policy is JSON: {{\"preset\": \"reads-only\", \"rules\": [{{\"tool\": \"edit_file\", \"path\": \"src/**\", \"decision\": \"allow\"}}]}}"
        )
    )]
    Parse {
        /// The file.
        path: String,
        /// What is wrong.
        message: String,
    },
    /// A glob in a rule is invalid.
    #[error("invalid glob `{glob}` in approval rule {rule}: {message}")]
    #[diagnostic(
        code(protoflow::policy::glob),
        help("globs use `*`, `**`, `?` and `[...]`")
    )]
    Glob {
        /// The rule's index (0-based).
        rule: usize,
        /// The glob.
        glob: String,
        /// What is wrong.
        message: String,
    },
}
