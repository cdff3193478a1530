//! Evidence: receipts of what actually happened, and file revisions.
//!
//! Completion and verification are computed from these, never from what a model
//! says. This module records facts; it never performs an effect.

mod receipt;
mod revision;

pub use receipt::{Receipt, ReceiptFacts, ReceiptStatus};
pub use revision::{Revision, revision_of};
