//! Recipes: the language (documents), loading with spans, validation and templates.
//!
//! Input moves in stages, each its own type: YAML text -> `document` (shape) ->
//! validated [`Recipe`] (meaning) -> [`crate::graph::Plan`] (graph). This module
//! must never run anything.

mod check;
pub mod diagnostic;
pub mod document;
mod limits;
pub mod load;
pub mod schema;
pub mod source;
pub mod template;
mod validated;
pub mod yaml;

pub use check::parse_duration;
pub use diagnostic::{Diagnostic, DiagnosticRecord, Diagnostics};
pub use limits::{Bound, Limits, TEMPLATE_FUEL, TEMPLATE_OUTPUT_BYTES, bounds};
pub use load::{LoadOptions, RecipeRef, load_recipe, load_recipe_str, resolve_recipe_arg};
pub use source::Source;
pub use validated::{
    BackEdge, Delegate, Foreach, Origin, OutputSpec, Recipe, ResolvedRole, Step, StepKind,
};
