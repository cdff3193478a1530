//! `protoflow roles`: every role available here (project, user config, built-in),
//! where each comes from, its kind, tools and capability policy.

use clap::Args;
use protoflow_engine::recipe::LoadOptions;
use protoflow_engine::role::load_role;

use super::load_options;
use crate::diagnostics::render;
use crate::exit;

/// List the roles available in this directory and where each comes from.
#[derive(Debug, Args)]
pub struct RolesArgs {
    /// Print JSON instead of a listing.
    #[arg(long)]
    pub json: bool,
}

/// Runs the command; returns the exit code.
pub fn run(args: &RolesArgs) -> u8 {
    let options: LoadOptions = load_options();
    let mut rows = Vec::new();
    let mut status = exit::SUCCESS;
    for listing in options.roles.list() {
        let shadows: Vec<String> = listing.shadows.iter().map(|l| l.display_name()).collect();
        match load_role(&listing.location, &options.yaml) {
            Ok(role) => {
                let d = &role.document;
                let caps: serde_json::Map<String, serde_json::Value> = d
                    .capabilities
                    .iter()
                    .map(|(c, dec)| {
                        (
                            c.as_str().to_string(),
                            serde_json::to_value(dec).unwrap_or_default(),
                        )
                    })
                    .collect();
                rows.push(serde_json::json!({
                    "name": listing.name,
                    "layer": listing.location.layer(),
                    "source": listing.location.display_name(),
                    "shadows": shadows,
                    "kind": d.kind,
                    "memory": d.memory,
                    "description": d.description.clone().unwrap_or_default().trim(),
                    "tools": d.tools,
                    "capabilities": caps,
                    "valid": true,
                }));
            }
            Err(diags) => {
                status = exit::INVALID;
                if !args.json {
                    crate::output::err(&render(&diags));
                }
                rows.push(serde_json::json!({
                    "name": listing.name,
                    "layer": listing.location.layer(),
                    "source": listing.location.display_name(),
                    "shadows": shadows,
                    "valid": false,
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
        let layer = row["layer"].as_str().unwrap_or_default();
        if row["valid"] == false {
            crate::output::out(&format!("{name:<20} {layer:<8} {source}  (INVALID)\n"));
            continue;
        }
        let kind = row["kind"].as_str().unwrap_or_default();
        crate::output::out(&format!("{name:<20} {layer:<8} {kind:<10} {source}\n"));
        let tools: Vec<&str> = row["tools"]
            .as_array()
            .map(|a| a.iter().filter_map(|t| t.as_str()).collect())
            .unwrap_or_default();
        crate::output::out(&format!(
            "    tools: {}\n",
            if tools.is_empty() {
                "(none)".to_string()
            } else {
                tools.join(", ")
            }
        ));
        let caps: Vec<String> = row["capabilities"]
            .as_object()
            .map(|m| {
                m.iter()
                    .map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or_default()))
                    .collect()
            })
            .unwrap_or_default();
        crate::output::out(&format!(
            "    capabilities: {} (anything else: deny)\n",
            if caps.is_empty() {
                "(none)".to_string()
            } else {
                caps.join(", ")
            }
        ));
        if let Some(sh) = row["shadows"].as_array().filter(|a| !a.is_empty()) {
            let list: Vec<&str> = sh.iter().filter_map(|s| s.as_str()).collect();
            crate::output::out(&format!("    shadows: {}\n", list.join(", ")));
        }
    }
    status
}
