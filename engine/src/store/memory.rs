//! Conversation memory of stateful roles: one JSON list of messages per
//! (project, run, role).
//!
//! This file owns the `agent_memory` rows only. It never interprets the messages
//! (the agent loop does) and never holds anything for stateless roles.

use rusqlite::{OptionalExtension, params};
use serde_json::Value;

use super::{Store, StoreError};
use crate::events::now_ms;

/// Where one role's memory lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemoryKey {
    /// The project root (canonical path text).
    pub project: String,
    /// The run the conversation belongs to.
    pub run_id: String,
    /// The role key.
    pub role: String,
}

impl Store {
    /// The stored conversation of `key` (a JSON array), if any.
    pub fn load_memory(&self, key: &MemoryKey) -> Result<Option<Value>, StoreError> {
        let text: Option<String> = self
            .conn()
            .query_row(
                "SELECT messages FROM agent_memory WHERE project = ?1 AND run_id = ?2 AND role = ?3",
                params![key.project, key.run_id, key.role],
                |row| row.get(0),
            )
            .optional()?;
        text.map(|t| {
            serde_json::from_str(&t).map_err(|e| StoreError::Corrupt {
                what: "agent_memory".into(),
                reason: e.to_string(),
            })
        })
        .transpose()
    }

    /// Replaces the stored conversation of `key`.
    pub fn save_memory(&self, key: &MemoryKey, messages: &Value) -> Result<(), StoreError> {
        let text = serde_json::to_string(messages).map_err(|e| StoreError::Corrupt {
            what: "agent_memory".into(),
            reason: e.to_string(),
        })?;
        self.conn().execute(
            "INSERT INTO agent_memory (project, run_id, role, messages, updated_at_ms)
             VALUES (?1, ?2, ?3, ?4, ?5)
             ON CONFLICT(project, run_id, role) DO UPDATE
             SET messages = excluded.messages, updated_at_ms = excluded.updated_at_ms",
            params![key.project, key.run_id, key.role, text, now_ms() as i64],
        )?;
        Ok(())
    }
}
