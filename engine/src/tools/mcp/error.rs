//! Errors of the MCP broker: configuration, trust, allowlist, argument checks and
//! server failures.
//!
//! Messages name the server and the tool so a caller (or a model) can correct its
//! call. They never contain a configured environment value (servers' tokens live
//! there) and never the body of a server's answer beyond a short stderr tail.

use std::path::PathBuf;

use miette::Diagnostic;
use thiserror::Error;

use crate::tools::ToolError;

/// Why an MCP configuration could not be used or an MCP call did not produce a result.
#[derive(Debug, Error, Diagnostic)]
pub enum McpError {
    /// A configuration or trust file could not be read.
    #[error("could not read `{path}`: {source}")]
    #[diagnostic(
        code(protoflow::tools::mcp::read),
        help("check that the file exists and is readable")
    )]
    Read {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// A configuration file is not valid JSON of the `mcpServers` shape.
    #[error("`{path}` is not a valid MCP configuration: {reason}")]
    #[diagnostic(
        code(protoflow::tools::mcp::config_parse),
        help(
            "the file must be {{\"mcpServers\": {{\"name\": {{\"command\": ..., \"args\": [...], \
             \"env\": {{...}}, \"allow\": [...]}} | {{\"url\": \"https://...\", \"allow\": [...]}}}}}}; \
             unknown fields are rejected (see docs/mcp.md)"
        )
    )]
    ConfigParse {
        /// The file.
        path: PathBuf,
        /// The parser's message, with line and column.
        reason: String,
    },
    /// A server entry parses but cannot be used.
    #[error("server `{server}` in `{path}` is invalid: {reason}")]
    #[diagnostic(
        code(protoflow::tools::mcp::config_invalid),
        help(
            "give either `command` (with optional `args` and `env`) or `url`, never both; \
             `allow` is a list of tool names or \"*\" (see docs/mcp.md)"
        )
    )]
    ConfigInvalid {
        /// The file.
        path: PathBuf,
        /// The server's name.
        server: String,
        /// What is wrong.
        reason: String,
    },
    /// The MCP configuration could not be loaded when the broker was built.
    #[error("the MCP configuration could not be loaded: {reason}")]
    #[diagnostic(
        code(protoflow::tools::mcp::config_unavailable),
        help("fix the configuration file named in the message (`protoflow mcp list` shows it)")
    )]
    ConfigUnavailable {
        /// The loading error.
        reason: String,
    },
    /// No server of that name is configured (or trusted).
    #[error("no MCP server named `{server}` is configured (configured: {known})")]
    #[diagnostic(
        code(protoflow::tools::mcp::unknown_server),
        help("use one of the configured server names; `protoflow mcp list` shows them")
    )]
    UnknownServer {
        /// The name asked for.
        server: String,
        /// The configured names, comma-separated, or `none`.
        known: String,
    },
    /// The server is configured by the project, whose MCP configuration is not trusted.
    #[error(
        "MCP server `{server}` comes from the project's `{file}`, which is not trusted \
         (nothing from it is started)"
    )]
    #[diagnostic(
        code(protoflow::tools::mcp::untrusted_project),
        help(
            "review the file, then run `protoflow mcp trust --project {project}`; \
             any later change to the file needs trusting again"
        )
    )]
    UntrustedProject {
        /// The server's name.
        server: String,
        /// The project root.
        project: String,
        /// The project's MCP configuration file.
        file: String,
    },
    /// The tool is not on the server's allowlist. Nothing was sent.
    #[error("tool `{tool}` of MCP server `{server}` is not allowed (allowed: {allowed})")]
    #[diagnostic(
        code(protoflow::tools::mcp::not_allowed),
        help(
            "only tools listed in the server's `allow` (or all, with \"*\") may be called; \
             nothing was sent to the server"
        )
    )]
    NotAllowed {
        /// The server.
        server: String,
        /// The tool asked for.
        tool: String,
        /// The allowlist, comma-separated, or `none`.
        allowed: String,
    },
    /// The server does not offer a tool of that name.
    #[error("MCP server `{server}` has no tool `{tool}` (it offers: {available})")]
    #[diagnostic(
        code(protoflow::tools::mcp::unknown_tool),
        help("call list_mcp_tools to see the server's tools")
    )]
    UnknownTool {
        /// The server.
        server: String,
        /// The tool asked for.
        tool: String,
        /// The tools it offers, comma-separated, or `none`.
        available: String,
    },
    /// The arguments do not match the tool's input schema. Nothing was sent.
    #[error("arguments for `{server}`.`{tool}` do not match its input schema: {problems}")]
    #[diagnostic(
        code(protoflow::tools::mcp::invalid_arguments),
        help("call mcp_tool_schema to see the expected arguments, fix them and call again")
    )]
    InvalidArguments {
        /// The server.
        server: String,
        /// The tool.
        tool: String,
        /// The schema violations, `; `-separated.
        problems: String,
    },
    /// The server's own input schema is not a usable JSON Schema.
    #[error("MCP tool `{server}`.`{tool}` has an unusable input schema: {reason}")]
    #[diagnostic(
        code(protoflow::tools::mcp::bad_schema),
        help("the server is broken; the tool cannot be called safely")
    )]
    BadSchema {
        /// The server.
        server: String,
        /// The tool.
        tool: String,
        /// The schema compiler's message.
        reason: String,
    },
    /// The server process could not be started.
    #[error("could not start MCP server `{server}`: {reason}")]
    #[diagnostic(
        code(protoflow::tools::mcp::spawn),
        help(
            "check the server's `command` (it runs with a minimal environment: PATH, HOME, \
             locale and the configured `env`) or that its `url` is reachable"
        )
    )]
    Spawn {
        /// The server.
        server: String,
        /// Why.
        reason: String,
    },
    /// The server did not answer within the time limit; it was stopped.
    #[error("MCP server `{server}` did not answer {operation} within {limit}; it was stopped")]
    #[diagnostic(
        code(protoflow::tools::mcp::timed_out),
        help("the server is hung or slow; the next call starts it again (once)")
    )]
    TimedOut {
        /// The server.
        server: String,
        /// What was waited for (`initialize`, `tools/list`, `tools/call echo`).
        operation: String,
        /// The limit, as `30s` or `1s`.
        limit: String,
    },
    /// The server exited or closed its connection during a request.
    #[error("MCP server `{server}` exited during {operation}{stderr}")]
    #[diagnostic(
        code(protoflow::tools::mcp::server_exited),
        help("the server crashed or quit; the next call starts it again (once)")
    )]
    ServerExited {
        /// The server.
        server: String,
        /// What was in progress.
        operation: String,
        /// `; stderr: ...` with the end of its standard error, or empty.
        stderr: String,
    },
    /// The server failed again after its one restart; it is not started again in this run.
    #[error("MCP server `{server}` failed after a restart and is disabled for this run: {reason}")]
    #[diagnostic(
        code(protoflow::tools::mcp::server_failed),
        help("fix the server (or its configuration) and start a new run")
    )]
    ServerFailed {
        /// The server.
        server: String,
        /// The last failure.
        reason: String,
    },
    /// The server answered with a protocol error.
    #[error("MCP server `{server}` answered {operation} with an error: {reason}")]
    #[diagnostic(
        code(protoflow::tools::mcp::protocol),
        help("the server refused the request; check the arguments and the server's logs")
    )]
    Protocol {
        /// The server.
        server: String,
        /// The request.
        operation: String,
        /// The server's error.
        reason: String,
    },
    /// The call was canceled.
    #[error("the MCP call to `{server}` was canceled")]
    #[diagnostic(code(protoflow::tools::mcp::canceled))]
    Canceled {
        /// The server.
        server: String,
    },
    /// The trust store could not be written.
    #[error("could not write the MCP trust store `{path}`: {reason}")]
    #[diagnostic(
        code(protoflow::tools::mcp::trust_store),
        help("check that the user data directory is writable")
    )]
    TrustStore {
        /// The trust file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// Neither `XDG_CONFIG_HOME`/`XDG_DATA_HOME` nor `HOME` is set.
    #[error("cannot locate the user's {what} directory: neither {xdg} nor HOME is set")]
    #[diagnostic(code(protoflow::tools::mcp::no_home), help("set HOME (or {xdg})"))]
    NoHome {
        /// `config` or `data`.
        what: &'static str,
        /// The XDG variable.
        xdg: &'static str,
    },
}

impl McpError {
    /// The engine-wide tool error for this failure, for `tool`.
    pub fn into_tool_error(self, tool: &str) -> ToolError {
        let tool = tool.to_owned();
        let with_help = |err: &McpError| match miette::Diagnostic::help(err) {
            Some(help) => format!("{err} ({help})"),
            None => err.to_string(),
        };
        match self {
            McpError::UnknownServer { .. }
            | McpError::UnknownTool { .. }
            | McpError::InvalidArguments { .. } => ToolError::InvalidArguments {
                tool,
                reason: with_help(&self),
            },
            McpError::Canceled { .. } => ToolError::Canceled(tool),
            McpError::TimedOut { .. } => ToolError::Io {
                tool,
                source: std::io::Error::new(std::io::ErrorKind::TimedOut, with_help(&self)),
            },
            McpError::Read { .. }
            | McpError::Spawn { .. }
            | McpError::ServerExited { .. }
            | McpError::Protocol { .. }
            | McpError::TrustStore { .. } => ToolError::Io {
                tool,
                source: std::io::Error::other(with_help(&self)),
            },
            McpError::ConfigParse { .. }
            | McpError::ConfigUnavailable { .. }
            | McpError::ConfigInvalid { .. }
            | McpError::UntrustedProject { .. }
            | McpError::NotAllowed { .. }
            | McpError::BadSchema { .. }
            | McpError::ServerFailed { .. }
            | McpError::NoHome { .. } => ToolError::Rejected {
                tool,
                reason: with_help(&self),
            },
        }
    }
}
