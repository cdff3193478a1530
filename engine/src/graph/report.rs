//! The run report: what actually happened, for `--json`, `protoflow report` and CI.
//!
//! Built from the executor's final state (and stored with the run); rendering to
//! Markdown lives here too. It never decides a status: the executor does.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{BudgetUse, Exhaustion};
use crate::events::{RunStatus, StepStatus};
use crate::evidence::completion::Completion;
use crate::recipe::Limits;
use crate::recipe::document::GateOutcome;

/// A finished run (or the current state of one).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RunReport {
    /// The run's id.
    pub run_id: String,
    /// The recipe's name.
    pub recipe: String,
    /// How it ended.
    pub status: RunStatus,
    /// When this execution started (ms since the epoch).
    pub started_at_ms: u64,
    /// When it ended.
    pub finished_at_ms: u64,
    /// How long this execution took.
    pub duration_ms: u64,
    /// Every step and fan-out instance, in plan order.
    pub steps: Vec<StepReport>,
    /// Keys of steps that failed (including allowed failures).
    pub failed: Vec<String>,
    /// Keys of steps that were skipped or not run, with the reason in `steps`.
    pub skipped: Vec<String>,
    /// Keys of steps that timed out.
    pub timed_out: Vec<String>,
    /// Keys of steps interrupted by a crash and not replayed.
    pub interrupted: Vec<String>,
    /// Why the run is not `succeeded`, one sentence each.
    pub problems: Vec<String>,
    /// The recipe's named outputs.
    pub outputs: Map<String, Value>,
    /// Budget use against the root limits.
    pub budget: BudgetReport,
    /// Bounded loops and how often each was taken.
    pub loops: Vec<LoopReport>,
    /// The recipe's gates, evaluated over the finished run (in recipe order).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gates: Vec<GateReport>,
    /// The completion guard's last verdict, when the run computed one (a recipe
    /// step running the `completion` tool).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completion: Option<Completion>,
}

/// One recipe gate at the end of a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GateReport {
    /// The gate's expression.
    pub when: String,
    /// What it means when it trips.
    pub outcome: GateOutcome,
    /// Whether it tripped.
    pub tripped: bool,
    /// The gate's message, rendered (when it tripped and has one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Why it could not be evaluated (the run is then `failed`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// One step (or fan-out instance) in a report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct StepReport {
    /// `id`, `id[index]` or `parent/child`.
    pub key: String,
    /// The recipe step id.
    pub node: String,
    /// Position in the fan-out list.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub item_index: Option<usize>,
    /// How it ended.
    pub status: StepStatus,
    /// How many times it started.
    pub attempts: u32,
    /// How long its last run took.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    /// Why it failed, timed out, was skipped or interrupted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Its output (null when none).
    pub output: Value,
    /// Whether a failure of it leaves the run's status alone.
    #[serde(default)]
    pub allow_failure: bool,
    /// Whether its effects may have partly happened (interrupted mid-effect).
    #[serde(default)]
    pub effects_uncertain: bool,
    /// Whether its result was reused from an earlier execution (resume).
    #[serde(default)]
    pub reused: bool,
}

/// Budget use.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct BudgetReport {
    /// What was used.
    pub used: BudgetUse,
    /// The root limits (wall time as `wall_time_ms`).
    pub limits: Value,
    /// The root limit that was reached, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exhausted: Option<Exhaustion>,
}

/// A bounded back-edge.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LoopReport {
    /// The step it is declared on.
    pub from: String,
    /// The step it runs again from.
    pub to: String,
    /// Times taken.
    pub taken: u32,
    /// The bound.
    pub max: u32,
    /// Whether the condition still held when the bound was reached.
    pub exhausted: bool,
}

impl RunReport {
    /// Whether a gate with this outcome tripped.
    pub fn tripped(&self, outcome: GateOutcome) -> bool {
        self.gates.iter().any(|g| g.tripped && g.outcome == outcome)
    }

    /// The report as Markdown (for a PR comment or `protoflow report --markdown`).
    pub fn to_markdown(&self) -> String {
        let mut md = String::new();
        md.push_str(&format!(
            "# protoflow run `{}`\n\n**Recipe:** `{}`  \n**Status:** `{}`  \n**Duration:** {}\n\n",
            self.run_id,
            self.recipe,
            self.status,
            format_ms(self.duration_ms)
        ));
        let tripped: Vec<&GateReport> = self.gates.iter().filter(|g| g.tripped).collect();
        if !tripped.is_empty() {
            md.push_str("## Gates\n\n");
            for gate in tripped {
                md.push_str(&format!(
                    "- **{}**: {}\n",
                    gate.outcome.as_str(),
                    escape(gate.message.as_deref().unwrap_or(&gate.when))
                ));
            }
            md.push('\n');
        }
        if !self.problems.is_empty() {
            md.push_str("## Problems\n\n");
            for problem in &self.problems {
                md.push_str(&format!("- {}\n", escape(problem)));
            }
            md.push('\n');
        }
        md.push_str(
            "## Steps\n\n| step | status | attempts | duration | reason |\n|---|---|---|---|---|\n",
        );
        for step in &self.steps {
            md.push_str(&format!(
                "| `{}` | {}{} | {} | {} | {} |\n",
                step.key,
                step.status,
                if step.reused { " (reused)" } else { "" },
                step.attempts,
                step.duration_ms.map(format_ms).unwrap_or_default(),
                escape(step.reason.as_deref().unwrap_or(""))
            ));
        }
        if !self.loops.is_empty() {
            md.push_str("\n## Loops\n\n");
            for l in &self.loops {
                md.push_str(&format!(
                    "- `{}` → `{}`: taken {} of {}{}\n",
                    l.from,
                    l.to,
                    l.taken,
                    l.max,
                    if l.exhausted { " (exhausted)" } else { "" }
                ));
            }
        }
        let used = &self.budget.used;
        md.push_str(&format!(
            "\n## Budget\n\nmodel calls {}, tool calls {}, tokens {}, children {}, wall time {}\n",
            used.model_calls,
            used.tool_calls,
            used.tokens,
            used.children,
            format_ms(used.wall_time_ms)
        ));
        if let Some(e) = &self.budget.exhausted {
            md.push_str(&format!("\n**Exhausted:** {e}\n"));
        }
        if !self.outputs.is_empty() {
            md.push_str("\n## Outputs\n\n```json\n");
            md.push_str(&serde_json::to_string_pretty(&self.outputs).unwrap_or_default());
            md.push_str("\n```\n");
        }
        md
    }
}

/// Limits as reports and events show them (wall time in milliseconds).
pub fn limits_json(limits: &Limits) -> Value {
    serde_json::json!({
        "model_calls": limits.model_calls,
        "tool_calls": limits.tool_calls,
        "tokens": limits.tokens,
        "wall_time_ms": u64::try_from(limits.wall_time.as_millis()).unwrap_or(u64::MAX),
        "concurrency": limits.concurrency,
        "children": limits.children,
        "repairs": limits.repairs,
        "output_bytes": limits.output_bytes,
    })
}

/// `1.25s`, `340ms`, `2m05s`.
pub fn format_ms(ms: u64) -> String {
    if ms < 1_000 {
        format!("{ms}ms")
    } else if ms < 60_000 {
        format!("{:.2}s", ms as f64 / 1_000.0)
    } else {
        format!("{}m{:02}s", ms / 60_000, (ms % 60_000) / 1_000)
    }
}

/// One line of Markdown: `|` escaped (tables), line breaks as spaces, and other
/// control characters (terminal escapes) shown as `\u{1b}` rather than sent raw.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '|' => out.push_str("\\|"),
            '\n' | '\r' => out.push(' '),
            '\t' => out.push(c),
            c if c.is_control() => out.extend(c.escape_default()),
            c => out.push(c),
        }
    }
    out
}
