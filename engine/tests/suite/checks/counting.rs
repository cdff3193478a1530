//! Counting executed tests from real captured runner output (tests/fixtures/check-outputs).

use super::*;

fn captured(name: &str) -> String {
    fs::read_to_string(fixture("check-outputs").join(name)).unwrap()
}

fn count(kind: CheckKind, exit_code: i32, stdout: &str, stderr: &str) -> Option<u64> {
    count_tests_executed(
        kind,
        &CheckOutput {
            exit_code: Some(exit_code),
            stdout,
            stderr,
            truncated: false,
        },
    )
}

#[test]
fn cargo_test_counts_sum_every_test_binary() {
    assert_eq!(
        count(CheckKind::Cargo, 0, &captured("cargo_ok.out"), ""),
        Some(3)
    );
    assert_eq!(
        count(
            CheckKind::Cargo,
            101,
            &captured("cargo_fail_no_fail_fast.out"),
            ""
        ),
        Some(2),
        "1 failed + 1 passed; the ignored test did not run"
    );
}

#[test]
fn cargo_test_with_no_tests_counts_zero() {
    assert_eq!(
        count(CheckKind::Cargo, 0, &captured("cargo_empty.out"), ""),
        Some(0)
    );
}

#[test]
fn cargo_output_without_a_summary_cannot_tell() {
    let stderr = "error[E0425]: cannot find value `x` in this scope\nerror: could not compile `fixture-rust`";
    assert_eq!(count(CheckKind::Cargo, 101, "", stderr), None);
}

#[test]
fn unittest_counts_come_from_ran_minus_skipped() {
    assert_eq!(
        count(CheckKind::Unittest, 0, "", &captured("ut_ok.err")),
        Some(3)
    );
    assert_eq!(
        count(CheckKind::Unittest, 1, "", &captured("ut_fail.err")),
        Some(3),
        "4 ran, 1 skipped"
    );
    assert_eq!(
        count(CheckKind::Unittest, 0, "", &captured("ut_allskip.err")),
        Some(0)
    );
    assert_eq!(
        count(
            CheckKind::Unittest,
            5,
            "",
            &captured("ut_allskip_py3121.err")
        ),
        Some(0)
    );
}

#[test]
fn unittest_empty_suites_count_zero_on_every_python() {
    assert_eq!(
        count(CheckKind::Unittest, 0, "", &captured("ut_empty.err")),
        Some(0)
    );
    assert_eq!(
        count(CheckKind::Unittest, 5, "", &captured("ut_empty_py312.err")),
        Some(0)
    );
    // Discovery from the root of a project whose tests/ is not a package finds nothing.
    assert_eq!(
        count(CheckKind::Unittest, 0, "", &captured("ut_root.err")),
        Some(0)
    );
    // A missing start directory fails before running anything: nothing to count.
    assert_eq!(
        count(CheckKind::Unittest, 1, "", &captured("ut_nodir.err")),
        None
    );
}

#[test]
fn pytest_counts_passed_failed_and_xfail_outcomes_only() {
    assert_eq!(
        count(CheckKind::Pytest, 0, &captured("pt_ok.out"), ""),
        Some(2)
    );
    assert_eq!(
        count(CheckKind::Pytest, 0, &captured("pt_okq.out"), ""),
        Some(2)
    );
    assert_eq!(
        count(CheckKind::Pytest, 1, &captured("pt_mix.out"), ""),
        Some(5),
        "1 failed, 2 passed, 1 xfailed, 1 xpassed"
    );
}

#[test]
fn pytest_empty_skipped_or_deselected_runs_count_zero() {
    assert_eq!(
        count(CheckKind::Pytest, 5, &captured("pt_empty.out"), ""),
        Some(0)
    );
    assert_eq!(
        count(CheckKind::Pytest, 5, &captured("pt_emptyq.out"), ""),
        Some(0)
    );
    assert_eq!(
        count(CheckKind::Pytest, 0, &captured("pt_skiponly.out"), ""),
        Some(0)
    );
    assert_eq!(
        count(CheckKind::Pytest, 5, &captured("pt_desel.out"), ""),
        Some(0)
    );
    assert_eq!(
        count(CheckKind::Pytest, 2, &captured("pt_collect_err.out"), ""),
        Some(0)
    );
    // Exit code 5 alone (summary cut off) still means no tests were collected.
    assert_eq!(
        count(CheckKind::Pytest, 5, "collected 0 items\n", ""),
        Some(0)
    );
    assert_eq!(count(CheckKind::Pytest, 1, "collected 3 items\n", ""), None);
}

#[test]
fn node_test_runner_summaries_are_counted() {
    assert_eq!(
        count(CheckKind::Npm, 0, &captured("node_ok.out"), ""),
        Some(2)
    );
    assert_eq!(
        count(CheckKind::Npm, 0, &captured("node_ok_loud.out"), ""),
        Some(2)
    );
    assert_eq!(
        count(CheckKind::Npm, 1, &captured("node_mix.out"), ""),
        Some(3),
        "2 pass + 1 fail; skipped and todo excluded"
    );
    assert_eq!(
        count(CheckKind::Npm, 1, &captured("node_mix_spec.out"), ""),
        Some(3)
    );
    assert_eq!(
        count(CheckKind::Npm, 0, &captured("node_empty.out"), ""),
        Some(0)
    );
}

#[test]
fn jest_vitest_and_mocha_summaries_are_counted() {
    assert_eq!(
        count(CheckKind::Npm, 0, &captured("jest_ok.out"), ""),
        Some(2)
    );
    assert_eq!(
        count(CheckKind::Npm, 1, &captured("jest_mix.out"), ""),
        Some(2)
    );
    assert_eq!(
        count(CheckKind::Npm, 0, &captured("jest_skip.out"), ""),
        Some(0)
    );
    assert_eq!(
        count(CheckKind::Npm, 1, &captured("jest_none.out"), ""),
        Some(0)
    );
    assert_eq!(
        count(CheckKind::Npm, 0, &captured("jest_none_pass.out"), ""),
        Some(0)
    );
    assert_eq!(
        count(CheckKind::Npm, 0, &captured("vitest_ok.out"), ""),
        Some(2)
    );
    assert_eq!(
        count(CheckKind::Npm, 1, &captured("vitest_mix.out"), ""),
        Some(2)
    );
    assert_eq!(
        count(CheckKind::Npm, 1, &captured("vitest_mix_nocolor.out"), ""),
        Some(4)
    );
    assert_eq!(
        count(CheckKind::Npm, 1, &captured("vitest_none.out"), ""),
        Some(0)
    );
    assert_eq!(
        count(CheckKind::Npm, 0, &captured("vitest_none_pass.out"), ""),
        Some(0)
    );
    assert_eq!(
        count(CheckKind::Npm, 0, &captured("mocha_ok.out"), ""),
        Some(1)
    );
    assert_eq!(
        count(CheckKind::Npm, 1, &captured("mocha_mix.out"), ""),
        Some(2),
        "1 passing + 1 failing; pending excluded"
    );
    assert_eq!(
        count(CheckKind::Npm, 0, &captured("mocha_empty2.out"), ""),
        Some(0)
    );
}

#[test]
fn unknown_output_and_custom_checks_cannot_tell() {
    assert_eq!(count(CheckKind::Npm, 0, "built in 2s\n", ""), None);
    assert_eq!(
        count(CheckKind::Custom, 0, &captured("cargo_ok.out"), ""),
        None
    );
    assert_eq!(
        count(CheckKind::Pytest, 0, &captured("cargo_ok.out"), ""),
        None
    );
}

#[test]
fn a_zero_seen_in_truncated_output_cannot_tell() {
    fn truncated(stdout: &str) -> CheckOutput<'_> {
        CheckOutput {
            exit_code: Some(0),
            stdout,
            stderr: "",
            truncated: true,
        }
    }
    let head_of_cargo = "\nrunning 0 tests\n\ntest result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n\n";
    assert_eq!(
        count_tests_executed(CheckKind::Cargo, &truncated(head_of_cargo)),
        None
    );
    assert_eq!(
        count_tests_executed(CheckKind::Cargo, &truncated(&captured("cargo_ok.out"))),
        Some(3),
        "a positive count is a lower bound"
    );
}
