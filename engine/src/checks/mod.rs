//! Project checks: the commands that verify a change (`cargo test`, pytest, unittest,
//! npm scripts, or whatever `.protoflow/project.json` configures).
//!
//! This module owns the project config shape, static discovery and test counting. It
//! never runs project code: discovery reads a few small files (capped) and walks the tree
//! (bounded, honouring `.gitignore`); running a check is the `run_check` tool's job, and
//! deciding whether a result verifies a change is the evidence layer's job.

mod cargo;
mod config;
mod discover;
mod error;
mod inventory;
mod kind;
mod npm;
mod python;
mod read;
mod spec;
mod test_count;

pub use config::{
    CONFIG_SIZE_LIMIT, CheckConfig, LoadedConfig, PROJECT_CONFIG_FILES, ProjectConfig, YamlLoader,
    load_project_config, parse_project_config_json, project_config_schema, validate_project_config,
};
pub use discover::{
    DiscoverOptions, Discovery, SkippedCandidate, discover_checks, resolve_checks,
    resolve_declared_checks,
};
pub use error::{ChecksError, ConfigParseError};
pub use inventory::WALK_ENTRY_LIMIT;
pub use kind::infer_kind;
pub use spec::{
    CheckKind, CheckPurpose, CheckSet, CheckSource, CheckSpec, DEPENDENCY_FILE_LIMIT,
    DependencyPaths, is_valid_check_id,
};
pub use test_count::{CheckOutput, count_tests_executed};
