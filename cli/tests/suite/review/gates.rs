//! The review's gates: `--fail-on` maps the verdict to exit code 4, a finder that
//! times out or fails is a coverage gap (exit 1, listed in the Markdown), an
//! ungrounded quote cannot fail a review, and a prior round settles a point.

use serde_json::json;

use super::{
    SKIP_CLAIM, correctness_finds_the_bug, finder, open_findings, quiet, recipe, report_of,
    review_args, script, seeded_repo, verifier,
};

/// The seeded bug from one finder, confirmed; every other angle finds nothing.
fn confirmed_bug() -> String {
    let mut turns = vec![
        correctness_finds_the_bug(),
        verifier(SKIP_CLAIM, "confirmed", "reproduced with two items"),
    ];
    turns.extend(quiet(&[
        "removed-behavior",
        "cross-file",
        "conventions",
        "security",
    ]));
    script(turns)
}

#[test]
fn the_exit_code_follows_fail_on() {
    for (flags, code) in [
        (vec!["--fail-on", "major"], 4),
        (vec!["--fail-on", "minor"], 4),
        (vec!["--fail-on", "blocker"], 0),
        (vec!["--fail-on", "never"], 0),
        (vec!["--input", "fail_on=major"], 4),
        (vec![], 4),
    ] {
        let ran = seeded_repo()
            .file("script.json", confirmed_bug())
            .args(review_args(&flags))
            .run();
        assert_eq!(ran.status, code, "{flags:?}\n{}", ran.stderr);
    }
}

#[test]
fn a_finder_that_times_out_or_fails_is_a_coverage_gap_never_no_findings() {
    // The shipped recipe with a short finder timeout, so a stalled model times out.
    let short = format!(
        "apiVersion: protoflow/v1\nkind: Recipe\nname: short-review\nextends: {}\nsteps:\n  - id: find\n    timeout: 2s\n",
        recipe()
    );
    let mut turns = vec![
        json!({"expect": ["Angle: security."], "delay_ms": 600000, "text": "[]"}),
        json!({"expect": ["Angle: conventions."], "error": "upstream model overloaded"}),
    ];
    turns.extend(quiet(&["correctness", "removed-behavior", "cross-file"]));
    let ran = seeded_repo()
        .file("short.yaml", short)
        .file("script.json", script(turns))
        .args([
            "run",
            "short.yaml",
            "--provider",
            "scripted:script.json",
            "--approve",
            "reads-only",
            "--format",
            "markdown",
        ])
        .status(1)
        .stdout_contains("(incomplete: coverage gaps below)")
        .stdout_contains("### Coverage gaps")
        .stdout_contains("`security`: timed out")
        .stdout_contains("`conventions`: failed")
        .stdout_contains("not reviewed")
        .stderr_contains("gate (incomplete): coverage gaps: conventions, security")
        .run();
    assert!(ran.stdout.contains("No open findings."), "{}", ran.stdout);
}

#[test]
fn a_gap_does_not_hide_findings_over_the_threshold() {
    let mut turns = vec![
        correctness_finds_the_bug(),
        verifier(SKIP_CLAIM, "confirmed", "reproduced"),
        json!({"expect": ["Angle: security."], "error": "upstream model overloaded"}),
    ];
    turns.extend(quiet(&["removed-behavior", "cross-file", "conventions"]));
    let ran = seeded_repo()
        .file("script.json", script(turns))
        .args(review_args(&["--format", "json"]))
        .status(4)
        .run();
    let report = report_of(&ran);
    assert_eq!(report["complete"], false);
    assert_eq!(report["verdict"], "FAIL");
}

#[test]
fn an_ungrounded_quote_is_downgraded_and_cannot_fail_the_review() {
    let mut turns = vec![
        finder(
            "correctness",
            r#"[{"file": "src/cart.rs", "line": 13, "severity": "blocker", "category": "correctness", "claim": "total() drops an item", "evidence": "the loop now starts at the second element"}]"#,
        ),
        verifier("drops an item", "confirmed", "looks right"),
    ];
    turns.extend(quiet(&[
        "removed-behavior",
        "cross-file",
        "conventions",
        "security",
    ]));
    let ran = seeded_repo()
        .file("script.json", script(turns))
        .args(review_args(&["--format", "json"]))
        .status(0)
        .run();
    let report = report_of(&ran);
    let finding = &open_findings(&report)[0];
    assert_eq!(finding["grounding"], "ungrounded");
    assert_eq!(finding["severity"], "major");
    assert_eq!(finding["downgraded_from"], "blocker");
    assert_eq!(report["verdict"], "WARN", "{report:#}");
}

#[test]
fn prior_findings_suppress_a_settled_duplicate() {
    let prior = json!({"verdict": "PASS", "findings": [{
        "file": "src/cart.rs", "line": 12, "severity": "major", "category": "correctness",
        "claim": SKIP_CLAIM, "evidence": "skip(1)", "verdict": "refuted",
        "note": "the first line is the cart header"
    }]});
    let mut turns = vec![correctness_finds_the_bug()];
    turns.extend(quiet(&[
        "removed-behavior",
        "cross-file",
        "conventions",
        "security",
    ]));
    let ran = seeded_repo()
        .file("review/prior.json", prior.to_string())
        .file("script.json", script(turns))
        .args(review_args(&[
            "--format",
            "json",
            "--input",
            "prior=review/prior.json",
        ]))
        .status(0)
        .run();
    let report = report_of(&ran);
    assert_eq!(report["suppressed"], 1, "{report:#}");
    assert_eq!(report["findings"], json!([]));
    assert_eq!(report["verdict"], "PASS");

    // A prior report that cannot be read is an error, not a silent first round.
    seeded_repo()
        .file("script.json", confirmed_bug())
        .args(review_args(&["--input", "prior=review/missing.json"]))
        .status(1)
        .run();
}
