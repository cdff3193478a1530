//! Discovery per ecosystem on the fixture projects and small temp projects.

use super::*;

#[test]
fn a_cargo_package_is_discovered_as_cargo_test_with_its_sources_as_dependencies() {
    let discovery = resolve(&fixture("rust-project"));
    assert_eq!(ids(&discovery), ["cargo:test"]);
    let check = discovery.checks.get("cargo:test").unwrap();
    assert_eq!(
        check.argv,
        strings(&["cargo", "test", "--workspace", "--no-fail-fast", "--quiet"])
    );
    assert_eq!(check.cwd, ".");
    assert_eq!(check.kind, CheckKind::Cargo);
    assert_eq!(check.purpose, CheckPurpose::Test);
    let CheckSource::Discovered { reason } = &check.source else {
        panic!("{:?}", check.source)
    };
    assert!(reason.contains("package `fixture-rust`"), "{reason}");
    assert_eq!(
        check.paths.files,
        strings(&["Cargo.lock", "Cargo.toml", "src/lib.rs", "tests/sum.rs"])
    );
    assert!(!check.paths.truncated);
    assert!(discovery.notes[0].contains("no .protoflow/project.json"));
}

#[test]
fn a_cargo_workspace_tracks_its_member_crates() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "Cargo.toml",
        "[workspace]\nmembers = [\"crates/*\"]\nresolver = \"2\"\n",
    );
    write(
        dir.path(),
        "crates/parser/Cargo.toml",
        "[package]\nname = \"parser\"\n",
    );
    write(dir.path(), "crates/parser/src/lib.rs", "");
    write(dir.path(), "crates/parser/tests/t.rs", "");
    write(dir.path(), "docs/notes.md", "");
    let discovery = resolve(dir.path());
    let check = discovery.checks.require("cargo:test").unwrap();
    assert!(check.argv.contains(&"--workspace".to_string()));
    assert!(
        check
            .paths
            .patterns
            .contains(&"crates/*/src/**".to_string())
    );
    assert_eq!(
        check.paths.files,
        strings(&[
            "Cargo.toml",
            "crates/parser/Cargo.toml",
            "crates/parser/src/lib.rs",
            "crates/parser/tests/t.rs"
        ])
    );
    assert!(check.depends_on("crates/lexer/src/new.rs").unwrap());
    assert!(!check.depends_on("docs/notes.md").unwrap());
}

#[test]
fn a_broken_cargo_manifest_is_a_skipped_candidate_not_an_error() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "Cargo.toml", "[package\nname = ");
    let discovery = resolve(dir.path());
    assert!(discovery.checks.is_empty());
    assert!(skipped_reason(&discovery, "cargo:test").contains("Cargo.toml does not parse"));
}

#[test]
fn unittest_files_without_pytest_are_discovered_as_unittest_from_their_directory() {
    let discovery = resolve(&fixture("python-unittest"));
    assert_eq!(ids(&discovery), ["python:unittest"]);
    let check = discovery.checks.get("python:unittest").unwrap();
    // tests/ has no __init__.py, so discovery must start inside it (from the root,
    // unittest would find nothing: see check-outputs/ut_root.err).
    assert_eq!(
        check.argv,
        strings(&[
            "python3", "-m", "unittest", "discover", "-s", "tests", "-p", "test*.py"
        ])
    );
    assert_eq!(check.kind, CheckKind::Unittest);
    assert_eq!(
        check.env.get("PYTHONDONTWRITEBYTECODE").map(String::as_str),
        Some("1")
    );
    assert_eq!(
        check.paths.files,
        strings(&["calc.py", "tests/test_calc.py"])
    );
    assert!(
        matches!(&check.source, CheckSource::Discovered { reason } if reason.contains("1 unittest-style test file"))
    );
}

#[test]
fn a_tests_package_is_started_from_the_root_so_relative_imports_work() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "app.py", "");
    write(dir.path(), "tests/__init__.py", "");
    write(dir.path(), "tests/test_app.py", "");
    let check = resolve(dir.path())
        .checks
        .get("python:unittest")
        .cloned()
        .unwrap();
    assert_eq!(
        check.argv,
        strings(&[
            "python3", "-m", "unittest", "discover", "-s", "tests", "-t", ".", "-p", "test*.py"
        ])
    );
}

#[test]
fn pytest_configuration_wins_over_unittest_and_names_its_evidence() {
    let discovery = resolve(&fixture("python-pytest"));
    assert_eq!(ids(&discovery), ["python:pytest"]);
    let check = discovery.checks.get("python:pytest").unwrap();
    assert_eq!(
        check.argv,
        strings(&["python3", "-m", "pytest", "-p", "no:cacheprovider"])
    );
    assert_eq!(check.kind, CheckKind::Pytest);
    let CheckSource::Discovered { reason } = &check.source else {
        panic!()
    };
    assert!(
        reason.contains("pyproject.toml has [tool.pytest.ini_options]"),
        "{reason}"
    );
    assert!(reason.contains("conftest.py exists"), "{reason}");
    assert!(skipped_reason(&discovery, "python:unittest").contains("pytest"));
}

#[test]
fn each_pytest_signal_alone_selects_pytest() {
    let cases: &[(&str, &str, &str)] = &[
        ("pytest.ini", "[pytest]\n", "pytest.ini exists"),
        (
            "setup.cfg",
            "[metadata]\nname = x\n\n[tool:pytest]\naddopts = -q\n",
            "setup.cfg has [tool:pytest]",
        ),
        ("tox.ini", "[tox]\n[pytest]\n", "tox.ini has [pytest]"),
        (
            "requirements-dev.txt",
            "black\npytest>=8  # tests\n",
            "requirements-dev.txt lists pytest",
        ),
        (
            "pyproject.toml",
            "[project]\nname = \"x\"\n[project.optional-dependencies]\ntest = [\"pytest>=7\"]\n",
            "[project.optional-dependencies] test",
        ),
        (
            "pyproject.toml",
            "[dependency-groups]\ndev = [\"pytest\"]\n",
            "[dependency-groups] dev",
        ),
        (
            "pyproject.toml",
            "[tool.poetry.group.dev.dependencies]\npytest = \"^8\"\n",
            "[tool.poetry.group.dev.dependencies]",
        ),
        ("pkg/conftest.py", "", "pkg/conftest.py exists"),
    ];
    for (file, content, expected) in cases {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), "mod.py", "");
        write(dir.path(), "test_mod.py", "");
        write(dir.path(), file, content);
        let discovery = resolve(dir.path());
        assert_eq!(ids(&discovery), ["python:pytest"], "{file}");
        let reason = match &discovery.checks.get("python:pytest").unwrap().source {
            CheckSource::Discovered { reason } => reason.clone(),
            other => panic!("{other:?}"),
        };
        assert!(reason.contains(expected), "{file}: {reason}");
    }
}

#[test]
fn a_pytest_plugin_alone_or_a_comment_is_not_pytest() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "requirements.txt", "pytest-cov\n# pytest\n");
    write(dir.path(), "test_mod.py", "");
    assert_eq!(ids(&resolve(dir.path())), ["python:unittest"]);
}

#[test]
fn a_python_project_without_tests_or_runner_gets_a_bootstrap_unittest_check() {
    let discovery = resolve(&fixture("python-no-tests"));
    assert_eq!(ids(&discovery), ["python:unittest-bootstrap"]);
    let check = discovery.checks.get("python:unittest-bootstrap").unwrap();
    assert_eq!(
        check.argv,
        strings(&["python3", "-m", "unittest", "discover", "-s", "tests"])
    );
    let CheckSource::Bootstrap { reason } = &check.source else {
        panic!("{:?}", check.source)
    };
    assert!(reason.contains("no tests and no test runner"), "{reason}");
    assert!(reason.contains("requirements.txt"), "{reason}");
    assert_eq!(discovery.checks.bootstrap().count(), 1);
    // A tests/ directory created later is a dependency of the bootstrap check.
    assert!(check.depends_on("tests/test_app.py").unwrap());
    assert_eq!(check.paths.files, strings(&["app.py", "requirements.txt"]));
}

#[test]
fn npm_scripts_test_lint_typecheck_build_are_discovered() {
    let discovery = resolve(&fixture("npm-project"));
    assert_eq!(ids(&discovery), ["npm:test", "npm:lint"]);
    let test = discovery.checks.get("npm:test").unwrap();
    assert_eq!(test.argv, strings(&["npm", "run", "--silent", "test"]));
    assert_eq!(test.kind, CheckKind::Npm);
    assert_eq!(test.purpose, CheckPurpose::Test);
    assert_eq!(test.env.get("CI").map(String::as_str), Some("true"));
    assert!(
        matches!(&test.source, CheckSource::Discovered { reason } if reason == "package.json script \"test\": node --test")
    );
    assert_eq!(
        discovery.checks.get("npm:lint").unwrap().purpose,
        CheckPurpose::Lint
    );
    assert_eq!(
        test.paths.files,
        strings(&[
            "package.json",
            "scripts/lint.js",
            "src/index.js",
            "test/index.test.js"
        ])
    );
    assert!(
        discovery
            .notes
            .iter()
            .any(|n| n.contains("not used as checks") && n.contains("start"))
    );
}

#[test]
fn npms_placeholder_test_script_is_skipped_with_a_reason() {
    let discovery = resolve(&fixture("npm-placeholder"));
    assert_eq!(ids(&discovery), ["npm:build"]);
    let reason = skipped_reason(&discovery, "npm:test");
    assert!(reason.contains("npm's placeholder"), "{reason}");
    assert!(reason.contains("Error: no test specified"), "{reason}");
    assert_eq!(
        discovery.checks.get("npm:build").unwrap().purpose,
        CheckPurpose::Build
    );
}

#[test]
fn a_project_with_several_ecosystems_gets_all_their_checks() {
    let dir = fixture_copy("rust-project");
    copy_dir(&fixture("npm-project"), dir.path());
    let discovery = resolve(dir.path());
    assert_eq!(ids(&discovery), ["cargo:test", "npm:test", "npm:lint"]);
}

#[test]
fn an_empty_project_has_no_checks_and_says_why() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "README.md", "hello");
    let discovery = resolve(dir.path());
    assert!(discovery.checks.is_empty());
    assert!(
        discovery
            .notes
            .iter()
            .any(|n| n.contains("no checks were found"))
    );
}

#[test]
fn a_missing_project_root_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let err = resolve_err(&dir.path().join("nope"));
    assert!(matches!(err, ChecksError::ProjectRoot { .. }), "{err}");
}

#[test]
fn python_files_in_fixture_directories_or_nested_projects_are_not_the_projects_tests() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "Cargo.toml", "[package]\nname = \"host\"\n");
    write(dir.path(), "src/lib.rs", "");
    write(dir.path(), "tests/fixtures/py/conftest.py", "");
    write(dir.path(), "tests/fixtures/py/tests/test_x.py", "");
    write(
        dir.path(),
        "tools/gen/pyproject.toml",
        "[tool.pytest.ini_options]\n",
    );
    write(dir.path(), "tools/gen/test_gen.py", "");
    let discovery = resolve(dir.path());
    assert_eq!(ids(&discovery), ["cargo:test"]);
    let note = discovery
        .notes
        .iter()
        .find(|n| n.contains("not this project's tests"))
        .unwrap();
    assert!(
        note.contains("tests/fixtures/") && note.contains("tools/gen/"),
        "{note}"
    );

    // The same test file at the project's own tests/ is found.
    write(dir.path(), "tests/test_host.py", "");
    assert_eq!(ids(&resolve(dir.path())), ["cargo:test", "python:unittest"]);
}

#[test]
fn unittest_is_not_proposed_when_discovery_could_find_none_of_the_tests() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "Cargo.toml", "[package]\nname = \"host\"\n");
    write(dir.path(), "src/lib.rs", "");
    // Test files only in directories that unittest discovery never enters.
    write(dir.path(), "tests/eval/case-a/project/tests/test_a.py", "");
    write(dir.path(), "tests/eval/case-b/project/tests/test_b.py", "");
    let discovery = resolve(dir.path());
    assert_eq!(ids(&discovery), ["cargo:test"]);
    let skipped = discovery
        .skipped
        .iter()
        .find(|s| s.candidate == "python:unittest")
        .expect("the unittest candidate is reported as skipped");
    assert!(
        skipped.reason.contains("would be found"),
        "{}",
        skipped.reason
    );

    // One reachable test file is enough for the check.
    write(dir.path(), "tests/test_host.py", "");
    assert_eq!(ids(&resolve(dir.path())), ["cargo:test", "python:unittest"]);
}
