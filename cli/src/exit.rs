//! Process exit codes: the one table every command uses. Stable and documented
//! (docs/recipe-language.md, README); tests assert on them.
//!
//! | code | meaning |
//! | ---- | ------- |
//! | 0    | success |
//! | 1    | the run finished incomplete or failed (checks failed, steps failed) |
//! | 2    | invalid recipe, role or command-line usage |
//! | 3    | a budget was exhausted |
//! | 4    | findings over the configured threshold |
//! | 5    | canceled (SIGINT/SIGTERM); we use 5 rather than 130 so that a canceled run is told apart from a shell killing us |
//! | 70   | internal error (a bug, or the environment failing: I/O, store) |

/// Success.
pub const SUCCESS: u8 = 0;
/// The run finished but is incomplete or failed.
pub const INCOMPLETE: u8 = 1;
/// The recipe, a role, or the command line is invalid.
pub const INVALID: u8 = 2;
/// A budget (model calls, tool calls, tokens, wall time, children) was exhausted.
pub const BUDGET_EXHAUSTED: u8 = 3;
/// Findings over the configured threshold.
pub const FINDINGS: u8 = 4;
/// The run was canceled.
pub const CANCELED: u8 = 5;
/// An internal error (EX_SOFTWARE).
pub const INTERNAL: u8 = 70;
