//! `run_check(check_id, phase)`: run one frozen check and report its evidence.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::checks::{CheckOutput, CheckSpec, Discovery, count_tests_executed};
use crate::tools::args::{builtin_spec, parse_args, schema_of};
use crate::tools::process::{
    DEFAULT_KILL_GRACE, MAX_OUTPUT_BYTES, ProcessSpec, build_env, describe_spec, resolve_cwd,
    resolve_program, result_facts, run_process,
};
use crate::tools::{PreparedCall, Preview, Tool, ToolContext, ToolError, ToolOutput, ToolSpec};

const NAME: &str = "run_check";

/// How long a check may run: the process tools' ceiling, because test suites are slow.
pub const CHECK_TIMEOUT_SECONDS: u64 = 600;

/// Why a check is run. Recorded on the receipt: baseline results are evidence about
/// the project before a change and never verify one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum CheckPhase {
    /// Before any change.
    Baseline,
    /// After the change, to verify it.
    Verify,
}

/// Arguments of `run_check`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RunCheckArgs {
    /// The id of a configured or discovered check (see `discover_checks`).
    pub check_id: String,
    /// `baseline` (before changing anything) or `verify` (after the change).
    pub phase: CheckPhase,
}

/// The `run_check` tool, over the run's frozen discovery.
#[derive(Debug, Clone)]
pub struct RunCheck {
    discovery: Arc<Discovery>,
}

impl RunCheck {
    /// The tool for one run's discovery.
    pub fn new(discovery: Arc<Discovery>) -> Self {
        RunCheck { discovery }
    }
}

struct Prepared {
    check: CheckSpec,
    phase: CheckPhase,
    spec: ProcessSpec,
}

fn rejected(reason: String) -> ToolError {
    ToolError::Rejected {
        tool: NAME.to_string(),
        reason,
    }
}

#[async_trait]
impl Tool for RunCheck {
    fn spec(&self) -> &'static ToolSpec {
        builtin_spec(NAME)
    }

    fn args_schema(&self) -> Value {
        schema_of::<RunCheckArgs>()
    }

    async fn prepare(&self, ctx: &ToolContext, args: Value) -> Result<PreparedCall, ToolError> {
        let parsed: RunCheckArgs = parse_args(NAME, args.clone())?;
        let check = self
            .discovery
            .checks
            .require(&parsed.check_id)
            .map_err(|e| rejected(e.to_string()))?
            .clone();
        let Some((program, rest)) = check.argv.split_first() else {
            return Err(rejected(format!("check `{}` has an empty argv", check.id)));
        };
        let cwd = resolve_cwd(NAME, ctx, Some(&check.cwd))?;
        let env = build_env(NAME, ctx, &check.env)?;
        let program = resolve_program(program, &cwd, env.get("PATH").map(String::as_str))
            .map_err(rejected)?;
        let spec = ProcessSpec {
            program,
            args: rest.to_vec(),
            cwd,
            env,
            timeout: Duration::from_secs(CHECK_TIMEOUT_SECONDS),
            max_output_bytes: MAX_OUTPUT_BYTES as usize,
            kill_grace: DEFAULT_KILL_GRACE,
        };
        let phase = match parsed.phase {
            CheckPhase::Baseline => "baseline",
            CheckPhase::Verify => "verify",
        };
        Ok(PreparedCall {
            tool: NAME,
            args,
            preview: Preview {
                summary: format!("run check `{}` ({phase})", check.id),
                detail: Some(describe_spec(&spec, &ctx.redactor)),
            },
            payload: Box::new(Prepared {
                check,
                phase: parsed.phase,
                spec,
            }),
        })
    }

    async fn execute(
        &self,
        ctx: &ToolContext,
        call: PreparedCall,
    ) -> Result<ToolOutput, ToolError> {
        let Prepared { check, phase, spec } = call.into_payload::<Prepared>()?;
        // The revisions the check runs on: a later change to one makes a pass stale.
        let snapshot = ctx.task.as_ref().map(|task| task.begin_check(&check));
        let result = run_process(&spec, &ctx.cancel)
            .await
            .map_err(|e| ToolError::Io {
                tool: NAME.to_string(),
                source: std::io::Error::other(e.to_string()),
            })?;
        let tests_executed = count_tests_executed(
            check.kind,
            &CheckOutput {
                exit_code: result.exit_code,
                stdout: &result.stdout,
                stderr: &result.stderr,
                truncated: result.truncated,
            },
        );
        // A check passes only when it ran to completion with exit 0; a test check
        // must also be seen to execute at least one test (an empty suite verifies
        // nothing, and an unknown count is not taken on trust).
        let completed = !result.timed_out && !result.canceled;
        let exited_zero = completed && result.exit_code == Some(0);
        let passed = exited_zero && (!check.runs_tests() || tests_executed.is_some_and(|n| n > 0));
        let status = if !completed {
            "incomplete"
        } else if passed {
            "passed"
        } else if exited_zero {
            "no_tests"
        } else {
            "failed"
        };
        let mut facts = result_facts(&result, &spec);
        if let Some(detail) = facts.detail.as_object_mut() {
            detail.insert("check_id".into(), json!(check.id));
            detail.insert("phase".into(), json!(phase));
            detail.insert("status".into(), json!(status));
            detail.insert("tests_executed".into(), json!(tests_executed));
            if let (Some(id), Some(task)) = (snapshot, ctx.task.as_ref()) {
                detail.insert("snapshot_id".into(), json!(id));
                // The revisions it ran on and the end of its output, on the
                // receipt itself: a resumed run rebuilds its task state from them.
                detail.insert("inputs".into(), task.snapshot_json(id));
                detail.insert(
                    "output_tail".into(),
                    json!(crate::task::output_tail(&result.stdout, &result.stderr)),
                );
            }
        }
        let value = json!({
            "check_id": check.id,
            "phase": phase,
            "status": status,
            "passed": passed,
            "exit_code": result.exit_code,
            "tests_executed": tests_executed,
            "timed_out": result.timed_out,
            "canceled": result.canceled,
            "truncated": result.truncated,
            "duration_ms": result.duration_ms,
            "argv": check.argv,
            "stdout": result.stdout,
            "stderr": result.stderr,
        });
        Ok(ToolOutput { value, facts })
    }
}
