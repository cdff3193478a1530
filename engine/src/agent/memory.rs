//! Conversation memory: a stateful role's messages kept in the run store between
//! its calls (namespaced per project, run and role); stateless roles keep nothing.
//!
//! This file converts between the store's JSON and messages; it never decides what
//! is admitted into a request (admission does).

use super::error::AgentError;
use crate::llm::Message;
use crate::store::{MemoryKey, Store};

/// The stored conversation of `key` (empty when there is none).
pub fn load(store: &Store, key: &MemoryKey) -> Result<Vec<Message>, AgentError> {
    let Some(value) = store
        .load_memory(key)
        .map_err(|e| AgentError::Memory(e.to_string()))?
    else {
        return Ok(Vec::new());
    };
    serde_json::from_value(value).map_err(|e| {
        AgentError::Memory(format!(
            "the stored conversation of role `{}` is unreadable: {e}",
            key.role
        ))
    })
}

/// Replaces the stored conversation of `key`.
pub fn save(store: &Store, key: &MemoryKey, messages: &[Message]) -> Result<(), AgentError> {
    let value = serde_json::to_value(messages).map_err(|e| AgentError::Memory(e.to_string()))?;
    store
        .save_memory(key, &value)
        .map_err(|e| AgentError::Memory(e.to_string()))
}
