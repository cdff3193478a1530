//! Git tools: `git_status` and `git_diff`, read-only, running the real `git`
//! binary through the process core with an explicit environment.
//!
//! They never write to the repository and never let a caller's value become a
//! git option.

mod command;
mod diff;
mod status;

pub use command::{git_env, git_spec, validate_ref};
pub use diff::{GitDiff, GitDiffArgs};
pub use status::{GitStatus, GitStatusArgs};
