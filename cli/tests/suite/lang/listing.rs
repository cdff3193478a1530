//! `protoflow recipes` and `protoflow roles`: what is available and from where.

use crate::suite::harness::Test;

#[test]
fn recipes_lists_the_built_ins_with_their_inputs() {
    Test::new()
        .args(["recipes"])
        .status(0)
        .stdout_contains("coding           builtin:recipes/coding.yaml")
        .stdout_contains("inputs: task: string (required)")
        .stdout_contains("verify")
        .stdout_lacks("INVALID")
        .run();
}

#[test]
fn roles_shows_layer_kind_tools_and_policy() {
    Test::new()
        .args(["roles"])
        .status(0)
        .stdout_contains("verifier")
        .stdout_contains("tool-only")
        .stdout_contains("tools: run_check, discover_checks")
        .stdout_contains("filesystem.write=ask")
        .run();
}

#[test]
fn project_and_user_roles_shadow_the_built_ins() {
    let role = "apiVersion: protoflow/v1\nkind: llm\nname: NAME\nprompt: ours\ntools: [read_file]\ncapabilities: {workspace.read: allow}\n";
    let ran = Test::new()
        .file(".protoflow/roles/coder.yaml", role.replace("NAME", "coder"))
        .file(
            ".xdg-config/protoflow/roles/helper.yaml",
            role.replace("NAME", "helper"),
        )
        .args(["roles", "--json"])
        .status(0)
        .run();
    let rows: serde_json::Value = serde_json::from_str(&ran.stdout).unwrap();
    let find = |n: &str| {
        rows.as_array()
            .unwrap()
            .iter()
            .find(|r| r["name"] == n)
            .cloned()
            .unwrap()
    };
    assert_eq!(find("coder")["layer"], "project");
    assert_eq!(find("coder")["shadows"][0], "builtin:roles/coder.yaml");
    assert_eq!(find("helper")["layer"], "user");
    assert_eq!(find("architect")["layer"], "builtin");
}

#[test]
fn the_user_config_directory_follows_xdg_config_home() {
    let role = "apiVersion: protoflow/v1\nkind: tool-only\nname: checker\ntools: [run_check]\ncapabilities: {process.execute: allow}\n";
    let t = Test::new().file("cfg/protoflow/roles/checker.yaml", role);
    let cfg = t.path().join("cfg").display().to_string();
    t.env("XDG_CONFIG_HOME", &cfg)
        .args(["roles"])
        .status(0)
        .stdout_contains("checker              user     tool-only")
        .run();
    // Without it, the role is not found.
    Test::new()
        .file("cfg/protoflow/roles/checker.yaml", role)
        .args(["roles"])
        .status(0)
        .stdout_lacks("checker")
        .run();
}
