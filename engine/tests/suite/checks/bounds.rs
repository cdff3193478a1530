//! The project walk: bounds, .gitignore, skipped trees, symlinks, size caps.

use super::*;

#[test]
fn dependency_listings_stop_at_512_files_and_say_so() {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..600 {
        write(dir.path(), &format!("pkg/m{i:03}.py"), "");
    }
    write(dir.path(), "tests/test_all.py", "");
    let discovery = resolve(dir.path());
    let check = discovery.checks.get("python:unittest").unwrap();
    assert_eq!(check.paths.limit, DEPENDENCY_FILE_LIMIT);
    assert_eq!(check.paths.files.len(), 512);
    assert!(check.paths.truncated);
    // Files beyond the listing are still dependencies by pattern.
    assert!(check.depends_on("pkg/m599.py").unwrap());

    let small = tempfile::tempdir().unwrap();
    for i in 0..511 {
        write(small.path(), &format!("m{i:03}.py"), "");
    }
    write(small.path(), "test_x.py", "");
    let check = resolve(small.path())
        .checks
        .get("python:unittest")
        .cloned()
        .unwrap();
    assert_eq!(check.paths.files.len(), 512);
    assert!(!check.paths.truncated);
}

#[test]
fn the_walk_limit_is_reported_when_hit() {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..20 {
        write(dir.path(), &format!("m{i:02}.py"), "");
    }
    let options = DiscoverOptions {
        walk_limit: 10,
        ..DiscoverOptions::default()
    };
    let discovery = resolve_checks(dir.path(), &options).unwrap();
    assert!(discovery.walk_truncated);
    assert!(discovery.checks.iter().all(|c| c.paths.truncated));
    assert!(
        discovery
            .notes
            .iter()
            .any(|n| n.contains("stopped after 10 entries"))
    );
}

#[test]
fn gitignore_is_honoured_outside_a_git_repository() {
    let dir = tempfile::tempdir().unwrap();
    assert!(!dir.path().join(".git").exists());
    write(dir.path(), ".gitignore", "generated/\n*.log\n");
    write(dir.path(), "app.py", "");
    write(dir.path(), "generated/test_generated.py", "");
    write(dir.path(), "generated/conftest.py", "");
    write(dir.path(), "run.log", "");
    let discovery = resolve(dir.path());
    // The ignored test file and conftest.py are not seen: no tests, so bootstrap.
    assert_eq!(ids(&discovery), ["python:unittest-bootstrap"]);
    let files = &discovery
        .checks
        .get("python:unittest-bootstrap")
        .unwrap()
        .paths
        .files;
    assert_eq!(files, &strings(&["app.py"]));
}

#[test]
fn dependency_and_build_trees_are_never_walked() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "package.json",
        r#"{"scripts": {"test": "node --test"}}"#,
    );
    write(dir.path(), "index.js", "");
    write(dir.path(), "node_modules/dep/index.js", "");
    write(dir.path(), "target/debug/x.js", "");
    write(dir.path(), ".git/hooks/x.js", "");
    write(dir.path(), "env/pyvenv.cfg", "home = /usr/bin\n");
    write(dir.path(), "env/lib/test_site.py", "");
    write(dir.path(), ".venv/lib/conftest.py", "");
    let discovery = resolve(dir.path());
    assert_eq!(ids(&discovery), ["npm:test"], "{:?}", discovery.skipped);
    let files = &discovery.checks.get("npm:test").unwrap().paths.files;
    assert_eq!(files, &strings(&["index.js", "package.json"]));
}

#[cfg(unix)]
#[test]
fn a_symlinked_manifest_is_not_followed() {
    let outside = tempfile::tempdir().unwrap();
    write(
        outside.path(),
        "Cargo.toml",
        "[package]\nname = \"elsewhere\"\n",
    );
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(
        outside.path().join("Cargo.toml"),
        dir.path().join("Cargo.toml"),
    )
    .unwrap();
    let discovery = resolve(dir.path());
    assert!(discovery.checks.is_empty());
    assert!(skipped_reason(&discovery, "cargo:test").contains("symlink"));
}

#[test]
fn an_oversized_package_json_is_not_parsed() {
    let dir = tempfile::tempdir().unwrap();
    let padding = " ".repeat(1024 * 1024);
    write(
        dir.path(),
        "package.json",
        &format!("{{\"scripts\": {{\"test\": \"jest\"}}}}{padding}"),
    );
    let discovery = resolve(dir.path());
    assert!(discovery.checks.is_empty());
    assert!(skipped_reason(&discovery, "npm").contains("parse limit"));
}
