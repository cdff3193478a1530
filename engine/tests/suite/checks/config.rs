//! Configured checks: precedence over discovery, validation errors with their messages, the schema.

use super::*;

fn with_config(project: &Path, json: &str) {
    write(project, ".protoflow/project.json", json);
}

#[test]
fn configured_checks_take_precedence_and_discovery_is_reported_as_not_used() {
    let dir = fixture_copy("rust-project");
    with_config(
        dir.path(),
        r#"{
          "checks": [
            {"id": "unit", "argv": ["cargo", "test", "--lib"], "paths": ["src", "Cargo.toml"],
             "env": {"RUST_BACKTRACE": "0"}, "description": "library unit tests"},
            {"id": "fmt", "argv": ["cargo", "fmt", "--check"], "cwd": "./src/"}
          ]
        }"#,
    );
    let discovery = resolve(dir.path());
    assert_eq!(ids(&discovery), ["unit", "fmt"]);
    assert_eq!(
        discovery.config_file.as_deref(),
        Some(".protoflow/project.json")
    );
    let unit = discovery.checks.get("unit").unwrap();
    assert_eq!(
        unit.source,
        CheckSource::Configured {
            file: ".protoflow/project.json".into()
        }
    );
    assert_eq!(unit.kind, CheckKind::Cargo, "kind is inferred from argv");
    assert_eq!(unit.purpose, CheckPurpose::Test);
    assert_eq!(unit.paths.patterns, strings(&["src/**", "Cargo.toml"]));
    assert_eq!(unit.paths.files, strings(&["Cargo.toml", "src/lib.rs"]));
    assert_eq!(unit.description.as_deref(), Some("library unit tests"));
    let fmt = discovery.checks.get("fmt").unwrap();
    assert_eq!(fmt.cwd, "src");
    assert_eq!(fmt.kind, CheckKind::Custom);
    assert_eq!(
        fmt.paths.patterns,
        strings(&["**"]),
        "no paths: everything is a dependency"
    );
    assert!(
        discovery
            .notes
            .iter()
            .any(|n| n.contains("configured checks take precedence"))
    );
    assert!(
        skipped_reason(&discovery, "cargo:test")
            .contains("not used: .protoflow/project.json configures the checks")
    );
}

#[test]
fn an_explicit_kind_overrides_inference() {
    let dir = tempfile::tempdir().unwrap();
    with_config(
        dir.path(),
        r#"{"checks": [{"id": "t", "argv": ["make", "test"], "kind": "pytest"}]}"#,
    );
    let check = resolve(dir.path()).checks.get("t").cloned().unwrap();
    assert_eq!(
        (check.kind, check.purpose),
        (CheckKind::Pytest, CheckPurpose::Test)
    );
}

#[test]
fn a_config_without_checks_falls_back_to_discovery() {
    let dir = fixture_copy("python-unittest");
    with_config(
        dir.path(),
        r#"{"$schema": "../schemas/project.schema.json", "checks": []}"#,
    );
    let discovery = resolve(dir.path());
    assert_eq!(ids(&discovery), ["python:unittest"]);
    assert!(
        discovery.notes[0].contains("lists no checks"),
        "{:?}",
        discovery.notes
    );
}

#[test]
fn discover_checks_ignores_the_config() {
    let dir = fixture_copy("python-unittest");
    with_config(dir.path(), r#"{"checks": [{"id": "x", "argv": ["true"]}]}"#);
    let discovery = discover_checks(dir.path(), &DiscoverOptions::default()).unwrap();
    assert_eq!(ids(&discovery), ["python:unittest"]);
}

fn config_error(json: &str) -> ChecksError {
    let dir = tempfile::tempdir().unwrap();
    with_config(dir.path(), json);
    resolve_err(dir.path())
}

#[test]
fn an_unknown_field_is_an_error_with_its_location() {
    let err = config_error("{\n  \"checks\": [\n    {\"id\": \"t\", \"comand\": [\"x\"]}\n  ]\n}");
    let ChecksError::ConfigParse(parse) = &err else {
        panic!("{err:?}")
    };
    assert_eq!((parse.line, parse.column), (3, 24));
    assert!(
        parse
            .message
            .starts_with("checks[0].comand: unknown field `comand`"),
        "{}",
        parse.message
    );
    let text = err.to_string();
    assert!(text.contains("project.json:3:24"), "{text}");
    assert!(text.contains("expected one of `id`, `argv`"), "{text}");
    // The label covers the offending key.
    let label = miette::Diagnostic::labels(parse.as_ref())
        .unwrap()
        .next()
        .unwrap();
    assert_eq!(label.offset(), 32);
    assert_eq!(label.len(), "\"comand\"".len());

    let top = config_error(r#"{"check": []}"#);
    assert!(top.to_string().contains("unknown field `check`"), "{top}");
}

#[test]
fn malformed_json_and_trailing_content_are_parse_errors() {
    let err = config_error("{\"checks\": [}");
    assert!(
        matches!(&err, ChecksError::ConfigParse(p) if p.line == 1),
        "{err}"
    );
    let err = config_error("{\"checks\": []} {}");
    assert!(err.to_string().contains("trailing characters"), "{err}");
}

#[test]
fn a_duplicate_id_is_an_error_naming_both_places() {
    let err = config_error(
        r#"{"checks": [{"id": "unit", "argv": ["a"]}, {"id": "lint", "argv": ["b"]}, {"id": "unit", "argv": ["c"]}]}"#,
    );
    assert_eq!(
        err.to_string(),
        format!(
            "invalid project config {}: /checks/2/id: duplicate check id `unit` (first defined at /checks/0)",
            config_path_in(&err)
        )
    );
}

fn config_path_in(err: &ChecksError) -> String {
    match err {
        ChecksError::ConfigInvalid { path, .. } => path.display().to_string(),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_cwd_escaping_the_project_is_an_error() {
    for (cwd, problem) in [
        ("../other", "escapes the project with `..`"),
        ("sub/../../x", "escapes the project with `..`"),
        ("/tmp", "is absolute"),
        ("", "is empty"),
    ] {
        let err = config_error(&format!(
            r#"{{"checks": [{{"id": "t", "argv": ["x"], "cwd": "{cwd}"}}]}}"#
        ));
        let text = err.to_string();
        assert!(text.contains("/checks/0/cwd"), "{text}");
        assert!(text.contains(problem), "{cwd}: {text}");
    }
}

#[test]
fn an_empty_argv_or_program_is_an_error() {
    let err = config_error(r#"{"checks": [{"id": "t", "argv": []}]}"#);
    assert!(
        err.to_string().ends_with("/checks/0/argv: argv is empty"),
        "{err}"
    );
    let err = config_error(r#"{"checks": [{"id": "t", "argv": [" "]}]}"#);
    assert!(
        err.to_string()
            .contains("/checks/0/argv/0: the program name is empty"),
        "{err}"
    );
    let err = config_error(r#"{"checks": [{"id": "t"}]}"#);
    assert!(err.to_string().contains("missing field `argv`"), "{err}");
}

#[test]
fn bad_ids_paths_and_env_names_are_errors() {
    let err = config_error(r#"{"checks": [{"id": "Unit Tests", "argv": ["x"]}]}"#);
    assert!(
        err.to_string()
            .contains("/checks/0/id: check id `Unit Tests` is not allowed"),
        "{err}"
    );
    let err = config_error(
        r#"{"checks": [{"id": "t", "argv": ["x"], "paths": ["src/**", "../shared/**"]}]}"#,
    );
    assert!(
        err.to_string()
            .contains("/checks/0/paths/1: path `../shared/**` escapes"),
        "{err}"
    );
    let err = config_error(r#"{"checks": [{"id": "t", "argv": ["x"], "paths": ["src/[a"]}]}"#);
    assert!(err.to_string().contains("/checks/0/paths/0"), "{err}");
    let err = config_error(r#"{"checks": [{"id": "t", "argv": ["x"], "env": {"A=B": "1"}}]}"#);
    assert!(err.to_string().contains("/checks/0/env/A=B"), "{err}");
}

#[test]
fn two_config_files_are_ambiguous() {
    let dir = tempfile::tempdir().unwrap();
    with_config(dir.path(), r#"{"checks": []}"#);
    write(dir.path(), ".protoflow/project.yaml", "checks: []\n");
    assert!(
        matches!(resolve_err(dir.path()), ChecksError::ConfigAmbiguous { paths } if paths.len() == 2)
    );
}

#[test]
fn a_yaml_config_needs_the_yaml_loader() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), ".protoflow/project.yaml", "checks: []\n");
    let err = resolve_err(dir.path());
    assert!(matches!(err, ChecksError::YamlNotWired { .. }), "{err}");
    assert!(
        err.to_string().contains("no YAML loader was given"),
        "{err}"
    );

    // With a loader (here a stand-in that returns a fixed config), the config is used
    // and still validated.
    let loader = |_: &Path,
                  text: &str|
     -> Result<ProjectConfig, Box<dyn miette::Diagnostic + Send + Sync>> {
        assert_eq!(text, "checks: []\n");
        Ok(
            serde_json::from_str(r#"{"checks": [{"id": "yaml-check", "argv": ["true"]}]}"#)
                .unwrap(),
        )
    };
    let options = DiscoverOptions {
        yaml_loader: Some(&loader),
        ..DiscoverOptions::default()
    };
    let discovery = resolve_checks(dir.path(), &options).unwrap();
    assert_eq!(ids(&discovery), ["yaml-check"]);
    assert_eq!(
        discovery.config_file.as_deref(),
        Some(".protoflow/project.yaml")
    );

    let invalid =
        |_: &Path, _: &str| -> Result<ProjectConfig, Box<dyn miette::Diagnostic + Send + Sync>> {
            Ok(serde_json::from_str(r#"{"checks": [{"id": "x", "argv": []}]}"#).unwrap())
        };
    let options = DiscoverOptions {
        yaml_loader: Some(&invalid),
        ..DiscoverOptions::default()
    };
    let err = resolve_checks(dir.path(), &options).unwrap_err();
    assert!(err.to_string().contains("argv is empty"), "{err}");
}

#[cfg(unix)]
#[test]
fn a_symlinked_config_is_refused() {
    let outside = tempfile::tempdir().unwrap();
    write(outside.path(), "project.json", r#"{"checks": []}"#);
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join(".protoflow")).unwrap();
    std::os::unix::fs::symlink(
        outside.path().join("project.json"),
        dir.path().join(".protoflow/project.json"),
    )
    .unwrap();
    assert!(matches!(
        resolve_err(dir.path()),
        ChecksError::ConfigSymlink { .. }
    ));
}

#[test]
fn an_oversized_config_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    with_config(
        dir.path(),
        &format!("{{\"checks\": []}}{}", " ".repeat(1024 * 1024)),
    );
    assert!(matches!(
        resolve_err(dir.path()),
        ChecksError::ConfigTooLarge { .. }
    ));
}

#[test]
fn parse_project_config_json_is_usable_on_its_own() {
    let config = parse_project_config_json(
        Path::new("project.json"),
        r#"{"checks": [{"id": "t", "argv": ["pytest"]}]}"#,
    )
    .unwrap();
    assert_eq!(config.checks[0].cwd, ".");
    assert!(config.checks[0].env.is_empty());
}

#[test]
fn the_config_schema_rejects_unknown_fields_and_constrains_ids() {
    let schema = serde_json::to_value(project_config_schema()).unwrap();
    assert_eq!(schema["additionalProperties"], false);
    let check = &schema["$defs"]["CheckConfig"];
    assert_eq!(check["additionalProperties"], false);
    assert_eq!(
        check["properties"]["id"]["pattern"],
        "^[a-z0-9][a-z0-9_.:-]*$"
    );
    assert_eq!(check["properties"]["argv"]["minItems"], 1);
    assert_eq!(check["required"], serde_json::json!(["id", "argv"]));
}

#[test]
fn unknown_check_ids_list_the_available_ones() {
    let discovery = resolve(&fixture("npm-project"));
    let err = discovery.checks.require("npm:tests").unwrap_err();
    assert_eq!(
        err.to_string(),
        "unknown check id `npm:tests`; available: npm:test, npm:lint"
    );
}

#[test]
fn a_discovery_serializes_for_the_json_listing() {
    let discovery = resolve(&fixture("npm-placeholder"));
    let json = serde_json::to_value(&discovery).unwrap();
    assert_eq!(json["checks"][0]["id"], "npm:build");
    assert_eq!(json["checks"][0]["source"]["type"], "discovered");
    assert_eq!(json["checks"][0]["paths"]["limit"], 512);
    assert_eq!(json["skipped"][0]["candidate"], "npm:test");
}
