//! Rendering: the Markdown PR comment (snapshot) and SARIF 2.1.0 validated against
//! the official OASIS schema.

use protoflow_engine::findings::merge::assign_ids;
use protoflow_engine::findings::render::FINGERPRINT_KEY;
use protoflow_engine::findings::{
    Coverage, CoverageStatus, Finding, Grounding, Rejected, RenderOptions, Report, ReportInput,
    Severity, Suppressed, Verdict, VerdictUpdate, build_report, render_markdown, render_sarif,
};
use serde_json::Value;

use super::{checked, finding};

fn sourced(mut f: Finding, sources: &[&str]) -> Finding {
    f.sources = sources.iter().map(|s| s.to_string()).collect();
    f
}

fn fixture_input() -> ReportInput {
    let sql = sourced(
        checked(
            finding(
                "src/db.rs",
                5,
                Severity::Blocker,
                "security",
                "SQL injection: `name` is formatted into the query",
                "let sql = format!(\"SELECT * FROM users WHERE name = '{}'\", name);",
            ),
            Grounding::Grounded,
            None,
        ),
        &["security"],
    );
    let mut total = sourced(
        checked(
            finding(
                "src/cart.rs",
                11,
                Severity::Blocker,
                "correctness",
                "total() skips the first item",
                "self.items.iter().skip(1).map(|i| i.price * i.qty).sum()",
            ),
            Grounding::Grounded,
            None,
        ),
        &["correctness", "removed-behavior"],
    );
    total.end_line = Some(12);
    let mut tests = sourced(
        checked(
            finding(
                "src/cart.rs",
                0,
                Severity::Minor,
                "tests",
                "No test covers Cart::total",
                "the tests never call total",
            ),
            Grounding::Ungrounded,
            None,
        ),
        &["tests"],
    );
    tests.downgraded_from = Some(Severity::Major);
    let style = sourced(
        checked(
            finding(
                "src/cart.rs",
                15,
                Severity::Nit,
                "conventions",
                "Ping @maintainers: prefer a constant <b>SAVE10</b>",
                "code.eq_ignore_ascii_case(\"save10\")",
            ),
            Grounding::Grounded,
            Some(Verdict::Uncertain),
        ),
        &["conventions"],
    );
    let refuted = sourced(
        checked(
            finding(
                "src/db.rs",
                6,
                Severity::Major,
                "correctness",
                "query result is ignored",
                "conn.query(&sql, &[])",
            ),
            Grounding::Grounded,
            None,
        ),
        &["correctness"],
    );
    let mut findings = vec![sql, total, tests, style, refuted];
    assign_ids(&mut findings);
    let verdicts = vec![
        VerdictUpdate {
            id: findings[1].id.clone().unwrap(),
            verdict: Verdict::Confirmed,
            note: Some("Reproduced: total of [3, 4] is 4.".into()),
        },
        VerdictUpdate {
            id: findings[4].id.clone().unwrap(),
            verdict: Verdict::Refuted,
            note: Some("The result is returned to the caller.".into()),
        },
    ];
    let suppressed_finding = finding(
        "src/cart.rs",
        14,
        Severity::Minor,
        "correctness",
        "discount is case-insensitive",
        "e",
    );
    ReportInput {
        findings,
        verdicts,
        coverage: vec![
            Coverage {
                source: "correctness".into(),
                status: CoverageStatus::Ok,
                reason: None,
            },
            Coverage {
                source: "security".into(),
                status: CoverageStatus::Ok,
                reason: None,
            },
            Coverage {
                source: "cross-file".into(),
                status: CoverageStatus::TimedOut,
                reason: Some("step exceeded its 300 s limit".into()),
            },
        ],
        rejected: vec![Rejected {
            source: Some("conventions".into()),
            index: Some(2),
            raw: "{\"claim\": \"secret raw model text\"}".into(),
            reason: "missing required field `evidence`".into(),
        }],
        suppressed: vec![Suppressed {
            finding: suppressed_finding,
            prior_claim: "discount codes are case-insensitive".into(),
            reason: "refuted".into(),
        }],
        dropped_ungrounded: Vec::new(),
    }
}

fn fixture_report() -> Report {
    build_report(fixture_input())
}

fn linked() -> RenderOptions {
    RenderOptions {
        base_url: Some("https://github.com/acme/shop/".into()),
        head_sha: Some("0123456789abcdef0123456789abcdef01234567".into()),
        ..RenderOptions::default()
    }
}

#[test]
fn the_report_counts_and_verdict_follow_the_findings() {
    let report = fixture_report();
    assert_eq!(report.verdict.as_str(), "FAIL");
    assert!(!report.complete);
    assert_eq!(
        (
            report.counts.blocker,
            report.counts.minor,
            report.counts.nit
        ),
        (2, 1, 1)
    );
    assert_eq!(report.counts.refuted, 1);
    assert_eq!(report.counts.ungrounded, 1);
    assert_eq!(report.suppressed, 1);
    assert!(
        report.rejected.iter().all(|r| r.raw.is_empty()),
        "raw model text never reaches a report"
    );
    assert!(report.unmatched_verdicts.is_empty());
}

#[test]
fn the_markdown_comment() {
    insta::assert_snapshot!(render_markdown(&fixture_report(), &linked()));
}

#[test]
fn markdown_links_only_with_a_base_url_and_head_sha() {
    let md = render_markdown(&fixture_report(), &RenderOptions::default());
    assert!(!md.contains("]("), "{md}");
    assert!(md.contains("`src/cart.rs:11-12`"));
    let linked = render_markdown(&fixture_report(), &linked());
    assert!(linked.contains(
        "[`src/cart.rs:11-12`](https://github.com/acme/shop/blob/0123456789abcdef0123456789abcdef01234567/src/cart.rs#L11-L12)"
    ));
}

#[test]
fn markdown_escapes_model_text_and_never_shows_raw_output() {
    let md = render_markdown(&fixture_report(), &RenderOptions::default());
    assert!(md.contains("Ping &#64;maintainers: prefer a constant &lt;b&gt;SAVE10&lt;/b&gt;"));
    assert!(!md.contains("@maintainers"));
    assert!(!md.contains("secret raw model text"));
}

#[test]
fn markdown_lists_coverage_gaps_as_gaps() {
    let md = render_markdown(&fixture_report(), &RenderOptions::default());
    assert!(md.contains("(incomplete: coverage gaps below)"));
    assert!(md.contains("- `cross-file`: timed out — step exceeded its 300 s limit"));
}

#[test]
fn markdown_respects_the_size_cap() {
    let mut input = fixture_input();
    let filler = input.findings[0].clone();
    for i in 0..200 {
        let mut f = filler.clone();
        f.line = 100 + i;
        f.claim = format!("finding number {i} with a long claim {}", "x".repeat(200));
        input.findings.push(f);
    }
    let options = RenderOptions {
        max_chars: 8_000,
        ..RenderOptions::default()
    };
    let md = render_markdown(&build_report(input), &options);
    assert!(md.len() <= 8_000 + 200, "{}", md.len());
    assert!(md.contains("more findings not shown (comment size limit)"));
}

/// The workplace copy of the official schema, when this checkout sits beside it.
const SHARED_SARIF_SCHEMA: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../shared/schemas/sarif-schema-2.1.0.json"
);
/// The same file, checked in (tests/schemas/README.md).
const VENDORED_SARIF_SCHEMA: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../tests/schemas/sarif-schema-2.1.0.json"
);

#[test]
fn the_checked_in_sarif_schema_is_the_official_one() {
    let vendored = std::fs::read(VENDORED_SARIF_SCHEMA).unwrap();
    if let Ok(shared) = std::fs::read(SHARED_SARIF_SCHEMA) {
        assert_eq!(
            shared, vendored,
            "tests/schemas/ must hold the official file unchanged"
        );
    }
    let schema: Value = serde_json::from_slice(&vendored).unwrap();
    assert_eq!(
        schema["title"],
        "Static Analysis Results Format (SARIF) Version 2.1.0 JSON Schema"
    );
}

fn sarif_validator() -> jsonschema::Validator {
    let path = if std::path::Path::new(SHARED_SARIF_SCHEMA).exists() {
        SHARED_SARIF_SCHEMA
    } else {
        VENDORED_SARIF_SCHEMA
    };
    let text = std::fs::read_to_string(path).expect("the official SARIF schema is readable");
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
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect()
}

#[test]
fn sarif_validates_against_the_official_schema_and_a_broken_log_does_not() {
    let validator = sarif_validator();
    let sarif = render_sarif(&fixture_report());
    assert_eq!(schema_errors(&validator, &sarif), Vec::<String>::new());

    let mut wrong_version = sarif.clone();
    wrong_version["version"] = "2.0.0".into();
    assert!(!schema_errors(&validator, &wrong_version).is_empty());
    let mut wrong_level = sarif.clone();
    wrong_level["runs"][0]["results"][0]["level"] = "fatal".into();
    assert!(!schema_errors(&validator, &wrong_level).is_empty());
    let mut no_line = sarif;
    no_line["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] =
        0.into();
    assert!(!schema_errors(&validator, &no_line).is_empty());
}

#[test]
fn an_empty_review_is_valid_sarif_too() {
    let sarif = render_sarif(&build_report(ReportInput::default()));
    assert_eq!(
        schema_errors(&sarif_validator(), &sarif),
        Vec::<String>::new()
    );
    assert_eq!(sarif["runs"][0]["results"], serde_json::json!([]));
}

#[test]
fn sarif_has_what_github_code_scanning_needs() {
    let sarif = render_sarif(&fixture_report());
    assert_eq!(sarif["version"], "2.1.0");
    let run = &sarif["runs"][0];
    let driver = &run["tool"]["driver"];
    assert_eq!(driver["name"], "protoflow");
    assert!(
        driver["informationUri"]
            .as_str()
            .unwrap()
            .starts_with("https://")
    );
    let rules = driver["rules"].as_array().unwrap();
    assert_eq!(rules.len(), 6, "one rule per known category");
    let results = run["results"].as_array().unwrap();
    assert_eq!(results.len(), 4, "the refuted finding is omitted");
    for r in results {
        let index = r["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(r["ruleId"], rules[index]["id"]);
        assert!(rules[index]["defaultConfiguration"]["level"].is_string());
        assert!(rules[index]["shortDescription"]["text"].is_string());
        let loc = &r["locations"][0]["physicalLocation"];
        let uri = loc["artifactLocation"]["uri"].as_str().unwrap();
        assert!(uri.starts_with("src/") && !uri.contains('\\'));
        assert_eq!(loc["artifactLocation"]["uriBaseId"], "%SRCROOT%");
        assert!(loc["region"]["startLine"].as_u64().unwrap() >= 1);
        assert_eq!(
            r["partialFingerprints"][FINGERPRINT_KEY]
                .as_str()
                .unwrap()
                .len(),
            64
        );
        assert!(r["message"]["text"].as_str().unwrap().len() > 10);
    }
    let level_of = |claim_part: &str| {
        results
            .iter()
            .find(|r| r["message"]["text"].as_str().unwrap().contains(claim_part))
            .map(|r| (r["level"].as_str().unwrap().to_owned(), r))
            .unwrap()
    };
    let (sql, sql_result) = level_of("SQL injection");
    assert_eq!(sql, "error");
    assert_eq!(sql_result["properties"]["severity"], "blocker");
    assert_eq!(sql_result["properties"]["grounded"], true);
    let (total, total_result) = level_of("skips the first item");
    assert_eq!(total, "error");
    assert_eq!(
        total_result["locations"][0]["physicalLocation"]["region"]["endLine"],
        12
    );
    assert_eq!(total_result["properties"]["verdict"], "confirmed");
    assert_eq!(
        total_result["properties"]["sources"],
        serde_json::json!(["correctness", "removed-behavior"])
    );
    let (tests, tests_result) = level_of("No test covers");
    assert_eq!(tests, "warning");
    assert_eq!(
        tests_result["locations"][0]["physicalLocation"]["region"]["startLine"], 1,
        "file-level → line 1"
    );
    assert_eq!(tests_result["properties"]["fileLevel"], true);
    assert_eq!(level_of("prefer a constant").0, "note");
    // The coverage gap is a tool notification; execution was not fully successful.
    assert_eq!(run["invocations"][0]["executionSuccessful"], false);
    let note = run["invocations"][0]["toolExecutionNotifications"][0]["message"]["text"]
        .as_str()
        .unwrap();
    assert!(note.contains("cross-file") && note.contains("timed out"));
}

#[test]
fn an_ungrounded_or_uncertain_blocker_is_only_a_warning_in_sarif() {
    let mut input = ReportInput::default();
    input.findings.push(checked(
        finding(
            "a.rs",
            3,
            Severity::Blocker,
            "correctness",
            "claim one",
            "e",
        ),
        Grounding::Ungrounded,
        None,
    ));
    input.findings.push(checked(
        finding("b.rs", 3, Severity::Major, "correctness", "claim two", "e"),
        Grounding::Grounded,
        Some(Verdict::Uncertain),
    ));
    let sarif = render_sarif(&build_report(input));
    for r in sarif["runs"][0]["results"].as_array().unwrap() {
        assert_eq!(r["level"], "warning");
    }
}

#[test]
fn sarif_fingerprints_survive_line_moves_but_not_claim_changes() {
    let a = finding(
        "src/a.rs",
        10,
        Severity::Major,
        "correctness",
        "Off by one in the loop",
        "e",
    );
    let mut moved = a.clone();
    moved.line = 42;
    moved.claim = "off-by-one in loop".into();
    assert_eq!(a.fingerprint(), moved.fingerprint());
    let mut other = a.clone();
    other.claim = "null dereference".into();
    assert_ne!(a.fingerprint(), other.fingerprint());
}

#[test]
fn extra_categories_get_their_own_rule() {
    let mut input = ReportInput::default();
    input.findings.push(checked(
        finding(
            "a.rs",
            3,
            Severity::Minor,
            "performance",
            "quadratic loop",
            "e",
        ),
        Grounding::Grounded,
        None,
    ));
    let sarif = render_sarif(&build_report(input));
    let rules = sarif["runs"][0]["rules"].clone();
    let driver_rules = sarif["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .unwrap();
    assert!(rules.is_null());
    assert_eq!(driver_rules.len(), 7);
    assert_eq!(sarif["runs"][0]["results"][0]["ruleId"], "performance");
    assert_eq!(sarif["runs"][0]["results"][0]["ruleIndex"], 6);
    assert_eq!(
        schema_errors(&sarif_validator(), &sarif),
        Vec::<String>::new()
    );
}
