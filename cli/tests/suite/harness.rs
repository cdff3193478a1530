//! A small fluent harness for running the real `protoflow` binary:
//!
//! ```ignore
//! Test::new()
//!     .file("r.yaml", "...")
//!     .args(["validate", "r.yaml"])
//!     .status(2)
//!     .stderr_contains("recipe::unknown-role")
//!     .run();
//! ```
//!
//! Every test gets its own temporary directory (the working directory unless
//! `in_repo()`), its own empty user config directory, and no colours.

use std::path::{Path, PathBuf};
use std::process::Command;

use tempfile::TempDir;

/// The repository root (where `recipes/`, `roles/` and `tests/broken/` live).
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// One invocation of the binary and what it must produce.
#[derive(Debug)]
pub struct Test {
    dir: TempDir,
    in_repo: bool,
    args: Vec<String>,
    env: Vec<(String, String)>,
    status: Option<i32>,
    stdout_contains: Vec<String>,
    stderr_contains: Vec<String>,
    stdout_lacks: Vec<String>,
}

/// What a finished invocation printed.
#[derive(Debug)]
pub struct Ran {
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
    /// Exit code.
    pub status: i32,
    /// The test's temporary directory (kept alive until `Ran` is dropped).
    pub dir: TempDir,
}

impl Test {
    /// A test in a fresh temporary directory.
    pub fn new() -> Self {
        Test {
            dir: tempfile::tempdir().unwrap(),
            in_repo: false,
            args: Vec::new(),
            env: Vec::new(),
            status: None,
            stdout_contains: Vec::new(),
            stderr_contains: Vec::new(),
            stdout_lacks: Vec::new(),
        }
    }

    /// Runs with the repository root as the working directory.
    pub fn in_repo() -> Self {
        Test {
            in_repo: true,
            ..Test::new()
        }
    }

    /// Writes a file (creating its directories) under the temporary directory.
    pub fn file(self, path: &str, contents: impl AsRef<[u8]>) -> Self {
        let full = self.dir.path().join(path);
        if let Some(parent) = full.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        std::fs::write(full, contents).unwrap();
        self
    }

    /// The command-line arguments.
    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        self.args = args.into_iter().map(|s| s.as_ref().to_string()).collect();
        self
    }

    /// An extra environment variable.
    pub fn env(mut self, key: &str, value: &str) -> Self {
        self.env.push((key.to_string(), value.to_string()));
        self
    }

    /// The expected exit code.
    pub fn status(mut self, code: i32) -> Self {
        self.status = Some(code);
        self
    }

    /// Standard output must contain `text`.
    pub fn stdout_contains(mut self, text: &str) -> Self {
        self.stdout_contains.push(text.to_string());
        self
    }

    /// Standard output must not contain `text`.
    pub fn stdout_lacks(mut self, text: &str) -> Self {
        self.stdout_lacks.push(text.to_string());
        self
    }

    /// Standard error must contain `text`.
    pub fn stderr_contains(mut self, text: &str) -> Self {
        self.stderr_contains.push(text.to_string());
        self
    }

    /// The temporary directory's path.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Runs the binary and checks every expectation.
    pub fn run(self) -> Ran {
        let cwd = if self.in_repo {
            repo()
        } else {
            self.dir.path().to_path_buf()
        };
        let xdg = self.dir.path().join(".xdg-config");
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_protoflow"));
        cmd.args(&self.args)
            .current_dir(&cwd)
            .env("XDG_CONFIG_HOME", &xdg)
            .env("HOME", self.dir.path())
            .env("NO_COLOR", "1")
            .env_remove("RUST_BACKTRACE");
        for (k, v) in &self.env {
            cmd.env(k, v);
        }
        let out = cmd.output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        let status = out.status.code().unwrap_or(-1);
        let context = format!(
            "protoflow {}\n--- status: {status}\n--- stdout:\n{stdout}\n--- stderr:\n{stderr}",
            self.args.join(" ")
        );
        assert!(
            !stderr.contains("panicked"),
            "the binary panicked\n{context}"
        );
        if let Some(expected) = self.status {
            assert_eq!(status, expected, "unexpected exit code\n{context}");
        }
        for s in &self.stdout_contains {
            assert!(stdout.contains(s.as_str()), "stdout lacks {s:?}\n{context}");
        }
        for s in &self.stdout_lacks {
            assert!(!stdout.contains(s.as_str()), "stdout has {s:?}\n{context}");
        }
        for s in &self.stderr_contains {
            assert!(stderr.contains(s.as_str()), "stderr lacks {s:?}\n{context}");
        }
        Ran {
            stdout,
            stderr,
            status,
            dir: self.dir,
        }
    }
}

impl Ran {
    /// Output with machine-specific paths replaced (for snapshots).
    pub fn redact(&self, text: &str) -> String {
        let tmp = self.dir.path().display().to_string();
        let real = std::fs::canonicalize(self.dir.path())
            .map(|p| p.display().to_string())
            .unwrap_or_else(|_| tmp.clone());
        text.replace(&real, "[TMP]")
            .replace(&tmp, "[TMP]")
            .replace(&repo().display().to_string(), "[REPO]")
    }
}
