//! Where the run commands get plans: the recipe loader and plan builder (from the
//! `lang` work: `recipe::load`, `graph::build_plan`), and the rebuild of a stored
//! run's plan from the recipe document stored with it (JSON is YAML, so the same
//! loader validates it again; the file on disk is never re-read).

use std::path::Path;
use std::sync::Arc;

use protoflow_engine::graph::{Plan, build_plan};
use protoflow_engine::recipe::{
    LoadOptions, Recipe, load_recipe, load_recipe_str, resolve_recipe_arg,
};
use protoflow_engine::store::RunRecord;

use crate::diagnostics::render;

/// Why no plan could be made.
#[derive(Debug)]
pub enum LoadFailure {
    /// The recipe (or its argument) is invalid: rendered diagnostics for the user.
    Invalid(String),
}

/// Loads, validates and plans a recipe named on the command line (a file path, or a
/// built-in recipe name).
pub fn load_plan(arg: &str, project: &Path) -> Result<Plan, LoadFailure> {
    let options = LoadOptions::for_project(project);
    let reference = resolve_recipe_arg(arg).ok_or_else(|| {
        LoadFailure::Invalid(format!(
            "error: `{arg}` is neither a recipe file nor a built-in recipe (see `protoflow recipes`)\n"
        ))
    })?;
    let recipe = load_recipe(&reference, &options).map_err(|d| LoadFailure::Invalid(render(&d)))?;
    plan_of(recipe).map_err(LoadFailure::Invalid)
}

fn plan_of(recipe: Arc<Recipe>) -> Result<Plan, String> {
    build_plan(recipe).map_err(|e| format!("error: {e}\n"))
}

/// Rebuilds the plan of a stored run from its stored recipe document.
pub fn rebuild_plan(record: &RunRecord, project: &Path) -> Result<Plan, String> {
    let options = LoadOptions::for_project(project);
    let text = serde_json::to_string_pretty(&record.recipe_document).map_err(|e| e.to_string())?;
    let base_dir = Path::new(&record.recipe_origin)
        .parent()
        .map(Path::to_path_buf);
    let recipe = load_recipe_str(&record.recipe_origin, &text, base_dir.as_deref(), &options)
        .map_err(|d| render(&d))?;
    plan_of(recipe)
}
