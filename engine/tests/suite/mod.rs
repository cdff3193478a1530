//! Integration test areas, one module per area.

mod llm;
mod web;
