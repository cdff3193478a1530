//! The interactive approval prompt: shows exactly the prepared call (the absolute
//! argv, cwd, environment and limits of a command, or the unified diff of a file
//! change) and asks approve / deny / view.
//!
//! Reads answers only when stdin is a terminal; otherwise it denies at once (a
//! headless run must use a policy, never a hanging prompt). Prompts go to stderr.
//! One prompt at a time, even when steps run in parallel.

use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;
use std::sync::Arc;

use async_trait::async_trait;
use protoflow_engine::policy::{
    Approval, ApprovalRequest, ApprovePreset, Approver, HeadlessApprover, PolicyFile,
};
use tokio::sync::Mutex;

/// How calls that need an approval (`ask`) are decided.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct ApprovalArgs {
    /// Approve headlessly by preset: none, reads-only, checks, writes or all.
    /// Without it (and without --policy), a terminal prompts; a non-terminal
    /// approves nothing.
    #[arg(long, value_name = "PRESET")]
    pub approve: Option<ApprovePreset>,
    /// A policy file (JSON) with approval rules by tool, check id and path glob;
    /// first match wins, anything unmatched falls back to --approve (default none).
    #[arg(long, value_name = "FILE")]
    pub policy: Option<PathBuf>,
}

impl ApprovalArgs {
    /// The approver these options ask for.
    pub fn approver(&self) -> Result<Arc<dyn Approver>, String> {
        if let Some(path) = &self.policy {
            let policy = PolicyFile::load(path).map_err(|e| e.to_string())?;
            let approver =
                HeadlessApprover::from_policy(&policy, self.approve).map_err(|e| e.to_string())?;
            return Ok(Arc::new(approver));
        }
        match self.approve {
            Some(preset) => Ok(Arc::new(HeadlessApprover::from_preset(preset))),
            None if std::io::stdin().is_terminal() => Ok(Arc::new(TerminalApprover::new())),
            None => Ok(Arc::new(HeadlessApprover::from_preset(ApprovePreset::None))),
        }
    }
}

/// An answer typed at the prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    /// Approve the call.
    Approve,
    /// Deny the call.
    Deny,
    /// Show the arguments, then ask again.
    View,
    /// Not understood; ask again.
    Unknown,
}

/// Parses one line typed at the prompt.
pub fn parse_answer(line: &str) -> Answer {
    match line.trim().to_ascii_lowercase().as_str() {
        "a" | "approve" | "y" | "yes" => Answer::Approve,
        "d" | "deny" | "n" | "no" | "" => Answer::Deny,
        "v" | "view" => Answer::View,
        _ => Answer::Unknown,
    }
}

/// What the prompt shows for a request: the summary and the full preview.
pub fn render_request(request: &ApprovalRequest) -> String {
    let capability = request
        .capability
        .map_or_else(|| "no capability".to_string(), |c| c.to_string());
    let mut out = format!(
        "\n── approval needed: `{}` ({capability}, phase {}) ──\n{}\n",
        request.tool, request.phase, request.preview.summary
    );
    if let Some(detail) = &request.preview.detail {
        out.push_str(detail);
        if !detail.ends_with('\n') {
            out.push('\n');
        }
    }
    out
}

/// Asks the person at the terminal.
#[derive(Debug, Default)]
pub struct TerminalApprover {
    one_at_a_time: Mutex<()>,
}

impl TerminalApprover {
    /// A terminal approver.
    pub fn new() -> TerminalApprover {
        TerminalApprover::default()
    }
}

fn ask_blocking(request: &ApprovalRequest) -> Approval {
    let stdin = std::io::stdin();
    if !stdin.is_terminal() {
        return Approval::Denied {
            reason: "approval needed but stdin is not a terminal; use --approve or a policy file"
                .to_string(),
        };
    }
    let mut stderr = std::io::stderr();
    let _ = write!(stderr, "{}", render_request(request));
    loop {
        let _ = write!(stderr, "[a]pprove / [d]eny / [v]iew arguments? ");
        let _ = stderr.flush();
        let mut line = String::new();
        match stdin.lock().read_line(&mut line) {
            Ok(0) | Err(_) => {
                return Approval::Denied {
                    reason: "no answer (end of input)".to_string(),
                };
            }
            Ok(_) => {}
        }
        match parse_answer(&line) {
            Answer::Approve => return Approval::Approved,
            Answer::Deny => {
                return Approval::Denied {
                    reason: "denied at the terminal".to_string(),
                };
            }
            Answer::View => {
                let args = serde_json::to_string_pretty(&request.args).unwrap_or_default();
                let _ = writeln!(stderr, "{args}");
            }
            Answer::Unknown => {
                let _ = writeln!(stderr, "please answer a, d or v");
            }
        }
    }
}

#[async_trait]
impl Approver for TerminalApprover {
    async fn approve(&self, request: &ApprovalRequest) -> Approval {
        let _turn = self.one_at_a_time.lock().await;
        let request = request.clone();
        tokio::task::spawn_blocking(move || ask_blocking(&request))
            .await
            .unwrap_or_else(|_| Approval::Denied {
                reason: "the approval prompt failed".to_string(),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use protoflow_engine::policy::{Capability, Phase};
    use protoflow_engine::tools::{Effect, Preview};

    #[test]
    fn answers_default_to_deny() {
        assert_eq!(parse_answer("a\n"), Answer::Approve);
        assert_eq!(parse_answer("\n"), Answer::Deny);
        assert_eq!(parse_answer("View"), Answer::View);
        assert_eq!(parse_answer("maybe"), Answer::Unknown);
    }

    #[test]
    fn the_prompt_shows_the_whole_preview() {
        let request = ApprovalRequest {
            tool: "edit_file".to_string(),
            capability: Some(Capability::FilesystemWrite),
            effect: Effect::Write,
            phase: Phase::Edit,
            args: serde_json::json!({}),
            preview: Preview {
                summary: "edit `a.txt` at line 1".to_string(),
                detail: Some("--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+two\n".to_string()),
            },
            check_id: None,
            path: Some("a.txt".to_string()),
        };
        let shown = render_request(&request);
        assert!(shown.contains("filesystem.write, phase edit"));
        assert!(shown.ends_with("-one\n+two\n"));
    }
}
