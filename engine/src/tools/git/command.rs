//! Running the real `git` binary read-only, through the process core, with an
//! explicit environment: no system or global config, no pager, no prompts, no
//! external diff or textconv drivers, no fsmonitor hook.
//!
//! Owns the git argv prefix and ref validation; never writes to the repository.

use std::collections::BTreeMap;
use std::time::Duration;

use crate::tools::process::{
    DEFAULT_KILL_GRACE, ProcessResult, ProcessSpec, SYSTEM_PATH, resolve_program, run_process,
};
use crate::tools::{ToolContext, ToolError};

/// Bytes of git output kept.
pub const GIT_OUTPUT_BYTES: usize = 32 * 1024;
/// Wall-time limit of a git call.
pub const GIT_TIMEOUT: Duration = Duration::from_secs(60);

/// The environment every git call gets (and nothing else).
pub fn git_env() -> BTreeMap<String, String> {
    [
        ("PATH", SYSTEM_PATH),
        ("LANG", "C"),
        ("LC_ALL", "C"),
        ("GIT_CONFIG_NOSYSTEM", "1"),
        ("GIT_CONFIG_GLOBAL", "/dev/null"),
        ("GIT_PAGER", "cat"),
        ("PAGER", "cat"),
        ("GIT_TERMINAL_PROMPT", "0"),
        ("GIT_OPTIONAL_LOCKS", "0"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect()
}

/// Refuses a ref that could be read as an option or is not a plain revision.
pub fn validate_ref(tool: &str, name: &str, value: &str) -> Result<(), ToolError> {
    let ok = !value.is_empty()
        && !value.starts_with('-')
        && value.len() <= 256
        && value
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "._/~^@{}-+:".contains(c));
    if ok {
        Ok(())
    } else {
        Err(ToolError::InvalidArguments {
            tool: tool.to_string(),
            reason: format!(
                "`{name}` = `{value}` is not a valid revision (letters, digits and ._/~^@{{}}-+: only; it may not start with `-`)"
            ),
        })
    }
}

/// The process spec of `git <args>` in the project root.
pub fn git_spec(
    tool: &str,
    ctx: &ToolContext,
    args: Vec<String>,
) -> Result<ProcessSpec, ToolError> {
    let env = git_env();
    let program = resolve_program("git", &ctx.root, env.get("PATH").map(String::as_str))
        .map_err(|reason| ToolError::Unavailable(format!("{tool} ({reason})")))?;
    let mut full = vec![
        "--no-pager".to_string(),
        "-c".to_string(),
        "core.fsmonitor=false".to_string(),
        "-c".to_string(),
        "core.quotepath=off".to_string(),
    ];
    full.extend(args);
    Ok(ProcessSpec {
        program,
        args: full,
        cwd: ctx.root.clone(),
        env,
        timeout: GIT_TIMEOUT,
        max_output_bytes: GIT_OUTPUT_BYTES,
        kill_grace: DEFAULT_KILL_GRACE,
    })
}

/// Runs a git spec; a non-zero exit is a rejection carrying git's message.
pub async fn run_git(
    tool: &str,
    ctx: &ToolContext,
    spec: &ProcessSpec,
) -> Result<ProcessResult, ToolError> {
    let result = run_process(spec, &ctx.cancel)
        .await
        .map_err(|e| ToolError::Io {
            tool: tool.to_string(),
            source: std::io::Error::other(e.to_string()),
        })?;
    if result.canceled {
        return Err(ToolError::Canceled(tool.to_string()));
    }
    if result.exit_code != Some(0) && !result.timed_out {
        return Err(ToolError::Rejected {
            tool: tool.to_string(),
            reason: format!(
                "git exited with {}: {}",
                result
                    .exit_code
                    .map_or_else(|| "a signal".to_string(), |c| c.to_string()),
                result.stderr.trim()
            ),
        });
    }
    Ok(result)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refs_cannot_be_options() {
        assert!(validate_ref("git_diff", "base", "--output=/tmp/x").is_err());
        assert!(validate_ref("git_diff", "base", "-p").is_err());
        assert!(validate_ref("git_diff", "base", "main two").is_err());
        assert!(validate_ref("git_diff", "base", "HEAD~1").is_ok());
        assert!(validate_ref("git_diff", "base", "origin/main").is_ok());
    }
}
