//! Git tools: read-only status and diff through the real `git` binary.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Command;

use protoflow_engine::tools::ToolError;
use protoflow_engine::tools::git::{GitDiff, GitStatus};
use serde_json::json;

use super::tools_common::{Project, call};

fn git(p: &Project, args: &[&str]) {
    let status = Command::new("git")
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@example.com",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(args)
        .current_dir(p.root())
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .status()
        .unwrap();
    assert!(status.success(), "git {args:?}");
}

#[tokio::test]
async fn status_and_diff_report_the_working_tree() {
    let p = Project::new();
    git(&p, &["init", "-q"]);
    p.write("a.txt", "one\n");
    git(&p, &["add", "a.txt"]);
    git(&p, &["commit", "-q", "-m", "first"]);
    p.write("a.txt", "two\n");
    p.write("new.txt", "n\n");

    let status = call(&GitStatus, &p.ctx, json!({})).await.unwrap();
    let out = status.value["stdout"].as_str().unwrap();
    assert!(
        out.contains(" M a.txt") && out.contains("?? new.txt"),
        "{out}"
    );

    let diff = call(&GitDiff, &p.ctx, json!({"paths": ["a.txt"]}))
        .await
        .unwrap();
    let out = diff.value["stdout"].as_str().unwrap();
    assert!(out.contains("-one\n+two\n"), "{out}");
    assert_eq!(diff.facts.exit_code, Some(0));
}

#[tokio::test]
async fn refs_that_look_like_options_and_escaping_paths_are_refused() {
    let p = Project::new();
    let option = call(&GitDiff, &p.ctx, json!({"base": "--output=/tmp/pwned"})).await;
    assert!(
        matches!(option, Err(ToolError::InvalidArguments { .. })),
        "{option:?}"
    );
    let head = call(&GitDiff, &p.ctx, json!({"base": "HEAD", "head": "-R"})).await;
    assert!(
        matches!(head, Err(ToolError::InvalidArguments { .. })),
        "{head:?}"
    );
    let path = call(&GitDiff, &p.ctx, json!({"paths": ["../elsewhere"]})).await;
    assert!(
        matches!(path, Err(ToolError::PathRefused { .. })),
        "{path:?}"
    );
    assert!(!std::path::Path::new("/tmp/pwned").exists());
}

#[tokio::test]
async fn status_outside_a_repository_is_a_rejection_with_gits_message() {
    let p = Project::new();
    let result = call(&GitStatus, &p.ctx, json!({})).await;
    match result {
        Err(ToolError::Rejected { reason, .. }) => {
            assert!(reason.contains("not a git repository"), "{reason}")
        }
        other => panic!("{other:?}"),
    }
}
