//! `call_mcp_tool(server, tool, args)`: call one allowed tool on an MCP server.
//!
//! `prepare` refuses a tool outside the server's allowlist (nothing is started or
//! sent), checks the arguments against the tool's input schema when the schema is
//! already known, and previews exactly the server, the tool and the arguments.
//! `execute` starts the server if needed, checks the arguments against the
//! current schema before sending, and returns the result as bounded, untrusted
//! content. An error result from the tool (`isError`) is returned as a result
//! with `is_error: true`, not as a failed call.

use std::sync::Arc;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::client::McpBroker;
use super::result::shape_call;
use super::validate::validate_args;
use crate::evidence::ReceiptFacts;
use crate::tools::args::{builtin_spec, parse_args, schema_of};
use crate::tools::{PreparedCall, Preview, Tool, ToolContext, ToolError, ToolOutput, ToolSpec};

const TOOL: &str = "call_mcp_tool";

/// Arguments of `call_mcp_tool`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CallMcpToolArgs {
    /// The configured server's name.
    pub server: String,
    /// The tool's name (it must be on the server's allowlist).
    pub tool: String,
    /// The tool's arguments, matching its input schema (see `mcp_tool_schema`).
    #[serde(default)]
    pub args: Map<String, Value>,
}

/// The `call_mcp_tool` tool.
#[derive(Debug, Clone)]
pub struct CallMcpTool {
    broker: Arc<McpBroker>,
}

impl CallMcpTool {
    /// The tool over `broker`.
    pub fn new(broker: Arc<McpBroker>) -> Self {
        CallMcpTool { broker }
    }
}

#[async_trait]
impl Tool for CallMcpTool {
    fn spec(&self) -> &'static ToolSpec {
        builtin_spec(TOOL)
    }

    fn args_schema(&self) -> Value {
        schema_of::<CallMcpToolArgs>()
    }

    async fn prepare(&self, _ctx: &ToolContext, args: Value) -> Result<PreparedCall, ToolError> {
        let parsed: CallMcpToolArgs = parse_args(TOOL, args.clone())?;
        let server = self
            .broker
            .check_allowed(&parsed.server, &parsed.tool)
            .map_err(|e| e.into_tool_error(TOOL))?;
        if let Some(info) = self.broker.known_tool(&parsed.server, &parsed.tool) {
            validate_args(&parsed.server, &info, &Value::Object(parsed.args.clone()))
                .map_err(|e| e.into_tool_error(TOOL))?;
        }
        let shown = serde_json::to_string_pretty(&parsed.args)
            .unwrap_or_else(|_| Value::Object(parsed.args.clone()).to_string());
        let preview = Preview {
            summary: format!(
                "call MCP tool `{}` on server `{}`",
                parsed.tool, server.name
            ),
            detail: Some(format!(
                "server: {} ({}; configured in {})\ntool: {}\nargs: {}",
                server.name,
                server.transport.describe(),
                server.origin.file().display(),
                parsed.tool,
                shown
            )),
        };
        Ok(PreparedCall {
            tool: TOOL,
            args,
            preview,
            payload: Box::new(parsed),
        })
    }

    async fn execute(
        &self,
        ctx: &ToolContext,
        call: PreparedCall,
    ) -> Result<ToolOutput, ToolError> {
        let args = call.into_payload::<CallMcpToolArgs>()?;
        let CallMcpToolArgs { server, tool, args } = args;
        let result = self
            .broker
            .call_tool(&server, &tool, args, &ctx.cancel)
            .await
            .map_err(|e| e.into_tool_error(TOOL))?;
        let cap = self.broker.settings().max_result_bytes;
        let shaped = shape_call(&server, &tool, &result, cap);
        let secrets = self
            .broker
            .server(&server)
            .map(|config| config.secrets())
            .unwrap_or_default();
        Ok(ToolOutput {
            value: secrets.redact_value(&shaped.value),
            facts: ReceiptFacts {
                output_bytes: shaped.bytes,
                truncated: shaped.truncated,
                detail: json!({
                    "server": server,
                    "tool": tool,
                    "is_error": result.is_error,
                }),
                ..ReceiptFacts::default()
            },
        })
    }
}
