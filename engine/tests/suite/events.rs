//! The event stream's JSON Schema is generated from the types and kept in `schemas/`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use protoflow_engine::events::{Event, EventKind, RunStatus, events_schema};

fn schema_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../schemas/events.schema.json")
}

/// Regenerate with `PROTOFLOW_BLESS=1 cargo test -p protoflow-engine --test all events`.
#[test]
fn the_committed_events_schema_matches_the_types() {
    let generated = serde_json::to_string_pretty(&events_schema()).unwrap() + "\n";
    if std::env::var_os("PROTOFLOW_BLESS").is_some() {
        std::fs::write(schema_path(), &generated).unwrap();
    }
    let committed = std::fs::read_to_string(schema_path()).unwrap_or_default();
    assert!(
        committed == generated,
        "schemas/events.schema.json is out of date: rerun with PROTOFLOW_BLESS=1"
    );
}

#[test]
fn an_event_validates_against_the_schema() {
    let schema = events_schema();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let event = Event {
        seq: 1,
        run_id: "r".into(),
        at_ms: 1,
        kind: EventKind::RunFinished {
            status: RunStatus::BudgetExhausted,
            duration_ms: 5,
        },
    };
    let good = serde_json::to_value(&event).unwrap();
    assert!(validator.is_valid(&good));
    let mut bad = good.clone();
    bad["status"] = serde_json::json!("exploded");
    assert!(!validator.is_valid(&bad));
    let mut unknown_type = good;
    unknown_type["type"] = serde_json::json!("run.exploded");
    assert!(!validator.is_valid(&unknown_type));
}
