//! What a tool call runs against: the project root, the phase, limits and cancellation.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use super::fs::CheckpointStore;
use crate::policy::{Phase, Redactor};
use crate::task::TaskHandle;

/// The environment of one tool call. Built by the executor per step; tools only read it.
#[derive(Debug, Clone)]
pub struct ToolContext {
    /// The project root, canonicalized. File tools never leave it.
    pub root: PathBuf,
    /// Paths (relative to `root`) that may never be written, besides `.git/` and
    /// `.protoflow/` (for example, the running recipe file).
    pub protected: Vec<PathBuf>,
    /// The phase the calling step runs in.
    pub phase: Phase,
    /// Canceled when the step or the run is canceled; long tools must watch it.
    pub cancel: CancellationToken,
    /// Characters a single file read may return.
    pub read_chars: usize,
    /// Bytes of output a single call may keep.
    pub output_bytes: usize,
    /// The base environment given to child processes (nothing else is inherited).
    pub process_env: BTreeMap<String, String>,
    /// Where file writes record their preimage (for `protoflow undo`); `None`
    /// writes without checkpoints.
    pub checkpoints: Option<Arc<CheckpointStore>>,
    /// Secrets to keep out of receipts and results (by default: the credential
    /// variables of this process's environment).
    pub redactor: Arc<Redactor>,
    /// The run's task state (`None` outside a run): its rules narrow writes and
    /// checks, and the task tools read and update it.
    pub task: Option<TaskHandle>,
}

impl ToolContext {
    /// A context for `root` with the engine's default limits, no environment, no
    /// checkpoint store, and a redactor for this process's credential variables.
    pub fn new(root: PathBuf) -> Self {
        ToolContext {
            root,
            protected: Vec::new(),
            phase: Phase::None,
            cancel: CancellationToken::new(),
            read_chars: 8_192,
            output_bytes: 8 * 1024,
            process_env: BTreeMap::new(),
            checkpoints: None,
            redactor: Arc::new(Redactor::from_process_env()),
            task: None,
        }
    }
}
