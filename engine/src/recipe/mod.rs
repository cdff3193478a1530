//! Recipes: the language (documents), loading with spans, validation and templates.
//!
//! Input moves in stages, each its own type: YAML text -> `document` (shape) ->
//! validated [`Recipe`] (meaning) -> [`crate::graph::Plan`] (graph). This module
//! must never run anything.

pub mod document;
mod limits;
mod validated;

pub use limits::{Bound, Limits, bounds};
pub use validated::{
    BackEdge, Delegate, Foreach, Origin, OutputSpec, Recipe, ResolvedRole, Step, StepKind,
};
