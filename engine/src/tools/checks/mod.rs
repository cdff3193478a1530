//! Check tools: `discover_checks` lists the project's checks and `run_check` runs one
//! by id, in a phase.
//!
//! Both read a [`Discovery`](crate::checks::Discovery) resolved once when the run
//! starts, so the commands are frozen for the whole run: a model names a check, it
//! never supplies the command. This module never decides whether a result verifies
//! a change; it reports the exit, the tests executed and the phase on the receipt.

mod discover_checks;
mod run_check;

pub use discover_checks::DiscoverChecks;
pub use run_check::{CHECK_TIMEOUT_SECONDS, CheckPhase, RunCheck, RunCheckArgs};
