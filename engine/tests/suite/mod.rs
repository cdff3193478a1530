//! Integration test areas, one module per area.

mod checks;
mod findings;
mod llm;
mod mcp;
mod tools_checks;
mod tools_common;
mod tools_fs;
mod tools_git;
mod tools_invoke;
mod tools_process;
mod tools_undo;
mod web;
