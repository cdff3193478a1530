//! Errors of the findings functions. Parsing model output never errors (problems are
//! reported as rejected items); these are for malformed *arguments* and settings.

use miette::Diagnostic;
use thiserror::Error;

/// Why a findings function could not run.
#[derive(Debug, Error, Diagnostic)]
pub enum FindingsError {
    /// The arguments (JSON in) do not have the expected shape.
    #[error("invalid arguments for `{function}`: {reason}")]
    #[diagnostic(
        code(protoflow::findings::invalid_arguments),
        help("check the argument names and types against the function's documentation")
    )]
    InvalidArguments {
        /// The function (tool) name.
        function: &'static str,
        /// What is wrong, with the JSON path when known.
        reason: String,
    },
    /// A setting has a value outside its allowed set.
    #[error("invalid setting `{setting}`: `{value}` (allowed: {allowed})")]
    #[diagnostic(
        code(protoflow::findings::invalid_setting),
        help("use one of the allowed values")
    )]
    InvalidSetting {
        /// The setting's name.
        setting: &'static str,
        /// The value given.
        value: String,
        /// The allowed values, comma separated.
        allowed: &'static str,
    },
    /// Findings handed in as typed data (not model prose) are invalid.
    #[error("invalid finding at {path}: {reason}")]
    #[diagnostic(
        code(protoflow::findings::invalid_finding),
        help(
            "typed findings must match schemas/finding.schema.json; parse model text with parse_findings first"
        )
    )]
    InvalidFinding {
        /// Where in the input (JSON pointer-like path).
        path: String,
        /// What is wrong.
        reason: String,
    },
    /// A value could not be serialized (should not happen for these types).
    #[error("could not serialize {what}: {source}")]
    #[diagnostic(code(protoflow::findings::serialize))]
    Serialize {
        /// What was being serialized.
        what: &'static str,
        /// The underlying error.
        #[source]
        source: serde_json::Error,
    },
}
