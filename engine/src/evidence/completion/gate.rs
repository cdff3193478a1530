//! The repair gate and staleness: when may a repair open, and when is a passing
//! result no longer evidence.
//!
//! A repair opens only after a COMPLETED failing final check of the current
//! attempt (not a timeout, a denial, a cancellation or a stale result), when no
//! stop condition was recorded (a denied approval, a canceled call, an uncertain
//! effect), the request's class may change files, and repairs are left.

use super::CompletionInput;
use super::files::{Current, written_path};
use crate::checks::CheckSpec;
use crate::evidence::{LedgerEntry, ReceiptStatus};

/// The files that changed since a check ran: its recorded inputs whose revision
/// differs now, and files the run wrote afterwards that the check depends on.
pub(crate) fn changed_since(
    entry: &LedgerEntry,
    ledger: &[LedgerEntry],
    spec: Option<&CheckSpec>,
    current: &mut Current,
) -> Vec<String> {
    let Some(check) = &entry.check else {
        return Vec::new();
    };
    let mut changed: Vec<String> = check
        .inputs
        .iter()
        .filter(|(path, revision)| current.revision(path) != **revision)
        .map(|(path, _)| path.clone())
        .collect();
    for later in ledger.iter().filter(|e| e.seq > entry.seq) {
        let Some(path) = written_path(later) else {
            continue;
        };
        let depends = check.inputs.contains_key(path)
            || spec.is_some_and(|s| s.depends_on(path).unwrap_or(true));
        if depends && !changed.iter().any(|p| p == path) {
            changed.push(path.to_string());
        }
    }
    changed.sort();
    changed
}

/// The last final execution of each selected check in `round`, in ledger order.
pub(crate) fn final_results<'a>(
    input: &'a CompletionInput<'_>,
    selected: &[String],
    round: Option<u32>,
) -> Vec<&'a LedgerEntry> {
    let mut last: Vec<&LedgerEntry> = Vec::new();
    for entry in input.ledger {
        let Some(check) = &entry.check else { continue };
        if !check.final_check
            || !selected.contains(&check.id)
            || round.is_some_and(|r| r != check.round)
        {
            continue;
        }
        last.retain(|e| e.check.as_ref().is_some_and(|c| c.id != check.id));
        last.push(entry);
    }
    last
}

/// `Ok` when a repair may open now; otherwise why not.
pub(crate) fn repair_gate(
    input: &CompletionInput<'_>,
    selected: &[String],
    current: &mut Current,
) -> Result<(), String> {
    if !input.stops.is_empty() {
        return Err(format!(
            "no repair: the run was stopped ({})",
            input.stops.join("; ")
        ));
    }
    if !input.may_write {
        return Err("no repair: the request's class does not allow changes".into());
    }
    if input.round >= input.repairs_max {
        return Err(format!(
            "no repair: repairs are exhausted ({} of {})",
            input.round, input.repairs_max
        ));
    }
    let results = final_results(input, selected, Some(input.round));
    if results.is_empty() {
        return Err("no repair: no final check completed in this attempt".into());
    }
    let mut failing = 0;
    for entry in &results {
        let Some(check) = &entry.check else { continue };
        if entry.receipt.status != ReceiptStatus::Executed || check.status == "incomplete" {
            return Err(format!(
                "no repair: the final check `{}` did not complete ({}); a repair needs a completed failure",
                check.id, check.status
            ));
        }
        if check.status == "failed" {
            let spec = input.checks.and_then(|c| c.get(&check.id));
            let stale = changed_since(entry, input.ledger, spec, current);
            if !stale.is_empty() {
                return Err(format!(
                    "no repair: the failing result of `{}` is stale ({} changed since)",
                    check.id,
                    stale.join(", ")
                ));
            }
            failing += 1;
        }
    }
    if failing == 0 {
        return Err("no repair: no final check failed".into());
    }
    Ok(())
}
