//! `protoflow undo [CHANGE_ID] [--yes]`: show the reverse diff of a recorded change,
//! then restore the file's preimage.
//!
//! Refuses with a conflict when the file changed since the change (never forces).
//! Without `--yes` it asks on a terminal, and refuses to act when not on one.

use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;

use miette::{IntoDiagnostic, Result, miette};
use protoflow_engine::tools::fs::{CheckpointStore, PROJECT_DB, apply_undo, plan_undo};

use super::checkpoints::format_utc;

/// Arguments of `protoflow undo`.
#[derive(Debug, Clone, clap::Args)]
pub struct UndoArgs {
    /// The change to undo (see `protoflow checkpoints`); default: the newest applied change.
    pub change_id: Option<i64>,
    /// Restore without asking (required when not on a terminal).
    #[arg(long)]
    pub yes: bool,
    /// The project root.
    #[arg(long, default_value = ".")]
    pub project: PathBuf,
}

/// Whether an answer to "Restore?" is a yes.
pub fn is_yes(answer: &str) -> bool {
    matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes")
}

/// Runs `protoflow undo`.
pub fn run(args: UndoArgs) -> Result<()> {
    let root = args.project.canonicalize().into_diagnostic()?;
    if !root.join(PROJECT_DB).exists() {
        return Err(miette!(
            help = "file changes made by protoflow tools are recorded there",
            "no changes recorded in {} (no {PROJECT_DB})",
            root.display()
        ));
    }
    let store = CheckpointStore::open_project(&root)?;
    let plan = plan_undo(&store, &root, args.change_id)?;
    let change = &plan.change;
    println!(
        "Undo change {} ({} on {}, {} UTC):",
        change.id,
        change.tool,
        change.path,
        format_utc(change.created_at_ms)
    );
    if plan.deletes {
        println!("(the file did not exist before: undo deletes it)");
    }
    print!("{}", plan.reverse_diff);
    if !args.yes {
        let stdin = std::io::stdin();
        if !stdin.is_terminal() {
            return Err(miette!(
                help = "run it again with --yes to restore without a prompt",
                "not on a terminal: refusing to undo without --yes"
            ));
        }
        eprint!("Restore `{}`? [y/N] ", change.path);
        std::io::stderr().flush().into_diagnostic()?;
        let mut answer = String::new();
        stdin.lock().read_line(&mut answer).into_diagnostic()?;
        if !is_yes(&answer) {
            println!("Nothing was changed.");
            return Ok(());
        }
    }
    apply_undo(&store, &root, &plan)?;
    if plan.deletes {
        println!("Deleted {}.", change.path);
    } else {
        println!(
            "Restored {} to {}.",
            change.path,
            change
                .revision_before
                .as_deref()
                .unwrap_or("its previous content")
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_an_explicit_yes_restores() {
        assert!(is_yes("y\n") && is_yes(" YES "));
        assert!(!is_yes("") && !is_yes("n") && !is_yes("yep"));
    }
}
