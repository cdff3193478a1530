//! `protoflow run verify` (the shipped, model-free main job) and `protoflow checks`:
//! discovered or configured checks run for real, and the exit code is honest.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::Value;

use super::harness::Test;

const CALC: &str = "def add(a, b):\n    return a + b\n";

fn test_file(expected: i32) -> String {
    format!(
        "import unittest\nimport calc\n\nclass CalcTest(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(calc.add(2, 2), {expected})\n"
    )
}

fn report(stdout: &str) -> Value {
    serde_json::from_str(stdout).expect("--json prints the report")
}

#[test]
fn a_passing_project_succeeds_with_each_check_reported() {
    let ran = Test::new()
        .file("calc.py", CALC)
        .file("test_calc.py", test_file(4))
        .args(["run", "verify", "--quiet", "--json"])
        .status(0)
        .run();
    let report = report(&ran.stdout);
    assert_eq!(report["status"], "succeeded");
    let results = &report["outputs"]["results"];
    assert_eq!(results[0]["status"], "passed", "{results:#}");
    assert_eq!(results[0]["tests_executed"], 1);
}

#[test]
fn a_failing_check_fails_the_run_with_exit_code_1() {
    let ran = Test::new()
        .file("calc.py", CALC)
        .file("test_calc.py", test_file(5))
        .args(["run", "verify", "--quiet", "--json"])
        .status(1)
        .run();
    let report = report(&ran.stdout);
    assert_eq!(report["status"], "failed");
}

#[test]
fn a_suite_that_runs_no_tests_is_not_a_pass() {
    Test::new()
        .file("calc.py", CALC)
        .file(
            "test_calc.py",
            "import unittest\n\nclass Empty(unittest.TestCase):\n    pass\n",
        )
        .args(["run", "verify", "--quiet"])
        .status(1)
        .run();
}

#[test]
fn a_yaml_project_config_takes_precedence_over_discovery() {
    Test::new()
        .file("calc.py", CALC)
        .file("test_calc.py", test_file(4))
        .file(
            ".protoflow/project.yaml",
            "checks:\n  - id: smoke\n    argv: [python3, -c, \"print('ok')\"]\n",
        )
        .args(["checks"])
        .status(0)
        .stdout_contains("smoke")
        .stdout_lacks("unittest discover")
        .run();
}

#[test]
fn an_invalid_yaml_project_config_is_located() {
    Test::new()
        .file(
            ".protoflow/project.yaml",
            "checks:\n  - id: smoke\n    argvv: [python3]\n",
        )
        .args(["checks"])
        .status(1)
        .stderr_contains("argvv")
        .stderr_contains("project.yaml:3")
        .run();
}

#[test]
fn a_recipe_extending_verify_can_declare_its_own_checks() {
    let ran = Test::new()
        .file("calc.py", CALC)
        .file("test_calc.py", test_file(5))
        .file(
            "team-verify.yaml",
            "apiVersion: protoflow/v1\nkind: Recipe\nname: team-verify\nextends: verify\nchecks:\n  - id: smoke\n    argv: [python3, -c, \"print('ok')\"]\n",
        )
        .args(["run", "team-verify.yaml", "--quiet", "--json"])
        .status(0)
        .run();
    let report = report(&ran.stdout);
    let results = &report["outputs"]["results"];
    assert_eq!(results.as_array().map(Vec::len), Some(1), "{results:#}");
    assert_eq!(results[0]["check_id"], "smoke");
    assert_eq!(results[0]["status"], "passed");
}

#[test]
fn an_invalid_declared_check_is_located_in_the_recipe() {
    Test::new()
        .file(
            "bad-checks.yaml",
            "apiVersion: protoflow/v1\nkind: Recipe\nname: bad-checks\nextends: verify\nchecks:\n  - id: smoke\n    argv: [python3]\n    cwd: ../outside\n",
        )
        .args(["validate", "bad-checks.yaml"])
        .status(2)
        .stderr_contains("recipe::invalid-check")
        .stderr_contains("bad-checks.yaml:8")
        .run();
}

const ASKS: &str = "apiVersion: protoflow/v1\nkind: Recipe\nname: asks\ncapabilities:\n  process.execute: ask\nsteps:\n  - id: hello\n    tool: execute_command\n    with:\n      argv: [echo, hello]\n";

#[test]
fn headless_runs_deny_what_needs_an_approval_and_say_so() {
    let ran = Test::new()
        .file("asks.yaml", ASKS)
        .args(["run", "asks.yaml", "--quiet", "--json"])
        .status(1)
        .run();
    let report = report(&ran.stdout);
    let text = report.to_string();
    assert!(
        text.contains("denied") || text.contains("approv"),
        "{report:#}"
    );
    assert!(
        !text.contains("\"hello\\n\""),
        "the command did not run: {report:#}"
    );
}

#[test]
fn an_approval_preset_lets_the_call_run() {
    let ran = Test::new()
        .file("asks.yaml", ASKS)
        .args(["run", "asks.yaml", "--quiet", "--json", "--approve", "all"])
        .status(0)
        .run();
    assert!(ran.stdout.contains("hello"), "{}", ran.stdout);
}

#[test]
fn extending_a_recipe_can_narrow_its_ceiling_but_never_widen_it() {
    let widen = "apiVersion: protoflow/v1\nkind: Recipe\nname: wide\nextends: verify\ncapabilities:\n  filesystem.write: allow\n";
    Test::new()
        .file("wide.yaml", widen)
        .args(["validate", "wide.yaml"])
        .status(2)
        .stderr_contains("recipe::ceiling-widened")
        .stderr_contains("wide.yaml:6")
        .run();
    let narrow = "apiVersion: protoflow/v1\nkind: Recipe\nname: narrow\nextends: verify\ncapabilities:\n  process.execute: ask\n  network.read: deny\n";
    Test::new()
        .file("narrow.yaml", narrow)
        .args(["validate", "narrow.yaml"])
        .status(0)
        .run();
}

#[test]
fn a_project_without_checks_is_not_a_pass() {
    Test::new()
        .file("README.md", "nothing to run here\n")
        .args(["run", "verify"])
        .status(1)
        .stderr_contains("nothing was verified")
        .run();
}
