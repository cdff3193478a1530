//! The offer: exactly which tools one inference declares to the model, what each
//! name dispatches to, and each declaration's argument validator.
//!
//! Offered = the authority's allowed tools (recipe ceiling ∩ step ∩ role ∩ phase),
//! plus one tool per delegate, plus `final_output` when the step declares an output
//! schema, plus `read_context_artifact` once a result was offloaded. Nothing else is
//! ever declared. This file never dispatches anything.

use std::collections::BTreeMap;
use std::sync::Arc;

use jsonschema::Validator;
use serde_json::{Value, json};

use super::artifacts::Artifacts;
use super::profile::Profile;
use crate::llm::ToolDeclaration;
use crate::policy::Authority;
use crate::recipe::{Delegate, ResolvedRole};
use crate::role::RoleKind;
use crate::tools::{ToolRegistry, lookup};

/// The name of the typed-output tool.
pub const FINAL_OUTPUT: &str = "final_output";
/// The name of the artifact paging tool.
pub const READ_ARTIFACT: &str = "read_context_artifact";

/// What an offered name dispatches to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A catalog tool, through the run's tool invoker under the inference's authority.
    Tool(String),
    /// A delegate (index into the offer's delegates) run as a fresh model conversation.
    Delegate(usize),
    /// A tool of a tool-only delegate, run directly (no model) under that delegate's
    /// authority (worker policy ∩ controller ceiling).
    DelegatedTool {
        /// Index into the offer's delegates.
        delegate: usize,
        /// The catalog tool that runs.
        tool: String,
    },
    /// The typed final answer.
    FinalOutput,
    /// Paging through an offloaded result.
    ReadArtifact,
}

/// One delegate as offered: the recipe's entry, the worker role and its authority.
#[derive(Debug, Clone)]
pub struct OfferedDelegate {
    /// The recipe's delegate entry.
    pub delegate: Delegate,
    /// The worker role.
    pub role: Arc<ResolvedRole>,
    /// The worker's authority: its own policy ∩ the controller's ceiling.
    pub authority: Authority,
}

/// The tools of one inference.
#[derive(Clone)]
pub struct Offer {
    declarations: Vec<ToolDeclaration>,
    targets: BTreeMap<String, Target>,
    validators: BTreeMap<String, Arc<Validator>>,
    /// The delegates, by index.
    pub delegates: Vec<OfferedDelegate>,
    artifact_declaration: ToolDeclaration,
}

impl std::fmt::Debug for Offer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Offer")
            .field("tools", &self.targets.keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

/// Removes descriptions, titles and examples from a schema (the small profile's
/// compact declarations).
fn compact(schema: &Value) -> Value {
    match schema {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(k, _)| {
                    !matches!(k.as_str(), "description" | "title" | "examples" | "$schema")
                })
                .map(|(k, v)| {
                    // `properties` maps names to schemas: keep every name.
                    let v = if k == "properties" {
                        match v {
                            Value::Object(props) => Value::Object(
                                props.iter().map(|(n, s)| (n.clone(), compact(s))).collect(),
                            ),
                            other => other.clone(),
                        }
                    } else {
                        compact(v)
                    };
                    (k.clone(), v)
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(compact).collect()),
        other => other.clone(),
    }
}

/// The argument schema of a delegate to a model-driven worker.
fn delegate_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "task": {"type": "string", "description": "The complete, self-contained task: the worker sees nothing else of this conversation."},
            "paths": {"type": "array", "items": {"type": "string"}, "description": "Project files the task is about."}
        },
        "required": ["task"],
        "additionalProperties": false
    })
}

/// Builds offers from the tool registry's schemas.
#[derive(Debug, Clone)]
pub struct OfferBuilder {
    registry: Option<Arc<ToolRegistry>>,
    profile: Profile,
}

impl OfferBuilder {
    /// Schemas come from `registry` (tools without an executor there get an open
    /// object schema); `profile` Small compacts every schema.
    pub fn new(registry: Option<Arc<ToolRegistry>>, profile: Profile) -> OfferBuilder {
        OfferBuilder { registry, profile }
    }

    fn tool_schema(&self, tool: &str) -> Value {
        self.registry
            .as_ref()
            .and_then(|r| r.schema(tool).cloned())
            .unwrap_or_else(|| json!({"type": "object"}))
    }

    fn shape(&self, schema: Value) -> Value {
        if self.profile == Profile::Small {
            compact(&schema)
        } else {
            schema
        }
    }

    /// The offer for an inference under `authority`, with `delegates` (already
    /// resolved) and the typed output's schema, if any.
    pub fn build(
        &self,
        authority: &Authority,
        delegates: Vec<OfferedDelegate>,
        output_schema: Option<&Value>,
    ) -> Offer {
        let mut offer = Offer {
            declarations: Vec::new(),
            targets: BTreeMap::new(),
            validators: BTreeMap::new(),
            delegates: Vec::new(),
            artifact_declaration: ToolDeclaration {
                name: READ_ARTIFACT.into(),
                description:
                    "Read part of an offloaded tool result by id (offset and limit in bytes)."
                        .into(),
                parameters: self.shape(Artifacts::schema()),
            },
        };
        for tool in authority.allowed_tools() {
            let description = lookup(tool).map_or("", |s| s.summary).to_string();
            offer.add(
                tool,
                description,
                self.tool_schema(tool),
                self,
                Target::Tool(tool.into()),
            );
        }
        for (index, offered) in delegates.iter().enumerate() {
            let d = &offered.delegate;
            if offered.role.role.kind == RoleKind::ToolOnly {
                let allowed: Vec<String> = offered
                    .authority
                    .allowed_tools()
                    .into_iter()
                    .map(String::from)
                    .collect();
                let exposed: Vec<(String, String)> = if allowed.contains(&d.tool) {
                    vec![(d.tool.clone(), d.tool.clone())]
                } else if offered.role.role.tools.len() == 1 {
                    // The delegate's name is an alias of the role's single tool.
                    offered
                        .role
                        .role
                        .tools
                        .iter()
                        .filter(|t| allowed.contains(t))
                        .map(|t| (d.tool.clone(), t.clone()))
                        .collect()
                } else {
                    allowed.iter().map(|t| (t.clone(), t.clone())).collect()
                };
                for (name, tool) in exposed {
                    if offer.targets.contains_key(&name) {
                        continue;
                    }
                    let description = if name == d.tool {
                        d.description.clone()
                    } else {
                        lookup(&tool).map_or("", |s| s.summary).to_string()
                    };
                    offer.add(
                        &name,
                        description,
                        self.tool_schema(&tool),
                        self,
                        Target::DelegatedTool {
                            delegate: index,
                            tool,
                        },
                    );
                }
            } else if !offer.targets.contains_key(&d.tool) {
                offer.add(
                    &d.tool,
                    d.description.clone(),
                    delegate_schema(),
                    self,
                    Target::Delegate(index),
                );
            }
        }
        offer.delegates = delegates;
        if let Some(schema) = output_schema {
            offer.add(
                FINAL_OUTPUT,
                "Deliver the final answer: its arguments ARE the answer and must match this schema.".into(),
                schema.clone(),
                self,
                Target::FinalOutput,
            );
        }
        offer
    }
}

impl Offer {
    fn add(
        &mut self,
        name: &str,
        description: String,
        schema: Value,
        b: &OfferBuilder,
        target: Target,
    ) {
        if let Ok(validator) = jsonschema::validator_for(&schema) {
            self.validators
                .insert(name.to_string(), Arc::new(validator));
        }
        let parameters = if target == Target::FinalOutput {
            schema // the output schema is the contract: never compacted
        } else {
            b.shape(schema)
        };
        self.declarations.push(ToolDeclaration {
            name: name.to_string(),
            description,
            parameters,
        });
        self.targets.insert(name.to_string(), target);
    }

    /// The declarations to send (with the paging tool once artifacts exist).
    pub fn declarations(&self, artifacts: &Artifacts) -> Vec<ToolDeclaration> {
        let mut out = self.declarations.clone();
        if !artifacts.is_empty() {
            out.push(self.artifact_declaration.clone());
        }
        out
    }

    /// What `name` dispatches to, if it is offered.
    pub fn target(&self, name: &str, artifacts: &Artifacts) -> Option<Target> {
        if name == READ_ARTIFACT && !artifacts.is_empty() {
            return Some(Target::ReadArtifact);
        }
        self.targets.get(name).cloned()
    }

    /// The offered names, sorted (for feedback on invented names).
    pub fn names(&self, artifacts: &Artifacts) -> Vec<String> {
        let mut names: Vec<String> = self.targets.keys().cloned().collect();
        if !artifacts.is_empty() {
            names.push(READ_ARTIFACT.into());
            names.sort();
        }
        names
    }

    /// Checks `args` against the declared schema of `name`: the problems, if any.
    pub fn check_args(&self, name: &str, args: &Value) -> Vec<String> {
        let Some(validator) = self.validators.get(name) else {
            return Vec::new();
        };
        validator
            .iter_errors(args)
            .map(|e| {
                let at = e.instance_path().to_string();
                if at.is_empty() {
                    e.to_string()
                } else {
                    format!("{at}: {e}")
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use crate::policy::{Capability, Decision, Phase};

    #[test]
    fn only_allowed_tools_are_offered_and_small_schemas_are_compact() {
        let authority = Authority::new(
            ["read_file", "edit_file"],
            [(Capability::WorkspaceRead, Decision::Allow)],
            Phase::Edit,
        );
        let registry = Arc::new(ToolRegistry::builtin());
        let large = OfferBuilder::new(Some(registry.clone()), Profile::Large).build(
            &authority,
            vec![],
            None,
        );
        let small =
            OfferBuilder::new(Some(registry), Profile::Small).build(&authority, vec![], None);
        let artifacts = Artifacts::new();
        let names: Vec<String> = large
            .declarations(&artifacts)
            .iter()
            .map(|d| d.name.clone())
            .collect();
        assert_eq!(names, vec!["read_file"]);
        let bytes = |o: &Offer| {
            serde_json::to_vec(&o.declarations(&artifacts))
                .unwrap()
                .len()
        };
        assert!(bytes(&small) <= bytes(&large));
        assert!(small.check_args("read_file", &json!({})).len() == 1);
    }

    #[test]
    fn final_output_is_offered_with_the_output_schema_itself() {
        let schema = json!({"type": "object", "required": ["n"], "properties": {"n": {"type": "integer", "description": "kept"}}});
        let offer = OfferBuilder::new(None, Profile::Small).build(
            &Authority::none(Phase::None),
            vec![],
            Some(&schema),
        );
        let artifacts = Artifacts::new();
        let decl = offer.declarations(&artifacts);
        assert_eq!(decl.len(), 1);
        assert_eq!(decl[0].name, FINAL_OUTPUT);
        assert_eq!(decl[0].parameters, schema);
        assert_eq!(
            offer.target(FINAL_OUTPUT, &artifacts),
            Some(Target::FinalOutput)
        );
        assert!(
            !offer
                .check_args(FINAL_OUTPUT, &json!({"n": "x"}))
                .is_empty()
        );
        assert!(offer.target(READ_ARTIFACT, &artifacts).is_none());
    }
}
