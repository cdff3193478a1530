//! The registry a run uses in one project: every built-in tool, plus the tools that
//! need the run's frozen state (the project's checks) or their own configuration
//! (the web tools' address policy).

use std::path::Path;
use std::sync::Arc;

use super::ToolRegistry;
use super::checks::{DiscoverChecks, RunCheck};
use super::findings::FindingsTool;
use super::mcp::{McpBroker, mcp_tools};
use super::sources::{GithubPullRequest, ReadDiff, ReadJson};
use super::web::{FetchUrlTool, WebSearchTool};
use crate::checks::Discovery;

/// Every executable tool for a run in the project at `root` over its `discovery`.
///
/// The sources (`read_diff`, `read_json`, `github_pull_request`): the GitHub tool reads their configuration
/// (the GitHub token and API URL) from the process environment at each call.
/// The web tools are registered with the production policy (public addresses
/// only); the MCP tools with a broker that starts no server until a call needs
/// one (and never a server from an untrusted project config). Whether a role may
/// call any of them is decided by authority, not here.
pub fn project_registry(root: &Path, discovery: Arc<Discovery>) -> ToolRegistry {
    let mut registry = ToolRegistry::builtin();
    registry.register(Arc::new(DiscoverChecks::new(discovery.clone())));
    registry.register(Arc::new(RunCheck::new(discovery)));
    registry.register(Arc::new(FindingsTool::parse()));
    registry.register(Arc::new(FindingsTool::merge()));
    registry.register(Arc::new(FindingsTool::render()));
    registry.register(Arc::new(ReadDiff));
    registry.register(Arc::new(ReadJson));
    registry.register(Arc::new(GithubPullRequest::from_env()));
    registry.register(Arc::new(FetchUrlTool::public()));
    registry.register(Arc::new(WebSearchTool::from_env()));
    for tool in super::task::task_tools() {
        registry.register(tool);
    }
    let broker = Arc::new(McpBroker::for_project(root.to_path_buf()));
    for tool in mcp_tools(broker) {
        registry.register(tool);
    }
    registry
}
