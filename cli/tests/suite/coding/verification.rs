//! What the user and the approver decide: deferred verification, denied approvals.

use serde_json::json;

use super::fixtures::*;

#[test]
fn a_user_who_defers_verification_gets_an_applied_change_with_verification_deferred() {
    let mut turns = plan_calc();
    turns.extend(delegated_edit(
        "calc.py",
        "return a - b",
        "return a + b",
        &rev(BUGGY_CALC),
    ));
    let (ran, report) = run_coding(
        python_project(BUGGY_CALC),
        "Fix add in calc.py",
        turns,
        &["--approve", "writes", "--input", "verification=deferred"],
        0,
    );
    let c = completion(&report);
    assert_eq!(c["status"], "satisfied", "{c:#}");
    assert_eq!(c["verification"], "deferred");
    assert_eq!(c["verified"], false);
    assert_eq!(c["applied"], true);
    assert!(counted(c).is_empty(), "no final check ran");
    assert_eq!(read(&ran, "calc.py"), FIXED_CALC);
}

#[test]
fn a_denied_approval_stops_the_run_without_a_repair() {
    let mut turns = plan_calc();
    turns.extend(vec![
        call("coder", json!({"task": "Fix add in calc.py."})),
        call(
            "edit_file",
            json!({"path": "calc.py", "old": "return a - b", "new": "return a + b", "expected_revision": rev(BUGGY_CALC)}),
        ),
        call("report_task", json!({"status": "blocked", "summary": "the write was denied"})),
        say("Blocked: the write was denied."),
        say("The change could not be made."),
    ]);
    // No --approve: a headless run approves nothing.
    let (ran, report) = run_coding(
        python_project(BUGGY_CALC),
        "Fix add in calc.py",
        turns,
        &[],
        1,
    );
    let c = completion(&report);
    assert_eq!(c["status"], "incomplete");
    assert_eq!(c["next"], "stop", "{c:#}");
    assert_eq!(c["denied"][0]["by"], "approver");
    assert_eq!(c["repairs"]["used"], 0);
    assert_eq!(report["loops"][0]["taken"], 0, "no repair round");
    let left = c["left"].to_string();
    assert!(left.contains("approval was denied"), "{left}");
    assert!(
        left.contains("blocked"),
        "the unresolved report is left: {left}"
    );
    assert_eq!(read(&ran, "calc.py"), BUGGY_CALC);
}

#[test]
fn the_tester_is_turned_off_by_an_input() {
    let mut turns = plan_calc();
    // The architect reaches for the tester: with `tester=false` it is not offered.
    turns.push(call(
        "tester",
        json!({"task": "Pin add(2, 3) == 5 in a test."}),
    ));
    let mut edit = delegated_edit("calc.py", "return a - b", "return a + b", &rev(BUGGY_CALC));
    edit[0] = expecting(edit[0].clone(), "there is no tool named `tester`");
    turns.extend(edit);
    let (ran, report) = run_coding(
        python_project(BUGGY_CALC),
        "Fix add in calc.py",
        turns,
        &["--approve", "writes", "--input", "tester=false"],
        0,
    );
    let c = completion(&report);
    assert_eq!(c["status"], "satisfied", "{c:#}");
    assert_eq!(read(&ran, "calc.py"), FIXED_CALC);
}
