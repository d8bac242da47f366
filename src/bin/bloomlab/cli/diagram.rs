//! `bloomlab diagram`: an SVG of a real filter's structure ([`bloomlab::diagram`]), written
//! atomically into a regular file like every other output ([`bloomlab::persist::write_atomic_with`]).

use super::out::outln;
use bloomlab::diagram::{self, DIAGRAMS};
use bloomlab::persist::{WriteOptions, check_target, write_atomic_with};
use bloomlab::{Error, Param, Result};
use std::path::{Path, PathBuf};

/// Draw a filter's structure as SVG, from a real filter built by the library.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Diagrams: standard, blocked, split-block, counting, cuckoo, scalable, xor, \
binary-fuse, quotient (--list says what each shows).\nExamples:\n  bloomlab diagram cuckoo --out cuckoo.svg\n  \
bloomlab diagram --all --out-dir book/src/figures/diagrams"
)]
pub struct Args {
    /// The diagram (see --list).
    pub name: Option<String>,
    /// Output file (replaced atomically; a directory, device, FIFO, read-only file or a
    /// symbolic link is refused). Without it the SVG goes to standard output.
    #[arg(long, conflicts_with_all = ["all", "list"])]
    pub out: Option<PathBuf>,
    /// List the diagrams and what each shows.
    #[arg(long, conflicts_with_all = ["name", "all"])]
    pub list: bool,
    /// Write every diagram, as NAME.svg, into --out-dir.
    #[arg(long, requires = "out_dir", conflicts_with = "name")]
    pub all: bool,
    /// The directory --all writes into (created if missing).
    #[arg(long, requires = "all")]
    pub out_dir: Option<PathBuf>,
    /// Write through a symbolic link at the output to the file it points to (the link stays).
    #[arg(long)]
    pub follow_symlinks: bool,
}

fn write(path: &Path, svg: &str, opts: WriteOptions) -> Result<()> {
    write_atomic_with(path, opts, |w| w.write_all(svg.as_bytes()))
}

/// Run the command.
///
/// # Errors
/// An unknown or missing name ([`Error::InvalidParameter`]); an output that cannot be
/// written ([`Error::Io`], nothing written).
pub fn run(a: &Args) -> Result<()> {
    let opts = WriteOptions {
        private: false,
        follow_symlinks: a.follow_symlinks,
    };
    if a.list {
        for (name, what) in DIAGRAMS {
            outln!("{name:<12} {what}")?;
        }
        return Ok(());
    }
    if let (true, Some(dir)) = (a.all, &a.out_dir) {
        if dir.exists() && !dir.is_dir() {
            return Err(Error::Io {
                path: dir.display().to_string(),
                message: "is not a directory (--out-dir names the directory the diagrams go into)"
                    .to_string(),
            });
        }
        std::fs::create_dir_all(dir).map_err(|e| Error::Io {
            path: dir.display().to_string(),
            message: e.to_string(),
        })?;
        let paths: Vec<PathBuf> = diagram::names()
            .iter()
            .map(|n| dir.join(format!("{n}.svg")))
            .collect();
        for p in &paths {
            check_target(p, opts)?;
        }
        for (name, p) in diagram::names().iter().zip(&paths) {
            write(p, &diagram::render(name)?, opts)?;
            outln!("wrote {}", p.display())?;
        }
        return Ok(());
    }
    let Some(name) = &a.name else {
        return Err(Error::invalid(
            Param::Other("diagram"),
            "(none given)",
            format!(
                "a name: one of {} (or --list, or --all --out-dir DIR)",
                diagram::names().join(", ")
            ),
        ));
    };
    match &a.out {
        Some(out) => {
            check_target(out, opts)?;
            let svg = diagram::render(name)?;
            write(out, &svg, opts)?;
            outln!("wrote {}", out.display())
        }
        None => super::out::out!("{}", diagram::render(name)?),
    }
}
