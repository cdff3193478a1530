//! Recipes: the language (documents), loading with spans, validation and templates.
//!
//! Input moves in stages, each its own type: YAML text -> `document` (shape) ->
//! validated recipe (meaning) -> plan (graph). This module must never run anything.

pub mod document;
