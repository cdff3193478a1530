//! Changes: first-time pass, repair, exhausted repairs, stale evidence, claims
//! without edits, empty suites, documentation-only changes.

use serde_json::json;

use super::fixtures::*;

#[test]
fn a_fix_that_passes_on_first_verify_is_applied_verified_and_satisfied() {
    let mut turns = plan_calc();
    turns.extend(delegated_edit("calc.py", "return a - b", "return a + b", &rev(BUGGY_CALC)));
    let (ran, report) = run_coding(
        python_project(BUGGY_CALC),
        "Fix add in calc.py so that the tests pass",
        turns,
        &["--approve", "writes"],
        0,
    );
    let c = completion(&report);
    assert_eq!(c["status"], "satisfied", "{c:#}");
    assert_eq!(c["class"], "change");
    assert_eq!(c["applied"], true);
    assert_eq!(c["verified"], true);
    assert_eq!(c["verification"], "passed");
    assert_eq!(c["criteria_supported"], true);
    assert_eq!(counted(c), vec!["python:unittest:passed"]);
    let baseline: Vec<&serde_json::Value> = c["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|k| k["phase"] == "baseline")
        .collect();
    assert_eq!(baseline.len(), 1);
    assert_eq!(baseline[0]["status"], "failed", "the baseline measured the bug");
    assert_eq!(baseline[0]["counted"], false, "baseline never verifies");
    assert_eq!(c["files"][0]["path"], "calc.py");
    assert!(c["files"][0]["diff"].as_str().unwrap().contains("+    return a + b"));
    assert_eq!(c["repairs"]["used"], 0);
    assert_eq!(read(&ran, "calc.py"), FIXED_CALC);
    assert_eq!(report["status"], "succeeded");
}
