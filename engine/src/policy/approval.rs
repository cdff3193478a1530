//! The approval broker's interface: a prepared call is shown to an [`Approver`]
//! (a person at a terminal, or a headless policy) when its authority says `ask`.
//!
//! The engine never prompts: interactive approvers live in the CLI and implement
//! this trait there.

use async_trait::async_trait;
use serde_json::Value;

use super::{Capability, Phase};
use crate::tools::{Effect, Preview};

/// What is being approved: exactly the prepared call.
#[derive(Debug, Clone, PartialEq)]
pub struct ApprovalRequest {
    /// The tool.
    pub tool: String,
    /// The capability it needs.
    pub capability: Option<Capability>,
    /// Its kind of effect.
    pub effect: Effect,
    /// The phase of the calling step.
    pub phase: Phase,
    /// The arguments (secrets redacted).
    pub args: Value,
    /// The preview: the absolute argv, cwd, environment and limits of a command, or
    /// the unified diff of a file change. Exactly what executes.
    pub preview: Preview,
    /// The check id, for `run_check`.
    pub check_id: Option<String>,
    /// The project-relative path a file tool touches.
    pub path: Option<String>,
}

/// An approver's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Approval {
    /// Go ahead.
    Approved,
    /// Do not; recorded on the receipt.
    Denied {
        /// Why (shown to the caller).
        reason: String,
    },
}

/// Decides on calls whose authority is `ask`. Must never block without bound.
#[async_trait]
pub trait Approver: Send + Sync + std::fmt::Debug {
    /// Approves or denies one prepared call.
    async fn approve(&self, request: &ApprovalRequest) -> Approval;
}
