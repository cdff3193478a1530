//! The JSON Schema of events, generated from the types (`schemas/events.schema.json`).

use serde_json::Value;

use super::Event;

/// The JSON Schema (draft 2020-12) of one event line.
pub fn events_schema() -> Value {
    let schema = schemars::schema_for!(Event);
    let mut value = schema.to_value();
    if let Some(object) = value.as_object_mut() {
        object.insert(
            "$id".into(),
            Value::String("https://protoflow.dev/schemas/events.schema.json".into()),
        );
        object.insert(
            "description".into(),
            Value::String("One protoflow run event (one line of `protoflow run --events`).".into()),
        );
    }
    value
}
