//! `mcp_tool_schema(server, tool)`: one MCP tool's input schema and description.
//!
//! Starts the server if it is not running (after approval). The schema and the
//! description are the server's own words, returned as untrusted content; whether
//! the tool may be called (its allowlist entry) is stated alongside.

use std::sync::Arc;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::client::McpBroker;
use super::result::{UNTRUSTED_NOTICE, short_description};
use crate::evidence::ReceiptFacts;
use crate::tools::args::{builtin_spec, parse_args, schema_of};
use crate::tools::{PreparedCall, Preview, Tool, ToolContext, ToolError, ToolOutput, ToolSpec};

const TOOL: &str = "mcp_tool_schema";

/// Arguments of `mcp_tool_schema`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct McpToolSchemaArgs {
    /// The configured server's name.
    pub server: String,
    /// The tool's name, as `list_mcp_tools` shows it.
    pub tool: String,
}

/// The `mcp_tool_schema` tool.
#[derive(Debug, Clone)]
pub struct McpToolSchema {
    broker: Arc<McpBroker>,
}

impl McpToolSchema {
    /// The tool over `broker`.
    pub fn new(broker: Arc<McpBroker>) -> Self {
        McpToolSchema { broker }
    }
}

#[async_trait]
impl Tool for McpToolSchema {
    fn spec(&self) -> &'static ToolSpec {
        builtin_spec(TOOL)
    }

    fn args_schema(&self) -> Value {
        schema_of::<McpToolSchemaArgs>()
    }

    async fn prepare(&self, _ctx: &ToolContext, args: Value) -> Result<PreparedCall, ToolError> {
        let parsed: McpToolSchemaArgs = parse_args(TOOL, args.clone())?;
        let server = self
            .broker
            .server(&parsed.server)
            .map_err(|e| e.into_tool_error(TOOL))?;
        let preview = Preview {
            summary: format!(
                "show the input schema of MCP tool `{}` on server `{}`",
                parsed.tool, server.name
            ),
            detail: Some(format!(
                "server: {} ({})\ntool: {}\nstarts the server if it is not running",
                server.name,
                server.transport.describe(),
                parsed.tool
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
        let args = call.into_payload::<McpToolSchemaArgs>()?;
        let info = self
            .broker
            .tool(&args.server, &args.tool, &ctx.cancel)
            .await
            .map_err(|e| e.into_tool_error(TOOL))?;
        let allowed = self.broker.check_allowed(&args.server, &args.tool).is_ok();
        Ok(ToolOutput {
            value: json!({
                "server": args.server,
                "tool": info.name,
                "description": short_description(info.description.as_deref()),
                "input_schema": info.input_schema,
                "allowed": allowed,
                "untrusted": true,
                "notice": UNTRUSTED_NOTICE,
            }),
            facts: ReceiptFacts {
                detail: json!({ "server": args.server, "tool": args.tool }),
                ..ReceiptFacts::default()
            },
        })
    }
}
