//! The loop's own settings (what is not in a role file): profile choice, context
//! window override, offload threshold, bounds on unparseable replies and delegation.

use super::artifacts::DEFAULT_OFFLOAD_BYTES;
use super::profile::Profile;

/// Settings of a [`super::ModelAgentRunner`].
#[derive(Debug, Clone, PartialEq)]
pub struct AgentSettings {
    /// The prompt profile; `None` is `auto` (chosen from the model's name).
    pub profile: Option<Profile>,
    /// The context window in tokens; `None`: the provider's configured window, else
    /// [`super::admission::DEFAULT_CONTEXT_WINDOW`].
    pub context_window: Option<u64>,
    /// Tool results over this many bytes are offloaded to artifacts.
    pub offload_bytes: usize,
    /// Unparseable replies in a row (JSON action mode) given feedback before the
    /// inference ends; the next one ends it.
    pub max_unparseable: u32,
    /// Delegation depth: 1 means a controller's workers cannot delegate further.
    pub max_depth: u32,
    /// Sampling temperature sent with every request (`None`: the server's default).
    pub temperature: Option<f32>,
    /// Ask servers to stream answers (the loop still handles whole answers).
    pub stream: bool,
}

impl Default for AgentSettings {
    fn default() -> Self {
        AgentSettings {
            profile: None,
            context_window: None,
            offload_bytes: DEFAULT_OFFLOAD_BYTES,
            max_unparseable: 2,
            max_depth: 1,
            temperature: None,
            stream: false,
        }
    }
}
