//! Every broken recipe under `tests/broken/` gives its expected, located diagnostic
//! through the real binary (snapshotted), with exit code 2 and no panic.

use insta::assert_snapshot;

use crate::suite::harness::{Test, repo};

/// (fixture, the rule it must produce)
const FIXTURES: &[(&str, &str)] = &[
    ("billion-laughs.yaml", "yaml::too-many-nodes"),
    ("cycle.yaml", "recipe::cycle"),
    ("deep-nesting.yaml", "yaml::too-deep"),
    ("duplicate-key.yaml", "yaml::duplicate-key"),
    ("extends-self.yaml", "recipe::extends-cycle"),
    ("foreach-not-a-list.yaml", "recipe::foreach-source"),
    ("loop-and-limits.yaml", "recipe::loop-bound"),
    ("missing-field.yaml", "schema::missing-field"),
    ("not-utf8.yaml", "yaml::not-utf8"),
    ("tabs.yaml", "yaml::syntax"),
    ("templates.yaml", "recipe::undefined-input"),
    ("unknown-field.yaml", "schema::unknown-field"),
    ("unknown-role-and-tool.yaml", "recipe::unknown-role"),
    ("write-in-verify.yaml", "recipe::write-in-verify"),
    ("wrong-type.yaml", "schema::wrong-type"),
];

fn check(file: &str) {
    let (_, rule) = FIXTURES
        .iter()
        .find(|(f, _)| *f == file)
        .unwrap_or_else(|| panic!("{file} is not in FIXTURES"));
    let path = format!("tests/broken/{file}");
    let ran = Test::in_repo()
        .args(["validate", &path])
        .status(2)
        .stderr_contains(rule)
        .stderr_contains(&format!("{path}:"))
        .run();
    let name = file.trim_end_matches(".yaml");
    assert_snapshot!(name, ran.redact(&ran.stderr));
}

macro_rules! broken {
    ($($test:ident => $file:literal),* $(,)?) => {
        $( #[test] fn $test() { check($file); } )*
    };
}

broken! {
    billion_laughs_aliases_are_refused => "billion-laughs.yaml",
    a_cycle_in_needs_is_refused => "cycle.yaml",
    deep_nesting_is_refused => "deep-nesting.yaml",
    duplicate_keys_are_refused => "duplicate-key.yaml",
    a_recipe_extending_itself_is_refused => "extends-self.yaml",
    foreach_over_a_non_list_is_refused => "foreach-not-a-list.yaml",
    unbounded_loops_and_limits_over_ceilings_are_refused => "loop-and-limits.yaml",
    missing_required_fields_are_refused => "missing-field.yaml",
    non_utf8_bytes_are_refused => "not-utf8.yaml",
    tabs_are_refused => "tabs.yaml",
    bad_template_references_are_refused => "templates.yaml",
    unknown_fields_are_refused => "unknown-field.yaml",
    unknown_roles_and_tools_are_refused => "unknown-role-and-tool.yaml",
    writes_during_verify_are_refused => "write-in-verify.yaml",
    wrong_types_are_refused => "wrong-type.yaml",
}

#[test]
fn every_broken_fixture_has_a_test() {
    let mut on_disk: Vec<String> = std::fs::read_dir(repo().join("tests/broken"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    on_disk.sort();
    let mut listed: Vec<String> = FIXTURES.iter().map(|(f, _)| f.to_string()).collect();
    listed.sort();
    assert_eq!(on_disk, listed);
}

#[test]
fn a_very_large_file_is_refused_before_it_is_read() {
    let big = format!(
        "apiVersion: protoflow/v1\nkind: Recipe\nname: big\ndescription: \"{}\"\n",
        "x".repeat(5 * 1024 * 1024)
    );
    Test::new()
        .file("big.yaml", big)
        .args(["validate", "big.yaml"])
        .status(2)
        .stderr_contains("yaml::too-large")
        .stderr_contains("over the limit of 4194304 bytes")
        .run();
}

#[test]
fn machine_readable_diagnostics_carry_rule_file_line_and_column() {
    let ran = Test::in_repo()
        .args([
            "validate",
            "--format",
            "json",
            "tests/broken/unknown-role-and-tool.yaml",
            "recipes/verify.yaml",
        ])
        .status(2)
        .run();
    let v: serde_json::Value = serde_json::from_str(&ran.stdout).unwrap();
    assert_eq!(v["valid"], false);
    assert_eq!(v["files"][1]["valid"], true);
    assert_snapshot!("unknown-role-and-tool.json", ran.stdout);
}
