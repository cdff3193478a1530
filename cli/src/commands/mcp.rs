//! `protoflow mcp list [--project DIR] [--json]` and
//! `protoflow mcp trust|untrust [--project DIR] [--yes]`: show the MCP servers a run
//! in a project could use, and trust (or stop trusting) the project's own
//! `.protoflow/mcp.json`.
//!
//! Uses only the public engine API (`protoflow_engine::tools::mcp`). Never starts
//! a server. Trusting records the SHA-256 of the exact bytes shown, so a file
//! changed afterwards is untrusted again.

use std::fmt::Write as _;
use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};

use miette::{IntoDiagnostic, Result, miette};
use protoflow_engine::tools::mcp::{
    McpConfig, McpSources, PROJECT_FILE, ProjectFile, ServerConfig, Transport, TrustStore,
    load_project,
};
use serde_json::{Value, json};

use super::undo::is_yes;

/// Arguments of `protoflow mcp`.
#[derive(Debug, Clone, clap::Args)]
pub struct McpArgs {
    /// What to do.
    #[command(subcommand)]
    pub command: McpCommand,
}

/// The `protoflow mcp` subcommands.
#[derive(Debug, Clone, clap::Subcommand)]
pub enum McpCommand {
    /// List the configured MCP servers, their allowlists, and whether the
    /// project's MCP file is trusted. Starts nothing.
    List {
        /// The project root.
        #[arg(long, default_value = ".")]
        project: PathBuf,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Trust the project's .protoflow/mcp.json exactly as it is now (any later
    /// change needs trusting again).
    Trust {
        /// The project root.
        #[arg(long, default_value = ".")]
        project: PathBuf,
        /// Trust without asking (required when not on a terminal).
        #[arg(long)]
        yes: bool,
    },
    /// Stop trusting the project's MCP file.
    Untrust {
        /// The project root.
        #[arg(long, default_value = ".")]
        project: PathBuf,
    },
}

/// Runs `protoflow mcp`.
pub fn run(args: McpArgs) -> Result<()> {
    match args.command {
        McpCommand::List { project, json } => list(&project, json),
        McpCommand::Trust { project, yes } => trust(&project, yes),
        McpCommand::Untrust { project } => untrust(&project),
    }
}

fn store() -> Result<TrustStore> {
    let path = TrustStore::default_location(|name| std::env::var(name).ok())?;
    Ok(TrustStore::at(path))
}

fn list(project: &Path, as_json: bool) -> Result<()> {
    let sources = McpSources::for_project(project);
    let config = McpConfig::load(&sources)?;
    let text = if as_json {
        let mut text =
            serde_json::to_string_pretty(&to_json(&sources, &config)).into_diagnostic()?;
        text.push('\n');
        text
    } else {
        render(&sources, &config)
    };
    print!("{text}");
    Ok(())
}

fn server_json(server: &ServerConfig) -> Value {
    json!({
        "name": server.name,
        "transport": server.transport.describe(),
        "allow": server.allow.to_string(),
        "timeout_seconds": server.timeout.map(|t| t.as_secs()),
        "file": server.origin.file(),
    })
}

fn to_json(sources: &McpSources, config: &McpConfig) -> Value {
    json!({
        "user_file": sources.user_file,
        "servers": config.servers.values().map(server_json).collect::<Vec<_>>(),
        "project": config.project.as_ref().map(|p| json!({
            "file": p.file,
            "sha256": p.sha256,
            "trusted": p.trusted,
            "servers": p.servers.iter().map(server_json).collect::<Vec<_>>(),
        })),
        "notes": config.notes,
    })
}

/// The human-readable listing.
pub fn render(sources: &McpSources, config: &McpConfig) -> String {
    let mut out = String::new();
    match &sources.user_file {
        Some(file) => {
            let _ = writeln!(out, "User configuration: {}", file.display());
        }
        None => {
            let _ = writeln!(out, "User configuration: none (HOME is not set)");
        }
    }
    match &config.project {
        Some(project) if project.trusted => {
            let _ = writeln!(
                out,
                "Project configuration: {} (trusted, sha256 {})",
                project.file.display(),
                project.sha256
            );
        }
        Some(project) => {
            let _ = writeln!(
                out,
                "Project configuration: {} (NOT trusted: its servers are not used; review it, \
                 then run `protoflow mcp trust --project {}`)",
                project.file.display(),
                project.root.display()
            );
        }
        None => {
            let _ = writeln!(out, "Project configuration: none ({PROJECT_FILE})");
        }
    }
    let _ = writeln!(out, "\nServers: {}", config.servers.len());
    for server in config.servers.values() {
        render_server(&mut out, server);
    }
    if let Some(project) = config.project.as_ref().filter(|p| !p.trusted) {
        let _ = writeln!(
            out,
            "\nUntrusted project servers: {}",
            project.servers.len()
        );
        for server in &project.servers {
            render_server(&mut out, server);
        }
    }
    if !config.notes.is_empty() {
        let _ = writeln!(out, "\nNotes:");
        for note in &config.notes {
            let _ = writeln!(out, "  {note}");
        }
    }
    out
}

fn render_server(out: &mut String, server: &ServerConfig) {
    let _ = writeln!(out, "  {}", server.name);
    let _ = writeln!(out, "    {}", server.transport.describe());
    let _ = writeln!(out, "    allow: {}", server.allow);
    if let Some(timeout) = server.timeout {
        let _ = writeln!(out, "    timeout: {}s", timeout.as_secs());
    }
    let _ = writeln!(out, "    from: {}", server.origin.file().display());
}

fn describe_project(project: &ProjectFile) -> String {
    let mut out = format!(
        "{} (sha256 {}) configures {} server(s):\n",
        project.file.display(),
        project.sha256,
        project.servers.len()
    );
    for server in &project.servers {
        render_server(&mut out, server);
        // What will run must be reviewed in full, environment values included.
        if let Transport::Stdio { env, .. } = &server.transport {
            for (key, value) in env {
                let _ = writeln!(out, "    env {key}={value}");
            }
        }
    }
    out
}

fn trust(project: &Path, yes: bool) -> Result<()> {
    let store = store()?;
    let Some(found) = load_project(project, Some(&store))? else {
        return Err(miette!(
            help = "create the file first; see docs/mcp.md",
            "{} has no {PROJECT_FILE}",
            project.display()
        ));
    };
    print!("{}", describe_project(&found));
    if !yes && !confirm("Trust these servers (they run as you when a flow uses them)?")? {
        return Err(miette!("not trusted"));
    }
    // The digest of exactly the bytes shown: if the file changed meanwhile, the
    // new content does not match and stays untrusted.
    store.trust(&found.root, &found.sha256)?;
    println!(
        "Trusted {} (sha256 {}) in {}",
        found.file.display(),
        found.sha256,
        store.path().display()
    );
    Ok(())
}

fn confirm(question: &str) -> Result<bool> {
    if !std::io::stdin().is_terminal() {
        return Err(miette!(
            help = "pass --yes to trust without asking",
            "not on a terminal: cannot ask for confirmation"
        ));
    }
    print!("{question} [y/N] ");
    std::io::stdout().flush().into_diagnostic()?;
    let mut answer = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut answer)
        .into_diagnostic()?;
    Ok(is_yes(&answer))
}

fn untrust(project: &Path) -> Result<()> {
    let store = store()?;
    let root = project.canonicalize().into_diagnostic()?;
    if store.revoke(&root)? {
        println!("{} no longer trusts its {PROJECT_FILE}", root.display());
    } else {
        println!("{} was not trusted", root.display());
    }
    Ok(())
}
