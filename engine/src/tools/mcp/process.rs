//! A stdio MCP server's process: spawned in its own process group with an exact
//! environment, its stderr drained (the last part kept for error messages), and
//! stopped as a whole group.
//!
//! Owns spawning and stopping only; the MCP session over the pipes is
//! `connection`'s. It never runs a shell, never inherits this process's
//! environment, and never lets a group outlive its handle: dropping a
//! [`ServerProcess`] that was not stopped kills its group.

use std::collections::{BTreeMap, VecDeque};
use std::path::Path;
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use process_wrap::tokio::{ChildWrapper, CommandWrap, KillOnDrop, ProcessGroup};
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::process::{ChildStdin, ChildStdout};

use crate::tools::process::resolve_program;

/// Bytes of a server's standard error kept for error messages.
const STDERR_TAIL: usize = 2048;
/// How long a stopped server's leader is waited for (reaped).
const REAP_WAIT: Duration = Duration::from_secs(2);
/// Grace between SIGTERM and SIGKILL on an orderly shutdown.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(1);

/// A running stdio server (the leader of its own process group).
pub(super) struct ServerProcess {
    pub(super) pid: u32,
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

/// What a spawn gives: the process and the pipes to speak MCP over.
pub(super) struct Spawned {
    pub(super) process: ServerProcess,
    pub(super) stdin: ChildStdin,
    pub(super) stdout: ChildStdout,
}

/// Starts `command args` in `cwd` with exactly `env`, in a new process group.
/// Errors are plain reasons (the caller names the server).
pub(super) async fn spawn(
    command: &str,
    args: &[String],
    env: &BTreeMap<String, String>,
    cwd: &Path,
) -> Result<Spawned, String> {
    let program = resolve_program(command, cwd, env.get("PATH").map(String::as_str))?;
    let mut cmd = tokio::process::Command::new(&program);
    cmd.args(args)
        .current_dir(cwd)
        .env_clear()
        .envs(env)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut wrap = CommandWrap::from(cmd);
    wrap.wrap(ProcessGroup::leader()).wrap(KillOnDrop);
    let mut child = wrap
        .spawn()
        .map_err(|err| format!("`{}`: {err}", program.display()))?;
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
    match (stdin, stdout) {
        (Some(stdin), Some(stdout)) => Ok(Spawned {
            process,
            stdin,
            stdout,
        }),
        _ => {
            process.stop(false).await;
            Err("the child's stdio pipes are missing".into())
        }
    }
}

impl ServerProcess {
    /// Stops the whole group: SIGTERM and a grace period when `graceful`, then SIGKILL;
    /// reaps the leader. Returns `; stderr: ...` with the tail of its stderr, or "".
    pub(super) async fn stop(&self, graceful: bool) -> String {
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
    pub(super) fn exited(&self) -> bool {
        match self.child.try_lock() {
            Ok(mut child) => match child.as_mut() {
                Some(child) => !matches!(child.try_wait(), Ok(None)),
                None => true,
            },
            Err(_) => false,
        }
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
