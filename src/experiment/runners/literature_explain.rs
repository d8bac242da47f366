//! The `literature` runner's explanations: Guava's rows (against the vectors real Guava wrote),
//! the derivations of figures that are approximate or wrong (each computed by the library's
//! formulas), and the markdown table the book includes.

use crate::error::{Error, Param, Result};
use crate::experiment::published::{Derivation, Expect, LiteratureParams, PublishedPoint};
use crate::experiment::{Experiment, Progress};
use crate::filter::Filter;
use crate::hash::StrategyId;
use crate::measure::{MeasureConfig, Measurement};
use crate::spec::FilterSpec;
use crate::stats;
use crate::theory::{self, blocked, quotient, split_block};
use std::fmt::Write as _;
use std::path::Path;

/// The number in a published figure as printed, and the unit of its last digit: `"2.1519%"` →
/// (0.021519, 0.000001), `"7,298,496"` → (7298496, 1), `"about 0.5%"` → (0.005, 0.001).
#[must_use]
pub(crate) fn parse_published(text: &str) -> Option<(f64, f64)> {
    let start = text.find(|c: char| c.is_ascii_digit())?;
    let rest = &text[start..];
    let end = rest
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == ','))
        .unwrap_or(rest.len());
    let digits = rest[..end].trim_end_matches(['.', ',']);
    let clean: String = digits.chars().filter(|&c| c != ',').collect();
    let value: f64 = clean.parse().ok()?;
    let decimals = clean.find('.').map_or(0, |i| clean.len() - i - 1);
    let unit = 10f64.powi(-(decimals as i32));
    let pct = rest[digits.len()..].trim_start().starts_with('%');
    Some(if pct {
        (value / 100.0, unit / 100.0)
    } else {
        (value, unit)
    })
}

/// The published figure of a point as a number, with the unit of its last digit.
///
/// # Errors
/// A figure without a number.
pub(super) fn published_value(pt: &PublishedPoint) -> Result<(f64, f64)> {
    parse_published(&pt.published).ok_or_else(|| {
        Error::invalid(
            Param::Other("points.published"),
            &pt.published,
            format!("a figure with a number in it (row {})", pt.id),
        )
    })
}

/// What one point came to.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct Outcome {
    /// The published figure as a number.
    pub published: f64,
    /// bloomlab's value, with its 95% interval (equal to it for deterministic quantities).
    pub measured: f64,
    pub lo: f64,
    pub hi: f64,
    /// bloomlab's model of the rate.
    pub model: Option<f64>,
    /// Published against measured.
    pub z: Option<f64>,
    /// What σ of `z` counts.
    pub basis: String,
    /// Measured against bloomlab's model.
    pub z_model: Option<f64>,
    /// `agrees`, `differs`, `by design`, `cannot be configured`, `not resolved …`.
    pub verdict: String,
    /// Why (differs, by design, cannot be configured), with computed numbers.
    pub explanation: String,
    /// A failed check: the run exits with status 4.
    pub failure: Option<String>,
    /// Whether this row is one of the statistical tests (for the false-alarm rate).
    pub statistical: bool,
    pub false_negatives: u64,
    /// The command line, for rows that are not `bloomlab measure`.
    pub command: Option<String>,
}

/// Percent with four significant digits: 0.021590 → "2.159%", 0.0004607 → "0.04607%".
pub(super) fn pct(v: f64) -> String {
    if !v.is_finite() {
        return "—".into();
    }
    let x = v * 100.0;
    if x == 0.0 {
        return "0%".into();
    }
    let d = (3 - x.abs().log10().floor() as i32).max(0) as usize;
    format!("{x:.d$}%")
}

pub(super) use super::scenarios::thousands;

/// A deterministic value: a whole number with separators, else four decimals.
pub(super) fn plain(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        thousands(v.abs() as u64)
    } else {
        format!("{v:.4}")
    }
}

pub(super) fn expect_name(e: Expect) -> &'static str {
    match e {
        Expect::Agrees => "agrees",
        Expect::Differs => "differs",
        Expect::ByDesign => "by design",
        Expect::CannotConfigure => "cannot be configured",
    }
}

/// The `bloomlab measure` command that reproduces a measurement.
pub(super) fn command_line(c: &MeasureConfig) -> String {
    let s = &c.spec;
    let d = FilterSpec::default();
    let mut cmd = format!("bloomlab measure --filter {}", s.kind.name());
    let n = c.inserted.unwrap_or(s.n);
    let _ = write!(cmd, " --n {n}");
    if c.inserted.is_some() {
        let _ = write!(cmd, " --capacity {}", s.n);
    }
    if let Some(m) = s.m {
        let _ = write!(cmd, " --m {m}");
    }
    if let Some(k) = s.k {
        let _ = write!(cmd, " --k {k}");
    }
    if let (Some(p), None) = (s.p, s.m) {
        let _ = write!(cmd, " --p {p}");
    }
    if s.fingerprint_bits != 0 {
        let _ = write!(cmd, " --fingerprint-bits {}", s.fingerprint_bits);
    }
    if s.arity != 0 {
        let _ = write!(cmd, " --arity {}", s.arity);
    }
    if s.hash != d.hash {
        let _ = write!(cmd, " --hash {}", s.hash.name());
    }
    let _ = write!(cmd, " --queries {}", c.queries);
    if c.trials != 1 {
        let _ = write!(cmd, " --trials {}", c.trials);
    }
    if c.seed != 1 {
        let _ = write!(cmd, " --seed {}", c.seed);
    }
    cmd
}

/// Half the split-block model's change in rate over ±half the resolution of the published bits
/// per key (`bits_resolution`), 0 without one.
pub(super) fn bits_rounding_slack(pt: &PublishedPoint, m: &Measurement) -> f64 {
    let Some(r) = pt.bits_resolution else {
        return 0.0;
    };
    let n = m.n as f64;
    let bits = |bpk: f64| (bpk * n).round().max(1.0) as u64;
    let bpk = m.m_bits as f64 / n;
    let hi = split_block::fpr_split_block(bits(bpk - r / 2.0), m.n);
    let lo = split_block::fpr_split_block(bits(bpk + r / 2.0), m.n);
    (hi - lo) / 2.0
}

/// A target rate as the sources print it: 0.01 → "1%".
pub(super) fn pct_short(p: f64) -> String {
    format!("{}%", p * 100.0)
}

/// A row bloomlab cannot build.
pub(super) fn cannot_configure(pt: &PublishedPoint) -> Outcome {
    Outcome {
        published: parse_published(&pt.published).map_or(f64::NAN, |p| p.0),
        measured: f64::NAN,
        lo: f64::NAN,
        hi: f64::NAN,
        verdict: "cannot be configured".into(),
        explanation: pt.note.clone().unwrap_or_default(),
        basis: String::new(),
        ..Outcome::default()
    }
}

// ---------------------------------------------------------------------------------------------
// Guava

/// One line of `tests/guava/vectors/literature.csv`.
#[derive(Debug, Clone, PartialEq)]
struct Vector {
    row: String,
    strategy: String,
    funnel: String,
    n: u64,
    p: f64,
    bits: u64,
    hashes: u32,
    false_positives: u64,
    below_900: Vec<u64>,
}

/// The vectors real Guava wrote for this experiment.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct GuavaVectors(Vec<Vector>);

impl GuavaVectors {
    /// Read the spec's `guava_vectors` file (relative to the spec's directory).
    ///
    /// # Errors
    /// The file cannot be read or a line does not parse.
    pub(super) fn load(exp: &Experiment, lit: &LiteratureParams) -> Result<Self> {
        let dir = Path::new(&exp.file).parent().unwrap_or(Path::new("."));
        let path = dir.join(&lit.guava_vectors);
        let text = std::fs::read_to_string(&path).map_err(|e| Error::Io {
            path: path.display().to_string(),
            message: e.to_string(),
        })?;
        let bad = |line: &str| Error::Io {
            path: path.display().to_string(),
            message: format!("not a vector line: {line}"),
        };
        let mut out = Vec::new();
        for line in text.lines() {
            if line.starts_with('#') || line.starts_with("row,") || line.trim().is_empty() {
                continue;
            }
            let f: Vec<&str> = line.split(',').collect();
            if f.len() != 10 {
                return Err(bad(line));
            }
            let num = |s: &str| s.parse::<u64>().map_err(|_| bad(line));
            out.push(Vector {
                row: f[0].into(),
                strategy: f[1].into(),
                funnel: f[2].into(),
                n: num(f[3])?,
                p: f[4].parse().map_err(|_| bad(line))?,
                bits: num(f[5])?,
                hashes: f[6].parse().map_err(|_| bad(line))?,
                false_positives: num(f[8])?,
                below_900: f[9]
                    .split_whitespace()
                    .map(num)
                    .collect::<Result<Vec<_>>>()?,
            });
        }
        Ok(Self(out))
    }
}

/// The decimal string of `i` as Guava's funnel feeds it to the hash.
fn guava_key(i: u64, funnel: &str, buf: &mut Vec<u8>) {
    buf.clear();
    let s = i.to_string();
    if funnel == "utf8" {
        buf.extend_from_slice(s.as_bytes());
    } else {
        // unencodedCharsFunnel: each UTF-16 code unit, little-endian (all ASCII here).
        for b in s.bytes() {
            buf.extend_from_slice(&[b, 0]);
        }
    }
}

/// A Guava row: bloomlab's Guava-compatible filter (murmur3 seed 0, Guava's strategy and
/// sizing) against real Guava's numbers and the test's published figure.
pub(super) fn guava(
    pt: &PublishedPoint,
    vectors: &GuavaVectors,
    progress: &dyn Progress,
) -> Result<Outcome> {
    let g = pt
        .guava
        .as_ref()
        .ok_or_else(|| Error::invalid(Param::Other("points.guava"), &pt.id, "strategy, n and p"))?;
    let name = match g.strategy {
        StrategyId::Guava32 => "mitz32",
        _ => "mitz64",
    };
    let fp_row = pt.quantity == crate::experiment::published::Quantity::GuavaFalsePositives;
    let v = vectors
        .0
        .iter()
        .find(|v| {
            v.strategy == name
                && v.n == g.n
                && (v.p - g.p).abs() < 1e-12
                && (v.row == "fp") == fp_row
                && (!fp_row || v.funnel == g.funnel)
        })
        .ok_or_else(|| {
            Error::invalid(
                Param::Other("points.guava"),
                &pt.id,
                "a configuration tests/guava/vectors/literature.csv has (regenerate it with GenVectors.java)",
            )
        })?;
    let spec = FilterSpec {
        kind: crate::filter::FilterKind::Standard,
        hash: crate::hash::HashId::Murmur3,
        strategy: g.strategy,
        seed: 0,
        n: g.n,
        p: Some(g.p),
        ..FilterSpec::default()
    };
    let mut f = spec.build()?;
    let (bits, k) = (f.bits(), f.k());
    let mut o = Outcome {
        basis: "exact (deterministic hashing)".into(),
        command: Some(format!(
            "bloomlab build --filter standard --n {} --p {} --hash murmur3 --strategy {} --seed 0 (keys: {} decimal strings)",
            g.n,
            g.p,
            g.strategy.name(),
            if g.funnel == "utf8" {
                "UTF-8"
            } else {
                "UTF-16LE"
            }
        )),
        ..Outcome::default()
    };
    let mut problems = Vec::new();
    if (bits, k) != (v.bits, v.hashes) {
        problems.push(format!(
            "bloomlab sizes {bits} bits, k = {k}; Guava 31.1 {} bits, k = {}",
            v.bits, v.hashes
        ));
    }
    let vector_value;
    if fp_row {
        let mut buf = Vec::new();
        let mut missing = 0u64;
        for i in (0..2 * g.n).step_by(2) {
            guava_key(i, &g.funnel, &mut buf);
            f.insert(&buf);
        }
        for i in (0..2 * g.n).step_by(2) {
            guava_key(i, &g.funnel, &mut buf);
            missing += u64::from(!f.contains(&buf));
        }
        let (mut count, mut below) = (0u64, Vec::new());
        for i in (1..2 * g.n).step_by(2) {
            guava_key(i, &g.funnel, &mut buf);
            if f.contains(&buf) {
                count += 1;
                if i < 900 {
                    below.push(i);
                }
            }
        }
        progress.advance(3 * g.n);
        o.false_negatives = missing;
        o.measured = count as f64;
        vector_value = v.false_positives as f64;
        if missing > 0 {
            problems.push(format!("{missing} false negatives"));
        }
        if count != v.false_positives || below != v.below_900 {
            problems.push(format!(
                "bloomlab {count} false positives (below 900: {below:?}), Guava 31.1 {} ({:?})",
                v.false_positives, v.below_900
            ));
        }
        o.explanation = format!(
            "Guava 31.1 (vector): {} false positives of {}, below 900: {}; bloomlab's, below 900: {}",
            thousands(v.false_positives),
            thousands(g.n),
            join(&v.below_900),
            join(&below)
        );
    } else {
        o.measured = bits as f64;
        vector_value = v.bits as f64;
        o.explanation = format!(
            "Guava 31.1 (vector): {} bits, k = {}; bloomlab: {} bits, k = {k}",
            thousands(v.bits),
            v.hashes,
            thousands(bits)
        );
    }
    o.published = if pt.published == "vector" {
        vector_value
    } else {
        published_value(pt)?.0
    };
    if o.published != vector_value {
        problems.push(format!(
            "the source prints {}, Guava 31.1 gives {}",
            pt.published,
            plain(vector_value)
        ));
    }
    o.lo = o.measured;
    o.hi = o.measured;
    if o.published != o.measured && problems.is_empty() {
        problems.push(format!(
            "bloomlab {}, published {}",
            plain(o.measured),
            pt.published
        ));
    }
    o.verdict = if problems.is_empty() {
        "agrees (bit-exact)".into()
    } else {
        "differs".into()
    };
    if !problems.is_empty() {
        o.failure = Some(problems.join("; "));
    }
    Ok(o)
}

fn join(v: &[u64]) -> String {
    if v.is_empty() {
        return "none".into();
    }
    v.iter().map(u64::to_string).collect::<Vec<_>>().join(" ")
}

// ---------------------------------------------------------------------------------------------
// Derivations

/// bloomlab's standard error for a measured rate tested against p: binomial at p (one trial),
/// or from the interval of the per-trial means (several).
pub(super) fn measured_se(m: &Measurement, cfg: &MeasureConfig, p: f64) -> f64 {
    if cfg.trials > 1 {
        (m.fpr_ci95[1] - m.fpr_ci95[0]) / (2.0 * stats::Z95)
    } else {
        (p * (1.0 - p) / m.queries.max(1) as f64).sqrt()
    }
}

/// z of a measured rate against a model rate p.
fn z_against(m: &Measurement, cfg: &MeasureConfig, p: f64) -> f64 {
    (m.fpr - p) / measured_se(m, cfg, p)
}

/// Add the point's explanation: its computed derivation, then its note.
pub(super) fn derive(
    pt: &PublishedPoint,
    cfg: &MeasureConfig,
    m: &Measurement,
    z_max: f64,
    o: &mut Outcome,
) -> Result<()> {
    let meas = format!(
        "{} [{}, {}]",
        pct(m.fpr),
        pct(m.fpr_ci95[0]),
        pct(m.fpr_ci95[1])
    );
    let text = match pt.derive {
        None => String::new(),
        Some(Derivation::BlockedInner) => {
            let (mb, n, k) = (m.m_bits, m.n, m.k);
            let b = blocked::BLOCK_BITS;
            let at = |inner| blocked::fpr_blocked_with(mb, n, k, b, inner);
            let (c, bl, e) = (
                at(blocked::Inner::Classic),
                at(blocked::Inner::Bloom),
                at(blocked::Inner::Exact),
            );
            format!(
                "Putze et al.'s Poisson mixture over 512-bit block loads at {:.2} bits/key, k = {k}, \
                 with three inner formulas: (1 − e^(−ik/B))^k gives {}, (1 − (1 − 1/B)^(ik))^k gives {}, \
                 the exact rate of a 512-bit filter (Bose et al.; bloomlab's model) gives {}. \
                 bloomlab measures {meas}: z = {:.1} from the exact inner, {:.1} from the binomial-fill \
                 inner, {:.1} from the classic inner (|z| ≤ {z_max} agrees).",
                mb as f64 / n as f64,
                pct(c),
                pct(bl),
                pct(e),
                z_against(m, cfg, e),
                z_against(m, cfg, bl),
                z_against(m, cfg, c),
            )
        }
        Some(Derivation::ParquetText) => {
            let (mb, n) = (m.m_bits, m.n);
            format!(
                "{:.2} bits per value is 8/ln 2 = {:.4}, the size at which k = 8 is the standard \
                 filter's optimum, and there the standard filter's (1 − e^(−8n/m))^8 is {}: \
                 the spec quotes a standard-filter figure (rounded up) for a split-block filter. A \
                 split-block filter sets its 8 bits in one 256-bit block, whose load varies from \
                 block to block: its model gives {} and bloomlab measures {meas}, {:.2}× the 0.5%.",
                mb as f64 / n as f64,
                split_block::spec_bits_per_key(2f64.powi(-8)),
                pct(theory::fpr_classic(mb, n, 8)),
                pct(split_block::fpr_split_block(mb, n)),
                m.fpr / 0.005,
            )
        }
        Some(Derivation::ParquetFormula) => {
            let u = split_block::parquet_undershoot(m.n, o.published)?;
            format!(
                "−8/ln(1 − p^(1/8)) is the standard filter's rate at k = 8 solved for bits per value: \
                 {:.4} at p = {}. A split-block filter of that size has the model rate {} ({:.2}× the \
                 target; measured {meas}, {:.2}×); it needs {:.2} bits per value for {}. (The \
                 writers' power-of-two rounding of the bytes often hides this: {} bytes for this n.)",
                u.spec_bits_per_key,
                pct_short(o.published),
                pct(u.fpr_at_spec_size),
                u.ratio,
                m.fpr / o.published,
                u.needed_bits_per_key,
                pct_short(o.published),
                thousands(u.parquet_bytes),
            )
        }
        Some(Derivation::CqfLayout) => cqf(pt, m, o)?,
    };
    let note = pt.note.as_deref().unwrap_or("");
    o.explanation = match (text.is_empty(), note.is_empty()) {
        (true, _) => note.to_string(),
        (false, true) => text,
        (false, false) => format!("{text} {note}"),
    };
    Ok(())
}

/// The quotient filter's bits per key against the counting quotient filter's layout.
fn cqf(pt: &PublishedPoint, m: &Measurement, o: &mut Outcome) -> Result<String> {
    let detail = |key: &str| -> Result<u32> {
        m.details
            .iter()
            .find(|(k, _)| k == key)
            .and_then(|(_, v)| v.parse().ok())
            .ok_or_else(|| {
                Error::invalid(
                    Param::Other("points.derive"),
                    key,
                    "a quotient filter detail",
                )
            })
    };
    let (q, r) = (detail("quotient bits")?, detail("remainder bits")?);
    // What the filter allocates (measure's bits/key is its bytes × 8 / n): the table, and the one
    // zero word after the last block that lets a remainder always be read from two words.
    let ours = quotient::table_bytes(q, r) as f64 * 8.0 / m.n as f64;
    let cqf_bytes = quotient::cqf_bytes(q, r);
    let theirs = cqf_bytes as f64 * 8.0 / m.n as f64;
    let (_, unit) = published_value(pt)?;
    if (theirs - o.published).abs() > unit / 2.0 * (1.0 + 1e-9) {
        o.failure.get_or_insert(format!(
            "the CQF layout gives {theirs:.4} bits/key, not the published {}",
            pt.published
        ));
    }
    if (ours - m.bits_per_key).abs() > 1e-6 {
        o.failure.get_or_insert(format!(
            "bloomlab's quotient filter takes {:.4} bits/key, its layout says {ours:.4}",
            m.bits_per_key
        ));
    }
    Ok(format!(
        "bloomlab's quotient filter keeps the rank-select layout of the counting quotient filter \
         (Pandey et al. 2017): 2.125 metadata bits per slot (an occupieds and a runends bit per \
         slot, an 8-bit offset per 64 slots), 2^{q} slots × {:.3} bits and one padding word = {:.4} \
         bits/key (the \
         classic layout of Bender et al. 2012 kept {} bits per slot). The counting quotient \
         filter's code adds 10·√(2^{q}) extra slots: {} bytes = {:.4} bits/key. The ratio {:.4} \
         is those extra slots; the rates agree (the row above).",
        f64::from(r) + 2.125,
        ours,
        quotient::CLASSIC_METADATA_BITS,
        thousands(cqf_bytes),
        theirs,
        ours / theirs,
    ))
}

// ---------------------------------------------------------------------------------------------
// The table

/// Counts per kind.
#[derive(Debug, Default, Clone)]
struct Tally {
    rows: u32,
    agree: u32,
    differ: u32,
    by_design: u32,
    cannot: u32,
    unresolved: u32,
    failed: u32,
}

fn tally<'a>(items: impl Iterator<Item = &'a Outcome>) -> Tally {
    let mut t = Tally::default();
    for o in items {
        t.rows += 1;
        match o.verdict.as_str() {
            v if v.starts_with("agrees") => t.agree += 1,
            "differs" => t.differ += 1,
            "by design" => t.by_design += 1,
            "cannot be configured" => t.cannot += 1,
            _ => t.unresolved += 1,
        }
        t.failed += u32::from(o.failure.is_some());
    }
    t
}

fn kinds<'a>(points: &[&'a PublishedPoint]) -> Vec<&'a str> {
    let mut v: Vec<&str> = Vec::new();
    for p in points {
        if !v.contains(&p.kind.as_str()) {
            v.push(&p.kind);
        }
    }
    v
}

fn value_text(pt: &PublishedPoint, o: &Outcome) -> String {
    if !o.measured.is_finite() {
        return "—".into();
    }
    match pt.quantity {
        crate::experiment::published::Quantity::Fpr => {
            format!("{} [{}, {}]", pct(o.measured), pct(o.lo), pct(o.hi))
        }
        _ => plain(o.measured),
    }
}

/// The markdown the book's appendix includes.
pub(super) fn markdown(
    exp: &Experiment,
    points: &[&PublishedPoint],
    outcomes: &[Outcome],
    z_max: f64,
    tests: u32,
    alarm: f64,
) -> String {
    let mut s = String::new();
    let all = tally(outcomes.iter());
    let _ = writeln!(
        s,
        "Made by `bloomlab run {}{}`: {} rows, {} agree, {} differ (each explained), {} by design, \
         {} cannot be configured{}{}.\n",
        exp.file,
        if exp.quick { " --quick" } else { "" },
        all.rows,
        all.agree,
        all.differ,
        all.by_design,
        all.cannot,
        if all.unresolved > 0 {
            format!(", {} not resolved at this sample size", all.unresolved)
        } else {
            String::new()
        },
        if all.failed > 0 {
            format!("; **{} failed checks**", all.failed)
        } else {
            String::new()
        },
    );
    s.push_str("| kind | rows | agree | differ | by design | cannot be configured |\n|---|---:|---:|---:|---:|---:|\n");
    for k in kinds(points) {
        let t = tally(
            points
                .iter()
                .zip(outcomes)
                .filter(|(p, _)| p.kind == k)
                .map(|(_, o)| o),
        );
        let _ = writeln!(
            s,
            "| {k} | {} | {} | {} | {} | {} |",
            t.rows, t.agree, t.differ, t.by_design, t.cannot
        );
    }
    let _ = writeln!(
        s,
        "| **total** | **{}** | **{}** | **{}** | **{}** | **{}** |\n",
        all.rows, all.agree, all.differ, all.by_design, all.cannot
    );
    let _ = writeln!(
        s,
        "**The test.** A rate agrees when |z| ≤ {z_max}; sizes and Guava's counts must match to the \
         last published digit. With {tests} statistical comparisons in this run, the chance that \
         at least one fails by bad luck alone is 1 − (1 − 2Φ(−{z_max}))^{tests} = {}.\n",
        pct(alarm)
    );
    for k in kinds(points) {
        let _ = writeln!(s, "### {k}\n");
        s.push_str("| # | source | configuration | published | bloomlab [95% CI] | model | z | verdict |\n|---|---|---|---|---|---|---:|---|\n");
        for (p, o) in points.iter().zip(outcomes).filter(|(p, _)| p.kind == k) {
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} | {} | {} | {}{} |",
                p.id,
                p.source,
                p.config,
                p.published,
                value_text(p, o),
                o.model.map_or("—".into(), pct),
                match (o.z, o.basis.is_empty()) {
                    (Some(z), _) => format!("{z:.2}"),
                    (None, false) => "exact".into(),
                    (None, true) => "—".into(),
                },
                o.verdict,
                if o.failure.is_some() {
                    " **(FAILED)**"
                } else {
                    ""
                },
            );
        }
        s.push('\n');
    }
    s.push_str("### Rows that differ, differ by design, or cannot be configured\n\n");
    for (p, o) in points.iter().zip(outcomes) {
        if !o.explanation.is_empty() && !o.verdict.starts_with("agrees") {
            let _ = writeln!(s, "- **{}** ({}): {}", p.id, p.kind, o.explanation);
        }
    }
    s.push_str("\n### Notes on rows that agree\n\n");
    for (p, o) in points.iter().zip(outcomes) {
        if !o.explanation.is_empty() && o.verdict.starts_with("agrees") {
            let _ = writeln!(s, "- **{}** ({}): {}", p.id, p.kind, o.explanation);
        }
    }
    s.push_str("\n### What σ counts, row by row\n\n");
    let mut bases: Vec<(&str, Vec<&str>)> = Vec::new();
    for (p, o) in points.iter().zip(outcomes) {
        if o.basis.is_empty() {
            continue;
        }
        match bases.iter_mut().find(|(b, _)| *b == o.basis) {
            Some((_, ids)) => ids.push(&p.id),
            None => bases.push((&o.basis, vec![&p.id])),
        }
    }
    for (b, ids) in bases {
        let _ = writeln!(s, "- rows {}: {b}", ids.join(", "));
    }
    s
}

/// The lines `bloomlab run` prints.
pub(super) fn summary(
    points: &[&PublishedPoint],
    outcomes: &[Outcome],
    z_max: f64,
    tests: u32,
    alarm: f64,
) -> Vec<String> {
    let t = tally(outcomes.iter());
    let mut v = vec![format!(
        "{} rows: {} agree, {} differ (explained), {} by design, {} cannot be configured, {} not resolved; {} failed",
        t.rows, t.agree, t.differ, t.by_design, t.cannot, t.unresolved, t.failed
    )];
    v.push(format!(
        "test: |z| <= {z_max} over {tests} statistical comparisons: false-failure rate {}",
        pct(alarm)
    ));
    for (p, o) in points.iter().zip(outcomes) {
        if let Some(f) = &o.failure {
            v.push(format!("FAILED row {} ({}): {f}", p.id, p.kind));
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn published_figures_parse_with_their_last_digit() {
        let close =
            |a: (f64, f64), b: (f64, f64)| (a.0 - b.0).abs() < 1e-15 && (a.1 - b.1).abs() < 1e-15;
        assert!(close(
            parse_published("2.1519%").unwrap(),
            (0.021519, 0.000001)
        ));
        assert!(close(
            parse_published("7,298,496 bits").unwrap(),
            (7_298_496.0, 1.0)
        ));
        assert!(close(
            parse_published("about 0.5%").unwrap(),
            (0.005, 0.001)
        ));
        assert!(close(parse_published("12.60").unwrap(), (12.6, 0.01)));
        assert!(close(parse_published("1% (target)").unwrap(), (0.01, 0.01)));
        assert_eq!(parse_published("vector"), None);
    }
}
