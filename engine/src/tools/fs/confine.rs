//! Path confinement: every path a file tool touches resolves under the project root.
//!
//! Owns the lexical rules (no `..`, no absolute path outside the root), the symlink
//! rule (no symlink on ANY component, checked with `symlink_metadata` at prepare and
//! again at execute) and the protected-path rule for writes (`.git/`, `.protoflow/`
//! and the context's protected paths, including first-time creation).
//! It must never follow a symlink, and never read or write file content.

use std::fs::{File, OpenOptions};
use std::io::{ErrorKind, Read};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Component, Path, PathBuf};

use crate::tools::{ToolContext, ToolError};

/// Files larger than this are refused by every file tool (8 MiB).
pub const MAX_FILE_BYTES: u64 = 8 * 1024 * 1024;

/// Directories that can never be written, whatever the context says.
const ALWAYS_PROTECTED: [&str; 2] = [".git", ".protoflow"];

/// A path known to be lexically inside the project root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfinedPath {
    /// Relative to the root, normalized (only normal components; empty = the root).
    pub rel: PathBuf,
    /// `root.join(rel)`.
    pub abs: PathBuf,
}

impl ConfinedPath {
    /// The relative path with `/` separators, as shown to callers (`.` for the root).
    pub fn display(&self) -> String {
        if self.rel.as_os_str().is_empty() {
            ".".to_string()
        } else {
            self.rel.to_string_lossy().into_owned()
        }
    }
}

fn refused(path: &str, reason: impl Into<String>) -> ToolError {
    ToolError::PathRefused {
        path: path.to_string(),
        reason: reason.into(),
    }
}

/// Normalizes `raw` under `root` without touching the file system.
///
/// Refuses empty paths, NUL bytes, any `..` component, and absolute paths that are
/// not under `root`.
pub fn normalize(root: &Path, raw: &str) -> Result<PathBuf, ToolError> {
    if raw.is_empty() {
        return Err(refused(raw, "the path is empty"));
    }
    if raw.contains('\0') {
        return Err(refused(raw, "the path contains a NUL byte"));
    }
    let given = Path::new(raw);
    let relative: &Path = if given.is_absolute() {
        match given.strip_prefix(root) {
            Ok(rest) => rest,
            Err(_) => {
                return Err(refused(
                    raw,
                    "absolute paths outside the project root are not allowed",
                ));
            }
        }
    } else {
        given
    };
    let mut rel = PathBuf::new();
    for component in relative.components() {
        match component {
            Component::Normal(part) => rel.push(part),
            Component::CurDir => {}
            Component::ParentDir => {
                return Err(refused(raw, "`..` components are not allowed"));
            }
            Component::RootDir | Component::Prefix(_) => {
                return Err(refused(raw, "the path is not relative to the project root"));
            }
        }
    }
    Ok(rel)
}

/// Refuses the path when any existing component under `root` is a symlink.
///
/// Components that do not exist yet end the walk (a file about to be created).
pub fn check_no_symlinks(root: &Path, rel: &Path, raw: &str) -> Result<(), ToolError> {
    let mut current = root.to_path_buf();
    for part in rel.components() {
        current.push(part);
        match std::fs::symlink_metadata(&current) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let shown = current.strip_prefix(root).unwrap_or(&current);
                return Err(refused(
                    raw,
                    format!(
                        "`{}` is a symbolic link; symlinks are never followed",
                        shown.display()
                    ),
                ));
            }
            Ok(_) => {}
            Err(err) if err.kind() == ErrorKind::NotFound => return Ok(()),
            Err(err) if err.kind() == ErrorKind::NotADirectory => {
                return Err(refused(raw, "a parent of the path is not a directory"));
            }
            Err(err) => return Err(refused(raw, format!("cannot inspect the path: {err}"))),
        }
    }
    Ok(())
}

/// Resolves a caller's path: lexical confinement, then the symlink rule.
pub fn confine(root: &Path, raw: &str) -> Result<ConfinedPath, ToolError> {
    let rel = normalize(root, raw)?;
    check_no_symlinks(root, &rel, raw)?;
    Ok(ConfinedPath {
        abs: root.join(&rel),
        rel,
    })
}

/// Refuses writes to protected paths: `.git/`, `.protoflow/` and `ctx.protected`.
pub fn ensure_writable(ctx: &ToolContext, path: &ConfinedPath) -> Result<(), ToolError> {
    let raw = path.display();
    if path.rel.as_os_str().is_empty() {
        return Err(refused(&raw, "the project root itself cannot be written"));
    }
    if let Some(Component::Normal(first)) = path.rel.components().next() {
        let first = first.to_string_lossy();
        if ALWAYS_PROTECTED
            .iter()
            .any(|p| first.eq_ignore_ascii_case(p))
        {
            return Err(refused(
                &raw,
                format!("`{first}/` is protected and can never be written by a tool"),
            ));
        }
    }
    for protected in &ctx.protected {
        let protected_rel = match protected.strip_prefix(&ctx.root) {
            Ok(rest) => rest.to_path_buf(),
            Err(_) if protected.is_absolute() => continue,
            Err(_) => protected.clone(),
        };
        let Ok(protected_rel) = normalize(&ctx.root, &protected_rel.to_string_lossy()) else {
            continue;
        };
        if path.rel.starts_with(&protected_rel) {
            return Err(refused(
                &raw,
                format!("`{}` is protected for this run", protected_rel.display()),
            ));
        }
    }
    Ok(())
}

/// A regular file read without following a symlink, with its permission bits.
#[derive(Debug, Clone)]
pub struct FileBytes {
    /// The full content.
    pub bytes: Vec<u8>,
    /// The permission bits (`st_mode & 0o7777`).
    pub mode: u32,
}

/// Opens `abs` for reading with `O_NOFOLLOW` (a symlink as last component fails).
pub fn open_nofollow(abs: &Path) -> std::io::Result<File> {
    OpenOptions::new()
        .read(true)
        .custom_flags(nix::libc::O_NOFOLLOW | nix::libc::O_CLOEXEC)
        .open(abs)
}

/// Reads a regular file of at most [`MAX_FILE_BYTES`]; `Ok(None)` when it is absent.
pub fn read_regular(tool: &str, path: &ConfinedPath) -> Result<Option<FileBytes>, ToolError> {
    let raw = path.display();
    let file = match open_nofollow(&path.abs) {
        Ok(file) => file,
        Err(err) if err.kind() == ErrorKind::NotFound => return Ok(None),
        Err(err) if err.raw_os_error() == Some(nix::libc::ELOOP) => {
            return Err(refused(
                &raw,
                "the path is a symbolic link; symlinks are never followed",
            ));
        }
        Err(err) => {
            return Err(ToolError::Io {
                tool: tool.to_string(),
                source: err,
            });
        }
    };
    let meta = file.metadata().map_err(|source| ToolError::Io {
        tool: tool.to_string(),
        source,
    })?;
    if !meta.is_file() {
        return Err(ToolError::Rejected {
            tool: tool.to_string(),
            reason: format!("`{raw}` is not a regular file"),
        });
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err(too_large(tool, &raw, meta.len()));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    file.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|source| ToolError::Io {
            tool: tool.to_string(),
            source,
        })?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(too_large(tool, &raw, bytes.len() as u64));
    }
    Ok(Some(FileBytes {
        bytes,
        mode: meta.permissions().mode() & 0o7777,
    }))
}

/// The error for a file over [`MAX_FILE_BYTES`].
pub fn too_large(tool: &str, raw: &str, len: u64) -> ToolError {
    ToolError::Rejected {
        tool: tool.to_string(),
        reason: format!(
            "`{raw}` is {:.1} MiB; file tools handle files up to {} MiB",
            len as f64 / (1024.0 * 1024.0),
            MAX_FILE_BYTES / (1024 * 1024)
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalize_drops_dots_and_refuses_parents() {
        let root = Path::new("/project");
        assert_eq!(
            normalize(root, "./src/./a.rs").ok(),
            Some(PathBuf::from("src/a.rs"))
        );
        assert_eq!(
            normalize(root, "/project/src").ok(),
            Some(PathBuf::from("src"))
        );
        assert!(normalize(root, "src/../../etc").is_err());
        assert!(normalize(root, "/etc/passwd").is_err());
        assert!(normalize(root, "").is_err());
        assert!(normalize(root, "a\0b").is_err());
    }
}
