//! `bloomlab run`: run experiment specs (`experiments/*.toml`) into `results/<name>.csv`,
//! `.svg` and `.png`, with a progress bar and ETA per experiment.

use super::out::{errln, outln};
use bloomlab::experiment::{Experiment, Progress};
use bloomlab::persist::WriteOptions;
use bloomlab::{Error, Param, Result};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

/// Run experiment specs (TOML) and write CSV, SVG and PNG for each.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Experiment spec files (TOML), e.g. experiments/fpr-vs-fill.toml.
    #[arg(required_unless_present = "all")]
    pub specs: Vec<PathBuf>,
    /// Run every *.toml in the experiments directory (see --dir).
    #[arg(long, conflicts_with = "specs")]
    pub all: bool,
    /// Shrink every sweep (fewer points, trials, queries, smaller n) as each spec's [quick] says: for CI.
    #[arg(long)]
    pub quick: bool,
    /// Directory for the CSV, SVG and PNG files.
    #[arg(long, default_value = "results")]
    pub out: PathBuf,
    /// Directory that --all reads.
    #[arg(long, default_value = "experiments")]
    pub dir: PathBuf,
    /// Only redraw the charts from the CSVs already in --out (after editing a spec's [plot]).
    #[arg(long, conflicts_with = "quick")]
    pub replot: bool,
    /// Write through symbolic links in --out to the files they point to (otherwise refused).
    #[arg(long)]
    pub follow_symlinks: bool,
}

/// A progress bar on standard error (hidden when it is not a terminal).
struct Bar(ProgressBar);

impl Progress for Bar {
    fn begin(&self, total: u64) {
        self.0.set_length(total.max(1));
        self.0.set_position(0);
        self.0.reset_eta();
    }
    fn advance(&self, delta: u64) {
        self.0.inc(delta);
    }
    fn status(&self, msg: &str) {
        self.0.set_message(msg.to_string());
    }
    fn warn(&self, msg: &str) {
        self.0.suspend(|| errln!("warning: {msg}"));
    }
}

fn io(path: &std::path::Path, e: std::io::Error) -> Error {
    Error::Io {
        path: path.display().to_string(),
        message: e.to_string(),
    }
}

/// Run the command: exit status 0 when every experiment ran. Each error is printed once: a spec
/// that does not parse (then nothing runs), or each experiment that failed (the others still
/// run; the last line names the failed ones); the status is then the highest of their errors'
/// (2 bad input, 3 a runtime failure: see `bloomlab --help`), and 4 when an experiment ran and
/// found a failed check (the literature runner: a published number bloomlab no longer
/// reproduces; the files are written).
pub fn run(args: &Args) -> ExitCode {
    let mut failed = 0;
    let code = super::out::finish_status(run_all(args).map(|f| failed = f));
    ExitCode::from(code.max(failed))
}

/// Run everything; `Ok(status)` with the highest exit status of the experiments that failed
/// (their errors already printed) or 4 for a failed check, 0 when none did.
///
/// # Errors
/// A spec that does not parse, duplicate names, a failed replot: before or instead of runs.
pub fn run_all(args: &Args) -> Result<u8> {
    let paths: Vec<PathBuf> = if args.all {
        let mut v: Vec<PathBuf> = std::fs::read_dir(&args.dir)
            .map_err(|e| {
                if e.kind() == std::io::ErrorKind::NotFound {
                    Error::invalid(
                        Param::Other("dir"),
                        args.dir.display(),
                        "a directory of experiment specs: run --all from the project root \
                         (where experiments/ is) or give --dir",
                    )
                } else {
                    io(&args.dir, e)
                }
            })?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "toml"))
            .collect();
        v.sort();
        if v.is_empty() {
            return Err(Error::Io {
                path: args.dir.display().to_string(),
                message: "no *.toml experiment specs here".into(),
            });
        }
        v
    } else {
        args.specs.clone()
    };
    // Parse everything first: a typo in the last spec should not surface after an hour of runs.
    let mut exps = Vec::new();
    for p in &paths {
        exps.push(Experiment::load(p)?);
    }
    let mut names = std::collections::HashSet::new();
    for e in &exps {
        if !names.insert(e.spec.name.clone()) {
            return Err(e_dup(e));
        }
    }
    let write = WriteOptions {
        private: false,
        follow_symlinks: args.follow_symlinks,
    };
    // Outputs are checked before the first run ([`super::out_path`]): one that is a spec would
    // destroy it; a link, device, FIFO, read-only file or a file of another format is refused.
    super::out_path::check_dir(&args.out)?;
    let specs: Vec<(&str, &std::path::Path)> =
        paths.iter().map(|p| ("spec", p.as_path())).collect();
    for e in &exps {
        let o = e.outputs(&args.out);
        for out in [Some(&o.csv), Some(&o.svg), Some(&o.png), o.md.as_ref()]
            .into_iter()
            .flatten()
        {
            super::out_path::check_with(
                out,
                super::out_path::Rules::in_dir(out, &specs, args.follow_symlinks),
            )?;
        }
    }
    let start = Instant::now();
    let mut failed = Vec::new();
    let mut status = 0;
    if args.replot {
        for exp in &exps {
            let files = exp.replot_with(&args.out, write)?;
            outln!(
                "{}: redrawn {}, {}",
                exp.spec.name,
                files.svg.display(),
                files.png.display()
            )?;
        }
        return Ok(0);
    }
    let mut checks_failed = Vec::new();
    for exp in &exps {
        let exp = if args.quick { exp.quick() } else { exp.clone() };
        if args.quick
            && let Some(why) = exp.quick_skip()
        {
            outln!("{}: skipped in --quick ({why})", exp.spec.name)?;
            continue;
        }
        let pb = ProgressBar::with_draw_target(
            Some(1),
            if std::io::stderr().is_terminal() {
                ProgressDrawTarget::stderr()
            } else {
                ProgressDrawTarget::hidden()
            },
        );
        pb.set_style(
            ProgressStyle::with_template(
                "{prefix:.bold} [{elapsed_precise}] [{bar:30}] {percent:>3}% eta {eta:<5} {wide_msg}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
        );
        pb.set_prefix(exp.spec.name.clone());
        let bar = Bar(pb);
        let t0 = Instant::now();
        match exp.run_with(&args.out, &bar, write) {
            Ok(rep) => {
                bar.0.finish_and_clear();
                outln!(
                    "{}: {} rows -> {}, {}, {} ({:.1}s)",
                    exp.spec.name,
                    rep.rows,
                    rep.files.csv.display(),
                    rep.files.svg.display(),
                    rep.files.png.display(),
                    t0.elapsed().as_secs_f64()
                )?;
                if let Some(md) = &rep.files.md {
                    outln!("  table: {}", md.display())?;
                }
                for (label, why) in &rep.skipped {
                    outln!("  skipped series '{label}': {why}")?;
                }
                for line in &rep.summary {
                    outln!("  {line}")?;
                }
                if !rep.failures.is_empty() {
                    for f in &rep.failures {
                        errln!("check failed: {}: {f}", exp.spec.name);
                    }
                    checks_failed.push(exp.spec.name.clone());
                }
            }
            Err(e) => {
                bar.0.abandon();
                errln!("error: {}: {e}", exp.spec.name);
                failed.push(exp.spec.name.clone());
                status = status.max(super::out::status(&e));
            }
        }
    }
    outln!(
        "{} experiment(s) in {:.1}s{}{}",
        exps.len(),
        start.elapsed().as_secs_f64(),
        if failed.is_empty() {
            String::new()
        } else {
            format!("; failed: {}", failed.join(", "))
        },
        if checks_failed.is_empty() {
            String::new()
        } else {
            format!("; checks failed: {}", checks_failed.join(", "))
        }
    )?;
    // A failed check (exit status 4) ranks with the experiments' own statuses: the highest wins.
    Ok(status.max(if checks_failed.is_empty() { 0 } else { 4 }))
}

fn e_dup(e: &Experiment) -> Error {
    Error::Spec {
        file: e.file.clone(),
        line: 1,
        column: 1,
        field: "name".into(),
        message: format!(
            "another spec is also named '{}' (names pick the output files)",
            e.spec.name
        ),
    }
}
