//! `bloomlab choose`: which filter, at which rate, for a workload on this machine. Every kind
//! (and its main variants) that meets the constraints is built with the workload's n and key
//! kind, measured, and ranked by expected cost per query (`bloomlab::choose`).

use super::out::{errln, outln};
use super::{parse_m, parse_n, parse_p};
use bloomlab::choose::{self, Choice, Constraints, Target};
use bloomlab::measure::Control;
use bloomlab::workload::KeyKind;
use bloomlab::{Error, Param, Result, units};
use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::path::PathBuf;

fn parse_keys(s: &str) -> std::result::Result<KeyKind, String> {
    s.parse().map_err(|e: Error| e.to_string())
}
fn parse_cost(s: &str) -> std::result::Result<f64, String> {
    choose::parse_duration_ns(s).map_err(|e| units::describe(&e))
}
fn parse_share(s: &str) -> std::result::Result<f64, String> {
    match units::parse_number(s.trim_end_matches('%'), Param::Other("hit-ratio")) {
        Ok(v) => {
            let v = if s.ends_with('%') { v / 100.0 } else { v };
            if (0.0..=1.0).contains(&v) {
                Ok(v)
            } else {
                Err(format!(
                    "'{s}' is out of range: a share from 0 to 1 (0.1, 10%)"
                ))
            }
        }
        Err(e) => Err(units::describe(&e)),
    }
}
fn parse_bpk(s: &str) -> std::result::Result<f64, String> {
    units::parse_number(s, Param::Other("bits-per-key")).map_err(|e| units::describe(&e))
}
fn parse_threads(s: &str) -> std::result::Result<u32, String> {
    super::parse_count_in(s, Param::Other("threads"), 1..=256).map(|t| t as u32)
}

/// Which filter, at which rate, for this workload on this machine: every kind (and variant: k,
/// bucket size, arity, block size) that meets the constraints is built with your n and key
/// kind, measured (FPR with its 95% interval, bits/key, build and lookup time), and ranked by
/// expected cost per query = lookup + (1 − hit ratio) · FPR · negative cost (Lang et al.,
/// PVLDB 2019). Give one of --p, --bits-per-key, --memory; or --negative-cost alone, and the
/// rate whose model cost is lowest is chosen (and said).
///
/// JSON (--json, and choose.json under --out): `constraints` (the flags), `candidates` (one
/// object per variant: `label`, `spec` (the FilterSpec built), `measured`, `bits`, `bytes`,
/// `bits_per_key`, `fpr`, `fpr_ci95` [lo, hi], `fpr_model`, `queries`, `build_ns_per_key`,
/// `hit_ns` and `miss_ns` ({median, min, max, samples} over timing samples, ns per key),
/// `miss_ns_threads` (with --threads > 1), `lookup_ns` (h·hit + (1−h)·miss, medians),
/// `expected_cost_ns`), `pareto` (indices into candidates of the set over bits/key, FPR and
/// lookup ns), `recommendation` {`best`, `runner_up` (indices; the runner-up is the second
/// cheapest), `other_kind` (the cheapest of another kind, when not the runner-up), `cost_ratio`
/// (runner-up cost / best cost), `reason`, `command`}, `crossovers` [{`negative_cost_ns`, `from`, `to`}] (where the
/// cheapest candidate changes between 1 ns and 10 ms), `left_out` [[label, reason]].
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Keys the filter will hold (10^6, 1e7, 100k).
    #[arg(long, allow_hyphen_values = true, value_parser = parse_n)]
    pub n: u64,
    /// Target false-positive rate, strictly between 0 and 1 (1%, 0.001, 1/1000).
    /// Without --p, --bits-per-key and --memory, a given --negative-cost picks the rate: the one
    /// whose model expected cost per query is lowest.
    #[arg(long, allow_hyphen_values = true, value_parser = parse_p,
          conflicts_with_all = ["bits_per_key", "memory"])]
    pub p: Option<f64>,
    /// Space per key instead of --p: each candidate at the lowest rate that fits.
    #[arg(long, allow_hyphen_values = true, value_parser = parse_bpk, conflicts_with = "memory")]
    pub bits_per_key: Option<f64>,
    /// Memory for all n keys instead of --p: 1.2MB, 64KiB, 10Mbit (a bare number counts bits).
    #[arg(long, allow_hyphen_values = true, value_parser = parse_m)]
    pub memory: Option<u64>,
    /// Key kind: u64, seq, string, email, url.
    #[arg(long, value_parser = parse_keys, default_value = "u64")]
    pub keys: KeyKind,
    /// The work a true negative saves: 50ns (a hash-table probe), 10us (an SSD read), 1ms (a
    /// database query). A bare number is ns.
    /// Default 1us.
    #[arg(long, allow_hyphen_values = true, value_parser = parse_cost)]
    pub negative_cost: Option<f64>,
    /// Share of queries for present keys, 0 to 1 (0.1, 10%).
    #[arg(long, allow_hyphen_values = true, value_parser = parse_share, default_value = "0.1")]
    pub hit_ratio: f64,
    /// Keys are deleted: only removable kinds (counting, cuckoo, quotient).
    #[arg(long)]
    pub deletes: bool,
    /// The set grows past n: only kinds that keep their rate while growing (scalable).
    #[arg(long)]
    pub grows: bool,
    /// The set is built once and never changes: static kinds (xor, binary-fuse, ribbon) too.
    #[arg(long = "static")]
    pub allow_static: bool,
    /// Threads querying at once (1 to 256): above 1, absent-key lookups are also timed with
    /// that many threads sharing the filter, and that time enters the cost.
    #[arg(long, allow_hyphen_values = true, value_parser = parse_threads, default_value = "1")]
    pub threads: u32,
    /// Master seed of keys and hashes.
    #[arg(long, allow_hyphen_values = true, default_value_t = 1)]
    pub seed: u64,
    /// Fewer queries (10^5) and one trial: seconds at n = 10^6 in release.
    #[arg(long)]
    pub quick: bool,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    /// Also write choose.json and the figures (choose-fpr and choose-cost, .svg and .png) here.
    #[arg(long)]
    pub out: Option<PathBuf>,
}

impl Args {
    /// The constraints these flags ask for.
    #[must_use]
    pub fn constraints(&self) -> Constraints {
        let target = match (self.p, self.bits_per_key, self.memory) {
            (Some(p), _, _) => Target::Fpr(p),
            (None, Some(b), _) => Target::BitsPerKey(b),
            (None, None, Some(bits)) => Target::Memory(bits / 8),
            (None, None, None) => Target::Fpr(0.01),
        };
        Constraints {
            keys: self.keys,
            negative_cost_ns: self.negative_cost.unwrap_or(DEFAULT_NEGATIVE_COST_NS),
            hit_ratio: self.hit_ratio,
            deletes: self.deletes,
            grows: self.grows,
            allow_static: self.allow_static,
            threads: self.threads,
            quick: self.quick,
            seed: self.seed,
            ..Constraints::new(self.n, target)
        }
    }
}

/// The negative cost when `--negative-cost` is not given: 1 µs.
const DEFAULT_NEGATIVE_COST_NS: f64 = 1_000.0;

/// The rates [`pick_rate`] tries: 10^−1 to 10^−7 in quarter decades.
fn rate_grid() -> impl Iterator<Item = f64> {
    (4..=28).map(|q| 10f64.powf(-f64::from(q) / 4.0))
}

/// Model costs within this factor of the lowest count as equal when [`pick_rate`] picks: past
/// the point where false positives cost a small fraction of a lookup, a lower rate only buys a
/// bigger table, so the largest rate that is that close to the lowest cost is taken.
const EQUAL_COST: f64 = 1.01;

/// The rate [`pick_rate`] picked and why.
struct Picked {
    p: f64,
    label: String,
    cost: f64,
    lowest: f64,
    at_lowest: f64,
    edge: bool,
}

/// The rate for a workload whose only target is its negative cost, from the model's expected
/// cost per query `lookup + (1 − h)·p·negative cost` of the cheapest candidate at each rate of
/// [`rate_grid`] (Lang, Neumann, Kemper & Boncz, "Performance-Optimal Filtering", PVLDB 2019:
/// the best rate is not a constant but follows from what a false positive costs, since a lower
/// rate means a bigger table and slower lookups): the largest rate whose cost is within
/// [`EQUAL_COST`] of the lowest. Theory only ([`choose::estimate`]): no filter is built.
///
/// # Errors
/// [`Error::InvalidParameter`] naming `constraints` when no rate of the grid admits a candidate.
fn pick_rate(c: &Constraints) -> Result<Picked> {
    let mut per_rate: Vec<(f64, String, f64)> = Vec::new();
    for p in rate_grid() {
        let at = Constraints {
            target: Target::Fpr(p),
            ..c.clone()
        };
        let Ok(all) = choose::estimate(&at) else {
            continue;
        };
        if let Some(m) = all
            .into_iter()
            .min_by(|a, b| a.expected_cost_ns.total_cmp(&b.expected_cost_ns))
        {
            per_rate.push((p, m.label, m.expected_cost_ns));
        }
    }
    let (lowest, at_lowest) = per_rate
        .iter()
        .map(|r| (r.2, r.0))
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .ok_or_else(|| {
            Error::invalid(
                Param::Other("constraints"),
                c.describe(),
                "a candidate at some rate from 10^-1 to 10^-7",
            )
        })?;
    // The grid runs from large rates to small: the first close enough is the largest.
    let i = per_rate
        .iter()
        .position(|r| r.2 <= lowest * EQUAL_COST)
        .unwrap_or(0);
    let edge = i + 1 == per_rate.len() || i == 0;
    let (p, label, cost) = per_rate.swap_remove(i);
    Ok(Picked {
        p,
        label,
        cost,
        lowest,
        at_lowest,
        edge,
    })
}

/// The constraints to measure: those of the flags, or, with none of --p, --bits-per-key and
/// --memory, at the rate a given --negative-cost picks ([`pick_rate`], said on standard error).
///
/// # Errors
/// [`Error::InvalidParameter`] naming `p` and all three alternatives when neither a target nor
/// a negative cost is given.
fn target_constraints(a: &Args) -> Result<Constraints> {
    let mut c = a.constraints();
    if a.p.is_some() || a.bits_per_key.is_some() || a.memory.is_some() {
        return Ok(c);
    }
    let Some(cost) = a.negative_cost else {
        return Err(Error::invalid(
            Param::P,
            "none",
            "one of --p (a rate: 1%), --bits-per-key (10) or --memory (1.2MB); \
             or give --negative-cost (10us) and choose picks the rate that costs least",
        ));
    };
    c.check()?;
    let k = pick_rate(&c)?;
    c.target = Target::Fpr(k.p);
    let f = bloomlab::units::format_prob;
    errln!(
        "no --p: chose p = {} for --negative-cost {}: the model's expected cost per query \
         (lookup + (1 − {})·p·{}, Lang et al., PVLDB 2019) of its cheapest candidate, {}, is \
         {:.2} ns there, within 1% of the lowest, {:.2} ns at p = {}; the largest such rate \
         is taken, since a lower one buys almost nothing for a bigger table{}",
        f(k.p),
        choose::format_ns(cost),
        c.hit_ratio,
        choose::format_ns(cost),
        k.label,
        k.cost,
        k.lowest,
        f(k.at_lowest),
        if k.edge {
            " (at the edge of the rates tried, 10^-1 … 10^-7: the optimum may lie beyond)"
        } else {
            ""
        },
    );
    Ok(c)
}

/// Run the command.
///
/// # Errors
/// Constraints no filter meets (one line naming the constraint); write failures under --out.
pub fn run(a: &Args) -> Result<()> {
    let c = target_constraints(a)?;
    // Refuse before any work (and before a progress bar appears).
    let cands = choose::candidates(&c)?;
    if let Some(dir) = &a.out {
        check_out(dir)?;
    }
    let bar = std::io::stderr().is_terminal().then(|| {
        let b = ProgressBar::new(1000);
        b.set_style(
            ProgressStyle::with_template(&format!(
                "{{spinner}} measuring {} candidates [{{bar:40}}] {{percent}}% eta {{eta}}",
                cands.len()
            ))
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        b
    });
    let progress = |f: f64| {
        if let Some(b) = &bar {
            b.set_position((f * 1000.0) as u64);
        }
    };
    let ctl = Control {
        progress: Some(&progress),
        cancel: None,
    };
    let r = choose::run(&c, &ctl);
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    let ch = r?;
    if let Some(dir) = &a.out {
        write_out(dir, &ch)?;
    }
    if a.json {
        outln!("{}", to_json(&ch)?)
    } else {
        print_text(&ch)?;
        if let Some(dir) = &a.out {
            errln!(
                "wrote {0}/choose.json, {0}/choose-fpr.svg/.png, {0}/choose-cost.svg/.png",
                dir.display()
            );
        }
        Ok(())
    }
}

/// The JSON document.
///
/// # Errors
/// Never in practice (plain data).
pub fn to_json(ch: &Choice) -> Result<String> {
    serde_json::to_string_pretty(ch).map_err(|e| Error::Corrupt(e.to_string()))
}

/// The files `--out` receives.
const OUT_FILES: [&str; 5] = [
    "choose.json",
    "choose-fpr.svg",
    "choose-fpr.png",
    "choose-cost.svg",
    "choose-cost.png",
];

/// Check `--out` and every file written there before any work ([`super::out_path`]).
fn check_out(dir: &std::path::Path) -> Result<()> {
    super::out_path::check_dir(dir)?;
    for f in OUT_FILES {
        let p = dir.join(f);
        super::out_path::check_with(&p, super::out_path::Rules::in_dir(&p, &[], false))?;
        // No --follow-symlinks here: a link is refused.
    }
    Ok(())
}

fn write_out(dir: &std::path::Path, ch: &Choice) -> Result<()> {
    // Checked again: the measurement took a while.
    check_out(dir)?;
    std::fs::create_dir_all(dir).map_err(|e| Error::Io {
        path: dir.display().to_string(),
        message: e.to_string(),
    })?;
    let json = to_json(ch)?;
    bloomlab::persist::write_atomic_with(
        &dir.join("choose.json"),
        bloomlab::persist::WriteOptions::default(),
        |w| w.write_all(json.as_bytes()),
    )?;
    for (name, chart) in [
        ("choose-fpr", choose::chart::fpr_chart(ch)),
        ("choose-cost", choose::chart::cost_chart(ch)),
    ] {
        chart.save_svg(&dir.join(format!("{name}.svg")))?;
        chart.save_png(&dir.join(format!("{name}.png")))?;
    }
    Ok(())
}

fn spread(t: &bloomlab::measure::TimingStats) -> String {
    format!("{:.1} [{:.1}–{:.1}]", t.median, t.min, t.max)
}

fn print_text(ch: &Choice) -> Result<()> {
    let c = &ch.constraints;
    outln!(
        "choose: {}, {} keys, negative cost {}, hit ratio {}{}",
        c.describe(),
        c.keys,
        choose::format_ns(c.negative_cost_ns),
        c.hit_ratio,
        if c.threads > 1 {
            format!(", {} threads", c.threads)
        } else {
            String::new()
        }
    )?;
    outln!(
        "{:<22} {:>8} {:>24} {:>8} {:>20} {:>20} {:>10}  ",
        "candidate",
        "bits/key",
        "FPR [95% CI]",
        "build ns",
        "hit ns med [min–max]",
        "miss ns med [min–max]",
        "cost ns/q"
    )?;
    for (i, m) in ch.candidates.iter().enumerate() {
        let mark = match (
            i == ch.recommendation.best,
            Some(i) == ch.recommendation.runner_up,
            ch.pareto.contains(&i),
        ) {
            (true, _, _) => "<- chosen",
            (_, true, true) => "runner-up, pareto",
            (_, true, false) => "runner-up",
            (_, _, true) => "pareto",
            _ => "",
        };
        outln!(
            "{:<22} {:>8.2} {:>24} {:>8.1} {:>20} {:>20} {:>10.1}  {mark}",
            m.label,
            m.bits_per_key,
            {
                // The digits the interval supports.
                let t = bloomlab::stats::RateText::new(m.fpr, m.fpr_ci95[0], m.fpr_ci95[1]);
                format!("{} [{}, {}]", t.rate, t.lo, t.hi)
            },
            m.build_ns_per_key.unwrap_or(f64::NAN),
            spread(&m.hit_ns),
            spread(&m.miss_ns),
            m.expected_cost_ns
        )?;
    }
    for (label, why) in &ch.left_out {
        outln!("{label:<22} left out: {why}")?;
    }
    let names: Vec<&str> = ch
        .pareto
        .iter()
        .map(|&i| ch.candidates[i].label.as_str())
        .collect();
    outln!(
        "pareto set (bits/key, FPR, lookup ns): {}",
        names.join(", ")
    )?;
    let r = &ch.recommendation;
    outln!("recommendation: {}", ch.candidates[r.best].label)?;
    outln!("  why: {}", r.reason)?;
    if let (Some(ru), Some(ratio)) = (r.runner_up, r.cost_ratio) {
        outln!(
            "  runner-up: {} ({:.1} ns per query, {ratio:.2}× the chosen one's cost)",
            ch.candidates[ru].label,
            ch.candidates[ru].expected_cost_ns
        )?;
    }
    if let Some(o) = r.other_kind {
        let best = ch.candidates[r.best].expected_cost_ns;
        outln!(
            "  best of another kind: {} ({:.1} ns per query, {:.2}× the chosen one's cost)",
            ch.candidates[o].label,
            ch.candidates[o].expected_cost_ns,
            ch.candidates[o].expected_cost_ns / best
        )?;
    }
    for x in &ch.crossovers {
        outln!(
            "  crossover at {}: {} → {}",
            choose::format_ns(x.negative_cost_ns),
            ch.candidates[x.from].label,
            ch.candidates[x.to].label
        )?;
    }
    outln!("  rebuild: {}", r.command)
}
