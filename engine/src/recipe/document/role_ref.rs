//! A recipe's reference to a role, with per-recipe overrides.

use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::policy::{Capability, Decision};
use crate::role::RoleLimitsDocument;

/// How a recipe uses a role. The map key is the name steps use; `from` names the
/// role file (defaults to the key). Overrides can narrow authority, never widen it:
/// `tools` and `capabilities` are intersected with the role's own.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RoleRefDocument {
    /// The role to use: a role name (resolved from `.protoflow/roles/`, the user
    /// config, then the built-ins) or a path ending in `.yaml` relative to the recipe.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    /// Whether steps and delegations may use this role (default true): `true`,
    /// `false`, or an expression over the recipe's inputs (`inputs.tester`),
    /// evaluated when the run starts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled: Option<EnabledDocument>,
    /// A model for this role, overriding the run's `--model`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Replaces the role's prompt template.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    /// Appended to the role's prompt template.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_append: Option<String>,
    /// Narrows the role's tool allowlist to these tools.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<String>>,
    /// Narrows the role's capability policy.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub capabilities: IndexMap<Capability, Decision>,
    /// Overrides the role's own limits (each still under the engine ceiling).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limits: Option<RoleLimitsDocument>,
}

/// A role's `enabled`: fixed, or an expression over the recipe's inputs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum EnabledDocument {
    /// Always on or always off.
    Fixed(bool),
    /// An expression over `inputs` (`inputs.tester`, `inputs.mode != "fast"`).
    When(String),
}
