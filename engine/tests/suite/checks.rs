//! Project checks: configured checks, static discovery on real fixture projects, the
//! dependency bound, and counting executed tests from real captured runner output.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod bounds;
mod config;
mod counting;
mod discovery;
mod live;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use protoflow_engine::checks::{
    CheckKind, CheckOutput, CheckPurpose, CheckSource, ChecksError, DEPENDENCY_FILE_LIMIT,
    DiscoverOptions, Discovery, ProjectConfig, count_tests_executed, discover_checks,
    parse_project_config_json, project_config_schema, resolve_checks,
};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures")
        .join(name)
}

fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// A private copy of a fixture project, so tests can add files or run it.
fn fixture_copy(name: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixture(name), dir.path());
    dir
}

fn write(root: &Path, relative: &str, content: &str) {
    let path = root.join(relative);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, content).unwrap();
}

fn resolve(root: &Path) -> Discovery {
    resolve_checks(root, &DiscoverOptions::default()).unwrap()
}

fn resolve_err(root: &Path) -> ChecksError {
    resolve_checks(root, &DiscoverOptions::default()).unwrap_err()
}

fn ids(discovery: &Discovery) -> Vec<&str> {
    discovery.checks.ids().collect()
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

fn skipped_reason<'a>(discovery: &'a Discovery, candidate: &str) -> &'a str {
    discovery
        .skipped
        .iter()
        .find(|s| s.candidate == candidate)
        .map(|s| s.reason.as_str())
        .unwrap_or_else(|| panic!("{candidate} not skipped: {:?}", discovery.skipped))
}
