//! `execute_command(argv, cwd, env, timeout_seconds, max_output_bytes)`: run one
//! argv (no shell) in a project directory with exactly the given environment.
//!
//! Defaults 60 s and 8 KiB; ceilings 600 s and 32 KiB (the output ceiling is
//! further narrowed by the context's `output_bytes`). The running itself is the
//! process core's ([`super::run_process`]).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::time::Duration;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::resolve::{build_env, resolve_cwd, resolve_program};
use super::run::{DEFAULT_KILL_GRACE, ProcessResult, ProcessSpec, run_process};
use crate::evidence::ReceiptFacts;
use crate::policy::Redactor;
use crate::tools::args::{builtin_spec, parse_args, schema_of};
use crate::tools::{PreparedCall, Preview, Tool, ToolContext, ToolError, ToolOutput, ToolSpec};

const NAME: &str = "execute_command";

/// Default wall time.
pub const DEFAULT_TIMEOUT_SECONDS: u64 = 60;
/// Ceiling on wall time.
pub const MAX_TIMEOUT_SECONDS: u64 = 600;
/// Default bytes kept per stream.
pub const DEFAULT_OUTPUT_BYTES: u64 = 8 * 1024;
/// Ceiling on bytes kept per stream.
pub const MAX_OUTPUT_BYTES: u64 = 32 * 1024;

/// Arguments of `execute_command`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExecuteCommandArgs {
    /// The program and its arguments; no shell is involved.
    #[schemars(length(min = 1))]
    pub argv: Vec<String>,
    /// Project-relative working directory (default: the project root); must exist.
    #[serde(default)]
    pub cwd: Option<String>,
    /// Variables added to the base environment; nothing else is inherited.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Wall-time limit in seconds (default 60, at most 600).
    #[serde(default)]
    #[schemars(range(min = 1, max = 600))]
    pub timeout_seconds: Option<u64>,
    /// Bytes of stdout and of stderr kept (default 8192, at most 32768).
    #[serde(default)]
    #[schemars(range(min = 1, max = 32768))]
    pub max_output_bytes: Option<u64>,
}

/// The `execute_command` tool.
#[derive(Debug, Default, Clone, Copy)]
pub struct ExecuteCommand;

fn invalid(reason: String) -> ToolError {
    ToolError::InvalidArguments {
        tool: NAME.to_string(),
        reason,
    }
}

/// The exact, human-readable description of what a process spec will run (the
/// approval preview). Values of credential-named variables are masked.
pub fn describe_spec(spec: &ProcessSpec, redactor: &Redactor) -> String {
    let mut out = String::new();
    let mut argv = vec![spec.program.display().to_string()];
    argv.extend(spec.args.iter().cloned());
    let _ = writeln!(
        out,
        "argv: {}",
        serde_json::to_string(&argv).unwrap_or_default()
    );
    let _ = writeln!(out, "cwd: {}", spec.cwd.display());
    let _ = writeln!(out, "env (exactly; nothing inherited):");
    if spec.env.is_empty() {
        let _ = writeln!(out, "  (empty)");
    }
    for (key, value) in &spec.env {
        let shown = if Redactor::is_secret_name(key) {
            format!("[REDACTED:{key}]")
        } else {
            redactor.redact_str(value).into_owned()
        };
        let _ = writeln!(out, "  {key}={shown}");
    }
    let _ = writeln!(out, "stdin: closed");
    let _ = writeln!(
        out,
        "timeout: {} s (then SIGTERM to the process group, {} s grace, SIGKILL)",
        spec.timeout.as_secs(),
        spec.kill_grace.as_secs()
    );
    let _ = writeln!(
        out,
        "output kept: {} bytes per stream",
        spec.max_output_bytes
    );
    out
}

/// The JSON result of a finished process (what the caller sees).
pub fn result_value(result: &ProcessResult) -> Value {
    json!({
        "exit_code": result.exit_code,
        "signal": result.signal,
        "stdout": result.stdout,
        "stderr": result.stderr,
        "timed_out": result.timed_out,
        "canceled": result.canceled,
        "truncated": result.truncated,
        "duration_ms": result.duration_ms,
        "stdout_bytes": result.stdout_bytes,
        "stderr_bytes": result.stderr_bytes,
    })
}

/// The receipt facts of a finished process. `detail.timed_out` / `detail.canceled`
/// are what `invoke` maps to the receipt's `timed_out` / `canceled` status.
pub fn result_facts(result: &ProcessResult, spec: &ProcessSpec) -> ReceiptFacts {
    let mut argv = vec![spec.program.display().to_string()];
    argv.extend(spec.args.iter().cloned());
    ReceiptFacts {
        exit_code: result.exit_code,
        output_bytes: result.stdout_bytes + result.stderr_bytes,
        truncated: result.truncated,
        detail: json!({
            "argv": argv,
            "cwd": spec.cwd.display().to_string(),
            "signal": result.signal,
            "timed_out": result.timed_out,
            "canceled": result.canceled,
        }),
        ..ReceiptFacts::default()
    }
}

#[async_trait]
impl Tool for ExecuteCommand {
    fn spec(&self) -> &'static ToolSpec {
        builtin_spec(NAME)
    }

    fn args_schema(&self) -> Value {
        schema_of::<ExecuteCommandArgs>()
    }

    async fn prepare(&self, ctx: &ToolContext, args: Value) -> Result<PreparedCall, ToolError> {
        let parsed: ExecuteCommandArgs = parse_args(NAME, args.clone())?;
        let Some((program, rest)) = parsed.argv.split_first() else {
            return Err(invalid(
                "argv is empty; give the program and its arguments".to_string(),
            ));
        };
        if parsed.argv.iter().any(|a| a.contains('\0')) {
            return Err(invalid("argv contains a NUL byte".to_string()));
        }
        let timeout = parsed.timeout_seconds.unwrap_or(DEFAULT_TIMEOUT_SECONDS);
        if timeout == 0 || timeout > MAX_TIMEOUT_SECONDS {
            return Err(invalid(format!(
                "timeout_seconds must be between 1 and {MAX_TIMEOUT_SECONDS}"
            )));
        }
        let requested = parsed.max_output_bytes.unwrap_or(DEFAULT_OUTPUT_BYTES);
        if requested == 0 || requested > MAX_OUTPUT_BYTES {
            return Err(invalid(format!(
                "max_output_bytes must be between 1 and {MAX_OUTPUT_BYTES}"
            )));
        }
        let cap = usize::try_from(requested)
            .unwrap_or(usize::MAX)
            .min(ctx.output_bytes.max(1));
        let cwd = resolve_cwd(NAME, ctx, parsed.cwd.as_deref())?;
        let env = build_env(NAME, ctx, &parsed.env)?;
        let program = resolve_program(program, &cwd, env.get("PATH").map(String::as_str)).map_err(
            |reason| ToolError::Rejected {
                tool: NAME.to_string(),
                reason,
            },
        )?;
        let spec = ProcessSpec {
            program,
            args: rest.to_vec(),
            cwd,
            env,
            timeout: Duration::from_secs(timeout),
            max_output_bytes: cap,
            kill_grace: DEFAULT_KILL_GRACE,
        };
        let summary = format!("run {}", ctx.redactor.redact_str(&parsed.argv.join(" ")));
        Ok(PreparedCall {
            tool: NAME,
            args,
            preview: Preview {
                summary,
                detail: Some(describe_spec(&spec, &ctx.redactor)),
            },
            payload: Box::new(spec),
        })
    }

    async fn execute(
        &self,
        ctx: &ToolContext,
        call: PreparedCall,
    ) -> Result<ToolOutput, ToolError> {
        let spec = call.into_payload::<ProcessSpec>()?;
        let result = run_process(&spec, &ctx.cancel)
            .await
            .map_err(|e| ToolError::Io {
                tool: NAME.to_string(),
                source: std::io::Error::other(e.to_string()),
            })?;
        Ok(ToolOutput {
            value: result_value(&result),
            facts: result_facts(&result, &spec),
        })
    }
}
