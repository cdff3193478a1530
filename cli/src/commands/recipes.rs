//! `protoflow recipes`: the built-in recipes, with their description and inputs.

use clap::Args;
use protoflow_engine::builtins;
use protoflow_engine::recipe::{RecipeRef, load_recipe};

use super::load_options;
use crate::exit;

/// List the recipes shipped in this binary.
#[derive(Debug, Args)]
pub struct RecipesArgs {
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// Runs the command; returns the exit code.
pub fn run(args: &RecipesArgs) -> u8 {
    let options = load_options();
    let mut rows = Vec::new();
    let mut status = exit::SUCCESS;
    for b in builtins::recipes() {
        match load_recipe(&RecipeRef::Builtin(b), &options) {
            Ok(r) => rows.push(serde_json::json!({
                "name": r.name,
                "source": format!("builtin:{}", b.path),
                "description": r.document.description.clone().unwrap_or_default().trim(),
                "inputs": r.inputs.iter().map(|(k, i)| serde_json::json!({
                    "name": k,
                    "type": i.ty.as_str(),
                    "required": i.required,
                    "default": i.default,
                })).collect::<Vec<_>>(),
                "steps": r.steps.len(),
                "valid": true,
            })),
            Err(diags) => {
                // A project role that shadows a built-in one can break a built-in recipe.
                status = exit::INVALID;
                rows.push(serde_json::json!({
                    "name": b.name,
                    "source": format!("builtin:{}", b.path),
                    "valid": false,
                    "problems": diags.len(),
                }));
            }
        }
    }
    if args.json {
        crate::output::out(&format!(
            "{}\n",
            serde_json::to_string_pretty(&rows).unwrap_or_default()
        ));
        return status;
    }
    for row in &rows {
        let name = row["name"].as_str().unwrap_or_default();
        let source = row["source"].as_str().unwrap_or_default();
        if row["valid"] == false {
            crate::output::out(&format!(
                "{name:<16} {source}  (INVALID here: run `protoflow validate {name}`)\n"
            ));
            continue;
        }
        let description = row["description"].as_str().unwrap_or_default();
        let paragraph: Vec<&str> = description
            .lines()
            .take_while(|l| !l.trim().is_empty())
            .map(str::trim)
            .collect();
        let paragraph = paragraph.join(" ");
        let first_line = match paragraph.find(". ") {
            Some(i) => &paragraph[..=i],
            None => paragraph.as_str(),
        };
        crate::output::out(&format!("{name:<16} {source}\n"));
        if !first_line.is_empty() {
            crate::output::out(&format!("    {first_line}\n"));
        }
        if let Some(inputs) = row["inputs"].as_array() {
            let list: Vec<String> = inputs
                .iter()
                .map(|i| {
                    let mut s = format!(
                        "{}: {}",
                        i["name"].as_str().unwrap_or_default(),
                        i["type"].as_str().unwrap_or_default()
                    );
                    if i["required"] == true {
                        s.push_str(" (required)");
                    } else if !i["default"].is_null() {
                        s.push_str(&format!(" = {}", i["default"]));
                    }
                    s
                })
                .collect();
            if !list.is_empty() {
                crate::output::out(&format!("    inputs: {}\n", list.join(", ")));
            }
        }
    }
    status
}
