//! Benchmark (not a test): what the inference loop costs.
//!
//! 1. The request bytes of the FIRST model call of every shipped role (roles/*.yaml,
//!    `kind: llm`), as the loop builds it: the role's system prompt with the
//!    profile overlay, the tools its authority allows in the edit phase with the
//!    registry's argument schemas, and a representative task; measured by the
//!    OpenAI-compatible encoder (no network). Small (`qwen2.5-coder:7b`, compact
//!    schemas) and api (`claude-sonnet-4-5`) profiles. Delegate tools, which a
//!    recipe adds per step, are not included.
//! 2. The engine's own time per model turn against the scripted provider (no
//!    model latency): an agent step of 40 turns, each a `list_directory` call on
//!    an empty project, through the executor with a real SQLite store (events,
//!    receipts), reported per turn.
//!
//! Run: `cargo bench -p protoflow-engine --bench agent`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::Instant;

use indexmap::IndexMap;
use protoflow_engine::agent::{
    Artifacts, ModelAgentRunner, OfferBuilder, Profile, render_system_prompt,
};
use protoflow_engine::builtins;
use protoflow_engine::graph::{Executor, ExecutorConfig, RegistryTools, RunOptions, build_plan};
use protoflow_engine::llm::{
    ChatRequest, HttpSettings, Message, Provider, ProviderKind, ScriptedProvider,
    build_http_provider,
};
use protoflow_engine::policy::{
    ApprovePreset, Authority, AuthorityLayers, HeadlessApprover, Phase,
};
use protoflow_engine::recipe::{LoadOptions, load_recipe_str};
use protoflow_engine::role::{RoleDocument, RoleKind};
use protoflow_engine::store::Store;
use protoflow_engine::tools::ToolRegistry;
use serde_json::json;

const TASK: &str = "Task: the parser rejects empty input files with an index panic. \
Make it return an empty document instead, add a regression test, and keep the public API unchanged.";

fn first_request_bytes(registry: &Arc<ToolRegistry>, provider: &dyn Provider) {
    println!("first model call per shipped role (OpenAI-compatible body; delegates not included)");
    println!(
        "{:<20} {:>7} {:>10} {:>10} {:>7} | {:>7} {:>10} {:>10} {:>7}",
        "role", "small", "tool decl", "system", "tokens", "api", "tool decl", "system", "tokens"
    );
    for builtin in builtins::roles() {
        let (_, doc) = protoflow_engine::recipe::yaml::load_yaml(
            builtin.path,
            builtin.text.as_bytes(),
            &Default::default(),
        )
        .expect(builtin.path);
        let role: RoleDocument = serde_json::from_value(doc.value).expect(builtin.path);
        if role.kind != RoleKind::Llm {
            continue;
        }
        let authority = Authority::from_layers(AuthorityLayers {
            ceiling: &IndexMap::new(),
            role_tools: &role.tools,
            role_capabilities: &role.capabilities,
            step_tools: None,
            phase: Phase::Edit,
        });
        let mut row = format!("{:<20}", role.name);
        for (model, profile) in [
            ("qwen2.5-coder:7b", Profile::Small),
            ("claude-sonnet-4-5", Profile::Api),
        ] {
            assert_eq!(Profile::auto(model), profile);
            let system =
                render_system_prompt(&role.name, &role, profile, model, TASK, &json!({})).unwrap();
            let offer =
                OfferBuilder::new(Some(registry.clone()), profile).build(&authority, vec![], None);
            let request = ChatRequest {
                model: Some(model.into()),
                system: Some(system.clone()),
                messages: vec![Message::user(TASK)],
                tools: offer.declarations(&Artifacts::new()),
                max_output_tokens: 1024,
                temperature: None,
                stream: false,
            };
            let size = provider.measure(&request);
            row.push_str(&format!(
                " {:>7} {:>10} {:>10} {:>7} |",
                size.body_bytes,
                size.tool_declaration_bytes,
                system.len(),
                size.estimated_tokens
            ));
        }
        println!("{}", row.trim_end_matches('|'));
    }
}

const TURNS: usize = 40;

fn time_per_turn(registry: &Arc<ToolRegistry>) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut per_turn = Vec::new();
    for _ in 0..5 {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join(".protoflow/roles")).unwrap();
        std::fs::write(
            root.join(".protoflow/roles/looker.yaml"),
            format!(
                "apiVersion: protoflow/v1\nkind: llm\nname: looker\ntools: [list_directory]\n\
                 capabilities:\n  workspace.read: allow\nprompt: You look.\nlimits:\n  turns_per_window: {}\n  windows: 1\n",
                TURNS + 1
            ),
        )
        .unwrap();
        let recipe = "apiVersion: protoflow/v1\nkind: Recipe\nname: bench\nroles:\n  looker: {}\n\
                      steps:\n  - id: look\n    agent: looker\n    prompt: look around\n";
        let plan = build_plan(
            load_recipe_str(
                "bench.yaml",
                recipe,
                Some(&root),
                &LoadOptions::for_project(&root),
            )
            .unwrap(),
        )
        .unwrap();
        let mut turns: Vec<serde_json::Value> = (0..TURNS)
            .map(|i| json!({"tool_calls": [{"id": format!("c{i}"), "name": "list_directory", "args": {}}]}))
            .collect();
        turns.push(json!({"text": "done"}));
        let provider = ScriptedProvider::from_value("bench", json!({"turns": turns})).unwrap();
        let store = Store::open_project(&root).unwrap();
        let mut config = ExecutorConfig::new(store, root.clone());
        config.tools = Arc::new(RegistryTools::new(
            registry.clone(),
            Arc::new(HeadlessApprover::from_preset(ApprovePreset::All)),
        ));
        config.agents = Some(Arc::new(ModelAgentRunner::new(
            Arc::new(provider),
            Some(registry.clone()),
        )));
        let executor = Executor::new(config);
        let started = Instant::now();
        let report = runtime
            .block_on(executor.run(plan, IndexMap::new(), RunOptions::default()))
            .unwrap();
        let elapsed = started.elapsed();
        assert_eq!(
            report.steps[0].status.to_string(),
            "succeeded",
            "{:?}",
            report.steps[0].reason
        );
        per_turn.push(elapsed.as_secs_f64() * 1e6 / (TURNS + 1) as f64);
    }
    per_turn.sort_by(f64::total_cmp);
    println!(
        "\nengine time per model turn (scripted provider, {} turns with a list_directory call, SQLite store): median {:.0} µs, min {:.0} µs, max {:.0} µs over 5 runs",
        TURNS + 1,
        per_turn[2],
        per_turn[0],
        per_turn[4]
    );
}

fn main() {
    let registry = Arc::new(ToolRegistry::builtin());
    let provider = build_http_provider(
        ProviderKind::Openai,
        HttpSettings::new("bench", "http://127.0.0.1:9/v1", "m"),
        true,
    )
    .unwrap();
    first_request_bytes(&registry, provider.as_ref());
    time_per_turn(&registry);
}
