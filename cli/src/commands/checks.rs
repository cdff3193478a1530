//! `protoflow checks [--project DIR] [--json]`: lists the project's checks, configured or
//! discovered, and why (id, argv, cwd, env, source and reason, dependency paths,
//! truncation), plus the candidates that were skipped.
//!
//! Uses only the public engine API (`protoflow_engine::checks`); never runs a check.

use std::fmt::Write as _;
use std::path::Path;

use std::path::PathBuf;

use miette::IntoDiagnostic;
use protoflow_engine::checks::{CheckSpec, Discovery, resolve_checks};
use protoflow_engine::recipe::load::project_discover_options;

/// Arguments of `protoflow checks`.
#[derive(Debug, Clone, clap::Args)]
pub struct ChecksArgs {
    /// The project root.
    #[arg(long, default_value = ".")]
    pub project: PathBuf,
    /// Print the discovery as JSON.
    #[arg(long)]
    pub json: bool,
}

/// `protoflow checks` from its arguments.
pub fn run_args(args: &ChecksArgs) -> miette::Result<()> {
    run(&args.project, args.json)
}

/// Prints the checks of the project at `project` to stdout, as text or as JSON.
pub fn run(project: &Path, json: bool) -> miette::Result<()> {
    let discovery = resolve_checks(project, &project_discover_options())?;
    let text = if json {
        let mut text = serde_json::to_string_pretty(&discovery).into_diagnostic()?;
        text.push('\n');
        text
    } else {
        render(&discovery)
    };
    print!("{text}");
    Ok(())
}

/// The human-readable listing.
pub fn render(discovery: &Discovery) -> String {
    let mut out = String::new();
    let origin = match &discovery.config_file {
        Some(file)
            if discovery
                .checks
                .iter()
                .any(|c| c.source.label() == "configured") =>
        {
            format!("configured in {file}")
        }
        _ => "discovered".to_string(),
    };
    let _ = writeln!(
        out,
        "Checks for {} ({}): {}",
        discovery.root.display(),
        origin,
        discovery.checks.len()
    );
    for check in &discovery.checks {
        out.push('\n');
        render_check(&mut out, check);
    }
    if !discovery.skipped.is_empty() {
        let _ = writeln!(out, "\nSkipped:");
        for skipped in &discovery.skipped {
            let _ = writeln!(out, "  {}: {}", skipped.candidate, skipped.reason);
        }
    }
    if !discovery.notes.is_empty() {
        let _ = writeln!(out, "\nNotes:");
        for note in &discovery.notes {
            let _ = writeln!(out, "  {note}");
        }
    }
    out
}

fn render_check(out: &mut String, check: &CheckSpec) {
    let _ = writeln!(out, "{} [{}]", check.id, check.source.label());
    if let Some(description) = &check.description {
        let _ = writeln!(out, "  description: {description}");
    }
    let _ = writeln!(out, "  argv:   {}", shell_words(&check.argv));
    let _ = writeln!(out, "  cwd:    {}", check.cwd);
    if !check.env.is_empty() {
        let env: Vec<String> = check.env.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let _ = writeln!(out, "  env:    {}", env.join(" "));
    }
    let _ = writeln!(
        out,
        "  kind:   {} ({})",
        wire_name(&check.kind),
        wire_name(&check.purpose)
    );
    let _ = writeln!(out, "  source: {}", check.source.describe());
    let paths = &check.paths;
    let truncation = if paths.truncated {
        format!(", truncated at {} (more files match)", paths.limit)
    } else {
        String::new()
    };
    let _ = writeln!(
        out,
        "  depends on: {} file(s){} matching {}",
        paths.files.len(),
        truncation,
        paths.patterns.join(", ")
    );
}

/// argv shown as a shell would need it quoted (for reading only; checks never use a shell).
fn shell_words(argv: &[String]) -> String {
    argv.iter()
        .map(|arg| {
            let plain = !arg.is_empty()
                && arg
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_./:=@+,%".contains(c));
            if plain {
                arg.clone()
            } else {
                format!("'{}'", arg.replace('\'', r"'\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The serialized (snake_case) name of a unit enum value, as in `--json`.
fn wire_name<T: serde::Serialize>(value: &T) -> String {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::String(name)) => name,
        _ => "?".to_string(),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn arguments_that_need_quoting_are_quoted() {
        let argv = ["npm", "run", "--silent", "test", "a b", "it's", ""].map(String::from);
        assert_eq!(
            shell_words(&argv),
            r"npm run --silent test 'a b' 'it'\''s' ''"
        );
    }

    #[test]
    fn the_listing_shows_checks_reasons_and_skipped_candidates() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("package.json"),
            r#"{"scripts": {"test": "echo \"Error: no test specified\" && exit 1", "lint": "eslint ."}}"#,
        )
        .unwrap();
        let discovery = resolve_checks(
            dir.path(),
            &protoflow_engine::checks::DiscoverOptions::default(),
        )
        .unwrap();
        let text = render(&discovery);
        assert!(text.contains("(discovered): 1\n"), "{text}");
        assert!(text.contains("npm:lint [discovered]\n"), "{text}");
        assert!(text.contains("  argv:   npm run --silent lint\n"), "{text}");
        assert!(text.contains("  kind:   npm (lint)\n"), "{text}");
        assert!(
            text.contains("  source: discovered: package.json script \"lint\": eslint .\n"),
            "{text}"
        );
        assert!(
            text.contains("  depends on: 1 file(s) matching package.json,"),
            "{text}"
        );
        assert!(
            text.contains("Skipped:\n  npm:test: package.json \"test\" is npm's placeholder"),
            "{text}"
        );
    }
}
