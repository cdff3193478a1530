//! The tolerant parser on messy model outputs.

use protoflow_engine::findings::{ParseOptions, Severity, Verdict, parse_findings};

fn opts() -> ParseOptions {
    ParseOptions {
        source: Some("correctness".to_owned()),
        ..ParseOptions::default()
    }
}

const ONE: &str = r#"{"file": "src/cart.rs", "line": 11, "severity": "major", "category": "correctness", "claim": "total skips the first item", "evidence": "self.items.iter().skip(1)"}"#;
const TWO: &str = r#"{"file": "src/db.rs", "line": 5, "severity": "blocker", "category": "security", "claim": "SQL injection via name", "evidence": "format!(\"SELECT * FROM users WHERE name = '{}'\", name)"}"#;

#[test]
fn a_fenced_json_array_inside_prose_is_parsed() {
    let text =
        format!("I reviewed the diff.\n\n```json\n[{ONE}]\n```\n\nLet me know if you need more.");
    let parsed = parse_findings(&text, &opts());
    assert_eq!(parsed.findings.len(), 1);
    let f = &parsed.findings[0];
    assert_eq!(f.file, "src/cart.rs");
    assert_eq!(f.line, 11);
    assert_eq!(f.severity, Severity::Major);
    assert_eq!(f.category.as_str(), "correctness");
    assert_eq!(f.sources, vec!["correctness"]);
    assert!(parsed.rejected.is_empty());
    assert_eq!(parsed.candidates_seen, 1);
}

#[test]
fn a_bare_array_followed_by_prose_is_parsed() {
    let text = format!("Findings: [{ONE}, {TWO}] -- that's all [end].");
    let parsed = parse_findings(&text, &opts());
    assert_eq!(parsed.findings.len(), 2);
    assert!(parsed.rejected.is_empty());
}

#[test]
fn a_plain_fence_without_info_string_is_parsed() {
    let text = format!("```\n[{TWO}]\n```");
    assert_eq!(parse_findings(&text, &opts()).findings.len(), 1);
}

#[test]
fn of_several_candidates_the_most_complete_wins() {
    let text = format!(
        "Draft:\n```json\n[{ONE}]\n```\nFinal answer:\n```json\n[{ONE}, {TWO}]\n```\nOops, an example: [{ONE}]"
    );
    let parsed = parse_findings(&text, &opts());
    assert_eq!(parsed.candidates_seen, 3);
    assert_eq!(parsed.findings.len(), 2);
}

#[test]
fn among_equally_complete_candidates_the_last_wins() {
    let first = ONE.replace("total skips the first item", "first draft claim");
    let text = format!("[{first}]\nOn reflection:\n[{ONE}]");
    let parsed = parse_findings(&text, &opts());
    assert_eq!(parsed.findings.len(), 1);
    assert_eq!(parsed.findings[0].claim, "total skips the first item");
}

#[test]
fn an_object_wrapping_a_findings_array_is_parsed() {
    let text = format!("{{\"summary\": \"two issues\", \"findings\": [{ONE}, {TWO}]}}");
    assert_eq!(parse_findings(&text, &opts()).findings.len(), 2);
}

#[test]
fn single_quoted_pseudo_json_is_repaired_and_the_repair_reported() {
    let text = "[{'file': 'src/cart.rs', 'line': 11, 'severity': 'major', 'category': 'correctness', \
                'claim': 'total skips the \"first\" item', 'evidence': 'iter().skip(1).map'}]";
    let parsed = parse_findings(text, &opts());
    assert_eq!(parsed.findings.len(), 1);
    assert_eq!(parsed.findings[0].claim, "total skips the \"first\" item");
    assert!(parsed.repairs.iter().any(|r| r.contains("single-quoted")));
}

#[test]
fn trailing_commas_are_repaired() {
    let text = format!(
        "[{},]",
        ONE.replace("\"evidence\"", "\"note\": \"n\",\n \"evidence\"")
            .replace("}", ",}")
    );
    let parsed = parse_findings(&text, &opts());
    assert_eq!(parsed.findings.len(), 1, "{parsed:?}");
    assert!(parsed.repairs.iter().any(|r| r.contains("trailing commas")));
}

#[test]
fn an_item_missing_a_required_field_is_reported_with_the_reason() {
    let no_evidence = r#"{"file": "a.rs", "line": 1, "severity": "minor", "category": "tests", "claim": "no test"}"#;
    let no_claim =
        r#"{"file": "a.rs", "severity": "minor", "category": "tests", "evidence": "fn a() {}"}"#;
    let text = format!("[{ONE}, {no_evidence}, {no_claim}]");
    let parsed = parse_findings(&text, &opts());
    assert_eq!(parsed.findings.len(), 1);
    assert_eq!(parsed.rejected.len(), 2);
    assert_eq!(parsed.rejected[0].index, Some(1));
    assert!(
        parsed.rejected[0].reason.contains("`evidence`"),
        "{}",
        parsed.rejected[0].reason
    );
    assert_eq!(parsed.rejected[1].index, Some(2));
    assert!(parsed.rejected[1].reason.contains("`claim`"));
    assert_eq!(parsed.rejected[0].source.as_deref(), Some("correctness"));
    assert!(parsed.rejected[0].raw.contains("no test"));
}

#[test]
fn a_missing_line_means_not_line_anchored() {
    let item = ONE.replace("\"line\": 11, ", "");
    let parsed = parse_findings(&format!("[{item}]"), &opts());
    assert_eq!(parsed.findings[0].line, 0);
}

#[test]
fn unknown_severities_are_mapped_by_the_table_or_rejected() {
    let items: Vec<String> = ["Critical", "high", "Medium", "low", "info", "catastrophic"]
        .iter()
        .map(|s| ONE.replace("\"major\"", &format!("\"{s}\"")))
        .collect();
    let parsed = parse_findings(&format!("[{}]", items.join(",")), &opts());
    let severities: Vec<Severity> = parsed.findings.iter().map(|f| f.severity).collect();
    assert_eq!(
        severities,
        vec![
            Severity::Blocker,
            Severity::Major,
            Severity::Minor,
            Severity::Nit,
            Severity::Nit
        ]
    );
    assert_eq!(parsed.rejected.len(), 1);
    assert_eq!(parsed.rejected[0].index, Some(5));
    assert!(
        parsed.rejected[0]
            .reason
            .contains("unknown severity `catastrophic`")
    );
}

#[test]
fn categories_are_normalized_and_unknown_ones_rejected_unless_the_recipe_allows_them() {
    let british = ONE.replace("\"correctness\"", "\"Removed_Behaviour\"");
    let perf = ONE.replace("\"correctness\"", "\"performance\"");
    let parsed = parse_findings(&format!("[{british}, {perf}]"), &opts());
    assert_eq!(parsed.findings.len(), 1);
    assert_eq!(parsed.findings[0].category.as_str(), "removed-behavior");
    assert!(
        parsed.rejected[0]
            .reason
            .contains("unknown category `performance`")
    );

    let allowing = ParseOptions {
        extra_categories: vec!["performance".to_owned()],
        ..opts()
    };
    assert_eq!(
        parse_findings(&format!("[{british}, {perf}]"), &allowing)
            .findings
            .len(),
        2
    );
}

#[test]
fn garbage_yields_zero_findings_and_is_reported() {
    let parsed = parse_findings(
        "I could not review this diff, sorry. See [1] and {braces}.",
        &opts(),
    );
    assert!(parsed.findings.is_empty());
    assert_eq!(parsed.candidates_seen, 0);
    assert!(parsed.is_unparseable());
    assert_eq!(parsed.rejected.len(), 1);
    assert_eq!(parsed.rejected[0].index, None);
    assert!(
        parsed.rejected[0]
            .reason
            .contains("no JSON array of findings")
    );
}

#[test]
fn a_broken_findings_block_is_reported_not_ignored() {
    let text = "```json\n[{\"file\": \"a.rs\", \"claim\": \"x\" \"severity\": \"major\"}]\n```";
    let parsed = parse_findings(text, &opts());
    assert!(parsed.findings.is_empty());
    assert_eq!(parsed.rejected.len(), 1);
    assert!(
        parsed.rejected[0].reason.contains("could not be parsed"),
        "{}",
        parsed.rejected[0].reason
    );
}

#[test]
fn an_empty_array_is_a_real_no_findings() {
    let parsed = parse_findings("Nothing found.\n```json\n[]\n```", &opts());
    assert!(parsed.findings.is_empty());
    assert!(parsed.rejected.is_empty());
    assert!(!parsed.is_unparseable());
}

#[test]
fn a_finder_cannot_verify_its_own_findings_unless_verdicts_are_accepted() {
    let item = ONE.replace("\"line\": 11", "\"line\": 11, \"verdict\": \"Confirmed\"");
    let text = format!("[{item}]");
    let parsed = parse_findings(&text, &opts());
    assert_eq!(parsed.findings[0].verdict, None);
    assert!(
        parsed
            .notes
            .iter()
            .any(|n| n.contains("verdict `confirmed` ignored"))
    );

    let accepting = ParseOptions {
        accept_verdicts: true,
        ..opts()
    };
    assert_eq!(
        parse_findings(&text, &accepting).findings[0].verdict,
        Some(Verdict::Confirmed)
    );
}

#[test]
fn grounding_claimed_by_the_model_is_not_trusted() {
    let item = ONE.replace("\"line\": 11", "\"line\": 11, \"grounding\": \"grounded\"");
    let parsed = parse_findings(&format!("[{item}]"), &opts());
    assert_eq!(parsed.findings[0].grounding, None);
}

#[test]
fn paths_are_made_repository_relative_and_escapes_rejected() {
    let dotted = ONE.replace("src/cart.rs", "./src/cart.rs");
    let absolute = ONE.replace("src/cart.rs", "/etc/passwd");
    let parsed = parse_findings(&format!("[{dotted}, {absolute}]"), &opts());
    assert_eq!(parsed.findings[0].file, "src/cart.rs");
    assert!(
        parsed.rejected[0]
            .reason
            .contains("not a repository-relative path")
    );
}

#[test]
fn end_line_before_line_is_rejected() {
    let item = ONE.replace("\"line\": 11", "\"line\": 11, \"end_line\": 3");
    let parsed = parse_findings(&format!("[{item}]"), &opts());
    assert!(parsed.findings.is_empty());
    assert!(
        parsed.rejected[0]
            .reason
            .contains("`end_line` 3 is before `line` 11")
    );
}

#[test]
fn sources_from_the_item_and_the_options_are_merged() {
    let item = ONE.replace("\"line\": 11", "\"line\": 11, \"source\": \"security\"");
    let parsed = parse_findings(&format!("[{item}]"), &opts());
    assert_eq!(parsed.findings[0].sources, vec!["correctness", "security"]);
}

#[test]
fn every_truncation_of_a_messy_output_is_accounted_for() {
    let text = format!(
        "Thoughts: it's a `[weird]` diff {{ unbalanced.\n```rust\nlet v = vec![1];\n```\n```json\n[{ONE},\n{}]\n```\nAlso {{'file': 'x.rs', 'claim': 'dup', 'severity': 'low', 'category': 'tests', 'evidence': 'é ü ✓'}}\n",
        TWO.replace("blocker", "Critical")
    );
    let boundaries: Vec<usize> = text
        .char_indices()
        .map(|(i, _)| i)
        .chain([text.len()])
        .collect();
    for end in boundaries {
        let parsed = parse_findings(&text[..end], &opts());
        // Never silent: findings, reported rejections, or an explicit (empty) candidate.
        assert!(
            !parsed.findings.is_empty()
                || !parsed.rejected.is_empty()
                || parsed.candidates_seen > 0,
            "prefix of {end} bytes vanished"
        );
    }
    assert_eq!(parse_findings(&text, &opts()).findings.len(), 2);
}
