//! The request contract: questions and verification requests never get writes,
//! whatever a worker tries; the class is recorded in the report.

use serde_json::json;

use super::fixtures::*;

#[test]
fn a_question_that_attempts_a_write_is_denied_by_the_contract() {
    let turns = vec![
        call("coder", json!({"task": "Rewrite add in calc.py."})),
        call(
            "edit_file",
            json!({"path": "calc.py", "old": "return a + b", "new": "return 0", "expected_revision": rev(FIXED_CALC)}),
        ),
        say("I could not edit."),
        say("divide is defined in calc.py line 5."),
    ];
    let (ran, report) = run_coding(
        python_project(FIXED_CALC),
        "Where is the divide function defined?",
        turns,
        &["--approve", "all"],
        0,
    );
    assert_eq!(report["outputs"]["request"]["class"], "question");
    let c = completion(&report);
    assert_eq!(c["class"], "question");
    assert_eq!(c["applied"], false);
    let denial = &c["denied"][0];
    assert_eq!(denial["tool"], "edit_file", "{c:#}");
    assert_eq!(denial["by"], "contract");
    assert!(denial["reason"].as_str().unwrap().contains("question"));
    assert_eq!(read(&ran, "calc.py"), FIXED_CALC);
    let checks = c["checks"].as_array().unwrap();
    assert!(checks.is_empty(), "a question runs no commands: {checks:?}");
}

#[test]
fn a_verification_request_that_attempts_an_edit_is_denied_and_its_checks_run() {
    let turns = vec![
        call("plan_task", json!({"check_ids": [PY_CHECK]})),
        call("coder", json!({"task": "Add a test file."})),
        call(
            "create_file",
            json!({"path": "tests/test_more.py", "content": "x = 1\n"}),
        ),
        say("Could not create it."),
        say("Selected python:unittest."),
    ];
    let (ran, report) = run_coding(
        python_project(FIXED_CALC),
        "Run the tests",
        turns,
        &["--approve", "all"],
        0,
    );
    let c = completion(&report);
    assert_eq!(c["class"], "verification", "{c:#}");
    assert_eq!(c["verification"], "passed");
    assert_eq!(c["status"], "satisfied");
    assert_eq!(c["applied"], false);
    assert_eq!(c["denied"][0]["tool"], "create_file");
    assert_eq!(c["denied"][0]["by"], "contract");
    assert!(!ran.dir.path().join("tests/test_more.py").exists());
    assert_eq!(counted(c), vec!["python:unittest:passed"]);
}
