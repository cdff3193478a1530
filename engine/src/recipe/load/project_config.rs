//! `.protoflow/project.yaml`: the project config read with the recipe loader, so a
//! YAML config gets the same budgets, spans and located errors as a recipe.

use std::path::Path;
use std::sync::OnceLock;

use miette::Diagnostic as MietteDiagnostic;

use super::parse::parse_typed;
use crate::checks::{DiscoverOptions, ProjectConfig};
use crate::recipe::diagnostic::{Diagnostic, Diagnostics};
use crate::recipe::schema::{CompiledSchema, project_schema};
use crate::recipe::yaml::YamlLimits;

fn compiled() -> Result<&'static CompiledSchema, String> {
    static SCHEMA: OnceLock<Result<CompiledSchema, String>> = OnceLock::new();
    SCHEMA
        .get_or_init(|| CompiledSchema::new(project_schema()))
        .as_ref()
        .map_err(Clone::clone)
}

/// Parses a YAML project config: shape-checked against `schemas/project.schema.json`,
/// with every error located at its line and column.
pub fn load_project_config_yaml(
    path: &Path,
    text: &str,
) -> Result<ProjectConfig, Box<dyn MietteDiagnostic + Send + Sync + 'static>> {
    let schema = compiled().map_err(|e| {
        Box::new(Diagnostics::from(Diagnostic::new(
            "project::schema",
            format!("the project config schema does not compile: {e}"),
        ))) as Box<dyn MietteDiagnostic + Send + Sync>
    })?;
    let name = path.display().to_string();
    parse_typed::<ProjectConfig>(&name, text.as_bytes(), schema, &YamlLimits::default())
        .map(|parsed| parsed.document)
        .map_err(|diagnostics| Box::new(diagnostics) as Box<dyn MietteDiagnostic + Send + Sync>)
}

/// Discovery options that accept `.protoflow/project.yaml` as well as `.json`.
pub fn project_discover_options() -> DiscoverOptions<'static> {
    DiscoverOptions {
        yaml_loader: Some(&load_project_config_yaml),
        ..DiscoverOptions::default()
    }
}
