//! The MCP connection manager: one lazily started connection per configured server.
//!
//! Owns the life of every server connection: nothing starts until the first
//! request that needs it; a stdio server runs in its own process group with an
//! explicit environment (the base process environment plus the configured `env`,
//! nothing else inherited) and its stderr drained, the last part kept for error
//! messages; every request has a time limit, after which the server's group is
//! killed; a server that exits or hangs is restarted at most `max_restarts` times
//! (default once) on a later request and is then disabled for the broker's life.
//! Dropping the broker (the end of a run) kills every group it started.
//!
//! It never sends a `tools/call` for a tool outside the server's allowlist or with
//! arguments that fail the tool's input schema, and never decides authority (the
//! policy layer approves calls before the tools reach here).

use std::collections::BTreeMap;
use std::fmt;
use std::future::Future;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::RoleClient;
use rmcp::model::CallToolRequestParams;
use rmcp::service::{Peer, ServiceError};
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use super::config::{McpConfig, McpSources, ServerConfig};
use super::connection::Connection;
use super::error::McpError;
use super::validate::{find_tool, validate_args};
use crate::tools::process::base_process_env;

/// Default time limit of one request (including a server's start-up handshake).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
/// Default cap on the text of one result returned to the caller.
pub const DEFAULT_MAX_RESULT_BYTES: usize = 64 * 1024;
/// Restarts allowed per server and broker after it exited or hung.
pub const DEFAULT_MAX_RESTARTS: u32 = 1;

/// How the broker runs servers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BrokerSettings {
    /// Time limit of one request (a server's own `timeoutSeconds` overrides it).
    pub timeout: Duration,
    /// Bytes of result text returned per call; the rest is cut and marked `truncated`.
    pub max_result_bytes: usize,
    /// The environment every stdio server starts from (nothing else is inherited).
    pub base_env: BTreeMap<String, String>,
    /// The working directory of stdio servers (the project root).
    pub cwd: PathBuf,
    /// Restarts allowed per server after it exited or hung, before it is disabled.
    pub max_restarts: u32,
}

impl BrokerSettings {
    /// Defaults for servers run in `cwd`: 30 s, 64 KiB, one restart, and the base
    /// process environment of this process (PATH, HOME, locale, toolchain homes).
    pub fn new(cwd: PathBuf) -> BrokerSettings {
        BrokerSettings {
            timeout: DEFAULT_TIMEOUT,
            max_result_bytes: DEFAULT_MAX_RESULT_BYTES,
            base_env: base_process_env(|name| std::env::var(name).ok()),
            cwd,
            max_restarts: DEFAULT_MAX_RESTARTS,
        }
    }
}

/// One tool a server offers, as it described itself (untrusted text).
#[derive(Debug, Clone, PartialEq)]
pub struct McpToolInfo {
    /// Its name.
    pub name: String,
    /// Its description, as the server gave it.
    pub description: Option<String>,
    /// Its input JSON Schema.
    pub input_schema: Value,
}

/// A tool call's result as the server returned it (see `result` for shaping).
#[derive(Debug, Clone, PartialEq)]
pub struct McpCallResult {
    /// The content blocks, as MCP JSON.
    pub content: Vec<Value>,
    /// The structured result, if the server sent one.
    pub structured_content: Option<Value>,
    /// Whether the server flagged the result as an error.
    pub is_error: bool,
}

/// Brokers calls to the configured MCP servers. Cheap to build: starts nothing.
pub struct McpBroker {
    config: Result<McpConfig, String>,
    settings: BrokerSettings,
    slots: BTreeMap<String, Slot>,
}

impl fmt::Debug for McpBroker {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpBroker")
            .field("servers", &self.slots.keys().collect::<Vec<_>>())
            .field("config_error", &self.config.as_ref().err())
            .field("settings", &self.settings)
            .finish()
    }
}

struct Slot {
    server: ServerConfig,
    state: tokio::sync::Mutex<SlotState>,
    /// The last tool list seen, kept across restarts (prepare-time checks use it).
    known_tools: Mutex<Option<Arc<Vec<McpToolInfo>>>>,
    starts: AtomicU32,
}

#[derive(Default)]
struct SlotState {
    conn: Option<Arc<Connection>>,
    failures: u32,
    disabled: Option<String>,
    generation: u64,
}

impl McpBroker {
    /// A broker over the configuration found in `sources`. Loading errors are kept
    /// and reported by every call (so building a tool registry never fails on them).
    pub fn load(sources: &McpSources, settings: BrokerSettings) -> McpBroker {
        McpBroker::new(
            McpConfig::load(sources).map_err(|err| err.to_string()),
            settings,
        )
    }

    /// The broker for a run in `project_root`: the user's and the (trusted)
    /// project's configuration, default settings.
    pub fn for_project(project_root: PathBuf) -> McpBroker {
        let sources = McpSources::for_project(&project_root);
        McpBroker::load(&sources, BrokerSettings::new(project_root))
    }

    /// A broker over an already loaded configuration (or its loading error).
    pub fn new(config: Result<McpConfig, String>, settings: BrokerSettings) -> McpBroker {
        let slots = match &config {
            Ok(config) => config
                .servers
                .values()
                .map(|server| {
                    let slot = Slot {
                        server: server.clone(),
                        state: tokio::sync::Mutex::new(SlotState::default()),
                        known_tools: Mutex::new(None),
                        starts: AtomicU32::new(0),
                    };
                    (server.name.clone(), slot)
                })
                .collect(),
            Err(_) => BTreeMap::new(),
        };
        McpBroker {
            config,
            settings,
            slots,
        }
    }

    /// The configuration, or the reason it could not be loaded.
    pub fn config(&self) -> Result<&McpConfig, McpError> {
        self.config
            .as_ref()
            .map_err(|reason| McpError::ConfigUnavailable {
                reason: reason.clone(),
            })
    }

    /// The settings.
    pub fn settings(&self) -> &BrokerSettings {
        &self.settings
    }

    /// The usable server named `name` (configured, and trusted if from the project).
    pub fn server(&self, name: &str) -> Result<&ServerConfig, McpError> {
        self.config()?.server(name)
    }

    /// `server`'s config if `tool` is on its allowlist. Starts and sends nothing.
    pub fn check_allowed(&self, server: &str, tool: &str) -> Result<&ServerConfig, McpError> {
        let config = self.server(server)?;
        if config.allow.permits(tool) {
            Ok(config)
        } else {
            Err(McpError::NotAllowed {
                server: server.to_owned(),
                tool: tool.to_owned(),
                allowed: config.allow.to_string(),
            })
        }
    }

    /// How many times `server` has been started by this broker (0: never).
    pub fn starts(&self, server: &str) -> u32 {
        self.slots
            .get(server)
            .map_or(0, |slot| slot.starts.load(Ordering::SeqCst))
    }

    /// The process id (= process group id) of `server`'s running process, if any.
    pub async fn server_pid(&self, server: &str) -> Option<u32> {
        let slot = self.slots.get(server)?;
        let state = slot.state.lock().await;
        state.conn.as_ref()?.process.as_ref().map(|p| p.pid)
    }

    /// The tool list seen last for `server`, without contacting it.
    pub fn known_tool(&self, server: &str, tool: &str) -> Option<McpToolInfo> {
        let slot = self.slots.get(server)?;
        let known = slot.known_tools.lock().unwrap_or_else(|e| e.into_inner());
        known.as_ref()?.iter().find(|t| t.name == tool).cloned()
    }

    fn slot(&self, name: &str) -> Result<&Slot, McpError> {
        self.server(name)?;
        self.slots.get(name).ok_or_else(|| McpError::UnknownServer {
            server: name.to_owned(),
            known: "none".to_owned(),
        })
    }

    /// Every tool `server` offers (starting it if needed).
    pub async fn list_tools(
        &self,
        server: &str,
        cancel: &CancellationToken,
    ) -> Result<Arc<Vec<McpToolInfo>>, McpError> {
        let slot = self.slot(server)?;
        self.tools_of(slot, cancel).await
    }

    /// One tool of `server` (starting it if needed).
    pub async fn tool(
        &self,
        server: &str,
        tool: &str,
        cancel: &CancellationToken,
    ) -> Result<McpToolInfo, McpError> {
        let tools = self.list_tools(server, cancel).await?;
        find_tool(server, &tools, tool)
    }

    /// Calls `tool` on `server` with `args`: refused before anything starts or is
    /// sent when the tool is not allowed; validated against the tool's input
    /// schema before it is sent.
    pub async fn call_tool(
        &self,
        server: &str,
        tool: &str,
        args: Map<String, Value>,
        cancel: &CancellationToken,
    ) -> Result<McpCallResult, McpError> {
        self.check_allowed(server, tool)?;
        let slot = self.slot(server)?;
        let tools = self.tools_of(slot, cancel).await?;
        let info = find_tool(server, &tools, tool)?;
        validate_args(server, &info, &Value::Object(args.clone()))?;
        let params = CallToolRequestParams::new(tool.to_owned()).with_arguments(args);
        let result = self
            .request(
                slot,
                &format!("tools/call {tool}"),
                cancel,
                |peer| async move { peer.call_tool(params).await },
            )
            .await?;
        let content = result
            .content
            .iter()
            .map(|block| serde_json::to_value(block).unwrap_or(Value::Null))
            .collect();
        Ok(McpCallResult {
            content,
            structured_content: result.structured_content,
            is_error: result.is_error.unwrap_or(false),
        })
    }

    /// Stops every running server (orderly: close, SIGTERM, grace, SIGKILL).
    pub async fn shutdown(&self) {
        for slot in self.slots.values() {
            let conn = slot.state.lock().await.conn.take();
            if let Some(conn) = conn {
                conn.stop(true).await;
            }
        }
    }

    async fn tools_of(
        &self,
        slot: &Slot,
        cancel: &CancellationToken,
    ) -> Result<Arc<Vec<McpToolInfo>>, McpError> {
        let conn = self.connection(slot, cancel).await?;
        let mut cached = conn.tools.lock().await;
        if let Some(tools) = cached.as_ref() {
            return Ok(tools.clone());
        }
        let listed = self
            .request_on(slot, &conn, "tools/list", cancel, |peer| async move {
                peer.list_all_tools().await
            })
            .await?;
        let tools: Arc<Vec<McpToolInfo>> = Arc::new(
            listed
                .into_iter()
                .map(|tool| McpToolInfo {
                    name: tool.name.to_string(),
                    description: tool.description.map(|d| d.to_string()),
                    input_schema: Value::Object((*tool.input_schema).clone()),
                })
                .collect(),
        );
        *cached = Some(tools.clone());
        *slot.known_tools.lock().unwrap_or_else(|e| e.into_inner()) = Some(tools.clone());
        Ok(tools)
    }

    fn limit(&self, slot: &Slot) -> Duration {
        slot.server.timeout.unwrap_or(self.settings.timeout)
    }

    async fn request<T, F, Fut>(
        &self,
        slot: &Slot,
        operation: &str,
        cancel: &CancellationToken,
        send: F,
    ) -> Result<T, McpError>
    where
        F: FnOnce(Peer<RoleClient>) -> Fut,
        Fut: Future<Output = Result<T, ServiceError>>,
    {
        let conn = self.connection(slot, cancel).await?;
        self.request_on(slot, &conn, operation, cancel, send).await
    }

    async fn request_on<T, F, Fut>(
        &self,
        slot: &Slot,
        conn: &Arc<Connection>,
        operation: &str,
        cancel: &CancellationToken,
        send: F,
    ) -> Result<T, McpError>
    where
        F: FnOnce(Peer<RoleClient>) -> Fut,
        Fut: Future<Output = Result<T, ServiceError>>,
    {
        let server = slot.server.name.clone();
        let limit = self.limit(slot);
        let outcome = tokio::select! {
            () = cancel.cancelled() => return Err(McpError::Canceled { server }),
            outcome = tokio::time::timeout(limit, send(conn.peer.clone())) => outcome,
        };
        match outcome {
            Ok(Ok(value)) => Ok(value),
            Err(_elapsed) => {
                let error = McpError::TimedOut {
                    server,
                    operation: operation.to_owned(),
                    limit: format!("{limit:?}"),
                };
                self.fail(slot, conn, &error.to_string()).await;
                Err(error)
            }
            Ok(Err(ServiceError::TransportClosed | ServiceError::TransportSend(_))) => {
                let stderr = self.fail(slot, conn, "exited").await;
                let stderr = slot.server.secrets().redact_str(&stderr).into_owned();
                Err(McpError::ServerExited {
                    server,
                    operation: operation.to_owned(),
                    stderr,
                })
            }
            Ok(Err(ServiceError::McpError(data))) => Err(McpError::Protocol {
                server,
                operation: operation.to_owned(),
                reason: format!("{} (code {})", data.message, data.code.0),
            }),
            Ok(Err(other)) => Err(McpError::Protocol {
                server,
                operation: operation.to_owned(),
                reason: other.to_string(),
            }),
        }
    }

    /// Records a failure of `conn` (if it is still the slot's connection), stops it,
    /// and disables the server once its restarts are used up. Returns the stderr tail.
    async fn fail(&self, slot: &Slot, conn: &Arc<Connection>, reason: &str) -> String {
        let mut state = slot.state.lock().await;
        if state
            .conn
            .as_ref()
            .is_some_and(|c| c.generation == conn.generation)
        {
            state.conn = None;
            let stderr = conn.stop(false).await;
            self.count_failure(&mut state, format!("{reason}{stderr}"));
            stderr
        } else {
            conn.stop(false).await
        }
    }

    fn count_failure(&self, state: &mut SlotState, reason: String) {
        state.failures += 1;
        if state.failures > self.settings.max_restarts {
            state.disabled = Some(reason);
        }
    }

    /// The slot's live connection, starting the server if there is none.
    async fn connection(
        &self,
        slot: &Slot,
        cancel: &CancellationToken,
    ) -> Result<Arc<Connection>, McpError> {
        let server = slot.server.name.clone();
        let mut state = slot.state.lock().await;
        if let Some(conn) = state.conn.clone() {
            if !conn.closed() {
                return Ok(conn);
            }
            state.conn = None;
            let stderr = conn.stop(false).await;
            self.count_failure(&mut state, format!("exited between calls{stderr}"));
        }
        if let Some(reason) = &state.disabled {
            return Err(McpError::ServerFailed {
                server,
                reason: reason.clone(),
            });
        }
        state.generation += 1;
        slot.starts.fetch_add(1, Ordering::SeqCst);
        let generation = state.generation;
        let limit = self.limit(slot);
        let started = tokio::select! {
            () = cancel.cancelled() => Err(McpError::Canceled { server: server.clone() }),
            started = Connection::start(
                &slot.server,
                &self.settings.base_env,
                &self.settings.cwd,
                generation,
                limit,
            ) => started,
        };
        match started {
            Ok(conn) => {
                let conn = Arc::new(conn);
                state.conn = Some(conn.clone());
                Ok(conn)
            }
            Err(error) => {
                if !matches!(error, McpError::Canceled { .. }) {
                    self.count_failure(&mut state, error.to_string());
                }
                Err(error)
            }
        }
    }
}
