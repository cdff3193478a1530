//! The inference loop: how an `agent` step's role works with a model.
//!
//! This module owns the loop (windows of turns, corrections, typed final output),
//! delegation to worker roles, context admission (estimate, reserve output, evict
//! whole exchanges, offload large results to artifacts), prompt profiles and the
//! conversation memory of stateful roles. It implements the executor's
//! [`crate::graph::AgentRunner`] as [`ModelAgentRunner`].
//!
//! It must never perform an effect itself (every tool call goes through the run's
//! tool invoker, under the computed authority, leaving a receipt), never widen an
//! authority, never record a key or a header (events carry sizes, model names,
//! usage and timing only), and never know a role's or a flow's name.

pub mod admission;
mod artifacts;
mod charge;
mod delegate;
mod dispatch;
mod error;
mod inference;
mod memory;
mod offer;
mod profile;
mod prompt;
mod runner;
mod session;
mod settings;

pub use admission::{
    AdmissionInput, Admitted, DEFAULT_CONTEXT_WINDOW, DEFAULT_OUTPUT_TOKENS, admit, exchanges,
    message_tokens,
};
pub use artifacts::{Artifacts, DEFAULT_OFFLOAD_BYTES};
pub use delegate::worker_authority;
pub use error::AgentError;
pub use inference::{
    DEFAULT_CONTINUATIONS, DEFAULT_CORRECTIONS, DEFAULT_TURNS_PER_WINDOW, DEFAULT_WINDOWS,
    MAX_CONTINUATIONS,
};
pub use offer::{FINAL_OUTPUT, Offer, OfferBuilder, READ_ARTIFACT};
pub use profile::Profile;
pub use prompt::{prompt_for_profile, render_system_prompt};
pub use runner::ModelAgentRunner;
pub use settings::AgentSettings;
