//! Writing a file the safe way: every file bloomlab writes (filters, CSV, SVG, PNG, markdown
//! tables) goes through [`write_atomic_with`] or [`write_atomic_path`].
//!
//! * **Atomic**: the bytes go to a temporary file in the same directory, which is flushed,
//!   `fsync`ed and renamed over the path (then the directory is `fsync`ed on Unix). Until the
//!   rename the old file is untouched, whatever happens (an error, a crash, `kill -9`).
//! * **Into a regular file only**: a path that is a directory, a device, a FIFO or a socket is
//!   refused before anything is written; so is a **symbolic link** unless
//!   [`WriteOptions::follow_symlinks`] (then the file it points to is replaced, the link kept);
//!   so is an existing file that is read-only (no write permission bit at all, which stops root
//!   too) or not writable by this user.
//! * **Permissions kept**: a replaced file keeps its mode (an existing `0600` file stays `0600`)
//!   and, where the operating system allows it, its owner and group. A new file gets the
//!   default mode (`0666` less the umask), or `0600` when [`WriteOptions::private`].
//! * **No temporary file left behind**: temporary files are named
//!   `.NAME.bloomlab-tmp.PID.NANOS[.EXT]`. On an error the file is removed;
//!   [`remove_pending_temp_files`] removes the ones in flight (the command line calls it from
//!   its SIGINT/SIGTERM handler); after a crash, the next save to the same path removes those
//!   whose process is gone (on Linux: no `/proc/PID`; elsewhere: older than a day), and the
//!   `.NAME.PID.NANOS.tmp` files of earlier versions.

use crate::error::{Error, Result};
use std::ffi::OsStr;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

/// How [`write_atomic_with`] writes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WriteOptions {
    /// Create the file with mode `0600` on Unix (it holds a secret key), whatever the old
    /// file's mode.
    pub private: bool,
    /// Write through a symbolic link to the file it points to (the link stays). Without it a
    /// symbolic link at the path is refused.
    pub follow_symlinks: bool,
}

/// The part of a temporary file's name after `.NAME`: how one is recognised.
pub const TEMP_TAG: &str = ".bloomlab-tmp.";

/// Temporary files being written, and whether [`remove_pending_temp_files`] has closed the
/// registry (no new temporary file after that).
static PENDING: Mutex<(Vec<PathBuf>, bool)> = Mutex::new((Vec::new(), false));

fn pending() -> std::sync::MutexGuard<'static, (Vec<PathBuf>, bool)> {
    PENDING.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Remove every temporary file being written and refuse new ones: for a signal handler that
/// is about to end the process. Returns how many were removed.
pub fn remove_pending_temp_files() -> usize {
    let mut p = pending();
    p.1 = true;
    let n = p.0.iter().filter(|t| fs::remove_file(t).is_ok()).count();
    p.0.clear();
    n
}

fn forget(tmp: &Path) {
    pending().0.retain(|t| t != tmp);
}

fn io_err(path: &Path, message: impl Into<String>) -> Error {
    Error::Io {
        path: path.display().to_string(),
        message: message.into(),
    }
}

fn os_err(path: &Path, e: &io::Error) -> Error {
    io_err(path, e.to_string())
}

/// A path refused before anything is written ([`Error::Path`]: the caller's to fix).
fn refused(path: &Path, message: impl Into<String>) -> Error {
    Error::Path {
        path: path.display().to_string(),
        message: message.into(),
    }
}

/// Refuse anything but a regular file we may write.
fn check_writable_file(path: &Path, m: &fs::Metadata) -> Result<()> {
    let ft = m.file_type();
    let refuse = |what: &str| refused(path, format!("{what}; refusing to write to it"));
    if ft.is_dir() {
        return Err(refuse("is a directory"));
    }
    if !ft.is_file() {
        #[cfg(unix)]
        {
            use std::os::unix::fs::FileTypeExt;
            let what = if ft.is_char_device() || ft.is_block_device() {
                "is a device, not a regular file"
            } else if ft.is_fifo() {
                "is a FIFO (named pipe), not a regular file"
            } else if ft.is_socket() {
                "is a socket, not a regular file"
            } else {
                "is not a regular file"
            };
            return Err(refuse(what));
        }
        #[cfg(not(unix))]
        return Err(refuse("is not a regular file"));
    }
    if m.permissions().readonly() {
        return Err(refused(
            path,
            "is read-only; refusing to replace it (make it writable first)",
        ));
    }
    match fs::OpenOptions::new().write(true).open(path) {
        Err(e) if e.kind() == io::ErrorKind::PermissionDenied => Err(refused(
            path,
            "is not writable by you; refusing to replace it",
        )),
        _ => Ok(()),
    }
}

/// The path a write to `path` replaces (the target of a followed link) and its metadata when
/// it exists, after every check.
fn resolve(path: &Path, follow: bool) -> Result<(PathBuf, Option<fs::Metadata>)> {
    let m = match fs::symlink_metadata(path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok((path.to_path_buf(), None)),
        Err(e) => return Err(refused(path, e.to_string())),
        Ok(m) => m,
    };
    if !m.file_type().is_symlink() {
        check_writable_file(path, &m)?;
        return Ok((path.to_path_buf(), Some(m)));
    }
    if !follow {
        return Err(refused(
            path,
            "is a symbolic link; refusing to replace it (--follow-symlinks writes to the file it points to)",
        ));
    }
    // Follow the chain of links (at most 40, as the kernel does) to a file or to nothing.
    let mut target = path.to_path_buf();
    for _ in 0..40 {
        let link = fs::read_link(&target).map_err(|e| refused(&target, e.to_string()))?;
        target = match target.parent() {
            Some(d) if link.is_relative() => d.join(link),
            _ => link,
        };
        match fs::symlink_metadata(&target) {
            // A dangling link: the file is created where it points.
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok((target, None)),
            Err(e) => return Err(refused(&target, e.to_string())),
            Ok(m) if m.file_type().is_symlink() => {}
            Ok(m) => {
                check_writable_file(&target, &m)?;
                return Ok((target, Some(m)));
            }
        }
    }
    Err(refused(path, "is a chain of more than 40 symbolic links"))
}

/// Run the checks of [`write_atomic_with`] on `path` without writing anything: for a command
/// that should refuse its output before hours of work.
///
/// # Errors
/// As [`write_atomic_with`] for a refused path.
pub fn check_target(path: &Path, opts: WriteOptions) -> Result<()> {
    resolve(path, opts.follow_symlinks).map(drop)
}

fn split(path: &Path) -> Result<(PathBuf, &OsStr)> {
    let name = path
        .file_name()
        .ok_or_else(|| refused(path, "not a file name"))?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    Ok((dir, name))
}

/// Whether the process `pid` may still be writing its temporary file.
fn may_be_running(pid: u32, file: &fs::DirEntry) -> bool {
    if pid == std::process::id() {
        return true; // ours: in `PENDING`, or removed on its own error path
    }
    if Path::new("/proc/self").exists() {
        return Path::new("/proc").join(pid.to_string()).exists();
    }
    let age = file
        .metadata()
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.elapsed().ok());
    age.is_none_or(|a| a.as_secs() < 24 * 3600)
}

/// The process id in a temporary file name for `name`: `.NAME.bloomlab-tmp.PID.…` (this
/// version) or `.NAME.PID.NANOS.tmp` (earlier versions).
fn temp_pid(file: &str, name: &str) -> Option<u32> {
    let rest = file.strip_prefix('.')?.strip_prefix(name)?;
    if let Some(r) = rest.strip_prefix(TEMP_TAG) {
        return r.split('.').next()?.parse().ok();
    }
    let mid = rest.strip_prefix('.')?.strip_suffix(".tmp")?;
    let (pid, nanos) = mid.split_once('.')?;
    nanos.parse::<u64>().ok()?;
    pid.parse().ok()
}

/// Remove the temporary files a crashed save to `dir/name` left behind.
fn remove_stale(dir: &Path, name: &OsStr) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let name = name.to_string_lossy();
    for e in entries.flatten() {
        let file = e.file_name();
        let Some(pid) = temp_pid(&file.to_string_lossy(), &name) else {
            continue;
        };
        if e.file_type().is_ok_and(|t| t.is_file()) && !may_be_running(pid, &e) {
            let _ = fs::remove_file(e.path());
        }
    }
}

/// Create the temporary file for `target` (registered in `PENDING`), with `target`'s
/// permissions when it exists.
fn create_temp(
    target: &Path,
    old: Option<&fs::Metadata>,
    opts: WriteOptions,
) -> Result<(PathBuf, fs::File)> {
    let (dir, name) = split(target)?;
    remove_stale(&dir, name);
    // The extension is kept last: image encoders choose the format from it.
    let ext = target
        .extension()
        .map(|e| format!(".{}", e.to_string_lossy()))
        .unwrap_or_default();
    let mut oo = fs::OpenOptions::new();
    oo.write(true).create_new(true);
    #[cfg(unix)]
    if opts.private {
        use std::os::unix::fs::OpenOptionsExt;
        oo.mode(0o600);
    }
    let mut reg = pending();
    if reg.1 {
        return Err(io_err(target, "interrupted: not writing"));
    }
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let mut attempt = 0u32;
    let (tmp, file) = loop {
        let tmp = dir.join(format!(
            ".{}{TEMP_TAG}{}.{}{ext}",
            name.to_string_lossy(),
            std::process::id(),
            nanos.wrapping_add(attempt)
        ));
        match oo.open(&tmp) {
            Ok(f) => break (tmp, f),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && attempt < 64 => attempt += 1,
            Err(e) => {
                return Err(io_err(
                    target,
                    format!("cannot create a temporary file in {}: {e}", dir.display()),
                ));
            }
        }
    };
    reg.0.push(tmp.clone());
    drop(reg);
    if let Some(m) = old.filter(|_| !opts.private) {
        let kept = file.set_permissions(m.permissions());
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            // Best effort: only root may give a file to another user.
            let _ = std::os::unix::fs::fchown(&file, Some(m.uid()), Some(m.gid()));
            // chown may clear set-id bits: set the mode again.
            let _ = file.set_permissions(m.permissions());
        }
        if let Err(e) = kept {
            discard(&tmp);
            return Err(os_err(target, &e));
        }
    }
    Ok((tmp, file))
}

fn discard(tmp: &Path) {
    let _ = fs::remove_file(tmp);
    forget(tmp);
}

/// Rename the finished, synced temporary file over `target`; make the rename durable.
fn commit(tmp: &Path, target: &Path) -> io::Result<()> {
    fs::rename(tmp, target)?;
    forget(tmp);
    #[cfg(unix)]
    if let Ok((dir, _)) = split(target)
        && let Ok(d) = fs::File::open(dir)
    {
        // Failure here leaves a complete file in place.
        let _ = d.sync_all();
    }
    Ok(())
}

/// Write `path` atomically and safely (see the module docs): `write` fills a buffered writer
/// over the temporary file.
///
/// # Errors
/// [`Error::Path`] naming a refused path (directory, device, FIFO, socket, symbolic link,
/// read-only file), before anything is written; [`Error::Io`] naming the path for what the file
/// system said while writing.
pub fn write_atomic_with(
    path: &Path,
    opts: WriteOptions,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> Result<()> {
    let (target, old) = resolve(path, opts.follow_symlinks)?;
    let (tmp, file) = create_temp(&target, old.as_ref(), opts)?;
    let result = (|| -> io::Result<()> {
        let mut bw = io::BufWriter::with_capacity(1 << 16, file);
        write(&mut bw)?;
        bw.flush()?;
        let file = bw.into_inner().map_err(io::IntoInnerError::into_error)?;
        file.sync_all()?;
        drop(file);
        commit(&tmp, &target)
    })();
    result.map_err(|e| {
        discard(&tmp);
        os_err(path, &e)
    })
}

/// As [`write_atomic_with`] for writers that want a path (an image encoder): `draw` writes the
/// temporary file, which exists (empty) and has the extension of `path`.
///
/// # Errors
/// As [`write_atomic_with`], and what `draw` returns.
pub fn write_atomic_path(
    path: &Path,
    opts: WriteOptions,
    draw: impl FnOnce(&Path) -> Result<()>,
) -> Result<()> {
    let (target, old) = resolve(path, opts.follow_symlinks)?;
    let (tmp, file) = create_temp(&target, old.as_ref(), opts)?;
    drop(file);
    let result = draw(&tmp).and_then(|()| {
        (|| -> io::Result<()> {
            fs::OpenOptions::new().write(true).open(&tmp)?.sync_all()?;
            commit(&tmp, &target)
        })()
        .map_err(|e| os_err(path, &e))
    });
    if result.is_err() {
        discard(&tmp);
    }
    result
}

/// Whether `a` and `b` name the same existing file (the same device and inode on Unix, the
/// same canonical path elsewhere), following symbolic links.
#[must_use]
pub fn same_file(a: &Path, b: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        match (fs::metadata(a), fs::metadata(b)) {
            (Ok(x), Ok(y)) => x.dev() == y.dev() && x.ino() == y.ino(),
            _ => false,
        }
    }
    #[cfg(not(unix))]
    match (fs::canonicalize(a), fs::canonicalize(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temp_names_are_recognised() {
        assert_eq!(
            temp_pid(".f.bloom.bloomlab-tmp.123.456.bloom", "f.bloom"),
            Some(123)
        );
        assert_eq!(temp_pid(".f.bloom.123.456.tmp", "f.bloom"), Some(123));
        assert_eq!(temp_pid(".f.bloom.notes", "f.bloom"), None);
        assert_eq!(temp_pid(".g.bloom.bloomlab-tmp.1.2", "f.bloom"), None);
        assert_eq!(temp_pid("f.bloom", "f.bloom"), None);
    }
}
