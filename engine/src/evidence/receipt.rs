//! Receipts: one per tool call, including refused and failed ones.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::policy::{Capability, Phase};

/// How a tool call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ReceiptStatus {
    /// The effect happened (a command ran to completion, whatever its exit code).
    Executed,
    /// A precondition or argument check refused it; no effect.
    Rejected,
    /// Policy or a person denied it; no effect.
    Denied,
    /// It ran past its time limit and was stopped.
    TimedOut,
    /// It was canceled while running.
    Canceled,
    /// It failed while performing the effect (the effect may be partial).
    Failed,
}

/// The facts a tool reports about its own effect.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ReceiptFacts {
    /// The project-relative path a file tool touched.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// The file's revision before the call (`None`: absent or not a file tool).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revision_before: Option<String>,
    /// The file's revision after the call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revision_after: Option<String>,
    /// A process's exit code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// Bytes of output produced (before truncation).
    #[serde(default)]
    pub output_bytes: u64,
    /// Whether output was cut to the cap.
    #[serde(default)]
    pub truncated: bool,
    /// Tool-specific facts (a check's id and phase, tests executed, ...).
    #[serde(default, skip_serializing_if = "Value::is_null")]
    pub detail: Value,
}

/// The record of one tool call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Receipt {
    /// The tool's name (as requested, even when unknown).
    pub tool: String,
    /// The arguments, with known secrets redacted.
    pub args: Value,
    /// The capability the call needed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capability: Option<Capability>,
    /// The phase of the calling step.
    pub phase: Phase,
    /// How it ended.
    pub status: ReceiptStatus,
    /// Why it was rejected, denied or failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Milliseconds since the Unix epoch when the call started.
    pub started_at_ms: u64,
    /// How long it took, in milliseconds.
    pub duration_ms: u64,
    /// What the tool reported about its effect.
    #[serde(flatten)]
    pub facts: ReceiptFacts,
}
