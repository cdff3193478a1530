//! The catalog of tool names the engine knows, with the capability each needs.
//!
//! Recipe validation checks tool names against this list; the registry attaches an
//! executor to each name. A name in the catalog whose executor is not built into
//! this binary is refused at run time with that reason, never silently skipped.

use crate::policy::Capability;

/// The kind of effect a tool has, used by phase rules (no writes during verify).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Effect {
    /// Reads the project or the run's state; changes nothing.
    Read,
    /// Changes files in the project.
    Write,
    /// Runs a process.
    Execute,
    /// Talks to the network or an external server.
    Network,
    /// Works on the run itself (task state, questions, rendering); no outside effect.
    Control,
}

/// A tool's identity: name, capability, effect and a one-line summary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ToolSpec {
    /// The name recipes, roles and models use.
    pub name: &'static str,
    /// The capability a caller needs; `None` for pure computations with no effect.
    pub capability: Option<Capability>,
    /// What kind of effect it has.
    pub effect: Effect,
    /// One line for listings and for models.
    pub summary: &'static str,
}

const fn spec(
    name: &'static str,
    capability: Option<Capability>,
    effect: Effect,
    summary: &'static str,
) -> ToolSpec {
    ToolSpec {
        name,
        capability,
        effect,
        summary,
    }
}

use Capability as C;
use Effect as E;

static CATALOG: &[ToolSpec] = &[
    // Files.
    spec(
        "read_file",
        Some(C::WorkspaceRead),
        E::Read,
        "Read a span of lines of a project file, with its revision.",
    ),
    spec(
        "list_directory",
        Some(C::WorkspaceRead),
        E::Read,
        "List a project directory.",
    ),
    spec(
        "search_regex",
        Some(C::WorkspaceRead),
        E::Read,
        "Search project files with a regular expression (honours .gitignore).",
    ),
    spec(
        "edit_file",
        Some(C::FilesystemWrite),
        E::Write,
        "Replace exactly one occurrence of a text in a file at an expected revision.",
    ),
    spec(
        "create_file",
        Some(C::FilesystemWrite),
        E::Write,
        "Create a file that does not exist yet.",
    ),
    spec(
        "replace_file",
        Some(C::FilesystemWrite),
        E::Write,
        "Replace the whole content of an existing file.",
    ),
    // Processes and checks.
    spec(
        "execute_command",
        Some(C::ProcessExecute),
        E::Execute,
        "Run a command (argv, no shell) with an explicit environment, timeout and output cap.",
    ),
    spec(
        "run_check",
        Some(C::ProcessExecute),
        E::Execute,
        "Run a configured or discovered project check by id, in a phase.",
    ),
    spec(
        "discover_checks",
        Some(C::WorkspaceRead),
        E::Read,
        "List the project's configured and discovered checks.",
    ),
    // Git (read-only).
    spec(
        "git_status",
        Some(C::WorkspaceRead),
        E::Read,
        "Show the working tree's status.",
    ),
    spec(
        "git_diff",
        Some(C::WorkspaceRead),
        E::Read,
        "Show the diff between two revisions, or of the working tree.",
    ),
    // Sources: diffs and data.
    spec(
        "read_diff",
        Some(C::WorkspaceRead),
        E::Read,
        "Read a unified diff (patch) file from the project, whole.",
    ),
    spec(
        "read_json",
        Some(C::WorkspaceRead),
        E::Read,
        "Read a JSON file from the project, parsed.",
    ),
    spec(
        "github_pull_request",
        Some(C::NetworkRead),
        E::Network,
        "Fetch a GitHub pull request's diff and head SHA (GITHUB_TOKEN, GITHUB_API_URL).",
    ),
    // Web.
    spec(
        "fetch_url",
        Some(C::NetworkRead),
        E::Network,
        "Fetch a public http(s) URL as untrusted text.",
    ),
    spec(
        "web_search",
        Some(C::NetworkRead),
        E::Network,
        "Search the web through the configured backend.",
    ),
    // MCP.
    spec(
        "list_mcp_tools",
        Some(C::McpCall),
        E::Network,
        "List the tools an allowed MCP server offers.",
    ),
    spec(
        "mcp_tool_schema",
        Some(C::McpCall),
        E::Network,
        "Show the input schema of one MCP tool.",
    ),
    spec(
        "call_mcp_tool",
        Some(C::McpCall),
        E::Network,
        "Call an allowed tool on an MCP server.",
    ),
    // The run's own state.
    spec(
        "task_status",
        Some(C::TaskManage),
        E::Control,
        "Show the task record: objective, plan, checks, reports.",
    ),
    spec(
        "plan_task",
        Some(C::TaskManage),
        E::Control,
        "Set the task's write paths, acceptance criteria and checks.",
    ),
    spec(
        "report_task",
        Some(C::TaskManage),
        E::Control,
        "Report a worker's outcome: done, needs_context or blocked.",
    ),
    spec(
        "completion",
        None,
        E::Control,
        "Judge the run's completion from its receipts and the files' revisions.",
    ),
    spec(
        "read_context_artifact",
        Some(C::TaskManage),
        E::Control,
        "Page through a large tool result kept aside from the conversation.",
    ),
    spec(
        "ask_user",
        Some(C::UserAsk),
        E::Control,
        "Ask the person running the flow a question (no answer when headless).",
    ),
    // Pure computations over the run's data.
    spec(
        "echo",
        None,
        E::Control,
        "Return its arguments, rendered: a value for later steps.",
    ),
    spec(
        "parse_findings",
        None,
        E::Control,
        "Parse findings from model text into validated, typed findings.",
    ),
    spec(
        "merge_findings",
        None,
        E::Control,
        "Deduplicate and ground findings against a diff.",
    ),
    spec(
        "render_report",
        None,
        E::Control,
        "Render typed results as Markdown, SARIF or JSON.",
    ),
];

/// Every tool the engine knows, in a stable order.
pub fn catalog() -> &'static [ToolSpec] {
    CATALOG
}

/// The spec of a tool by name.
pub fn lookup(name: &str) -> Option<&'static ToolSpec> {
    CATALOG.iter().find(|spec| spec.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique() {
        let mut names: Vec<_> = catalog().iter().map(|s| s.name).collect();
        names.sort_unstable();
        let before = names.len();
        names.dedup();
        assert_eq!(before, names.len());
    }

    #[test]
    fn writes_need_the_write_capability() {
        for spec in catalog().iter().filter(|s| s.effect == Effect::Write) {
            assert_eq!(
                spec.capability,
                Some(Capability::FilesystemWrite),
                "{}",
                spec.name
            );
        }
    }
}
