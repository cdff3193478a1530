//! What a tool call runs against: the project root, the phase, limits and cancellation.

use std::collections::BTreeMap;
use std::path::PathBuf;

use tokio_util::sync::CancellationToken;

use crate::policy::Phase;

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
}

impl ToolContext {
    /// A context for `root` with the engine's default limits and no environment.
    pub fn new(root: PathBuf) -> Self {
        ToolContext {
            root,
            protected: Vec::new(),
            phase: Phase::None,
            cancel: CancellationToken::new(),
            read_chars: 8_192,
            output_bytes: 8 * 1024,
            process_env: BTreeMap::new(),
        }
    }
}
