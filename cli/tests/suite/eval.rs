//! `protoflow eval`: solved cases and false completions, against an oracle.

use serde_json::{Value, json};

use super::coding::fixtures::{BUGGY_CALC, CALC_TESTS, call, no_providers, plan_calc, rev, say};
use super::harness::Test;

#[test]
fn the_shipped_cases_are_solved_or_honestly_unsolved_with_no_false_completion() {
    let ran = Test::in_repo()
        .args(["eval", "tests/eval", "--json"])
        .status(0)
        .run();
    let report: Value = serde_json::from_str(&ran.stdout).unwrap();
    assert_eq!(report["total"], 3, "{report:#}");
    assert_eq!(report["solved"], 2);
    assert_eq!(report["false_completions"], 0);
    let claim = report["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "claim-without-edit")
        .unwrap();
    assert_eq!(
        claim["claimed"], false,
        "the run did not claim an unearned fix"
    );
    assert_eq!(claim["completion"]["status"], "incomplete");
    assert_eq!(claim["oracle_after"]["passed"], false);
}

#[test]
fn a_run_that_claims_completion_while_the_oracle_fails_is_counted_as_a_false_completion() {
    // The user defers verification and the model's fix is wrong: the run says
    // satisfied (deferred), the oracle says no.
    let mut turns = plan_calc();
    turns.extend(vec![
        call("coder", json!({"task": "Fix add."})),
        call(
            "edit_file",
            json!({"path": "calc.py", "old": "return a - b", "new": "return a * b", "expected_revision": rev(BUGGY_CALC)}),
        ),
        call("report_task", json!({"status": "done", "summary": "fixed"})),
        say("Fixed."),
        say("Done."),
    ]);
    let case = json!({
        "task": "Fix add in calc.py",
        "provider": "scripted:script.json",
        "inputs": {"verification": "deferred"},
        "oracle": ["python3", "-m", "unittest", "discover", "-s", "tests"]
    });
    let ran = no_providers(Test::new())
        .file("cases/wrong-fix/case.json", case.to_string())
        .file(
            "cases/wrong-fix/script.json",
            json!({"turns": turns}).to_string(),
        )
        .file("cases/wrong-fix/project/calc.py", BUGGY_CALC)
        .file("cases/wrong-fix/project/tests/test_calc.py", CALC_TESTS)
        .file(
            "cases/bad-oracle/case.json",
            json!({"task": "x", "provider": "scripted:none.json", "oracle": ["true"]}).to_string(),
        )
        .file("cases/bad-oracle/project/a.txt", "a")
        .args(["eval", "cases", "--json"])
        .status(1)
        .run();
    let report: Value = serde_json::from_str(&ran.stdout).unwrap();
    assert_eq!(report["false_completions"], 1, "{report:#}");
    assert_eq!(
        report["errors"], 1,
        "an oracle that passes before proves nothing"
    );
    let wrong = &report["cases"][1];
    assert_eq!(wrong["name"], "wrong-fix");
    assert_eq!(wrong["claimed"], true);
    assert_eq!(wrong["completion"]["verification"], "deferred");
    assert_eq!(wrong["false_completion"], true);
}
