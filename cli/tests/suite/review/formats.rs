//! The review end to end on the seeded bug: findings parsed from messy answers,
//! deduplicated, grounded, verified and published as JSON, Markdown and SARIF
//! (validated against the official OASIS schema); `--format` names an output.

use serde_json::Value;

use super::{
    SKIP_CLAIM, correctness_finds_the_bug, finder, open_findings, quiet,
    removed_behavior_finds_it_too, report_of, review_args, script, seeded_repo, verifier,
};
use crate::suite::harness::{Test, repo};

/// The seeded bug (twice), an ungrounded security finding, and their verifications.
fn seeded_script() -> String {
    let mut turns = vec![
        correctness_finds_the_bug(),
        removed_behavior_finds_it_too(),
        finder(
            "security",
            r#"[{"file": "src/cart.rs", "line": 13, "severity": "minor", "category": "security", "claim": "prices may overflow when multiplied", "evidence": "price times quantity without checked_mul"}]"#,
        ),
        verifier(SKIP_CLAIM, "confirmed", "skip(1) drops the first line item"),
        verifier("overflow", "uncertain", "no bound on qty is visible"),
    ];
    turns.extend(quiet(&["cross-file", "conventions"]));
    script(turns)
}

#[test]
fn a_seeded_bug_is_parsed_deduplicated_grounded_verified_and_reported_as_json() {
    let ran = seeded_repo()
        .file("script.json", seeded_script())
        .args(review_args(&["--format", "json", "--fail-on", "never"]))
        .status(0)
        .run();
    let report = report_of(&ran);
    assert_eq!(report["verdict"], "FAIL", "{report:#}");
    assert_eq!(report["complete"], true);
    let open = open_findings(&report);
    assert_eq!(open.len(), 2, "the duplicate is folded: {report:#}");

    let bug = open.iter().find(|f| f["claim"] == SKIP_CLAIM).unwrap();
    assert_eq!(bug["severity"], "major", "`high` maps to major");
    assert_eq!(bug["line"], 13);
    assert_eq!(bug["grounding"], "grounded");
    assert_eq!(bug["verdict"], "confirmed");
    assert_eq!(bug["note"], "skip(1) drops the first line item");
    assert_eq!(
        bug["sources"],
        serde_json::json!(["correctness", "removed-behavior"])
    );

    let overflow = open.iter().find(|f| f["category"] == "security").unwrap();
    assert_eq!(overflow["grounding"], "ungrounded");
    assert_eq!(
        overflow["severity"], "nit",
        "an ungrounded minor is downgraded"
    );
    assert_eq!(overflow["downgraded_from"], "minor");
    assert_eq!(overflow["verdict"], "uncertain");
    assert!(
        report["coverage"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["status"] == "ok"),
        "{report:#}"
    );
    assert!(
        !ran.stdout.contains("I read the diff"),
        "raw model prose is never published"
    );
}

#[test]
fn the_markdown_is_a_pr_comment_with_the_verdict_and_links() {
    let ran = seeded_repo()
        .file("script.json", seeded_script())
        .args(review_args(&[
            "--format",
            "markdown",
            "--input",
            "repo_url=https://github.com/octo/shop",
            "--input",
            "head=HEAD",
        ]))
        .status(4)
        .stdout_contains("**Verdict: ❌ FAIL**")
        .stdout_contains("### Major (1)")
        .stdout_contains(
            "[`src/cart.rs:13`](https://github.com/octo/shop/blob/HEAD/src/cart.rs#L13)",
        )
        .stdout_contains("confirmed")
        .stdout_contains("ungrounded evidence · downgraded from minor")
        .stdout_contains("found by: correctness, removed-behavior")
        .stdout_lacks("That is all from this angle")
        .run();
    assert!(
        ran.stdout.starts_with("## protoflow review"),
        "{}",
        ran.stdout
    );
}

/// The official OASIS schema: `../shared/schemas/` beside the repository, else the
/// identical vendored copy in `tests/schemas/` (for checkouts outside that layout).
fn sarif_validator() -> jsonschema::Validator {
    let shared = repo().join("../shared/schemas/sarif-schema-2.1.0.json");
    let path = if shared.exists() {
        shared
    } else {
        repo().join("tests/schemas/sarif-schema-2.1.0.json")
    };
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("the official SARIF schema at {}: {e}", path.display()));
    let schema: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(schema["$schema"], "http://json-schema.org/draft-04/schema#");
    jsonschema::draft4::options()
        .should_validate_formats(true)
        .build(&schema)
        .unwrap()
}

fn schema_errors(validator: &jsonschema::Validator, instance: &Value) -> Vec<String> {
    validator
        .iter_errors(instance)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect()
}

#[test]
fn the_sarif_output_validates_against_the_official_sarif_2_1_0_schema() {
    let ran = seeded_repo()
        .file("script.json", seeded_script())
        .args(review_args(&["--format", "sarif"]))
        .status(4)
        .run();
    let sarif: Value = serde_json::from_str(&ran.stdout).unwrap();
    let validator = sarif_validator();
    assert_eq!(schema_errors(&validator, &sarif), Vec::<String>::new());

    let results = sarif["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), 2);
    let bug = results
        .iter()
        .find(|r| r["ruleId"] == "correctness")
        .unwrap();
    assert_eq!(bug["level"], "error");
    assert_eq!(
        bug["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "src/cart.rs"
    );
    assert_eq!(
        bug["locations"][0]["physicalLocation"]["region"]["startLine"],
        13
    );
    assert!(
        bug["partialFingerprints"]
            .as_object()
            .is_some_and(|f| !f.is_empty())
    );
    assert_eq!(
        sarif["runs"][0]["invocations"][0]["executionSuccessful"],
        true
    );

    // The validator is not a rubber stamp: a broken log fails it.
    let mut broken = sarif.clone();
    broken["runs"][0]["results"][0]["level"] = "fatal".into();
    assert!(!schema_errors(&validator, &broken).is_empty());
    let mut no_version = sarif;
    no_version.as_object_mut().unwrap().remove("version");
    assert!(!schema_errors(&validator, &no_version).is_empty());
}

#[test]
fn format_must_name_an_output_of_the_recipe_and_fail_on_needs_a_fail_on_input() {
    Test::new()
        .args(review_args(&["--format", "html"]))
        .status(2)
        .stderr_contains("has no output `html`")
        .stderr_contains("markdown, sarif, json, verdict")
        .run();
    Test::new()
        .file(
            "r.yaml",
            "apiVersion: protoflow/v1\nkind: Recipe\nname: plain\nsteps:\n  - id: a\n    tool: echo\n    with: {value: 1}\n",
        )
        .args(["run", "r.yaml", "--fail-on", "major"])
        .status(2)
        .stderr_contains("has no `fail_on` input")
        .run();
    Test::new()
        .file("script.json", "[]")
        .args(review_args(&["--fail-on", "sometimes"]))
        .status(2)
        .stderr_contains("fail_on")
        .run();
    Test::new()
        .args(review_args(&["--json", "--format", "sarif"]))
        .status(2)
        .run();
}
