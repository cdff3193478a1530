//! Integration test areas, one module per area.

mod checks;
mod findings;
mod llm;
mod web;
