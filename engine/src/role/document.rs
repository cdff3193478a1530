//! The role language as written: one-to-one with a role YAML file.

use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::policy::{Capability, Decision};
use crate::recipe::document::ApiVersion;

/// What kind of worker a role is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum RoleKind {
    /// A model runs an inference loop with the role's tools.
    #[serde(rename = "llm")]
    Llm,
    /// No model: the role only runs its tools (for example, checks).
    #[serde(rename = "tool-only")]
    ToolOnly,
}

/// Whether a role keeps conversation memory between calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(rename_all = "lowercase")]
pub enum Memory {
    /// Keeps its conversation across calls within a run (a controller).
    Stateful,
    /// Every call is a fresh, independent conversation (a worker).
    #[default]
    Stateless,
}

/// A role file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RoleDocument {
    /// Always `protoflow/v1`.
    #[serde(rename = "apiVersion")]
    pub api_version: ApiVersion,
    /// `llm` (a model works with tools) or `tool-only` (tools without a model).
    pub kind: RoleKind,
    /// The role's name: lowercase letters, digits and dashes.
    #[schemars(regex(pattern = r"^[a-z][a-z0-9-]*$"))]
    pub name: String,
    /// What the role does, for listings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The system prompt, a minijinja template over the run's data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    /// The tools this role may call. Nothing else is ever offered to it.
    #[serde(default)]
    pub tools: Vec<String>,
    /// The decision per capability; anything not listed is `deny`.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub capabilities: IndexMap<Capability, Decision>,
    /// Whether the role keeps conversation memory between calls.
    #[serde(default)]
    pub memory: Memory,
    /// Prompt overlays per model profile (`auto` picks one from the model).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profiles: Option<ProfilesDocument>,
    /// The role's own bounds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limits: Option<RoleLimitsDocument>,
}

/// Prompt overlays per model profile.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProfilesDocument {
    /// Small local models: short, explicit instructions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub small: Option<ProfileOverlayDocument>,
    /// Medium models.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub medium: Option<ProfileOverlayDocument>,
    /// Large models.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub large: Option<ProfileOverlayDocument>,
    /// Hosted API models.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api: Option<ProfileOverlayDocument>,
}

/// What a profile changes in a role's prompt.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProfileOverlayDocument {
    /// Replaces the role's prompt for this profile.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    /// Appended to the role's prompt for this profile.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_append: Option<String>,
}

/// A role's own bounds.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RoleLimitsDocument {
    /// Model turns per inference window (default 10).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turns_per_window: Option<u32>,
    /// Inference windows per call, granted only after progress (default 3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub windows: Option<u32>,
    /// Characters returned by one file read (default 8,192; 4,000 for small profiles).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_chars: Option<u32>,
    /// Invalid tool calls corrected before the call ends (default 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub corrections: Option<u32>,
    /// Output tokens reserved per model turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_tokens: Option<u32>,
    /// As a delegated worker: how many times a controller may call it again (in
    /// one controller attempt) after a call ended `needs_context` (it ran out of
    /// turns while making progress). Default 2, at most 8.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub continuations: Option<u32>,
}

impl RoleLimitsDocument {
    /// The fields set above their engine ceiling: `(field, value, ceiling)`.
    pub fn over_ceiling(&self) -> Vec<(&'static str, u64, u64)> {
        use crate::recipe::bounds::{
            OUTPUT_TOKENS, READ_CHARS, ROLE_CORRECTIONS, TURNS_PER_WINDOW, WINDOWS,
        };
        [
            (TURNS_PER_WINDOW, self.turns_per_window),
            (WINDOWS, self.windows),
            (READ_CHARS, self.read_chars),
            (ROLE_CORRECTIONS, self.corrections),
            (OUTPUT_TOKENS, self.output_tokens),
        ]
        .into_iter()
        .filter_map(|(bound, value)| {
            let value = u64::from(value?);
            (value > bound.ceiling).then_some((bound.name, value, bound.ceiling))
        })
        .collect()
    }
}
