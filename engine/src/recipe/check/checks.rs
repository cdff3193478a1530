//! Checks a recipe declares itself: the same rules as `.protoflow/project.json`
//! (valid unique ids, a non-empty argv, a cwd that stays in the project).

use std::path::Path;

use super::Ctx;
use crate::checks::{ChecksError, ProjectConfig, validate_project_config};
use crate::recipe::diagnostic::Diagnostic;

/// Reports the first problem of the recipe's `checks`, at its value.
pub(super) fn check_declared_checks(ctx: &mut Ctx<'_>) {
    if ctx.doc.checks.is_empty() {
        return;
    }
    let config = ProjectConfig {
        schema: None,
        checks: ctx.doc.checks.clone(),
    };
    if let Err(error) = validate_project_config(Path::new(&ctx.doc.name), &config) {
        let (pointer, message, help) = match error {
            ChecksError::ConfigInvalid {
                pointer,
                message,
                help,
                ..
            } => (pointer, message, help),
            other => ("/checks".to_string(), other.to_string(), String::new()),
        };
        let mut d = Diagnostic::new("recipe::invalid-check", message);
        if !help.is_empty() {
            d = d.with_help(help);
        }
        ctx.at(d, &pointer);
    }
}
