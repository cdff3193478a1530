//! `list_mcp_tools(server)`: the tools a configured MCP server offers, each marked
//! allowed or not by the server's allowlist.
//!
//! Starts the server if it is not running (after approval: `prepare` only checks
//! the name against the configuration and trust). Descriptions come from the
//! server and are returned as untrusted text, cut to a bounded length.

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

const TOOL: &str = "list_mcp_tools";

/// Arguments of `list_mcp_tools`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListMcpToolsArgs {
    /// The configured server's name.
    pub server: String,
}

/// The `list_mcp_tools` tool.
#[derive(Debug, Clone)]
pub struct ListMcpTools {
    broker: Arc<McpBroker>,
}

impl ListMcpTools {
    /// The tool over `broker`.
    pub fn new(broker: Arc<McpBroker>) -> Self {
        ListMcpTools { broker }
    }
}

#[async_trait]
impl Tool for ListMcpTools {
    fn spec(&self) -> &'static ToolSpec {
        builtin_spec(TOOL)
    }

    fn args_schema(&self) -> Value {
        schema_of::<ListMcpToolsArgs>()
    }

    async fn prepare(&self, _ctx: &ToolContext, args: Value) -> Result<PreparedCall, ToolError> {
        let parsed: ListMcpToolsArgs = parse_args(TOOL, args.clone())?;
        let server = self
            .broker
            .server(&parsed.server)
            .map_err(|e| e.into_tool_error(TOOL))?;
        let preview = Preview {
            summary: format!("list the tools of MCP server `{}`", server.name),
            detail: Some(format!(
                "server: {} ({}; configured in {})\nstarts the server if it is not running",
                server.name,
                server.transport.describe(),
                server.origin.file().display()
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
        let args = call.into_payload::<ListMcpToolsArgs>()?;
        let broker = &self.broker;
        let tools = broker
            .list_tools(&args.server, &ctx.cancel)
            .await
            .map_err(|e| e.into_tool_error(TOOL))?;
        let allow = &broker
            .server(&args.server)
            .map_err(|e| e.into_tool_error(TOOL))?
            .allow;
        let listed: Vec<Value> = tools
            .iter()
            .map(|tool| {
                json!({
                    "name": tool.name,
                    "description": short_description(tool.description.as_deref()),
                    "allowed": allow.permits(&tool.name),
                })
            })
            .collect();
        let facts = ReceiptFacts {
            detail: json!({ "server": args.server, "tools": tools.len() }),
            ..ReceiptFacts::default()
        };
        Ok(ToolOutput {
            value: json!({
                "server": args.server,
                "tools": listed,
                "untrusted": true,
                "notice": UNTRUSTED_NOTICE,
            }),
            facts,
        })
    }
}
