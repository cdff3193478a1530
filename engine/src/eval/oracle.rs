//! Running a case's oracle: its argv in the project copy, with the base process
//! environment only (no inherited secrets), no bytecode caches, a timeout and an
//! output cap.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use serde::Serialize;
use tokio_util::sync::CancellationToken;

use super::case::LoadedCase;
use crate::tools::process::{DEFAULT_KILL_GRACE, ProcessSpec, resolve_program, run_process};

/// Bytes of oracle output kept.
const ORACLE_OUTPUT: usize = 16 * 1024;

/// How an oracle run ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OracleResult {
    /// Exit 0 within its time.
    pub passed: bool,
    /// The exit code.
    pub exit_code: Option<i32>,
    /// Why it could not run, or that it timed out.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The end of its output.
    pub output_tail: String,
}

/// Runs the oracle of `case` in `project` with `base_env`.
pub async fn run_oracle(
    case: &LoadedCase,
    project: &Path,
    base_env: &BTreeMap<String, String>,
) -> OracleResult {
    let failed = |error: String| OracleResult {
        passed: false,
        exit_code: None,
        error: Some(error),
        output_tail: String::new(),
    };
    let Some((program, args)) = case.case.oracle.split_first() else {
        return failed("the oracle argv is empty".into());
    };
    let mut env = base_env.clone();
    // A bytecode cache written before the run can outlive a same-size edit.
    env.insert("PYTHONDONTWRITEBYTECODE".into(), "1".into());
    let program = match resolve_program(program, project, env.get("PATH").map(String::as_str)) {
        Ok(p) => p,
        Err(e) => return failed(e),
    };
    let spec = ProcessSpec {
        program,
        args: args.to_vec(),
        cwd: project.to_path_buf(),
        env,
        timeout: Duration::from_secs(case.case.oracle_timeout.max(1)),
        max_output_bytes: ORACLE_OUTPUT,
        kill_grace: DEFAULT_KILL_GRACE,
    };
    match run_process(&spec, &CancellationToken::new()).await {
        Ok(result) => {
            let text = format!("{}{}", result.stdout, result.stderr);
            let count = text.chars().count();
            OracleResult {
                passed: !result.timed_out && result.exit_code == Some(0),
                exit_code: result.exit_code,
                error: result.timed_out.then(|| "the oracle timed out".to_string()),
                output_tail: text.chars().skip(count.saturating_sub(2_000)).collect(),
            }
        }
        Err(e) => failed(e.to_string()),
    }
}
