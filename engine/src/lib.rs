//! The protoflow engine: recipes, plans, execution, tools and evidence.
//!
//! The engine is mechanism only. It never knows the terminal (no clap, colours,
//! prompts or exit codes) and never knows a flow's or a role's name: those live in
//! `recipes/` and `roles/` as data.

pub mod agent;
pub mod builtins;
pub mod checks;
pub mod eval;
pub mod events;
pub mod evidence;
pub mod findings;
pub mod graph;
pub mod llm;
pub mod policy;
pub mod recipe;
pub mod role;
pub mod store;
pub mod task;
pub mod tls;
pub mod tools;
