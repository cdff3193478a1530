//! A JavaScript project: `npm test` (node's own test runner) is discovered as a
//! check, measures the bug at baseline and verifies the fix with a counted number
//! of executed tests.

use serde_json::json;

use super::fixtures::*;

#[test]
fn a_js_fix_is_verified_by_npm_test_with_the_executed_tests_counted() {
    let mut turns = vec![
        call(
            "plan_task",
            json!({"summary": "make add return the sum", "paths": ["math.js"],
                   "criteria": ["add(2, 3) returns 5"], "check_ids": [JS_CHECK]}),
        ),
        say("Plan: fix add in math.js; prove it with npm:test."),
    ];
    turns.extend(delegated_edit(
        "math.js",
        "return a - b;",
        "return a + b;",
        &rev(BUGGY_MATH_JS),
    ));
    let (ran, report) = run_coding(
        js_project(BUGGY_MATH_JS),
        "Fix add in math.js so that npm test passes",
        turns,
        &["--approve", "writes"],
        0,
    );
    let c = completion(&report);
    assert_verified_change(c);
    assert_eq!(c["selected_checks"], json!([JS_CHECK]));
    assert_eq!(counted(c), vec!["npm:test:passed"]);
    let checks = c["checks"].as_array().unwrap();
    let final_check = checks.iter().find(|k| k["counted"] == true).unwrap();
    assert_eq!(
        final_check["tests_executed"], 2,
        "both node tests ran in the final verification: {final_check:#}"
    );
    let baseline = checks.iter().find(|k| k["phase"] == "baseline").unwrap();
    assert_eq!(baseline["id"], JS_CHECK);
    assert_eq!(
        baseline["status"], "failed",
        "the baseline measured the bug"
    );
    assert_eq!(baseline["tests_executed"], 2);
    assert_eq!(baseline["counted"], false, "baseline never verifies");
    assert_eq!(c["files"][0]["path"], "math.js");
    assert_eq!(read(&ran, "math.js"), FIXED_MATH_JS);
    assert_eq!(report["status"], "succeeded");
}
