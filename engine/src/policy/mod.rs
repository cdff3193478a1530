//! Authority: capabilities, phases and the rules that narrow what a tool call may do.
//!
//! This module owns the vocabulary of authority, the intersection of its layers
//! ([`Authority`]), the approval interface ([`Approver`]) with its headless
//! implementation, and secrets redaction. It must never know a flow's name or a
//! role's name, and never prompts or prints: interactive approval is the CLI's.

mod approval;
mod authority;
mod capability;
mod error;
mod headless;
mod phase;
mod redact;

pub use approval::{Approval, ApprovalRequest, Approver};
pub use authority::{Authority, AuthorityLayers, Verdict};
pub use capability::{Capability, Decision};
pub use error::PolicyError;
pub use headless::{ApprovePreset, HeadlessApprover, PolicyFile, PolicyRule, RuleDecision};
pub use phase::Phase;
pub use redact::Redactor;
