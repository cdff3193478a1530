//! Observing receipts: the ledger grows, and the task's state follows the
//! evidence — the plan freezes at the first write or the first final check, a
//! final check closes editing, denied approvals, cancellations and uncertain
//! effects stop the run, worker reports are recorded (as advice).
//!
//! Called by the run's tool invoker for every call that reached a tool, and by the
//! agent loop for the calls it refused itself.

use serde_json::Value;

use super::handle::TaskHandle;
use crate::evidence::{CheckRun, LedgerEntry, Receipt, ReceiptStatus, WorkerReport};
use crate::policy::Phase;
use crate::tools::{Effect, lookup};

/// Characters of a check's output kept for a repair.
const TAIL_CHARS: usize = 1_500;

fn tail(text: &str, chars: usize) -> String {
    let count = text.chars().count();
    text.chars().skip(count.saturating_sub(chars)).collect()
}

/// The end of a check's output kept for a repair (on its receipt, too).
pub fn output_tail(stdout: &str, stderr: &str) -> String {
    tail(&format!("{stdout}{stderr}"), TAIL_CHARS)
}

fn text_of(value: Option<&Value>, key: &str) -> String {
    value
        .and_then(|v| v.get(key))
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

fn strings(value: Option<&Value>) -> Vec<String> {
    value
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(String::from)
                .collect()
        })
        .unwrap_or_default()
}

impl TaskHandle {
    /// Records one receipt (and, for a check, its result value).
    pub fn observe(&self, step: &str, receipt: &Receipt, value: Option<&Value>) {
        let detail = &receipt.facts.detail;
        let str_of = |key: &str| {
            detail
                .get(key)
                .and_then(Value::as_str)
                .or_else(|| receipt.args.get(key).and_then(Value::as_str))
                .map(String::from)
        };
        let mut state = self.lock();
        let seq = state.ledger.len() as u64 + 1;
        let effect = lookup(&receipt.tool).map(|s| s.effect);
        let mut check = None;
        if receipt.tool == "run_check" {
            let id = str_of("check_id").unwrap_or_default();
            let requested = str_of("phase").unwrap_or_default();
            let final_check = receipt.phase == Phase::Verify && requested == "verify";
            // The snapshot taken when the check started; a receipt replayed by a
            // resumed run carries it itself.
            let inputs = detail
                .get("snapshot_id")
                .and_then(Value::as_u64)
                .and_then(|n| state.snapshots.remove(&n))
                .or_else(|| {
                    detail
                        .get("inputs")
                        .and_then(|v| serde_json::from_value(v.clone()).ok())
                })
                .unwrap_or_default();
            let status = if receipt.status == ReceiptStatus::Executed {
                str_of("status").unwrap_or_else(|| "incomplete".into())
            } else {
                serde_json::to_value(receipt.status)
                    .ok()
                    .and_then(|v| v.as_str().map(String::from))
                    .unwrap_or_default()
            };
            let output_tail = match value {
                Some(_) => output_tail(&text_of(value, "stdout"), &text_of(value, "stderr")),
                None => text_of(Some(detail), "output_tail"),
            };
            let run = CheckRun {
                tests_executed: detail.get("tests_executed").and_then(Value::as_u64),
                exit_code: receipt.facts.exit_code,
                round: state.round,
                inputs,
                output_tail,
                id: id.clone(),
                requested_phase: requested,
                final_check,
                status: status.clone(),
            };
            let ran = matches!(
                receipt.status,
                ReceiptStatus::Executed | ReceiptStatus::TimedOut | ReceiptStatus::Canceled
            );
            if final_check && ran {
                state
                    .frozen
                    .get_or_insert_with(|| format!("the first final check (`{id}`)"));
                state.closed = Some(format!("the final check `{id}` ran"));
                state.repair_open = false;
                if status == "failed" {
                    state.last_failure = Some(format!(
                        "`{id}` failed (exit {}):\n{}",
                        receipt
                            .facts
                            .exit_code
                            .map_or("none".to_string(), |c| c.to_string()),
                        run.output_tail
                    ));
                }
            }
            check = Some(run);
        }
        match receipt.status {
            ReceiptStatus::Denied
                if detail.get("denied_by").and_then(Value::as_str) == Some("approver") =>
            {
                let what = receipt.facts.path.clone().or_else(|| str_of("path"));
                state.stops.push(format!(
                    "an approval was denied for `{}`{}: {}",
                    receipt.tool,
                    what.map(|p| format!(" on `{p}`")).unwrap_or_default(),
                    receipt.reason.clone().unwrap_or_default()
                ));
            }
            ReceiptStatus::Canceled => state.stops.push(format!("`{}` was canceled", receipt.tool)),
            ReceiptStatus::Failed if effect == Some(Effect::Write) => state.stops.push(format!(
                "`{}` failed while writing: its effect is uncertain",
                receipt.tool
            )),
            _ => {}
        }
        if receipt.status == ReceiptStatus::Executed {
            let path = receipt.facts.path.clone();
            if effect == Some(Effect::Write) && receipt.facts.revision_after.is_some() {
                let p = path.clone().unwrap_or_default();
                state
                    .frozen
                    .get_or_insert_with(|| format!("the first write (`{p}`)"));
            }
            if receipt.tool == "read_file"
                && let Some(p) = path
            {
                state.reads.insert(p);
            }
            if receipt.tool == "report_task" {
                let by = step.rsplit_once('#').map_or(step, |(s, _)| s).to_string();
                let status = str_of("status").unwrap_or_default();
                if status == "done" {
                    for earlier in state.reports.iter_mut().filter(|r| r.by == by) {
                        earlier.resolved = true;
                    }
                }
                state.reports.push(WorkerReport {
                    seq,
                    by,
                    status,
                    summary: str_of("summary").unwrap_or_default(),
                    missing_paths: strings(receipt.args.get("missing_paths")),
                    resolved: false,
                });
            }
        }
        state.ledger.push(LedgerEntry {
            seq,
            step: step.to_string(),
            receipt: receipt.clone(),
            check,
        });
    }
}
