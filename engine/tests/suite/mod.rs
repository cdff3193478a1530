//! Integration test areas, one module per area.
//! Engine integration tests, one module per area.
//! Integration tests by area.

mod llm;
mod web;

mod checks;

mod findings;
