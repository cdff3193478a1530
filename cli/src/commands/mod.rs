//! One file per subcommand: its arguments and its handler.

pub mod doctor;
pub mod graph;
pub mod recipes;
pub mod roles;
pub mod schema;
pub mod validate;

use std::path::PathBuf;

use protoflow_engine::recipe::LoadOptions;

/// Load options for the current directory as the project root.
pub fn load_options() -> LoadOptions {
    let root = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    LoadOptions::for_project(&root)
}
