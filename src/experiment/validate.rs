//! Checking a spec: every value, and every filter a run would build, before anything runs.
//! Errors name file, line, column and field, located by the TOML parser's spans
//! ([`super::source`]).

use super::Experiment;
use super::runners::{self, Planned};
use super::source::{Doc, pos_of};
use super::spec::{FilterEntry, RunnerKind, Sweep, SweepVar, TheoryName};
use crate::error::{Error, Param, Result};
use crate::filter::Sizing;
use crate::plot::Scale;
use crate::spec::FilterSpec;
use crate::theory;
use crate::workload::KeyGen;
use std::ops::Range;
use toml::Spanned;

/// Largest count (n, m, inserted keys, removals) a sweep value may name: 2⁶³, so it converts to
/// `u64` without saturating.
const MAX_COUNT: f64 = 9_223_372_036_854_775_808.0;

/// `filters[1].p` → `filters[1]` → `filters` → `` (the enclosing tables).
fn parent(path: &str) -> Option<&str> {
    if path.is_empty() {
        return None;
    }
    Some(match (path.rfind('.'), path.rfind('[')) {
        (Some(d), Some(b)) => &path[..d.max(b)],
        (Some(i), None) | (None, Some(i)) => &path[..i],
        (None, None) => "",
    })
}

/// The most points a sweep range may have (a chart of more shows nothing more).
pub const MAX_POINTS: u32 = 10_000;

/// The "valid" part of an [`Error::InvalidParameter`], for a spec error's message.
fn bloomlab_valid(e: &Error) -> String {
    match e {
        Error::InvalidParameter { valid, .. } => valid.clone(),
        other => other.to_string(),
    }
}

impl Experiment {
    /// An error about the value at `path` (`filters[1].p`): located at that value, else at the
    /// nearest enclosing table the source has. In the `--quick` form, the `[quick]` section's
    /// copy of the value is preferred when it has one (that is where the value came from).
    pub(crate) fn err_at(&self, path: &str, message: impl Into<String>) -> Error {
        let doc = Doc::parse(&self.src);
        let quick = self
            .quick
            .then(|| doc.span(&format!("quick.{path}")))
            .flatten();
        if let Some(s) = quick {
            return self.err_range(s, &format!("quick.{path}"), message);
        }
        let span = quick.or_else(|| {
            let mut p = Some(path);
            while let Some(q) = p {
                if let Some(s) = doc.span(q) {
                    return Some(s);
                }
                p = parent(q);
            }
            None
        });
        self.err_range(span.unwrap_or(0..0), path, message)
    }

    /// An error about a spanned part of the spec (a whole `[[filters]]` entry, the `[sweep]`).
    pub(crate) fn err_span<T>(
        &self,
        s: &Spanned<T>,
        field: &str,
        message: impl Into<String>,
    ) -> Error {
        self.err_range(s.span(), field, message)
    }

    fn err_range(&self, span: Range<usize>, field: &str, message: impl Into<String>) -> Error {
        let pos = pos_of(&self.src, span.start);
        Error::Spec {
            file: self.file.clone(),
            line: pos.line,
            column: pos.column,
            field: if field.is_empty() {
                "(top level)".into()
            } else {
                field.to_string()
            },
            message: message.into(),
        }
    }

    /// Everything: the spec's values, then every filter each point would build (sizes, key
    /// counts), as given and in the `--quick` form (unless `--quick` skips the experiment).
    pub(super) fn validate(&self) -> Result<()> {
        self.check_spec()?;
        self.check_points()?;
        if !self.quick && self.spec.quick.is_some() && self.quick_skip().is_none() {
            let q = self.quick();
            q.check_spec()?;
            q.check_points()?;
        }
        Ok(())
    }

    /// The checks on the spec's own values.
    fn check_spec(&self) -> Result<()> {
        let s = &self.spec;
        if s.name.is_empty()
            || !s
                .name
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        {
            return Err(self.err_at(
                "name",
                "use lowercase letters, digits and '-' (it names the output files)",
            ));
        }
        if s.trials == 0 || s.trials > 10_000_000 {
            return Err(self.err_at("trials", "an integer from 1 to 10000000"));
        }
        if s.queries == 0 && s.runner != RunnerKind::Memory {
            return Err(self.err_at("queries", "an integer >= 1"));
        }
        if s.queries > crate::measure::MAX_QUERIES {
            return Err(self.err_at("queries", "an integer from 1 to 10^10"));
        }
        if s.queries
            .checked_mul(u64::from(s.trials))
            .is_none_or(|w| w > crate::measure::MAX_WORK)
        {
            return Err(self.err_at("queries", "trials × queries at most 10^11"));
        }
        if s.keys.is_empty() {
            return Err(self.err_at("keys", "at least one key kind"));
        }
        if let Some(q) = &s.quick {
            if q.trials == Some(0) {
                return Err(self.err_at("quick.trials", "an integer >= 1"));
            }
            if q.queries == Some(0) {
                return Err(self.err_at("quick.queries", "an integer >= 1"));
            }
            if let Some(f) = q.n_scale
                && !(f > 0.0 && f <= 1.0)
            {
                return Err(self.err_at("quick.n_scale", "a factor in (0, 1]"));
            }
            if let Some(sw) = &q.sweep {
                self.check_sweep(sw, "quick.sweep")?;
            }
        }
        let vars = s.runner.vars();
        match (&s.sweep, vars.is_empty()) {
            (Some(sw), true) => {
                return Err(self.err_span(
                    sw,
                    "sweep",
                    format!("the {} runner takes no sweep", s.runner.name()),
                ));
            }
            (None, false) => {
                return Err(self.err_at(
                    "runner",
                    format!(
                        "the {} runner needs a [sweep] over one of: {}",
                        s.runner.name(),
                        vars.iter().map(|v| v.name()).collect::<Vec<_>>().join(", ")
                    ),
                ));
            }
            (Some(sw), false) => self.check_sweep(sw.get_ref(), "sweep")?,
            (None, true) => {}
        }
        let baselines_only = s.runner == RunnerKind::Memory && !s.baselines.is_empty();
        if s.runner == RunnerKind::Choose {
            // The candidates come from the constraints, not from [[filters]].
            if !s.filters.is_empty() {
                return Err(self.err_at(
                    "filters",
                    "the choose runner picks its own candidates: give [[workloads]] instead",
                ));
            }
            if s.workloads.is_empty() {
                return Err(self.err_at("workloads", "give at least one [[workloads]] entry"));
            }
            for (i, w) in s.workloads.iter().enumerate() {
                if let Err(e) = runners::choose::constraints(w.get_ref(), false)
                    .and_then(|c| crate::choose::candidates(&c).map(|_| ()))
                {
                    return Err(self.err_span(w, &format!("workloads[{i}]"), e.to_string()));
                }
            }
        } else if !s.workloads.is_empty() {
            return Err(self.err_at("workloads", "only the choose runner uses workloads"));
        } else if s.runner == RunnerKind::Literature {
            self.check_literature()?;
        } else if !s.points.is_empty() || s.literature.is_some() {
            return Err(self.err_at("points", "only the literature runner uses points"));
        } else if s.filters.is_empty() && !baselines_only {
            return Err(self.err_at("filters", "give at least one [[filters]] entry"));
        }
        if !s.baselines.is_empty() && s.runner != RunnerKind::Memory {
            return Err(self.err_at("baselines", "only the memory runner uses baselines"));
        }
        if s.runner == RunnerKind::Scenarios && s.scenarios.is_empty() {
            return Err(self.err_at("scenarios", "give at least one [[scenarios]] entry"));
        }
        for (i, f) in s.filters.iter().enumerate() {
            self.check_entry(i, f)?;
        }
        for (i, sc) in s.scenarios.iter().enumerate() {
            let v = sc.get_ref();
            if v.n == 0 || !(v.p > 0.0 && v.p < 1.0) {
                return Err(self.err_span(
                    sc,
                    &format!("scenarios[{i}]"),
                    "n must be >= 1 and p strictly between 0 and 1",
                ));
            }
        }
        for t in &s.theory {
            let ok = match t {
                TheoryName::CountersAtLeast15 | TheoryName::FanBound15 => {
                    s.runner == RunnerKind::Fill
                }
                TheoryName::ClassicReachable => {
                    matches!(s.runner, RunnerKind::HashQuality | RunnerKind::Fill)
                }
                TheoryName::FalseNegativesAfterRemovals => s.runner == RunnerKind::RemoveFp,
            };
            if !ok {
                return Err(self.err_at(
                    "theory",
                    format!(
                        "'{}' is not computed by the {} runner",
                        t.column(),
                        s.runner.name()
                    ),
                ));
            }
        }
        if !s.details.is_empty() && s.runner != RunnerKind::Fill {
            return Err(self.err_at("details", "only the fill runner records details"));
        }
        for (i, c) in s.curves.iter().enumerate() {
            if !(c.range.from > 0.0 && c.range.to < 1.0 && c.range.from < c.range.to) {
                return Err(self.err_at(
                    &format!("curves[{i}].range"),
                    "ε from/to strictly between 0 and 1, from < to",
                ));
            }
        }
        if s.plot.panels.is_empty() {
            return Err(self.err_at("plot.panels", "at least one [[plot.panels]]"));
        }
        Ok(())
    }

    /// The literature runner: its `[literature]` table and every point's filter, as building
    /// it would check it.
    fn check_literature(&self) -> Result<()> {
        use super::published::{Expect, Quantity};
        let s = &self.spec;
        if !s.filters.is_empty() {
            return Err(self.err_at("filters", "the literature runner builds its [[points]]"));
        }
        let Some(lit) = &s.literature else {
            return Err(self.err_at("runner", "give a [literature] table (z_max, guava_vectors)"));
        };
        if !(lit.z_max > 0.0 && lit.z_max.is_finite()) {
            return Err(self.err_at("literature.z_max", "a positive number"));
        }
        if s.points.is_empty() {
            return Err(self.err_at("points", "give at least one [[points]] entry"));
        }
        for (i, sp) in s.points.iter().enumerate() {
            let p = sp.get_ref();
            let table = format!("points[{i}]");
            let guava = matches!(
                p.quantity,
                Quantity::GuavaFalsePositives | Quantity::GuavaSizing
            );
            let needs_number = !(guava && p.published == "vector");
            if needs_number && runners::parse_published(&p.published).is_none() {
                return Err(self.err_at(&format!("{table}.published"), "a figure with a number"));
            }
            if guava != p.guava.is_some() {
                return Err(self.err_at(
                    &table,
                    "guava = { strategy, n, p } exactly for the guava-* quantities",
                ));
            }
            if (p.quantity == Quantity::None) != (p.expect == Expect::CannotConfigure) {
                return Err(self.err_at(
                    &format!("{table}.quantity"),
                    "quantity = \"none\" exactly for expect = \"cannot-configure\" rows",
                ));
            }
            if p.bits_resolution.is_some()
                && p.filter.as_ref().map(|f| f.kind) != Some(crate::filter::FilterKind::SplitBlock)
            {
                return Err(self.err_at(
                    &format!("{table}.bits_resolution"),
                    "only for split-block points (the slack comes from the split-block model)",
                ));
            }
            if p.tolerance.is_some() != p.tolerance_why.is_some() {
                return Err(self.err_at(&table, "a tolerance needs its tolerance_why"));
            }
            let cfg = runners::literature_config(self, p)
                .map_err(|e| self.err_span(sp, &table, bloomlab_valid(&e)))?;
            if let Some(c) = cfg
                && let Err((e, field)) = check_point(&c.spec, c.inserted.unwrap_or(c.spec.n))
            {
                return Err(self.err_at(&format!("{table}.filter.{field}"), e.to_string()));
            }
        }
        Ok(())
    }

    fn check_sweep(&self, sw: &Sweep, table: &str) -> Result<()> {
        let runner = self.spec.runner;
        if !runner.vars().contains(&sw.var) {
            return Err(self.err_at(
                &format!("{table}.var"),
                format!(
                    "the {} runner sweeps one of: {}",
                    runner.name(),
                    runner
                        .vars()
                        .iter()
                        .map(|v| v.name())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ));
        }
        match (&sw.values, &sw.range) {
            (Some(_), Some(_)) | (None, None) => {
                return Err(self.err_at(
                    &format!("{table}.var"),
                    "give exactly one of `values = [...]` or `range = { from, to, points, scale }`",
                ));
            }
            (Some(v), None) if v.is_empty() => {
                return Err(self.err_at(&format!("{table}.values"), "at least one value"));
            }
            (None, Some(r)) => {
                if r.points > MAX_POINTS {
                    return Err(self.err_at(
                        &format!("{table}.range"),
                        format!("points from 1 to {MAX_POINTS}"),
                    ));
                }
                let bad = r.points == 0
                    || !r.from.is_finite()
                    || !r.to.is_finite()
                    || (r.scale == Scale::Log && (r.from <= 0.0 || r.to <= 0.0));
                if bad {
                    return Err(self.err_at(
                        &format!("{table}.range"),
                        "finite from/to (positive for a log scale) and points >= 1",
                    ));
                }
            }
            _ => {}
        }
        if sw.var.is_integer()
            && let Some(v) = sw
                .values
                .as_ref()
                .and_then(|v| v.iter().find(|x| x.fract() != 0.0))
        {
            // Only a range is rounded (its points fall where they fall); a listed value is meant.
            return Err(self.err_at(
                &format!("{table}.values"),
                format!("{v}: {} takes whole numbers", sw.var.name()),
            ));
        }
        for v in sw.values() {
            let ok = match sw.var {
                SweepVar::P => v > 0.0 && v < 1.0,
                SweepVar::K => (1.0..=f64::from(crate::theory::MAX_K)).contains(&v),
                SweepVar::Removals => (0.0..=MAX_COUNT).contains(&v),
                SweepVar::N | SweepVar::M | SweepVar::Inserted => (1.0..=MAX_COUNT).contains(&v),
                _ => v > 0.0 && v.is_finite(),
            };
            if !ok {
                let key = if sw.values.is_some() {
                    "values"
                } else {
                    "range"
                };
                return Err(self.err_at(
                    &format!("{table}.{key}"),
                    format!("{v} is not a valid value of {}", sw.var.name()),
                ));
            }
        }
        Ok(())
    }

    fn check_entry(&self, i: usize, f: &Spanned<FilterEntry>) -> Result<()> {
        let e = f.get_ref();
        let table = format!("filters[{i}]");
        let bad = |k: &str, msg: String| Err(self.err_at(&format!("{table}.{k}"), msg));
        let var = self.spec.sweep.as_ref().map(|s| s.get_ref().var);
        if let Some(p) = e.p
            && !(p > 0.0 && p < 1.0)
        {
            return bad("p", "strictly between 0 and 1".into());
        }
        if let Some(b) = e.bits_per_key
            && !(b > 0.0 && b.is_finite())
        {
            return bad("bits_per_key", "> 0".into());
        }
        if e.n == Some(0) {
            return bad("n", "an integer >= 1".into());
        }
        if let Some(seed) = e.seed {
            let hashes = e.hash.map_or(self.spec.hashes.clone(), |h| vec![h]);
            for h in hashes {
                if let Err(err) = crate::hash::AnyHasher::check_seed(h, seed) {
                    return bad("seed", bloomlab_valid(&err));
                }
            }
        }
        if e.m == Some(0) {
            return bad("m", "a bit count >= 1".into());
        }
        if let Some(k) = e.k
            && theory::check_k(k).is_err()
        {
            return bad("k", format!("an integer from 1 to {}", theory::MAX_K));
        }
        // Fields the kind has no use for would be ignored or refused at run time: refuse here.
        let unused = |k: &str| bad(k, format!("not used by a {} filter", e.kind));
        if e.kind.caps().sizing != Sizing::Bits {
            for (k, set) in [
                ("m", e.m.is_some()),
                ("k", e.k.is_some()),
                ("bits_per_key", e.bits_per_key.is_some()),
            ] {
                if set {
                    return unused(k);
                }
            }
        }
        if !e.kind.caps().fingerprints && e.fingerprint_bits.is_some() {
            return unused("fingerprint_bits");
        }
        if !e.kind.caps().grows {
            for (k, set) in [
                ("growth", e.growth.is_some()),
                ("tightening", e.tightening.is_some()),
                ("nonscaling", e.nonscaling.is_some()),
            ] {
                if set {
                    return unused(k);
                }
            }
        }
        if let Some(fb) = e.fingerprint_bits
            && let Err(err) = e.kind.caps().width.check(fb)
        {
            return bad("fingerprint_bits", err.to_string());
        }
        if let Some(g) = e.growth
            && let Err(err) = theory::scalable::check_growth(g)
        {
            return bad("growth", err.to_string());
        }
        if let Some(t) = e.tightening
            && let Err(err) = theory::scalable::check_tightening(t)
        {
            return bad("tightening", err.to_string());
        }
        let n_from_sweep = matches!(var, Some(SweepVar::N))
            || (matches!(var, Some(SweepVar::M)) && e.bits_per_key.is_some())
            || self.spec.runner == RunnerKind::Scenarios;
        if e.n.is_none() && !n_from_sweep {
            return Err(self.err_span(f, &table, "give n (the design capacity)"));
        }
        let sized = e.p.is_some()
            || e.m.is_some()
            || e.bits_per_key.is_some()
            || matches!(var, Some(SweepVar::P | SweepVar::M | SweepVar::BitsPerKey))
            || self.spec.runner == RunnerKind::Scenarios
            || (e.kind.caps().fingerprints && e.fingerprint_bits.is_some());
        if !sized {
            return Err(self.err_span(f, &table, "give p, m or bits_per_key"));
        }
        if e.m.is_some() && e.bits_per_key.is_some() {
            return bad("bits_per_key", "give m or bits_per_key, not both".into());
        }
        if var == Some(SweepVar::Load) && !e.kind.caps().fingerprints {
            return bad(
                "kind",
                format!(
                    "a load sweep counts slots of a cuckoo filter; {} has none",
                    e.kind
                ),
            );
        }
        if e.kind.caps().static_set {
            let runner = self.spec.runner;
            let fits = match runner {
                RunnerKind::Sweep => matches!(var, Some(SweepVar::N | SweepVar::P)),
                RunnerKind::Memory | RunnerKind::SpaceFpr => true,
                _ => false,
            };
            if !fits {
                let what = match (runner, var) {
                    (RunnerKind::Sweep, Some(v)) => format!("a sweep over {}", v.name()),
                    _ => format!("the {} runner", runner.name()),
                };
                return bad(
                    "kind",
                    format!(
                        "{} is static: it is built from its whole key set at its n (no inserts \
                         into an empty filter, no fill past n), which {what} needs; use the \
                         sweep runner over n or p, memory or space-fpr",
                        e.kind
                    ),
                );
            }
        }
        if e.arity.is_some() && e.kind.caps().arities.is_empty() {
            return bad(
                "arity",
                format!("not used by {}: only binary-fuse takes an arity", e.kind),
            );
        }
        if self.spec.runner == RunnerKind::RemoveFp && !e.kind.caps().removable {
            return bad(
                "kind",
                format!(
                    "the remove-fp runner needs a filter that supports remove, not {}",
                    e.kind
                ),
            );
        }
        Ok(())
    }

    /// Every filter the run would build, checked as building it would check it (without the
    /// memory), and every key count against what the key generator can produce.
    fn check_points(&self) -> Result<()> {
        for p in runners::plan(self) {
            let checked = p
                .spec
                .as_ref()
                .map_err(|e| (e.clone(), "m"))
                .and_then(|fs| {
                    if self.spec.runner == RunnerKind::Scenarios {
                        // A filter that cannot meet a scenario is a finding the run records.
                        KeyGen::check_n(p.inserted).map_err(|e| (e, "inserted"))
                    } else {
                        check_point(fs, p.inserted)
                    }
                });
            if let Err((e, field)) = checked {
                let at = match (p.x, self.sweep_var()) {
                    (Some(x), Some(v)) => format!(", {} = {x}", v.name()),
                    _ => String::new(),
                };
                return Err(self.err_at(
                    &self.blame(&p, field),
                    format!("{e} (series '{}'{at})", p.label),
                ));
            }
        }
        Ok(())
    }

    /// The spec path that set `field` of a planned filter: the sweep when its variable sets
    /// the field, else the scenario or the `[[filters]]` entry.
    fn blame(&self, p: &Planned, field: &str) -> String {
        let e = self.spec.filters[p.entry].get_ref();
        let swept = match (self.sweep_var(), field) {
            (Some(SweepVar::N), "n" | "inserted")
            | (Some(SweepVar::M), "m")
            | (Some(SweepVar::K), "k")
            | (Some(SweepVar::BitsPerKey), "m")
            | (Some(SweepVar::P), "p")
            | (Some(SweepVar::Fill | SweepVar::Inserted | SweepVar::Load), "inserted") => true,
            (Some(SweepVar::M), "n" | "inserted") => e.bits_per_key.is_some(),
            _ => false,
        };
        if swept && let Some(sw) = &self.spec.sweep {
            let key = if sw.get_ref().values.is_some() {
                "values"
            } else {
                "range"
            };
            return format!("sweep.{key}");
        }
        let field = match field {
            "inserted" => "n",
            "m" if e.m.is_none() && e.bits_per_key.is_some() => "bits_per_key",
            f => f,
        };
        match p.scenario {
            Some(j) if matches!(field, "n" | "p") => format!("scenarios[{j}].{field}"),
            _ => format!("filters[{}].{field}", p.entry),
        }
    }
}

/// The checks building `fs` would make, without allocating; `inserted` keys must be ones the
/// key generator can tell from the absent keys. The error comes with the field it is about.
fn check_point(fs: &FilterSpec, inserted: u64) -> std::result::Result<(), (Error, &'static str)> {
    KeyGen::check_n(fs.n).map_err(|e| (e, "n"))?;
    KeyGen::check_n(inserted).map_err(|e| (e, "inserted"))?;
    check_filter(fs).map_err(|e| {
        let field = match &e {
            Error::InvalidParameter { param, .. } => match param {
                Param::M => "m",
                Param::K => "k",
                Param::P => "p",
                Param::FingerprintBits => "fingerprint_bits",
                Param::Growth => "growth",
                Param::Tightening => "tightening",
                Param::Other("arity") => "arity",
                _ => "n",
            },
            _ => "n",
        };
        (e, field)
    })
}

/// [`FilterSpec::build`]'s parameter checks (sizing included), without the allocation.
fn check_filter(fs: &FilterSpec) -> Result<()> {
    theory::check_n(fs.n)?;
    if fs.kind.caps().static_set {
        // Built from its keys by the runners that take static kinds (see the entry checks):
        // the checks `FilterSpec::build_from` makes before reading a key.
        return crate::registry::AnyFilter::build_from(fs, std::iter::empty::<&[u8]>()).map(drop);
    }
    if let Some(p) = fs.p {
        theory::check_p(p)?;
    }
    if fs.kind.caps().sizing == Sizing::Bits {
        let s = fs.bloom_sizing()?;
        if let Some(k) = fs.kind.caps().fixed_k
            && fs.k.is_some_and(|given| given != k)
        {
            return Err(Error::invalid(
                Param::K,
                s.k,
                format!("{k} (the only k a {} filter has)", fs.kind),
            ));
        }
        return Ok(());
    }
    if let Some(m) = fs.m {
        return Err(Error::invalid(
            Param::M,
            m,
            format!("not used by {}", fs.kind),
        ));
    }
    if let Some(k) = fs.k {
        return Err(Error::invalid(
            Param::K,
            k,
            format!("not used by {}", fs.kind),
        ));
    }
    // The kind's own sizing rule (widths, table limits, scalable's growth), as built.
    fs.plan().map(drop)
}
