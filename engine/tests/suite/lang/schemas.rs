//! The published schemas equal what the types generate, and shipped files point at them.

use std::path::Path;

use protoflow_engine::recipe::schema::{schema_file_text, schemas};

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap()
}

#[test]
fn checked_in_schemas_match_the_types() {
    for s in schemas() {
        let path = repo().join("schemas").join(s.file_name());
        let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            on_disk == schema_file_text(&(s.generate)()),
            "{} drifted from the types: run `cargo run -p protoflow -- schema --out schemas`",
            path.display()
        );
    }
}

#[test]
fn schemas_are_draft_2020_12_and_reject_unknown_fields() {
    for s in schemas() {
        let v = (s.generate)();
        assert_eq!(v["$schema"], "https://json-schema.org/draft/2020-12/schema");
        assert_eq!(v["additionalProperties"], false, "{}", s.name);
    }
}

#[test]
fn every_shipped_file_starts_with_its_schema_modeline() {
    for (dir, schema) in [("recipes", "recipe"), ("roles", "role")] {
        for entry in std::fs::read_dir(repo().join(dir)).unwrap() {
            let path = entry.unwrap().path();
            let text = std::fs::read_to_string(&path).unwrap();
            let first = text.lines().next().unwrap_or_default();
            assert_eq!(
                first,
                format!("# yaml-language-server: $schema=../schemas/{schema}.schema.json"),
                "{}",
                path.display()
            );
        }
    }
}
