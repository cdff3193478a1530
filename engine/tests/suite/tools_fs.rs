//! File tools: confinement, symlinks, protected paths, revision-checked edits,
//! line endings, modes, size and binary limits, pagination and search.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::PathBuf;

use protoflow_engine::evidence::revision_of;
use protoflow_engine::tools::fs::{
    CreateFile, EditFile, ListDirectory, ReadFile, ReplaceFile, SearchRegex, unified_diff,
};
use protoflow_engine::tools::{Tool, ToolError};
use serde_json::json;

use super::tools_common::{Project, call, is_path_refused, reason};

fn rev(p: &Project, rel: &str) -> String {
    revision_of(&p.read(rel))
}

#[tokio::test]
async fn dotdot_escapes_are_refused_before_any_io() {
    let p = Project::new();
    p.write("a.txt", "inside\n");
    for path in ["../outside.txt", "a/../../x", "./../a.txt"] {
        let read = call(&ReadFile, &p.ctx, json!({"path": path})).await;
        assert!(is_path_refused(&read), "{path}: {read:?}");
        let create = call(&CreateFile, &p.ctx, json!({"path": path, "content": "x"})).await;
        assert!(is_path_refused(&create), "{path}: {create:?}");
    }
    assert!(!p.root().parent().unwrap().join("outside.txt").exists());
}

#[tokio::test]
async fn absolute_paths_outside_the_root_are_refused_inside_are_allowed() {
    let p = Project::new();
    p.write("a.txt", "hello\n");
    let outside = call(&ReadFile, &p.ctx, json!({"path": "/etc/passwd"})).await;
    assert!(is_path_refused(&outside));
    let inside = p.path("a.txt").display().to_string();
    let read = call(&ReadFile, &p.ctx, json!({"path": inside}))
        .await
        .unwrap();
    assert_eq!(read.value["content"], "hello\n");
    assert_eq!(read.value["path"], "a.txt");
}

#[tokio::test]
async fn a_symlink_pointing_outside_is_refused_for_reads_and_writes() {
    let p = Project::new();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.txt"), "outside secret\n").unwrap();
    symlink(outside.path(), p.path("dirlink")).unwrap();
    symlink(outside.path().join("secret.txt"), p.path("filelink")).unwrap();

    for path in ["dirlink/secret.txt", "filelink"] {
        let read = call(&ReadFile, &p.ctx, json!({"path": path})).await;
        assert!(is_path_refused(&read), "{path}: {read:?}");
        let replace = call(
            &ReplaceFile,
            &p.ctx,
            json!({"path": path, "content": "owned\n"}),
        )
        .await;
        assert!(is_path_refused(&replace), "{path}: {replace:?}");
        let edit = call(
            &EditFile,
            &p.ctx,
            json!({"path": path, "old": "outside", "new": "owned", "expected_revision": revision_of(b"outside secret\n")}),
        )
        .await;
        assert!(is_path_refused(&edit), "{path}: {edit:?}");
    }
    let create = call(
        &CreateFile,
        &p.ctx,
        json!({"path": "dirlink/new.txt", "content": "x"}),
    )
    .await;
    assert!(is_path_refused(&create));
    let search = call(
        &SearchRegex,
        &p.ctx,
        json!({"pattern": "secret", "path": "dirlink"}),
    )
    .await;
    assert!(is_path_refused(&search));
    assert_eq!(
        std::fs::read_to_string(outside.path().join("secret.txt")).unwrap(),
        "outside secret\n"
    );
    assert!(!outside.path().join("new.txt").exists());
}

#[tokio::test]
async fn a_symlink_swapped_in_between_prepare_and_execute_is_refused() {
    let p = Project::new();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("a.txt"), "one\n").unwrap();
    std::fs::write(outside.path().join("b.txt"), "bee\n").unwrap();

    // A directory on the path is swapped for a symlink.
    p.write("dir/a.txt", "one\n");
    let prepared = EditFile
        .prepare(&p.ctx, json!({"path": "dir/a.txt", "old": "one", "new": "two", "expected_revision": rev(&p, "dir/a.txt")}))
        .await
        .unwrap();
    std::fs::rename(p.path("dir"), p.path("dir-real")).unwrap();
    symlink(outside.path(), p.path("dir")).unwrap();
    let result = EditFile.execute(&p.ctx, prepared).await;
    assert!(
        matches!(result, Err(ToolError::PathRefused { .. })),
        "{result:?}"
    );

    // The file itself is swapped for a symlink.
    p.write("b.txt", "bee\n");
    let prepared = ReplaceFile
        .prepare(&p.ctx, json!({"path": "b.txt", "content": "owned\n"}))
        .await
        .unwrap();
    std::fs::remove_file(p.path("b.txt")).unwrap();
    symlink(outside.path().join("b.txt"), p.path("b.txt")).unwrap();
    let result = ReplaceFile.execute(&p.ctx, prepared).await;
    assert!(
        matches!(result, Err(ToolError::PathRefused { .. })),
        "{result:?}"
    );

    assert_eq!(
        std::fs::read_to_string(outside.path().join("a.txt")).unwrap(),
        "one\n"
    );
    assert_eq!(
        std::fs::read_to_string(outside.path().join("b.txt")).unwrap(),
        "bee\n"
    );
}

#[tokio::test]
async fn git_protoflow_and_protected_paths_cannot_be_written_even_to_create() {
    let mut p = Project::new();
    p.write(".git/HEAD", "ref: refs/heads/main\n");
    p.write("recipes/run.yaml", "steps: []\n");
    p.ctx.protected.push(PathBuf::from("recipes/run.yaml"));
    for path in [
        ".git/HEAD",
        ".git/hooks/pre-commit",
        ".protoflow/roles/evil.yaml",
        "./.git/config",
        "recipes/run.yaml",
    ] {
        let create = call(&CreateFile, &p.ctx, json!({"path": path, "content": "x"})).await;
        assert!(is_path_refused(&create), "{path}: {create:?}");
        let replace = call(&ReplaceFile, &p.ctx, json!({"path": path, "content": "x"})).await;
        assert!(is_path_refused(&replace), "{path}: {replace:?}");
    }
    assert!(!p.path(".git/hooks/pre-commit").exists());
    assert!(!p.path(".protoflow").exists());
    assert_eq!(p.read(".git/HEAD"), b"ref: refs/heads/main\n");
    // Reading protected files is fine.
    assert!(
        call(&ReadFile, &p.ctx, json!({"path": ".git/HEAD"}))
            .await
            .is_ok()
    );
}

#[tokio::test]
async fn an_old_text_occurring_twice_is_rejected_without_effect() {
    let p = Project::new();
    p.write("a.rs", "let x = 1;\nlet x = 1;\n");
    let result = call(&EditFile, &p.ctx, json!({"path": "a.rs", "old": "let x = 1;", "new": "let y = 2;", "expected_revision": rev(&p, "a.rs")})).await;
    let reason = reason(result);
    assert!(
        reason.contains("occurs 2 times") && reason.contains("lines 1, 2"),
        "{reason}"
    );
    assert_eq!(p.read("a.rs"), b"let x = 1;\nlet x = 1;\n");
}

#[tokio::test]
async fn a_stale_revision_is_rejected_without_effect() {
    let p = Project::new();
    p.write("a.txt", "one\n");
    let stale = rev(&p, "a.txt");
    p.write("a.txt", "one changed\n");
    let result = call(
        &EditFile,
        &p.ctx,
        json!({"path": "a.txt", "old": "one", "new": "two", "expected_revision": stale}),
    )
    .await;
    assert!(reason(result).contains("stale revision"));
    assert_eq!(p.read("a.txt"), b"one changed\n");
}

#[tokio::test]
async fn identical_old_and_new_and_missing_old_are_rejected() {
    let p = Project::new();
    p.write("a.txt", "one\n");
    let same = call(
        &EditFile,
        &p.ctx,
        json!({"path": "a.txt", "old": "one", "new": "one", "expected_revision": rev(&p, "a.txt")}),
    )
    .await;
    assert!(reason(same).contains("identical"));
    let missing = call(&EditFile, &p.ctx, json!({"path": "a.txt", "old": "two", "new": "three", "expected_revision": rev(&p, "a.txt")})).await;
    assert!(reason(missing).contains("not found"));
    assert_eq!(p.read("a.txt"), b"one\n");
}

#[tokio::test]
async fn an_edit_returns_the_new_revision_and_its_preview_is_what_was_written() {
    let p = Project::new();
    p.write("a.txt", "alpha\nbeta\ngamma\n");
    let before = p.read("a.txt");
    let prepared = EditFile
        .prepare(&p.ctx, json!({"path": "a.txt", "old": "beta", "new": "BETA", "expected_revision": revision_of(&before)}))
        .await
        .unwrap();
    let preview = prepared.preview.detail.clone().unwrap();
    let out = EditFile.execute(&p.ctx, prepared).await.unwrap();
    let after = p.read("a.txt");
    assert_eq!(after, b"alpha\nBETA\ngamma\n");
    assert_eq!(out.value["revision"], revision_of(&after));
    assert_eq!(
        out.facts.revision_after.as_deref(),
        Some(revision_of(&after).as_str())
    );
    assert_eq!(
        out.facts.revision_before.as_deref(),
        Some(revision_of(&before).as_str())
    );
    let actual = unified_diff(
        "a.txt",
        std::str::from_utf8(&before).unwrap(),
        std::str::from_utf8(&after).unwrap(),
    );
    assert_eq!(preview, actual);
}

#[tokio::test]
async fn a_crlf_file_stays_crlf_when_old_and_new_use_lf() {
    let p = Project::new();
    p.write("win.txt", "one\r\ntwo\r\nthree\r\n");
    call(&EditFile, &p.ctx, json!({"path": "win.txt", "old": "one\ntwo", "new": "uno\ndos\nmas", "expected_revision": rev(&p, "win.txt")}))
        .await
        .unwrap();
    assert_eq!(p.read("win.txt"), b"uno\r\ndos\r\nmas\r\nthree\r\n");
}

#[tokio::test]
async fn the_file_mode_is_preserved_by_edits_and_replacements() {
    let p = Project::new();
    p.write("run.sh", "#!/bin/sh\necho one\n");
    std::fs::set_permissions(p.path("run.sh"), std::fs::Permissions::from_mode(0o751)).unwrap();
    call(&EditFile, &p.ctx, json!({"path": "run.sh", "old": "one", "new": "two", "expected_revision": rev(&p, "run.sh")}))
        .await
        .unwrap();
    let mode = std::fs::metadata(p.path("run.sh"))
        .unwrap()
        .permissions()
        .mode()
        & 0o7777;
    assert_eq!(mode, 0o751);
    p.write("secret.cfg", "a\n");
    std::fs::set_permissions(p.path("secret.cfg"), std::fs::Permissions::from_mode(0o600)).unwrap();
    call(
        &ReplaceFile,
        &p.ctx,
        json!({"path": "secret.cfg", "content": "b\n"}),
    )
    .await
    .unwrap();
    let mode = std::fs::metadata(p.path("secret.cfg"))
        .unwrap()
        .permissions()
        .mode()
        & 0o7777;
    assert_eq!(mode, 0o600);
    // No temporary file is left behind.
    let names: Vec<String> = std::fs::read_dir(p.root())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        names.iter().all(|n| !n.contains("protoflow-tmp")),
        "{names:?}"
    );
}

#[tokio::test]
async fn a_nine_mib_file_is_refused_with_a_clear_error() {
    let p = Project::new();
    p.write("big.txt", "a".repeat(9 * 1024 * 1024));
    let read = reason(call(&ReadFile, &p.ctx, json!({"path": "big.txt"})).await);
    assert!(
        read.contains("9.0 MiB") && read.contains("up to 8 MiB"),
        "{read}"
    );
    let edit = call(
        &EditFile,
        &p.ctx,
        json!({"path": "big.txt", "old": "a", "new": "b", "expected_revision": "sha256:x"}),
    )
    .await;
    assert!(reason(edit).contains("up to 8 MiB"));
}

#[tokio::test]
async fn binary_content_is_refused() {
    let p = Project::new();
    p.write("blob.bin", [0u8, 159, 146, 150, 0, 1]);
    let read = reason(call(&ReadFile, &p.ctx, json!({"path": "blob.bin"})).await);
    assert!(read.contains("binary"), "{read}");
    let create = reason(
        call(
            &CreateFile,
            &p.ctx,
            json!({"path": "nul.txt", "content": "a\u{0}b"}),
        )
        .await,
    );
    assert!(create.contains("binary"), "{create}");
    assert!(!p.path("nul.txt").exists());
}

#[tokio::test]
async fn reads_paginate_under_the_character_cap() {
    let mut p = Project::new();
    let text: String = (1..=100).map(|i| format!("line {i:03}\n")).collect();
    p.write("long.txt", &text);
    p.ctx.read_chars = 95; // ten lines of 9 characters fit, the eleventh does not
    let first = call(&ReadFile, &p.ctx, json!({"path": "long.txt"}))
        .await
        .unwrap();
    assert_eq!(first.value["total_lines"], 100);
    assert_eq!(first.value["end_line"], 10);
    assert_eq!(first.value["next_start_line"], 11);
    assert_eq!(first.value["truncated"], true);
    assert_eq!(first.value["revision"], revision_of(text.as_bytes()));
    assert!(first.facts.truncated);
    let last = call(
        &ReadFile,
        &p.ctx,
        json!({"path": "long.txt", "start_line": 95, "end_line": 100}),
    )
    .await
    .unwrap();
    assert_eq!(
        last.value["content"],
        (95..=100)
            .map(|i| format!("line {i:03}\n"))
            .collect::<String>()
    );
    assert_eq!(last.value["next_start_line"], serde_json::Value::Null);
    assert_eq!(last.value["truncated"], false);
    let past = reason(
        call(
            &ReadFile,
            &p.ctx,
            json!({"path": "long.txt", "start_line": 101}),
        )
        .await,
    );
    assert!(past.contains("past the end"));
}

#[tokio::test]
async fn a_partial_long_line_is_marked() {
    let mut p = Project::new();
    p.write("min.js", format!("{}\nnext\n", "x".repeat(1000)));
    p.ctx.read_chars = 100;
    let out = call(&ReadFile, &p.ctx, json!({"path": "min.js"}))
        .await
        .unwrap();
    assert_eq!(out.value["content"].as_str().unwrap().len(), 100);
    assert_eq!(
        out.value["partial_line"],
        json!({"line": 1, "chars_shown": 100, "line_chars": 1001})
    );
    assert_eq!(out.value["next_start_line"], 2);
}

#[tokio::test]
async fn create_refuses_existing_files_and_makes_parent_directories() {
    let p = Project::new();
    p.write("exists.txt", "x\n");
    let again = reason(
        call(
            &CreateFile,
            &p.ctx,
            json!({"path": "exists.txt", "content": "y"}),
        )
        .await,
    );
    assert!(again.contains("already exists"));
    let out = call(
        &CreateFile,
        &p.ctx,
        json!({"path": "new/deep/file.txt", "content": "hi\n"}),
    )
    .await
    .unwrap();
    assert_eq!(p.read("new/deep/file.txt"), b"hi\n");
    assert_eq!(out.value["revision"], revision_of(b"hi\n"));
    assert_eq!(out.facts.revision_before, None);
}

#[tokio::test]
async fn list_directory_reports_kinds_without_following_symlinks() {
    let p = Project::new();
    p.write("b.txt", "b");
    p.write("sub/c.txt", "c");
    symlink("/etc", p.path("a-link")).unwrap();
    let out = call(&ListDirectory, &p.ctx, json!({})).await.unwrap();
    assert_eq!(
        out.value["entries"],
        json!([
            {"name": "a-link", "kind": "symlink"},
            {"name": "b.txt", "kind": "file", "size": 1},
            {"name": "sub", "kind": "dir"}
        ])
    );
    assert_eq!(out.value["truncated"], false);
}

#[tokio::test]
async fn search_honours_gitignore_outside_git_filters_files_and_skips_binaries() {
    let p = Project::new();
    p.write(".gitignore", "ignored/\n");
    p.write("src/lib.rs", "fn needle() {}\n");
    p.write("src/notes.md", "needle in docs\n");
    p.write("ignored/x.rs", "fn needle() {}\n");
    p.write("data.bin", b"needle\0\x01\x02");
    let all = call(&SearchRegex, &p.ctx, json!({"pattern": "needle"}))
        .await
        .unwrap();
    assert_eq!(
        all.value["matches"],
        json!([
            {"path": "src/lib.rs", "line": 1, "text": "fn needle() {}"},
            {"path": "src/notes.md", "line": 1, "text": "needle in docs"}
        ])
    );
    let rs = call(
        &SearchRegex,
        &p.ctx,
        json!({"pattern": "need+le", "file_filter": "*.rs"}),
    )
    .await
    .unwrap();
    assert_eq!(rs.value["matches"].as_array().unwrap().len(), 1);
    let bad = call(&SearchRegex, &p.ctx, json!({"pattern": "("})).await;
    assert!(matches!(bad, Err(ToolError::InvalidArguments { .. })));
}

#[tokio::test]
async fn search_results_are_bounded() {
    let p = Project::new();
    p.write("many.txt", "hit\n".repeat(1000));
    let out = call(&SearchRegex, &p.ctx, json!({"pattern": "hit"}))
        .await
        .unwrap();
    assert_eq!(out.value["matches"].as_array().unwrap().len(), 200);
    assert_eq!(out.value["truncated"], true);
}
