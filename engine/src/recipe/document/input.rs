//! Typed recipe inputs.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The JSON type of an input value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum InputType {
    /// A string.
    String,
    /// A whole number.
    Integer,
    /// Any number.
    Number,
    /// `true` or `false`.
    Boolean,
    /// A list (given as JSON on the command line).
    Array,
    /// An object (given as JSON on the command line).
    Object,
}

impl InputType {
    /// The JSON Schema type name.
    pub fn as_str(self) -> &'static str {
        match self {
            InputType::String => "string",
            InputType::Integer => "integer",
            InputType::Number => "number",
            InputType::Boolean => "boolean",
            InputType::Array => "array",
            InputType::Object => "object",
        }
    }
}

/// One declared input of a recipe.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InputDocument {
    /// The value's JSON type.
    #[serde(rename = "type")]
    pub ty: InputType,
    /// What the input means, shown in `protoflow recipes` and errors.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The value used when none is given; must have the declared type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<serde_json::Value>,
    /// Whether a value must be given (an input with a default is never required).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub required: bool,
    /// The only values allowed.
    #[serde(default, rename = "enum", skip_serializing_if = "Option::is_none")]
    pub allowed: Option<Vec<serde_json::Value>>,
    /// For arrays: the JSON Schema every item must satisfy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub items: Option<serde_json::Value>,
}
