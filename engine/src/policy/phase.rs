//! Phases are engine-enforced states of a flow's work, not labels.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The phase a step (and every tool call it makes) runs in.
///
/// Baseline results are evidence but never verification; verify closes editing;
/// repair opens only after a completed failing check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema, Default)]
#[serde(rename_all = "lowercase")]
pub enum Phase {
    /// Measure the project before any change: checks run, nothing is written.
    Baseline,
    /// Make changes.
    Edit,
    /// Run the selected checks on the changed project; writes are denied.
    Verify,
    /// A fresh edit phase after a completed failing verify.
    Repair,
    /// No phase rules apply beyond the role's own policy.
    #[default]
    None,
}

impl Phase {
    /// Whether file writes may happen in this phase.
    pub fn allows_writes(self) -> bool {
        matches!(self, Phase::Edit | Phase::Repair | Phase::None)
    }

    /// The lowercase name used in recipes, receipts and reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::Baseline => "baseline",
            Phase::Edit => "edit",
            Phase::Verify => "verify",
            Phase::Repair => "repair",
            Phase::None => "none",
        }
    }
}

impl std::fmt::Display for Phase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
