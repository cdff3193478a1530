//! Argument helpers shared by the built-in tools: typed parsing and schemas.
//!
//! Owns the conversion between a call's JSON arguments and a tool's typed `Args`.
//! It never performs an effect.

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::{ToolError, ToolSpec, lookup};

/// Parses a tool's arguments into its typed form (unknown fields are refused by
/// the types themselves).
pub fn parse_args<T: DeserializeOwned>(tool: &str, args: Value) -> Result<T, ToolError> {
    let args = if args.is_null() {
        Value::Object(Default::default())
    } else {
        args
    };
    serde_json::from_value(args).map_err(|e| ToolError::InvalidArguments {
        tool: tool.to_string(),
        reason: e.to_string(),
    })
}

/// The JSON Schema of a tool's typed arguments.
pub fn schema_of<T: JsonSchema>() -> Value {
    serde_json::to_value(schemars::schema_for!(T)).unwrap_or(Value::Bool(true))
}

/// The catalog entry of a built-in tool.
///
/// Only called with the names of tools compiled into this binary, which a unit
/// test checks against the catalog; a missing entry is a programming error.
#[allow(clippy::expect_used)]
pub fn builtin_spec(name: &'static str) -> &'static ToolSpec {
    lookup(name).expect("built-in tools are in the catalog")
}
