//! `protoflow schema`: the printed schemas equal the checked-in files.

use crate::suite::harness::{Test, repo};

#[test]
fn printed_schemas_equal_the_checked_in_files() {
    for name in ["recipe", "role"] {
        let ran = Test::new().args(["schema", name]).status(0).run();
        let on_disk =
            std::fs::read_to_string(repo().join(format!("schemas/{name}.schema.json"))).unwrap();
        assert!(ran.stdout == on_disk, "schemas/{name}.schema.json drifted");
    }
}

#[test]
fn schemas_are_written_to_a_directory() {
    let ran = Test::new()
        .args(["schema", "all", "--out", "out"])
        .status(0)
        .stdout_contains("recipe.schema.json")
        .run();
    let written = std::fs::read_to_string(ran.dir.path().join("out/role.schema.json")).unwrap();
    let on_disk = std::fs::read_to_string(repo().join("schemas/role.schema.json")).unwrap();
    assert_eq!(written, on_disk);
}

#[test]
fn an_unknown_schema_name_is_a_usage_error() {
    Test::new()
        .args(["schema", "nope"])
        .status(2)
        .stderr_contains("unknown schema")
        .run();
}
