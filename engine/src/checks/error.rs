//! Errors of the checks module: loading and validating `.protoflow/project.json`, and
//! resolving a project's checks.
//!
//! Discovery itself never fails because of a project's files (an unreadable or odd file
//! becomes a skipped candidate with a reason); only the project root and an explicit
//! project config can make `resolve_checks` fail.

use std::path::PathBuf;

use miette::{Diagnostic, NamedSource, SourceSpan};
use thiserror::Error;

/// Everything that can go wrong while loading a project config or resolving checks.
#[derive(Debug, Error, Diagnostic)]
pub enum ChecksError {
    /// The project root is missing or not a directory.
    #[error("project root {path} is not a directory")]
    #[diagnostic(
        code(protoflow::checks::project_root),
        help(
            "pass the project directory (the one holding Cargo.toml, package.json, pyproject.toml or .protoflow/)"
        )
    )]
    ProjectRoot { path: PathBuf },

    /// Reading the project config failed.
    #[error("cannot read project config {path}: {source}")]
    #[diagnostic(
        code(protoflow::checks::config_io),
        help("check that the file exists and is readable")
    )]
    ConfigIo {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    /// The project config (or the `.protoflow` directory) is a symlink.
    #[error("project config {path} is a symlink")]
    #[diagnostic(
        code(protoflow::checks::config_symlink),
        help(
            "replace the symlink with a regular file inside the project: configs are never followed out of the project"
        )
    )]
    ConfigSymlink { path: PathBuf },

    /// The project config is bigger than the parse cap.
    #[error("project config {path} is {size} bytes, more than the {limit}-byte limit")]
    #[diagnostic(
        code(protoflow::checks::config_too_large),
        help("a project config lists a few checks; it should be far smaller than this")
    )]
    ConfigTooLarge {
        path: PathBuf,
        size: u64,
        limit: u64,
    },

    /// More than one of project.json / project.yaml / project.yml exists.
    #[error("more than one project config exists: {}", paths.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", "))]
    #[diagnostic(
        code(protoflow::checks::config_ambiguous),
        help(
            "keep exactly one of .protoflow/project.json, .protoflow/project.yaml, .protoflow/project.yml"
        )
    )]
    ConfigAmbiguous { paths: Vec<PathBuf> },

    /// The JSON project config does not parse or does not match the expected shape.
    #[error(transparent)]
    #[diagnostic(transparent)]
    ConfigParse(Box<ConfigParseError>),

    /// A YAML project config exists but the caller supplied no YAML loader. The CLI
    /// always supplies one (`recipe::load::project_discover_options`); an embedder
    /// that calls discovery directly must pass `DiscoverOptions::yaml_loader`.
    #[error("YAML project config {path} cannot be read: no YAML loader was given to discovery")]
    #[diagnostic(
        code(protoflow::checks::yaml_not_wired),
        help(
            "pass recipe::load::project_discover_options() (or set DiscoverOptions::yaml_loader), or use .protoflow/project.json"
        )
    )]
    YamlNotWired { path: PathBuf },

    /// The supplied YAML loader rejected the YAML project config.
    #[error("invalid project config {path}")]
    #[diagnostic(code(protoflow::checks::config_yaml))]
    ConfigYaml {
        path: PathBuf,
        #[diagnostic_source]
        source: Box<dyn Diagnostic + Send + Sync + 'static>,
    },

    /// The project config parsed but breaks a rule (duplicate id, empty argv, cwd escape, ...).
    #[error("invalid project config {path}: {pointer}: {message}")]
    #[diagnostic(code(protoflow::checks::config_invalid), help("{help}"))]
    ConfigInvalid {
        path: PathBuf,
        /// JSON pointer of the offending value, e.g. `/checks/1/cwd`.
        pointer: String,
        message: String,
        help: String,
    },

    /// A check id asked of a [`CheckSet`](super::CheckSet) does not exist.
    #[error("unknown check id `{id}`; available: {}", if available.is_empty() { "none".to_string() } else { available.join(", ") })]
    #[diagnostic(
        code(protoflow::checks::unknown_check),
        help("run `protoflow checks` to list the project's checks")
    )]
    UnknownCheck { id: String, available: Vec<String> },

    /// A dependency pattern could not be compiled into a glob.
    #[error("invalid dependency pattern `{pattern}`: {message}")]
    #[diagnostic(
        code(protoflow::checks::pattern),
        help("patterns are project-relative globs such as `src/**` or `tests/*.py`")
    )]
    Pattern { pattern: String, message: String },
}

/// A JSON project config that does not parse, with the location and a source snippet.
#[derive(Debug, Error, Diagnostic)]
#[error("invalid project config {path}:{line}:{column}: {message}")]
#[diagnostic(
    code(protoflow::checks::config_parse),
    help(
        "the shape is {{\"checks\": [{{\"id\", \"argv\", \"cwd\", \"env\", \"paths\", \"description\", \"kind\", \"purpose\"}}]}}; unknown fields are errors (see schemas/project.schema.json)"
    )
)]
pub struct ConfigParseError {
    pub path: PathBuf,
    /// 1-based line (0 when the text ended early).
    pub line: usize,
    /// 1-based column.
    pub column: usize,
    /// What is wrong, prefixed with the path inside the document (e.g. `checks[0]: ...`).
    pub message: String,
    #[source_code]
    pub src: NamedSource<String>,
    #[label("here")]
    pub span: SourceSpan,
}
