//! Discovered checks run for real on copies of the fixtures, then counted.

use super::*;

/// Runs a discovered check the simple way (the real runner is the run_check tool).
fn run(project: &Path, id: &str, discovery: &Discovery) -> (i32, String, String) {
    let check = discovery.checks.require(id).unwrap();
    let output = Command::new(&check.argv[0])
        .args(&check.argv[1..])
        .current_dir(project.join(&check.cwd))
        .envs(&check.env)
        .env("CARGO_TARGET_DIR", project.join("target"))
        .output()
        .unwrap();
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

fn run_and_count(project: &Path, id: &str) -> (i32, Option<u64>) {
    let discovery = resolve(project);
    let (code, stdout, stderr) = run(project, id, &discovery);
    let kind = discovery.checks.require(id).unwrap().kind;
    let count = count_tests_executed(
        kind,
        &CheckOutput {
            exit_code: Some(code),
            stdout: &stdout,
            stderr: &stderr,
            truncated: false,
        },
    );
    (code, count)
}

#[test]
fn discovered_unittest_check_runs_the_fixture_tests() {
    let dir = fixture_copy("python-unittest");
    assert_eq!(run_and_count(dir.path(), "python:unittest"), (0, Some(3)));
}

#[test]
fn the_bootstrap_check_counts_nothing_until_a_change_adds_tests() {
    let dir = fixture_copy("python-no-tests");
    let (code, count) = run_and_count(dir.path(), "python:unittest-bootstrap");
    assert_ne!(code, 0, "no tests/ yet: the bootstrap check fails");
    assert_eq!(count, None);
    write(
        dir.path(),
        "tests/test_app.py",
        "import unittest\nimport app\n\nclass T(unittest.TestCase):\n    def test_greet(self):\n        self.assertEqual(app.greet('x'), 'Hello, x!')\n",
    );
    // The project now has tests, so discovery offers plain unittest; the bootstrap argv
    // still runs them.
    let discovery = resolve(dir.path());
    assert_eq!(ids(&discovery), ["python:unittest"]);
    assert_eq!(
        discovery.checks.get("python:unittest").unwrap().argv[..6],
        strings(&["python3", "-m", "unittest", "discover", "-s", "tests"])[..]
    );
    assert_eq!(run_and_count(dir.path(), "python:unittest"), (0, Some(1)));
}

#[test]
fn discovered_npm_test_check_runs_node_test() {
    let dir = fixture_copy("npm-project");
    assert_eq!(run_and_count(dir.path(), "npm:test"), (0, Some(2)));
}

#[test]
fn discovered_cargo_check_runs_the_fixture_tests() {
    let dir = fixture_copy("rust-project");
    assert_eq!(run_and_count(dir.path(), "cargo:test"), (0, Some(3)));
}
