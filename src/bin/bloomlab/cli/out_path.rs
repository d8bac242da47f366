//! The one route for every file the command line writes: [`check`] before any work, then
//! [`CheckedOut::write`] (or [`CheckedOut::write_csv`]) through a temporary file renamed over
//! the path ([`bloomlab::persist::write_atomic_with`]).
//!
//! The rules, the same for every command and every output path (`build --out`, `run --out`,
//! `choose --out`, `diagram --out`/`--out-dir`, `redis compare --out`, `redis penetration --out`
//! and `--db`):
//!
//! * **Checked before any work**: before a key is read, a filter built, a run started or a
//!   connection made. A refusal is one line naming the path (exit status 2).
//! * **A regular file only**: a directory, device, FIFO or socket is refused without being
//!   opened (a FIFO cannot block the command); so is a **symbolic link** unless
//!   `--follow-symlinks` (then the file it points to is written, the link kept); so is a file or
//!   a directory this user may not write (the directory is tried with a probe file, so the
//!   answer is the operating system's own).
//! * **Never an input**: not the command's input files (`--keys`, `--key-file`, the specs), not
//!   the penetration demo's `--db` (nor its `--db` the `--out`), also when the path does not
//!   exist yet or reaches the input through a link.
//! * **Never a file of another format**: an existing non-empty file is replaced only when it
//!   holds what the command writes: a text output (CSV, SVG, JSON, Markdown) replaces text (no
//!   NUL byte in its first 8 KiB), a binary output replaces a file with the same magic bytes (a
//!   bloomlab filter, a PNG image, a SQLite database). A user's SQLite database is not turned
//!   into a CSV.
//! * **Atomic**: the bytes go to a temporary file in the same directory, renamed over the path
//!   when complete; until then the old file is untouched (see [`bloomlab::persist::atomic`]).

use bloomlab::persist::{WriteOptions, check_target, same_file, write_atomic_with};
use bloomlab::{Error, Param, Result};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

/// What a command writes at a path: decides which existing files it may replace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Text (CSV, SVG, JSON, Markdown): replaces only a text file.
    Text,
    /// A bloomlab filter file (`\x89BLMLAB\n`).
    Filter,
    /// A PNG image.
    Png,
    /// A SQLite database (the penetration demo's `--db`, written by SQLite in place).
    Sqlite,
}

impl Format {
    /// The format of an output named `path`, from its extension (`.png`: PNG, else text).
    #[must_use]
    pub fn of_chart(path: &Path) -> Self {
        if path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("png"))
        {
            Format::Png
        } else {
            Format::Text
        }
    }

    fn magic(self) -> Option<&'static [u8]> {
        match self {
            Format::Text => None,
            Format::Filter => Some(&bloomlab::persist::MAGIC),
            Format::Png => Some(b"\x89PNG\r\n\x1a\n"),
            Format::Sqlite => Some(b"SQLite format 3\0"),
        }
    }

    fn describe(self) -> &'static str {
        match self {
            Format::Text => "text",
            Format::Filter => "a bloomlab filter",
            Format::Png => "a PNG image",
            Format::Sqlite => "a SQLite database",
        }
    }
}

/// An input a command reads, which no output may replace: the flag that names it and its path.
pub type Protected<'a> = (&'a str, &'a Path);

/// An output path that passed [`check`]: write it with [`CheckedOut::write`].
#[derive(Debug, Clone)]
pub struct CheckedOut {
    path: PathBuf,
    format: Format,
    opts: WriteOptions,
    create_dirs: bool,
}

/// A path refused before any work ([`Error::Path`], exit status 2).
fn io_err(path: &Path, message: impl Into<String>) -> Error {
    Error::Path {
        path: path.display().to_string(),
        message: message.into(),
    }
}

/// `path` made absolute with its directory resolved (links followed), for comparing a path that
/// does not exist yet with another: `None` when its directory does not exist.
fn resolved(path: &Path) -> Option<PathBuf> {
    let name = path.file_name()?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    Some(std::fs::canonicalize(dir).ok()?.join(name))
}

/// Whether `a` and `b` are (or would be, once created) the same file.
fn same_place(a: &Path, b: &Path) -> bool {
    same_file(a, b) || resolved(a).is_some_and(|x| resolved(b).is_some_and(|y| x == y))
}

/// Whether standard input is the file `path` names (same device and inode: also through a
/// link or another name), for an input given as `-`. Standard input's own handle is asked, so
/// `--keys - --out F < F` is caught although no path names the input.
fn stdin_is(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        use std::os::unix::fs::MetadataExt;
        let Ok(fd) = io::stdin().as_fd().try_clone_to_owned() else {
            return false;
        };
        match (std::fs::File::from(fd).metadata(), std::fs::metadata(path)) {
            (Ok(i), Ok(o)) => i.is_file() && i.dev() == o.dev() && i.ino() == o.ino(),
            _ => false,
        }
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        false
    }
}

/// The nearest directory that exists at or above the directory of `path`.
fn existing_dir(path: &Path) -> PathBuf {
    let mut dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    while std::fs::symlink_metadata(&dir).is_err() {
        match dir.parent() {
            Some(d) if !d.as_os_str().is_empty() => dir = d.to_path_buf(),
            _ => return PathBuf::from("."),
        }
    }
    dir
}

/// Whether this user may create a file in `dir`: asked of the operating system with a probe
/// file, created and removed at once.
fn probe_dir(path: &Path, dir: &Path) -> Result<()> {
    let meta = std::fs::metadata(dir).map_err(|e| {
        io_err(
            path,
            format!("cannot create a temporary file in {}: {e}", dir.display()),
        )
    })?;
    if !meta.is_dir() {
        return Err(io_err(
            path,
            format!("{} is not a directory", dir.display()),
        ));
    }
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    // Named as a temporary file of `path` is: should the process die before the removal, the
    // next save to `path` removes it.
    let name = path
        .file_name()
        .map_or_else(|| "probe".into(), |n| n.to_string_lossy());
    let probe = dir.join(format!(
        ".{name}{}{}.{nanos}.probe",
        bloomlab::persist::atomic::TEMP_TAG,
        std::process::id()
    ));
    match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe)
    {
        Ok(f) => {
            drop(f);
            let _ = std::fs::remove_file(&probe);
            Ok(())
        }
        Err(e) => Err(io_err(
            path,
            format!(
                "cannot create a temporary file in {}: {e} (the directory is not writable)",
                dir.display()
            ),
        )),
    }
}

/// Refuse an existing non-empty file at `target` that holds another format than `format`.
fn check_format(path: &Path, target: &Path, format: Format) -> Result<()> {
    let Ok(meta) = std::fs::metadata(target) else {
        return Ok(()); // nothing there (yet): nothing to lose
    };
    if !meta.is_file() || meta.len() == 0 {
        return Ok(()); // refused by check_target already, or empty
    }
    let mut head = Vec::with_capacity(8192);
    std::fs::File::open(target)
        .and_then(|f| f.take(8192).read_to_end(&mut head))
        .map_err(|e| io_err(path, e.to_string()))?;
    let ok = match format.magic() {
        Some(m) => head.starts_with(m),
        None => !head.contains(&0),
    };
    if ok {
        return Ok(());
    }
    let found = [Format::Sqlite, Format::Png, Format::Filter]
        .into_iter()
        .find(|f| f.magic().is_some_and(|m| head.starts_with(m)))
        .map_or("something else (binary data)", Format::describe);
    let found = if format.magic().is_some() && !head.contains(&0) && found.starts_with("some") {
        "text"
    } else {
        found
    };
    Err(io_err(
        path,
        format!(
            "holds {found}, not {}; refusing to replace it (remove it or choose another path)",
            format.describe()
        ),
    ))
}

/// The file `path` names for writing: itself, or the end of its links with `follow_symlinks`.
fn target_of(path: &Path, follow_symlinks: bool) -> PathBuf {
    if follow_symlinks {
        std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
    } else {
        path.to_path_buf()
    }
}

/// How [`check_with`] checks an output path.
#[derive(Debug, Clone, Copy)]
pub struct Rules<'a> {
    /// The flag that names the path (`out`, `db`), for the error.
    pub flag: &'static str,
    /// What will be written there.
    pub format: Format,
    /// The command's inputs (flag and path): never replaced.
    pub protected: &'a [Protected<'a>],
    /// Write through a symbolic link at the path (`--follow-symlinks`).
    pub follow_symlinks: bool,
    /// Create missing directories above the file when writing (the CSV tables' `results/…`);
    /// without it the directory must exist.
    pub create_dirs: bool,
}

impl<'a> Rules<'a> {
    /// A CSV table at `--out` (its directory created if missing).
    #[cfg(feature = "redis")]
    #[must_use]
    pub fn csv(protected: &'a [Protected<'a>], follow_symlinks: bool) -> Self {
        Rules {
            flag: "out",
            format: Format::Text,
            protected,
            follow_symlinks,
            create_dirs: true,
        }
    }

    /// The penetration demo's SQLite `--db` (written in place by SQLite; its directory must
    /// exist).
    #[cfg(feature = "redis")]
    #[must_use]
    pub fn db(protected: &'a [Protected<'a>], follow_symlinks: bool) -> Self {
        Rules {
            flag: "db",
            format: Format::Sqlite,
            protected,
            follow_symlinks,
            create_dirs: false,
        }
    }

    /// A file `run`, `choose` or `diagram --all` writes into an output directory (created if
    /// missing): text or PNG by its extension.
    #[must_use]
    pub fn in_dir(path: &Path, protected: &'a [Protected<'a>], follow_symlinks: bool) -> Self {
        Rules {
            flag: "out",
            format: Format::of_chart(path),
            protected,
            follow_symlinks,
            create_dirs: true,
        }
    }
}

/// Check an output path before any work (see the module docs for the rules): `protected` are
/// the command's inputs (flag and path), `format` what will be written there. Its directory
/// must exist.
///
/// # Errors
/// As [`check_with`].
pub fn check(
    path: &Path,
    format: Format,
    protected: &[Protected<'_>],
    follow_symlinks: bool,
) -> Result<CheckedOut> {
    check_with(
        path,
        Rules {
            flag: "out",
            format,
            protected,
            follow_symlinks,
            create_dirs: false,
        },
    )
}

/// Check an output path before any work, as `rules` say.
///
/// # Errors
/// [`Error::InvalidParameter`] naming the flag when the path is one of the protected inputs;
/// [`Error::Path`] naming the path for a path that cannot or must not be written.
pub fn check_with(path: &Path, rules: Rules<'_>) -> Result<CheckedOut> {
    for (flag, input) in rules.protected {
        if *input == Path::new("-") && stdin_is(path) {
            return Err(Error::invalid(
                Param::Other(rules.flag),
                path.display(),
                format!(
                    "a file other than the input {flag} - (standard input is this file: \
                     writing it would destroy the input)"
                ),
            ));
        }
        if same_place(input, path) {
            return Err(Error::invalid(
                Param::Other(rules.flag),
                path.display(),
                format!(
                    "a file other than the input {flag} {} (writing it would destroy the input)",
                    input.display()
                ),
            ));
        }
    }
    let opts = WriteOptions {
        private: false,
        follow_symlinks: rules.follow_symlinks,
    };
    check_target(path, opts)?;
    let target = target_of(path, rules.follow_symlinks);
    let dir = if rules.create_dirs {
        existing_dir(&target)
    } else {
        match target.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        }
    };
    probe_dir(path, &dir)?;
    check_format(path, &target, rules.format)?;
    Ok(CheckedOut {
        path: path.to_path_buf(),
        format: rules.format,
        opts,
        create_dirs: rules.create_dirs,
    })
}

/// Check an output directory (`run --out`, `choose --out`, `diagram --out-dir`) before any
/// work: it is a directory (or can be created) this user may write into.
///
/// # Errors
/// [`Error::Path`] naming the directory.
pub fn check_dir(dir: &Path) -> Result<()> {
    match std::fs::metadata(dir) {
        Ok(m) if !m.is_dir() => Err(io_err(
            dir,
            "is not a directory (the outputs go into this directory)",
        )),
        Ok(_) => probe_dir(dir, dir),
        Err(_) => probe_dir(dir, &existing_dir(&dir.join("x"))),
    }
}

impl CheckedOut {
    /// The path as given.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Write the file: its directory created if missing (when the rules say so), the bytes through a temporary file
    /// renamed over the path. The checks are made again (the file system may have changed
    /// since [`check`]).
    ///
    /// # Errors
    /// [`Error::Path`] for a path refused now; [`Error::Io`] naming the path for a failed write.
    pub fn write(&self, write: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> Result<()> {
        self.recheck()?;
        write_atomic_with(&self.path, self.opts, write)
    }

    /// Write `rows` as CSV (a header from the first row's field names).
    #[cfg(feature = "redis")]
    ///
    /// # Errors
    /// [`Error::Io`] naming the path.
    pub fn write_csv<T: serde::Serialize>(&self, rows: &[T]) -> Result<()> {
        self.write(|w| {
            let mut c = csv::Writer::from_writer(w);
            for r in rows {
                c.serialize(r).map_err(io::Error::other)?;
            }
            c.flush()
        })
    }

    /// The directory created if missing (when the rules say so), the checks made again.
    ///
    /// # Errors
    /// [`Error::Io`] naming the path.
    pub fn recheck(&self) -> Result<()> {
        if let Some(dir) = self
            .path
            .parent()
            .filter(|d| self.create_dirs && !d.as_os_str().is_empty())
        {
            std::fs::create_dir_all(dir).map_err(|e| Error::Io {
                path: self.path.display().to_string(),
                message: e.to_string(),
            })?;
        }
        check_target(&self.path, self.opts)?;
        check_format(
            &self.path,
            &target_of(&self.path, self.opts.follow_symlinks),
            self.format,
        )
    }
}
