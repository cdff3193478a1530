//! Helpers for the recipe-language tests.

use std::path::Path;
use std::sync::Arc;

use protoflow_engine::recipe::{Diagnostics, LoadOptions, Recipe, load_recipe_str};
use protoflow_engine::role::RoleSearchPath;

/// A recipe header with the given roles/steps body appended.
pub fn recipe(body: &str) -> String {
    format!("apiVersion: protoflow/v1\nkind: Recipe\nname: t\n{body}")
}

/// Loads `text` as `t.yaml` with only the built-in roles.
pub fn load(text: &str) -> Result<Arc<Recipe>, Diagnostics> {
    load_in(text, None)
}

/// Loads `text` with roles from `dir/.protoflow/roles` (then the built-ins) and
/// relative references resolved against `dir`.
pub fn load_in(text: &str, dir: Option<&Path>) -> Result<Arc<Recipe>, Diagnostics> {
    let options = LoadOptions {
        roles: match dir {
            Some(d) => RoleSearchPath {
                project: Some(d.join(".protoflow/roles")),
                user: None,
            },
            None => RoleSearchPath::builtins_only(),
        },
        ..LoadOptions::default()
    };
    load_recipe_str("t.yaml", text, dir, &options)
}

/// The rules of the diagnostics `text` produces (empty when it is valid).
pub fn rules(text: &str) -> Vec<&'static str> {
    match load(text) {
        Ok(_) => Vec::new(),
        Err(d) => d.rules(),
    }
}

/// The single diagnostic with `rule`, with its 1-based line and column.
pub fn find(diags: &Diagnostics, rule: &str) -> (String, usize, usize) {
    let d = diags
        .iter()
        .find(|d| d.rule == rule)
        .unwrap_or_else(|| panic!("no {rule} in {diags}"));
    let (line, col) = d
        .line_col()
        .unwrap_or_else(|| panic!("{rule} has no location"));
    (d.message.clone(), line, col)
}
