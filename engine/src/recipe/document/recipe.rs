//! The top-level recipe document.

use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{
    GateDocument, InputDocument, LimitsDocument, RoleRefDocument, StepDocument, TaskDocument,
};
use crate::checks::CheckConfig;
use crate::policy::{Capability, Decision};

/// The language version a document is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum ApiVersion {
    /// Version 1 of the protoflow language.
    #[serde(rename = "protoflow/v1")]
    V1,
}

/// The document kind of a recipe file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum RecipeKind {
    /// A recipe: a graph of steps run by roles and tools.
    Recipe,
}

/// A recipe: roles, the tools they may use, the steps the work moves through and the
/// limits that bound it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RecipeDocument {
    /// Always `protoflow/v1`.
    #[serde(rename = "apiVersion")]
    pub api_version: ApiVersion,
    /// Always `Recipe`.
    pub kind: RecipeKind,
    /// The recipe's name: lowercase letters, digits and dashes.
    #[schemars(regex(pattern = r"^[a-z][a-z0-9-]*$"))]
    pub name: String,
    /// What the recipe does, for listings and reports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Another recipe (a built-in name or a path relative to this file) whose roles,
    /// limits, inputs and steps this one starts from and overrides.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extends: Option<String>,
    /// Typed inputs, given with `--input name=value` on the command line.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub inputs: IndexMap<String, InputDocument>,
    /// Run-wide limits; every step and child shares them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limits: Option<LimitsDocument>,
    /// The recipe's ceiling on capabilities. A capability not listed is not narrowed
    /// by the recipe (roles still default to deny); `deny` here removes it from every
    /// step, `ask` forces an approval.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub capabilities: IndexMap<Capability, Decision>,
    /// The request the run works on: its objective, how it is classified (the
    /// request contract, which sets an authority ceiling) and whether the user
    /// verifies it. Absent: the run keeps no task record rules.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskDocument>,
    /// The checks `run_check` may run, declared by the recipe itself. When given,
    /// they take precedence over `.protoflow/project.json` and discovery; when
    /// absent, checks come from the project config, else from discovery at run time.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub checks: Vec<CheckConfig>,
    /// The roles steps may use, by the key steps refer to them with.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub roles: IndexMap<String, RoleRefDocument>,
    /// The steps of the work, in any order; `needs` gives the edges.
    #[serde(default)]
    pub steps: Vec<StepDocument>,
    /// Named results of the run: expressions over `inputs` and `steps`
    /// (for example `steps.verify.output`).
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub outputs: IndexMap<String, String>,
    /// Conditions over the finished run (`inputs`, `steps`, `outputs`) that decide
    /// its outcome for a pipeline: findings over a threshold, or an incomplete run.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gates: Vec<GateDocument>,
}
