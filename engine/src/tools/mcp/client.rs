//! The MCP connection manager: one lazily started connection per configured server.
//!
//! Owns the life of every server connection: nothing starts until the first
//! request that needs it; a stdio server runs in its own process group with an
//! explicit environment (the base process environment plus the configured `env`,
//! nothing else inherited) and closed-over stderr kept as a short tail for error
//! messages; every request has a time limit, after which the server's group is
//! killed; a server that exits or hangs is restarted at most `max_restarts` times
//! (default once) on a later request and is then disabled for the broker's life.
//! Dropping the broker (the end of a run) kills every group it started.
//!
//! It never sends a `tools/call` for a tool outside the server's allowlist or with
//! arguments that fail the tool's input schema, and never decides authority (the
//! policy layer approves calls before the tools reach here).

use std::collections::{BTreeMap, VecDeque};
use std::fmt;
use std::future::Future;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use process_wrap::tokio::{ChildWrapper, CommandWrap, KillOnDrop, ProcessGroup};
use rmcp::model::{CallToolRequestParams, ClientCapabilities, ClientConfig, Implementation};
use rmcp::service::{Peer, RunningService, ServiceError};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Map, Value};
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio_util::sync::CancellationToken;

use super::config::{McpConfig, McpSources, ServerConfig, Transport};
use super::error::McpError;
use crate::tools::process::{base_process_env, resolve_program};
use crate::tools::web::{USER_AGENT, ensure_crypto_provider};

/// Default time limit of one request (including a server's start-up handshake).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
/// Default cap on the text of one result returned to the caller.
pub const DEFAULT_MAX_RESULT_BYTES: usize = 64 * 1024;
/// Restarts allowed per server and broker after it exited or hung.
pub const DEFAULT_MAX_RESTARTS: u32 = 1;
/// Bytes of a server's standard error kept for error messages.
const STDERR_TAIL: usize = 2048;
/// How long a stopped server's leader is waited for (reaped).
const REAP_WAIT: Duration = Duration::from_secs(2);
/// Grace between SIGTERM and SIGKILL on an orderly shutdown.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(1);

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

struct Connection {
    generation: u64,
    peer: Peer<RoleClient>,
    service: Mutex<Option<RunningService<RoleClient, ClientConfig>>>,
    process: Option<ServerProcess>,
    tools: tokio::sync::Mutex<Option<Arc<Vec<McpToolInfo>>>>,
}

struct ServerProcess {
    pid: u32,
    pgid: Pid,
    child: tokio::sync::Mutex<Option<Box<dyn ChildWrapper>>>,
    stderr: Arc<Mutex<VecDeque<u8>>>,
    stopped: AtomicBool,
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        if !self.stopped.load(Ordering::SeqCst) {
            let _ = killpg(self.pgid, Signal::SIGKILL);
        }
    }
}

impl ServerProcess {
    /// Stops the whole group: SIGTERM and a grace period when `graceful`, then SIGKILL;
    /// reaps the leader. Returns `; stderr: ...` with the tail of its stderr, or "".
    async fn stop(&self, graceful: bool) -> String {
        let mut child = self.child.lock().await;
        if graceful {
            let _ = killpg(self.pgid, Signal::SIGTERM);
            if let Some(child) = child.as_mut() {
                let _ = tokio::time::timeout(SHUTDOWN_GRACE, child.wait()).await;
            }
        }
        let _ = killpg(self.pgid, Signal::SIGKILL);
        if let Some(mut child) = child.take() {
            let _ = tokio::time::timeout(REAP_WAIT, child.wait()).await;
        }
        self.stopped.store(true, Ordering::SeqCst);
        drop(child);
        // Let the stderr reader take what the process wrote last.
        tokio::time::sleep(Duration::from_millis(20)).await;
        self.stderr_tail()
    }

    fn stderr_tail(&self) -> String {
        let tail = self.stderr.lock().unwrap_or_else(|e| e.into_inner());
        let bytes: Vec<u8> = tail.iter().copied().collect();
        let text = String::from_utf8_lossy(&bytes);
        let text = text.trim();
        if text.is_empty() {
            String::new()
        } else {
            format!("; stderr: {text}")
        }
    }

    /// Whether the leader has exited.
    fn exited(&self) -> bool {
        match self.child.try_lock() {
            Ok(mut child) => match child.as_mut() {
                Some(child) => !matches!(child.try_wait(), Ok(None)),
                None => true,
            },
            Err(_) => false,
        }
    }
}

impl Connection {
    fn closed(&self) -> bool {
        self.peer.is_transport_closed()
            || self.process.as_ref().is_some_and(ServerProcess::exited)
            || self
                .service
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .as_ref()
                .is_none_or(RunningService::is_closed)
    }

    /// Closes the session and stops the process group. Returns the stderr tail.
    async fn stop(&self, graceful: bool) -> String {
        let service = self
            .service
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        // Dropping the service cancels it and closes the transport (stdin).
        drop(service);
        match &self.process {
            Some(process) => process.stop(graceful).await,
            None => String::new(),
        }
    }
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
            started = self.start(&slot.server, generation, limit) => started,
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

    async fn start(
        &self,
        server: &ServerConfig,
        generation: u64,
        limit: Duration,
    ) -> Result<Connection, McpError> {
        match &server.transport {
            Transport::Stdio { command, args, env } => {
                self.start_stdio(server, command, args, env, generation, limit)
                    .await
            }
            Transport::Http { url } => {
                ensure_crypto_provider();
                let client = reqwest::Client::builder()
                    .user_agent(USER_AGENT)
                    .connect_timeout(limit)
                    .build()
                    .map_err(|err| McpError::Spawn {
                        server: server.name.clone(),
                        reason: format!("could not build the HTTP client: {err}"),
                    })?;
                let transport = StreamableHttpClientTransport::with_client(
                    client,
                    StreamableHttpClientTransportConfig::with_uri(url.as_str()),
                );
                let service = handshake(server, transport, limit).await?;
                Ok(Connection {
                    generation,
                    peer: service.peer().clone(),
                    service: Mutex::new(Some(service)),
                    process: None,
                    tools: tokio::sync::Mutex::new(None),
                })
            }
        }
    }

    async fn start_stdio(
        &self,
        server: &ServerConfig,
        command: &str,
        args: &[String],
        extra_env: &BTreeMap<String, String>,
        generation: u64,
        limit: Duration,
    ) -> Result<Connection, McpError> {
        let spawn_error = |reason: String| McpError::Spawn {
            server: server.name.clone(),
            reason,
        };
        let mut env = self.settings.base_env.clone();
        env.extend(extra_env.iter().map(|(k, v)| (k.clone(), v.clone())));
        let cwd = &self.settings.cwd;
        let program = resolve_program(command, cwd, env.get("PATH").map(String::as_str))
            .map_err(spawn_error)?;
        let mut cmd = tokio::process::Command::new(&program);
        cmd.args(args)
            .current_dir(cwd)
            .env_clear()
            .envs(&env)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut wrap = CommandWrap::from(cmd);
        wrap.wrap(ProcessGroup::leader()).wrap(KillOnDrop);
        let mut child = wrap
            .spawn()
            .map_err(|err| spawn_error(format!("`{}`: {err}", program.display())))?;
        let pid = child.id().unwrap_or(0);
        let stdin = child.stdin().take();
        let stdout = child.stdout().take();
        let stderr = child.stderr().take();
        let process = ServerProcess {
            pid,
            pgid: Pid::from_raw(i32::try_from(pid).unwrap_or(0)),
            child: tokio::sync::Mutex::new(Some(child)),
            stderr: Arc::new(Mutex::new(VecDeque::new())),
            stopped: AtomicBool::new(pid == 0),
        };
        if let Some(stderr) = stderr {
            tokio::spawn(keep_tail(stderr, process.stderr.clone()));
        }
        let (Some(stdin), Some(stdout)) = (stdin, stdout) else {
            process.stop(false).await;
            return Err(spawn_error("the child's stdio pipes are missing".into()));
        };
        let service = match handshake(server, (stdout, stdin), limit).await {
            Ok(service) => service,
            Err(error) => {
                let stderr = process.stop(false).await;
                return Err(match error {
                    McpError::Spawn { server, reason } => McpError::Spawn {
                        server,
                        reason: format!("{reason}{stderr}"),
                    },
                    other => other,
                });
            }
        };
        Ok(Connection {
            generation,
            peer: service.peer().clone(),
            service: Mutex::new(Some(service)),
            process: Some(process),
            tools: tokio::sync::Mutex::new(None),
        })
    }
}

/// The client identity sent in `initialize`.
fn client_config() -> ClientConfig {
    ClientConfig::new(
        ClientCapabilities::default(),
        Implementation::new("protoflow", env!("CARGO_PKG_VERSION")),
    )
}

async fn handshake<T, E, A>(
    server: &ServerConfig,
    transport: T,
    limit: Duration,
) -> Result<RunningService<RoleClient, ClientConfig>, McpError>
where
    T: rmcp::transport::IntoTransport<RoleClient, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    match tokio::time::timeout(limit, client_config().serve(transport)).await {
        Ok(Ok(service)) => Ok(service),
        Ok(Err(err)) => Err(McpError::Spawn {
            server: server.name.clone(),
            reason: format!("the MCP handshake failed: {err}"),
        }),
        Err(_) => Err(McpError::TimedOut {
            server: server.name.clone(),
            operation: "initialize".to_owned(),
            limit: format!("{limit:?}"),
        }),
    }
}

/// Keeps the last [`STDERR_TAIL`] bytes a server writes to stderr.
async fn keep_tail<R: AsyncRead + Unpin>(mut reader: R, tail: Arc<Mutex<VecDeque<u8>>>) {
    let mut buf = vec![0u8; 4096];
    loop {
        match reader.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                let mut tail = tail.lock().unwrap_or_else(|e| e.into_inner());
                tail.extend(&buf[..n]);
                let excess = tail.len().saturating_sub(STDERR_TAIL);
                tail.drain(..excess);
            }
        }
    }
}

fn find_tool(server: &str, tools: &[McpToolInfo], tool: &str) -> Result<McpToolInfo, McpError> {
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
