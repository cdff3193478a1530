//! Edit → checkpoint → undo through the real binary: a recipe's tool steps write a
//! file, `protoflow checkpoints` lists the change, `protoflow undo` restores it and
//! refuses when someone else changed the file since.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Command;

use super::harness::Test;

const EDIT: &str = r#"apiVersion: protoflow/v1
kind: Recipe
name: edit
steps:
  - id: read
    tool: read_file
    with: {path: notes.txt}
  - id: edit
    tool: edit_file
    needs: [read]
    with:
      path: notes.txt
      old: "draft"
      new: "final"
      expected_revision: "{{ steps.read.output.revision }}"
"#;

fn protoflow(dir: &std::path::Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_protoflow"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

/// A project whose `notes.txt` the EDIT recipe has changed from draft to final.
fn edited_project() -> super::harness::Ran {
    Test::new()
        .file("notes.txt", "status: draft\n")
        .file("edit.yaml", EDIT)
        .args(["run", "edit.yaml", "--quiet"])
        .status(0)
        .run()
}

#[test]
fn an_edit_is_checkpointed_and_undone() {
    let ran = edited_project();
    let dir = ran.dir.path();
    assert_eq!(
        std::fs::read_to_string(dir.join("notes.txt")).unwrap(),
        "status: final\n"
    );

    let listed = protoflow(dir, &["checkpoints"]);
    let listing = String::from_utf8_lossy(&listed.stdout);
    assert!(listed.status.success(), "{listing}");
    assert!(listing.contains("notes.txt"), "{listing}");
    assert!(listing.contains("edit_file"), "{listing}");

    let undone = protoflow(dir, &["undo", "--yes"]);
    let out = String::from_utf8_lossy(&undone.stdout).into_owned()
        + &String::from_utf8_lossy(&undone.stderr);
    assert!(undone.status.success(), "{out}");
    assert!(
        out.contains("-status: final") || out.contains("+status: draft"),
        "the reverse diff is shown: {out}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("notes.txt")).unwrap(),
        "status: draft\n"
    );
}

#[test]
fn undo_refuses_when_the_file_changed_since() {
    let ran = edited_project();
    let dir = ran.dir.path();
    std::fs::write(dir.join("notes.txt"), "status: changed by hand\n").unwrap();
    let undone = protoflow(dir, &["undo", "--yes"]);
    assert_eq!(undone.status.code(), Some(1));
    let err = String::from_utf8_lossy(&undone.stderr);
    assert!(err.contains("conflict") || err.contains("changed"), "{err}");
    assert_eq!(
        std::fs::read_to_string(dir.join("notes.txt")).unwrap(),
        "status: changed by hand\n",
        "nothing is forced"
    );
}

#[test]
fn undo_without_yes_off_a_terminal_does_nothing() {
    let ran = edited_project();
    let dir = ran.dir.path();
    let undone = protoflow(dir, &["undo"]);
    assert!(!undone.status.success());
    assert_eq!(
        std::fs::read_to_string(dir.join("notes.txt")).unwrap(),
        "status: final\n"
    );
}
