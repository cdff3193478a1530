//! `echo`: returns its arguments (already rendered by the caller) as a value for
//! later steps. No effect.

use async_trait::async_trait;
use serde_json::{Value, json};

use super::args::builtin_spec;
use super::{PreparedCall, Preview, Tool, ToolContext, ToolError, ToolOutput, ToolSpec};
use crate::evidence::ReceiptFacts;

const NAME: &str = "echo";

/// The `echo` tool.
#[derive(Debug, Default, Clone, Copy)]
pub struct Echo;

#[async_trait]
impl Tool for Echo {
    fn spec(&self) -> &'static ToolSpec {
        builtin_spec(NAME)
    }

    fn args_schema(&self) -> Value {
        json!({"type": "object", "description": "Any object; it is returned as is."})
    }

    async fn prepare(&self, _ctx: &ToolContext, args: Value) -> Result<PreparedCall, ToolError> {
        Ok(PreparedCall {
            tool: NAME,
            args: args.clone(),
            preview: Preview {
                summary: "echo its arguments".to_string(),
                detail: None,
            },
            payload: Box::new(args),
        })
    }

    async fn execute(
        &self,
        _ctx: &ToolContext,
        call: PreparedCall,
    ) -> Result<ToolOutput, ToolError> {
        let value = call
            .payload
            .downcast::<Value>()
            .map(|v| *v)
            .unwrap_or(call.args);
        Ok(ToolOutput {
            facts: ReceiptFacts {
                output_bytes: value.to_string().len() as u64,
                ..ReceiptFacts::default()
            },
            value,
        })
    }
}
