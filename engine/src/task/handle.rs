//! The task handle: one run's task state, shared by its steps, tools and agents.
//!
//! Cheap to clone. Everything goes through short critical sections of one lock;
//! file reads (snapshots, originals, completion) happen outside it where they
//! can. It never performs an effect on the project.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use indexmap::IndexMap;
use serde_json::Value;

use super::contract::{Classification, classify};
use super::error::TaskError;
use super::record::TaskRecord;
use super::state::{PlanRequest, TaskState};
use crate::checks::{CheckSpec, Discovery};
use crate::evidence::completion::{Completion, CompletionInput, compute, read_confined};
use crate::evidence::{Revision, revision_of};
use crate::graph::template::{Data, Templates};
use crate::policy::{Capability, Decision};
use crate::recipe::document::TaskDocument;

/// One run's task state.
#[derive(Clone)]
pub struct TaskHandle {
    inner: Arc<Inner>,
}

struct Inner {
    root: PathBuf,
    checks: Option<Arc<Discovery>>,
    state: Mutex<TaskState>,
}

impl std::fmt::Debug for TaskHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskHandle")
            .field("root", &self.inner.root)
            .finish_non_exhaustive()
    }
}

impl TaskHandle {
    /// An inert task (no rules until a recipe declares one or a plan is made) for a
    /// run in `root` with the project's `checks`, allowing `repairs_max` repairs.
    pub fn new(root: PathBuf, checks: Option<Arc<Discovery>>, repairs_max: u32) -> TaskHandle {
        TaskHandle {
            inner: Arc::new(Inner {
                root,
                checks,
                state: Mutex::new(TaskState {
                    repairs_max,
                    ..TaskState::default()
                }),
            }),
        }
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, TaskState> {
        self.inner
            .state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    pub(crate) fn root(&self) -> &Path {
        &self.inner.root
    }

    pub(crate) fn discovery(&self) -> Option<&Discovery> {
        self.inner.checks.as_deref()
    }

    /// The ids of the project's checks.
    pub fn available_checks(&self) -> Vec<String> {
        self.discovery()
            .map(|d| d.checks.ids().map(String::from).collect())
            .unwrap_or_default()
    }

    /// Sets the task up from the recipe's `task:` block and the run's inputs:
    /// renders the request, classifies it, evaluates `deferred`. Problems are
    /// recorded (and make completion impossible), never silently ignored; a request
    /// that cannot be classified gets an empty ceiling.
    pub fn setup(&self, doc: &TaskDocument, inputs: &Value) {
        let templates = Templates::new();
        let data = Data::from_json(&serde_json::json!({ "inputs": inputs }));
        let mut problems = Vec::new();
        let objective = templates
            .render_string(&doc.request, &data)
            .unwrap_or_else(|e| {
                problems.push(format!("the task's request could not be rendered: {e}"));
                String::new()
            });
        let deferred = match &doc.deferred {
            Some(expr) => templates.condition(expr, &data).unwrap_or_else(|e| {
                problems.push(format!("`task.deferred` could not be evaluated: {e}"));
                false
            }),
            None => false,
        };
        let classification = doc.contract.as_ref().map(|contract| {
            classify(contract, &objective).unwrap_or_else(|e| {
                problems.push(format!("the request could not be classified: {e}"));
                Classification {
                    class: "unclassified".into(),
                    capabilities: Default::default(),
                    matched: None,
                }
            })
        });
        let mut state = self.lock();
        state.declared = true;
        state.objective = objective;
        state.deferred = deferred;
        state.classification = classification;
        state.problems = problems;
    }

    /// The request's classification, when the recipe has a contract.
    pub fn classification(&self) -> Option<Classification> {
        self.lock().classification.clone()
    }

    /// `ceiling` narrowed by the request's class: every capability outside the
    /// class is denied. Unchanged without a contract.
    pub fn narrow_ceiling(
        &self,
        ceiling: &IndexMap<Capability, Decision>,
    ) -> IndexMap<Capability, Decision> {
        let mut out = ceiling.clone();
        if let Some(class) = &self.lock().classification {
            for capability in Capability::ALL {
                if !class.allows(capability) {
                    out.insert(capability, Decision::Deny);
                }
            }
        }
        out
    }

    /// Why the request contract denies `tool`, if it does.
    pub fn contract_denial(&self, tool: &str) -> Option<String> {
        let capability = crate::tools::lookup(tool)?.capability?;
        let state = self.lock();
        let class = state.classification.as_ref()?;
        (!class.allows(capability)).then(|| {
            format!(
                "the request was classified as `{}`, whose ceiling does not include `{capability}`",
                class.class
            )
        })
    }

    /// Applies `plan_task`; the record afterwards.
    pub fn plan(&self, request: PlanRequest) -> Result<TaskRecord, TaskError> {
        let available = self.available_checks();
        let root = self.inner.root.clone();
        {
            let mut state = self.lock();
            state.apply_plan(
                &root,
                request,
                &available,
                crate::evidence::completion::is_docs,
            )?;
        }
        Ok(self.record())
    }

    /// The task record.
    pub fn record(&self) -> TaskRecord {
        let state = self.lock();
        TaskRecord::of(&state, self.discovery())
    }

    /// The pinned context re-injected into every admitted request, when the task
    /// is active.
    pub fn pinned(&self) -> Option<String> {
        let state = self.lock();
        state
            .active()
            .then(|| TaskRecord::of(&state, self.discovery()).pinned())
    }

    /// Records the revisions a check is about to run on (its declared dependency
    /// files, the files the run changed and the sources it read); the id to put on
    /// the check's receipt.
    pub fn begin_check(&self, check: &CheckSpec) -> u64 {
        let mut paths: Vec<String> = check.paths.files.clone();
        {
            let state = self.lock();
            paths.extend(state.originals.keys().cloned());
            paths.extend(state.reads.iter().cloned());
        }
        paths.sort();
        paths.dedup();
        let snapshot: BTreeMap<String, Option<Revision>> = paths
            .into_iter()
            .map(|p| {
                let revision = read_confined(&self.inner.root, &p).map(|b| revision_of(&b));
                (p, revision)
            })
            .collect();
        let mut state = self.lock();
        state.next_snapshot += 1;
        let id = state.next_snapshot;
        state.snapshots.insert(id, snapshot);
        id
    }

    /// Computes the completion verdict now (and keeps it for the run report).
    pub fn completion(&self) -> Completion {
        let mut state = self.lock();
        let completion = compute(&self.input(&state));
        state.last_completion = Some(completion.clone());
        completion
    }

    /// The last verdict computed, if any.
    pub fn last_completion(&self) -> Option<Completion> {
        self.lock().last_completion.clone()
    }

    pub(crate) fn input<'a>(&'a self, state: &'a TaskState) -> CompletionInput<'a> {
        let plan = state.plan.as_ref();
        CompletionInput {
            root: &self.inner.root,
            ledger: &state.ledger,
            reports: &state.reports,
            planned: plan.is_some(),
            selected: &state.selected,
            criteria: plan.map_or(&[][..], |p| &p.criteria),
            checks: self.discovery().map(|d| &d.checks),
            class: state.classification.as_ref().map(|c| c.class.as_str()),
            may_write: state.may_write(),
            may_execute: state
                .classification
                .as_ref()
                .is_none_or(Classification::may_execute),
            deferred: state.deferred,
            stops: &state.stops,
            originals: &state.originals,
            round: state.round,
            repairs_max: state.repairs_max,
            problems: &state.problems,
        }
    }
}
