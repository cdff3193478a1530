//! `execute_command`: a real process (argv, no shell) in its own process group.
//!
//! STAND-IN until the tools branch's process core is merged. The child gets only
//! the context's base environment (plus a default PATH), runs in the project root
//! (or a relative `cwd` inside it), and its whole process group is killed on
//! cancellation, on timeout and when the call is dropped. Output is capped while
//! reading.

use std::path::{Component, Path};
use std::process::Stdio;
use std::time::Duration;

use process_wrap::tokio::{ChildWrapper, CommandWrap, KillOnDrop, ProcessGroup};
use serde_json::{Value, json};
use tokio::io::{AsyncRead, AsyncReadExt};

use super::receipt;
use crate::evidence::{ReceiptFacts, ReceiptStatus};
use crate::graph::runner::{ToolCall, ToolCallOutcome, ToolResult};

const DEFAULT_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

/// Kills the whole group when dropped (a timed-out or canceled step's future is
/// dropped; its processes must not outlive it).
struct GroupGuard(Box<dyn ChildWrapper>);

impl Drop for GroupGuard {
    fn drop(&mut self) {
        let _ = self.0.start_kill();
    }
}

fn refuse(call: &ToolCall, started: u64, reason: String) -> ToolCallOutcome {
    ToolCallOutcome {
        receipt: Some(receipt(
            call,
            ReceiptStatus::Rejected,
            Some(reason.clone()),
            started,
            ReceiptFacts::default(),
        )),
        result: Err(reason),
    }
}

async fn read_capped(mut reader: impl AsyncRead + Unpin, cap: usize) -> (Vec<u8>, u64) {
    let mut kept = Vec::new();
    let mut total = 0u64;
    let mut buf = [0u8; 8192];
    loop {
        match reader.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                total += n as u64;
                let room = cap.saturating_sub(kept.len());
                kept.extend_from_slice(&buf[..n.min(room)]);
            }
        }
    }
    (kept, total)
}

pub(super) async fn execute(call: &ToolCall, started: u64) -> ToolCallOutcome {
    let argv: Vec<String> = match call.args.get("argv").and_then(Value::as_array) {
        Some(items) if !items.is_empty() => {
            match items
                .iter()
                .map(|v| v.as_str().map(str::to_string))
                .collect()
            {
                Some(argv) => argv,
                None => return refuse(call, started, "`argv` must be a list of strings".into()),
            }
        }
        _ => {
            return refuse(
                call,
                started,
                "`argv` (a non-empty list) is required".into(),
            );
        }
    };
    let cwd = match call.args.get("cwd").and_then(Value::as_str) {
        None => call.ctx.root.clone(),
        Some(rel) => {
            let path = Path::new(rel);
            if path
                .components()
                .any(|c| !matches!(c, Component::Normal(_) | Component::CurDir))
            {
                return refuse(
                    call,
                    started,
                    format!("`cwd` {rel} must stay inside the project"),
                );
            }
            call.ctx.root.join(path)
        }
    };
    let timeout = call
        .args
        .get("timeout_secs")
        .and_then(Value::as_f64)
        .map(Duration::from_secs_f64);

    let mut command = CommandWrap::with_new(&argv[0], |cmd| {
        cmd.args(&argv[1..])
            .current_dir(&cwd)
            .env_clear()
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if !call.ctx.process_env.contains_key("PATH") {
            cmd.env("PATH", DEFAULT_PATH);
        }
        cmd.envs(&call.ctx.process_env);
        if let Some(env) = call.args.get("env").and_then(Value::as_object) {
            for (key, value) in env {
                if let Some(text) = value.as_str() {
                    cmd.env(key, text);
                }
            }
        }
    });
    command.wrap(ProcessGroup::leader()).wrap(KillOnDrop);
    let mut child = match command.spawn() {
        Ok(child) => GroupGuard(child),
        Err(err) => {
            let reason = format!("could not start `{}`: {err}", argv[0]);
            return ToolCallOutcome {
                receipt: Some(receipt(
                    call,
                    ReceiptStatus::Failed,
                    Some(reason.clone()),
                    started,
                    ReceiptFacts::default(),
                )),
                result: Err(reason),
            };
        }
    };
    let cap = call.ctx.output_bytes;
    let stdout = child.0.stdout().take();
    let stderr = child.0.stderr().take();
    let out_task = tokio::spawn(async move {
        match stdout {
            Some(out) => read_capped(out, cap).await,
            None => (Vec::new(), 0),
        }
    });
    let err_task = tokio::spawn(async move {
        match stderr {
            Some(err) => read_capped(err, cap).await,
            None => (Vec::new(), 0),
        }
    });

    enum End {
        Exited(std::io::Result<std::process::ExitStatus>),
        Canceled,
        TimedOut,
    }
    let end = {
        let wait = child.0.wait();
        let sleep = async {
            match timeout {
                Some(t) => tokio::time::sleep(t).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            status = wait => End::Exited(status),
            () = call.ctx.cancel.cancelled() => End::Canceled,
            () = sleep => End::TimedOut,
        }
    };
    if !matches!(end, End::Exited(_)) {
        let _ = child.0.start_kill();
        let _ = child.0.wait().await;
    }
    // A process that left the group could hold the pipes open: wait a bounded time.
    let grace = Duration::from_secs(2);
    let (out, out_total) = match tokio::time::timeout(grace, out_task).await {
        Ok(Ok(read)) => read,
        _ => (Vec::new(), 0),
    };
    let (err, err_total) = match tokio::time::timeout(grace, err_task).await {
        Ok(Ok(read)) => read,
        _ => (Vec::new(), 0),
    };
    let stdout = String::from_utf8_lossy(&out).into_owned();
    let stderr = String::from_utf8_lossy(&err).into_owned();
    let truncated = out_total > out.len() as u64 || err_total > err.len() as u64;
    let mut facts = ReceiptFacts {
        output_bytes: out_total + err_total,
        truncated,
        detail: json!({"argv": argv}),
        ..ReceiptFacts::default()
    };
    match end {
        End::Exited(Ok(status)) => {
            let code = status.code();
            facts.exit_code = code;
            let value = json!({"exit_code": code, "stdout": stdout, "stderr": stderr, "truncated": truncated});
            let failed = (!status.success()).then(|| match code {
                Some(code) => format!("`{}` exited with code {code}", argv[0]),
                None => format!("`{}` was killed by a signal", argv[0]),
            });
            ToolCallOutcome {
                receipt: Some(receipt(call, ReceiptStatus::Executed, None, started, facts)),
                result: Ok(ToolResult {
                    value,
                    text: Some(stdout),
                    failed,
                }),
            }
        }
        End::Exited(Err(err)) => {
            let reason = format!("waiting for `{}` failed: {err}", argv[0]);
            ToolCallOutcome {
                receipt: Some(receipt(
                    call,
                    ReceiptStatus::Failed,
                    Some(reason.clone()),
                    started,
                    facts,
                )),
                result: Err(reason),
            }
        }
        End::Canceled => {
            let reason = format!("`{}` was canceled; its process group was killed", argv[0]);
            ToolCallOutcome {
                receipt: Some(receipt(
                    call,
                    ReceiptStatus::Canceled,
                    Some(reason.clone()),
                    started,
                    facts,
                )),
                result: Err(reason),
            }
        }
        End::TimedOut => {
            let reason = format!(
                "`{}` ran past its timeout; its process group was killed",
                argv[0]
            );
            ToolCallOutcome {
                receipt: Some(receipt(
                    call,
                    ReceiptStatus::TimedOut,
                    Some(reason.clone()),
                    started,
                    facts,
                )),
                result: Err(reason),
            }
        }
    }
}
