//! JSON Schema generation (draft 2020-12) from the document types.
//!
//! The schemas are the language's published contract: `schemas/*.schema.json` are
//! checked in and must equal what this module generates. Optional fields are not
//! nullable in the published schema (write nothing rather than `null`).

use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, Schema};
use serde_json::Value;

use crate::checks::ProjectConfig;
use crate::recipe::document::RecipeDocument;
use crate::role::RoleDocument;

/// One published schema.
#[derive(Debug, Clone, Copy)]
pub struct NamedSchema {
    /// Its short name (`recipe`, `role`): the CLI argument and the file stem.
    pub name: &'static str,
    /// Generates it.
    pub generate: fn() -> Value,
}

impl NamedSchema {
    /// The file name under `schemas/` (`recipe.schema.json`).
    pub fn file_name(&self) -> String {
        format!("{}.schema.json", self.name)
    }
}

/// Every schema the language publishes, in a stable order.
pub fn schemas() -> &'static [NamedSchema] {
    &[
        NamedSchema {
            name: "recipe",
            generate: recipe_schema,
        },
        NamedSchema {
            name: "role",
            generate: role_schema,
        },
        NamedSchema {
            name: "project",
            generate: project_schema,
        },
    ]
}

/// The schema of recipe files.
pub fn recipe_schema() -> Value {
    generate::<RecipeDocument>("protoflow recipe")
}

/// The schema of role files.
pub fn role_schema() -> Value {
    generate::<RoleDocument>("protoflow role")
}

/// The schema of `.protoflow/project.json` / `.yaml`.
pub fn project_schema() -> Value {
    generate::<ProjectConfig>("protoflow project config")
}

/// Generates the published schema of a document type.
pub fn generate<T: JsonSchema>(title: &str) -> Value {
    let generator = SchemaSettings::draft2020_12().into_generator();
    let schema: Schema = generator.into_root_schema_for::<T>();
    let mut value = schema.to_value();
    strip_nullable(&mut value);
    if let Value::Object(map) = &mut value {
        map.insert("title".into(), Value::String(title.to_string()));
    }
    value
}

/// The text written to `schemas/NAME.schema.json`: pretty JSON and a final newline.
pub fn schema_file_text(schema: &Value) -> String {
    let mut s = serde_json::to_string_pretty(schema).unwrap_or_default();
    s.push('\n');
    s
}

/// `anyOf: [X, {type: null}]` -> X and `type: [T, "null"]` -> T, everywhere.
fn strip_nullable(value: &mut Value) {
    match value {
        Value::Object(map) => {
            if let Some(Value::Array(types)) = map.get_mut("type") {
                types.retain(|t| t != "null");
                if types.len() == 1 {
                    let t = types.remove(0);
                    map.insert("type".into(), t);
                }
            }
            let replace = match map.get("anyOf") {
                Some(Value::Array(branches)) if branches.len() == 2 => {
                    let is_null = |b: &Value| b.get("type") == Some(&Value::String("null".into()));
                    match (is_null(&branches[0]), is_null(&branches[1])) {
                        (false, true) => Some(branches[0].clone()),
                        (true, false) => Some(branches[1].clone()),
                        _ => None,
                    }
                }
                _ => None,
            };
            if let Some(Value::Object(inner)) = replace {
                map.remove("anyOf");
                for (k, v) in inner {
                    map.entry(k).or_insert(v);
                }
            }
            for v in map.values_mut() {
                strip_nullable(v);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(strip_nullable),
        _ => {}
    }
}
