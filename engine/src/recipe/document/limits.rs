//! Limits as written in a recipe, a step or a role reference.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Bounds on a run (in a recipe) or a part of it (in a step). A step's limits can
/// only narrow the run's. Anything not given takes the engine default; nothing may
/// exceed the engine's hard ceiling.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LimitsDocument {
    /// Model calls (every attempt, including retries and fallbacks).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_calls: Option<u64>,
    /// Tool calls, including denied and failed ones.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_calls: Option<u64>,
    /// Model tokens, input plus output.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<u64>,
    /// Wall time, as a duration such as `90s`, `30m` or `2h`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(regex(pattern = r"^[0-9]+(ms|s|m|h)$"))]
    pub wall_time: Option<String>,
    /// Steps (and fan-out instances) running at the same time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub concurrency: Option<u32>,
    /// Child conversations and sub-recipes started (delegations, recipe steps).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub children: Option<u32>,
    /// Repair rounds after a completed failing verification.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repairs: Option<u32>,
    /// Bytes of tool output kept per call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_bytes: Option<u64>,
}
