//! The event envelope and the kinds of event.
//!
//! JSON shape (stable): every event is one object with `seq` (1, 2, ... per run),
//! `run_id`, `at_ms` (milliseconds since the Unix epoch), `type` (a dotted name) and
//! the fields of its type, flat beside them. New fields may be added; existing fields
//! are never renamed or removed without a new `type`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{RunStatus, StepStatus};

/// One state change of a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Event {
    /// Position in the run's event log, from 1, without gaps.
    pub seq: u64,
    /// The run it belongs to.
    pub run_id: String,
    /// When it happened, in milliseconds since the Unix epoch.
    pub at_ms: u64,
    /// What happened.
    #[serde(flatten)]
    pub kind: EventKind,
}

/// What happened. Step keys are a step's id, or `id[index]` for a fan-out instance,
/// prefixed by `parent/` inside a child recipe.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type")]
pub enum EventKind {
    /// The run started (or was resumed: see `run.resumed`).
    #[serde(rename = "run.started")]
    RunStarted {
        /// The recipe's name.
        recipe: String,
        /// The inputs after defaults were applied.
        inputs: Value,
        /// Root limits of the run (`model_calls`, `tool_calls`, `tokens`,
        /// `wall_time_ms`, `concurrency`, `children`, `repairs`, `output_bytes`).
        limits: Value,
    },
    /// A stored run continues in a new process.
    #[serde(rename = "run.resumed")]
    RunResumed {
        /// Steps whose stored results are reused without running again.
        reused: Vec<String>,
        /// Steps that were running when the previous process died.
        interrupted: Vec<String>,
    },
    /// A step that was running when its process died; its effects are uncertain
    /// when the step could have changed the world (a command, a write, an agent).
    #[serde(rename = "step.interrupted")]
    StepInterrupted {
        /// The step key.
        step: String,
        /// Whether the step's effects may have partly happened.
        effects_uncertain: bool,
        /// Whether it will run again now (only when explicitly asked or effect-free).
        replayed: bool,
    },
    /// A step (or fan-out instance) started.
    #[serde(rename = "step.started")]
    StepStarted {
        /// The step key.
        step: String,
        /// The recipe step id it is an instance of.
        node: String,
        /// Position in the fan-out list, for fan-out instances.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        item_index: Option<usize>,
        /// 1 for the first run; more after a loop was taken or a retry.
        attempt: u32,
    },
    /// A step finished (any terminal status except skipped).
    #[serde(rename = "step.finished")]
    StepFinished {
        /// The step key.
        step: String,
        /// How it ended.
        status: StepStatus,
        /// How long it ran.
        duration_ms: u64,
        /// Why it failed, timed out or was canceled.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<String>,
    },
    /// A step did not run.
    #[serde(rename = "step.skipped")]
    StepSkipped {
        /// The step key.
        step: String,
        /// Why (a false `when`, the dependents rule, the run stopping).
        reason: String,
        /// `skipped`, or `not_run` when the run stopped before reaching it.
        status: StepStatus,
    },
    /// An agent step's attempt was retried (an invalid typed output sent back for
    /// correction).
    #[serde(rename = "step.retried")]
    StepRetried {
        /// The step key.
        step: String,
        /// The attempt that starts now.
        attempt: u32,
        /// Why the previous attempt was not accepted.
        reason: String,
    },
    /// A fan-out step's list was evaluated.
    #[serde(rename = "fanout.expanded")]
    FanoutExpanded {
        /// The step id.
        step: String,
        /// How many instances it has (0 for an empty list).
        items: usize,
    },
    /// A tool call left a receipt (the full receipt is in the store).
    #[serde(rename = "receipt.recorded")]
    ReceiptRecorded {
        /// The step key.
        step: String,
        /// The tool.
        tool: String,
        /// How the call ended (receipt status).
        status: String,
    },
    /// An agent made one model call (all its attempts: retries and fallbacks). Never
    /// carries a key, a header or message content: sizes, model, usage and timing only.
    #[serde(rename = "model.called")]
    ModelCalled {
        /// The step key (a delegated worker's is `<step>/<tool>#<n>`).
        step: String,
        /// The provider's name.
        provider: String,
        /// The model that answered (or was last asked, on failure).
        model: String,
        /// The inference window (from 1).
        window: u32,
        /// The turn within the window (from 1).
        turn: u32,
        /// Attempts made (1 without retries or fallbacks).
        attempts: u32,
        /// Bytes of the request body.
        request_bytes: u64,
        /// The request's estimated tokens (bytes / 4, rounded up).
        estimated_tokens: u64,
        /// Bytes of the tool declarations in the request.
        tool_declaration_bytes: u64,
        /// Input tokens the server reported.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        input_tokens: Option<u64>,
        /// Output tokens the server reported.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        output_tokens: Option<u64>,
        /// Wall time of the call, in milliseconds.
        duration_ms: u64,
        /// Older tool exchanges left out of this request to fit the context window.
        #[serde(default)]
        evicted_exchanges: u32,
        /// Why the call failed, when it did.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<String>,
    },
    /// A bounded back-edge was taken: the steps from `to` through `from` run again.
    #[serde(rename = "loop.taken")]
    LoopTaken {
        /// The step the loop is declared on.
        from: String,
        /// The step it runs again from.
        to: String,
        /// How many times it has now been taken (1 the first time).
        iteration: u32,
        /// The bound.
        max: u32,
    },
    /// A back-edge's condition still held after `max` iterations: the loop ended
    /// without reaching its goal, and the run is failed.
    #[serde(rename = "loop.exhausted")]
    LoopExhausted {
        /// The step the loop is declared on.
        from: String,
        /// The step it would run again from.
        to: String,
        /// The bound that was reached.
        max: u32,
    },
    /// A limit was reached. `scope` is `run` for the root budget (the run stops new
    /// work) or a step key for a step's own narrower limit (that step fails).
    #[serde(rename = "budget.exhausted")]
    BudgetExhausted {
        /// `run` or the step key.
        scope: String,
        /// The limit's name (`model_calls`, `tool_calls`, `tokens`, `wall_time`,
        /// `children`).
        limit: String,
        /// The limit's value (milliseconds for `wall_time`).
        max: u64,
        /// How much had been used when the charge was refused.
        used: u64,
    },
    /// Cancellation was requested; running steps are being stopped.
    #[serde(rename = "run.canceling")]
    RunCanceling {
        /// Why (a signal, an embedder's request).
        reason: String,
    },
    /// The run ended (every step is terminal).
    #[serde(rename = "run.finished")]
    RunFinished {
        /// How it ended.
        status: RunStatus,
        /// How long this execution took.
        duration_ms: u64,
    },
}

impl EventKind {
    /// The dotted type name.
    pub fn type_name(&self) -> &'static str {
        match self {
            EventKind::RunStarted { .. } => "run.started",
            EventKind::RunResumed { .. } => "run.resumed",
            EventKind::StepInterrupted { .. } => "step.interrupted",
            EventKind::StepStarted { .. } => "step.started",
            EventKind::StepFinished { .. } => "step.finished",
            EventKind::StepSkipped { .. } => "step.skipped",
            EventKind::StepRetried { .. } => "step.retried",
            EventKind::FanoutExpanded { .. } => "fanout.expanded",
            EventKind::ReceiptRecorded { .. } => "receipt.recorded",
            EventKind::ModelCalled { .. } => "model.called",
            EventKind::LoopTaken { .. } => "loop.taken",
            EventKind::LoopExhausted { .. } => "loop.exhausted",
            EventKind::BudgetExhausted { .. } => "budget.exhausted",
            EventKind::RunCanceling { .. } => "run.canceling",
            EventKind::RunFinished { .. } => "run.finished",
        }
    }
}

/// Milliseconds since the Unix epoch (0 if the clock is before 1970).
pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_serialize_flat_with_a_dotted_type() {
        let event = Event {
            seq: 3,
            run_id: "r1".into(),
            at_ms: 42,
            kind: EventKind::StepFinished {
                step: "verify[2]".into(),
                status: StepStatus::TimedOut,
                duration_ms: 10,
                error: Some("timed out after 1s".into()),
            },
        };
        let json = serde_json::to_value(&event).unwrap_or_default();
        assert_eq!(
            json,
            serde_json::json!({
                "seq": 3, "run_id": "r1", "at_ms": 42, "type": "step.finished",
                "step": "verify[2]", "status": "timed_out", "duration_ms": 10,
                "error": "timed out after 1s"
            })
        );
        let back: Event = serde_json::from_value(json).unwrap_or_else(|_| event.clone());
        assert_eq!(back, event);
        assert_eq!(event.kind.type_name(), "step.finished");
    }
}
