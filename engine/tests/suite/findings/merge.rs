//! Dedup across finders, prior-round suppression and the merge pipeline.

use protoflow_engine::findings::dedup::dedup;
use protoflow_engine::findings::{
    Grounding, MergeInput, ParseOptions, PriorFinding, Severity, UngroundedPolicy, Verdict,
    apply_prior, merge, parse_findings,
};

use super::{DIFF, checked, finding};

#[test]
fn overlapping_similar_findings_merge_with_the_strongest_severity_and_all_sources() {
    let mut a = finding(
        "src/cart.rs",
        10,
        Severity::Minor,
        "correctness",
        "total skips the first item of the cart",
        "iter().skip(1)",
    );
    a.end_line = Some(12);
    a.sources = vec!["correctness".into()];
    let mut b = finding(
        "src/cart.rs",
        11,
        Severity::Major,
        "removed-behavior",
        "The total skips the first cart item",
        "self.items.iter().skip(1).map",
    );
    b.sources = vec!["removed-behavior".into()];
    let merged = dedup(
        vec![
            checked(a, Grounding::Grounded, None),
            checked(b, Grounding::Grounded, None),
        ],
        0.5,
    );
    assert_eq!(merged.len(), 1);
    let m = &merged[0];
    assert_eq!(m.severity, Severity::Major);
    assert_eq!(m.sources, vec!["correctness", "removed-behavior"]);
    assert_eq!((m.line, m.end_line), (10, Some(12)));
    assert_eq!(
        m.evidence, "self.items.iter().skip(1).map",
        "the longer grounded quote is kept"
    );
}

#[test]
fn findings_in_different_files_are_not_merged() {
    let a = finding(
        "src/a.rs",
        1,
        Severity::Major,
        "correctness",
        "off by one in loop",
        "for i in 0..=n",
    );
    let b = finding(
        "src/b.rs",
        1,
        Severity::Major,
        "correctness",
        "off by one in loop",
        "for i in 0..=n",
    );
    assert_eq!(dedup(vec![a, b], 0.5).len(), 2);
}

#[test]
fn findings_on_distant_lines_or_with_different_claims_are_not_merged() {
    let a = finding(
        "src/a.rs",
        1,
        Severity::Major,
        "correctness",
        "off by one in loop",
        "x",
    );
    let b = finding(
        "src/a.rs",
        40,
        Severity::Major,
        "correctness",
        "off by one in loop",
        "x",
    );
    let c = finding(
        "src/a.rs",
        1,
        Severity::Major,
        "correctness",
        "SQL injection through user name",
        "x",
    );
    assert_eq!(dedup(vec![a, b, c], 0.5).len(), 3);
}

#[test]
fn a_file_level_finding_overlaps_every_line() {
    let a = finding(
        "src/a.rs",
        0,
        Severity::Minor,
        "tests",
        "no tests for the new parser",
        "x",
    );
    let b = finding(
        "src/a.rs",
        30,
        Severity::Minor,
        "tests",
        "new parser has no tests",
        "x",
    );
    let merged = dedup(vec![a, b], 0.5);
    assert_eq!(merged.len(), 1);
    assert_eq!(merged[0].line, 30, "the anchored range is kept");
}

#[test]
fn dedup_is_deterministic_whatever_the_input_order() {
    let a = finding(
        "src/a.rs",
        3,
        Severity::Minor,
        "correctness",
        "missing bounds check on index",
        "a[i]",
    );
    let b = finding(
        "src/a.rs",
        3,
        Severity::Major,
        "security",
        "index is missing a bounds check",
        "a[i] = v",
    );
    let c = finding(
        "src/b.rs",
        9,
        Severity::Nit,
        "conventions",
        "name does not follow style",
        "fn Foo()",
    );
    let forward = dedup(vec![a.clone(), b.clone(), c.clone()], 0.5);
    let backward = dedup(vec![c, b, a], 0.5);
    assert_eq!(forward, backward);
    assert_eq!(forward.len(), 2);
}

#[test]
fn an_ungrounded_stronger_severity_is_not_promoted_by_a_grounded_duplicate() {
    let weak = checked(
        finding(
            "src/a.rs",
            3,
            Severity::Blocker,
            "correctness",
            "missing bounds check on index",
            "invented",
        ),
        Grounding::Ungrounded,
        None,
    );
    let solid = checked(
        finding(
            "src/a.rs",
            3,
            Severity::Minor,
            "correctness",
            "index is missing a bounds check",
            "a[i] = v;",
        ),
        Grounding::Grounded,
        None,
    );
    let merged = dedup(vec![weak, solid], 0.5);
    assert_eq!(merged.len(), 1);
    assert_eq!(merged[0].severity, Severity::Minor);
    assert_eq!(merged[0].downgraded_from, Some(Severity::Blocker));
    assert_eq!(merged[0].grounding, Some(Grounding::Grounded));
}

fn prior(claim: &str, verdict: Option<Verdict>, settled: bool) -> PriorFinding {
    let mut f = finding("src/cart.rs", 3, Severity::Major, "correctness", claim, "x");
    f.verdict = verdict;
    PriorFinding {
        finding: f,
        settled,
    }
}

#[test]
fn a_duplicate_of_a_refuted_or_settled_prior_finding_is_suppressed() {
    let new = finding(
        "src/cart.rs",
        11,
        Severity::Major,
        "correctness",
        "total skips the first item",
        "x",
    );
    let refuted = apply_prior(
        vec![new.clone()],
        &[prior(
            "Total skips the first item!",
            Some(Verdict::Refuted),
            false,
        )],
        0.5,
    );
    assert!(refuted.findings.is_empty());
    assert_eq!(refuted.suppressed.len(), 1);
    assert_eq!(refuted.suppressed[0].reason, "refuted");

    let settled = apply_prior(
        vec![new],
        &[prior("total skips first item", None, true)],
        0.5,
    );
    assert!(settled.findings.is_empty());
    assert_eq!(settled.suppressed[0].reason, "settled");
}

#[test]
fn a_duplicate_of_a_confirmed_prior_finding_stays_open() {
    let new = finding(
        "src/cart.rs",
        11,
        Severity::Major,
        "correctness",
        "total skips the first item",
        "x",
    );
    let out = apply_prior(
        vec![new],
        &[prior(
            "total skips the first item",
            Some(Verdict::Confirmed),
            false,
        )],
        0.5,
    );
    assert_eq!(out.findings.len(), 1);
    assert_eq!(out.still_open, 1);
    assert!(out.suppressed.is_empty());
}

#[test]
fn an_unrelated_or_other_file_prior_finding_suppresses_nothing() {
    let new = finding(
        "src/db.rs",
        5,
        Severity::Blocker,
        "security",
        "SQL injection via name",
        "x",
    );
    let out = apply_prior(
        vec![new],
        &[
            prior("SQL injection via name", Some(Verdict::Refuted), false),
            prior("typo in docs", Some(Verdict::Refuted), false),
        ],
        0.5,
    );
    assert_eq!(out.findings.len(), 1);
    assert!(out.suppressed.is_empty());
}

const CORRECTNESS_OUT: &str = r#"Here you go:
```json
[{"file": "src/cart.rs", "line": 11, "severity": "major", "category": "correctness",
  "claim": "total() skips the first item", "evidence": "self.items.iter().skip(1).map(|i| i.price * i.qty).sum()"},
 {"file": "src/cart.rs", "line": 15, "severity": "minor", "category": "correctness",
  "claim": "discount codes are now case-insensitive", "evidence": "the code compares without case"}]
```"#;
const SECURITY_OUT: &str = r#"[{"file": "src/db.rs", "line": 5, "severity": "critical", "category": "security",
  "claim": "SQL injection: name is formatted into the query",
  "evidence": "let sql = format!(\"SELECT * FROM users WHERE name = '{}'\", name);"},
 {"file": "src/cart.rs", "line": 11, "severity": "blocker", "category": "correctness",
  "claim": "total skips the first item", "evidence": "+        self.items.iter().skip(1)"}]"#;

fn parsed(text: &str, source: &str) -> protoflow_engine::findings::ParsedFindings {
    parse_findings(
        text,
        &ParseOptions {
            source: Some(source.into()),
            ..ParseOptions::default()
        },
    )
}

#[test]
fn the_merge_pipeline_grounds_dedups_suppresses_and_identifies() {
    let prior = serde_json::json!({"findings": [{
        "file": "src/cart.rs", "line": 14, "severity": "minor", "category": "correctness",
        "claim": "discount codes are case-insensitive now", "evidence": "eq_ignore_ascii_case",
        "verdict": "refuted"
    }]});
    let out = merge(MergeInput {
        parsed: vec![
            parsed(CORRECTNESS_OUT, "correctness"),
            parsed(SECURITY_OUT, "security"),
            parsed("the model wandered off", "conventions"),
        ],
        diff: Some(DIFF.to_owned()),
        prior: Some(prior),
        ungrounded: UngroundedPolicy::Downgrade,
        ..MergeInput::default()
    });
    // The two "skips the first item" findings merged; the discount one suppressed.
    assert_eq!(out.findings.len(), 2, "{:#?}", out.findings);
    let total = out
        .findings
        .iter()
        .find(|f| f.file == "src/cart.rs")
        .unwrap();
    assert_eq!(total.severity, Severity::Blocker);
    assert_eq!(total.sources, vec!["correctness", "security"]);
    assert_eq!(total.grounding, Some(Grounding::Grounded));
    let sql = out.findings.iter().find(|f| f.file == "src/db.rs").unwrap();
    assert_eq!(sql.severity, Severity::Blocker);
    assert_eq!(out.suppressed.len(), 1);
    assert_eq!(
        out.suppressed[0].finding.downgraded_from,
        Some(Severity::Minor),
        "ungrounded before suppressed"
    );
    // Ids are stable 12-hex-digit prefixes of the fingerprint.
    for f in &out.findings {
        let id = f.id.as_deref().unwrap();
        assert_eq!(id.len(), 12);
        assert!(f.fingerprint().starts_with(id));
    }
    // The finder whose output was garbage is a coverage gap, and its output is reported.
    let gap = out
        .coverage
        .iter()
        .find(|c| c.source == "conventions")
        .unwrap();
    assert!(gap.is_gap());
    assert!(
        out.coverage
            .iter()
            .filter(|c| c.source != "conventions")
            .all(|c| !c.is_gap())
    );
    assert_eq!(out.rejected.len(), 1);
}
