//! The checked-in JSON Schemas match the types, and typed data validates against them.

use protoflow_engine::findings::schema::all_schemas;
use protoflow_engine::findings::{
    ParseOptions, ReportInput, build_report, finding_schema, findings_schema, parse_findings,
    report_schema,
};
use serde_json::Value;

fn repo_path(relative: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(relative)
}

/// Fails when a checked-in schema differs from the generated one. Regenerate with
/// `PROTOFLOW_UPDATE_SCHEMAS=1 cargo test -p protoflow-engine --test all findings::schema`.
#[test]
fn checked_in_schemas_match_the_types() {
    let update = std::env::var_os("PROTOFLOW_UPDATE_SCHEMAS").is_some();
    for (path, schema) in all_schemas() {
        let generated = serde_json::to_string_pretty(&schema).unwrap() + "\n";
        let file = repo_path(path);
        if update {
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(&file, &generated).unwrap();
        }
        let checked_in = std::fs::read_to_string(&file).unwrap_or_else(|e| {
            panic!("{path} is missing ({e}); regenerate with PROTOFLOW_UPDATE_SCHEMAS=1")
        });
        assert!(
            checked_in == generated,
            "{path} differs from the generated schema; regenerate with PROTOFLOW_UPDATE_SCHEMAS=1"
        );
    }
}

fn errors(schema: &Value, instance: &Value) -> Vec<String> {
    let validator = jsonschema::validator_for(schema).unwrap();
    validator
        .iter_errors(instance)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect()
}

#[test]
fn parsed_findings_validate_against_the_finding_schemas() {
    let text = r#"[{"file": "a.rs", "line": 2, "end_line": 4, "severity": "high", "category": "tests", "claim": "c", "evidence": "e", "note": "n"}]"#;
    let parsed = parse_findings(
        text,
        &ParseOptions {
            source: Some("tests".into()),
            ..ParseOptions::default()
        },
    );
    let value = serde_json::to_value(&parsed.findings).unwrap();
    assert_eq!(errors(&findings_schema(), &value), Vec::<String>::new());
    assert_eq!(errors(&finding_schema(), &value[0]), Vec::<String>::new());
}

#[test]
fn the_finding_schema_rejects_what_the_types_reject() {
    let bad = serde_json::json!({"file": "a.rs", "line": 1, "severity": "critical", "category": "Bad Category", "claim": "c", "evidence": "e", "sources": []});
    let errs = errors(&finding_schema(), &bad);
    assert!(errs.len() >= 2, "{errs:?}");
}

#[test]
fn an_empty_report_validates_against_the_report_schema() {
    let report = serde_json::to_value(build_report(ReportInput::default())).unwrap();
    assert_eq!(errors(&report_schema(), &report), Vec::<String>::new());
}

#[test]
fn a_verification_result_validates_against_the_verdict_schema() {
    let schema = protoflow_engine::findings::verdict_schema();
    let good = serde_json::json!({"id": "0123456789ab", "verdict": "refuted", "note": "the caller checks"});
    assert_eq!(errors(&schema, &good), Vec::<String>::new());
    let bad = serde_json::json!({"id": "0123456789ab", "verdict": "probably"});
    assert!(!errors(&schema, &bad).is_empty());
}
