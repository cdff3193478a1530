//! JSON Schemas of findings, generated from the types (checked in under `schemas/`
//! and emitted by `protoflow schema`). This module must never hand-write a schema
//! that the types could drift from.

use schemars::{JsonSchema, generate::SchemaSettings};
use serde_json::Value;

use super::model::Finding;
use super::report::Report;

/// Path of the single-finding schema, relative to the repository root.
pub const FINDING_SCHEMA_PATH: &str = "schemas/finding.schema.json";
/// Path of the array-of-findings schema, relative to the repository root.
pub const FINDINGS_SCHEMA_PATH: &str = "schemas/findings.schema.json";
/// Path of the report schema, relative to the repository root.
pub const REPORT_SCHEMA_PATH: &str = "schemas/findings-report.schema.json";

fn schema_of<T: JsonSchema>(title: &str, description: &str) -> Value {
    let generator = SchemaSettings::draft2020_12().into_generator();
    let mut schema = generator.into_root_schema_for::<T>();
    schema.insert("title".into(), title.into());
    schema.insert("description".into(), description.into());
    schema.to_value()
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
        (REPORT_SCHEMA_PATH, report_schema()),
    ]
}
