//! The MCP broker: `list_mcp_tools`, `mcp_tool_schema` and `call_mcp_tool` over
//! servers configured in the common `mcpServers` JSON shape.
//!
//! This module owns MCP configuration (`config`), trust in project-local
//! configuration (`trust`), the broker of lazily started servers (`client`), one
//! session (`connection`) and one stdio server process (`process`), the checks
//! before a call is sent (`validate`), result shaping (`result`) and the three
//! tools (`list`, `schema`, `call`, built together by `family`). It
//! never starts a server at load, never runs anything from an untrusted project
//! file, never sends a call outside a server's allowlist, and never decides
//! authority (capability `mcp.call`, approved by the policy layer).

mod call;
mod client;
mod config;
mod connection;
mod error;
mod family;
mod list;
mod process;
mod result;
mod schema;
mod trust;
mod validate;

pub use call::{CallMcpTool, CallMcpToolArgs};
pub use client::{
    BrokerSettings, DEFAULT_MAX_RESTARTS, DEFAULT_MAX_RESULT_BYTES, DEFAULT_TIMEOUT, McpBroker,
    McpCallResult, McpToolInfo,
};
pub use config::{
    Allow, MAX_TIMEOUT_SECONDS, McpConfig, McpSources, Origin, PROJECT_FILE, ProjectFile,
    ServerConfig, Transport, USER_FILE, load_project, user_config_file,
};
pub use error::McpError;
pub use family::mcp_tools;
pub use list::{ListMcpTools, ListMcpToolsArgs};
pub use result::{MAX_DESCRIPTION_CHARS, Shaped, UNTRUSTED_NOTICE, shape_call};
pub use schema::{McpToolSchema, McpToolSchemaArgs};
pub use trust::{TRUST_FILE, TrustRecord, TrustStore, sha256_hex, trust_project};
pub use validate::validate_args;
