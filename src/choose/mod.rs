//! Which filter, at which rate, for a workload: candidates that meet the constraints, each
//! measured (or, for a live screen, estimated from theory), the Pareto set over (bits/key, FPR,
//! ns/lookup) and a recommendation by expected cost per query.
//!
//! The cost model is Lang, Neumann, Kemper & Boncz (2019, "Performance-Optimal Filtering:
//! Bloom overtakes Cuckoo at High Throughput", PVLDB 12(5), §2): a query costs the filter
//! lookup, plus, for an absent key the filter lets through, the work the filter was there to
//! save (the *negative cost*: a disk read, a database query, a probe of a hash table):
//!
//! `cost = lookup + (1 − hit ratio) · FPR · negative cost`, with
//! `lookup = hit ratio · hit ns + (1 − hit ratio) · miss ns`.
//!
//! ```
//! use bloomlab::choose::{Constraints, Target, estimate, recommend};
//! let mut c = Constraints::new(100_000, Target::Fpr(0.01));
//! c.negative_cost_ns = 1e6; // a database query
//! c.deletes = true;
//! let est = estimate(&c).unwrap();
//! assert!(est.iter().all(|m| m.spec.kind.caps().removable));
//! let r = recommend(&est, &c).unwrap();
//! assert!(r.command.starts_with("bloomlab build"));
//! ```

#[cfg(feature = "experiments")]
pub mod chart;
mod evaluate;
pub mod model;

pub use evaluate::{evaluate, run};
pub use model::{ModelPoint, model_curve, model_point};

use crate::error::{Error, Param, Result};
use crate::filter::{FilterKind, Sizing};
use crate::measure::TimingStats;
use crate::spec::FilterSpec;
use crate::theory;
use crate::workload::KeyKind;

/// What the filter must achieve in space or rate.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
#[serde(rename_all = "kebab-case", tag = "by", content = "value")]
pub enum Target {
    /// A false-positive rate at most p, 0 < p < 1: each candidate as small as it can be.
    Fpr(f64),
    /// At most b bits per key: each candidate at the lowest rate that fits.
    BitsPerKey(f64),
    /// At most this many bytes for n keys (= 8·bytes/n bits per key).
    Memory(u64),
}

/// The workload and its constraints.
/// The most bits a space budget may give all n keys together: 2^63, the bound on every m.
pub const MAX_TOTAL_BITS: f64 = 9_223_372_036_854_775_808.0;

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[allow(
    clippy::struct_excessive_bools,
    reason = "independent yes/no constraints, read by name"
)]
pub struct Constraints {
    /// Keys the filter holds.
    pub n: u64,
    /// Rate or space.
    pub target: Target,
    /// The kind of keys measured (the cache regime and hashing cost follow from n and this).
    pub keys: KeyKind,
    /// Work a true negative saves, in ns (10 µs = 10,000: a disk read).
    pub negative_cost_ns: f64,
    /// Share of queries for keys that are present, 0 ≤ h ≤ 1.
    pub hit_ratio: f64,
    /// Keys must be removable.
    pub deletes: bool,
    /// The set grows past n: only kinds that keep their bound while growing.
    pub grows: bool,
    /// Static kinds (built once from the whole set: xor, binary fuse, ribbon) are allowed.
    pub allow_static: bool,
    /// Threads that query the filter at once (1: lookups timed on one thread).
    pub threads: u32,
    /// Fewer queries and one trial: under 10 s at n = 10⁶ in release.
    pub quick: bool,
    /// Master seed of keys and hashes.
    pub seed: u64,
}

impl Constraints {
    /// n keys at `target`: u64 keys, negative cost 1 µs, hit ratio 0.1, no deletes, no growth,
    /// static kinds not allowed, one thread, full measurement, seed 1.
    #[must_use]
    pub fn new(n: u64, target: Target) -> Self {
        Self {
            n,
            target,
            keys: KeyKind::U64,
            negative_cost_ns: 1_000.0,
            hit_ratio: 0.1,
            deletes: false,
            grows: false,
            allow_static: false,
            threads: 1,
            quick: false,
            seed: 1,
        }
    }

    /// Refuse constraints no filter can meet, naming the constraint.
    ///
    /// A space budget is at most [`MAX_TOTAL_BITS`] bits in all (b · n).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`]: n = 0; p outside (0, 1); a memory or bits/key budget of at
    /// most 1 bit per key (no filter beats ε = 2^−b, so ε ≥ 1/2 there); a negative cost or hit
    /// ratio out of range; deletes together with growth (no kind does both).
    pub fn check(&self) -> Result<()> {
        theory::check_n(self.n)?;
        match self.target {
            Target::Fpr(p) => {
                theory::check_p(p)?;
            }
            Target::BitsPerKey(_) | Target::Memory(_) => {
                let b = self.bits_per_key_budget().unwrap_or(0.0);
                let (param, value) = match self.target {
                    Target::Memory(bytes) => (Param::Other("memory"), format!("{bytes} B")),
                    _ => (Param::Other("bits-per-key"), crate::units::format_number(b)),
                };
                if !b.is_finite() || b <= 1.0 {
                    return Err(Error::invalid(
                        param,
                        value,
                        format!(
                            "more than 1 bit per key for n = {} (this is {b:.3}; a filter of b bits per key has FPR ≥ 2^-b)",
                            self.n
                        ),
                    ));
                }
                // Every candidate's bit count is b · n: it must fit below 2^63, as every m does.
                let most = MAX_TOTAL_BITS / self.n as f64;
                if b > most {
                    return Err(Error::invalid(
                        param,
                        value,
                        format!(
                            "at most 2^63 bits in all: up to {} bits per key for n = {}",
                            crate::units::format_number(most.floor()),
                            self.n
                        ),
                    ));
                }
            }
        }
        if !(self.negative_cost_ns.is_finite() && self.negative_cost_ns >= 0.0) {
            return Err(Error::invalid(
                Param::Other("negative-cost"),
                self.negative_cost_ns,
                "a duration >= 0 (50ns, 10us, 1ms)",
            ));
        }
        if !(0.0..=1.0).contains(&self.hit_ratio) {
            return Err(Error::invalid(
                Param::Other("hit-ratio"),
                self.hit_ratio,
                "a share from 0 to 1",
            ));
        }
        if self.threads == 0 {
            return Err(Error::invalid(Param::Other("threads"), 0, "at least 1"));
        }
        if self.deletes && self.grows {
            return Err(Error::invalid(
                Param::Other("constraints"),
                "--deletes with --grows",
                "no filter kind both removes keys and keeps its rate while growing (drop one)",
            ));
        }
        Ok(())
    }

    /// Bits per key the space target allows (`None` for an FPR target).
    #[must_use]
    pub fn bits_per_key_budget(&self) -> Option<f64> {
        match self.target {
            Target::Fpr(_) => None,
            Target::BitsPerKey(b) => Some(b),
            Target::Memory(bytes) => Some(bytes as f64 * 8.0 / self.n.max(1) as f64),
        }
    }

    /// Whether `kind` may be a candidate: removable when deletes are needed, growing when the
    /// set grows, static only when allowed.
    #[must_use]
    pub fn admits(&self, kind: FilterKind) -> bool {
        let c = kind.caps();
        (!self.deletes || c.removable)
            && (!self.grows || c.grows)
            && (self.allow_static || !c.static_set)
    }

    /// The constraints in words, for an error or a heading: `n = 1000000, p ≤ 0.01, deletes`.
    #[must_use]
    pub fn describe(&self) -> String {
        let mut s = format!("n = {}", self.n);
        match self.target {
            Target::Fpr(p) => s.push_str(&format!(", p ≤ {}", crate::units::format_prob(p))),
            Target::BitsPerKey(b) => s.push_str(&format!(", ≤ {b} bits/key")),
            Target::Memory(m) => s.push_str(&format!(", ≤ {m} bytes")),
        }
        for (on, word) in [
            (self.deletes, "deletes"),
            (self.grows, "grows"),
            (self.allow_static, "static allowed"),
        ] {
            if on {
                s.push_str(", ");
                s.push_str(word);
            }
        }
        s
    }
}

/// A sized candidate: the spec to build and a short name of its variant.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Candidate {
    /// `cuckoo b=2`, `standard k=3`, `binary-fuse arity=4`, …
    pub label: String,
    /// What to build (n, and p or m, set by the target).
    pub spec: FilterSpec,
    /// Its model point.
    pub model: ModelPoint,
}

/// Every kind the constraints admit, with its main variants (k for standard, bucket size for
/// cuckoo, arity for binary fuse; block size is blocked's 512 against split-block's 256 bits),
/// each sized for the target: at the rate (as small as it can be) or in the space (at the
/// lowest rate that fits).
///
/// # Errors
/// [`Constraints::check`]'s refusals; [`Error::InvalidParameter`] naming `constraints` when
/// no kind and variant meets them.
pub fn candidates(c: &Constraints) -> Result<Vec<Candidate>> {
    c.check()?;
    let mut out = Vec::new();
    for kind in FilterKind::ALL.into_iter().filter(|&k| c.admits(k)) {
        for (label, base) in variants(kind, c) {
            if let Some(spec) = size(base, c)
                && let Ok(model) = model_point(&spec)
            {
                out.push(Candidate { label, spec, model });
            }
        }
    }
    if out.is_empty() {
        let why = if FilterKind::ALL.iter().all(|&k| !c.admits(k)) {
            "no filter kind has these capabilities".to_string()
        } else {
            match c.target {
                Target::Fpr(p) => format!(
                    "no admitted kind reaches p = {} at this n",
                    crate::units::format_prob(p)
                ),
                _ => "no admitted kind fits the space at this n".to_string(),
            }
        };
        return Err(Error::invalid(
            Param::Other("constraints"),
            c.describe(),
            why,
        ));
    }
    Ok(out)
}

/// A kind's variants before sizing: `(label, spec with n and the seed)`.
fn variants(kind: FilterKind, c: &Constraints) -> Vec<(String, FilterSpec)> {
    let base = FilterSpec {
        kind,
        n: c.n,
        p: None,
        seed: c.seed,
        ..FilterSpec::default()
    };
    let name = kind.name().to_string();
    match kind {
        // The k that minimises space, and half of it: fewer probes for more bits.
        FilterKind::Standard => vec![
            (name.clone(), base.clone()),
            (
                format!("{name} k/2"),
                FilterSpec {
                    k: Some(0), // marker: half of the optimal k, resolved by `size`
                    ..base
                },
            ),
        ],
        FilterKind::Cuckoo => theory::cuckoo::BUCKET_SIZES
            .iter()
            .map(|&b| {
                (
                    format!("{name} b={b}"),
                    FilterSpec {
                        bucket_size: b,
                        ..base.clone()
                    },
                )
            })
            .collect(),
        FilterKind::BinaryFuse => theory::binary_fuse::ARITIES
            .iter()
            .map(|&a| {
                (
                    format!("{name} arity={a}"),
                    FilterSpec {
                        arity: a,
                        ..base.clone()
                    },
                )
            })
            .collect(),
        // Boost's multiblock<uint32_t,8> (the split-block layout) and multiblock<uint64_t,8>.
        FilterKind::Multiblock => [32, 64]
            .into_iter()
            .map(|w| {
                (
                    format!("{name} {w}x8"),
                    FilterSpec {
                        word_bits: w,
                        words: 8,
                        ..base.clone()
                    },
                )
            })
            .collect(),
        FilterKind::Counting
        | FilterKind::Blocked
        | FilterKind::SplitBlock
        | FilterKind::Scalable
        | FilterKind::Xor
        | FilterKind::Ribbon
        | FilterKind::Quotient
        | FilterKind::Prefix => vec![(name, base)],
    }
}

/// Size `base` for the target; `None` when it cannot meet it.
fn size(mut spec: FilterSpec, c: &Constraints) -> Option<FilterSpec> {
    let half_k = spec.k == Some(0);
    spec.k = None;
    let n = c.n;
    match (c.target, spec.kind.caps().sizing) {
        (Target::Fpr(p), Sizing::Bits) if half_k => {
            // Half the optimal k, and the smallest m at which the classic rate meets p:
            // p = (1 − e^(−kn/m))^k  ⇔  m = −kn / ln(1 − p^(1/k)).
            let k = (theory::size_for(n, p).ok()?.k / 2).max(1);
            let m = -(f64::from(k) * n as f64) / (-(p.powf(1.0 / f64::from(k)))).ln_1p();
            spec.m = Some(m.ceil() as u64);
            spec.k = Some(k);
        }
        (Target::Fpr(p), _) => spec.p = Some(p),
        (_, Sizing::Bits) => {
            let b = c.bits_per_key_budget()?;
            let caps = spec.kind.caps();
            let m = (b * n as f64 / f64::from(caps.cell_bits)).floor() as u64;
            // Blocked filters round m up to whole blocks: round down first so they fit.
            let block = caps.block_bits;
            let m = m / block * block;
            if m == 0 {
                return None;
            }
            spec.m = Some(m);
            if half_k {
                spec.k = Some((theory::optimal_k(m, n) / 2).max(1));
            }
        }
        (_, Sizing::Rate) => {
            // The lowest rate whose model size fits, on a grid of rates 10% apart.
            let b = c.bits_per_key_budget()?;
            let mut p = 0.5f64;
            let mut best = None;
            while p > 1e-12 {
                let s = FilterSpec {
                    p: Some(p),
                    ..spec.clone()
                };
                if let Ok(pt) = model_point(&s)
                    && pt.bits_per_key <= b * (1.0 + 1e-9)
                {
                    best = Some(s);
                }
                p /= 1.1;
            }
            return best;
        }
    }
    Some(spec)
}

/// One candidate's numbers: measured ([`evaluate`]) or estimated from theory ([`estimate`]).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Measured {
    /// The variant's name (`cuckoo b=4`).
    pub label: String,
    /// The spec built.
    pub spec: FilterSpec,
    /// `true`: built and timed; `false`: the theory model of [`estimate`].
    pub measured: bool,
    /// Payload bits of the filter as built ([`crate::Filter::bits`]; model: its
    /// [`crate::registry::Plan`]'s bits).
    pub bits: u64,
    /// Heap bytes of the filter (model: payload bits / 8).
    pub bytes: u64,
    /// Heap bits per key.
    pub bits_per_key: f64,
    /// Measured false-positive rate (model: the kind's model rate).
    pub fpr: f64,
    /// Its 95% interval (model: the rate itself at both ends).
    pub fpr_ci95: [f64; 2],
    /// The kind's model rate at n.
    pub fpr_model: f64,
    /// Absent keys queried for the FPR (0 for the model).
    pub queries: u64,
    /// Build time per key, ns (inserts, or a static kind's construction); `None` for the model.
    pub build_ns_per_key: Option<f64>,
    /// Lookup of a present key, ns: median, min, max over timing samples (model: all equal).
    pub hit_ns: TimingStats,
    /// Lookup of an absent key, ns.
    pub miss_ns: TimingStats,
    /// With `threads > 1`: absent-key lookup ns per query per thread while all threads query.
    pub miss_ns_threads: Option<f64>,
    /// `h · hit + (1 − h) · miss` (medians), ns.
    pub lookup_ns: f64,
    /// `lookup + (1 − h) · FPR · negative cost`, ns per query.
    pub expected_cost_ns: f64,
}

impl Measured {
    /// The expected cost per query at another negative cost (same hit ratio).
    #[must_use]
    pub fn cost_at(&self, negative_cost_ns: f64, hit_ratio: f64) -> f64 {
        self.lookup_ns + (1.0 - hit_ratio) * self.fpr * negative_cost_ns
    }

    /// The part of the expected cost from false positives, ns.
    #[must_use]
    pub fn fp_cost_ns(&self, c: &Constraints) -> f64 {
        (1.0 - c.hit_ratio) * self.fpr * c.negative_cost_ns
    }
}

fn flat(ns: f64) -> TimingStats {
    TimingStats {
        median: ns,
        min: ns,
        max: ns,
        samples: 0,
    }
}

/// `h · hit + (1 − h) · miss`.
#[must_use]
pub fn lookup_mix(hit_ns: f64, miss_ns: f64, hit_ratio: f64) -> f64 {
    hit_ratio * hit_ns + (1.0 - hit_ratio) * miss_ns
}

/// Every candidate estimated from theory alone ([`model`]): no filter built, no key hashed —
/// microseconds for the whole list, for a live screen. Lookup times are the model's
/// ([`model::lookup_ns`]), good for ranking in the right cache regime, not for quoting.
///
/// # Errors
/// As [`candidates`].
pub fn estimate(c: &Constraints) -> Result<Vec<Measured>> {
    Ok(candidates(c)?
        .into_iter()
        .map(|cand| {
            let hit = model::lookup_ns(&cand.model, true);
            let miss = model::lookup_ns(&cand.model, false);
            let lookup = lookup_mix(hit, miss, c.hit_ratio);
            let fpr = cand.model.fpr;
            Measured {
                label: cand.label,
                spec: cand.spec,
                measured: false,
                bits: cand.model.bits,
                bytes: cand.model.bits.div_ceil(8),
                bits_per_key: cand.model.bits_per_key,
                fpr,
                fpr_ci95: [fpr, fpr],
                fpr_model: fpr,
                queries: 0,
                build_ns_per_key: None,
                hit_ns: flat(hit),
                miss_ns: flat(miss),
                miss_ns_threads: None,
                lookup_ns: lookup,
                expected_cost_ns: lookup + (1.0 - c.hit_ratio) * fpr * c.negative_cost_ns,
            }
        })
        .collect())
}

/// Indices of the Pareto set over (bits/key, FPR, lookup ns), all minimised: no other
/// candidate is at least as good in all three and better in one.
#[must_use]
pub fn pareto(all: &[Measured]) -> Vec<usize> {
    let key = |m: &Measured| [m.bits_per_key, m.fpr, m.lookup_ns];
    (0..all.len())
        .filter(|&i| {
            let a = key(&all[i]);
            !all.iter().any(|o| {
                let b = key(o);
                b.iter().zip(&a).all(|(x, y)| x <= y) && b.iter().zip(&a).any(|(x, y)| x < y)
            })
        })
        .collect()
}

/// The recommendation.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Recommendation {
    /// Index of the cheapest candidate by expected cost.
    pub best: usize,
    /// Index of the second cheapest candidate (the second row of the ranking by expected
    /// cost, whatever its kind); `None` with a single candidate.
    pub runner_up: Option<usize>,
    /// Index of the cheapest candidate of another kind than the best, when that is not the
    /// runner-up already (the runner-up is often a variant of the chosen kind); `None` otherwise.
    pub other_kind: Option<usize>,
    /// `runner-up cost / best cost` (≥ 1).
    pub cost_ratio: Option<f64>,
    /// Why, in one sentence.
    pub reason: String,
    /// The `bloomlab build …` line that builds the chosen filter from a key file.
    pub command: String,
}

/// Recommend the candidate with the lowest expected cost per query.
///
/// # Errors
/// [`Error::InvalidParameter`] naming `constraints` for an empty list.
pub fn recommend(all: &[Measured], c: &Constraints) -> Result<Recommendation> {
    let by_cost = |a: &usize, b: &usize| {
        all[*a]
            .expected_cost_ns
            .total_cmp(&all[*b].expected_cost_ns)
    };
    let best = (0..all.len())
        .min_by(by_cost)
        .ok_or_else(|| Error::invalid(Param::Other("constraints"), c.describe(), "a candidate"))?;
    let b = &all[best];
    let runner_up = (0..all.len()).filter(|&i| i != best).min_by(by_cost);
    let other_kind = (0..all.len())
        .filter(|&i| all[i].spec.kind != b.spec.kind)
        .min_by(by_cost)
        .filter(|&i| Some(i) != runner_up);
    let cost_ratio = runner_up.map(|r| all[r].expected_cost_ns / b.expected_cost_ns);
    let mut reason = format!(
        "{} has the lowest expected cost, {:.1} ns per query ({:.1} ns lookup + {:.1} ns of false positives at FPR {}, {:.2} bits/key)",
        b.label,
        b.expected_cost_ns,
        b.lookup_ns,
        b.fp_cost_ns(c),
        crate::units::format_prob(b.fpr),
        b.bits_per_key
    );
    if let (Some(r), Some(ratio)) = (runner_up, cost_ratio) {
        let r = &all[r];
        let slower = r.lookup_ns - b.lookup_ns;
        let more_fp = r.fp_cost_ns(c) - b.fp_cost_ns(c);
        let why = if more_fp > slower {
            format!(
                "mostly because its FPR {} costs {:.1} ns more in wasted work",
                crate::units::format_prob(r.fpr),
                more_fp
            )
        } else {
            format!("mostly because its lookup takes {slower:.1} ns longer")
        };
        reason.push_str(&format!(
            "; the runner-up {} costs {ratio:.2}× as much, {why}.",
            r.label
        ));
    } else {
        reason.push('.');
    }
    Ok(Recommendation {
        best,
        runner_up,
        other_kind,
        cost_ratio,
        reason,
        command: build_command(&b.spec),
    })
}

/// The `bloomlab build` line for `spec` (keys from `keys.txt`, saved to `chosen.bloom`).
#[must_use]
pub fn build_command(spec: &FilterSpec) -> String {
    let mut s = format!(
        "bloomlab build --keys keys.txt --filter {} --n {}",
        spec.kind, spec.n
    );
    match (spec.m, spec.p) {
        (Some(m), _) => s.push_str(&format!(" --m {m}")),
        (None, Some(p)) => s.push_str(&format!(" --p {p}")),
        (None, None) => {}
    }
    if let Some(k) = spec.k {
        s.push_str(&format!(" --k {k}"));
    }
    if spec.bucket_size != 0 {
        s.push_str(&format!(" --bucket-size {}", spec.bucket_size));
    }
    if spec.fingerprint_bits != 0 {
        s.push_str(&format!(" --fingerprint-bits {}", spec.fingerprint_bits));
    }
    if spec.arity != 0 {
        s.push_str(&format!(" --arity {}", spec.arity));
    }
    if spec.seed != 0 {
        s.push_str(&format!(" --seed {}", spec.seed));
    }
    s.push_str(&format!(" --hash {} --out chosen.bloom", spec.hash));
    s
}

/// Where the cheapest candidate changes as the negative cost grows.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Crossover {
    /// The negative cost (ns) at which the two cost the same.
    pub negative_cost_ns: f64,
    /// Cheapest below it (index).
    pub from: usize,
    /// Cheapest above it (index).
    pub to: usize,
}

/// The crossovers of the lower envelope of the cost lines `lookup + (1 − h)·FPR·c` for c in
/// `[lo, hi]` ns, in increasing c.
#[must_use]
pub fn crossovers(all: &[Measured], hit_ratio: f64, lo: f64, hi: f64) -> Vec<Crossover> {
    let mut out = Vec::new();
    let cheapest = |c: f64| {
        (0..all.len()).min_by(|&a, &b| {
            all[a]
                .cost_at(c, hit_ratio)
                .total_cmp(&all[b].cost_at(c, hit_ratio))
                .then(all[a].fpr.total_cmp(&all[b].fpr))
        })
    };
    let Some(mut cur) = cheapest(lo) else {
        return out;
    };
    let mut at = lo;
    let miss = 1.0 - hit_ratio;
    loop {
        // The next line to cross below the current one: smaller slope, first crossing after `at`.
        let next = (0..all.len())
            .filter(|&j| all[j].fpr < all[cur].fpr && miss > 0.0)
            .map(|j| {
                let x =
                    (all[j].lookup_ns - all[cur].lookup_ns) / (miss * (all[cur].fpr - all[j].fpr));
                (j, x)
            })
            .filter(|&(_, x)| x > at && x.is_finite())
            .min_by(|a, b| {
                a.1.total_cmp(&b.1)
                    .then(all[a.0].fpr.total_cmp(&all[b.0].fpr))
            });
        match next {
            Some((j, x)) if x <= hi => {
                out.push(Crossover {
                    negative_cost_ns: x,
                    from: cur,
                    to: j,
                });
                cur = j;
                at = x;
            }
            _ => break,
        }
    }
    out
}

/// The whole answer of `bloomlab choose`: the fields of its `--json` output.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Choice {
    /// The constraints asked.
    pub constraints: Constraints,
    /// Every candidate, measured.
    pub candidates: Vec<Measured>,
    /// Indices into `candidates` of the Pareto set over (bits/key, FPR, lookup ns).
    pub pareto: Vec<usize>,
    /// The pick.
    pub recommendation: Recommendation,
    /// Where the pick changes between 1 ns and 10 ms of negative cost.
    pub crossovers: Vec<Crossover>,
    /// Candidates that could not be measured: `(label, reason)`.
    pub left_out: Vec<(String, String)>,
}

/// Parse a duration into nanoseconds: a number with `ns`, `us` (or `µs`), `ms` or `s`; a bare
/// number is nanoseconds (`50ns`, `10us`, `1ms`, `2.5e3`).
///
/// # Errors
/// [`Error::InvalidParameter`] naming `negative-cost`.
pub fn parse_duration_ns(s: &str) -> Result<f64> {
    let t = s.trim();
    let bad = || {
        Error::invalid(
            Param::Other("negative-cost"),
            format!("'{s}'"),
            "a duration >= 0: 50ns, 10us, 1ms, 2s (a bare number is ns)",
        )
    };
    let (num, scale) = [
        ("ns", 1.0),
        ("us", 1e3),
        ("µs", 1e3),
        ("μs", 1e3),
        ("ms", 1e6),
        ("s", 1e9),
    ]
    .iter()
    .find_map(|&(suf, f)| t.strip_suffix(suf).map(|n| (n.trim(), f)))
    .unwrap_or((t, 1.0));
    let v: f64 = num.parse().map_err(|_| bad())?;
    let why = |what: &str| {
        Error::invalid(
            Param::Other("negative-cost"),
            format!("'{s}' {what}"),
            "a duration >= 0: 50ns, 10us, 1ms, 2s (a bare number is ns)",
        )
    };
    // "-0" parses as -0.0 and 1e-999 as 0: neither is what was written.
    if num.starts_with('-') {
        return Err(why("is negative"));
    }
    if !v.is_finite() {
        return Err(bad());
    }
    let mantissa = num.split(['e', 'E']).next().unwrap_or(num);
    if v == 0.0 && mantissa.chars().any(|c| matches!(c, '1'..='9')) {
        return Err(why(
            "is too small for a 64-bit float (it would be 0: give 0 for no cost)",
        ));
    }
    let ns = v * scale;
    if !ns.is_finite() {
        return Err(bad());
    }
    Ok(ns)
}

/// A duration in ns written with the unit that keeps it short: `50 ns`, `10 µs`, `1 ms`.
#[must_use]
pub fn format_ns(ns: f64) -> String {
    let (v, unit) = if ns < 1e3 {
        (ns, "ns")
    } else if ns < 1e6 {
        (ns / 1e3, "µs")
    } else if ns < 1e9 {
        (ns / 1e6, "ms")
    } else {
        (ns / 1e9, "s")
    };
    let text = format!("{v:.3}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    format!("{text} {unit}")
}

#[cfg(test)]
mod tests;
