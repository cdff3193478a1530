//! Rebuilding a run's task state from its stored receipts, when a run is resumed
//! in a new process.
//!
//! The rebuild replays, in the order they were recorded, what made the state: the
//! executed `plan_task` calls (the plan and its selected checks), the repair round
//! each call ran in (stamped on its receipt), and every receipt through
//! [`TaskHandle::observe`] (the ledger, frozen and closed state, worker reports,
//! stops, reads, check results with their input revisions and output tails). The
//! content a written file had before the run's first write to it comes from the
//! write's checkpoint. It never performs an effect and never trusts model prose:
//! only receipts.

use serde_json::Value;

use super::handle::TaskHandle;
use super::state::PlanRequest;
use crate::evidence::{Receipt, ReceiptStatus};
use crate::tools::fs::CheckpointStore;
use crate::tools::task::PlanTaskArgs;
use crate::tools::{Effect, lookup};

/// The receipt detail key holding the repair round a call ran in.
pub const ROUND_KEY: &str = "task_round";

impl TaskHandle {
    /// The repair round to stamp on a receipt, when the task is active.
    pub fn round_stamp(&self) -> Option<u32> {
        let state = self.lock();
        state.active().then_some(state.round)
    }

    /// Rebuilds the state from a run's receipts (`(step key, receipt)` in recorded
    /// order), after [`TaskHandle::setup`]. `checkpoints` supplies the files'
    /// content before the run's first write (for diffs); without it, or when a
    /// checkpoint is gone, the diff of that file is against an empty file and a
    /// problem says so.
    pub fn rebuild(&self, receipts: &[(String, Receipt)], checkpoints: Option<&CheckpointStore>) {
        let available = self.available_checks();
        let root = self.root().to_path_buf();
        for (step, receipt) in receipts {
            let detail = &receipt.facts.detail;
            {
                let mut state = self.lock();
                if let Some(round) = detail.get(ROUND_KEY).and_then(Value::as_u64) {
                    let round = u32::try_from(round).unwrap_or(u32::MAX);
                    if round > state.round {
                        // Only a write in a repair step opens a round (the repair gate
                        // let it through); it reopens editing.
                        state.round = round;
                        state.repair_open = true;
                        state.closed = None;
                    }
                }
                if receipt.tool == "plan_task" && receipt.status == ReceiptStatus::Executed {
                    let applied = serde_json::from_value::<PlanTaskArgs>(receipt.args.clone())
                        .map_err(|e| e.to_string())
                        .and_then(|args| {
                            state
                                .apply_plan(
                                    &root,
                                    PlanRequest {
                                        summary: args.summary,
                                        paths: args.paths,
                                        criteria: args.criteria,
                                        check_ids: args.check_ids,
                                        sources: args.sources,
                                    },
                                    &available,
                                    crate::evidence::completion::is_docs,
                                )
                                .map_err(|e| e.to_string())
                        });
                    if let Err(e) = applied {
                        state.problems.push(format!(
                            "a stored plan (step `{step}`) could not be replayed: {e}"
                        ));
                    }
                }
                let writes = lookup(&receipt.tool).is_some_and(|s| s.effect == Effect::Write);
                if writes
                    && matches!(
                        receipt.status,
                        ReceiptStatus::Executed | ReceiptStatus::Failed
                    )
                    && let Some(path) = receipt.facts.path.clone()
                    && !state.originals.contains_key(&path)
                {
                    let original = original_of(receipt, checkpoints);
                    if original.is_none() && receipt.facts.revision_before.is_some() {
                        state.problems.push(format!(
                            "the content of `{path}` before the run is not available (its checkpoint is gone); its diff is incomplete"
                        ));
                    }
                    state.originals.insert(path, original);
                }
            }
            self.observe(step, receipt, None);
        }
    }

    /// The revisions recorded for a check's snapshot, as JSON (for its receipt).
    pub fn snapshot_json(&self, id: u64) -> Value {
        self.lock()
            .snapshots
            .get(&id)
            .and_then(|s| serde_json::to_value(s).ok())
            .unwrap_or(Value::Null)
    }
}

/// The file's content before `receipt`'s write, from its checkpoint.
fn original_of(receipt: &Receipt, checkpoints: Option<&CheckpointStore>) -> Option<Vec<u8>> {
    receipt.facts.revision_before.as_ref()?;
    let id = receipt.facts.detail.get("change_id")?.as_i64()?;
    let change = checkpoints?.get(id).ok()?;
    if change.revision_before.as_ref() != receipt.facts.revision_before.as_ref() {
        return None;
    }
    change.preimage
}
