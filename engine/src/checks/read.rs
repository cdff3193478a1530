//! Bounded reads of small project files (Cargo.toml, package.json, pyproject.toml, ...)
//! for discovery.
//!
//! Never follows a symlink, never reads more than the cap, never fails discovery: every
//! problem becomes a [`ReadOutcome::Problem`] with a human reason.

use std::io::Read;
use std::path::Path;

/// The largest manifest discovery parses (1 MiB).
pub(crate) const MANIFEST_SIZE_LIMIT: u64 = 1024 * 1024;

/// The result of reading one project file.
#[derive(Debug)]
pub(crate) enum ReadOutcome {
    /// The file does not exist.
    Missing,
    /// The file's text.
    Text(String),
    /// The file exists but was not read; the reason says why.
    Problem(String),
}

/// Reads `relative` (a `/`-separated path under `root`) if it is a regular file with no
/// symlink on the way, UTF-8, and at most `limit` bytes.
pub(crate) fn read_project_file(root: &Path, relative: &str, limit: u64) -> ReadOutcome {
    let mut path = root.to_path_buf();
    for part in relative.split('/') {
        path.push(part);
        match std::fs::symlink_metadata(&path) {
            Ok(meta) if meta.file_type().is_symlink() => {
                return ReadOutcome::Problem(format!("{relative} is a symlink; not followed"));
            }
            Ok(_) => {}
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => return ReadOutcome::Missing,
            Err(err) => return ReadOutcome::Problem(format!("{relative} cannot be read: {err}")),
        }
    }
    let file = match std::fs::File::open(&path) {
        Ok(file) => file,
        Err(err) => return ReadOutcome::Problem(format!("{relative} cannot be read: {err}")),
    };
    match file.metadata() {
        Ok(meta) if !meta.is_file() => {
            return ReadOutcome::Problem(format!("{relative} is not a regular file"));
        }
        Ok(meta) if meta.len() > limit => {
            return ReadOutcome::Problem(format!(
                "{relative} is {} bytes, over the {limit}-byte parse limit",
                meta.len()
            ));
        }
        Ok(_) => {}
        Err(err) => return ReadOutcome::Problem(format!("{relative} cannot be read: {err}")),
    }
    let mut bytes = Vec::new();
    if let Err(err) = file.take(limit + 1).read_to_end(&mut bytes) {
        return ReadOutcome::Problem(format!("{relative} cannot be read: {err}"));
    }
    if bytes.len() as u64 > limit {
        return ReadOutcome::Problem(format!("{relative} grew over the {limit}-byte parse limit"));
    }
    match String::from_utf8(bytes) {
        Ok(text) => ReadOutcome::Text(text),
        Err(_) => ReadOutcome::Problem(format!("{relative} is not UTF-8")),
    }
}
