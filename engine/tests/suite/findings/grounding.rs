//! Grounding evidence quotes in the diff or the cited file, and the recipe policy.

use std::collections::BTreeMap;

use protoflow_engine::findings::{
    Grounding, GroundingSources, MergeVerdict, Severity, UngroundedPolicy, ground, merge_verdict,
};

use super::{DIFF, finding};

fn sources() -> GroundingSources {
    GroundingSources {
        diff: Some(DIFF.to_owned()),
        files: BTreeMap::from([(
            "src/cart.rs".to_owned(),
            "impl Cart {\n    /// Sums prices.\n    pub fn total(&self) -> u64 {\n".to_owned(),
        )]),
    }
}

fn grounding_of(file: &str, evidence: &str) -> Grounding {
    let f = finding(file, 11, Severity::Major, "correctness", "claim", evidence);
    let out = ground(vec![f], &sources(), UngroundedPolicy::Keep);
    out.findings[0].grounding.unwrap()
}

#[test]
fn an_exact_quote_from_the_diff_is_grounded() {
    assert_eq!(
        grounding_of(
            "src/cart.rs",
            "self.items.iter().skip(1).map(|i| i.price * i.qty).sum()"
        ),
        Grounding::Grounded
    );
}

#[test]
fn whitespace_differences_do_not_matter() {
    assert_eq!(
        grounding_of(
            "src/cart.rs",
            "pub fn total(&self)   ->  u64 {\n\t\tself.items.iter().skip(1)"
        ),
        Grounding::Grounded
    );
}

#[test]
fn a_quote_with_diff_prefixes_is_grounded() {
    let quote = "-        self.items.iter().map(|i| i.price * i.qty).sum()\n+        self.items.iter().skip(1).map(|i| i.price * i.qty).sum()";
    assert_eq!(grounding_of("src/cart.rs", quote), Grounding::Grounded);
    assert_eq!(
        grounding_of(
            "src/db.rs",
            "+    let sql = format!(\"SELECT * FROM users WHERE name = '{}'\", name);"
        ),
        Grounding::Grounded
    );
}

#[test]
fn a_quote_of_removed_code_is_grounded_in_the_old_side() {
    assert_eq!(
        grounding_of("src/cart.rs", "if code == \"SAVE10\" { 10 } else { 0 }"),
        Grounding::Grounded
    );
}

#[test]
fn a_quote_from_the_cited_file_outside_the_diff_is_grounded() {
    assert_eq!(
        grounding_of("src/cart.rs", "/// Sums prices."),
        Grounding::Grounded
    );
}

#[test]
fn an_elided_quote_grounds_when_every_fragment_occurs() {
    assert_eq!(
        grounding_of(
            "src/cart.rs",
            "pub fn total(&self) -> u64 { ... .skip(1).map(|i|"
        ),
        Grounding::Grounded
    );
    assert_eq!(
        grounding_of(
            "src/cart.rs",
            "pub fn total(&self) -> u64 { ... .skip(2).map(|i|"
        ),
        Grounding::Ungrounded
    );
}

#[test]
fn a_paraphrase_is_ungrounded() {
    assert_eq!(
        grounding_of(
            "src/cart.rs",
            "the total function skips the first cart item"
        ),
        Grounding::Ungrounded
    );
}

#[test]
fn a_quote_from_another_file_than_the_one_cited_is_ungrounded() {
    assert_eq!(
        grounding_of("src/db.rs", "self.items.iter().skip(1)"),
        Grounding::Ungrounded
    );
}

#[test]
fn evidence_shorter_than_the_minimum_is_weak() {
    assert_eq!(grounding_of("src/cart.rs", "skip(1)"), Grounding::Weak);
    assert_eq!(grounding_of("src/cart.rs", ""), Grounding::Weak);
}

#[test]
fn downgrade_lowers_an_ungrounded_finding_one_step_once() {
    let f = finding(
        "src/cart.rs",
        11,
        Severity::Blocker,
        "correctness",
        "c",
        "invented code that is not there",
    );
    let out = ground(vec![f], &sources(), UngroundedPolicy::Downgrade);
    assert_eq!(out.findings[0].severity, Severity::Major);
    assert_eq!(out.findings[0].downgraded_from, Some(Severity::Blocker));
    // Grounding again (a later round of the same data) does not downgrade twice.
    let again = ground(out.findings, &sources(), UngroundedPolicy::Downgrade);
    assert_eq!(again.findings[0].severity, Severity::Major);
}

#[test]
fn drop_removes_ungrounded_findings_and_keeps_them_accounted() {
    let grounded = finding(
        "src/cart.rs",
        11,
        Severity::Major,
        "correctness",
        "a",
        "iter().skip(1).map",
    );
    let invented = finding(
        "src/cart.rs",
        11,
        Severity::Major,
        "correctness",
        "b",
        "invented code that is not there",
    );
    let out = ground(vec![grounded, invented], &sources(), UngroundedPolicy::Drop);
    assert_eq!(out.findings.len(), 1);
    assert_eq!(out.findings[0].claim, "a");
    assert_eq!(out.dropped.len(), 1);
    assert_eq!(out.dropped[0].grounding, Some(Grounding::Ungrounded));
}

#[test]
fn an_ungrounded_blocker_never_produces_fail_whatever_the_policy() {
    for policy in [UngroundedPolicy::Keep, UngroundedPolicy::Downgrade] {
        let f = finding(
            "src/cart.rs",
            11,
            Severity::Blocker,
            "correctness",
            "c",
            "invented code that is not there",
        );
        let out = ground(vec![f], &sources(), policy);
        assert_eq!(
            merge_verdict(&out.findings),
            MergeVerdict::Warn,
            "{policy:?}"
        );
    }
}

#[test]
fn a_diff_without_git_headers_grounds_against_the_whole_diff() {
    let plain = "@@ -1,2 +1,2 @@\n-let a = compute_total(1);\n+let a = compute_total(2);\n";
    let f = finding(
        "any.rs",
        1,
        Severity::Minor,
        "correctness",
        "c",
        "let a = compute_total(2);",
    );
    let out = ground(
        vec![f],
        &GroundingSources {
            diff: Some(plain.to_owned()),
            files: BTreeMap::new(),
        },
        UngroundedPolicy::Keep,
    );
    assert_eq!(out.findings[0].grounding, Some(Grounding::Grounded));
}
