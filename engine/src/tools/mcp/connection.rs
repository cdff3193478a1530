//! One MCP session with one server: started over stdio (a [`ServerProcess`]'s
//! pipes) or streamable HTTP, with the `initialize` handshake under the time limit.
//!
//! Owns starting, the liveness check and stopping of a session. It never retries
//! and never decides when to restart (the broker in `client` does).

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Mutex;
use std::time::Duration;

use rmcp::model::{ClientCapabilities, ClientConfig, Implementation};
use rmcp::service::{Peer, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{RoleClient, ServiceExt};

use super::client::McpToolInfo;
use super::config::{ServerConfig, Transport};
use super::error::McpError;
use super::process::{ServerProcess, spawn};
use crate::tls::ensure_crypto_provider;
use crate::tools::web::USER_AGENT;

/// A live session (and, for stdio, the server's process).
pub(super) struct Connection {
    /// Which start of the server this is (failures of older ones are ignored).
    pub(super) generation: u64,
    pub(super) peer: Peer<RoleClient>,
    service: Mutex<Option<RunningService<RoleClient, ClientConfig>>>,
    pub(super) process: Option<ServerProcess>,
    /// The server's tool list, fetched once per session.
    pub(super) tools: tokio::sync::Mutex<Option<std::sync::Arc<Vec<McpToolInfo>>>>,
}

impl Connection {
    /// Starts `server`: spawns it (stdio, with exactly `env` in `cwd`) or connects
    /// (HTTP), then runs the handshake within `limit`.
    pub(super) async fn start(
        server: &ServerConfig,
        base_env: &BTreeMap<String, String>,
        cwd: &Path,
        generation: u64,
        limit: Duration,
    ) -> Result<Connection, McpError> {
        let spawn_error = |reason: String| McpError::Spawn {
            server: server.name.clone(),
            reason,
        };
        let (service, process) = match &server.transport {
            Transport::Stdio { command, args, env } => {
                let mut full_env = base_env.clone();
                full_env.extend(env.iter().map(|(k, v)| (k.clone(), v.clone())));
                let spawned = spawn(command, args, &full_env, cwd)
                    .await
                    .map_err(spawn_error)?;
                match handshake(server, (spawned.stdout, spawned.stdin), limit).await {
                    Ok(service) => (service, Some(spawned.process)),
                    Err(error) => {
                        let stderr = spawned.process.stop(false).await;
                        return Err(match error {
                            McpError::Spawn { server, reason } => McpError::Spawn {
                                server,
                                reason: format!("{reason}{stderr}"),
                            },
                            other => other,
                        });
                    }
                }
            }
            Transport::Http { url } => {
                ensure_crypto_provider();
                let client = reqwest::Client::builder()
                    .user_agent(USER_AGENT)
                    .connect_timeout(limit)
                    .build()
                    .map_err(|err| {
                        spawn_error(format!("could not build the HTTP client: {err}"))
                    })?;
                let transport = StreamableHttpClientTransport::with_client(
                    client,
                    StreamableHttpClientTransportConfig::with_uri(url.as_str()),
                );
                (handshake(server, transport, limit).await?, None)
            }
        };
        Ok(Connection {
            generation,
            peer: service.peer().clone(),
            service: Mutex::new(Some(service)),
            process,
            tools: tokio::sync::Mutex::new(None),
        })
    }

    /// Whether the session ended (transport closed, process exited, or stopped).
    pub(super) fn closed(&self) -> bool {
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
    pub(super) async fn stop(&self, graceful: bool) -> String {
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
