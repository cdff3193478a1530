//! Trust in a project's MCP configuration.
//!
//! A project's `.protoflow/mcp.json` names programs to run; cloning a repository
//! must never be enough to run them. The user trusts one exact file: the trust
//! store (in the user's data directory, outside every project) keeps, per
//! canonical project root, the SHA-256 of the file's bytes when it was trusted.
//! A changed file no longer matches and is untrusted again. This module owns that
//! store; it never starts a server and never trusts anything on its own.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::config::{PROJECT_FILE, ProjectFile, load_project};
use super::error::McpError;

/// The trust store's file, relative to the user data directory.
pub const TRUST_FILE: &str = "protoflow/mcp-trust.json";

/// SHA-256 of `bytes`, lowercase hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// One trusted project file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrustRecord {
    /// SHA-256 of the trusted file's bytes.
    pub sha256: String,
    /// When it was trusted (seconds since the Unix epoch).
    pub trusted_at: u64,
}

#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct TrustFile {
    /// Canonical project root -> the trusted file's digest.
    projects: BTreeMap<String, TrustRecord>,
}

/// The user's record of trusted project MCP files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrustStore {
    path: PathBuf,
}

impl TrustStore {
    /// A store kept in `path`.
    pub fn at(path: PathBuf) -> TrustStore {
        TrustStore { path }
    }

    /// `$XDG_DATA_HOME/protoflow/mcp-trust.json`, or `$HOME/.local/share/...`.
    pub fn default_location(lookup: impl Fn(&str) -> Option<String>) -> Result<PathBuf, McpError> {
        let base = match lookup("XDG_DATA_HOME").filter(|v| Path::new(v).is_absolute()) {
            Some(dir) => PathBuf::from(dir),
            None => match lookup("HOME").filter(|v| !v.is_empty()) {
                Some(home) => PathBuf::from(home).join(".local").join("share"),
                None => {
                    return Err(McpError::NoHome {
                        what: "data",
                        xdg: "XDG_DATA_HOME",
                    });
                }
            },
        };
        Ok(base.join(TRUST_FILE))
    }

    /// The store's file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn read(&self) -> Result<TrustFile, McpError> {
        match std::fs::read(&self.path) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|err| McpError::ConfigParse {
                path: self.path.clone(),
                reason: err.to_string(),
            }),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(TrustFile::default()),
            Err(source) => Err(McpError::Read {
                path: self.path.clone(),
                source,
            }),
        }
    }

    /// The record for a canonical project root, if any.
    pub fn record(&self, root: &Path) -> Result<Option<TrustRecord>, McpError> {
        Ok(self.read()?.projects.remove(&key(root)))
    }

    /// Whether the file with digest `sha256` of the canonical project `root` is trusted.
    pub fn is_trusted(&self, root: &Path, sha256: &str) -> Result<bool, McpError> {
        Ok(self
            .record(root)?
            .is_some_and(|record| record.sha256 == sha256))
    }

    /// Records `sha256` as the trusted digest of `root`'s file (replacing any older one).
    pub fn trust(&self, root: &Path, sha256: &str) -> Result<(), McpError> {
        let mut file = self.read()?;
        let trusted_at = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0);
        file.projects.insert(
            key(root),
            TrustRecord {
                sha256: sha256.to_owned(),
                trusted_at,
            },
        );
        self.write(&file)
    }

    /// Forgets `root` (its project file is untrusted again). Returns whether it was trusted.
    pub fn revoke(&self, root: &Path) -> Result<bool, McpError> {
        let mut file = self.read()?;
        let removed = file.projects.remove(&key(root)).is_some();
        if removed {
            self.write(&file)?;
        }
        Ok(removed)
    }

    /// Writes the store atomically (temporary file + rename), readable by the user only.
    fn write(&self, file: &TrustFile) -> Result<(), McpError> {
        let failed = |reason: String| McpError::TrustStore {
            path: self.path.clone(),
            reason,
        };
        let dir = self
            .path
            .parent()
            .ok_or_else(|| failed("the path has no parent directory".into()))?;
        std::fs::create_dir_all(dir).map_err(|e| failed(e.to_string()))?;
        let mut text = serde_json::to_string_pretty(file).map_err(|e| failed(e.to_string()))?;
        text.push('\n');
        let tmp = dir.join(format!(".mcp-trust.{}.tmp", std::process::id()));
        let result = (|| {
            let mut out = open_private(&tmp)?;
            out.write_all(text.as_bytes())?;
            out.sync_all()?;
            std::fs::rename(&tmp, &self.path)
        })();
        if result.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        result.map_err(|e| failed(e.to_string()))
    }
}

fn open_private(path: &Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)
}

fn key(root: &Path) -> String {
    root.display().to_string()
}

/// Trusts the project MCP file of `project` exactly as it is now: reads it once,
/// validates it, and records the digest of those bytes. Returns what was trusted.
pub fn trust_project(project: &Path, store: &TrustStore) -> Result<ProjectFile, McpError> {
    let Some(mut found) = load_project(project, Some(store))? else {
        return Err(McpError::Read {
            path: project.join(PROJECT_FILE),
            source: std::io::Error::new(
                std::io::ErrorKind::NotFound,
                "the project has no MCP configuration",
            ),
        });
    };
    store.trust(&found.root, &found.sha256)?;
    found.trusted = true;
    Ok(found)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn trust_is_keyed_by_root_and_digest() {
        let dir = tempfile::tempdir().unwrap();
        let store = TrustStore::at(dir.path().join("nested/trust.json"));
        let root = Path::new("/p");
        assert!(!store.is_trusted(root, "aa").unwrap());
        store.trust(root, "aa").unwrap();
        assert!(store.is_trusted(root, "aa").unwrap());
        assert!(!store.is_trusted(root, "bb").unwrap());
        assert!(!store.is_trusted(Path::new("/q"), "aa").unwrap());
        assert!(store.revoke(root).unwrap());
        assert!(!store.is_trusted(root, "aa").unwrap());
    }

    #[test]
    fn the_store_is_private_to_the_user() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let store = TrustStore::at(dir.path().join("trust.json"));
        store.trust(Path::new("/p"), "aa").unwrap();
        let mode = std::fs::metadata(store.path())
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o077, 0);
    }

    #[test]
    fn default_location_follows_xdg_then_home() {
        let xdg = TrustStore::default_location(|n| (n == "XDG_DATA_HOME").then(|| "/d".into()));
        assert_eq!(xdg.unwrap(), PathBuf::from("/d/protoflow/mcp-trust.json"));
        let home = TrustStore::default_location(|n| (n == "HOME").then(|| "/h".into()));
        assert_eq!(
            home.unwrap(),
            PathBuf::from("/h/.local/share/protoflow/mcp-trust.json")
        );
    }
}
