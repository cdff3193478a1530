//! `protoflow validate FILE...`: parse, schema-check and semantically check recipes
//! and roles; print every problem; exit 2 when anything is invalid.

use clap::{Args, ValueEnum};
use protoflow_engine::recipe::load::{LoadedDocument, load_any};
use protoflow_engine::recipe::{DiagnosticRecord, Diagnostics};
use serde::Serialize;

use super::load_options;
use crate::diagnostics::render;
use crate::exit;

/// Output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Human-readable, with source snippets.
    Human,
    /// One JSON document with every file's result.
    Json,
}

/// Check recipes and roles without running anything.
#[derive(Debug, Args)]
pub struct ValidateArgs {
    /// Recipe or role files, or built-in names (a file path always wins).
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

#[derive(Debug, Serialize)]
struct FileResult {
    file: String,
    valid: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    kind: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<String>,
    diagnostics: Vec<DiagnosticRecord>,
}

/// Runs the command; returns the exit code.
pub fn run(args: &ValidateArgs) -> u8 {
    let options = load_options();
    let mut results = Vec::new();
    let mut human_err = String::new();
    let mut human_out = String::new();
    for file in &args.files {
        match load_any(file, &options) {
            Ok(doc) => {
                let (kind, name, summary) = match &doc {
                    LoadedDocument::Recipe(r) => (
                        "recipe",
                        r.name.clone(),
                        format!(
                            "recipe `{}`: {} steps, {} roles",
                            r.name,
                            r.steps.len(),
                            r.roles.len()
                        ),
                    ),
                    LoadedDocument::Role(r) => (
                        "role",
                        r.document.name.clone(),
                        format!(
                            "role `{}` ({} tools)",
                            r.document.name,
                            r.document.tools.len()
                        ),
                    ),
                };
                human_out.push_str(&format!("ok  {file}: {summary}\n"));
                results.push(FileResult {
                    file: file.clone(),
                    valid: true,
                    kind: Some(kind),
                    name: Some(name),
                    diagnostics: Vec::new(),
                });
            }
            Err(diags) => {
                human_err.push_str(&render(&diags));
                human_err.push_str(&format!(
                    "error: {file} is invalid ({} problem{})\n\n",
                    diags.len(),
                    if diags.len() == 1 { "" } else { "s" }
                ));
                results.push(FileResult {
                    file: file.clone(),
                    valid: false,
                    kind: None,
                    name: None,
                    diagnostics: records(&diags),
                });
            }
        }
    }
    let all_valid = results.iter().all(|r| r.valid);
    match args.format {
        Format::Human => {
            crate::output::out(&human_out);
            crate::output::err(&human_err);
        }
        Format::Json => {
            let doc = serde_json::json!({ "valid": all_valid, "files": results });
            crate::output::out(&format!(
                "{}\n",
                serde_json::to_string_pretty(&doc).unwrap_or_default()
            ));
        }
    }
    if all_valid {
        exit::SUCCESS
    } else {
        exit::INVALID
    }
}

fn records(diags: &Diagnostics) -> Vec<DiagnosticRecord> {
    diags.iter().map(|d| d.to_record()).collect()
}
