//! What the completion guard reports: the shapes only.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::evidence::{Revision, WorkerReport};

/// Whether the run earned completion.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CompletionStatus {
    /// The evidence supports the request's completion.
    Satisfied,
    /// It does not; `left` says what is missing.
    Incomplete,
}

/// The verification status of the run's change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Verification {
    /// Every selected check passed in its final execution, on the current files,
    /// and (for a code change) tests were executed.
    Passed,
    /// A selected check completed and failed in its final execution.
    Failed,
    /// A selected check passed, but a file it depended on changed since it ran.
    Stale,
    /// Nothing proves the change (no check selected, missing, empty, incomplete).
    Unverified,
    /// The user said they will verify the change themselves.
    Deferred,
}

/// What the flow should do next.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Next {
    /// Complete: nothing more to do.
    Done,
    /// A repair may open: a completed final check failed, nothing stopped the
    /// run and repairs are left.
    Repair,
    /// Incomplete and no repair may open (`left` says why).
    Stop,
}

/// One execution of a check, as evidence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CheckResult {
    /// The check's id.
    pub id: String,
    /// The step that ran it.
    pub step: String,
    /// The phase of that step (`baseline`, `edit`, `verify`, ...).
    pub phase: String,
    /// The phase the caller asked for.
    pub requested_phase: String,
    /// Whether it is final verification evidence (a selected check asked for
    /// `verify` by a `verify` step); baseline and edit-time runs never are.
    pub counted: bool,
    /// `passed`, `failed`, `stale`, `no_tests`, `incomplete`, `timed_out`, `denied` ...
    pub status: String,
    /// Tests executed, when the runner said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tests_executed: Option<u64>,
    /// Its exit code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// The repair round it ran in (0: the first attempt).
    pub round: u32,
    /// For a stale pass: the files that changed since it ran.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub changed_since: Vec<String>,
}

/// One file the run changed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FileChange {
    /// Project-relative path.
    pub path: String,
    /// Whether the file is still at the revision the run's last write left.
    pub applied: bool,
    /// Its revision before the run's first write (`None`: it did not exist).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revision_before: Option<Revision>,
    /// The revision the run's last write left.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revision_after: Option<Revision>,
    /// Its revision now (`None`: it does not exist).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub current_revision: Option<Revision>,
    /// A unified diff from before the run's first write to now (capped).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub diff: String,
}

/// A refused call worth reporting (by a person's approval, the request contract,
/// the task's write scope or a phase rule).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Denial {
    /// The step key.
    pub step: String,
    /// The tool.
    pub tool: String,
    /// The path, for a file tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Who refused: `approver`, `contract`, `task`, or `policy`.
    pub by: String,
    /// Why.
    pub reason: String,
}

/// Repair rounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Repairs {
    /// Rounds opened.
    pub used: u32,
    /// The bound (the recipe's `limits.repairs`).
    pub max: u32,
}

/// The completion guard's verdict, from receipts and file revisions only.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Completion {
    /// `satisfied` or `incomplete`.
    pub status: CompletionStatus,
    /// `status == satisfied` (a tool step with this output fails otherwise).
    pub passed: bool,
    /// The request's class under the recipe's contract, when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class: Option<String>,
    /// At least one file was changed and every changed file is still at the
    /// revision the run's last write left.
    pub applied: bool,
    /// Every selected check passed in its final execution on the current files.
    pub verified: bool,
    /// The verification status.
    pub verification: Verification,
    /// The acceptance criteria are backed by passing, current checks.
    pub criteria_supported: bool,
    /// The plan's acceptance criteria.
    pub criteria: Vec<String>,
    /// The checks the plan selected (or, without a plan, the final checks that ran).
    pub selected_checks: Vec<String>,
    /// Every check execution, in order, per phase.
    pub checks: Vec<CheckResult>,
    /// Every file the run changed.
    pub files: Vec<FileChange>,
    /// Worker reports (advice, never evidence).
    pub reports: Vec<WorkerReport>,
    /// Calls that were refused.
    pub denied: Vec<Denial>,
    /// Repair rounds used and allowed.
    pub repairs: Repairs,
    /// What the flow should do next.
    pub next: Next,
    /// What is left, one sentence each (empty when satisfied without caveats).
    pub left: Vec<String>,
}
