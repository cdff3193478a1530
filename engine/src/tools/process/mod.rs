//! Process tools: `execute_command` and the reusable process core (`run_process`)
//! that `run_check` and the git tools share.
//!
//! Owns how a child process is started (argv only, exact environment, closed
//! stdin, its own process group), bounded (timeout, output cap) and stopped (as
//! a group). It never runs a shell and never inherits this process's environment.

mod base_env;
mod error;
mod execute_command;
mod resolve;
mod run;

pub use base_env::{PASSED_THROUGH, base_process_env};
pub use error::ProcessError;
pub use execute_command::{
    DEFAULT_OUTPUT_BYTES, DEFAULT_TIMEOUT_SECONDS, ExecuteCommand, ExecuteCommandArgs,
    MAX_OUTPUT_BYTES, MAX_TIMEOUT_SECONDS, describe_spec, result_facts, result_value,
};
pub use resolve::{SYSTEM_PATH, build_env, resolve_cwd, resolve_program};
pub use run::{DEFAULT_KILL_GRACE, ProcessResult, ProcessSpec, run_process};
