//! The completion guard: whether a run earned completion, computed from its
//! ledger (receipts), the files' current revisions and the checks' declared
//! dependencies — never from what a model said.
//!
//! Rules: `applied` needs an executed file change still at its revision; only
//! final executions (`verify` asked by a `verify` step) of SELECTED checks count;
//! baseline and edit-time results never verify; zero tests executed never
//! verifies a code change; a pass is `stale` when a file it depended on changed
//! after it ran; a documentation-only change may complete applied but unverified;
//! worker reports are advice, and an unresolved `needs_context`/`blocked` report
//! prevents completion; a denied approval, a canceled call or an uncertain effect
//! stops the run instead of repairing. Pure over its input, except that it reads
//! the files the run touched to know their current revisions.

mod compute;
mod files;
mod gate;
mod model;

use std::collections::BTreeMap;
use std::path::Path;

pub use compute::compute;
pub use files::is_docs;
pub(crate) use files::read_confined;
pub use model::{
    CheckResult, Completion, CompletionStatus, Denial, FileChange, Next, Repairs, Verification,
};

use crate::checks::CheckSet;
use crate::evidence::{LedgerEntry, WorkerReport};

/// What the guard judges.
#[derive(Debug, Clone, Copy)]
pub struct CompletionInput<'a> {
    /// The project root.
    pub root: &'a Path,
    /// The run's ledger, in order.
    pub ledger: &'a [LedgerEntry],
    /// Worker reports, with whether each was resolved.
    pub reports: &'a [WorkerReport],
    /// Whether a plan was made (`plan_task`).
    pub planned: bool,
    /// The plan's selected check ids.
    pub selected: &'a [String],
    /// The plan's acceptance criteria.
    pub criteria: &'a [String],
    /// The project's checks (for declared dependencies).
    pub checks: Option<&'a CheckSet>,
    /// The request's class, when the recipe has a contract.
    pub class: Option<&'a str>,
    /// Whether the request may change files.
    pub may_write: bool,
    /// Whether the request may run processes (checks).
    pub may_execute: bool,
    /// Whether the user defers verification.
    pub deferred: bool,
    /// Why the run must stop instead of repairing (denied approvals, ...).
    pub stops: &'a [String],
    /// The content of each written file before the run's first write to it.
    pub originals: &'a BTreeMap<String, Option<Vec<u8>>>,
    /// The current repair round (0: the first attempt).
    pub round: u32,
    /// The repair bound.
    pub repairs_max: u32,
    /// Problems setting the task up (a request that could not be rendered).
    pub problems: &'a [String],
}

/// `Ok` when a repair may open now (a completed failing final check of the
/// current attempt, nothing stopped, repairs left); otherwise why not.
pub fn may_repair(input: &CompletionInput<'_>) -> Result<(), String> {
    let selected = compute::selected_checks(input);
    let mut current = files::Current::new(input.root);
    gate::repair_gate(input, &selected, &mut current)
}
