//! The JSON-in / JSON-out functions behind the parse_findings, merge_findings and
//! render_report tools, chained as a review recipe would chain them.

use protoflow_engine::findings::{
    FindingsError, merge_findings_json, parse_findings_json, render_report_json,
};
use serde_json::{Value, json};

use super::DIFF;

const FINDER_OUTPUT: &str = "Review done.\n```json\n[{\"file\": \"src/cart.rs\", \"line\": 11, \"severity\": \"high\", \"category\": \"correctness\", \"claim\": \"total skips the first item\", \"evidence\": \"self.items.iter().skip(1)\"},\n {\"file\": \"src/cart.rs\", \"line\": 15, \"severity\": \"major\", \"category\": \"correctness\", \"claim\": \"discount no longer matches exactly\", \"evidence\": \"the comparison ignores case now\"}]\n```";

#[test]
fn parse_merge_verify_render_through_json() {
    let parsed =
        parse_findings_json(&json!({"text": FINDER_OUTPUT, "source": "correctness"})).unwrap();
    assert_eq!(parsed["findings"].as_array().unwrap().len(), 2);
    let garbage = parse_findings_json(&json!({"text": "timeout?", "source": "security"})).unwrap();

    let merged = merge_findings_json(&json!({
        "parsed": [parsed, garbage],
        "diff": DIFF,
        "ungrounded": "downgrade",
    }))
    .unwrap();
    let findings = merged["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 2);
    let skip = findings.iter().find(|f| f["line"] == 11).unwrap();
    assert_eq!(skip["grounding"], "grounded");
    let paraphrase = findings.iter().find(|f| f["line"] == 15).unwrap();
    assert_eq!(paraphrase["grounding"], "ungrounded");
    assert_eq!(paraphrase["severity"], "minor");
    assert_eq!(paraphrase["downgraded_from"], "major");

    // Verification (one per finding) returns verdicts by id; the render step gets
    // the merge outcome as is, plus verdicts and the executor's coverage.
    let mut render_args = merged.clone();
    render_args["verdicts"] =
        json!([{"id": skip["id"], "verdict": "confirmed", "note": "reproduced"}]);
    // The executor's coverage is appended to the merge's (which knows unparseable output).
    render_args["coverage"]
        .as_array_mut()
        .unwrap()
        .push(json!({"source": "cross-file", "status": "failed", "reason": "provider error"}));
    render_args["format"] = json!("json");
    render_args["fail_on"] = json!("major");
    let out = render_report_json(&render_args).unwrap();
    assert_eq!(out["verdict"], "FAIL");
    assert_eq!(out["over_threshold"], true);
    assert_eq!(out["complete"], false);
    let report = &out["content"];
    assert_eq!(report["findings"][0]["verdict"], "confirmed");
    let gaps: Vec<&Value> = report["coverage"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["status"] != "ok")
        .collect();
    assert_eq!(
        gaps.len(),
        2,
        "the unparseable finder and the failed one: {gaps:?}"
    );

    render_args["format"] = json!("markdown");
    render_args["fail_on"] = json!("never");
    let md = render_report_json(&render_args).unwrap();
    assert!(
        md["content"]
            .as_str()
            .unwrap()
            .contains("**Verdict: ❌ FAIL**")
    );
    assert_eq!(md["over_threshold"], false);

    render_args["format"] = json!("sarif");
    let sarif = render_report_json(&render_args).unwrap();
    assert_eq!(sarif["content"]["version"], "2.1.0");
}

#[test]
fn a_rendered_json_report_can_be_rendered_again_in_another_format() {
    let first = render_report_json(&json!({"format": "json"})).unwrap();
    let again =
        render_report_json(&json!({"format": "markdown", "report": first["content"]})).unwrap();
    assert!(again["content"].as_str().unwrap().contains("PASS"));
}

#[test]
fn invalid_arguments_name_the_offending_field() {
    let err = merge_findings_json(&json!({"ungrounded": "ignore"})).unwrap_err();
    assert!(matches!(
        err,
        FindingsError::InvalidArguments {
            function: "merge_findings",
            ..
        }
    ));
    assert!(err.to_string().contains("ungrounded"), "{err}");

    let err = parse_findings_json(&json!({"txt": "x"})).unwrap_err();
    assert!(err.to_string().contains("parse_findings"), "{err}");

    let err = render_report_json(&json!({"format": "html"})).unwrap_err();
    assert!(err.to_string().contains("format"), "{err}");

    let err = merge_findings_json(&json!({"similarity": 2.0})).unwrap_err();
    assert!(err.to_string().contains("between 0 and 1"), "{err}");

    let err = merge_findings_json(&json!({"findings": [{"file": "a.rs"}]})).unwrap_err();
    assert!(err.to_string().contains("findings[0]"), "{err}");
}

#[test]
fn a_producer_step_that_did_not_succeed_is_a_coverage_gap_and_its_text_is_not_parsed() {
    let text = r#"[{"file": "src/cart.rs", "line": 11, "severity": "major", "category": "correctness", "claim": "half-written", "evidence": "skip(1)"}]"#;
    let parsed = parse_findings_json(&json!({
        "text": text, "source": "security", "status": "timed_out", "reason": "timed out after 2s"
    }))
    .unwrap();
    assert_eq!(parsed["findings"], json!([]));
    assert_eq!(parsed["gap"]["status"], "timed_out");
    let failed =
        parse_findings_json(&json!({"text": null, "source": "conventions", "status": "failed"}))
            .unwrap();
    let ok =
        parse_findings_json(&json!({"text": text, "source": "correctness", "status": "succeeded"}))
            .unwrap();
    assert_eq!(ok["findings"].as_array().unwrap().len(), 1);

    let merged =
        merge_findings_json(&json!({"parsed": [ok, parsed, failed], "diff": DIFF})).unwrap();
    let coverage = merged["coverage"].as_array().unwrap();
    let status_of = |source: &str| {
        coverage
            .iter()
            .find(|c| c["source"] == source)
            .map(|c| c["status"].as_str().unwrap().to_owned())
    };
    assert_eq!(status_of("correctness").as_deref(), Some("ok"));
    assert_eq!(status_of("security").as_deref(), Some("timed_out"));
    assert_eq!(status_of("conventions").as_deref(), Some("failed"));
    assert_eq!(merged["findings"].as_array().unwrap().len(), 1);

    let bad = parse_findings_json(&json!({"text": "", "status": "exploded"})).unwrap_err();
    assert!(bad.to_string().contains("exploded"), "{bad}");
}

#[test]
fn prior_findings_may_be_given_as_the_text_of_a_previous_json_report() {
    let report = json!({"findings": [{
        "file": "src/cart.rs", "line": 11, "severity": "major", "category": "correctness",
        "claim": "total() skips the first item", "evidence": "skip(1)", "verdict": "refuted"
    }]});
    let new = json!([{
        "file": "src/cart.rs", "line": 11, "severity": "major", "category": "correctness",
        "claim": "total() skips the first item", "evidence": "self.items.iter().skip(1)"
    }]);
    let parsed = parse_findings_json(&json!({"text": new, "source": "a"})).unwrap();
    let merged = merge_findings_json(
        &json!({"parsed": [parsed], "diff": DIFF, "prior": report.to_string()}),
    )
    .unwrap();
    assert_eq!(merged["findings"], json!([]));
    assert_eq!(merged["suppressed"].as_array().unwrap().len(), 1);

    let junk = merge_findings_json(&json!({"prior": "not json"})).unwrap();
    assert_eq!(junk["rejected"][0]["source"], "prior");
    let empty = merge_findings_json(&json!({"prior": ""})).unwrap();
    assert_eq!(empty["rejected"], json!([]));
}
