//! Test support for agent tests: a project in a temp dir with role files and a
//! recipe loaded by the real loader, the real tool registry behind the executor
//! (`RegistryTools`, approving every `ask`), and helpers over the run's events and
//! receipts.

#![allow(clippy::unwrap_used, clippy::expect_used, dead_code)]

use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use indexmap::IndexMap;
use protoflow_engine::agent::{AgentSettings, ModelAgentRunner};
use protoflow_engine::events::{Event, EventListener};
use protoflow_engine::evidence::Receipt;
use protoflow_engine::graph::{
    Executor, ExecutorConfig, RegistryTools, RunOptions, RunReport, build_plan,
};
use protoflow_engine::llm::{Provider, ScriptedProvider};
use protoflow_engine::policy::{ApprovePreset, HeadlessApprover};
use protoflow_engine::recipe::{LoadOptions, load_recipe_str};
use protoflow_engine::store::Store;
use protoflow_engine::tools::ToolRegistry;
use serde_json::{Value, json};

/// Collects events in memory.
#[derive(Default)]
pub struct Events(pub Mutex<Vec<Event>>);

impl EventListener for Events {
    fn on_event(&self, event: &Event) {
        self.0.lock().unwrap().push(event.clone());
    }
}

impl Events {
    pub fn json(&self) -> Vec<Value> {
        self.0
            .lock()
            .unwrap()
            .iter()
            .map(|e| serde_json::to_value(e).unwrap())
            .collect()
    }

    pub fn of_type(&self, kind: &str) -> Vec<Value> {
        self.json()
            .into_iter()
            .filter(|e| e["type"] == kind)
            .collect()
    }
}

/// A project in a temp dir with `.protoflow/roles/` and a store.
pub struct AgentProject {
    pub dir: tempfile::TempDir,
    pub store: Store,
}

impl AgentProject {
    pub fn new() -> AgentProject {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join(".protoflow/roles")).unwrap();
        let store = Store::open_project(&root).unwrap();
        AgentProject { dir, store }
    }

    pub fn root(&self) -> std::path::PathBuf {
        self.dir.path().canonicalize().unwrap()
    }

    pub fn write(&self, rel: &str, content: &str) {
        let path = self.root().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, content).unwrap();
    }

    pub fn read(&self, rel: &str) -> Option<String> {
        std::fs::read_to_string(self.root().join(rel)).ok()
    }

    /// Writes a role file (YAML text) under `.protoflow/roles/NAME.yaml`.
    pub fn role(&self, name: &str, yaml: &str) {
        self.write(&format!(".protoflow/roles/{name}.yaml"), yaml);
    }

    /// Runs `recipe` (YAML text) with `provider` and default settings.
    pub async fn run(&self, recipe: &str, provider: Arc<dyn Provider>) -> (RunReport, Arc<Events>) {
        self.run_with(recipe, provider, AgentSettings::default())
            .await
    }

    pub async fn run_with(
        &self,
        recipe: &str,
        provider: Arc<dyn Provider>,
        settings: AgentSettings,
    ) -> (RunReport, Arc<Events>) {
        let options = LoadOptions::for_project(&self.root());
        let loaded = match load_recipe_str("test.yaml", recipe, Some(&self.root()), &options) {
            Ok(recipe) => recipe,
            Err(diagnostics) => panic!(
                "the test recipe is invalid: {:?}",
                diagnostics
                    .0
                    .iter()
                    .map(|d| d.to_record())
                    .collect::<Vec<_>>()
            ),
        };
        let plan = build_plan(loaded).unwrap();
        // The real registry behind the executor's invoker; every `ask` approved.
        let registry = Arc::new(ToolRegistry::builtin());
        let invoker = Arc::new(RegistryTools::new(
            registry.clone(),
            Arc::new(HeadlessApprover::from_preset(ApprovePreset::All)),
        ));
        let runner = ModelAgentRunner::new(provider, Some(registry)).with_settings(settings);
        let mut config = ExecutorConfig::new(self.store.clone(), self.root());
        config.tools = invoker;
        config.agents = Some(Arc::new(runner));
        let executor = Executor::new(config);
        let events = Arc::new(Events::default());
        let options = RunOptions {
            listeners: vec![events.clone()],
            ..RunOptions::default()
        };
        let report = executor.run(plan, IndexMap::new(), options).await.unwrap();
        (report, events)
    }

    /// Receipts stored for the run, as (step key, receipt).
    pub fn receipts(&self, report: &RunReport) -> Vec<(String, Receipt)> {
        self.store.receipts(&report.run_id).unwrap()
    }
}

/// A scripted provider from a JSON list of turns.
pub fn scripted(turns: Value) -> Arc<dyn Provider> {
    Arc::new(ScriptedProvider::from_value("test-script", json!({ "turns": turns })).unwrap())
}

pub fn step<'a>(report: &'a RunReport, key: &str) -> &'a protoflow_engine::graph::StepReport {
    report
        .steps
        .iter()
        .find(|s| s.key == key)
        .unwrap_or_else(|| panic!("no step {key} in {:?}", report.steps))
}

/// A worker role that reads and creates files.
pub const WRITER_ROLE: &str = r#"
apiVersion: protoflow/v1
kind: llm
name: writer
memory: stateless
tools: [read_file, create_file, list_directory]
capabilities:
  workspace.read: allow
  filesystem.write: allow
prompt: You change files as asked. Be brief.
"#;

/// A recipe with one agent step of role `writer` in the edit phase.
pub fn one_step(prompt: &str, extra_step_yaml: &str) -> String {
    format!(
        r#"
apiVersion: protoflow/v1
kind: Recipe
name: agent-test
roles:
  writer: {{}}
steps:
  - id: work
    agent: writer
    phase: edit
    prompt: "{prompt}"
{extra_step_yaml}
"#
    )
}

/// A provider that records every request it is asked, then delegates.
#[derive(Debug)]
pub struct Recording {
    inner: Arc<dyn Provider>,
    pub requests: Mutex<Vec<protoflow_engine::llm::ChatRequest>>,
}

impl Recording {
    pub fn new(inner: Arc<dyn Provider>) -> Arc<Recording> {
        Arc::new(Recording {
            inner,
            requests: Mutex::new(Vec::new()),
        })
    }

    pub fn requests(&self) -> Vec<protoflow_engine::llm::ChatRequest> {
        self.requests.lock().unwrap().clone()
    }
}

#[async_trait]
impl Provider for Recording {
    fn name(&self) -> &str {
        self.inner.name()
    }
    fn describe(&self) -> protoflow_engine::llm::ProviderDescription {
        self.inner.describe()
    }
    fn measure(
        &self,
        request: &protoflow_engine::llm::ChatRequest,
    ) -> protoflow_engine::llm::RequestSize {
        self.inner.measure(request)
    }
    async fn complete_observed(
        &self,
        request: &protoflow_engine::llm::ChatRequest,
        cancel: tokio_util::sync::CancellationToken,
        observer: &dyn protoflow_engine::llm::AttemptObserver,
    ) -> Result<protoflow_engine::llm::ChatResponse, protoflow_engine::llm::LlmError> {
        self.requests.lock().unwrap().push(request.clone());
        self.inner
            .complete_observed(request, cancel, observer)
            .await
    }
}
