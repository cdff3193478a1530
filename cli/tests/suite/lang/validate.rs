//! `protoflow validate`: shipped files pass, built-in names work anywhere, a file
//! path wins over a built-in name, and exit codes are 0 / 2.

use crate::suite::harness::Test;

#[test]
fn every_shipped_recipe_and_role_validates() {
    let mut args = vec!["validate".to_string()];
    for dir in ["recipes", "roles"] {
        let mut files: Vec<String> = std::fs::read_dir(crate::suite::harness::repo().join(dir))
            .unwrap()
            .map(|e| format!("{dir}/{}", e.unwrap().file_name().to_string_lossy()))
            .collect();
        files.sort();
        args.extend(files);
    }
    Test::in_repo()
        .args(&args)
        .status(0)
        .stdout_contains("ok  recipes/coding.yaml: recipe `coding`")
        .stdout_contains("ok  roles/verifier.yaml: role `verifier`")
        .run();
}

#[test]
fn built_in_names_validate_in_any_directory() {
    Test::new()
        .args([
            "validate",
            "coding",
            "code-review",
            "due-diligence",
            "verify",
            "architect",
        ])
        .status(0)
        .stdout_contains("ok  coding: recipe `coding`")
        .stdout_contains("ok  architect: role `architect`")
        .run();
}

#[test]
fn a_file_path_wins_over_a_built_in_name() {
    Test::new()
        .file(
            "coding",
            "apiVersion: protoflow/v1\nkind: Recipe\nname: mine\n",
        )
        .args(["validate", "coding"])
        .status(0)
        .stdout_contains("recipe `mine`")
        .run();
}

#[test]
fn an_unknown_name_is_a_usage_error() {
    Test::new()
        .args(["validate", "no-such-recipe"])
        .status(2)
        .stderr_contains("document::not-found")
        .run();
}

#[test]
fn a_team_recipe_extends_a_shipped_one() {
    Test::new()
        .file(
            "team.yaml",
            "apiVersion: protoflow/v1\nkind: Recipe\nname: team-coding\nextends: coding\nroles:\n  coder:\n    prompt_append: Follow docs/STYLE.md.\nlimits:\n  model_calls: 100\n",
        )
        .args(["validate", "team.yaml"])
        .status(0)
        .stdout_contains("recipe `team-coding`: 7 steps")
        .run();
}

#[test]
fn project_roles_are_used_and_checked() {
    Test::new()
        .file(
            ".protoflow/roles/coder.yaml",
            "apiVersion: protoflow/v1\nkind: llm\nname: coder\nprompt: x\ntools: [edit_file]\n",
        )
        .args(["validate", "coding"])
        .status(2)
        .stderr_contains("role::tool-denied")
        .stderr_contains(".protoflow/roles/coder.yaml:5:9")
        .run();
}

#[test]
fn no_arguments_is_a_usage_error() {
    let ran = Test::new().args(["validate"]).run();
    assert_eq!(ran.status, 2, "{}", ran.stderr);
    Test::new().args(["frobnicate"]).status(2).run();
}

#[test]
fn a_closed_stdout_does_not_panic() {
    // `protoflow graph coding | head -1` style: the harness asserts no panic text.
    Test::new().args(["graph", "coding"]).status(0).run();
}

#[test]
fn a_role_with_a_misspelled_kind_is_checked_as_a_role() {
    Test::new()
        .file(
            "r.yaml",
            "apiVersion: protoflow/v1\nkind: LLM\nname: r\nprompt: p\ntools: [read_file]\n",
        )
        .args(["validate", "r.yaml"])
        .status(2)
        .stderr_contains("schema::invalid-value")
        .stderr_contains("\"llm\"")
        .run();
}
