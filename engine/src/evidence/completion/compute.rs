//! The verdict: files, checks, verification status, completion status, next step.

use super::CompletionInput;
use super::files::{Current, changed_files, is_docs};
use super::gate::{changed_since, final_results, repair_gate};
use super::model::{
    CheckResult, Completion, CompletionStatus, Denial, Next, Repairs, Verification,
};
use crate::evidence::ReceiptStatus;

fn status_name(status: ReceiptStatus) -> &'static str {
    match status {
        ReceiptStatus::Executed => "executed",
        ReceiptStatus::Rejected => "rejected",
        ReceiptStatus::Denied => "denied",
        ReceiptStatus::TimedOut => "timed_out",
        ReceiptStatus::Canceled => "canceled",
        ReceiptStatus::Failed => "failed",
    }
}

/// The selected checks: the plan's, or without a plan the final checks that ran.
pub(crate) fn selected_checks(input: &CompletionInput<'_>) -> Vec<String> {
    if input.planned {
        return input.selected.to_vec();
    }
    let mut ids: Vec<String> = Vec::new();
    for check in input.ledger.iter().filter_map(|e| e.check.as_ref()) {
        if check.final_check && !ids.contains(&check.id) {
            ids.push(check.id.clone());
        }
    }
    ids
}

/// Judges a run (see the module docs).
pub fn compute(input: &CompletionInput<'_>) -> Completion {
    let mut current = Current::new(input.root);
    let mut left: Vec<String> = input.problems.to_vec();
    let files = changed_files(input.ledger, input.originals, &mut current);
    let any_change = !files.is_empty();
    let applied = any_change && files.iter().all(|f| f.applied);
    let docs_only = any_change && files.iter().all(|f| is_docs(&f.path));
    for f in files.iter().filter(|f| !f.applied) {
        left.push(format!(
            "`{}` is no longer at the revision the run's last write left",
            f.path
        ));
    }

    let selected = selected_checks(input);

    // Every check execution, as evidence.
    let finals = final_results(input, &selected, None);
    let mut checks: Vec<CheckResult> = Vec::new();
    let mut by_seq = std::collections::HashMap::new();
    let mut denied = Vec::new();
    for entry in input.ledger {
        let r = &entry.receipt;
        if r.status == ReceiptStatus::Denied {
            let by = r
                .facts
                .detail
                .get("denied_by")
                .and_then(|v| v.as_str())
                .unwrap_or("policy");
            denied.push(Denial {
                step: entry.step.clone(),
                tool: r.tool.clone(),
                path: r.facts.path.clone().or_else(|| {
                    r.args
                        .get("path")
                        .and_then(|p| p.as_str())
                        .map(String::from)
                }),
                by: by.to_string(),
                reason: r.reason.clone().unwrap_or_default(),
            });
        }
        let Some(check) = &entry.check else { continue };
        let counted = finals.iter().any(|f| f.seq == entry.seq);
        let mut status = if r.status == ReceiptStatus::Executed {
            check.status.clone()
        } else {
            status_name(r.status).to_string()
        };
        let mut changed = Vec::new();
        if check.final_check && status == "passed" {
            let spec = input.checks.and_then(|c| c.get(&check.id));
            changed = changed_since(entry, input.ledger, spec, &mut current);
            if !changed.is_empty() {
                status = "stale".into();
            }
        }
        by_seq.insert(entry.seq, checks.len());
        checks.push(CheckResult {
            id: check.id.clone(),
            step: entry.step.clone(),
            phase: r.phase.as_str().to_string(),
            requested_phase: check.requested_phase.clone(),
            counted,
            status,
            tests_executed: check.tests_executed,
            exit_code: check.exit_code,
            round: check.round,
            changed_since: changed,
        });
    }

    // The final result of each selected check.
    let mut any_failed = false;
    let mut any_stale = false;
    let mut all_passed = !selected.is_empty();
    let mut tests_ran = false;
    for id in &selected {
        let result = finals
            .iter()
            .find(|f| f.check.as_ref().is_some_and(|k| k.id == *id))
            .and_then(|f| by_seq.get(&f.seq))
            .map(|&i| &checks[i]);
        match result.map(|c| c.status.as_str()) {
            None => {
                all_passed = false;
                if !input.deferred {
                    left.push(format!(
                        "the selected check `{id}` has no final (verify) result"
                    ));
                }
            }
            Some("passed") => {
                tests_ran |= result.and_then(|c| c.tests_executed).is_some_and(|n| n > 0);
            }
            Some("failed") => {
                any_failed = true;
                all_passed = false;
                left.push(format!(
                    "the selected check `{id}` failed in its final execution"
                ));
            }
            Some("stale") => {
                any_stale = true;
                all_passed = false;
                let files = result
                    .map(|c| c.changed_since.join(", "))
                    .unwrap_or_default();
                left.push(format!(
                    "the pass of `{id}` is stale: {files} changed after it ran"
                ));
            }
            Some("no_tests") => {
                all_passed = false;
                left.push(format!(
                    "`{id}` executed no tests: an empty suite verifies nothing"
                ));
            }
            Some(other) => {
                all_passed = false;
                left.push(format!(
                    "the selected check `{id}` did not complete ({other})"
                ));
            }
        }
    }
    let code_change = any_change && !docs_only;
    if all_passed && code_change && !tests_ran {
        all_passed = false;
        left.push(
            "no selected check executed a test: zero tests never verify a code change".into(),
        );
    }
    let verification = if any_failed {
        Verification::Failed
    } else if input.deferred {
        Verification::Deferred
    } else if any_stale {
        Verification::Stale
    } else if all_passed {
        Verification::Passed
    } else {
        Verification::Unverified
    };
    if selected.is_empty()
        && !input.deferred
        && (code_change || (input.may_execute && !input.may_write))
    {
        left.push("no check was selected to verify the request".into());
    }
    let verified = verification == Verification::Passed;
    let criteria_supported = verified && !input.criteria.is_empty();

    // Reports and stops.
    let unresolved: Vec<String> = input
        .reports
        .iter()
        .filter(|r| r.status != "done" && !r.resolved)
        .map(|r| format!("`{}` reported {}: {}", r.by, r.status, r.summary))
        .collect();
    left.extend(unresolved.iter().cloned());
    left.extend(input.stops.iter().map(|s| format!("stopped: {s}")));
    let blocked = !input.problems.is_empty() || !unresolved.is_empty() || !input.stops.is_empty();

    let satisfied = !blocked
        && if input.may_write {
            if !any_change {
                left.push(
                    "no file was changed: a request to change code is not applied by words".into(),
                );
                false
            } else {
                applied
                    && match verification {
                        Verification::Passed | Verification::Deferred => true,
                        Verification::Unverified => docs_only,
                        Verification::Failed | Verification::Stale => false,
                    }
            }
        } else if input.may_execute {
            !any_change && verified
        } else {
            !any_change
        };
    if satisfied && docs_only && verification == Verification::Unverified {
        left.push("a documentation-only change: applied, not verified by any check".into());
    }
    let next = if satisfied {
        Next::Done
    } else if verification == Verification::Failed {
        match repair_gate(input, &selected, &mut current) {
            Ok(()) => Next::Repair,
            Err(why) => {
                left.push(why);
                Next::Stop
            }
        }
    } else {
        Next::Stop
    };
    Completion {
        status: if satisfied {
            CompletionStatus::Satisfied
        } else {
            CompletionStatus::Incomplete
        },
        passed: satisfied,
        class: input.class.map(String::from),
        applied,
        verified,
        verification,
        criteria_supported,
        criteria: input.criteria.to_vec(),
        selected_checks: selected,
        checks,
        files,
        reports: input.reports.to_vec(),
        denied,
        repairs: Repairs {
            used: input.round,
            max: input.repairs_max,
        },
        next,
        left,
    }
}
