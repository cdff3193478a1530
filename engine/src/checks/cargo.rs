//! Cargo discovery: a `Cargo.toml` at the project root (a package, a workspace, or both)
//! becomes a `cargo test` check depending on the manifests, the lockfile and the crates'
//! source, test, bench and example trees.
//!
//! Reads only the root `Cargo.toml` (capped); never runs cargo.

use std::path::Path;

use super::config::normalize_relative;
use super::discover::{Candidate, Findings};
use super::inventory::Inventory;
use super::read::{MANIFEST_SIZE_LIMIT, ReadOutcome, read_project_file};
use super::spec::{CheckKind, CheckPurpose};

const ID: &str = "cargo:test";

/// Per-crate trees a crate's tests depend on.
const CRATE_PATTERNS: &[&str] = &[
    "Cargo.toml",
    "build.rs",
    "src/**",
    "tests/**",
    "benches/**",
    "examples/**",
];

/// Workspace-wide files.
const ROOT_PATTERNS: &[&str] = &[
    "Cargo.lock",
    ".cargo/config.toml",
    ".cargo/config",
    "rust-toolchain",
    "rust-toolchain.toml",
];

pub(crate) fn detect(root: &Path, _inventory: &Inventory, findings: &mut Findings) {
    let text = match read_project_file(root, "Cargo.toml", MANIFEST_SIZE_LIMIT) {
        ReadOutcome::Missing => return,
        ReadOutcome::Text(text) => text,
        ReadOutcome::Problem(problem) => {
            findings.skip(ID, problem);
            return;
        }
    };
    let manifest: toml::Table = match text.parse() {
        Ok(table) => table,
        Err(err) => {
            findings.skip(ID, format!("Cargo.toml does not parse: {}", err.message()));
            return;
        }
    };
    let package = manifest
        .get("package")
        .and_then(|p| p.get("name"))
        .and_then(|n| n.as_str());
    let workspace = manifest.get("workspace").and_then(|w| w.as_table());
    if package.is_none() && workspace.is_none() {
        findings.skip(ID, "Cargo.toml has neither [package] nor [workspace]");
        return;
    }

    let mut patterns: Vec<String> = CRATE_PATTERNS.iter().map(|p| p.to_string()).collect();
    patterns.extend(ROOT_PATTERNS.iter().map(|p| p.to_string()));
    let mut members = Vec::new();
    if let Some(list) = workspace
        .and_then(|w| w.get("members"))
        .and_then(|m| m.as_array())
    {
        for member in list.iter().filter_map(|m| m.as_str()) {
            match normalize_relative(member) {
                Ok(member) if member != "." => {
                    patterns.extend(CRATE_PATTERNS.iter().map(|p| format!("{member}/{p}")));
                    members.push(member);
                }
                Ok(_) => {}
                Err(problem) => findings.notes.push(format!(
                    "Cargo workspace member `{member}` {problem}; its files are not tracked as dependencies"
                )),
            }
        }
    }

    let mut argv = vec!["cargo".to_string(), "test".to_string()];
    if workspace.is_some() {
        argv.push("--workspace".to_string());
    }
    argv.extend(["--no-fail-fast".to_string(), "--quiet".to_string()]);

    let reason = match (package, workspace.is_some()) {
        (Some(name), false) => format!("Cargo.toml at the project root declares package `{name}`"),
        (Some(name), true) => format!(
            "Cargo.toml at the project root declares package `{name}` and a workspace{}",
            members_suffix(&members)
        ),
        (None, _) => format!(
            "Cargo.toml at the project root declares a workspace{}",
            members_suffix(&members)
        ),
    };
    findings.candidates.push(Candidate {
        id: ID.to_string(),
        argv,
        env: Vec::new(),
        patterns,
        reason,
        bootstrap: false,
        kind: CheckKind::Cargo,
        purpose: CheckPurpose::Test,
    });
}

fn members_suffix(members: &[String]) -> String {
    if members.is_empty() {
        String::new()
    } else {
        format!(" with members {}", members.join(", "))
    }
}
