//! Helpers shared by the tools tests: a project in a temp dir and direct calls.
#![allow(clippy::unwrap_used, clippy::expect_used, dead_code)]

use std::path::{Path, PathBuf};
use std::sync::Arc;

use protoflow_engine::policy::{Authority, Capability, Decision, Phase};
use protoflow_engine::tools::fs::CheckpointStore;
use protoflow_engine::tools::{Tool, ToolContext, ToolError, ToolOutput};
use serde_json::Value;
use tempfile::TempDir;

/// A project root in a temp dir (canonicalized) with a context for it.
pub struct Project {
    pub dir: TempDir,
    pub ctx: ToolContext,
}

impl Project {
    pub fn new() -> Project {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        Project {
            ctx: ToolContext::new(root),
            dir,
        }
    }

    /// The same, with a checkpoint store in `.protoflow/protoflow.db`.
    pub fn with_checkpoints() -> Project {
        let mut project = Project::new();
        let store = CheckpointStore::open_project(&project.ctx.root).unwrap();
        project.ctx.checkpoints = Some(Arc::new(store));
        project
    }

    pub fn root(&self) -> &Path {
        &self.ctx.root
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.ctx.root.join(rel)
    }

    pub fn write(&self, rel: &str, content: impl AsRef<[u8]>) {
        let path = self.path(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        std::fs::write(path, content).unwrap();
    }

    pub fn read(&self, rel: &str) -> Vec<u8> {
        std::fs::read(self.path(rel)).unwrap()
    }
}

/// Prepare then execute, as `invoke` would without authority.
pub async fn call(
    tool: &dyn Tool,
    ctx: &ToolContext,
    args: Value,
) -> Result<ToolOutput, ToolError> {
    let prepared = tool.prepare(ctx, args).await?;
    tool.execute(ctx, prepared).await
}

/// An authority allowing every built-in tool's capability in `phase`.
pub fn allow_all(phase: Phase) -> Authority {
    Authority::new(
        protoflow_engine::tools::catalog().iter().map(|s| s.name),
        Capability::ALL.map(|c| (c, Decision::Allow)),
        phase,
    )
}

/// The reason of a rejection (or a panic naming what came instead).
pub fn reason(result: Result<ToolOutput, ToolError>) -> String {
    match result {
        Err(ToolError::Rejected { reason, .. }) => reason,
        Err(ToolError::PathRefused { reason, .. }) => format!("path refused: {reason}"),
        Err(ToolError::InvalidArguments { reason, .. }) => format!("invalid: {reason}"),
        other => panic!("expected a rejection, got {other:?}"),
    }
}

pub fn is_path_refused(result: &Result<ToolOutput, ToolError>) -> bool {
    matches!(result, Err(ToolError::PathRefused { .. }))
}

/// Whether a pid is alive (a zombie counts as dead).
pub fn pid_alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            // The state follows the parenthesized command name.
            let state = stat
                .rsplit(')')
                .next()
                .and_then(|rest| rest.split_whitespace().next());
            !matches!(state, Some("Z") | Some("X"))
        }
        Err(_) => false,
    }
}
