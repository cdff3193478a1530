//! Changes: first-time pass, repair, exhausted repairs, stale evidence, claims
//! without edits, empty suites, documentation-only changes.

use serde_json::json;

use super::fixtures::*;

#[test]
fn a_fix_that_passes_on_first_verify_is_applied_verified_and_satisfied() {
    let mut turns = plan_calc();
    turns.extend(delegated_edit(
        "calc.py",
        "return a - b",
        "return a + b",
        &rev(BUGGY_CALC),
    ));
    let (ran, report) = run_coding(
        python_project(BUGGY_CALC),
        "Fix add in calc.py so that the tests pass",
        turns,
        &["--approve", "writes"],
        0,
    );
    let c = completion(&report);
    assert_verified_change(c);
    assert_eq!(c["criteria_supported"], true);
    assert_eq!(counted(c), vec!["python:unittest:passed"]);
    let baseline: Vec<&serde_json::Value> = c["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|k| k["phase"] == "baseline")
        .collect();
    assert_eq!(baseline.len(), 1);
    assert_eq!(
        baseline[0]["status"], "failed",
        "the baseline measured the bug"
    );
    assert_eq!(baseline[0]["counted"], false, "baseline never verifies");
    assert_eq!(c["files"][0]["path"], "calc.py");
    assert!(
        c["files"][0]["diff"]
            .as_str()
            .unwrap()
            .contains("+    return a + b")
    );
    assert_eq!(c["repairs"]["used"], 0);
    assert_eq!(read(&ran, "calc.py"), FIXED_CALC);
    assert_eq!(report["status"], "succeeded");
}

#[test]
fn a_failing_fix_is_repaired_once_with_the_measured_failure_then_passes() {
    let mut turns = plan_calc();
    turns.extend(delegated_edit(
        "calc.py",
        "return a - b",
        "return a + b + 1",
        &rev(BUGGY_CALC),
    ));
    let mut repair = delegated_edit(
        "calc.py",
        "return a + b + 1",
        "return a + b",
        &rev(WRONG_CALC),
    );
    // The repair round is told about the measured failure (the task record pins it).
    repair[0] = expecting(repair[0].clone(), "Last failing final check");
    turns.extend(repair);
    let (ran, report) = run_coding(
        python_project(BUGGY_CALC),
        "Fix add in calc.py",
        turns,
        &["--approve", "writes"],
        0,
    );
    let c = completion(&report);
    assert_eq!(c["status"], "satisfied", "{c:#}");
    assert_eq!(c["verification"], "passed");
    assert_eq!(c["repairs"]["used"], 1);
    assert_eq!(counted(c), vec!["python:unittest:passed"]);
    let verify_runs: Vec<(u64, String)> = c["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|k| k["phase"] == "verify")
        .map(|k| {
            (
                k["round"].as_u64().unwrap(),
                k["status"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        verify_runs,
        vec![(0, "failed".into()), (1, "passed".into())]
    );
    assert_eq!(report["loops"][0]["taken"], 1);
    assert_eq!(read(&ran, "calc.py"), FIXED_CALC);
}

#[test]
fn exhausted_repairs_end_incomplete_with_the_edits_kept_and_the_checks_reported() {
    let plus = |n: u32| FIXED_CALC.replace("a + b", &format!("a + b + {n}"));
    let mut turns = plan_calc();
    turns.extend(delegated_edit(
        "calc.py",
        "return a - b",
        "return a + b + 1",
        &rev(BUGGY_CALC),
    ));
    turns.extend(delegated_edit(
        "calc.py",
        "a + b + 1",
        "a + b + 2",
        &rev(&plus(1)),
    ));
    turns.extend(delegated_edit(
        "calc.py",
        "a + b + 2",
        "a + b + 3",
        &rev(&plus(2)),
    ));
    let (ran, report) = run_coding(
        python_project(BUGGY_CALC),
        "Fix add in calc.py",
        turns,
        &["--approve", "writes"],
        1,
    );
    let c = completion(&report);
    assert_eq!(c["status"], "incomplete");
    assert_eq!(c["verification"], "failed");
    assert_eq!(c["applied"], true, "the edits are kept");
    assert_eq!(c["next"], "stop");
    assert_eq!(c["repairs"], json!({"used": 2, "max": 2}));
    let left = c["left"].to_string();
    assert!(left.contains("repairs are exhausted"), "{left}");
    let verify = c["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|k| k["phase"] == "verify")
        .count();
    assert_eq!(verify, 3, "every final verification is reported");
    assert_eq!(read(&ran, "calc.py"), plus(3));
    assert_eq!(report["status"], "failed");
}

#[test]
fn a_source_change_after_a_passing_check_makes_the_evidence_stale() {
    // A configured check that passes, then rewrites the source it just tested
    // (once the fix is in): the pass no longer describes the files.
    let config = r#"{"checks": [{"id": "unit", "argv": ["python3", "check.py"], "kind": "unittest", "purpose": "test", "paths": ["**/*.py"], "env": {"PYTHONDONTWRITEBYTECODE": "1"}}]}"#;
    let check = "import subprocess, sys\nr = subprocess.run([sys.executable, '-m', 'unittest', 'discover', '-s', 'tests'])\nsrc = open('calc.py').read()\nif 'a + b' in src:\n    open('calc.py', 'a').write('# rewritten by the check\\n')\nsys.exit(r.returncode)\n";
    let mut turns = vec![
        call(
            "plan_task",
            json!({"paths": ["calc.py"], "criteria": ["add adds"], "check_ids": ["unit"]}),
        ),
        say("planned"),
    ];
    turns.extend(delegated_edit(
        "calc.py",
        "return a - b",
        "return a + b",
        &rev(BUGGY_CALC),
    ));
    let (_ran, report) = run_coding(
        python_project(BUGGY_CALC)
            .file(".protoflow/project.json", config)
            .file("check.py", check),
        "Fix add in calc.py",
        turns,
        &["--approve", "writes"],
        1,
    );
    let c = completion(&report);
    assert_eq!(c["verification"], "stale", "{c:#}");
    assert_eq!(c["verified"], false);
    assert_eq!(c["status"], "incomplete");
    assert_eq!(counted(c), vec!["unit:stale"]);
    let final_check = c["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["counted"] == true)
        .unwrap();
    assert_eq!(final_check["changed_since"], json!(["calc.py"]));
    assert_eq!(
        c["files"][0]["applied"], false,
        "calc.py changed after the run wrote it"
    );
}

#[test]
fn a_model_that_claims_success_without_any_edit_is_not_applied() {
    let mut turns = plan_calc();
    turns.extend(vec![
        call("coder", json!({"task": "Fix add in calc.py."})),
        call(
            "report_task",
            json!({"status": "done", "summary": "add is fixed and all tests pass"}),
        ),
        say("Fixed add; all tests pass."),
        say("Done: add is fixed and verified."),
    ]);
    let (ran, report) = run_coding(
        python_project(FIXED_CALC),
        "Fix add in calc.py",
        turns,
        &["--approve", "writes"],
        1,
    );
    let c = completion(&report);
    assert_eq!(c["status"], "incomplete");
    assert_eq!(c["applied"], false);
    assert_eq!(c["files"], json!([]));
    assert_eq!(
        c["reports"][0]["status"], "done",
        "the claim is kept as advice"
    );
    assert!(
        c["left"].to_string().contains("no file was changed"),
        "{c:#}"
    );
    assert_eq!(read(&ran, "calc.py"), FIXED_CALC);
}

#[test]
fn a_code_change_checked_by_an_empty_test_suite_is_not_verified() {
    let home = std::env::var("HOME").unwrap_or_default();
    let cargo_home = std::env::var("CARGO_HOME").unwrap_or(format!("{home}/.cargo"));
    let rustup_home = std::env::var("RUSTUP_HOME").unwrap_or(format!("{home}/.rustup"));
    let lib = "pub fn add(a: i32, b: i32) -> i32 {\n    a - b\n}\n";
    let project = no_providers(super::super::harness::Test::new())
        .env("CARGO_HOME", &cargo_home)
        .env("RUSTUP_HOME", &rustup_home)
        .file("Cargo.toml", "[package]\nname = \"adder\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n")
        .file("src/lib.rs", lib);
    let mut turns = vec![
        call(
            "plan_task",
            json!({"paths": ["src/lib.rs"], "criteria": ["add adds"], "check_ids": ["cargo:test"]}),
        ),
        say("planned"),
    ];
    turns.extend(delegated_edit("src/lib.rs", "a - b", "a + b", &rev(lib)));
    let (_ran, report) = run_coding(
        project,
        "Fix add in src/lib.rs",
        turns,
        &["--approve", "writes"],
        1,
    );
    let c = completion(&report);
    assert_eq!(c["applied"], true);
    assert_eq!(c["verified"], false, "{c:#}");
    assert_eq!(c["verification"], "unverified");
    assert_eq!(counted(c), vec!["cargo:test:no_tests"]);
    assert!(c["left"].to_string().contains("executed no tests"), "{c:#}");
    assert_eq!(c["status"], "incomplete");
}

#[test]
fn a_documentation_only_change_completes_applied_but_unverified() {
    let turns = vec![
        call(
            "plan_task",
            json!({"paths": ["README.md"], "criteria": ["the README says what add does"], "check_ids": []}),
        ),
        say("planned"),
        call("coder", json!({"task": "Document add in README.md."})),
        call(
            "replace_file",
            json!({"path": "README.md", "content": "# calc\n\n`add(a, b)` returns a + b.\n"}),
        ),
        call(
            "report_task",
            json!({"status": "done", "summary": "README documents add"}),
        ),
        say("Documented."),
        say("README updated."),
    ];
    let (ran, report) = run_coding(
        python_project(FIXED_CALC),
        "Document add in the README",
        turns,
        &["--approve", "writes"],
        0,
    );
    let c = completion(&report);
    assert_eq!(c["status"], "satisfied", "{c:#}");
    assert_eq!(c["applied"], true);
    assert_eq!(c["verified"], false);
    assert_eq!(c["verification"], "unverified");
    assert!(
        c["left"].to_string().contains("documentation-only"),
        "{c:#}"
    );
    assert!(read(&ran, "README.md").contains("returns a + b"));
}
