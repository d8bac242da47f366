//! Experiments: one TOML file per question (`experiments/*.toml`), run into a CSV table and a
//! chart (SVG + PNG).
//!
//! A spec names the question, the filters (crossed with lists of hashes, strategies and key
//! kinds), the variable swept and its values, trials, queries, the seed, and how to plot the
//! table. `runner` picks the Rust code that interprets it:
//!
//! | runner | what one point is | sweep variables |
//! |---|---|---|
//! | `sweep` | [`crate::measure::measure`] on fresh filters (as `bloomlab measure`) | `n`, `m`, `k`, `bits-per-key`, `p`, `fill`, `inserted` |
//! | `fill` | one filter per trial filled step by step, queried at each checkpoint | `fill`, `inserted`, `load` |
//! | `memory` | heap bytes (counting allocator) of a filter or a `HashSet` holding n keys | `n` |
//! | `hash-quality` | FPR and χ² uniformity of bit positions, per hash × strategy × keys | — |
//! | `remove-fp` | false negatives after removing r false positives | `removals` |
//! | `scenarios` | each `[[scenarios]]` (n, p, keys) × each filter, measured | — |
//! | `estimators` | count / union / intersection estimates of two filters against the truth | `fill` |
//! | `choose` | each `[[workloads]]` as `bloomlab choose`: candidates measured, ranked by expected cost | — |
//! | `literature` | each `[[points]]`: a published number reproduced, with its z-score and verdict | — |
//!
//! Errors in a spec name the file, the line, the column and the field
//! (`experiments/x.toml:12:7: sweep.var: unknown variant ...`), from the TOML parser's spans; a
//! spec is checked completely before anything runs. The format is documented, with an annotated example, in
//! `experiments/README.md`.

mod chart;
pub mod curves;
mod entry;
pub mod published;

pub mod runners;
mod source;
mod spec;
pub mod table;
mod validate;

/// The runners under their former path (`experiment::runner::hashset_buckets`).
pub use runners as runner;
pub use spec::{
    Baseline, CurveName, CurveSpec, ExperimentSpec, FilterEntry, FilterValue, LineSpec, LineStyle,
    PanelSpec, Params, PlotSpec, Quick, Range, RunnerKind, Scenario, SeriesDef, Sweep, SweepVar,
    TheoryName, Workload,
};
pub use table::{Cell, Table};

use crate::error::{Error, Result};
use crate::fsutil::{WriteOptions, write_atomic_with};
use crate::hash::{HashId, StrategyId};
use crate::plot::Format;
use crate::spec::FilterSpec;
use std::path::{Path, PathBuf};

/// A loaded, validated experiment.
#[derive(Debug, Clone, PartialEq)]
pub struct Experiment {
    /// The file it came from (as given).
    pub file: String,
    /// The spec.
    pub spec: ExperimentSpec,
    /// Whether `--quick` overrides were applied.
    pub quick: bool,
    src: String,
}

impl Experiment {
    /// Read and validate a spec file.
    ///
    /// # Errors
    /// [`Error::Io`] if it cannot be read; [`Error::Spec`] naming line and field otherwise.
    pub fn load(path: &Path) -> Result<Self> {
        let src = std::fs::read_to_string(path).map_err(|e| Error::opening(path.display(), &e))?;
        Self::parse(&path.display().to_string(), &src)
    }

    /// Parse and validate spec text; `file` is used in error messages.
    ///
    /// ```
    /// use bloomlab::experiment::Experiment;
    /// let err = Experiment::parse("x.toml", "name = \"x\"\nquestion = \"?\"\ntrials = \"many\"\n")
    ///     .unwrap_err()
    ///     .to_string();
    /// assert!(err.starts_with("x.toml:3:10: trials:"), "{err}");
    /// ```
    ///
    /// # Errors
    /// [`Error::Spec`] naming line, column and field: a value of the wrong type or out of range,
    /// and anything a run would refuse (every point of the sweep is checked, in `--quick` form
    /// too), so a run that starts does not stop on its spec.
    pub fn parse(file: &str, src: &str) -> Result<Self> {
        let spec: ExperimentSpec = toml::from_str(src).map_err(|e| {
            // The parser's span of the offending key or value; a span over the whole document
            // (up to trailing blank lines: a missing top-level field or table) is reported at
            // 1:1, under the missing field's name (not the first key's).
            let missing = e
                .message()
                .trim()
                .strip_prefix("missing field `")
                .and_then(|r| r.split('`').next());
            // A missing field's span is its table: a `[header]`, else the top level.
            let whole = |s: &std::ops::Range<usize>| {
                (s.start == 0 && s.end >= src.trim_end().len())
                    || (missing.is_some()
                        && !src.get(s.start..).is_some_and(|t| t.starts_with('[')))
            };
            let at = e.span().filter(|s| !whole(s)).map(|s| s.start);
            let path = at
                .map(|at| source::Doc::parse(src).path_at(at))
                .filter(|f| !f.is_empty());
            let field = match (path, missing) {
                // A table without one of its fields: the span is the table.
                (Some(p), Some(m)) if !p.ends_with(m) => format!("{p}.{m}"),
                (Some(p), _) => p,
                (None, Some(m)) => m.to_string(),
                (None, None) => "(top level)".into(),
            };
            let pos = source::pos_of(src, at.unwrap_or(0));
            Error::Spec {
                file: file.to_string(),
                line: pos.line,
                column: pos.column,
                field,
                message: e.message().trim().to_string(),
            }
        })?;
        let exp = Self {
            file: file.to_string(),
            spec,
            quick: false,
            src: src.to_string(),
        };
        exp.validate()?;
        Ok(exp)
    }

    /// The experiment with its `[quick]` overrides applied (itself when there are none).
    #[must_use]
    pub fn quick(&self) -> Self {
        let mut e = self.clone();
        e.quick = true;
        let Some(q) = self.spec.quick.clone() else {
            return e;
        };
        let s = &mut e.spec;
        if let Some(t) = q.trials {
            s.trials = t;
        }
        if let Some(qn) = q.queries {
            s.queries = qn;
        }
        if let Some(p) = &q.params {
            s.params.overlay(p);
        }
        let scale = q.n_scale.unwrap_or(1.0);
        let shrink = |n: u64| ((n as f64 * scale).round() as u64).max(1);
        if scale != 1.0 {
            for f in &mut s.filters {
                let v = f.get_mut();
                v.n = v.n.map(shrink);
                v.m = v.m.map(shrink);
            }
            for sc in &mut s.scenarios {
                let v = sc.get_mut();
                v.n = shrink(v.n);
            }
            for w in &mut s.workloads {
                let v = w.get_mut();
                v.n = shrink(v.n);
            }
        }
        match (q.sweep, &mut s.sweep) {
            (Some(new), Some(old)) => *old.get_mut() = new,
            (None, Some(old)) if scale != 1.0 && old.get_ref().var.is_size() => {
                let sw = old.get_mut();
                // Whole numbers again (n and inserted are counts), as validation wants them.
                let vals: Vec<f64> = sw
                    .values()
                    .iter()
                    .map(|v| (v * scale).round().max(1.0))
                    .collect();
                sw.values = Some(vals);
                sw.range = None;
            }
            _ => {}
        }
        e
    }

    /// Why `--quick` skips this experiment, if it does.
    #[must_use]
    pub fn quick_skip(&self) -> Option<&str> {
        self.spec.quick.as_ref().and_then(|q| q.skip.as_deref())
    }

    /// The sweep values (empty for runners without a sweep).
    #[must_use]
    pub fn sweep_values(&self) -> Vec<f64> {
        self.spec
            .sweep
            .as_ref()
            .map(|s| s.get_ref().values())
            .unwrap_or_default()
    }

    /// The swept variable.
    #[must_use]
    pub fn sweep_var(&self) -> Option<SweepVar> {
        self.spec.sweep.as_ref().map(|s| s.get_ref().var)
    }

    /// The series: each filter entry × hashes × strategies × key kinds, labelled.
    #[must_use]
    pub fn series(&self) -> Vec<SeriesDef> {
        let s = &self.spec;
        let mut out = Vec::new();
        for (i, f) in s.filters.iter().enumerate() {
            let e = f.get_ref();
            let hashes: Vec<Option<HashId>> = match (e.hash, s.hashes.is_empty()) {
                (Some(h), _) => vec![Some(h)],
                (None, true) => vec![None],
                (None, false) => s.hashes.iter().copied().map(Some).collect(),
            };
            let strategies: Vec<Option<StrategyId>> = match (e.strategy, s.strategies.is_empty()) {
                (Some(x), _) => vec![Some(x)],
                (None, true) => vec![None],
                (None, false) => s.strategies.iter().copied().map(Some).collect(),
            };
            for h in &hashes {
                for st in &strategies {
                    for &keys in &s.keys {
                        let mut spec = FilterSpec {
                            kind: e.kind,
                            ..FilterSpec::default()
                        };
                        if let Some(h) = h {
                            spec.hash = *h;
                        }
                        if let Some(st) = st {
                            spec.strategy = *st;
                        }
                        e.apply_to(&mut spec);
                        out.push(SeriesDef {
                            label: e.label.clone().unwrap_or_default(),
                            entry: i,
                            spec,
                            keys,
                            bits_per_key: e.bits_per_key,
                        });
                    }
                }
            }
        }
        label_series(&mut out);
        out
    }

    /// Where the output files of this experiment go in `dir`.
    #[must_use]
    pub fn outputs(&self, dir: &Path) -> Outputs {
        let base = dir.join(&self.spec.name);
        Outputs {
            csv: base.with_extension("csv"),
            svg: base.with_extension("svg"),
            png: base.with_extension("png"),
            md: matches!(
                self.spec.runner,
                RunnerKind::Scenarios | RunnerKind::Choose | RunnerKind::Literature
            )
            .then(|| base.with_extension("md")),
        }
    }

    /// Run the experiment and write its CSV, SVG and PNG (and a markdown table for scenarios)
    /// into `dir`.
    ///
    /// # Errors
    /// Run errors (with the series and point named), I/O errors, plot columns that the table
    /// does not have ([`Error::Spec`]).
    pub fn run(&self, dir: &Path, progress: &dyn Progress) -> Result<RunReport> {
        self.run_with(dir, progress, WriteOptions::default())
    }

    /// [`Experiment::run`], writing every file with `write` (atomically into a regular file,
    /// see [`crate::fsutil`]; `write.follow_symlinks` to write through links).
    ///
    /// # Errors
    /// As [`Experiment::run`].
    pub fn run_with(
        &self,
        dir: &Path,
        progress: &dyn Progress,
        write: WriteOptions,
    ) -> Result<RunReport> {
        let out = runner::run(self, progress)?;
        if out.table.rows.iter().all(|r| {
            let i = out.table.col("row_type");
            i.is_none_or(|i| r[i].text() != "measured")
        }) {
            // Nothing measured (every series skipped): say so.
            return Err(Error::invalid(
                crate::error::Param::Other("experiment"),
                &self.spec.name,
                "at least one series that can run",
            ));
        }
        let chart = chart::build(self, &out.table)?;
        std::fs::create_dir_all(dir).map_err(|e| Error::Io {
            path: dir.display().to_string(),
            message: e.to_string(),
        })?;
        let files = self.outputs(dir);
        out.table.write_csv_with(&files.csv, write)?;
        chart.save_svg_with(&files.svg, write)?;
        chart.save_png_with(&files.png, write)?;
        if let (Some(md), Some(text)) = (&files.md, &out.markdown) {
            write_atomic_with(md, write, |w| w.write_all(text.as_bytes()))?;
        }
        Ok(RunReport {
            files,
            rows: out.table.rows.len(),
            skipped: out.skipped,
            summary: out.summary,
            failures: out.failures,
        })
    }
}

impl Experiment {
    /// Redraw the chart (SVG and PNG) from the CSV an earlier run left in `dir`, without
    /// measuring anything: for changing a plot of a long experiment.
    ///
    /// # Errors
    /// The CSV cannot be read; plot columns it does not have ([`Error::Spec`]).
    pub fn replot(&self, dir: &Path) -> Result<Outputs> {
        self.replot_with(dir, WriteOptions::default())
    }

    /// [`Experiment::replot`], writing with `write` (see [`Experiment::run_with`]).
    ///
    /// # Errors
    /// As [`Experiment::replot`].
    pub fn replot_with(&self, dir: &Path, write: WriteOptions) -> Result<Outputs> {
        let files = self.outputs(dir);
        let table = Table::read_csv(&files.csv)?;
        let chart = chart::build(self, &table)?;
        chart.save_svg_with(&files.svg, write)?;
        chart.save_png_with(&files.png, write)?;
        Ok(files)
    }
}

/// Output paths of one experiment.
#[derive(Debug, Clone, PartialEq)]
pub struct Outputs {
    /// The table.
    pub csv: PathBuf,
    /// The chart as SVG.
    pub svg: PathBuf,
    /// The chart as PNG.
    pub png: PathBuf,
    /// A markdown table (scenarios).
    pub md: Option<PathBuf>,
}

/// What a run produced.
#[derive(Debug, Clone, PartialEq)]
pub struct RunReport {
    /// Files written.
    pub files: Outputs,
    /// Rows in the CSV.
    pub rows: usize,
    /// Series that were skipped, with the reason.
    pub skipped: Vec<(String, String)>,
    /// Lines summarising the result.
    pub summary: Vec<String>,
    /// Checks the run made that failed (the literature runner: a published number bloomlab no
    /// longer reproduces). The files are written; the command exits with status 4.
    pub failures: Vec<String>,
}

/// Progress reporting (the CLI shows a bar with ETA; the library calls these).
pub trait Progress: Sync {
    /// A new phase with `total` units of work.
    fn begin(&self, total: u64);
    /// `delta` units done.
    fn advance(&self, delta: u64);
    /// A short status (the series being run).
    fn status(&self, msg: &str);
    /// A warning to show the user.
    fn warn(&self, msg: &str);
}

/// No progress output (warnings go to standard error).
#[derive(Debug, Clone, Copy, Default)]
pub struct NoProgress;

impl Progress for NoProgress {
    fn begin(&self, _: u64) {}
    fn advance(&self, _: u64) {}
    fn status(&self, _: &str) {}
    fn warn(&self, msg: &str) {
        // Never a panic on a closed or full standard error: the warning is dropped then.
        use std::io::Write;
        let _ = writeln!(std::io::stderr().lock(), "warning: {msg}");
    }
}

/// Percent text for labels: 0.01 → "1%", 0.0001 → "0.01%".
#[must_use]
pub fn pct_label(p: f64) -> String {
    crate::plot::format_value(p, Format::Percent)
}

/// Give every series a label: its own, or one built from what differs between series.
fn label_series(series: &mut [SeriesDef]) {
    let attrs = |s: &SeriesDef| -> Vec<(&'static str, String)> {
        let spec = &s.spec;
        vec![
            ("kind", spec.kind.name().to_string()),
            ("hash", spec.hash.name().to_string()),
            ("strategy", spec.strategy.name().to_string()),
            ("keys", format!("{} keys", s.keys.name())),
            (
                "p",
                spec.p
                    .map(|p| format!("p={}", pct_label(p)))
                    .unwrap_or_default(),
            ),
            (
                "m/n",
                s.bits_per_key
                    .map(|b| format!("m/n={}", crate::plot::format_value(b, Format::Auto)))
                    .unwrap_or_default(),
            ),
            (
                "n",
                format!(
                    "n={}",
                    crate::plot::format_value(spec.n as f64, Format::Auto)
                ),
            ),
            ("f", format!("f={}", spec.fingerprint_bits)),
            ("arity", format!("{}-wise", spec.arity.max(3))),
            ("s", format!("s={}", spec.growth)),
            ("r", format!("r={}", spec.tightening)),
        ]
    };
    let all: Vec<Vec<(&'static str, String)>> = series.iter().map(attrs).collect();
    for (i, s) in series.iter_mut().enumerate() {
        if !s.label.is_empty() {
            continue;
        }
        let mut parts = Vec::new();
        for (j, (name, value)) in all[i].iter().enumerate() {
            let varies = all.iter().any(|a| a[j].1 != *value);
            let kind_specific = match *name {
                "f" => s.spec.kind.caps().fingerprints,
                "s" | "r" => s.spec.kind.caps().grows,
                "arity" => !s.spec.kind.caps().arities.is_empty(),
                "hash" | "strategy" => true,
                _ => true,
            };
            if (*name == "kind" || varies) && kind_specific && !value.is_empty() {
                parts.push(value.clone());
            }
        }
        s.label = parts.join(" ");
    }
}

#[cfg(test)]
mod tests;
