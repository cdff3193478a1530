#![allow(clippy::unwrap_used, clippy::expect_used)]

//! The MCP broker against a real local stdio MCP server (`mcp/server.py`, run
//! with `python3`). The server appends its pid to a marker file when it starts and
//! logs every `tools/call` it receives, so the tests can show what was started and
//! what was sent, not only what was returned.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use protoflow_engine::tools::mcp::{
    BrokerSettings, CallMcpTool, ListMcpTools, McpBroker, McpError, McpSources, McpToolSchema,
    TrustStore, UNTRUSTED_NOTICE, trust_project,
};
use protoflow_engine::tools::{Tool, ToolContext, ToolError, ToolOutput};
use serde_json::{Value, json};
use tempfile::TempDir;
use tokio_util::sync::CancellationToken;

const SERVER: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/suite/mcp/server.py");

/// The real Python interpreter (not a version manager's shell shim, which would
/// add its own variables to the server's environment).
fn python() -> &'static str {
    static PYTHON: OnceLock<String> = OnceLock::new();
    PYTHON.get_or_init(|| {
        let out = std::process::Command::new("python3")
            .args(["-c", "import sys; print(sys.executable)"])
            .output()
            .expect("python3 runs");
        String::from_utf8(out.stdout).unwrap().trim().to_owned()
    })
}

/// A scratch directory with the files the test server writes.
struct Fixture {
    dir: TempDir,
}

impl Fixture {
    fn new() -> Fixture {
        Fixture {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// A server entry for the test server with `allow`.
    fn server(&self, allow: Value) -> Value {
        let mut entry = json!({
            "command": python(),
            "args": [SERVER],
            "env": {
                "MCP_TEST_MARKER": self.path("started"),
                "MCP_TEST_CALLS": self.path("calls"),
                "MCP_TEST_CHILDREN": self.path("children"),
            },
        });
        if !allow.is_null() {
            entry["allow"] = allow;
        }
        entry
    }

    /// The pids of every start of the server so far.
    fn starts(&self) -> Vec<u32> {
        lines(&self.path("started"))
    }

    /// The tools/call requests the server received.
    fn calls(&self) -> Vec<Value> {
        std::fs::read_to_string(self.path("calls"))
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    /// The settings of a broker working in the fixture, with an explicit base
    /// environment and `timeout`.
    fn settings(&self, timeout: Duration) -> BrokerSettings {
        BrokerSettings {
            timeout,
            base_env: base_env(),
            ..BrokerSettings::new(self.dir.path().to_path_buf())
        }
    }

    /// A broker over a user configuration file with `servers`.
    fn broker(&self, servers: Value, settings: BrokerSettings) -> Arc<McpBroker> {
        let file = self.path("user-mcp.json");
        std::fs::write(&file, json!({ "mcpServers": servers }).to_string()).unwrap();
        let sources = McpSources {
            user_file: Some(file),
            project_root: None,
            trust: None,
        };
        Arc::new(McpBroker::load(&sources, settings))
    }

    /// A broker with one server `t` allowing `allow`, a 10 s timeout.
    fn simple(&self, allow: Value) -> Arc<McpBroker> {
        self.broker(
            json!({ "t": self.server(allow) }),
            self.settings(Duration::from_secs(10)),
        )
    }
}

fn base_env() -> BTreeMap<String, String> {
    let mut env = BTreeMap::new();
    env.insert("PATH".to_owned(), std::env::var("PATH").unwrap());
    env.insert("LC_ALL".to_owned(), "C.UTF-8".to_owned());
    env
}

fn lines(path: &Path) -> Vec<u32> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| l.trim().parse().unwrap())
        .collect()
}

/// Whether `pid` has ended (gone, or a zombie waiting to be reaped), polling up to 5 s.
async fn ends(pid: u32) -> bool {
    for _ in 0..250 {
        match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
            Err(_) => return true,
            Ok(stat) => {
                let state = stat.rsplit(')').next().unwrap_or("").trim_start();
                if state.starts_with('Z') || state.starts_with('X') {
                    return true;
                }
            }
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    false
}

fn ctx() -> ToolContext {
    ToolContext::new(PathBuf::from("."))
}

async fn run(tool: &dyn Tool, args: Value) -> Result<ToolOutput, ToolError> {
    let ctx = ctx();
    let prepared = tool.prepare(&ctx, args).await?;
    tool.execute(&ctx, prepared).await
}

async fn call(broker: &Arc<McpBroker>, args: Value) -> Result<ToolOutput, ToolError> {
    run(&CallMcpTool::new(broker.clone()), args).await
}

async fn list(broker: &Arc<McpBroker>, server: &str) -> Result<ToolOutput, ToolError> {
    run(
        &ListMcpTools::new(broker.clone()),
        json!({ "server": server }),
    )
    .await
}

fn message(outcome: Result<ToolOutput, ToolError>) -> String {
    match outcome {
        Ok(output) => panic!("expected an error, got {:?}", output.value),
        Err(err) => match err {
            ToolError::Io { source, .. } => source.to_string(),
            other => other.to_string(),
        },
    }
}

#[tokio::test]
async fn loading_the_configuration_starts_nothing_until_the_first_call() {
    let fx = Fixture::new();
    let broker = fx.simple(json!(["echo"]));
    assert_eq!(broker.starts("t"), 0);
    assert!(fx.starts().is_empty(), "no process at load");

    list(&broker, "t").await.unwrap();
    assert_eq!(fx.starts().len(), 1);
    call(
        &broker,
        json!({"server": "t", "tool": "echo", "args": {"text": "a"}}),
    )
    .await
    .unwrap();
    assert_eq!(fx.starts().len(), 1, "the running server is reused");
    assert_eq!(broker.starts("t"), 1);
}

#[tokio::test]
async fn list_mcp_tools_marks_each_tool_allowed_or_not_as_untrusted_text() {
    let fx = Fixture::new();
    let broker = fx.simple(json!(["echo"]));
    let value = list(&broker, "t").await.unwrap().value;
    assert_eq!(value["untrusted"], true);
    assert_eq!(value["notice"], UNTRUSTED_NOTICE);
    let tools = value["tools"].as_array().unwrap();
    let allowed = |name: &str| {
        tools.iter().find(|t| t["name"] == name).unwrap()["allowed"]
            .as_bool()
            .unwrap()
    };
    assert!(allowed("echo"));
    assert!(!allowed("hang"));
    assert!(!allowed("die"));
    assert_eq!(
        tools.iter().find(|t| t["name"] == "echo").unwrap()["description"],
        "Return the text."
    );
}

#[tokio::test]
async fn mcp_tool_schema_returns_the_servers_input_schema() {
    let fx = Fixture::new();
    let broker = fx.simple(json!(["echo"]));
    let tool = McpToolSchema::new(broker.clone());
    let value = run(&tool, json!({"server": "t", "tool": "echo"}))
        .await
        .unwrap()
        .value;
    assert_eq!(value["input_schema"]["required"], json!(["text"]));
    assert_eq!(value["allowed"], true);
    let missing = run(&tool, json!({"server": "t", "tool": "nope"})).await;
    assert!(message(missing).contains("has no tool `nope`"));
}

#[tokio::test]
async fn call_mcp_tool_returns_the_result_as_untrusted_content() {
    let fx = Fixture::new();
    let broker = fx.simple(json!(["echo"]));
    let output = call(
        &broker,
        json!({"server": "t", "tool": "echo", "args": {"text": "hello"}}),
    )
    .await
    .unwrap();
    let value = output.value;
    assert_eq!(value["content"], json!([{"type": "text", "text": "hello"}]));
    assert_eq!(value["structured_content"], json!({"echo": "hello"}));
    assert_eq!(value["is_error"], false);
    assert_eq!(value["untrusted"], true);
    assert_eq!(value["truncated"], false);
    assert_eq!(output.facts.detail["tool"], "echo");
    assert_eq!(
        fx.calls(),
        vec![json!({"tool": "echo", "args": {"text": "hello"}})]
    );
}

#[tokio::test]
async fn an_error_result_from_the_tool_is_returned_flagged() {
    let fx = Fixture::new();
    let broker = fx.simple(json!("*"));
    let value = call(&broker, json!({"server": "t", "tool": "fail"}))
        .await
        .unwrap()
        .value;
    assert_eq!(value["is_error"], true);
    assert_eq!(value["content"][0]["text"], "it failed");
}

#[tokio::test]
async fn a_tool_off_the_allowlist_is_rejected_before_the_server_starts() {
    let fx = Fixture::new();
    let broker = fx.simple(json!(["echo"]));
    let refused = call(&broker, json!({"server": "t", "tool": "hang"})).await;
    let reason = message(refused);
    assert!(reason.contains("not allowed"), "{reason}");
    assert!(reason.contains("allowed: echo"), "{reason}");
    assert!(fx.starts().is_empty(), "the server was never started");

    // The broker itself refuses too, before starting anything.
    let direct = broker
        .call_tool("t", "die", Default::default(), &CancellationToken::new())
        .await;
    assert!(matches!(direct, Err(McpError::NotAllowed { .. })));
    assert_eq!(broker.starts("t"), 0);

    // Once running, a refused call still sends nothing.
    call(
        &broker,
        json!({"server": "t", "tool": "echo", "args": {"text": "x"}}),
    )
    .await
    .unwrap();
    let refused = call(&broker, json!({"server": "t", "tool": "die"})).await;
    assert!(message(refused).contains("not allowed"));
    assert_eq!(fx.calls().len(), 1, "only the echo call reached the server");
}

#[tokio::test]
async fn a_server_without_allow_may_be_listed_but_nothing_called() {
    let fx = Fixture::new();
    let broker = fx.simple(Value::Null);
    let refused = call(
        &broker,
        json!({"server": "t", "tool": "echo", "args": {"text": "x"}}),
    )
    .await;
    assert!(message(refused).contains("allowed: none"));
    assert!(fx.starts().is_empty());
    let value = list(&broker, "t").await.unwrap().value;
    assert!(
        value["tools"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["allowed"] == false)
    );
}

#[tokio::test]
async fn arguments_failing_the_input_schema_are_never_sent() {
    let fx = Fixture::new();
    let broker = fx.simple(json!(["echo"]));
    // Schema not known yet: checked after the server starts, before sending.
    let bad = call(
        &broker,
        json!({"server": "t", "tool": "echo", "args": {"text": 5}}),
    )
    .await;
    let reason = message(bad);
    assert!(reason.contains("input schema"), "{reason}");
    assert!(reason.contains("/text"), "{reason}");
    // Schema known: refused already in prepare.
    let tool = CallMcpTool::new(broker.clone());
    let prepared = tool
        .prepare(
            &ctx(),
            json!({"server": "t", "tool": "echo", "args": {"extra": true}}),
        )
        .await;
    assert!(matches!(prepared, Err(ToolError::InvalidArguments { .. })));
    assert!(fx.calls().is_empty(), "nothing reached the server");
}

#[tokio::test]
async fn a_hanging_server_times_out_and_its_process_group_is_killed() {
    let fx = Fixture::new();
    let broker = fx.broker(
        json!({ "t": fx.server(json!(["hang", "echo"])) }),
        fx.settings(Duration::from_secs(1)),
    );
    let hung = call(&broker, json!({"server": "t", "tool": "hang"})).await;
    let reason = message(hung);
    assert!(
        reason.contains("did not answer tools/call hang within 1s"),
        "{reason}"
    );
    let server = fx.starts()[0];
    let child = lines(&fx.path("children"))[0];
    assert!(ends(server).await, "the server {server} was killed");
    assert!(
        ends(child).await,
        "its child {child} in the same group was killed"
    );
    assert!(broker.server_pid("t").await.is_none());

    // The next call starts it again.
    call(
        &broker,
        json!({"server": "t", "tool": "echo", "args": {"text": "again"}}),
    )
    .await
    .unwrap();
    assert_eq!(fx.starts().len(), 2);
}

#[tokio::test]
async fn a_server_that_dies_is_restarted_once_then_disabled() {
    let fx = Fixture::new();
    let broker = fx.simple(json!(["die", "echo"]));
    let died = message(call(&broker, json!({"server": "t", "tool": "die"})).await);
    assert!(died.contains("exited during tools/call die"), "{died}");
    assert!(died.contains("dying on purpose"), "stderr tail: {died}");

    // Restarted once on the next call.
    call(
        &broker,
        json!({"server": "t", "tool": "echo", "args": {"text": "x"}}),
    )
    .await
    .unwrap();
    assert_eq!(fx.starts().len(), 2);

    // A second death disables it for the broker's life.
    message(call(&broker, json!({"server": "t", "tool": "die"})).await);
    let disabled = message(
        call(
            &broker,
            json!({"server": "t", "tool": "echo", "args": {"text": "x"}}),
        )
        .await,
    );
    assert!(disabled.contains("disabled for this run"), "{disabled}");
    assert_eq!(fx.starts().len(), 2, "not started a third time");
}

#[tokio::test]
async fn stdio_servers_get_only_the_base_environment_and_their_configured_env() {
    let fx = Fixture::new();
    let broker = fx.simple(json!(["env"]));
    let value = call(&broker, json!({"server": "t", "tool": "env"}))
        .await
        .unwrap()
        .value;
    let names: Vec<String> =
        serde_json::from_str(value["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(
        names,
        [
            "LC_ALL",
            "MCP_TEST_CALLS",
            "MCP_TEST_CHILDREN",
            "MCP_TEST_MARKER",
            "PATH"
        ]
    );
}

#[tokio::test]
async fn results_over_the_cap_are_truncated() {
    let fx = Fixture::new();
    let settings = BrokerSettings {
        max_result_bytes: 1000,
        ..fx.settings(Duration::from_secs(10))
    };
    let broker = fx.broker(json!({ "t": fx.server(json!(["big"])) }), settings);
    let output = call(
        &broker,
        json!({"server": "t", "tool": "big", "args": {"bytes": 5000}}),
    )
    .await
    .unwrap();
    assert_eq!(output.value["truncated"], true);
    assert_eq!(
        output.value["content"][0]["text"].as_str().unwrap().len(),
        1000
    );
    assert!(output.facts.truncated);
    assert_eq!(output.facts.output_bytes, 5000);
}

#[tokio::test]
async fn the_preview_shows_server_tool_and_args_exactly() {
    let fx = Fixture::new();
    let broker = fx.simple(json!(["echo"]));
    let prepared = CallMcpTool::new(broker.clone())
        .prepare(
            &ctx(),
            json!({"server": "t", "tool": "echo", "args": {"text": "rm -rf /"}}),
        )
        .await
        .unwrap();
    assert_eq!(
        prepared.preview.summary,
        "call MCP tool `echo` on server `t`"
    );
    let detail = prepared.preview.detail.unwrap();
    assert!(
        detail.starts_with(&format!("server: t (stdio: {} {SERVER} (env: ", python())),
        "{detail}"
    );
    assert!(detail.contains("\ntool: echo\n"), "{detail}");
    assert!(
        detail.ends_with("args: {\n  \"text\": \"rm -rf /\"\n}"),
        "{detail}"
    );
    assert!(fx.starts().is_empty(), "preparing starts nothing");
}

/// A broker whose server `t` leaves a background child in its process group.
fn with_background_child(fx: &Fixture) -> Arc<McpBroker> {
    let mut server = fx.server(json!(["echo"]));
    server["env"]["MCP_TEST_BACKGROUND"] = json!("1");
    fx.broker(json!({ "t": server }), fx.settings(Duration::from_secs(10)))
}

#[tokio::test]
async fn dropping_the_broker_kills_its_servers_process_groups() {
    let fx = Fixture::new();
    let broker = with_background_child(&fx);
    list(&broker, "t").await.unwrap();
    let pid = broker.server_pid("t").await.unwrap();
    let child = lines(&fx.path("children"))[0];
    assert!(!ends_now(pid) && !ends_now(child));
    drop(broker);
    assert!(ends(pid).await, "server {pid} stopped with the broker");
    assert!(ends(child).await, "its background child {child} too");
}

#[tokio::test]
async fn shutdown_stops_servers_and_their_groups() {
    let fx = Fixture::new();
    let broker = with_background_child(&fx);
    list(&broker, "t").await.unwrap();
    let pid = broker.server_pid("t").await.unwrap();
    let child = lines(&fx.path("children"))[0];
    broker.shutdown().await;
    assert!(ends(pid).await);
    assert!(ends(child).await);
    assert!(broker.server_pid("t").await.is_none());
}

fn ends_now(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|s| {
            s.rsplit(')')
                .next()
                .unwrap_or("")
                .trim_start()
                .starts_with('Z')
        })
        .unwrap_or(true)
}

#[tokio::test]
async fn an_unknown_server_is_refused_with_the_configured_names() {
    let fx = Fixture::new();
    let broker = fx.simple(json!(["echo"]));
    let reason = message(list(&broker, "other").await);
    assert!(reason.contains("no MCP server named `other`"), "{reason}");
    assert!(reason.contains("configured: t"), "{reason}");
}

/// A project with `.protoflow/mcp.json` configuring the test server, and a trust
/// store outside it.
struct Project {
    fx: Fixture,
    root: PathBuf,
    store: TrustStore,
}

impl Project {
    fn new() -> Project {
        let fx = Fixture::new();
        let root = fx.path("project");
        std::fs::create_dir_all(root.join(".protoflow")).unwrap();
        let store = TrustStore::at(fx.path("data/protoflow/mcp-trust.json"));
        let project = Project { fx, root, store };
        project.write_config("");
        project
    }

    fn write_config(&self, suffix: &str) {
        let text = json!({ "mcpServers": { "p": self.fx.server(json!(["echo"])) } }).to_string();
        std::fs::write(self.root.join(".protoflow/mcp.json"), text + suffix).unwrap();
    }

    fn broker(&self) -> Arc<McpBroker> {
        let sources = McpSources {
            user_file: None,
            project_root: Some(self.root.clone()),
            trust: Some(self.store.clone()),
        };
        Arc::new(McpBroker::load(
            &sources,
            self.fx.settings(Duration::from_secs(10)),
        ))
    }
}

#[tokio::test]
async fn an_untrusted_project_configuration_spawns_nothing() {
    let project = Project::new();
    let broker = project.broker();
    let project_file = broker.config().unwrap().project.clone().unwrap();
    assert!(!project_file.trusted);
    let reason = message(list(&broker, "p").await);
    assert!(reason.contains("not trusted"), "{reason}");
    assert!(reason.contains("protoflow mcp trust"), "{reason}");
    let refused = call(
        &broker,
        json!({"server": "p", "tool": "echo", "args": {"text": "x"}}),
    )
    .await;
    assert!(message(refused).contains("not trusted"));
    assert!(project.fx.starts().is_empty(), "nothing was spawned");
}

#[tokio::test]
async fn trusting_the_project_file_then_changing_it_needs_trust_again() {
    let project = Project::new();
    let trusted = trust_project(&project.root, &project.store).unwrap();
    assert!(trusted.trusted);
    assert_eq!(trusted.servers[0].name, "p");

    let broker = project.broker();
    call(
        &broker,
        json!({"server": "p", "tool": "echo", "args": {"text": "ok"}}),
    )
    .await
    .unwrap();
    assert_eq!(project.fx.starts().len(), 1);
    drop(broker);

    project.write_config("\n");
    let broker = project.broker();
    assert!(!broker.config().unwrap().project.as_ref().unwrap().trusted);
    let reason = message(list(&broker, "p").await);
    assert!(reason.contains("not trusted"), "{reason}");
    assert_eq!(
        project.fx.starts().len(),
        1,
        "the changed file started nothing"
    );
}

#[tokio::test]
async fn an_invalid_configuration_is_reported_by_every_call() {
    let fx = Fixture::new();
    let file = fx.path("user-mcp.json");
    std::fs::write(
        &file,
        r#"{"mcpServers": {"t": {"command": "x", "shell": true}}}"#,
    )
    .unwrap();
    let sources = McpSources {
        user_file: Some(file),
        project_root: None,
        trust: None,
    };
    let broker = Arc::new(McpBroker::load(
        &sources,
        fx.settings(Duration::from_secs(1)),
    ));
    let reason = message(list(&broker, "t").await);
    assert!(reason.contains("could not be loaded"), "{reason}");
    assert!(reason.contains("unknown field `shell`"), "{reason}");
}

#[tokio::test]
async fn an_unreachable_http_server_is_a_clear_start_error() {
    let fx = Fixture::new();
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let url = format!("http://127.0.0.1:{port}/mcp");
    let broker = fx.broker(
        json!({ "h": { "url": url, "allow": "*" } }),
        fx.settings(Duration::from_secs(2)),
    );
    let reason = message(list(&broker, "h").await);
    assert!(
        reason.contains("could not start MCP server `h`"),
        "{reason}"
    );
}

#[tokio::test]
async fn a_canceled_call_ends_as_canceled_not_timed_out() {
    let fx = Fixture::new();
    let broker = fx.simple(json!(["hang"]));
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        trigger.cancel();
    });
    let outcome = broker
        .call_tool("t", "hang", Default::default(), &cancel)
        .await;
    assert!(
        matches!(outcome, Err(McpError::Canceled { ref server }) if server == "t"),
        "{outcome:?}"
    );
}

/// The test server speaking streamable HTTP on 127.0.0.1, stopped when dropped.
struct HttpServer {
    child: std::process::Child,
    port: u16,
}

impl HttpServer {
    fn start(fx: &Fixture) -> HttpServer {
        let port_file = fx.path("port");
        let mut child = std::process::Command::new(python())
            .args([SERVER, "--http", port_file.to_str().unwrap()])
            .env("MCP_TEST_CALLS", fx.path("calls"))
            .spawn()
            .unwrap();
        for _ in 0..500 {
            if let Ok(text) = std::fs::read_to_string(&port_file) {
                return HttpServer {
                    child,
                    port: text.trim().parse().unwrap(),
                };
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = child.kill();
        let _ = child.wait();
        panic!("the HTTP test server did not start");
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[tokio::test]
async fn a_streamable_http_server_is_listed_and_called() {
    let fx = Fixture::new();
    let server = HttpServer::start(&fx);
    let url = format!("http://127.0.0.1:{}/mcp", server.port);
    let broker = fx.broker(
        json!({ "h": { "url": url, "allow": ["echo"] } }),
        fx.settings(Duration::from_secs(10)),
    );
    let listed = list(&broker, "h").await.unwrap().value;
    assert!(listed["tools"].as_array().unwrap().len() >= 3);
    let value = call(
        &broker,
        json!({"server": "h", "tool": "echo", "args": {"text": "over http"}}),
    )
    .await
    .unwrap()
    .value;
    assert_eq!(value["content"][0]["text"], "over http");
    assert_eq!(
        fx.calls(),
        vec![json!({"tool": "echo", "args": {"text": "over http"}})]
    );
    let refused = call(&broker, json!({"server": "h", "tool": "die"})).await;
    assert!(message(refused).contains("not allowed"));
}

#[tokio::test]
async fn a_servers_configured_token_never_comes_back_in_a_result() {
    let fx = Fixture::new();
    let mut server = fx.server(json!(["echo"]));
    server["env"]["EXAMPLE_API_TOKEN"] = json!("tok-0123456789abcdef");
    let broker = fx.broker(json!({ "t": server }), fx.settings(Duration::from_secs(10)));
    let value = call(
        &broker,
        json!({"server": "t", "tool": "echo", "args": {"text": "key=tok-0123456789abcdef"}}),
    )
    .await
    .unwrap()
    .value;
    assert_eq!(
        value["content"][0]["text"],
        "key=[REDACTED:EXAMPLE_API_TOKEN]"
    );
    assert!(!value.to_string().contains("tok-0123456789abcdef"));
}
