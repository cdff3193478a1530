//! What `run` and `resume` print for pipelines and how a run maps to an exit code:
//! `--format NAME` (one recipe output on stdout), `--fail-on LEVEL` (the recipe's
//! `fail_on` input) and the recipe's gates (`findings` → exit 4).
//!
//! Mechanism only: it never knows which recipe declares which output; a recipe
//! without the asked output is a usage error naming the ones it has.

use protoflow_engine::events::RunStatus;
use protoflow_engine::graph::RunReport;
use protoflow_engine::recipe::Recipe;
use protoflow_engine::recipe::document::GateOutcome;
use serde_json::Value;

use crate::exit;

/// The input `--fail-on` sets.
pub const FAIL_ON_INPUT: &str = "fail_on";

/// Checks, before the run, that the recipe declares the output `--format` asks for.
pub fn check_format(recipe: &Recipe, name: &str) -> Result<(), String> {
    if recipe.outputs.contains_key(name) {
        return Ok(());
    }
    let available: Vec<&str> = recipe.outputs.keys().map(String::as_str).collect();
    Err(if available.is_empty() {
        format!(
            "--format {name}: recipe `{}` declares no outputs, so there is nothing to print",
            recipe.name
        )
    } else {
        format!(
            "--format {name}: recipe `{}` has no output `{name}`; its outputs are: {}",
            recipe.name,
            available.join(", ")
        )
    })
}

/// Adds `fail_on=LEVEL` to the `--input` list: the recipe must declare a `fail_on`
/// input (which validates the level), and `--input fail_on=...` must not be given too.
pub fn apply_fail_on(
    recipe: &Recipe,
    inputs: &[String],
    fail_on: Option<&str>,
) -> Result<Vec<String>, String> {
    let mut inputs = inputs.to_vec();
    let Some(level) = fail_on else {
        return Ok(inputs);
    };
    if !recipe.inputs.contains_key(FAIL_ON_INPUT) {
        return Err(format!(
            "--fail-on: recipe `{}` has no `{FAIL_ON_INPUT}` input, so it cannot gate on a threshold",
            recipe.name
        ));
    }
    let prefix = format!("{FAIL_ON_INPUT}=");
    if inputs.iter().any(|i| i.starts_with(&prefix)) {
        return Err(format!(
            "--fail-on and --input {FAIL_ON_INPUT}=... both set the threshold; give one"
        ));
    }
    inputs.push(format!("{prefix}{level}"));
    Ok(inputs)
}

/// The exit code of a finished run: canceled (5) and budget exhausted (3) first,
/// then a tripped `findings` gate (4), then the status (failed or degraded: 1).
pub fn exit_code_of(report: &RunReport) -> u8 {
    match report.status {
        RunStatus::Canceled => exit::CANCELED,
        RunStatus::BudgetExhausted => exit::BUDGET_EXHAUSTED,
        RunStatus::Running => exit::INTERNAL,
        _ if report.tripped(GateOutcome::Findings) => exit::FINDINGS,
        status => super::run::exit_code(status),
    }
}

/// The text `--format NAME` prints: a string output as it is (with a final
/// newline), anything else as pretty JSON; `None` when the run has no such output
/// (it could not be rendered).
pub fn format_output(report: &RunReport, name: &str) -> Option<String> {
    let value = report.outputs.get(name)?;
    Some(match value {
        Value::String(text) if text.ends_with('\n') => text.clone(),
        Value::String(text) => format!("{text}\n"),
        other => format!(
            "{}\n",
            serde_json::to_string_pretty(other).unwrap_or_default()
        ),
    })
}

/// One line per tripped gate, for the human summary.
pub fn gate_lines(report: &RunReport) -> String {
    report
        .gates
        .iter()
        .filter(|g| g.tripped)
        .map(|g| {
            format!(
                "  gate ({}): {}\n",
                g.outcome.as_str(),
                g.message.as_deref().unwrap_or(&g.when)
            )
        })
        .collect()
}
