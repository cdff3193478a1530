//! Errors of the inference loop that end an attempt outright (as opposed to loop
//! outcomes such as `blocked` or `needs_context`, which are results).

use miette::Diagnostic;
use thiserror::Error;

/// Why an agent attempt could not go on.
#[derive(Debug, Error, Diagnostic)]
pub enum AgentError {
    /// The role's system prompt did not render.
    #[error("role `{role}`: its prompt does not render: {reason}")]
    #[diagnostic(
        code(protoflow::agent::prompt),
        help(
            "role prompts are minijinja templates over the run's data (`inputs`, `steps`, `task`); check the variable names"
        )
    )]
    Prompt {
        /// The role key.
        role: String,
        /// The template error.
        reason: String,
    },
    /// The mandatory part of a request (instructions, tools, the task and the latest
    /// turn, plus the reserved output) does not fit the model's context window.
    #[error(
        "the request does not fit the context window: the mandatory input needs about {needed} tokens (with {reserved} reserved for the answer) but the window is {window} tokens"
    )]
    #[diagnostic(
        code(protoflow::agent::context_overflow),
        help(
            "shorten the task or the role prompt, narrow the tools, lower limits.output_tokens, or configure a larger `context_window` for the provider"
        )
    )]
    ContextOverflow {
        /// Tokens the mandatory input needs, reserve included.
        needed: u64,
        /// Tokens reserved for the answer.
        reserved: u64,
        /// The context window.
        window: u64,
    },
    /// A model call failed (after its retries and fallbacks).
    #[error("model call failed: {0}")]
    #[diagnostic(
        code(protoflow::agent::model),
        help("see `protoflow doctor` for the provider's configuration and reachability")
    )]
    Model(String),
    /// A budget limit refused a charge.
    #[error("{0}")]
    #[diagnostic(
        code(protoflow::agent::budget),
        help("raise the recipe's or the step's limits, or narrow the task")
    )]
    Budget(String),
    /// The step was canceled.
    #[error("canceled")]
    #[diagnostic(
        code(protoflow::agent::canceled),
        help("the run or the step was canceled")
    )]
    Canceled,
    /// A stateful role's memory could not be read or written.
    #[error("conversation memory: {0}")]
    #[diagnostic(
        code(protoflow::agent::memory),
        help(
            "check the run store (.protoflow/protoflow.db) is writable and not from a newer protoflow"
        )
    )]
    Memory(String),
    /// The step asks for something this loop cannot run.
    #[error("{0}")]
    #[diagnostic(
        code(protoflow::agent::unsupported),
        help("run tool-only roles with a `tool` step or expose them as delegates")
    )]
    Unsupported(String),
}
