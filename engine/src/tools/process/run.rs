//! The process core: run one argv with an exact environment, closed stdin, its own
//! process group, a timeout, cancellation and output capped while reading.
//!
//! Shared by `execute_command`, `run_check` and the git tools. On timeout,
//! cancellation, the leader's exit (leftover background children) or drop, the
//! whole group is stopped: SIGTERM, a grace period, then SIGKILL. Output past the
//! cap is drained and discarded so the child never blocks on a full pipe.
//! It never runs a shell and never inherits this process's environment.

use std::collections::BTreeMap;
use std::os::unix::process::ExitStatusExt;
use std::path::PathBuf;
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use process_wrap::tokio::{ChildWrapper, CommandWrap, KillOnDrop, ProcessGroup};
use serde::Serialize;
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::error::ProcessError;

/// How long readers may still drain output once the group is gone.
const DRAIN_AFTER_EXIT: Duration = Duration::from_secs(2);
/// Default grace between SIGTERM and SIGKILL.
pub const DEFAULT_KILL_GRACE: Duration = Duration::from_secs(2);

/// Exactly what to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProcessSpec {
    /// The program, already resolved (absolute, or relative to `cwd` with a `/`).
    pub program: PathBuf,
    /// Arguments after the program.
    pub args: Vec<String>,
    /// The working directory (absolute).
    pub cwd: PathBuf,
    /// The child's complete environment (nothing else is inherited).
    pub env: BTreeMap<String, String>,
    /// Wall-time limit.
    pub timeout: Duration,
    /// Bytes kept per stream (stdout and stderr each); the rest is counted and discarded.
    pub max_output_bytes: usize,
    /// Time between SIGTERM and SIGKILL when the group is stopped.
    pub kill_grace: Duration,
}

/// What happened.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ProcessResult {
    /// The exit code (`None` when killed by a signal).
    pub exit_code: Option<i32>,
    /// The signal that ended it, if any.
    pub signal: Option<i32>,
    /// Kept standard output (lossy UTF-8).
    pub stdout: String,
    /// Kept standard error (lossy UTF-8).
    pub stderr: String,
    /// Bytes written to stdout in total.
    pub stdout_bytes: u64,
    /// Bytes written to stderr in total.
    pub stderr_bytes: u64,
    /// Whether it ran past the timeout and was stopped.
    pub timed_out: bool,
    /// Whether it was canceled and stopped.
    pub canceled: bool,
    /// Whether some output was discarded past the cap.
    pub truncated: bool,
    /// Wall time in milliseconds.
    pub duration_ms: u64,
    /// The leader's pid (also the process group id).
    pub pid: u32,
}

/// Kills the group with SIGKILL if dropped while armed (a dropped future, a panic).
struct GroupGuard {
    pgid: Pid,
    armed: bool,
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        if self.armed {
            let _ = killpg(self.pgid, Signal::SIGKILL);
        }
    }
}

fn group_alive(pgid: Pid) -> bool {
    killpg(pgid, None).is_ok()
}

/// What a reader has captured so far (shared so an abandoned reader keeps its part).
#[derive(Debug, Default)]
struct Captured {
    kept: Vec<u8>,
    total: u64,
}

type Shared = Arc<Mutex<Captured>>;

async fn read_capped<R: AsyncRead + Unpin>(mut reader: R, cap: usize, into: Shared) {
    let mut buf = vec![0u8; 8192];
    loop {
        match reader.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                let mut captured = into.lock().unwrap_or_else(|e| e.into_inner());
                captured.total += n as u64;
                let room = cap.saturating_sub(captured.kept.len());
                captured.kept.extend_from_slice(&buf[..n.min(room)]);
            }
        }
    }
}

fn spawn_reader<R: AsyncRead + Unpin + Send + 'static>(
    reader: Option<R>,
    cap: usize,
) -> (JoinHandle<()>, Shared) {
    let shared = Shared::default();
    let into = Arc::clone(&shared);
    let handle = tokio::spawn(async move {
        if let Some(r) = reader {
            read_capped(r, cap, into).await;
        }
    });
    (handle, shared)
}

/// SIGTERM to the group, wait up to `grace` for it to disappear, then SIGKILL.
async fn stop_group(child: &mut Box<dyn ChildWrapper>, pgid: Pid, grace: Duration) {
    let _ = killpg(pgid, Signal::SIGTERM);
    let deadline = Instant::now() + grace;
    loop {
        let _ = child.try_wait();
        if !group_alive(pgid) {
            return;
        }
        if Instant::now() >= deadline {
            let _ = killpg(pgid, Signal::SIGKILL);
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

enum End {
    Exited(std::io::Result<ExitStatus>),
    TimedOut,
    Canceled,
}

/// Runs `spec` to completion, timeout or cancellation. Never returns before the
/// process group has been stopped.
pub async fn run_process(
    spec: &ProcessSpec,
    cancel: &CancellationToken,
) -> Result<ProcessResult, ProcessError> {
    let program = spec.program.display().to_string();
    let mut command = tokio::process::Command::new(&spec.program);
    command
        .args(&spec.args)
        .current_dir(&spec.cwd)
        .env_clear()
        .envs(&spec.env)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut wrap = CommandWrap::from(command);
    wrap.wrap(ProcessGroup::leader()).wrap(KillOnDrop);
    let started = Instant::now();
    let mut child = wrap.spawn().map_err(|source| ProcessError::Spawn {
        program: program.clone(),
        source,
    })?;
    let pid = child.id().unwrap_or(0);
    let pgid = Pid::from_raw(i32::try_from(pid).unwrap_or(0));
    let mut guard = GroupGuard {
        pgid,
        armed: pid != 0,
    };
    let stdout = spawn_reader(child.stdout().take(), spec.max_output_bytes);
    let stderr = spawn_reader(child.stderr().take(), spec.max_output_bytes);

    let end = tokio::select! {
        status = child.wait() => End::Exited(status),
        () = tokio::time::sleep(spec.timeout) => End::TimedOut,
        () = cancel.cancelled() => End::Canceled,
    };
    let (timed_out, canceled) = (matches!(end, End::TimedOut), matches!(end, End::Canceled));
    // Whatever ended the wait, nothing of the group may outlive the call.
    stop_group(&mut child, pgid, spec.kill_grace).await;
    let status = match end {
        End::Exited(status) => status,
        End::TimedOut | End::Canceled => child.wait().await,
    }
    .map_err(|source| ProcessError::Io {
        program: program.clone(),
        source,
    })?;
    if !group_alive(pgid) {
        guard.armed = false;
    }
    let (stdout, stdout_bytes) = finish_reader(stdout).await;
    let (stderr, stderr_bytes) = finish_reader(stderr).await;
    let cap = spec.max_output_bytes as u64;
    Ok(ProcessResult {
        exit_code: status.code(),
        signal: status.signal(),
        truncated: stdout_bytes > cap || stderr_bytes > cap,
        stdout: String::from_utf8_lossy(&stdout).into_owned(),
        stderr: String::from_utf8_lossy(&stderr).into_owned(),
        stdout_bytes,
        stderr_bytes,
        timed_out,
        canceled,
        duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
        pid,
    })
}

/// Waits for a reader; one still blocked after the drain window (a pipe held open
/// by a process that escaped the group) is aborted, keeping what it captured.
async fn finish_reader((mut handle, shared): (JoinHandle<()>, Shared)) -> (Vec<u8>, u64) {
    if tokio::time::timeout(DRAIN_AFTER_EXIT, &mut handle)
        .await
        .is_err()
    {
        handle.abort();
    }
    let mut captured = shared.lock().unwrap_or_else(|e| e.into_inner());
    (std::mem::take(&mut captured.kept), captured.total)
}
