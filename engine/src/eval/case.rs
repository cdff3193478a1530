//! The case format (`<case>/case.json` + `<case>/project/`) and working copies.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::error::EvalError;

/// The file describing a case.
pub const CASE_FILE: &str = "case.json";
/// Bytes a case file may have.
const CASE_FILE_LIMIT: u64 = 256 * 1024;
/// Files a project copy may have (a bound against copying a huge tree).
const COPY_FILE_LIMIT: usize = 20_000;

/// One evaluation case.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EvalCase {
    /// The request given to the recipe (`--input task=...`).
    pub task: String,
    /// The recipe (a built-in name or a path relative to the case); default `coding`.
    #[serde(default = "default_recipe")]
    pub recipe: String,
    /// `scripted:FILE` (FILE relative to the case) or a provider name.
    pub provider: String,
    /// The model, for a live provider.
    #[serde(default)]
    pub model: Option<String>,
    /// More recipe inputs.
    #[serde(default)]
    pub inputs: BTreeMap<String, String>,
    /// The approval preset the run gets (default `writes`).
    #[serde(default = "default_approve")]
    pub approve: String,
    /// The oracle: argv run in the project; must fail before and pass after.
    pub oracle: Vec<String>,
    /// Seconds the oracle may run (default 300).
    #[serde(default = "default_timeout")]
    pub oracle_timeout: u64,
}

fn default_recipe() -> String {
    "coding".into()
}
fn default_approve() -> String {
    "writes".into()
}
fn default_timeout() -> u64 {
    300
}

/// A case with where it lives.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedCase {
    /// The directory name.
    pub name: String,
    /// The case directory.
    pub dir: PathBuf,
    /// The case.
    pub case: EvalCase,
}

impl LoadedCase {
    /// The provider argument with a scripted file made absolute.
    pub fn provider_arg(&self) -> String {
        match self.case.provider.strip_prefix("scripted:") {
            Some(file) => format!("scripted:{}", self.dir.join(file).display()),
            None => self.case.provider.clone(),
        }
    }

    /// The recipe argument (a relative path resolved against the case).
    pub fn recipe_arg(&self) -> String {
        let r = &self.case.recipe;
        if r.contains('/') || r.ends_with(".yaml") || r.ends_with(".yml") {
            self.dir.join(r).display().to_string()
        } else {
            r.clone()
        }
    }
}

/// Every case under `dir` (each subdirectory with a `case.json`), sorted by name.
pub fn load_cases(dir: &Path) -> Result<Vec<LoadedCase>, EvalError> {
    let entries = std::fs::read_dir(dir).map_err(|source| EvalError::Dir {
        dir: dir.to_path_buf(),
        source,
    })?;
    let mut cases = Vec::new();
    for entry in entries.flatten() {
        let case_dir = entry.path();
        let file = case_dir.join(CASE_FILE);
        if !case_dir.is_dir() || !file.is_file() {
            continue;
        }
        let bad = |reason: String| EvalError::Case {
            case: case_dir.clone(),
            reason,
        };
        let len = std::fs::metadata(&file)
            .map_err(|e| bad(e.to_string()))?
            .len();
        if len > CASE_FILE_LIMIT {
            return Err(bad(format!("{CASE_FILE} is over {CASE_FILE_LIMIT} bytes")));
        }
        let text = std::fs::read_to_string(&file).map_err(|e| bad(e.to_string()))?;
        let case: EvalCase =
            serde_json::from_str(&text).map_err(|e| bad(format!("{CASE_FILE}: {e}")))?;
        if case.oracle.is_empty() {
            return Err(bad("the oracle argv is empty".into()));
        }
        if !case_dir.join("project").is_dir() {
            return Err(bad("there is no project/ directory".into()));
        }
        cases.push(LoadedCase {
            name: entry.file_name().to_string_lossy().into_owned(),
            dir: case_dir,
            case,
        });
    }
    cases.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(cases)
}

/// Copies the case's `project/` into a fresh directory under `parent`; symlinks
/// are not followed (they are skipped), and at most 20,000 files are copied.
pub fn working_copy(case: &LoadedCase, parent: &Path) -> Result<PathBuf, EvalError> {
    let err = |source: std::io::Error| EvalError::Copy {
        name: case.name.clone(),
        source,
    };
    let target = parent.join(&case.name);
    if target.exists() {
        std::fs::remove_dir_all(&target).map_err(err)?;
    }
    let mut copied = 0usize;
    copy_dir(&case.dir.join("project"), &target, &mut copied).map_err(err)?;
    target.canonicalize().map_err(err)
}

fn copy_dir(from: &Path, to: &Path, copied: &mut usize) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let kind = entry.file_type()?;
        let dest = to.join(entry.file_name());
        if kind.is_dir() {
            copy_dir(&entry.path(), &dest, copied)?;
        } else if kind.is_file() {
            *copied += 1;
            if *copied > COPY_FILE_LIMIT {
                return Err(std::io::Error::other(format!(
                    "the project has more than {COPY_FILE_LIMIT} files"
                )));
            }
            std::fs::copy(entry.path(), dest)?;
        }
    }
    Ok(())
}
