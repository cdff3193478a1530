//! The recipe and role language: loading, validation, plans, schemas, built-ins.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod builtins;
pub(crate) mod helpers;
mod loader;
mod plan;
mod robustness;
mod schemas;
mod validation;
