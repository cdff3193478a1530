//! The recipe and role language: loading, validation, plans, schemas, built-ins.

mod builtins;
mod helpers;
mod loader;
mod plan;
mod robustness;
mod schemas;
mod validation;
