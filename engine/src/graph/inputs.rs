//! Recipe inputs at run time: typed parsing of `name=value` text, defaults, checks.
//!
//! The CLI hands raw text; this module turns it into typed JSON per the recipe's
//! declared input types, applies defaults and refuses missing, unknown or
//! ill-typed values. It never reads the terminal.

use indexmap::IndexMap;
use serde_json::{Map, Value};

use crate::recipe::Recipe;
use crate::recipe::document::{InputDocument, InputType};

/// Parses one input's text per its declared type.
///
/// Strings are taken as they are; numbers and booleans are parsed; arrays and
/// objects are JSON.
pub fn parse_input(name: &str, ty: InputType, text: &str) -> Result<Value, String> {
    let bad = |what: &str| format!("input `{name}` must be {what}, got `{text}`");
    match ty {
        InputType::String => Ok(Value::String(text.to_string())),
        InputType::Integer => text
            .trim()
            .parse::<i64>()
            .map(Value::from)
            .map_err(|_| bad("an integer")),
        InputType::Number => text
            .trim()
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
            .map(Value::Number)
            .ok_or_else(|| bad("a number")),
        InputType::Boolean => match text.trim() {
            "true" => Ok(Value::Bool(true)),
            "false" => Ok(Value::Bool(false)),
            _ => Err(bad("`true` or `false`")),
        },
        InputType::Array => match serde_json::from_str::<Value>(text) {
            Ok(value @ Value::Array(_)) => Ok(value),
            _ => Err(bad("a JSON list")),
        },
        InputType::Object => match serde_json::from_str::<Value>(text) {
            Ok(value @ Value::Object(_)) => Ok(value),
            _ => Err(bad("a JSON object")),
        },
    }
}

fn has_type(ty: InputType, value: &Value) -> bool {
    match ty {
        InputType::String => value.is_string(),
        InputType::Integer => value.is_i64() || value.is_u64(),
        InputType::Number => value.is_number(),
        InputType::Boolean => value.is_boolean(),
        InputType::Array => value.is_array(),
        InputType::Object => value.is_object(),
    }
}

fn check(name: &str, doc: &InputDocument, value: &Value) -> Result<(), String> {
    if !has_type(doc.ty, value) {
        return Err(format!(
            "input `{name}` must be of type {}, got {value}",
            doc.ty.as_str()
        ));
    }
    if let Some(allowed) = &doc.allowed
        && !allowed.contains(value)
    {
        return Err(format!(
            "input `{name}` must be one of {}",
            Value::from(allowed.clone())
        ));
    }
    if let (Some(items), Value::Array(values)) = (&doc.items, value) {
        let validator = jsonschema::validator_for(items)
            .map_err(|e| format!("input `{name}` has an invalid items schema: {e}"))?;
        for (index, item) in values.iter().enumerate() {
            if let Some(err) = validator.iter_errors(item).next() {
                return Err(format!("input `{name}`[{index}]: {err}"));
            }
        }
    }
    Ok(())
}

/// Applies defaults and checks every input; returns the inputs object of the run.
pub fn resolve_inputs(recipe: &Recipe, given: &IndexMap<String, Value>) -> Result<Value, String> {
    for name in given.keys() {
        if !recipe.inputs.contains_key(name) {
            let known: Vec<&str> = recipe.inputs.keys().map(String::as_str).collect();
            return Err(format!(
                "unknown input `{name}` (this recipe takes: {})",
                if known.is_empty() {
                    "none".to_string()
                } else {
                    known.join(", ")
                }
            ));
        }
    }
    let mut out = Map::new();
    for (name, doc) in &recipe.inputs {
        let value = match (given.get(name), &doc.default) {
            (Some(value), _) => value.clone(),
            (None, Some(default)) => default.clone(),
            (None, None) if doc.required => {
                return Err(format!("input `{name}` is required"));
            }
            (None, None) => continue,
        };
        check(name, doc, &value)?;
        out.insert(name.clone(), value);
    }
    Ok(Value::Object(out))
}

/// Parses `name=value` texts per the recipe's input types.
pub fn parse_inputs(recipe: &Recipe, pairs: &[String]) -> Result<IndexMap<String, Value>, String> {
    let mut out = IndexMap::new();
    for pair in pairs {
        let (name, text) = pair
            .split_once('=')
            .ok_or_else(|| format!("`{pair}` is not of the form name=value"))?;
        let doc = recipe
            .inputs
            .get(name)
            .ok_or_else(|| format!("unknown input `{name}`"))?;
        out.insert(name.to_string(), parse_input(name, doc.ty, text)?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_parse_per_their_type() {
        assert_eq!(
            parse_input("n", InputType::Integer, "42"),
            Ok(Value::from(42))
        );
        assert!(parse_input("n", InputType::Integer, "4.2").is_err());
        assert_eq!(
            parse_input("b", InputType::Boolean, "true"),
            Ok(Value::Bool(true))
        );
        assert_eq!(
            parse_input("l", InputType::Array, "[1,2]"),
            Ok(serde_json::json!([1, 2]))
        );
        assert!(parse_input("l", InputType::Array, "{}").is_err());
        assert_eq!(
            parse_input("s", InputType::String, "fix the parser"),
            Ok(Value::from("fix the parser"))
        );
    }
}
