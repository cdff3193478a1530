//! Integration test areas, one module per area.

mod agent;
mod budget;
mod checks;
mod events;
mod exec_support;
mod executor;
mod executor_faults;
mod executor_resume;
mod findings;
mod gates;
mod lang;
mod llm;
mod mcp;
mod research;
mod store;
mod tools_checks;
mod tools_common;
mod tools_fs;
mod tools_git;
mod tools_invoke;
mod tools_process;
mod tools_sources;
mod tools_undo;
mod web;
