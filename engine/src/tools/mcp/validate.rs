//! Checks before a call is sent: the tool exists on the server, and the arguments
//! validate against its input schema.
//!
//! Owns nothing but these checks; it never contacts a server. Remote `$ref`s in a
//! server's schema are refused (jsonschema is built without remote fetching).

use serde_json::Value;

use super::client::McpToolInfo;
use super::error::McpError;

/// The tool named `tool` in `tools`, or which ones there are.
pub(super) fn find_tool(
    server: &str,
    tools: &[McpToolInfo],
    tool: &str,
) -> Result<McpToolInfo, McpError> {
    tools
        .iter()
        .find(|t| t.name == tool)
        .cloned()
        .ok_or_else(|| {
            let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
            McpError::UnknownTool {
                server: server.to_owned(),
                tool: tool.to_owned(),
                available: if names.is_empty() {
                    "none".to_owned()
                } else {
                    names.join(", ")
                },
            }
        })
}

/// Checks `args` against the tool's input schema (remote `$ref`s are refused).
pub fn validate_args(server: &str, tool: &McpToolInfo, args: &Value) -> Result<(), McpError> {
    let validator =
        jsonschema::validator_for(&tool.input_schema).map_err(|err| McpError::BadSchema {
            server: server.to_owned(),
            tool: tool.name.clone(),
            reason: err.to_string(),
        })?;
    let problems: Vec<String> = validator
        .iter_errors(args)
        .map(|e| {
            let at = e.instance_path().to_string();
            if at.is_empty() {
                e.to_string()
            } else {
                format!("{at}: {e}")
            }
        })
        .collect();
    if problems.is_empty() {
        Ok(())
    } else {
        Err(McpError::InvalidArguments {
            server: server.to_owned(),
            tool: tool.name.clone(),
            problems: problems.join("; "),
        })
    }
}
