//! Authority: capabilities, phases and the rules that narrow what a tool call may do.
//!
//! This module owns the vocabulary of authority. It must never know a flow's name
//! or a role's name: it reasons about capabilities, phases and tool effects only.

mod capability;
mod phase;
mod redact;

pub use capability::{Capability, Decision};
pub use phase::Phase;
pub use redact::Redactor;
