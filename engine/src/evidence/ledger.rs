//! The run's ledger: every receipt of an effect-bearing call, in the order it was
//! observed, with what a check's receipt means (which check, in which phase, with
//! which result, over which file revisions).
//!
//! Plain data. The task state appends to it; the completion guard reads it. It
//! never performs an effect and never interprets model prose.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Receipt, Revision};

/// One observed receipt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LedgerEntry {
    /// Its position in the run (1, 2, ...).
    pub seq: u64,
    /// The step key that made the call (`edit`, `edit/worker#1`, `verify[0]`).
    pub step: String,
    /// The receipt.
    pub receipt: Receipt,
    /// What a `run_check` receipt says, when it is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check: Option<CheckRun>,
}

/// One execution of a project check.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CheckRun {
    /// The check's id.
    pub id: String,
    /// The phase the caller asked for (`baseline` or `verify`).
    pub requested_phase: String,
    /// Whether it counts as final verification: asked for `verify` by a step whose
    /// phase is `verify`. Anything else is evidence, never verification.
    pub final_check: bool,
    /// `passed`, `failed`, `no_tests`, `incomplete` (from the tool), or the
    /// receipt's status when the check never completed (`denied`, `timed_out` ...).
    pub status: String,
    /// Tests the runner reported executing, when it could tell.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tests_executed: Option<u64>,
    /// The exit code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// The repair round it ran in (0: the first attempt).
    pub round: u32,
    /// The revisions of the files it depended on when it started (its declared
    /// dependency files, the run's changed files and the sources it read);
    /// `None`: the file did not exist.
    #[serde(default)]
    pub inputs: BTreeMap<String, Option<Revision>>,
    /// The end of its output (what a repair is told about a failure).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub output_tail: String,
}

/// A worker's report (`report_task`): advice, never evidence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct WorkerReport {
    /// Its position in the ledger.
    pub seq: u64,
    /// Who reported: the step key without its call number (`edit/worker`).
    pub by: String,
    /// `done`, `needs_context` or `blocked`.
    pub status: String,
    /// What the worker said.
    pub summary: String,
    /// Files the worker said it needs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub missing_paths: Vec<String>,
    /// Whether a later `done` report by the same worker resolved it.
    #[serde(default)]
    pub resolved: bool,
}
