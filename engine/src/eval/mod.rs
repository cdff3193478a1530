//! Evaluation of a recipe and a model on cases with an oracle: each case is a
//! fixture project, a task, a provider and an oracle command that must fail
//! before the run and pass after it. The score counts solved cases and, above
//! all, FALSE COMPLETIONS: runs that said satisfied (or verified) while the
//! oracle fails.
//!
//! This module owns the case format, the working copy, the oracle and the
//! judgement. It never runs the recipe itself (the caller runs it, as a user
//! would) and never trusts the run's own verdict over the oracle.

mod case;
mod error;
mod judge;
mod oracle;

pub use case::{CASE_FILE, EvalCase, LoadedCase, load_cases, working_copy};
pub use error::EvalError;
pub use judge::{CaseResult, EvalReport, claimed_completion};
pub use oracle::{OracleResult, run_oracle};
