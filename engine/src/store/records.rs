//! The records the store keeps for runs and steps.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::events::{RunStatus, StepStatus};

/// What the executor stores when a run starts.
#[derive(Debug, Clone)]
pub struct NewRun {
    /// The run's id.
    pub id: String,
    /// The recipe's name.
    pub recipe_name: String,
    /// Where the recipe came from (a path or `builtin:name`).
    pub recipe_origin: String,
    /// The recipe document (after `extends`), as JSON: resume rebuilds from this, never
    /// from the file, which may have changed since.
    pub recipe_document: Value,
    /// The inputs after defaults.
    pub inputs: Value,
    /// The project root the run works in.
    pub project_root: String,
    /// When it started.
    pub started_at_ms: u64,
}

/// A stored run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    /// The run's id.
    pub id: String,
    /// The recipe's name.
    pub recipe_name: String,
    /// Where the recipe came from.
    pub recipe_origin: String,
    /// The recipe document as JSON.
    pub recipe_document: Value,
    /// The inputs after defaults.
    pub inputs: Value,
    /// The project root.
    pub project_root: String,
    /// The last recorded status (`running` after a crash).
    pub status: RunStatus,
    /// When it first started.
    pub started_at_ms: u64,
    /// When it last finished.
    pub finished_at_ms: Option<u64>,
    /// The process id of the last execution.
    pub pid: u32,
    /// How many executions (1 + resumes).
    pub executions: u32,
    /// The final report of the last execution, as JSON.
    pub report: Option<Value>,
}

impl RunRecord {
    /// Whether the process of a run recorded as `running` is still there (a dead
    /// one left the run interrupted: `protoflow resume` continues it). A pid reused
    /// by an unrelated process reads as alive; nothing here can tell them apart.
    pub fn process_alive(&self) -> bool {
        let Ok(pid) = i32::try_from(self.pid) else {
            return false;
        };
        if pid <= 0 {
            return false;
        }
        match nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None) {
            Ok(()) => true,
            // It exists but belongs to someone else.
            Err(nix::errno::Errno::EPERM) => true,
            Err(_) => false,
        }
    }
}

/// A stored step (or fan-out instance).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepRecord {
    /// `id` or `id[index]` (prefixed `parent/` inside a child recipe).
    pub key: String,
    /// The recipe step id.
    pub node: String,
    /// Position in the fan-out list.
    pub item_index: Option<usize>,
    /// Its status.
    pub status: StepStatus,
    /// How many times it started.
    pub attempts: u32,
    /// When it last started.
    pub started_at_ms: Option<u64>,
    /// When it last finished.
    pub finished_at_ms: Option<u64>,
    /// Its output (JSON), when it succeeded.
    pub output: Option<Value>,
    /// Why it failed, timed out, was skipped or interrupted.
    pub error: Option<String>,
    /// Whether its effects may have partly happened (interrupted mid-effect).
    pub effects_uncertain: bool,
}
