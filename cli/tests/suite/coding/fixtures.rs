//! Fixture projects, scripts and the run helper shared by the coding tests.

use serde_json::{Value, json};

use super::super::harness::{Ran, Test};

/// A calculator whose `add` subtracts, with a unittest suite that catches it.
pub const BUGGY_CALC: &str =
    "def add(a, b):\n    return a - b\n\n\ndef divide(a, b):\n    return a / b\n";
/// The same calculator, fixed.
pub const FIXED_CALC: &str =
    "def add(a, b):\n    return a + b\n\n\ndef divide(a, b):\n    return a / b\n";
/// A wrong fix (off by one).
pub const WRONG_CALC: &str =
    "def add(a, b):\n    return a + b + 1\n\n\ndef divide(a, b):\n    return a / b\n";
/// The suite.
pub const CALC_TESTS: &str = "import unittest\n\nimport calc\n\n\nclass CalcTest(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(calc.add(2, 3), 5)\n\n    def test_divide(self):\n        self.assertEqual(calc.divide(9, 3), 3)\n\n\nif __name__ == \"__main__\":\n    unittest.main()\n";

/// The check discovery finds for the Python fixture.
pub const PY_CHECK: &str = "python:unittest";

/// The revision (`sha256:...`) of some text, as `read_file` reports it.
pub fn rev(text: &str) -> String {
    protoflow_engine::evidence::revision_of(text.as_bytes())
}

/// A test directory holding the Python project with `calc` as given.
pub fn python_project(calc: &str) -> Test {
    no_providers(Test::new())
        .file("calc.py", calc)
        .file("tests/test_calc.py", CALC_TESTS)
        .file("README.md", "# calc\n\nA calculator.\n")
}

/// No provider from the machine running the tests leaks in.
pub fn no_providers(test: Test) -> Test {
    [
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "ANTHROPIC_API_KEY",
        "OLLAMA_HOST",
    ]
    .iter()
    .fold(test, |t, var| t.env(var, ""))
}

/// One model turn making one tool call.
pub fn call(name: &str, args: Value) -> Value {
    json!({"tool_calls": [{"name": name, "args": args}]})
}

/// One model turn answering with text.
pub fn say(text: &str) -> Value {
    json!({"text": text})
}

/// A turn that must see `needle` in its request.
pub fn expecting(mut turn: Value, needle: &str) -> Value {
    turn["expect"] = json!([needle]);
    turn
}

/// The architect's plan step for the calculator: plan_task, then a summary.
pub fn plan_calc() -> Vec<Value> {
    vec![
        call(
            "plan_task",
            json!({"summary": "make add return the sum", "paths": ["calc.py"],
                   "criteria": ["add(2, 3) returns 5"], "check_ids": [PY_CHECK]}),
        ),
        say("Plan: fix add in calc.py; prove it with python:unittest."),
    ]
}

/// One delegated edit: the architect calls the coder, who edits `old` -> `new` in
/// `path` at `revision`, reports done, and both finish.
pub fn delegated_edit(path: &str, old: &str, new: &str, revision: &str) -> Vec<Value> {
    vec![
        expecting(
            call(
                "coder",
                json!({"task": format!("In {path}, replace `{old}` with `{new}`.")}),
            ),
            "Task record",
        ),
        expecting(
            call(
                "edit_file",
                json!({"path": path, "old": old, "new": new, "expected_revision": revision}),
            ),
            "Write paths:",
        ),
        call(
            "report_task",
            json!({"status": "done", "summary": format!("{path} edited")}),
        ),
        say("Edited."),
        say("The coder made the change."),
    ]
}

/// Runs `protoflow run coding` in the test's directory with `turns` as the
/// script and `args` added; checks the exit code; returns the run and its report.
pub fn run_coding(
    test: Test,
    task: &str,
    turns: Vec<Value>,
    args: &[&str],
    status: i32,
) -> (Ran, Value) {
    let script = serde_json::to_string_pretty(&json!({ "turns": turns })).unwrap();
    let mut argv: Vec<String> = [
        "run",
        "coding",
        "--provider",
        "scripted:.script.json",
        "--json",
        "--input",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    argv.push(format!("task={task}"));
    argv.extend(args.iter().map(|s| s.to_string()));
    let ran = test
        .file(".script.json", script)
        .args(argv)
        .status(status)
        .run();
    let report: Value = serde_json::from_str(&ran.stdout)
        .unwrap_or_else(|e| panic!("not a JSON report ({e}):\n{}\n{}", ran.stdout, ran.stderr));
    (ran, report)
}

/// The completion verdict of a report.
pub fn completion(report: &Value) -> &Value {
    let c = &report["completion"];
    assert!(c.is_object(), "no completion in the report: {report:#}");
    c
}

/// The statuses of the final (counted) check results.
pub fn counted(completion: &Value) -> Vec<String> {
    completion["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["counted"] == json!(true))
        .map(|c| {
            format!(
                "{}:{}",
                c["id"].as_str().unwrap(),
                c["status"].as_str().unwrap()
            )
        })
        .collect()
}

/// The project file's text after the run.
pub fn read(ran: &Ran, path: &str) -> String {
    std::fs::read_to_string(ran.dir.path().join(path)).unwrap()
}

/// A JavaScript module whose `add` subtracts.
pub const BUGGY_MATH_JS: &str = "function add(a, b) {\n  return a - b;\n}\n\nfunction double(a) {\n  return a * 2;\n}\n\nmodule.exports = { add, double };\n";
/// The same module, fixed.
pub const FIXED_MATH_JS: &str = "function add(a, b) {\n  return a + b;\n}\n\nfunction double(a) {\n  return a * 2;\n}\n\nmodule.exports = { add, double };\n";
/// Its `node:test` suite (no dependencies, nothing to install).
pub const MATH_JS_TESTS: &str = "const test = require('node:test');\nconst assert = require('node:assert');\nconst { add, double } = require('../math.js');\n\ntest('add adds', () => {\n  assert.strictEqual(add(2, 3), 5);\n});\n\ntest('double doubles', () => {\n  assert.strictEqual(double(4), 8);\n});\n";

/// The check discovery finds for the JavaScript fixture.
pub const JS_CHECK: &str = "npm:test";

/// A test directory holding a Node project (`npm test` is `node --test`) with
/// `math.js` as given. No `node_modules`, no network: node's own test runner.
pub fn js_project(math: &str) -> Test {
    no_providers(Test::new())
        .file(
            "package.json",
            "{\n  \"name\": \"math\",\n  \"version\": \"1.0.0\",\n  \"private\": true,\n  \"scripts\": {\"test\": \"node --test\"}\n}\n",
        )
        .file("math.js", math)
        .file("test/math.test.js", MATH_JS_TESTS)
}

/// The verdict of a change request that was applied and verified by its final
/// checks: satisfied, classed as a change, applied, verified, passed.
pub fn assert_verified_change(c: &Value) {
    assert_eq!(c["status"], "satisfied", "{c:#}");
    assert_eq!(c["class"], "change");
    assert_eq!(c["applied"], true);
    assert_eq!(c["verified"], true);
    assert_eq!(c["verification"], "passed");
}
