//! `protoflow schema [NAME|all] [--out DIR]`: print or write the JSON Schemas
//! generated from the language's types (the files checked in under `schemas/`).

use std::path::PathBuf;

use clap::Args;
use protoflow_engine::recipe::schema::{schema_file_text, schemas};

use crate::exit;

/// Print or write the published JSON Schemas (draft 2020-12).
#[derive(Debug, Args)]
pub struct SchemaArgs {
    /// Which schema: `recipe`, `role`, `project`, or `all`.
    #[arg(default_value = "all", value_name = "NAME")]
    pub name: String,
    /// Write `NAME.schema.json` files into this directory instead of printing.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

/// Runs the command; returns the exit code.
pub fn run(args: &SchemaArgs) -> u8 {
    let selected: Vec<_> = schemas()
        .iter()
        .filter(|s| args.name == "all" || s.name == args.name)
        .collect();
    if selected.is_empty() {
        let names: Vec<&str> = schemas().iter().map(|s| s.name).collect();
        crate::output::err(&format!(
            "error: unknown schema `{}`; choose one of: {}, all\n",
            args.name,
            names.join(", ")
        ));
        return exit::INVALID;
    }
    match &args.out {
        Some(dir) => {
            if let Err(e) = std::fs::create_dir_all(dir) {
                crate::output::err(&format!("error: cannot create {}: {e}\n", dir.display()));
                return exit::INTERNAL;
            }
            for s in selected {
                let path = dir.join(s.file_name());
                if let Err(e) = std::fs::write(&path, schema_file_text(&(s.generate)())) {
                    crate::output::err(&format!("error: cannot write {}: {e}\n", path.display()));
                    return exit::INTERNAL;
                }
                crate::output::out(&format!("wrote {}\n", path.display()));
            }
        }
        None if selected.len() == 1 => {
            crate::output::out(&schema_file_text(&(selected[0].generate)()));
        }
        None => {
            let all: serde_json::Map<String, serde_json::Value> = selected
                .iter()
                .map(|s| (s.name.to_string(), (s.generate)()))
                .collect();
            crate::output::out(&schema_file_text(&serde_json::Value::Object(all)));
        }
    }
    exit::SUCCESS
}
