//! The project config, `.protoflow/project.json`: its Rust shape (serde + schemars, unknown
//! fields are errors), loading with a size cap and symlink refusal, and validation
//! (unique well-formed ids, non-empty argv, confined cwd and paths).
//!
//! YAML configs (`.protoflow/project.yaml`/`.yml`) are parsed by a loader the caller
//! passes in ([`YamlLoader`]); this module never parses YAML itself.
//! Loading never runs anything and never follows a symlink.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use miette::{Diagnostic, NamedSource, SourceSpan};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::error::{ChecksError, ConfigParseError};
use super::spec::{CheckKind, CheckPurpose, compile_patterns, is_valid_check_id};

/// Where a project config may live, relative to the project root, in lookup order.
pub const PROJECT_CONFIG_FILES: [&str; 3] = [
    ".protoflow/project.json",
    ".protoflow/project.yaml",
    ".protoflow/project.yml",
];

/// The largest project config that is parsed (1 MiB).
pub const CONFIG_SIZE_LIMIT: u64 = 1024 * 1024;

/// A caller-supplied YAML parser for `.protoflow/project.yaml` (the project's spanned YAML
/// loader). It receives the file path and text and returns the typed config or a
/// diagnostic; validation runs afterwards here.
pub type YamlLoader<'a> = &'a (
        dyn Fn(&Path, &str) -> Result<ProjectConfig, Box<dyn Diagnostic + Send + Sync + 'static>>
            + Sync
    );

/// `.protoflow/project.json`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(
    title = "protoflow project config",
    description = "Project settings for protoflow, read from .protoflow/project.json. Checks listed here take precedence over discovery."
)]
pub struct ProjectConfig {
    /// Optional JSON Schema reference for editors; ignored by protoflow.
    #[serde(rename = "$schema", default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
    /// The project's checks. When non-empty, discovery does not run.
    #[serde(default)]
    pub checks: Vec<CheckConfig>,
}

/// One configured check.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CheckConfig {
    /// Unique id, used by `run_check(check_id, phase)`.
    #[schemars(pattern(r"^[a-z0-9][a-z0-9_.:-]*$"))]
    pub id: String,
    /// Program and arguments, run without a shell.
    #[schemars(length(min = 1))]
    pub argv: Vec<String>,
    /// Working directory relative to the project root; must stay inside the project.
    #[serde(default = "default_cwd")]
    pub cwd: String,
    /// Extra environment variables for the check.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Project-relative files, directories or globs this check depends on. A change to a
    /// matching file makes a passing result stale. Empty means every project file.
    #[serde(default)]
    pub paths: Vec<String>,
    /// What the check does, for people.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The runner, for counting executed tests; inferred from argv when omitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<CheckKind>,
    /// What the check is for; inferred from argv when omitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub purpose: Option<CheckPurpose>,
}

/// The JSON Schema (draft 2020-12) of `.protoflow/project.json`, for publishing as
/// `schemas/project.schema.json`.
pub fn project_config_schema() -> schemars::Schema {
    schemars::schema_for!(ProjectConfig)
}

fn default_cwd() -> String {
    ".".to_string()
}

/// A loaded and validated project config.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadedConfig {
    /// Project-relative path of the file, e.g. `.protoflow/project.json`.
    pub file: String,
    /// The path the file was read from.
    pub path: PathBuf,
    /// The validated config.
    pub config: ProjectConfig,
}

/// Finds, reads, parses and validates the project config under `root`.
///
/// Returns `Ok(None)` when no config file exists. More than one config file, a symlinked
/// config (or `.protoflow` directory), a file over [`CONFIG_SIZE_LIMIT`], a parse error or
/// a validation error is an `Err`. A YAML config needs `yaml`, else
/// [`ChecksError::YamlNotWired`].
pub fn load_project_config(
    root: &Path,
    yaml: Option<YamlLoader<'_>>,
) -> Result<Option<LoadedConfig>, ChecksError> {
    let dir = root.join(".protoflow");
    match std::fs::symlink_metadata(&dir) {
        Ok(meta) if meta.file_type().is_symlink() => {
            return Err(ChecksError::ConfigSymlink { path: dir });
        }
        Ok(meta) if meta.is_dir() => {}
        Ok(_) => return Ok(None),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => return Err(ChecksError::ConfigIo { path: dir, source }),
    }

    let mut present = Vec::new();
    for file in PROJECT_CONFIG_FILES {
        let path = root.join(file);
        match std::fs::symlink_metadata(&path) {
            Ok(meta) if meta.file_type().is_symlink() => {
                return Err(ChecksError::ConfigSymlink { path });
            }
            Ok(_) => present.push((file, path)),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
            Err(source) => return Err(ChecksError::ConfigIo { path, source }),
        }
    }
    if present.len() > 1 {
        return Err(ChecksError::ConfigAmbiguous {
            paths: present.into_iter().map(|(_, path)| path).collect(),
        });
    }
    let Some((file, path)) = present.pop() else {
        return Ok(None);
    };

    let text = read_capped(&path)?;
    let config = if file.ends_with(".json") {
        parse_project_config_json(&path, &text)?
    } else {
        let Some(loader) = yaml else {
            return Err(ChecksError::YamlNotWired { path });
        };
        let config = loader(&path, &text).map_err(|source| ChecksError::ConfigYaml {
            path: path.clone(),
            source,
        })?;
        validate_project_config(&path, &config)?;
        config
    };
    Ok(Some(LoadedConfig {
        file: file.to_string(),
        path,
        config,
    }))
}

fn read_capped(path: &Path) -> Result<String, ChecksError> {
    let io_err = |source| ChecksError::ConfigIo {
        path: path.to_path_buf(),
        source,
    };
    let file = std::fs::File::open(path).map_err(io_err)?;
    let size = file.metadata().map_err(io_err)?.len();
    if size > CONFIG_SIZE_LIMIT {
        return Err(ChecksError::ConfigTooLarge {
            path: path.to_path_buf(),
            size,
            limit: CONFIG_SIZE_LIMIT,
        });
    }
    let mut bytes = Vec::new();
    file.take(CONFIG_SIZE_LIMIT + 1)
        .read_to_end(&mut bytes)
        .map_err(io_err)?;
    if bytes.len() as u64 > CONFIG_SIZE_LIMIT {
        return Err(ChecksError::ConfigTooLarge {
            path: path.to_path_buf(),
            size: bytes.len() as u64,
            limit: CONFIG_SIZE_LIMIT,
        });
    }
    String::from_utf8(bytes).map_err(|_| {
        io_err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "the file is not UTF-8",
        ))
    })
}

/// Parses JSON text as a project config and validates it. `path` is used in messages.
pub fn parse_project_config_json(path: &Path, text: &str) -> Result<ProjectConfig, ChecksError> {
    let parse_error = |at: String, inner: &serde_json::Error| {
        let (line, column) = (inner.line(), inner.column());
        let located = strip_location(&inner.to_string());
        let message = if at == "." || at.is_empty() {
            located
        } else {
            format!("{at}: {located}")
        };
        ChecksError::ConfigParse(Box::new(ConfigParseError {
            path: path.to_path_buf(),
            line,
            column,
            message,
            src: NamedSource::new(path.display().to_string(), text.to_string()),
            span: error_span(text, offset_of(text, line, column)),
        }))
    };
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let config: ProjectConfig = serde_path_to_error::deserialize(&mut deserializer)
        .map_err(|err| parse_error(err.path().to_string(), err.inner()))?;
    // Trailing content after the top-level value is an error too.
    deserializer
        .end()
        .map_err(|err| parse_error(String::new(), &err))?;
    validate_project_config(path, &config)?;
    Ok(config)
}

/// serde_json appends " at line L column C"; the error carries those separately.
fn strip_location(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(index) => message[..index].to_string(),
        None => message.to_string(),
    }
}

/// Byte offset of a 1-based line and column (serde_json's convention), clamped to the text.
fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let mut offset = 0;
    for (index, content) in text.split_inclusive('\n').enumerate() {
        if index + 1 == line {
            let within = column.saturating_sub(1).min(content.len());
            let mut at = offset + within;
            while at > 0 && !text.is_char_boundary(at) {
                at -= 1;
            }
            return at;
        }
        offset += content.len();
    }
    text.len()
}

/// serde_json points at the last character of a bad token: for a quoted key or string
/// (e.g. an unknown field) label the whole quoted text, else the single position.
fn error_span(text: &str, offset: usize) -> SourceSpan {
    if text.as_bytes().get(offset) == Some(&b'"')
        && let Some(start) = text[..offset].rfind('"')
    {
        return SourceSpan::from((start, offset + 1 - start));
    }
    SourceSpan::from((offset, 0))
}

/// Checks the rules serde cannot express: ids, argv, cwd, env names, path patterns.
pub fn validate_project_config(path: &Path, config: &ProjectConfig) -> Result<(), ChecksError> {
    let invalid = |pointer: String, message: String, help: &str| ChecksError::ConfigInvalid {
        path: path.to_path_buf(),
        pointer,
        message,
        help: help.to_string(),
    };
    for (index, check) in config.checks.iter().enumerate() {
        let at = format!("/checks/{index}");
        if !is_valid_check_id(&check.id) {
            return Err(invalid(
                format!("{at}/id"),
                format!("check id `{}` is not allowed", check.id),
                "ids match ^[a-z0-9][a-z0-9_.:-]*$, e.g. `unit`, `cargo:test`, `npm:lint`",
            ));
        }
        if let Some(first) = config.checks[..index].iter().position(|c| c.id == check.id) {
            return Err(invalid(
                format!("{at}/id"),
                format!(
                    "duplicate check id `{}` (first defined at /checks/{first})",
                    check.id
                ),
                "every check needs its own id",
            ));
        }
        match check.argv.first() {
            None => {
                return Err(invalid(
                    format!("{at}/argv"),
                    "argv is empty".to_string(),
                    "argv is the program and its arguments, e.g. [\"cargo\", \"test\"]; it runs without a shell",
                ));
            }
            Some(program) if program.trim().is_empty() => {
                return Err(invalid(
                    format!("{at}/argv/0"),
                    "the program name is empty".to_string(),
                    "argv[0] names the program to run, e.g. \"cargo\"",
                ));
            }
            Some(_) => {}
        }
        if let Some(arg) = check.argv.iter().position(|arg| arg.contains('\0')) {
            return Err(invalid(
                format!("{at}/argv/{arg}"),
                "an argument contains a NUL byte".to_string(),
                "remove the NUL byte",
            ));
        }
        if let Err(problem) = normalize_relative(&check.cwd) {
            return Err(invalid(
                format!("{at}/cwd"),
                format!("cwd `{}` {problem}", check.cwd),
                "cwd is relative to the project root and must stay inside it, e.g. \".\" or \"crates/parser\"",
            ));
        }
        for (name, value) in &check.env {
            if name.is_empty() || name.contains('=') || name.contains('\0') || value.contains('\0')
            {
                return Err(invalid(
                    format!("{at}/env/{}", escape_pointer(name)),
                    format!("environment variable `{name}` is not a valid name or value"),
                    "names are non-empty without `=` or NUL; values have no NUL",
                ));
            }
        }
        for (position, pattern) in check.paths.iter().enumerate() {
            let normalized = normalize_relative(pattern).map_err(|problem| {
                invalid(
                    format!("{at}/paths/{position}"),
                    format!("path `{pattern}` {problem}"),
                    "paths are project-relative files, directories or globs, e.g. \"src/**\"",
                )
            })?;
            compile_patterns(&[normalized]).map_err(|err| {
                invalid(
                    format!("{at}/paths/{position}"),
                    err.to_string(),
                    "paths are project-relative files, directories or globs, e.g. \"src/**\"",
                )
            })?;
        }
    }
    Ok(())
}

fn escape_pointer(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}

/// Normalizes a project-relative path or glob: `/`-separated, no `.` components, no `..`,
/// not absolute, no backslashes or NUL. Returns `.` for the root itself.
pub(crate) fn normalize_relative(path: &str) -> Result<String, &'static str> {
    if path.is_empty() {
        return Err("is empty (use \".\" for the project root)");
    }
    if path.contains('\0') {
        return Err("contains a NUL byte");
    }
    if path.contains('\\') {
        return Err("contains a backslash (use `/` as the separator)");
    }
    if path.starts_with('/') || path.starts_with('~') || has_drive_prefix(path) {
        return Err("is absolute (it must be relative to the project root)");
    }
    let mut parts = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => return Err("escapes the project with `..`"),
            other => parts.push(other),
        }
    }
    if parts.is_empty() {
        Ok(".".to_string())
    } else {
        Ok(parts.join("/"))
    }
}

fn has_drive_prefix(path: &str) -> bool {
    let bytes = path.as_bytes();
    bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':'
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_are_normalized_and_confined() {
        assert_eq!(normalize_relative(".").unwrap(), ".");
        assert_eq!(normalize_relative("./a//b/").unwrap(), "a/b");
        assert_eq!(normalize_relative("src/**").unwrap(), "src/**");
        for bad in ["", "..", "a/../../b", "/etc", "~/x", "C:/x", "a\\b"] {
            assert!(normalize_relative(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn offsets_follow_serde_json_line_and_column() {
        let text = "{\n  \"checks\": 1\n}";
        assert_eq!(&text[offset_of(text, 2, 3)..][..8], "\"checks\"");
        assert_eq!(offset_of(text, 9, 1), text.len());
    }
}
