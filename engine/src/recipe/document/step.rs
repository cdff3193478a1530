//! One step of a recipe, as written.

use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::LimitsDocument;
use crate::policy::Phase;

/// A step: exactly one of `agent` (a role runs an inference loop), `tool` (a tool
/// runs without a model) or `recipe` (another recipe runs as a child).
///
/// String values in `prompt` and `with` are minijinja templates over `inputs`,
/// `steps` and (in a fan-out) the item variable. A string that is exactly one
/// `{{ expression }}` keeps the expression's type (a list stays a list).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StepDocument {
    /// Unique id: lowercase letters, digits, `_` and `-`.
    #[schemars(regex(pattern = r"^[a-z][a-z0-9_-]*$"))]
    pub id: String,
    /// What the step is for, shown in graphs and reports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The role (a key of the recipe's `roles`) that runs this step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// The tool this step runs, without a model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// The recipe (a built-in name or a path relative to this file) this step runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recipe: Option<String>,
    /// For agent steps: the task given to the role (a template).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    /// For tool steps: the tool's arguments; for recipe steps: the child's inputs.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub with: IndexMap<String, serde_json::Value>,
    /// Steps that must finish before this one starts.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub needs: Vec<String>,
    /// An expression; the step runs only when it is true (otherwise it is skipped).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub when: Option<String>,
    /// An expression producing a list at run time; the step runs once per item.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub foreach: Option<String>,
    /// The name of the item variable in a fan-out (default `item`; `index` is the
    /// item's position).
    #[serde(default, rename = "as", skip_serializing_if = "Option::is_none")]
    #[schemars(regex(pattern = r"^[a-z][a-z0-9_]*$"))]
    pub item_var: Option<String>,
    /// The step's typed output.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<OutputDocument>,
    /// The engine-enforced phase this step runs in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<Phase>,
    /// How long the step may run, as a duration such as `90s` or `10m`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(regex(pattern = r"^[0-9]+(ms|s|m|h)$"))]
    pub timeout: Option<String>,
    /// Limits for this step; they can only narrow the run's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limits: Option<LimitsDocument>,
    /// For agent steps: narrows the role's tools for this step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<String>>,
    /// For agent steps: other roles this step may call as tools.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub delegates: Vec<DelegateDocument>,
    /// A bounded back-edge: after this step, run again from `to` while `when` holds,
    /// at most `max` times.
    #[serde(default, rename = "loop", skip_serializing_if = "Option::is_none")]
    pub back_edge: Option<LoopDocument>,
    /// When true, a failure of this step does not fail the run (it is still reported).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub allow_failure: bool,
}

/// A step's typed output.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OutputDocument {
    /// The JSON Schema the output must satisfy.
    pub schema: serde_json::Value,
    /// For agent steps: how many invalid outputs are sent back for correction
    /// before the step fails (default 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub corrections: Option<u32>,
}

/// A role exposed to an agent step as a tool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DelegateDocument {
    /// The role (a key of the recipe's `roles`) that does the delegated work.
    pub role: String,
    /// The tool name the controller sees (default: the role key).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(regex(pattern = r"^[a-z][a-z0-9_]*$"))]
    pub tool: Option<String>,
    /// What the controller is told the tool does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// How many times the controller may call it per attempt (default 32).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_calls: Option<u32>,
}

/// A bounded back-edge.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LoopDocument {
    /// The step to run again from (it and the steps after it up to this one).
    pub to: String,
    /// An expression; loop while it is true.
    pub when: String,
    /// The most times the loop may be taken. Mandatory: no unbounded loop exists.
    pub max: u32,
}
