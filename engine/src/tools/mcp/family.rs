//! The MCP tool family: the three tools over one shared broker.
//!
//! Owns only their construction; registering them (and whether a role may call
//! them) is the caller's and the policy layer's.

use std::sync::Arc;

use super::call::CallMcpTool;
use super::client::McpBroker;
use super::list::ListMcpTools;
use super::schema::McpToolSchema;
use crate::tools::Tool;

/// The three MCP tools over one shared broker, ready for `ToolRegistry::register`.
pub fn mcp_tools(broker: Arc<McpBroker>) -> [Arc<dyn Tool>; 3] {
    [
        Arc::new(ListMcpTools::new(broker.clone())),
        Arc::new(McpToolSchema::new(broker.clone())),
        Arc::new(CallMcpTool::new(broker)),
    ]
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use serde_json::json;

    use super::*;
    use crate::policy::Capability;
    use crate::tools::ToolRegistry;
    use crate::tools::mcp::{BrokerSettings, McpConfig};

    #[test]
    fn the_three_tools_need_mcp_call_and_have_strict_schemas() {
        let broker = Arc::new(McpBroker::new(
            Ok(McpConfig::default()),
            BrokerSettings::new(".".into()),
        ));
        let mut registry = ToolRegistry::empty();
        for tool in mcp_tools(broker) {
            assert_eq!(tool.spec().capability, Some(Capability::McpCall));
            registry.register(tool);
        }
        assert_eq!(
            registry.names(),
            ["call_mcp_tool", "list_mcp_tools", "mcp_tool_schema"]
        );
        let ok = json!({"server": "s", "tool": "t", "args": {"a": 1}});
        assert!(registry.validate_args("call_mcp_tool", &ok).is_ok());
        let not_object = json!({"server": "s", "tool": "t", "args": [1]});
        assert!(
            registry
                .validate_args("call_mcp_tool", &not_object)
                .is_err()
        );
        let extra = json!({"server": "s", "extra": 1});
        assert!(registry.validate_args("list_mcp_tools", &extra).is_err());
    }
}
