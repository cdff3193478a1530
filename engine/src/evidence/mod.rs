//! Evidence: receipts of what actually happened, file revisions, the run's ledger
//! and the completion guard computed from them.
//!
//! Completion and verification are computed from these, never from what a model
//! says. This module records and judges facts; it never performs an effect (the
//! completion guard reads the files the run touched, to compare revisions).

pub mod completion;
mod ledger;
mod receipt;
mod revision;

pub use ledger::{CheckRun, LedgerEntry, WorkerReport};
pub use receipt::{Receipt, ReceiptFacts, ReceiptStatus};
pub use revision::{Revision, revision_of};
