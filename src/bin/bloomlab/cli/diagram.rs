//! `bloomlab diagram`: an SVG of a real filter's structure ([`bloomlab::diagram`]), written
//! atomically into a regular file like every other output ([`super::out_path`]).

use super::out::outln;
use super::out_path::{self, Format, Rules};
use bloomlab::diagram::{self, DIAGRAMS};
use bloomlab::{Error, Param, Result};
use std::path::PathBuf;

/// Draw a filter's structure as SVG, from a real filter built by the library.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Diagrams: standard, blocked, split-block, counting, cuckoo, scalable, xor, \
binary-fuse, quotient, ribbon (--list says what each shows).\nExamples:\n  bloomlab diagram cuckoo --out cuckoo.svg\n  \
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

/// Run the command.
///
/// # Errors
/// An unknown or missing name ([`Error::InvalidParameter`]); an output that cannot be
/// written ([`Error::Io`], nothing written).
pub fn run(a: &Args) -> Result<()> {
    if a.list {
        for (name, what) in DIAGRAMS {
            outln!("{name:<12} {what}")?;
        }
        return Ok(());
    }
    if let (true, Some(dir)) = (a.all, &a.out_dir) {
        out_path::check_dir(dir)?;
        let outs = diagram::names()
            .iter()
            .map(|n| {
                let p = dir.join(format!("{n}.svg"));
                out_path::check_with(&p, Rules::in_dir(&p, &[], a.follow_symlinks))
            })
            .collect::<Result<Vec<_>>>()?;
        for (name, out) in diagram::names().iter().zip(&outs) {
            let svg = diagram::render(name)?;
            out.write(|w| w.write_all(svg.as_bytes()))?;
            outln!("wrote {}", out.path().display())?;
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
            let out = out_path::check(out, Format::Text, &[], a.follow_symlinks)?;
            let svg = diagram::render(name)?;
            out.write(|w| w.write_all(svg.as_bytes()))?;
            outln!("wrote {}", out.path().display())
        }
        None => super::out::out!("{}", diagram::render(name)?),
    }
}
