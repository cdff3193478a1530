//! The shipped due-diligence recipe with web research ON (`web: true`), at the
//! engine level: the run's registry holds a `fetch_url` whose address policy
//! reaches one local HTTP server through the TEST-ONLY allow-list (production
//! `fetch_url` refuses loopback, and nothing in the CLI can allow it).
//!
//! The scout fetches a page, its web claim is re-read at its URL by the web
//! verifier, and the verdict cites the URL; with the production policy the same
//! fetch is refused and the refusal is recorded, never papered over.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use indexmap::IndexMap;
use protoflow_engine::agent::ModelAgentRunner;
use protoflow_engine::evidence::ReceiptStatus;
use protoflow_engine::graph::{
    Executor, ExecutorConfig, RegistryTools, RunOptions, RunReport, build_plan,
};
use protoflow_engine::llm::ScriptedProvider;
use protoflow_engine::policy::{HeadlessApprover, PolicyFile};
use protoflow_engine::recipe::{LoadOptions, RecipeRef, load_recipe};
use protoflow_engine::store::Store;
use protoflow_engine::tools::ToolRegistry;
use protoflow_engine::tools::web::{FetchConfig, FetchPolicy, FetchUrlTool};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

const PAGE: &str = "<html><body><h1>tinyq releases</h1>\
<p>tinyq 2.0 released on 2026-01-10. No open security advisories.</p></body></html>";

/// One local HTTP/1.1 server answering every request with `PAGE`; counts requests.
async fn serve() -> (u16, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let hits = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&hits);
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            counter.fetch_add(1, Ordering::SeqCst);
            tokio::spawn(async move {
                let mut buffer = vec![0u8; 8192];
                let _ = socket.read(&mut buffer).await;
                let response = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: text/html; charset=utf-8\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{PAGE}",
                    PAGE.len()
                );
                let _ = socket.write_all(response.as_bytes()).await;
                let _ = socket.shutdown().await;
            });
        }
    });
    (port, hits)
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn call(expect: &[&str], tool: &str, args: Value) -> Value {
    json!({"expect": expect, "tool_calls": [{"name": tool, "args": args}]})
}

fn answer(expect: &[&str], value: Value) -> Value {
    call(expect, "final_output", value)
}

/// The script of a web-enabled due-diligence run whose scout reads `url`;
/// `fetched` is text the scout's second request must contain.
fn script(url: &str, fetched: &str, scout_claims: Value, verdict: Value) -> Vec<Value> {
    let mut turns = vec![
        call(
            &["Map this codebase"],
            "read_file",
            json!({"path": "README.md"}),
        ),
        answer(
            &["Map this codebase", "bounded job queue"],
            json!({
                "summary": "A bounded queue.",
                "components": [{"name": "Queue", "path": "src/lib.rs"}],
                "claims": [{"id": "C1", "text": "Holds at most 1024 jobs", "source": "README.md:3"}]
            }),
        ),
        call(
            &["Collect the external facts"],
            "fetch_url",
            json!({"url": url}),
        ),
        answer(
            &["Collect the external facts", fetched],
            json!({"summary": "Release notes read.", "claims": scout_claims}),
        ),
        answer(
            &["strongest evidence-backed case against adopting"],
            json!({"objections": []}),
        ),
        answer(
            &["C1: \""],
            json!({"claim_id": "C1", "status": "supported", "evidence": "src/lib.rs:1"}),
        ),
    ];
    if scout_claims_len(&turns) > 0 {
        turns.push(call(&["W1: \""], "fetch_url", json!({"url": url})));
        turns.push(answer(
            &["W1: \"", "tinyq 2.0 released"],
            json!({"claim_id": "W1", "status": "supported", "evidence": format!("{url}: tinyq 2.0 released on 2026-01-10")}),
        ));
    }
    turns.push(answer(&["Decide adopt, build or defer"], verdict));
    turns
}

fn scout_claims_len(turns: &[Value]) -> usize {
    turns[3]["tool_calls"][0]["args"]["claims"]
        .as_array()
        .map_or(0, Vec::len)
}

/// Runs the shipped due-diligence recipe with `web: true` on a small project,
/// `fetch` as the registry's `fetch_url`, network reads approved by a policy rule.
async fn run_web(fetch: FetchUrlTool, turns: Vec<Value>) -> (RunReport, Store, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::write(
        root.join("README.md"),
        "# tinyq\n\ntinyq is a bounded job queue of 1024 jobs.\n",
    )
    .unwrap();
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(
        root.join("src/lib.rs"),
        "pub const CAPACITY: usize = 1024;\n",
    )
    .unwrap();
    let store = Store::open_project(&root).unwrap();
    let recipe = load_recipe(
        &RecipeRef::File(repo().join("recipes/due-diligence.yaml")),
        &LoadOptions::for_project(&root),
    )
    .unwrap_or_else(|d| {
        panic!(
            "{:?}",
            d.0.iter().map(|d| d.to_record()).collect::<Vec<_>>()
        )
    });
    let plan = build_plan(recipe).unwrap();

    let mut registry = ToolRegistry::builtin();
    registry.register(Arc::new(fetch));
    let registry = Arc::new(registry);
    // Reads are approved; of the network tools only fetch_url, by an explicit rule.
    let policy: PolicyFile = serde_json::from_value(json!({
        "preset": "reads-only",
        "rules": [{"tool": "fetch_url", "decision": "allow"}]
    }))
    .unwrap();
    let approver = Arc::new(HeadlessApprover::from_policy(&policy, None).unwrap());
    let provider = Arc::new(
        ScriptedProvider::from_value("web-script", json!({"order": "by_expect", "turns": turns}))
            .unwrap(),
    );
    let mut config = ExecutorConfig::new(store.clone(), root.clone());
    config.tools = Arc::new(RegistryTools::new(Arc::clone(&registry), approver));
    config.agents = Some(Arc::new(ModelAgentRunner::new(provider, Some(registry))));
    let inputs: IndexMap<String, Value> = [
        ("subject".to_string(), json!("adopt tinyq")),
        ("web".to_string(), json!(true)),
    ]
    .into_iter()
    .collect();
    let report = Executor::new(config)
        .run(plan, inputs, RunOptions::default())
        .await
        .unwrap();
    (report, store, dir)
}

fn step<'a>(report: &'a RunReport, key: &str) -> &'a protoflow_engine::graph::StepReport {
    report
        .steps
        .iter()
        .find(|s| s.key == key)
        .unwrap_or_else(|| panic!("no step {key}: {:?}", report.steps))
}

fn verdict(url: &str) -> Value {
    json!({
        "verdict": "adopt",
        "summary": "Bounded as documented; maintained upstream.",
        "reasons": [{"text": "Recent release and no advisories", "sources": [2]}],
        "risks": [],
        "claims": [
            {"id": "C1", "text": "Holds at most 1024 jobs", "sources": [1], "status": "supported"},
            {"id": "W1", "text": "tinyq 2.0 was released on 2026-01-10", "sources": [2], "status": "supported"}
        ],
        "sources": [
            {"id": 1, "ref": "README.md:3", "kind": "doc"},
            {"id": 2, "ref": url, "kind": "web"}
        ]
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_web_on_the_scout_fetches_through_the_test_allow_list_and_the_verdict_cites_the_url() {
    let (port, hits) = serve().await;
    let url = format!("http://127.0.0.1:{port}/releases");
    let fetch = FetchUrlTool::new(FetchConfig {
        policy: FetchPolicy::allow_loopback_for_tests(&[port]),
        ..FetchConfig::default()
    });
    let claims =
        json!([{"id": "W1", "text": "tinyq 2.0 was released on 2026-01-10", "source": url}]);
    let (report, store, _dir) = run_web(
        fetch,
        script(&url, "tinyq 2.0 released", claims, verdict(&url)),
    )
    .await;

    assert_eq!(
        report.status.to_string(),
        "succeeded",
        "{:?}",
        report.problems
    );
    assert_eq!(report.outputs["evidence"], "codebase and web");
    // The scout's claim was checked again, independently, at its URL.
    assert_eq!(
        step(&report, "verify-web-claims[0]").output["status"],
        "supported"
    );
    assert_eq!(
        hits.load(Ordering::SeqCst),
        2,
        "the scout and the web verifier each fetched once"
    );
    let fetches: Vec<_> = store
        .receipts(&report.run_id)
        .unwrap()
        .into_iter()
        .filter(|(_, r)| r.tool == "fetch_url")
        .collect();
    assert_eq!(fetches.len(), 2);
    assert!(
        fetches
            .iter()
            .all(|(_, r)| r.status == ReceiptStatus::Executed)
    );
    assert!(fetches.iter().any(|(key, _)| key == "web-research"));

    let markdown = report.outputs["markdown"].as_str().unwrap();
    assert!(!markdown.contains("Web research was off"), "{markdown}");
    assert!(markdown.contains(&format!("2. {url} [web]")), "{markdown}");
    assert!(
        markdown.contains("| W1: tinyq 2.0 was released on 2026-01-10 | supported | [2] |"),
        "{markdown}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_web_on_and_the_production_policy_a_loopback_fetch_is_refused_and_recorded() {
    let (port, hits) = serve().await;
    let url = format!("http://127.0.0.1:{port}/releases");
    let honest = json!({
        "verdict": "defer",
        "summary": "The web research found nothing reliable (the fetch was refused).",
        "reasons": [{"text": "Only the README backs the bound", "sources": [1]}],
        "risks": [],
        "claims": [{"id": "C1", "text": "Holds at most 1024 jobs", "sources": [1], "status": "supported"}],
        "sources": [{"id": 1, "ref": "README.md:3", "kind": "doc"}],
        "decide_when": "the release history can be read"
    });
    let (report, store, _dir) = run_web(
        FetchUrlTool::public(),
        script(&url, "loopback", json!([]), honest),
    )
    .await;

    assert_eq!(
        report.status.to_string(),
        "succeeded",
        "{:?}",
        report.problems
    );
    assert_eq!(
        hits.load(Ordering::SeqCst),
        0,
        "the local server was never contacted"
    );
    let receipts = store.receipts(&report.run_id).unwrap();
    let (_, refused) = receipts
        .iter()
        .find(|(key, r)| key == "web-research" && r.tool == "fetch_url")
        .expect("the refused fetch left a receipt");
    assert_ne!(refused.status, ReceiptStatus::Executed);
    assert!(
        refused
            .reason
            .as_deref()
            .unwrap_or_default()
            .contains("loopback"),
        "{refused:?}"
    );
    assert_eq!(report.outputs["verdict"], "defer");
}
