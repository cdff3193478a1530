//! `protoflow checkpoints`: list the latest recorded file changes (the preimages
//! kept for `protoflow undo`).
//!
//! Reads `.protoflow/protoflow.db` only; never creates it and never changes files.

use std::path::PathBuf;

use miette::{IntoDiagnostic, Result};
use protoflow_engine::tools::fs::{Change, CheckpointStore, PROJECT_DB};

/// Arguments of `protoflow checkpoints`.
#[derive(Debug, Clone, clap::Args)]
pub struct CheckpointsArgs {
    /// The project root.
    #[arg(long, default_value = ".")]
    pub project: PathBuf,
    /// How many changes to list, newest first.
    #[arg(long, default_value_t = 20)]
    pub limit: usize,
    /// Print the changes as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Formats milliseconds since the Unix epoch as `YYYY-MM-DD HH:MM:SS` UTC.
pub fn format_utc(ms: u64) -> String {
    let secs = ms / 1000;
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Civil-from-days (Howard Hinnant's algorithm), for days since 1970-01-01.
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02}",
        rem / 3600,
        (rem % 3600) / 60,
        rem % 60
    )
}

/// A revision shortened for a table (`sha256:0123456789ab`), `-` when absent.
pub fn short_revision(revision: Option<&str>) -> String {
    match revision {
        Some(r) => r.chars().take("sha256:".len() + 12).collect(),
        None => "-".to_string(),
    }
}

/// The table `protoflow checkpoints` prints.
pub fn render_table(changes: &[Change]) -> String {
    let mut out = format!(
        "{:>6}  {:<19}  {:<8}  {:<12}  {:<19} -> {:<19}  {}\n",
        "ID", "TIME (UTC)", "STATUS", "TOOL", "BEFORE", "AFTER", "PATH"
    );
    for c in changes {
        out.push_str(&format!(
            "{:>6}  {:<19}  {:<8}  {:<12}  {:<19} -> {:<19}  {}\n",
            c.id,
            format_utc(c.created_at_ms),
            c.status.as_str(),
            c.tool,
            short_revision(c.revision_before.as_deref()),
            short_revision(c.revision_after.as_deref()),
            c.path
        ));
    }
    out
}

/// Runs `protoflow checkpoints`.
pub fn run(args: CheckpointsArgs) -> Result<()> {
    let root = args.project.canonicalize().into_diagnostic()?;
    if !root.join(PROJECT_DB).exists() {
        println!(
            "No changes recorded in {} (no {PROJECT_DB}).",
            root.display()
        );
        return Ok(());
    }
    let store = CheckpointStore::open_project(&root)?;
    let changes = store.list(args.limit)?;
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&changes).into_diagnostic()?
        );
    } else if changes.is_empty() {
        println!("No changes recorded in {}.", root.display());
    } else {
        print!("{}", render_table(&changes));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_utc_calendar_dates() {
        assert_eq!(format_utc(0), "1970-01-01 00:00:00");
        assert_eq!(format_utc(951_782_400_000), "2000-02-29 00:00:00");
        assert_eq!(format_utc(1_767_225_599_000), "2025-12-31 23:59:59");
    }

    #[test]
    fn revisions_are_shortened() {
        assert_eq!(
            short_revision(Some("sha256:0123456789abcdef")),
            "sha256:0123456789ab"
        );
        assert_eq!(short_revision(None), "-");
    }
}
