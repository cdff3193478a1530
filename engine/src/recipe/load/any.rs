//! Loading a document whose kind is not known in advance (`protoflow validate FILE`):
//! a recipe (`kind: Recipe`) or a role (`kind: llm` / `kind: tool-only`).

use std::path::Path;
use std::sync::Arc;

use serde_json::Value;

use super::{LoadOptions, RecipeRef, load_recipe, read_capped};
use crate::builtins;
use crate::recipe::diagnostic::Diagnostics;
use crate::recipe::validated::{Origin, Recipe};
use crate::recipe::yaml::load_yaml;
use crate::role::{LoadedRole, RoleLocation, load_role, load_role_bytes};

/// What kind of document a file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DocumentKind {
    /// `kind: Recipe`.
    Recipe,
    /// `kind: llm` or `kind: tool-only`.
    Role,
}

/// The kind a document declares, when it declares one we know; otherwise a guess
/// from role-only fields (`prompt`, `tools`, `memory` at the top level), so that a
/// role with a misspelled `kind` is checked against the role schema.
pub fn detect_kind(value: &Value) -> Option<DocumentKind> {
    match value.get("kind").and_then(Value::as_str) {
        Some("Recipe") => Some(DocumentKind::Recipe),
        Some("llm" | "tool-only") => Some(DocumentKind::Role),
        _ if ["prompt", "tools", "memory"]
            .iter()
            .any(|k| value.get(k).is_some()) =>
        {
            Some(DocumentKind::Role)
        }
        _ => None,
    }
}

/// A loaded and validated document of either kind.
#[derive(Debug, Clone)]
pub enum LoadedDocument {
    /// A validated recipe.
    Recipe(Arc<Recipe>),
    /// A checked role.
    Role(Box<LoadedRole>),
}

/// Validates `arg`: an existing file (recipe or role, by its `kind`), otherwise a
/// built-in recipe name, otherwise a built-in role name.
pub fn load_any(arg: &str, options: &LoadOptions) -> Result<LoadedDocument, Diagnostics> {
    let path = Path::new(arg);
    if path.is_file() {
        let bytes = read_capped(path, arg, &options.yaml)?;
        // A cheap first look at `kind`; the real loaders report every error anyway.
        let kind = load_yaml(arg, &bytes, &options.yaml)
            .ok()
            .and_then(|(_, doc)| detect_kind(&doc.value));
        return match kind {
            Some(DocumentKind::Role) => {
                load_role_bytes(arg, &bytes, Origin::File(path.to_path_buf()), &options.yaml)
                    .map(|r| LoadedDocument::Role(Box::new(r)))
            }
            _ => load_recipe(&RecipeRef::File(path.to_path_buf()), options)
                .map(LoadedDocument::Recipe),
        };
    }
    if let Some(b) = builtins::recipe(arg) {
        return load_recipe(&RecipeRef::Builtin(b), options).map(LoadedDocument::Recipe);
    }
    if let Some(b) = builtins::role(arg) {
        return load_role(&RoleLocation::Builtin(b), &options.yaml)
            .map(|r| LoadedDocument::Role(Box::new(r)));
    }
    Err(crate::recipe::Diagnostic::new(
        "document::not-found",
        format!("`{arg}` is neither a file nor a built-in recipe or role"),
    )
    .with_help(
        "give a path to a .yaml file, or a name from `protoflow recipes` / `protoflow roles`",
    )
    .into())
}
