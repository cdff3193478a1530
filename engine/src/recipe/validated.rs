//! The validated recipe: what a document means once every check has passed.
//!
//! Built only by validation; everything here is known to be consistent (roles
//! exist and are resolved, tools are in the catalog and allowed, needs name real
//! steps, templates reference declared data, limits are under their ceilings).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use indexmap::IndexMap;
use serde_json::Value;

use super::document::{InputDocument, RecipeDocument};
use super::limits::Limits;
use crate::checks::CheckConfig;
use crate::policy::{Capability, Decision, Phase};
use crate::role::RoleDocument;

/// Where a document came from, for diagnostics and listings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// A file on disk.
    File(PathBuf),
    /// Shipped inside the binary, by name.
    Builtin(String),
    /// The project's `.protoflow/roles/`.
    Project(PathBuf),
    /// The user's config directory.
    User(PathBuf),
}

/// A validated recipe.
#[derive(Debug, Clone)]
pub struct Recipe {
    /// The recipe's name.
    pub name: String,
    /// Where it was loaded from.
    pub origin: Origin,
    /// The document after `extends` was applied.
    pub document: RecipeDocument,
    /// Declared inputs.
    pub inputs: IndexMap<String, InputDocument>,
    /// Run-wide limits, resolved against the engine defaults and ceilings.
    pub limits: Limits,
    /// The recipe's capability ceiling (absent: not narrowed by the recipe).
    pub capabilities: IndexMap<Capability, Decision>,
    /// Checks the recipe declares (empty: the project config or discovery decides).
    pub checks: Vec<CheckConfig>,
    /// Roles by the key steps use, resolved and with overrides applied.
    pub roles: IndexMap<String, Arc<ResolvedRole>>,
    /// Steps, in document order.
    pub steps: Vec<Step>,
    /// Named result expressions.
    pub outputs: IndexMap<String, String>,
}

/// A role as a recipe uses it: the role file with the recipe's overrides applied.
#[derive(Debug, Clone)]
pub struct ResolvedRole {
    /// The key steps use.
    pub key: String,
    /// Where the role file came from.
    pub origin: Origin,
    /// The role document with overrides applied (tools and capabilities narrowed,
    /// prompt replaced or appended, limits overridden).
    pub role: RoleDocument,
    /// A model for this role, when the recipe sets one.
    pub model: Option<String>,
    /// Whether steps and delegations may use it (`false` only when fixed off).
    pub enabled: bool,
    /// An expression over the inputs that decides `enabled` when the run starts.
    pub enabled_when: Option<String>,
}

/// A validated step.
#[derive(Debug, Clone)]
pub struct Step {
    /// Unique id.
    pub id: String,
    /// What the step is for.
    pub description: Option<String>,
    /// What runs.
    pub kind: StepKind,
    /// Steps that must finish first (ids).
    pub needs: Vec<String>,
    /// Run only when this expression is true.
    pub when: Option<String>,
    /// Run once per item of this list.
    pub foreach: Option<Foreach>,
    /// The typed output, when declared.
    pub output: Option<OutputSpec>,
    /// The phase it runs in.
    pub phase: Phase,
    /// How long it may run.
    pub timeout: Option<Duration>,
    /// Its limits (already narrowed by the run's).
    pub limits: Limits,
    /// A bounded back-edge taken after this step.
    pub back_edge: Option<BackEdge>,
    /// Whether its failure leaves the run's status alone.
    pub allow_failure: bool,
}

/// What a step runs.
#[derive(Debug, Clone)]
pub enum StepKind {
    /// A role's inference loop.
    Agent {
        /// The role key.
        role: String,
        /// The task template.
        prompt: String,
        /// The step's narrowing of the role's tools (already intersected).
        tools: Vec<String>,
        /// Roles exposed as tools.
        delegates: Vec<Delegate>,
    },
    /// A tool without a model.
    Tool {
        /// The tool name (in the catalog).
        name: String,
        /// Arguments; strings are templates.
        with: IndexMap<String, Value>,
    },
    /// A child recipe.
    Recipe {
        /// The child, validated.
        recipe: Arc<Recipe>,
        /// The child's inputs; strings are templates.
        with: IndexMap<String, Value>,
    },
}

/// A role exposed to a controller step as a tool.
#[derive(Debug, Clone)]
pub struct Delegate {
    /// The role key.
    pub role: String,
    /// The tool name the controller sees.
    pub tool: String,
    /// What the controller is told.
    pub description: String,
    /// Calls allowed per attempt.
    pub max_calls: u32,
}

/// A fan-out.
#[derive(Debug, Clone)]
pub struct Foreach {
    /// The expression producing the list.
    pub expr: String,
    /// The item variable's name.
    pub item_var: String,
}

/// A typed output.
#[derive(Debug, Clone)]
pub struct OutputSpec {
    /// The JSON Schema.
    pub schema: Value,
    /// Corrections allowed for agent steps.
    pub corrections: u32,
}

/// A bounded back-edge.
#[derive(Debug, Clone)]
pub struct BackEdge {
    /// The step to run again from.
    pub to: String,
    /// Loop while this expression is true.
    pub when: String,
    /// At most this many times.
    pub max: u32,
}
