//! Errors a tool call can end with. Each is feedback a caller (or a model) can act on.

use miette::Diagnostic;
use thiserror::Error;

/// Why a tool call did not produce a result.
#[derive(Debug, Error, Diagnostic)]
pub enum ToolError {
    /// The arguments do not match the tool's schema or preconditions.
    #[error("invalid arguments for `{tool}`: {reason}")]
    #[diagnostic(
        code(protoflow::tools::invalid_arguments),
        help("fix the arguments and call again")
    )]
    InvalidArguments {
        /// The tool.
        tool: String,
        /// What is wrong.
        reason: String,
    },
    /// A precondition failed (stale revision, ambiguous text, file exists...). No effect happened.
    #[error("`{tool}` rejected the call: {reason}")]
    #[diagnostic(
        code(protoflow::tools::rejected),
        help("nothing was changed; read the current state and call again")
    )]
    Rejected {
        /// The tool.
        tool: String,
        /// Why.
        reason: String,
    },
    /// The path is outside the project, crosses a symlink, or is protected.
    #[error("path `{path}` is not allowed: {reason}")]
    #[diagnostic(
        code(protoflow::tools::path_refused),
        help("use a relative path inside the project root, without symlinks")
    )]
    PathRefused {
        /// The path as given.
        path: String,
        /// Why it was refused.
        reason: String,
    },
    /// The tool is in the catalog but this binary has no executor for it.
    #[error("tool `{0}` is not available in this build of protoflow")]
    #[diagnostic(
        code(protoflow::tools::unavailable),
        help("remove it from the role's tools, or use a build that includes it")
    )]
    Unavailable(String),
    /// The call was canceled before it finished.
    #[error("`{0}` was canceled")]
    #[diagnostic(code(protoflow::tools::canceled))]
    Canceled(String),
    /// An I/O error while performing the effect.
    #[error("`{tool}` failed: {source}")]
    #[diagnostic(code(protoflow::tools::io))]
    Io {
        /// The tool.
        tool: String,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
}
