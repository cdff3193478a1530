//! One file per subcommand: its arguments and its handler.

pub mod checkpoints;
pub mod checks;
pub mod doctor;
pub mod eval;
pub mod graph;
pub mod mcp;
pub mod recipes;
pub mod report;
pub mod resume;
pub mod roles;
pub mod run;
pub mod run_output;
pub mod runs;
pub mod schema;
pub mod undo;
pub mod validate;

use std::path::PathBuf;

use protoflow_engine::recipe::LoadOptions;

/// Load options for the current directory as the project root.
pub fn load_options() -> LoadOptions {
    let root = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    LoadOptions::for_project(&root)
}
