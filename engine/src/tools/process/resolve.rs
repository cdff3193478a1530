//! Resolving what a command will run: the program (through the given PATH or a
//! fixed system search path, never this process's), the working directory
//! (confined like file paths) and the exact environment.
//!
//! It never runs anything.

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use crate::tools::fs::confine::confine;
use crate::tools::{ToolContext, ToolError};

/// Where a bare program name is looked up when the environment has no `PATH`.
pub const SYSTEM_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

fn is_executable_file(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Resolves `program` to an executable path. A name containing `/` is taken as a
/// path (relative to `cwd`); a bare name is searched in `path_var` (or
/// [`SYSTEM_PATH`]), skipping relative entries.
pub fn resolve_program(
    program: &str,
    cwd: &Path,
    path_var: Option<&str>,
) -> Result<PathBuf, String> {
    if program.is_empty() {
        return Err("the program (argv[0]) is empty".to_string());
    }
    if program.contains('/') {
        let candidate = if Path::new(program).is_absolute() {
            PathBuf::from(program)
        } else {
            cwd.join(program)
        };
        return if is_executable_file(&candidate) {
            Ok(candidate)
        } else {
            Err(format!("`{program}` is not an executable file"))
        };
    }
    let search = path_var.unwrap_or(SYSTEM_PATH);
    search
        .split(':')
        .filter(|dir| Path::new(dir).is_absolute())
        .map(|dir| Path::new(dir).join(program))
        .find(|candidate| is_executable_file(candidate))
        .ok_or_else(|| format!("executable `{program}` was not found in PATH `{search}`"))
}

/// Resolves a project-relative working directory that must exist.
pub fn resolve_cwd(tool: &str, ctx: &ToolContext, cwd: Option<&str>) -> Result<PathBuf, ToolError> {
    let path = confine(&ctx.root, cwd.unwrap_or("."))?;
    match std::fs::metadata(&path.abs) {
        Ok(meta) if meta.is_dir() => Ok(path.abs),
        Ok(_) => Err(ToolError::Rejected {
            tool: tool.to_string(),
            reason: format!("cwd `{}` is not a directory", path.display()),
        }),
        Err(_) => Err(ToolError::Rejected {
            tool: tool.to_string(),
            reason: format!("cwd `{}` does not exist", path.display()),
        }),
    }
}

/// The child's complete environment: `ctx.process_env` overlaid with `extra`.
pub fn build_env(
    tool: &str,
    ctx: &ToolContext,
    extra: &BTreeMap<String, String>,
) -> Result<BTreeMap<String, String>, ToolError> {
    let mut env = ctx.process_env.clone();
    for (key, value) in extra {
        if key.is_empty() || key.contains('=') || key.contains('\0') || value.contains('\0') {
            return Err(ToolError::InvalidArguments {
                tool: tool.to_string(),
                reason: format!(
                    "invalid environment variable `{key}` (names must be non-empty, without `=` or NUL)"
                ),
            });
        }
        env.insert(key.clone(), value.clone());
    }
    Ok(env)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bare_names_use_the_system_path_and_skip_relative_entries() {
        let sh = resolve_program("sh", Path::new("/"), None);
        assert!(sh.is_ok_and(|p| p.is_absolute()));
        assert!(resolve_program("sh", Path::new("/"), Some("relative/bin")).is_err());
        assert!(resolve_program("definitely-not-a-program-xyz", Path::new("/"), None).is_err());
    }
}
