//! Why the task state refused a plan.

use miette::Diagnostic;
use thiserror::Error;

/// A refused `plan_task`: each variant says what to change.
#[derive(Debug, Error, Diagnostic, PartialEq, Eq)]
pub enum TaskError {
    /// The plan is frozen.
    #[error(
        "the plan is frozen since {why}; it can no longer change (checks cannot be dropped after evidence was observed)"
    )]
    #[diagnostic(
        code(protoflow::task::frozen),
        help(
            "work within the frozen plan: its write paths, criteria and checks (see task_status)"
        )
    )]
    Frozen {
        /// What froze it.
        why: String,
    },
    /// Check ids that are not among the project's checks.
    #[error("unknown check id(s): {}; the available checks are: {}", unknown.join(", "), if available.is_empty() { "none".to_string() } else { available.join(", ") })]
    #[diagnostic(
        code(protoflow::task::unknown_check),
        help("choose check ids from the available list (task_status shows it)")
    )]
    UnknownChecks {
        /// The ids not found.
        unknown: Vec<String>,
        /// Every available id.
        available: Vec<String>,
    },
    /// A code change with no check to verify it.
    #[error("the plan writes code ({}) but selects no check; the available checks are: {}", paths.join(", "), available.join(", "))]
    #[diagnostic(
        code(protoflow::task::no_checks),
        help(
            "select at least one check id that proves the change; only a documentation-only plan may select none"
        )
    )]
    NoChecks {
        /// The non-documentation write paths.
        paths: Vec<String>,
        /// Every available id.
        available: Vec<String>,
    },
    /// A write path that leaves the project.
    #[error("the write path `{path}` is not a project-relative path: {reason}")]
    #[diagnostic(
        code(protoflow::task::bad_path),
        help("write paths are project-relative files, directories or globs, without `..`")
    )]
    BadPath {
        /// The path as given.
        path: String,
        /// Why.
        reason: String,
    },
    /// A class that may not change files was given write paths.
    #[error(
        "the request was classified as `{class}`, which may not change files: plan without write paths"
    )]
    #[diagnostic(
        code(protoflow::task::read_only),
        help("select checks (for a verification) or answer from what you read (for a question)")
    )]
    ReadOnly {
        /// The request's class.
        class: String,
    },
}
