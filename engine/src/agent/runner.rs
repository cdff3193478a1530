//! `ModelAgentRunner`: the executor's [`AgentRunner`] backed by a model provider.
//!
//! It turns an [`AgentRequest`] into one inference: the step's authority (recipe
//! ceiling ∩ step tools ∩ role tools and capabilities ∩ phase), the role's memory
//! (stateful roles only), the task (with the executor's correction, on a retry),
//! and runs the loop. It never knows a role's or a flow's name.

use std::sync::Arc;

use async_trait::async_trait;

use super::inference::run_job;
use super::session::{Job, Session};
use super::settings::AgentSettings;
use crate::graph::{AgentRequest, AgentResult, AgentRunner};
use crate::llm::Provider;
use crate::policy::{Authority, AuthorityLayers};
use crate::role::{Memory, RoleKind};
use crate::store::MemoryKey;
use crate::tools::ToolRegistry;

/// Runs agent steps with a model provider.
#[derive(Debug, Clone)]
pub struct ModelAgentRunner {
    provider: Arc<dyn Provider>,
    registry: Option<Arc<ToolRegistry>>,
    settings: AgentSettings,
}

impl ModelAgentRunner {
    /// A runner over `provider` with default settings. Tool argument schemas come
    /// from `registry` when given (tools it lacks get an open object schema).
    pub fn new(provider: Arc<dyn Provider>, registry: Option<Arc<ToolRegistry>>) -> Self {
        ModelAgentRunner {
            provider,
            registry,
            settings: AgentSettings::default(),
        }
    }

    /// The same runner with other settings.
    pub fn with_settings(mut self, settings: AgentSettings) -> Self {
        self.settings = settings;
        self
    }

    /// The provider.
    pub fn provider(&self) -> &Arc<dyn Provider> {
        &self.provider
    }
}

#[async_trait]
impl AgentRunner for ModelAgentRunner {
    async fn run(&self, request: AgentRequest) -> Result<AgentResult, String> {
        let role = &request.role.role;
        if role.kind == RoleKind::ToolOnly {
            return Err(format!(
                "role `{}` is tool-only: run its tools with a `tool` step, or expose it to a controller as a delegate",
                request.role.key
            ));
        }
        match super::delegate::role_enabled(&request.role, &request.data) {
            Ok(true) => {}
            Ok(false) => {
                return Err(format!(
                    "role `{}` is disabled for this run (`enabled: {}`)",
                    request.role.key,
                    request.role.enabled_when.as_deref().unwrap_or("false")
                ));
            }
            Err(e) => return Err(e),
        }
        let authority = Authority::from_layers(AuthorityLayers {
            ceiling: &request.ceiling,
            role_tools: &role.tools,
            role_capabilities: &role.capabilities,
            step_tools: Some(&request.tools),
            phase: request.ctx.phase,
        });
        let memory = (role.memory == Memory::Stateful).then(|| MemoryKey {
            project: request.ctx.root.display().to_string(),
            run_id: request.receipts.run_id().to_string(),
            role: request.role.key.clone(),
        });
        let task = match &request.correction {
            Some(reason) => format!(
                "{}\n\nYour previous answer (attempt {}) was not accepted: {reason}\nAnswer again.",
                request.prompt,
                request.attempt.saturating_sub(1)
            ),
            None => request.prompt.clone(),
        };
        let session = Session {
            provider: Arc::clone(&self.provider),
            registry: self.registry.clone(),
            settings: self.settings.clone(),
            budget: request.budget.clone(),
            ctx: request.ctx.clone(),
            invoker: Arc::clone(&request.tools_invoker),
            ceiling: request.ceiling.clone(),
            roles: request.roles.clone(),
            data: request.data.clone(),
        };
        let job = Job {
            role: Arc::clone(&request.role),
            task,
            authority,
            delegates: request.delegates.clone(),
            output: request.output.clone(),
            sink: request.receipts.clone(),
            memory,
            depth: 0,
        };
        run_job(&session, job).await.map_err(|e| e.to_string())
    }
}
