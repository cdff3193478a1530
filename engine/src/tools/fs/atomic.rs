//! Atomic file writes: a temporary file in the same directory, fsync, then rename
//! (or a no-clobber link for new files), keeping the original permission bits.
//!
//! Owns only the mechanics of writing bytes safely; it never decides whether a
//! write is allowed (confinement and revisions are checked by the caller).

use std::fs::{File, OpenOptions, Permissions};
use std::io::Write;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// How the final rename treats an existing target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// The target must not exist (fails with `AlreadyExists` if it appeared).
    Create,
    /// The target is replaced.
    Replace,
}

fn temp_path(abs: &Path) -> std::io::Result<PathBuf> {
    let dir = abs
        .parent()
        .ok_or_else(|| std::io::Error::other("the path has no parent directory"))?;
    let name = abs
        .file_name()
        .ok_or_else(|| std::io::Error::other("the path has no file name"))?
        .to_string_lossy();
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    Ok(dir.join(format!(".{name}.protoflow-tmp-{}-{n}", std::process::id())))
}

/// Writes `bytes` to `abs` atomically. `mode` (permission bits) is applied exactly;
/// `None` uses the default for new files (0666 minus the umask).
pub fn write_atomic(
    abs: &Path,
    bytes: &[u8],
    mode: Option<u32>,
    target: Target,
) -> std::io::Result<()> {
    let tmp = temp_path(abs)?;
    let result = write_and_move(&tmp, abs, bytes, mode, target);
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

fn write_and_move(
    tmp: &Path,
    abs: &Path,
    bytes: &[u8],
    mode: Option<u32>,
    target: Target,
) -> std::io::Result<()> {
    let mut file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o666)
        .custom_flags(nix::libc::O_NOFOLLOW | nix::libc::O_CLOEXEC)
        .open(tmp)?;
    file.write_all(bytes)?;
    if let Some(mode) = mode {
        file.set_permissions(Permissions::from_mode(mode))?;
    }
    file.sync_all()?;
    drop(file);
    match target {
        Target::Replace => std::fs::rename(tmp, abs)?,
        Target::Create => {
            // `link` refuses an existing target, so a file that appeared since the
            // check is never clobbered.
            std::fs::hard_link(tmp, abs)?;
            std::fs::remove_file(tmp)?;
        }
    }
    if let Some(dir) = abs.parent()
        && let Ok(dir) = File::open(dir)
    {
        let _ = dir.sync_all();
    }
    Ok(())
}
