//! Run and step statuses: the words reports, events and the store share.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// How a step (or one fan-out instance of it) stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum StepStatus {
    /// Not started yet.
    Pending,
    /// Started and not finished.
    Running,
    /// Finished with a (valid) output.
    Succeeded,
    /// Finished with an error.
    Failed,
    /// Stopped because it ran past its timeout; its processes were killed.
    TimedOut,
    /// Not run: its `when` was false, or the dependents rule skipped it.
    Skipped,
    /// Stopped by a cancellation of the run.
    Canceled,
    /// Never started because the run stopped first (budget exhausted, canceled).
    NotRun,
    /// It was running when the process died: its effects are uncertain.
    Interrupted,
}

impl StepStatus {
    /// Whether the step will not change any more in this execution.
    pub fn is_terminal(self) -> bool {
        !matches!(self, StepStatus::Pending | StepStatus::Running)
    }

    /// Whether the step ended in a way that counts as a problem (unless allowed).
    pub fn is_problem(self) -> bool {
        matches!(
            self,
            StepStatus::Failed
                | StepStatus::TimedOut
                | StepStatus::Canceled
                | StepStatus::NotRun
                | StepStatus::Interrupted
        )
    }

    /// The snake_case name used in JSON, the store and templates.
    pub fn as_str(self) -> &'static str {
        match self {
            StepStatus::Pending => "pending",
            StepStatus::Running => "running",
            StepStatus::Succeeded => "succeeded",
            StepStatus::Failed => "failed",
            StepStatus::TimedOut => "timed_out",
            StepStatus::Skipped => "skipped",
            StepStatus::Canceled => "canceled",
            StepStatus::NotRun => "not_run",
            StepStatus::Interrupted => "interrupted",
        }
    }

    /// Parses the snake_case name.
    pub fn parse(text: &str) -> Option<StepStatus> {
        ALL_STEP_STATUSES.into_iter().find(|s| s.as_str() == text)
    }
}

const ALL_STEP_STATUSES: [StepStatus; 9] = [
    StepStatus::Pending,
    StepStatus::Running,
    StepStatus::Succeeded,
    StepStatus::Failed,
    StepStatus::TimedOut,
    StepStatus::Skipped,
    StepStatus::Canceled,
    StepStatus::NotRun,
    StepStatus::Interrupted,
];

impl std::fmt::Display for StepStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How a run stands or ended.
///
/// Precedence when several apply: `canceled` > `budget_exhausted` > `failed` >
/// `degraded` > `succeeded`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    /// Still running (or the process died: `resume` will tell).
    Running,
    /// Every step succeeded or was skipped by a condition.
    Succeeded,
    /// A step failed (and was not `allow_failure`), a loop was exhausted, or a step
    /// was interrupted: the work is incomplete.
    Failed,
    /// Nothing failed, but a step timed out or an `incomplete` recipe gate tripped.
    Degraded,
    /// A root limit was reached; new work stopped.
    BudgetExhausted,
    /// The run was canceled (Ctrl-C, SIGTERM, or by its embedder).
    Canceled,
}

impl RunStatus {
    /// The snake_case name used in JSON and the store.
    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Running => "running",
            RunStatus::Succeeded => "succeeded",
            RunStatus::Failed => "failed",
            RunStatus::Degraded => "degraded",
            RunStatus::BudgetExhausted => "budget_exhausted",
            RunStatus::Canceled => "canceled",
        }
    }

    /// Parses the snake_case name.
    pub fn parse(text: &str) -> Option<RunStatus> {
        [
            RunStatus::Running,
            RunStatus::Succeeded,
            RunStatus::Failed,
            RunStatus::Degraded,
            RunStatus::BudgetExhausted,
            RunStatus::Canceled,
        ]
        .into_iter()
        .find(|s| s.as_str() == text)
    }
}

impl std::fmt::Display for RunStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_round_trip_through_their_names() {
        for status in ALL_STEP_STATUSES {
            assert_eq!(StepStatus::parse(status.as_str()), Some(status));
            let json = serde_json::to_value(status).unwrap_or_default();
            assert_eq!(json, serde_json::json!(status.as_str()));
        }
        assert_eq!(
            RunStatus::parse("budget_exhausted"),
            Some(RunStatus::BudgetExhausted)
        );
    }
}
