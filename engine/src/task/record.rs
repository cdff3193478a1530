//! The task record as callers see it (`task_status`, `plan_task`) and as the
//! pinned context every admitted model request carries.

use serde::Serialize;

use super::contract::Classification;
use super::state::TaskState;
use crate::checks::Discovery;
use crate::evidence::WorkerReport;

/// The plan part of the record.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct PlanView {
    /// One line: the approach.
    pub summary: String,
    /// Where writes are allowed.
    pub write_paths: Vec<String>,
    /// Observable acceptance criteria.
    pub criteria: Vec<String>,
    /// Files the plan is based on.
    pub sources: Vec<String>,
}

/// Checks: available, selected, bootstrap.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ChecksView {
    /// Every check id of the project.
    pub available: Vec<String>,
    /// The ids the plan selected (what the final verification runs).
    pub selected: Vec<String>,
    /// Checks offered for a suite the change may create (expected to fail before).
    pub bootstrap: Vec<String>,
}

/// The task record.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct TaskRecord {
    /// The request.
    pub objective: String,
    /// The request's class and ceiling, when the recipe has a contract.
    pub contract: Option<Classification>,
    /// Whether the request may not change files.
    pub read_only: bool,
    /// Whether the user verifies the change themselves.
    pub deferred: bool,
    /// The plan, once made.
    pub plan: Option<PlanView>,
    /// The checks.
    pub checks: ChecksView,
    /// Whether the plan is frozen, and why.
    pub frozen: bool,
    /// What froze it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frozen_by: Option<String>,
    /// `open` or `closed` (a final check ran).
    pub editing: &'static str,
    /// Repair rounds opened, and the bound.
    pub repairs: (u32, u32),
    /// Files read so far (source references).
    pub sources_read: Vec<String>,
    /// Worker reports (advice, never evidence).
    pub reports: Vec<WorkerReport>,
    /// Why the run must stop instead of repairing.
    pub stops: Vec<String>,
    /// The last failing final check, measured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_failure: Option<String>,
}

impl TaskRecord {
    pub(crate) fn of(state: &TaskState, discovery: Option<&Discovery>) -> TaskRecord {
        let (available, bootstrap) = discovery.map_or((Vec::new(), Vec::new()), |d| {
            (
                d.checks.ids().map(String::from).collect(),
                d.checks.bootstrap().map(|c| c.id.clone()).collect(),
            )
        });
        TaskRecord {
            objective: state.objective.clone(),
            contract: state.classification.clone(),
            read_only: !state.may_write(),
            deferred: state.deferred,
            plan: state.plan.as_ref().map(|p| PlanView {
                summary: p.summary.clone(),
                write_paths: p.write_paths.clone(),
                criteria: p.criteria.clone(),
                sources: p.sources.clone(),
            }),
            checks: ChecksView {
                available,
                selected: state.selected.clone(),
                bootstrap,
            },
            frozen: state.frozen.is_some(),
            frozen_by: state.frozen.clone(),
            editing: if state.closed.is_some() && !state.repair_open {
                "closed"
            } else {
                "open"
            },
            repairs: (state.round, state.repairs_max),
            sources_read: state.reads.iter().cloned().collect(),
            reports: state.reports.clone(),
            stops: state.stops.clone(),
            last_failure: state.last_failure.clone(),
        }
    }

    /// The pinned context: short, always current, re-injected into every request.
    pub fn pinned(&self) -> String {
        let mut text = String::from("## Task record (kept by the engine; always current)\n");
        text.push_str(&format!("Objective: {}\n", self.objective));
        if let Some(c) = &self.contract {
            let caps: Vec<&str> = c.capabilities.iter().map(|c| c.as_str()).collect();
            text.push_str(&format!(
                "Request class: {} (allowed: {})\n",
                c.class,
                if caps.is_empty() {
                    "nothing".to_string()
                } else {
                    caps.join(", ")
                }
            ));
        }
        match &self.plan {
            None if self.read_only => {}
            None => text.push_str("Plan: none yet (plan_task sets write paths, criteria, checks; writes are denied until then)\n"),
            Some(plan) => {
                text.push_str(&format!(
                    "Plan{}: {}\nWrite paths: {}\n",
                    self.frozen_by
                        .as_ref()
                        .map(|w| format!(" (frozen since {w})"))
                        .unwrap_or_default(),
                    plan.summary,
                    if plan.write_paths.is_empty() {
                        "none".to_string()
                    } else {
                        plan.write_paths.join(", ")
                    }
                ));
                for c in &plan.criteria {
                    text.push_str(&format!("- criterion: {c}\n"));
                }
            }
        }
        text.push_str(&format!(
            "Checks: selected [{}]; available [{}]\n",
            self.checks.selected.join(", "),
            self.checks.available.join(", ")
        ));
        if self.deferred {
            text.push_str("Verification: deferred (the user verifies the change)\n");
        }
        text.push_str(&format!(
            "Editing: {}; repairs used {} of {}\n",
            self.editing, self.repairs.0, self.repairs.1
        ));
        if let Some(failure) = &self.last_failure {
            let short: String = failure.chars().take(900).collect();
            text.push_str(&format!("Last failing final check: {short}\n"));
        }
        for r in self.reports.iter().rev().take(4) {
            let summary: String = r.summary.chars().take(160).collect();
            text.push_str(&format!("Report from {}: {} — {summary}\n", r.by, r.status));
        }
        for s in &self.stops {
            text.push_str(&format!("Stopped: {s}\n"));
        }
        text
    }
}
