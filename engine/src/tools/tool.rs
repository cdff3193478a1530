//! The `Tool` trait: prepare (validate, preview; no effect) then execute.

use std::any::Any;
use std::fmt;

use async_trait::async_trait;
use serde_json::Value;

use super::{ToolContext, ToolError, ToolSpec};
use crate::evidence::ReceiptFacts;

/// One tool: a name in the catalog plus an executor.
///
/// `prepare` validates the arguments against the current state and computes the
/// exact effect (the argv, the new file content) without performing it; approval
/// is given on that preview; `execute` performs exactly the prepared effect, after
/// re-checking the preconditions that could have changed in between.
#[async_trait]
pub trait Tool: Send + Sync + fmt::Debug {
    /// The catalog entry of this tool.
    fn spec(&self) -> &'static ToolSpec;

    /// The JSON Schema of the arguments (offered to models, checked before `prepare`).
    fn args_schema(&self) -> Value;

    /// Validates the call and previews its effect. Has no effect on the world.
    async fn prepare(&self, ctx: &ToolContext, args: Value) -> Result<PreparedCall, ToolError>;

    /// Performs the prepared effect.
    async fn execute(&self, ctx: &ToolContext, call: PreparedCall)
    -> Result<ToolOutput, ToolError>;
}

/// What a person or a policy approves: exactly what will execute.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Preview {
    /// One line: what the call does.
    pub summary: String,
    /// The full detail: absolute argv, cwd, environment and limits for a command;
    /// a unified diff for a file change.
    pub detail: Option<String>,
}

/// A validated call, ready for approval and execution.
pub struct PreparedCall {
    /// The tool's name.
    pub tool: &'static str,
    /// The arguments as given (validated).
    pub args: Value,
    /// What will happen.
    pub preview: Preview,
    /// Tool-specific prepared state (the computed new content, the resolved argv).
    pub payload: Box<dyn Any + Send + Sync>,
}

impl PreparedCall {
    /// The tool-specific prepared state, checked to be what the tool prepared.
    pub fn into_payload<T: Any>(self) -> Result<T, ToolError> {
        let tool = self.tool;
        self.payload
            .downcast::<T>()
            .map(|payload| *payload)
            .map_err(|_| ToolError::InvalidArguments {
                tool: tool.to_string(),
                reason: "the prepared call was not prepared by this tool".to_string(),
            })
    }
}

impl fmt::Debug for PreparedCall {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PreparedCall")
            .field("tool", &self.tool)
            .field("args", &self.args)
            .field("preview", &self.preview)
            .finish_non_exhaustive()
    }
}

/// A tool's result: the value returned to the caller and the facts for its receipt.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutput {
    /// What the caller (a model or a later step) gets back.
    pub value: Value,
    /// What the receipt records about the effect.
    pub facts: ReceiptFacts,
}
