//! `bloomlab measure`: build a filter, insert n keys, query absent keys, report against theory.

use super::out::outln;
use super::{
    human_bytes, parse_arity, parse_bucket_size, parse_filter, parse_fp_bits, parse_growth,
    parse_hash, parse_k, parse_m, parse_n, parse_p, parse_strategy, parse_tightening,
    parse_word_bits, parse_words, pct, thousands,
};
use bloomlab::filter::FilterKind;
use bloomlab::hash::{HashId, StrategyId};
use bloomlab::measure::{Control, MeasureConfig, Measurement, measure};
use bloomlab::spec::FilterSpec;
use bloomlab::workload::KeyKind;
use bloomlab::{Error, Param, Result};
use indicatif::{ProgressBar, ProgressStyle};
use std::io::{IsTerminal, Write as _};

fn parse_keys(s: &str) -> std::result::Result<KeyKind, String> {
    s.parse().map_err(|e: Error| e.to_string())
}
fn parse_trials(s: &str) -> std::result::Result<u32, String> {
    super::parse_count_in(s, bloomlab::Param::Trials, 1..=10_000_000).map(|t| t as u32)
}
fn parse_queries(s: &str) -> std::result::Result<u64, String> {
    super::parse_count_in(
        s,
        bloomlab::Param::Queries,
        1..=bloomlab::measure::MAX_QUERIES,
    )
}

/// Build a filter, insert n keys, query absent keys, and compare the false-positive rate with
/// theory. Give either --p or --m.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[arg(long, value_parser = parse_filter, default_value = "standard", help = super::filter_help())]
    pub filter: FilterKind,
    #[arg(long, value_parser = parse_hash, default_value = "xxh3", help = super::hash_help())]
    pub hash: HashId,
    #[arg(long, value_parser = parse_strategy, default_value = "enhanced-double", help = super::strategy_help())]
    pub strategy: StrategyId,
    /// Items to insert (and the design capacity unless --capacity is given).
    #[arg(long, allow_hyphen_values = true, value_parser = parse_n)]
    pub n: u64,
    /// Design capacity when it differs from n (e.g. to overfill a filter).
    #[arg(long, allow_hyphen_values = true, value_parser = parse_n)]
    pub capacity: Option<u64>,
    /// Target false-positive rate, strictly between 0 and 1 (0.01, 1%, 1/100); not needed with
    /// --m or --fingerprint-bits (the width's rate is then the one measured).
    #[arg(long, allow_hyphen_values = true, value_parser = parse_p, required_unless_present_any = ["m", "fingerprint_bits"])]
    pub p: Option<f64>,
    /// Bits (or a size with units: 64KiB, 1.2MB) instead of --p.
    #[arg(long, allow_hyphen_values = true, value_parser = parse_m, conflicts_with = "p")]
    pub m: Option<u64>,
    /// Hash functions, 1 to 64 (default: optimal for m and n).
    #[arg(long, allow_hyphen_values = true, value_parser = parse_k)]
    pub k: Option<u32>,
    /// Key kind: u64, seq, string, email, url.
    #[arg(long, value_parser = parse_keys, default_value = "u64")]
    pub keys: KeyKind,
    /// Absent keys to query per trial (1 to 10^10; trials × (n·2 + queries) at most 10^11).
    #[arg(long, allow_hyphen_values = true, value_parser = parse_queries, default_value = "100000")]
    pub queries: u64,
    /// Independently seeded filters to average over (1 to 10000000).
    #[arg(long, allow_hyphen_values = true, value_parser = parse_trials, default_value = "1")]
    pub trials: u32,
    /// Master seed for keys and hash seeds.
    #[arg(long, allow_hyphen_values = true, default_value_t = 1)]
    pub seed: u64,
    /// Fingerprint bits: 4 to 32 for cuckoo, 8 or 16 for xor and binary-fuse, 1 to 32 for ribbon's
    /// results and quotient's remainders (0: the smallest that meets p).
    #[arg(long, allow_hyphen_values = true, value_parser = parse_fp_bits, default_value = "0")]
    pub fingerprint_bits: u32,
    /// Cuckoo slots per bucket: 2, 4 or 8 (tables fill to about 84%, 95%, 98%; 0: the default,
    /// 4).
    #[arg(long, allow_hyphen_values = true, value_parser = parse_bucket_size, default_value = "0")]
    pub bucket_size: u32,
    /// Binary fuse slots per key: 3 or 4 (4-wise: ≈1.075·f bits/key instead of 1.125·f, one
    /// more memory access per query); 0 = the default, 3. Only binary-fuse takes it.
    #[arg(long, allow_hyphen_values = true, value_parser = parse_arity, default_value = "0")]
    pub arity: u32,
    /// Multiblock: bits per word, 32 or 64 (0: the default, 32). Only multiblock takes it.
    #[arg(long, allow_hyphen_values = true, value_parser = parse_word_bits, default_value = "0")]
    pub word_bits: u32,
    /// Multiblock: words per block K, 1 to 16 (0: the default, 8); k is then the bits per item,
    /// a multiple of K (default K: one bit per word; --words 1 --k 5 is Boost's
    /// block<uint64_t,5> with --word-bits 64). Only multiblock takes it.
    #[arg(long, allow_hyphen_values = true, value_parser = parse_words, default_value = "0")]
    pub words: u32,
    /// Scalable growth factor (> 1).
    #[arg(long, allow_hyphen_values = true, value_parser = parse_growth, default_value = "2")]
    pub growth: f64,
    /// Scalable tightening ratio (0 < r < 1).
    #[arg(long, allow_hyphen_values = true, value_parser = parse_tightening, default_value = "0.5")]
    pub tightening: f64,
    /// Scalable: refuse inserts beyond capacity instead of growing.
    #[arg(long)]
    pub nonscaling: bool,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

impl Args {
    /// The measurement this asks for.
    #[must_use]
    pub fn config(&self) -> MeasureConfig {
        let spec = FilterSpec {
            kind: self.filter,
            hash: self.hash,
            strategy: self.strategy,
            seed: 0,
            n: self.capacity.unwrap_or(self.n),
            p: self.p,
            m: self.m,
            k: self.k,
            fingerprint_bits: self.fingerprint_bits,
            bucket_size: self.bucket_size,
            growth: self.growth,
            tightening: self.tightening,
            nonscaling: self.nonscaling,
            arity: self.arity,
            word_bits: self.word_bits,
            words: self.words,
        };
        MeasureConfig {
            spec,
            keys: self.keys,
            inserted: Some(self.n),
            queries: self.queries,
            trials: self.trials,
            seed: self.seed,
            check_hits: true,
        }
    }
}

/// Run the command.
///
/// # Errors
/// Invalid parameters, allocation failure.
pub fn run(a: &Args) -> Result<()> {
    // `measure` checks n and the work (`MeasureConfig::check_work`) before it starts.
    let cfg = a.config();
    let work = u64::from(a.trials).saturating_mul(a.n.saturating_mul(2).saturating_add(a.queries));
    let bar = (work > 2_000_000 && std::io::stderr().is_terminal()).then(|| {
        let b = ProgressBar::new(1000);
        b.set_style(
            ProgressStyle::with_template("{spinner} measuring [{bar:40}] {percent}% eta {eta}")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        b
    });
    // Not a terminal (a log file of a long run, e.g. experiments/programs/extreme_scale_rows.sh):
    // a line every 5% of a big run, with the elapsed time and an ETA, instead of the bar.
    let started = std::time::Instant::now();
    let shown = std::sync::atomic::AtomicU64::new(0);
    let lines = bar.is_none() && work >= 100_000_000;
    let progress = |f: f64| {
        if let Some(b) = &bar {
            b.set_position((f * 1000.0) as u64);
        }
        let step = (f * 20.0) as u64;
        if lines && step > shown.fetch_max(step, std::sync::atomic::Ordering::Relaxed) {
            let el = started.elapsed().as_secs_f64();
            let eta = el / f.max(1e-9) * (1.0 - f);
            let _ = writeln!(
                std::io::stderr(),
                "measuring: {}% ({el:.0} s elapsed, eta {eta:.0} s)",
                step * 5
            );
        }
    };
    let ctl = Control {
        progress: Some(&progress),
        cancel: None,
    };
    let r = measure(&cfg, &ctl).map_err(|e| blame_capacity(e, a));
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    let r = r?;
    if a.json {
        outln!("{}", to_json(&r)?)
    } else {
        print_text(&r)
    }
}

/// The filter is designed for `--capacity` when it is given: an error about the design's n is
/// about that flag, not `--n` (`--capacity 2^64-1` was reported as "invalid n").
fn blame_capacity(e: Error, a: &Args) -> Error {
    match (e, a.capacity) {
        (
            Error::InvalidParameter {
                param: Param::N,
                value,
                valid,
            },
            Some(c),
        ) if c != a.n && value == c.to_string() => Error::InvalidParameter {
            param: Param::Other("capacity"),
            value,
            valid,
        },
        (e, _) => e,
    }
}

/// The JSON object (fields named in DESIGN.md).
///
/// # Errors
/// Never in practice (serialisation of plain data).
pub fn to_json(r: &Measurement) -> Result<String> {
    let mut v = serde_json::to_value(r).map_err(|e| Error::Corrupt(e.to_string()))?;
    // details as an object rather than pairs
    if let Some(obj) = v.as_object_mut() {
        let details: serde_json::Map<String, serde_json::Value> = r
            .details
            .iter()
            .map(|(k, val)| (k.clone(), json_value(val)))
            .collect();
        obj.insert("details".into(), serde_json::Value::Object(details));
    }
    serde_json::to_string_pretty(&v).map_err(|e| Error::Corrupt(e.to_string()))
}

/// A detail as JSON: a number where it is one (`"512"` → `512`, `"0.4883"` → `0.4883`), a
/// boolean for `true`/`false`, else the text (`"655 (+6.83%)"`, `"no"`).
fn json_value(text: &str) -> serde_json::Value {
    if let Ok(u) = text.parse::<u64>() {
        return u.into();
    }
    if let Ok(i) = text.parse::<i64>() {
        return i.into();
    }
    if let Ok(b) = text.parse::<bool>() {
        return b.into();
    }
    match text
        .parse::<f64>()
        .ok()
        .and_then(serde_json::Number::from_f64)
    {
        Some(n) if !text.starts_with(['+', '.']) && !text.contains(['i', 'I', 'n', 'N']) => {
            n.into()
        }
        _ => text.into(),
    }
}

fn print_text(r: &Measurement) -> Result<()> {
    let strat = r.strategy.as_deref().unwrap_or("-");
    outln!(
        "{} filter, hash {}, strategy {}, {} keys, seed {}",
        r.filter,
        r.hash,
        strat,
        r.keys,
        r.seed
    )?;
    // What the filters really hold: a filter with a hard capacity refuses keys past it.
    let attempted = r.n.saturating_mul(u64::from(r.trials));
    let held = attempted.saturating_sub(r.insert_failures);
    let per_trial = held as f64 / f64::from(r.trials.max(1));
    outln!(
        "  size      m = {} bits, k = {}, {} heap bytes ({}), {}",
        thousands(r.m_bits),
        r.k,
        thousands(r.bytes as u64),
        human_bytes(r.bytes as f64),
        if per_trial > 0.0 {
            format!(
                "{:.3} heap bits per key held, m/n = {:.3} bits per key held",
                r.bytes as f64 * 8.0 / per_trial,
                r.m_bits as f64 / per_trial
            )
        } else {
            "no key held".to_string()
        }
    )?;
    let trials = if r.trials > 1 {
        format!(" in {} trials", r.trials)
    } else {
        String::new()
    };
    if r.insert_failures > 0 {
        outln!(
            "  inserted  {} of {} keys{trials}: {} refused (filter full)",
            thousands(held),
            thousands(attempted),
            thousands(r.insert_failures)
        )?;
    } else {
        outln!(
            "  inserted  {} keys{}",
            thousands(r.n),
            if r.trials > 1 {
                format!(" in each of {} trials", r.trials)
            } else {
                String::new()
            }
        )?;
    }
    // The digits the interval supports (bloomlab::stats::RateText), whatever its method.
    let rate = bloomlab::stats::RateText::new(r.fpr, r.fpr_ci95[0], r.fpr_ci95[1]);
    outln!(
        "  FPR       {} ({} of {} absent keys), 95% CI [{}, {}] ({})",
        rate.rate,
        thousands(r.false_positives),
        thousands(r.queries),
        rate.lo,
        rate.hi,
        r.ci_method
    )?;
    let inside = |t: f64| {
        if r.fpr_ci95[0] <= t && t <= r.fpr_ci95[1] {
            "inside the CI"
        } else {
            "OUTSIDE the CI"
        }
    };
    outln!(
        "  model     {}  ({})",
        pct(r.theory.model),
        inside(r.theory.model)
    )?;
    if let (Some(c), Some(e)) = (r.theory.classic, r.theory.exact) {
        outln!("  classic   {}  ({})", pct(c), inside(c))?;
        outln!("  exact     {}  ({})", pct(e), inside(e))?;
    }
    outln!(
        "  false negatives {}{}",
        r.false_negatives,
        if r.false_negatives == 0 {
            " (as promised)"
        } else {
            "  <-- CONTRACT VIOLATED"
        }
    )?;
    outln!(
        "  time      {:.1} ns/insert, {:.1} ns/query (absent){}",
        r.ns_per_insert,
        r.ns_per_query,
        r.ns_per_query_hit
            .map(|h| format!(", {h:.1} ns/query (present)"))
            .unwrap_or_default()
    )?;
    outln!(
        "  bulk      {:.1} ns/query (absent){} through contains_many (batches of {}, first trial){}",
        r.ns_per_query_bulk,
        r.ns_per_query_hit_bulk
            .map(|h| format!(", {h:.1} ns/query (present)"))
            .unwrap_or_default(),
        r.timing.batch,
        if r.bulk_disagreements == 0 {
            String::new()
        } else {
            format!(
                "  <-- {} chunks answered unlike single queries: CONTRACT VIOLATED",
                r.bulk_disagreements
            )
        }
    )?;
    let spread = |name: &str, t: &Option<bloomlab::measure::TimingStats>| {
        t.as_ref()
            .map(|t| format!("{name} {:.1} [{:.1}–{:.1}]", t.median, t.min, t.max))
    };
    let parts: Vec<String> = [
        spread("insert", &r.timing.insert),
        spread("query (absent)", &r.timing.query),
        spread("query (present)", &r.timing.query_hit),
    ]
    .into_iter()
    .flatten()
    .collect();
    outln!(
        "  median    {} ns [min–max over samples]; timed: {}",
        parts.join(", "),
        r.timing.path
    )?;
    for (k, v) in &r.details {
        outln!("  {k:<9} {v}")?;
    }
    Ok(())
}
