//! `bloomlab calc`: solve any sensible subset of n, p, m, k for the rest.

use super::out::outln;
use super::{
    human_bytes, parse_arity, parse_filter, parse_fp_bits, parse_k, parse_m, parse_n, parse_p, pct,
    thousands,
};
use bloomlab::design::Design;
use bloomlab::filter::Width;
use bloomlab::theory::rules::{self, Allocation, Rule};
use bloomlab::units::{format_one_in, format_one_in_ln, format_prob_bounded, format_prob_ln};
use bloomlab::{Error, FilterKind, FilterSpec, Param, Result, theory};

/// Size a Bloom filter. Give any sensible subset of n, p, m, k:
/// n+p → m, k (Guava's formulas); n+m → k, p; m+p → n; n+p+k → m; p alone → bits and k per item.
/// n, p and m together are refused (p would be ignored). With `--rule`: what Guava, RedisBloom,
/// Parquet or the optimum allocate for n and p; with `--filter`: another kind sized by its own rule.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Items expected (integer >= 1; 1000000, 1,000,000, 1e6, 10k or 2^20).
    #[arg(long, allow_hyphen_values = true, value_parser = parse_n)]
    pub n: Option<u64>,
    /// Target false-positive rate, strictly between 0 and 1 (0.01, 1%, 1/100 or 1 in 100).
    #[arg(long, allow_hyphen_values = true, value_parser = parse_p)]
    pub p: Option<f64>,
    /// Bits (9585058), or a size with units: 1Mb and 10Mbit are bits, 1MB and 64KiB bytes.
    #[arg(long, allow_hyphen_values = true, value_parser = parse_m)]
    pub m: Option<u64>,
    /// Hash functions, 1 to 64 (default: the optimum).
    #[arg(long, allow_hyphen_values = true, value_parser = parse_k)]
    pub k: Option<u32>,
    /// What a system allocates for --n and --p: guava, redisbloom (`BF.RESERVE key p n`, scaling),
    /// redisbloom-nonscaling, parquet, optimal; without a value (or `all`) every rule, a line each.
    #[arg(long, num_args = 0..=1, default_missing_value = "all", value_name = "RULE")]
    pub rule: Option<String>,
    /// Size this filter kind by its own rule from --n and --p (default standard).
    #[arg(long, value_parser = parse_filter, long_help = format!("Size this filter kind by its own rule from --n and --p ({}; default standard)", bloomlab::FilterKind::names().join(", ")))]
    pub filter: Option<FilterKind>,
    /// With `--filter binary-fuse`: slots per key, 3 or 4 (4-wise: ≈1.075·f bits/key instead of
    /// 1.125·f); 0 = the default, 3.
    #[arg(long, allow_hyphen_values = true, value_parser = parse_arity, default_value = "0")]
    pub arity: u32,
    /// With `--filter cuckoo`, `xor`, `binary-fuse`, `ribbon` (result bits) or `quotient`
    /// (remainder bits): the width to size with instead of `--p`; the rate it gives is the
    /// result. 0 = chosen from `--p`.
    #[arg(long, allow_hyphen_values = true, value_parser = parse_fp_bits, default_value = "0")]
    pub fingerprint_bits: u32,
    /// Print one JSON object instead of text (with `--rule` and no value: an array, one per rule).
    #[arg(long)]
    pub json: bool,
}

/// A kind sized by its own rule for (n, p) (`calc --filter F`).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct KindSizing {
    /// The kind.
    pub filter: FilterKind,
    /// Items.
    pub n: u64,
    /// Target rate (none when a width was given instead).
    pub p: Option<f64>,
    /// The fingerprint (result, remainder) width asked for; 0 when chosen from p.
    pub fingerprint_bits: u32,
    /// Bits of the structure (cells × cell width, fingerprint slots × width).
    pub m_bits: u64,
    /// Bytes it allocates.
    pub bytes: u64,
    /// `8·bytes / n`.
    pub bits_per_key: f64,
    /// Hash functions or probes per item (cuckoo: the two candidate buckets' fingerprints).
    pub k: u32,
    /// The kind's own model rate at n items.
    pub fpr_model: f64,
    /// The kind's own description of its layout.
    pub details: Vec<(String, String)>,
}

/// Refuse flags that do not go with the others, naming them.
fn refuse(flags: &'static str, why: &str) -> Error {
    Error::invalid(Param::Other(flags), "given together", why.to_string())
}

/// The solved sizing.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Solution {
    /// Items (None in per-item mode, when only p is given).
    pub n: Option<u64>,
    /// The target rate, when one was given.
    pub p: Option<f64>,
    /// Bits (None in per-item mode).
    pub m_bits: Option<u64>,
    /// Hash functions.
    pub k: u32,
    /// Bytes of the bit array as a filter allocates it: whole 64-bit words, ⌈m/64⌉·8
    /// ([`Design::bytes`]).
    pub bytes: Option<u64>,
    /// Bits per item.
    pub bits_per_key: f64,
    /// (1 − e^(−kn/m))^k.
    pub fpr_classic: f64,
    /// Its natural logarithm (valid below f64's range, where `fpr_classic` is 0).
    #[serde(skip)]
    pub fpr_classic_ln: f64,
    /// The exact rate (Bose et al. 2008); 0 where it is below f64's range (see
    /// `fpr_exact_log10`).
    pub fpr_exact: Option<f64>,
    /// log10 of the exact rate (valid far below f64's range).
    pub fpr_exact_log10: Option<f64>,
    /// The computed bound on the exact rate's relative error.
    pub fpr_exact_rel_error: Option<f64>,
    /// The exact rate as printed (digits its bound supports).
    #[serde(skip)]
    pub fpr_exact_text: Option<String>,
    /// log2(1/p) bits per item: no filter can use fewer.
    pub lower_bound_bits_per_key: f64,
    /// How much more than the lower bound this filter uses.
    pub overhead_vs_lower_bound: f64,
    /// Expected fraction of bits set at n items.
    pub expected_fill: Option<f64>,
    /// The binomial-fill form (1 − (1 − 1/m)^(kn))^k ([`theory::fpr_bloom`]).
    pub fpr_bloom: Option<f64>,
    /// Bloom's own formula with k distinct bits per item ([`theory::fpr_bloom_1970`]).
    pub fpr_bloom_1970: Option<f64>,
    /// The same m and k laid out as k slices of ⌊m/k⌋ bits ([`theory::fpr_partitioned`]).
    pub fpr_partitioned: Option<f64>,
    /// The density n/U above which a plain bitmap over the universe U is smaller than a Bloom
    /// filter at the target p ([`theory::bitmap_break_even_density`]).
    pub bitmap_break_even_density: Option<f64>,
    /// What was solved for, in words.
    pub solved: String,
}

/// Solve (used by the command and by tests).
///
/// # Errors
/// An unsupported combination, or values out of range.
pub fn solve(a: &Args) -> Result<Solution> {
    let need = |what: &str| Error::invalid(Param::Other("n/p/m/k"), "incomplete", what.to_string());
    let (n, m, k, solved) = match (a.n, a.p, a.m, a.k) {
        (Some(_), Some(_), Some(_), _) => {
            return Err(refuse(
                "--n/--p/--m",
                "two of them: n and p give m, n and m give p, m and p give n",
            ));
        }
        (Some(n), Some(p), None, None) => {
            let d = Design::for_rate(n, p)?;
            (
                n,
                d.m,
                d.k,
                "m and k from n and p (Guava/Redisson formulas)",
            )
        }
        (Some(n), Some(p), None, Some(k)) => {
            // (1 − e^(−kn/m))^k = p  ⇔  m = −k·n / ln(1 − p^(1/k))
            let m = (-(f64::from(k)) * n as f64 / (-(p.powf(1.0 / f64::from(k)))).ln_1p()).ceil();
            if !m.is_finite() || m >= u64::MAX as f64 {
                return Err(Error::invalid(
                    Param::N,
                    n,
                    "small enough that m fits in 64 bits",
                ));
            }
            (n, m as u64, k, "m from n, p and a fixed k")
        }
        (Some(n), None, Some(m), k) => {
            let k = k.unwrap_or_else(|| theory::optimal_k(m, n));
            (n, m, k, "FPR from n, m and k")
        }
        (None, Some(p), Some(m), k) => {
            let k = k.unwrap_or_else(|| {
                // the k that maximises capacity at rate p: k = log2(1/p), rounded
                ((-p.log2()).round() as u32).clamp(1, theory::MAX_K)
            });
            let n = theory::capacity_for(m, k, p);
            if n == 0 {
                return Err(Error::invalid(
                    Param::M,
                    m,
                    format!("enough bits to hold one item at p = {p}"),
                ));
            }
            (n, m, k, "capacity n from m, p and k")
        }
        (None, Some(p), None, k) => {
            let k = k.unwrap_or_else(|| ((-p.log2()).round() as u32).clamp(1, theory::MAX_K));
            let bpk = -f64::from(k) / (-(p.powf(1.0 / f64::from(k)))).ln_1p();
            let lb = theory::lower_bound_bits_per_key(p);
            return Ok(Solution {
                n: None,
                p: Some(p),
                m_bits: None,
                k,
                bytes: None,
                bits_per_key: bpk,
                fpr_classic: p,
                fpr_classic_ln: p.ln(),
                fpr_exact: None,
                fpr_exact_log10: None,
                fpr_exact_rel_error: None,
                fpr_exact_text: None,
                lower_bound_bits_per_key: lb,
                overhead_vs_lower_bound: bpk / lb - 1.0,
                expected_fill: None,
                fpr_bloom: None,
                fpr_bloom_1970: None,
                fpr_partitioned: None,
                bitmap_break_even_density: Some(theory::bitmap_break_even_density(p)),
                solved: "bits and k per item from p".into(),
            });
        }
        (Some(_), None, None, _) => return Err(need("give p or m together with n")),
        (None, None, _, _) => return Err(need("give at least p, or n with p or m")),
    };
    // Every number of a sized filter, the TUI's Explore numbers too.
    let d = Design::compute(m, k, n, a.p)?.with_exact();
    Ok(Solution {
        n: Some(d.n),
        p: a.p,
        m_bits: Some(d.m),
        k: d.k,
        bytes: Some(d.bytes),
        bits_per_key: d.bits_per_key,
        fpr_classic: d.fpr_classic,
        fpr_classic_ln: d.fpr_classic_ln,
        fpr_exact: d.fpr_exact,
        fpr_exact_log10: d.exact.map(|e| e.ln_value / std::f64::consts::LN_10),
        fpr_exact_rel_error: d.exact.map(|e| e.rel_error),
        fpr_exact_text: Some(d.exact_text()),
        lower_bound_bits_per_key: d.lower_bound_bits_per_key,
        overhead_vs_lower_bound: d.overhead_vs_lower_bound,
        expected_fill: Some(d.expected_fill),
        fpr_bloom: Some(theory::fpr_bloom(d.m, d.n, d.k)),
        fpr_bloom_1970: Some(theory::fpr_bloom_1970(d.m, d.n, d.k)),
        fpr_partitioned: Some(theory::fpr_partitioned(d.m, d.n, d.k)),
        bitmap_break_even_density: a.p.map(theory::bitmap_break_even_density),
        solved: solved.into(),
    })
}

/// The rule names `--rule` accepts (besides `all`).
const RULE_NAMES: &str = "guava, redisbloom, redisbloom-nonscaling, parquet, optimal or all";

/// `calc --rule`: what each rule asked for allocates for (n, p).
///
/// # Errors
/// An unknown rule name; `--m`, `--k` or `--filter` given with it; n or p missing or invalid.
pub fn allocations(a: &Args) -> Result<Vec<Allocation>> {
    let name = a.rule.as_deref().unwrap_or("all");
    let asked = if name == "all" {
        Rule::ALL.to_vec()
    } else {
        vec![
            Rule::parse(name)
                .map_err(|_| Error::invalid(Param::Other("--rule"), name, RULE_NAMES))?,
        ]
    };
    if a.m.is_some() || a.k.is_some() {
        return Err(refuse(
            "--rule/--m/--k",
            "--rule sizes from --n and --p alone, as each system does",
        ));
    }
    if a.filter.is_some() {
        return Err(refuse("--rule/--filter", "one of them"));
    }
    let (Some(n), Some(p)) = (a.n, a.p) else {
        return Err(Error::invalid(
            Param::Other("--rule"),
            name,
            "together with --n and --p",
        ));
    };
    asked
        .into_iter()
        .map(|r| rules::allocate(r, n, p))
        .collect()
}

/// The kinds that take a fingerprint (result, remainder) width.
const WIDTH_KINDS: &str =
    "cuckoo, xor, binary-fuse, ribbon (result bits) and quotient (remainder bits)";

/// `calc --filter F`: the kind sized by its own rule for (n, p), and its model rate at n items.
/// Every number is the spec's [`FilterSpec::plan`] (nothing is built: the sizing the registry
/// builds, the kind's model rate, its details at n items from the formulas). Sized from p or from a fingerprint width (`fingerprint_bits` > 0, for the kinds that have one):
/// the width is used as given and the rate follows from it.
///
/// # Errors
/// Invalid n or p for the kind (xor and binary-fuse: p below 2^−16; ribbon: below 2^−32);
/// neither p nor a width; a width the kind does not take; a table past the kind's limits.
pub fn kind_sizing(
    kind: FilterKind,
    n: u64,
    p: Option<f64>,
    arity: u32,
    fingerprint_bits: u32,
) -> Result<KindSizing> {
    theory::check_n(n)?;
    if let Some(p) = p {
        theory::check_p(p)?;
    }
    let takes_width = kind.caps().width != Width::None;
    let fb = fingerprint_bits;
    if fb != 0 && !takes_width {
        return Err(Error::invalid(
            Param::FingerprintBits,
            fb,
            format!("not used by {kind}: only {WIDTH_KINDS} take a width"),
        ));
    }
    if p.is_none() && fb == 0 {
        return Err(Error::invalid(
            Param::P,
            "none",
            if takes_width {
                format!("--p, or --fingerprint-bits for {kind}")
            } else {
                "--p".to_string()
            },
        ));
    }
    let spec = FilterSpec {
        kind,
        n,
        p,
        fingerprint_bits: fb,
        arity,
        ..FilterSpec::default()
    };
    let plan = spec.plan()?;
    Ok(KindSizing {
        filter: kind,
        n,
        p,
        fingerprint_bits: fb,
        m_bits: plan.bits,
        bytes: plan.bytes,
        bits_per_key: plan.bytes as f64 * 8.0 / n as f64,
        k: plan.k,
        fpr_model: plan.fpr(),
        details: plan.details,
    })
}

fn run_rules(a: &Args) -> Result<()> {
    let all = allocations(a)?;
    if a.json {
        return print_json(a);
    }
    let (n, p) = (a.n.unwrap_or(0), a.p.unwrap_or(0.0));
    outln!(
        "bloomlab calc: what each system allocates for n = {} items at p = {} ({})",
        thousands(n),
        pct(p),
        format_one_in(p)
    )?;
    for r in &all {
        let exact = r.exact.map_or_else(
            || "n/a".to_string(),
            |e| format_prob_bounded(e.ln_value, e.rel_error),
        );
        outln!(
            "  {:<22} m {:>14} bits  k {:>2}  {:>13} bytes ({:>9})  classic {}  exact {exact}{}",
            r.rule.name(),
            thousands(r.m_bits),
            r.k,
            thousands(r.bytes),
            human_bytes(r.bytes as f64),
            pct(r.fpr_classic),
            r.fpr_split_block
                .map(|f| format!("  split-block model {}", pct(f)))
                .unwrap_or_default()
        )?;
    }
    outln!(
        "  (redisbloom = BF.RESERVE key p n: a scaling chain sizes its first filter for p/2; \
         BF.INFO Size adds {} bytes of structs)",
        rules::REDISBLOOM_STRUCT_BYTES
    )?;
    Ok(())
}

/// `calc --filter F` with its flags checked: the kind's sizing.
fn sized_kind(a: &Args, kind: FilterKind) -> Result<KindSizing> {
    if a.m.is_some() || a.k.is_some() {
        return Err(refuse(
            "--filter/--m/--k",
            "--filter sizes the kind from --n and --p by its own rule",
        ));
    }
    let (Some(n), true) = (a.n, a.p.is_some() || a.fingerprint_bits != 0) else {
        return Err(Error::invalid(
            Param::Other("--filter"),
            kind,
            "together with --n and --p (or --fingerprint-bits for a width)",
        ));
    };
    kind_sizing(kind, n, a.p, a.arity, a.fingerprint_bits)
}

fn run_kind(a: &Args, kind: FilterKind) -> Result<()> {
    let s = sized_kind(a, kind)?;
    if a.json {
        return print_json(a);
    }
    match s.p {
        Some(p) if a.fingerprint_bits == 0 => {
            outln!("bloomlab calc: a {kind} filter sized by its own rule for n and p")?;
            outln!("  n         {} items", thousands(s.n))?;
            outln!("  target p  {} ({p:?}, {})", pct(p), format_one_in(p))?;
        }
        _ => {
            outln!(
                "bloomlab calc: a {kind} filter for n at --fingerprint-bits {} (the rate is the result)",
                a.fingerprint_bits
            )?;
            outln!("  n         {} items", thousands(s.n))?;
        }
    }
    outln!(
        "  m         {} bits; {} bytes = {}",
        thousands(s.m_bits),
        thousands(s.bytes),
        human_bytes(s.bytes as f64)
    )?;
    outln!("  k         {}", s.k)?;
    outln!("  bits/key  {:.3} (of its bytes)", s.bits_per_key)?;
    outln!(
        "  FPR       model {} ({}) at n items",
        pct(s.fpr_model),
        format_one_in(s.fpr_model)
    )?;
    outln!("  details   at n items, from the formulas (calc inserts nothing):")?;
    for (key, value) in &s.details {
        outln!("  {key:<9} {value}")?;
    }
    Ok(())
}

/// Run the command.
///
/// # Errors
/// As [`solve`].
pub fn run(a: &Args) -> Result<()> {
    if a.rule.is_some() {
        return run_rules(a);
    }
    // A plain bit array is the classic design `solve` sizes; other kinds by their own rule.
    if let Some(kind) = a.filter.filter(|&k| !k.caps().bit_array) {
        return run_kind(a, kind);
    }
    let s = solved(a)?;
    if a.json {
        return print_json(a);
    }
    print_solution(&s)
}

/// The report `calc --json` prints for these flags, as a value: what the book's `{{#calc}}`
/// directive reads (one route for a computed number: this function, not a copy of it).
///
/// # Errors
/// As the command.
pub fn json(a: &Args) -> Result<serde_json::Value> {
    let to =
        |v: serde_json::Result<serde_json::Value>| v.map_err(|e| Error::Corrupt(e.to_string()));
    if a.rule.is_some() {
        let all = allocations(a)?;
        return to(if let [one] = all.as_slice() {
            serde_json::to_value(one)
        } else {
            serde_json::to_value(&all)
        });
    }
    if let Some(kind) = a.filter.filter(|&k| k != FilterKind::Standard) {
        return to(serde_json::to_value(sized_kind(a, kind)?));
    }
    to(serde_json::to_value(solved(a)?))
}

fn print_json(a: &Args) -> Result<()> {
    let v = json(a)?;
    outln!(
        "{}",
        serde_json::to_string_pretty(&v).map_err(|e| Error::Corrupt(e.to_string()))?
    )
}

/// n, p, m, k solved, with the flags of the other modes refused.
fn solved(a: &Args) -> Result<Solution> {
    if a.arity != 0 {
        return Err(Error::invalid(
            Param::Other("arity"),
            a.arity,
            "only with --filter binary-fuse",
        ));
    }
    if a.fingerprint_bits != 0 {
        return Err(Error::invalid(
            Param::FingerprintBits,
            a.fingerprint_bits,
            format!("only with --filter {WIDTH_KINDS}"),
        ));
    }
    solve(a)
}

fn print_solution(s: &Solution) -> Result<()> {
    outln!("bloomlab calc: {}", s.solved)?;
    if let Some(n) = s.n {
        outln!("  n         {} items", thousands(n))?;
    }
    if let Some(p) = s.p {
        outln!("  target p  {} ({p:?}, {})", pct(p), format_one_in(p))?;
    }
    if let (Some(m), Some(b)) = (s.m_bits, s.bytes) {
        outln!(
            "  m         {} bits = {} bytes (whole 64-bit words) = {}",
            thousands(m),
            thousands(b),
            human_bytes(b as f64)
        )?;
    }
    let kopt = match (s.m_bits, s.n) {
        (Some(m), Some(n)) => format!(
            "   (optimum (m/n)·ln 2 = {:.2})",
            theory::optimal_k_real(m, n)
        ),
        _ => String::new(),
    };
    outln!("  k         {}{kopt}", s.k)?;
    outln!(
        "  bits/key  {:.3}   lower bound log2(1/p) = {:.3}   overhead {}",
        s.bits_per_key,
        s.lower_bound_bits_per_key,
        bloomlab::units::format_overhead(s.bits_per_key, s.lower_bound_bits_per_key)
    )?;
    match &s.fpr_exact_text {
        Some(e) => outln!(
            "  FPR       classic {} ({})   exact {e}",
            format_prob_ln(s.fpr_classic_ln),
            format_one_in_ln(s.fpr_classic_ln),
        )?,
        None => outln!(
            "  FPR       {} ({})",
            format_prob_ln(s.fpr_classic_ln),
            format_one_in_ln(s.fpr_classic_ln)
        )?,
    }
    if let Some(f) = s.expected_fill {
        outln!("  fill      {:.1}% of bits set after n items", f * 100.0)?;
    }
    outln!("  (MB = 10⁶ bytes, MiB = 2²⁰ bytes: quoted sizes often mix the two)")?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(n: Option<u64>, p: Option<f64>, m: Option<u64>, k: Option<u32>) -> Args {
        Args {
            n,
            p,
            m,
            k,
            rule: None,
            filter: None,
            arity: 0,
            fingerprint_bits: 0,
            json: false,
        }
    }

    #[test]
    fn n_p_gives_guava_sizing() {
        let s = solve(&args(Some(1_000_000), Some(0.01), None, None)).unwrap();
        assert_eq!(
            (s.m_bits, s.k, s.bytes),
            (Some(9_585_058), 7, Some(1_198_136))
        );
        assert!((s.fpr_classic - 0.01).abs() < 2e-4);
    }

    #[test]
    fn other_subsets() {
        let s = solve(&args(Some(1_000_000), None, Some(9_585_058), None)).unwrap();
        assert_eq!(s.k, 7);
        let s = solve(&args(None, Some(0.01), Some(9_585_058), Some(7))).unwrap();
        let n = s.n.unwrap();
        assert!((990_000..=1_010_000).contains(&n), "{n}");
        let s = solve(&args(Some(1000), Some(0.01), None, Some(3))).unwrap();
        assert!((theory::fpr_classic(s.m_bits.unwrap(), 1000, 3) - 0.01).abs() < 1e-4);
        let s = solve(&args(None, Some(0.01), None, None)).unwrap();
        assert_eq!(s.k, 7);
        assert!((s.bits_per_key - 9.6).abs() < 0.1);
        assert!(solve(&args(Some(10), None, None, None)).is_err());
        assert!(solve(&args(None, None, Some(10), None)).is_err());
    }

    #[test]
    fn layout_variants_and_break_even_in_the_report() {
        // The book's hashing.md and maths.md read these at m = 256, n = 26, k = 7.
        let s = solve(&args(Some(26), None, Some(256), Some(7))).unwrap();
        assert_eq!(s.fpr_bloom, Some(theory::fpr_bloom(256, 26, 7)));
        assert_eq!(s.fpr_bloom_1970, Some(theory::fpr_bloom_1970(256, 26, 7)));
        assert_eq!(s.fpr_partitioned, Some(theory::fpr_partitioned(256, 26, 7)));
        assert!(s.fpr_partitioned > s.fpr_bloom_1970 && s.fpr_bloom_1970 > s.fpr_bloom);
        assert_eq!(s.bitmap_break_even_density, None);
        let s = solve(&args(None, Some(0.001), None, None)).unwrap();
        assert_eq!(
            s.bitmap_break_even_density,
            Some(theory::bitmap_break_even_density(0.001))
        );
    }
}
