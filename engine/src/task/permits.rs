//! The task's authority layer: what the task state allows a call to do, checked by
//! `tools::invoke` after the step's authority and before the call is prepared.
//!
//! The request contract's ceiling; writes only inside the plan's write paths, never
//! before a plan, never once editing is closed by a final check; a repair opens
//! only through the repair gate, when a repair-phase step starts (so an attempt that
//! writes nothing still uses a round) or at its first write; baseline checks only
//! before the first change. Narrows only; never allows what the authority denied.

use serde_json::Value;

use super::handle::TaskHandle;
use super::state::TaskState;
use crate::evidence::completion::{may_repair, read_confined};
use crate::policy::Phase;
use crate::tools::fs::confine::normalize;
use crate::tools::{Effect, lookup};

/// A refusal by the task state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// Which layer refused: `contract` or `task`.
    pub by: &'static str,
    /// Why, in words the caller can act on.
    pub reason: String,
}

fn task(reason: String) -> Refusal {
    Refusal { by: "task", reason }
}

impl TaskHandle {
    /// Whether the task allows calling `tool` with `args` in `phase`.
    pub fn permits(&self, tool: &str, args: &Value, phase: Phase) -> Result<(), Refusal> {
        if let Some(reason) = self.contract_denial(tool) {
            return Err(Refusal {
                by: "contract",
                reason,
            });
        }
        let Some(spec) = lookup(tool) else {
            return Ok(());
        };
        let mut state = self.lock();
        if !state.active() {
            return Ok(());
        }
        if tool == "run_check"
            && args.get("phase").and_then(Value::as_str) == Some("baseline")
            && let Some(why) = &state.frozen
        {
            return Err(task(format!(
                "baseline checks run before any change, and the project has changed since {why}"
            )));
        }
        if spec.effect != Effect::Write {
            return Ok(());
        }
        let Some(raw) = args.get("path").and_then(Value::as_str) else {
            return Ok(()); // the tool's own argument check refuses it
        };
        let Ok(rel) = normalize(self.root(), raw) else {
            return Ok(()); // the tool refuses paths outside the project
        };
        let path = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join("/");
        let Some(plan) = &state.plan else {
            return Err(task(
                "no plan yet: freeze one with plan_task (write paths, criteria, checks) before writing".into(),
            ));
        };
        if !state.in_scope(&path) {
            return Err(task(format!(
                "`{path}` is outside the plan's write paths ({})",
                if plan.write_paths.is_empty() {
                    "none".to_string()
                } else {
                    plan.write_paths.join(", ")
                }
            )));
        }
        if phase == Phase::Repair && !state.repair_open {
            self.open_repair(&mut state).map_err(task)?;
        }
        if let Some(why) = &state.closed {
            return Err(task(format!(
                "editing is closed: {why}; changes after the final verification are not allowed (a repair opens only after a completed failing check)"
            )));
        }
        let root = self.root().to_path_buf();
        state
            .originals
            .entry(path)
            .or_insert_with_key(|p| read_confined(&root, p));
        Ok(())
    }
}

impl TaskHandle {
    /// A step of the repair phase starts: the round opens now (through the repair
    /// gate) so that an attempt counts as a used repair even when it writes
    /// nothing. When the gate refuses, nothing opens and writes stay refused.
    pub fn enter_repair(&self) {
        let mut state = self.lock();
        if !state.repair_open {
            let _ = self.open_repair(&mut state);
        }
    }

    fn open_repair(&self, state: &mut TaskState) -> Result<(), String> {
        may_repair(&self.input(state))?;
        state.round += 1;
        state.repair_open = true;
        state.closed = None;
        Ok(())
    }
}
