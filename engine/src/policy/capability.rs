//! Capabilities are the unit of authority a role is granted and a tool requires.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// What a tool call needs to be allowed to do.
///
/// Serialized with dotted names (`workspace.read`) so that role files read naturally.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
pub enum Capability {
    /// Read files, list directories and search inside the project root.
    #[serde(rename = "workspace.read")]
    WorkspaceRead,
    /// Create, edit or replace files inside the project root.
    #[serde(rename = "filesystem.write")]
    FilesystemWrite,
    /// Run a process (a command or a configured check).
    #[serde(rename = "process.execute")]
    ProcessExecute,
    /// Read from the network (fetch a URL, search the web).
    #[serde(rename = "network.read")]
    NetworkRead,
    /// Call a tool on an MCP server.
    #[serde(rename = "mcp.call")]
    McpCall,
    /// Read and update the run's task state (plan, status, reports).
    #[serde(rename = "task.manage")]
    TaskManage,
    /// Ask the person running the flow a question.
    #[serde(rename = "user.ask")]
    UserAsk,
    /// Delegate work to another role as a tool call.
    #[serde(rename = "role.delegate")]
    RoleDelegate,
}

impl Capability {
    /// Every capability, in a stable order (for listings and schemas).
    pub const ALL: [Capability; 8] = [
        Capability::WorkspaceRead,
        Capability::FilesystemWrite,
        Capability::ProcessExecute,
        Capability::NetworkRead,
        Capability::McpCall,
        Capability::TaskManage,
        Capability::UserAsk,
        Capability::RoleDelegate,
    ];

    /// The dotted name used in role files, receipts and reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Capability::WorkspaceRead => "workspace.read",
            Capability::FilesystemWrite => "filesystem.write",
            Capability::ProcessExecute => "process.execute",
            Capability::NetworkRead => "network.read",
            Capability::McpCall => "mcp.call",
            Capability::TaskManage => "task.manage",
            Capability::UserAsk => "user.ask",
            Capability::RoleDelegate => "role.delegate",
        }
    }
}

impl std::fmt::Display for Capability {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A role's standing decision for one capability. Anything not listed is `deny`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema, Default)]
#[serde(rename_all = "lowercase")]
pub enum Decision {
    /// Calls proceed without asking.
    Allow,
    /// Calls need an approval (from a person, or from the headless policy).
    Ask,
    /// Calls are refused.
    #[default]
    Deny,
}

impl Decision {
    /// The narrower of two decisions: authority only narrows.
    pub fn narrow(self, other: Decision) -> Decision {
        match (self, other) {
            (Decision::Deny, _) | (_, Decision::Deny) => Decision::Deny,
            (Decision::Ask, _) | (_, Decision::Ask) => Decision::Ask,
            (Decision::Allow, Decision::Allow) => Decision::Allow,
        }
    }
}
