//! `protoflow graph RECIPE [--format mermaid|dot]`: the validated plan as a diagram.

use clap::{Args, ValueEnum};
use protoflow_engine::graph::{build_plan, to_dot, to_mermaid};
use protoflow_engine::recipe::{Diagnostic, load_recipe, resolve_recipe_arg};

use super::load_options;
use crate::diagnostics::render;
use crate::exit;

/// Diagram format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum GraphFormat {
    /// Mermaid flowchart (renders in Markdown on most forges).
    Mermaid,
    /// Graphviz DOT.
    Dot,
}

/// Show a recipe's plan: steps, needs, fan-out, loops and phases.
#[derive(Debug, Args)]
pub struct GraphArgs {
    /// A recipe file or a built-in recipe name.
    #[arg(value_name = "RECIPE")]
    pub recipe: String,
    /// Diagram format.
    #[arg(long, value_enum, default_value_t = GraphFormat::Mermaid)]
    pub format: GraphFormat,
}

/// Runs the command; returns the exit code.
pub fn run(args: &GraphArgs) -> u8 {
    let Some(reference) = resolve_recipe_arg(&args.recipe) else {
        let d = Diagnostic::new(
            "document::not-found",
            format!("`{}` is neither a file nor a built-in recipe", args.recipe),
        )
        .with_help("`protoflow recipes` lists the built-in recipes");
        crate::output::err(&render(&d.into()));
        return exit::INVALID;
    };
    let recipe = match load_recipe(&reference, &load_options()) {
        Ok(r) => r,
        Err(diags) => {
            crate::output::err(&render(&diags));
            return exit::INVALID;
        }
    };
    match build_plan(recipe) {
        Ok(plan) => {
            crate::output::out(&match args.format {
                GraphFormat::Mermaid => to_mermaid(&plan),
                GraphFormat::Dot => to_dot(&plan),
            });
            exit::SUCCESS
        }
        Err(e) => {
            crate::output::err(&format!(
                "internal error: a validated recipe has no plan: {e}\n"
            ));
            exit::INTERNAL
        }
    }
}
