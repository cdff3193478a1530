//! Recipe gates, as written: conditions over a finished run's results that decide
//! what the run's outcome means for whoever started it (a pipeline's exit code).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// What a tripped gate means. The engine reports it; the embedder maps it (the
/// `protoflow` command maps `findings` to exit code 4 and `incomplete` to 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum GateOutcome {
    /// The run's results are over a threshold the run was given (for example,
    /// findings at or above a severity): the run worked, and its answer is "no".
    Findings,
    /// The run did not cover what it was asked to (for example, a worker whose part
    /// is missing): its answer cannot be trusted as complete. A succeeded run with
    /// a tripped `incomplete` gate ends `degraded`.
    Incomplete,
}

impl GateOutcome {
    /// The snake_case name.
    pub fn as_str(self) -> &'static str {
        match self {
            GateOutcome::Findings => "findings",
            GateOutcome::Incomplete => "incomplete",
        }
    }
}

/// A gate: when `when` holds at the end of the run, the run's outcome is `outcome`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GateDocument {
    /// An expression over `inputs`, `steps` and `outputs` (the recipe's named
    /// outputs), evaluated once the run has finished; the gate trips when it is true.
    /// An expression that cannot be evaluated fails the run (never a silent pass).
    pub when: String,
    /// What a tripped gate means.
    pub outcome: GateOutcome,
    /// Why, for people: a template over the same data, shown when the gate trips.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}
