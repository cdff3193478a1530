//! JSON Schemas of findings, generated from the types (checked in under `schemas/`
//! and emitted by `protoflow schema`). This module must never hand-write a schema
//! that the types could drift from.

use schemars::{JsonSchema, generate::SchemaSettings};
use serde_json::Value;

use super::model::Finding;
use super::report::{Report, VerdictUpdate};

/// Path of the single-finding schema, relative to the repository root.
pub const FINDING_SCHEMA_PATH: &str = "schemas/finding.schema.json";
/// Path of the array-of-findings schema, relative to the repository root.
pub const FINDINGS_SCHEMA_PATH: &str = "schemas/findings.schema.json";
/// Path of the verification-result schema, relative to the repository root.
pub const VERDICT_SCHEMA_PATH: &str = "schemas/finding-verdict.schema.json";
/// Path of the report schema, relative to the repository root.
pub const REPORT_SCHEMA_PATH: &str = "schemas/findings-report.schema.json";

fn schema_of<T: JsonSchema>(title: &str, description: &str) -> Value {
    let generator = SchemaSettings::draft2020_12().into_generator();
    let generated = generator.into_root_schema_for::<T>().to_value();
    // `$schema`, title and description first, then the generated body, for readers.
    let mut ordered = serde_json::Map::new();
    if let Some(dialect) = generated.get("$schema") {
        ordered.insert("$schema".into(), dialect.clone());
    }
    ordered.insert("title".into(), title.into());
    ordered.insert("description".into(), description.into());
    if let Value::Object(body) = generated {
        for (key, value) in body {
            if !ordered.contains_key(&key) {
                ordered.insert(key, value);
            }
        }
    }
    Value::Object(ordered)
}

/// The JSON Schema of one finding.
pub fn finding_schema() -> Value {
    schema_of::<Finding>(
        "protoflow finding",
        "One review finding: where, how severe, what is claimed, and the verbatim evidence.",
    )
}

/// The JSON Schema of an array of findings (what a finder step outputs).
pub fn findings_schema() -> Value {
    schema_of::<Vec<Finding>>(
        "protoflow findings",
        "An array of review findings (what a finder outputs).",
    )
}

/// The JSON Schema of one verification result (`{id, verdict, note?}`): the typed
/// output a per-finding verification step declares.
pub fn verdict_schema() -> Value {
    schema_of::<VerdictUpdate>(
        "protoflow finding verdict",
        "The result of verifying one finding, attached to it by id.",
    )
}

/// The JSON Schema of the review report (`--format json`).
pub fn report_schema() -> Value {
    schema_of::<Report>(
        "protoflow findings report",
        "A review report: verdict, counts, findings, coverage, suppressed and rejected items.",
    )
}

/// Every generated schema with its checked-in path, for the drift test and the CLI.
pub fn all_schemas() -> Vec<(&'static str, Value)> {
    vec![
        (FINDING_SCHEMA_PATH, finding_schema()),
        (FINDINGS_SCHEMA_PATH, findings_schema()),
        (VERDICT_SCHEMA_PATH, verdict_schema()),
        (REPORT_SCHEMA_PATH, report_schema()),
    ]
}
