//! Issue 44's side-by-side, as the issue describes it: one process, p = 1%, u64 keys from a
//! SplitMix64 stream (present: outputs 0..n, absent: outputs n..2n), bloomlab's
//! `StandardBloom<Foldhash, EnhancedDouble64>` fed the key's 8 little-endian bytes, fastbloom
//! 0.17 `BloomFilter::with_false_pos(0.01).hasher(foldhash::fast::RandomState)` fed the `u64`,
//! every subject in rotated order per round, medians of the rounds, ns per key. A third subject,
//! a second bloomlab filter built the same way (the noise witness), is timed in the rotation too,
//! and two query loops written here over the public API on the first bloomlab filter: the
//! early-exit loop `contains` runs (`for_each_index(.., |i| bits.get(i))`, here with k, m, hasher and
//! bits taken out of the filter once) and a
//! loop without an early exit (every probe loaded and ANDed). The control for the strategy is a
//! fourth filter, `StandardBloom<Foldhash, RotateAdd64>` (fastbloom's own recurrence, two
//! operations a probe), built and timed like the others: what enhanced-double-64 costs over it in
//! the same run is the strategy's share.
//!
//! ```text
//! prlimit --as=8000000000 cargo run --release --example standard_dram -- N [ROUNDS] [QUERIES]
//! ```
//! Each round rebuilds every filter (the timed insert: keys 0..n into an empty filter), then
//! queries QUERIES (default min(n, 10^7)) present keys in stream order (hits) and as many absent
//! ones (misses). Prints a markdown table on stdout (progress on stderr).
//!
//! `standard_dram --only bloomlab|fastbloom|bloomlab-ra N QUERIES hit|miss|both`: build one filter with all n
//! keys, then answer QUERIES queries (hits, misses or both in turn), for valgrind
//! (`STANDARD_DRAM_LOOP=early|all` picks the early-exit or the all-probes loop for bloomlab).
//! With `STANDARD_DRAM_CALLGRIND=1` it runs `callgrind_control -i on` on itself after the build
//! and `callgrind_control -d` after each pass, so that
//! `valgrind --tool=callgrind --instr-atstart=no --cache-sim=yes --branch-sim=yes` counts (and
//! simulates the caches and branch predictor for) the queries alone, one output file a pass;
//! the query loops are the functions `query_lab*` and `query_fast`.

use bloomlab::hash::{EnhancedDouble64, Foldhash, IndexStrategy, RotateAdd64, mix64};
use bloomlab::{Filter, StandardBloom};
use std::hint::black_box;
use std::time::Instant;

const P: f64 = 0.01;

type Lab = StandardBloom<Foldhash, EnhancedDouble64>;
type LabRa = StandardBloom<Foldhash, RotateAdd64>;
type Fast = fastbloom::BloomFilter<foldhash::fast::RandomState>;

/// Output `i` of a SplitMix64 stream seeded with 0.
fn key(i: u64) -> u64 {
    mix64((i + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15))
}

fn new_lab(n: u64) -> Lab {
    StandardBloom::with_rate_and(n, P, Foldhash::default(), EnhancedDouble64).expect("sizing")
}

fn new_lab_ra(n: u64) -> LabRa {
    StandardBloom::with_rate_and(n, P, Foldhash::default(), RotateAdd64).expect("sizing")
}

fn new_fast(n: u64) -> Fast {
    fastbloom::BloomFilter::with_false_pos(P)
        .hasher(foldhash::fast::RandomState::default())
        .expected_items(n as usize)
}

/// Keys `from..to` queried in order; how many answered "present".
#[inline(never)]
fn query_lab(f: &Lab, from: u64, to: u64) -> u64 {
    (from..to)
        .map(|i| u64::from(f.contains(&key(i).to_le_bytes())))
        .sum()
}

/// The early-exit loop of `contains_item`, over the public API.
#[inline(never)]
fn query_lab_early(f: &Lab, from: u64, to: u64) -> u64 {
    let (bits, h, s, k) = (f.bit_vec(), f.hasher(), f.strategy(), f.k());
    (from..to)
        .map(|i| {
            let item = key(i).to_le_bytes();
            u64::from(s.for_each_index(h, &item, k, bits.len(), |j| bits.get(j)))
        })
        .sum()
}

/// Every probe loaded and ANDed, no early exit.
#[inline(never)]
fn query_lab_all(f: &Lab, from: u64, to: u64) -> u64 {
    let (bits, h, s, k) = (f.bit_vec(), f.hasher(), f.strategy(), f.k());
    (from..to)
        .map(|i| {
            let item = key(i).to_le_bytes();
            let mut all = true;
            s.for_each_index(h, &item, k, bits.len(), |j| {
                all &= bits.get(j);
                true
            });
            u64::from(all)
        })
        .sum()
}

/// The control: `contains` with rotate-add-64.
#[inline(never)]
fn query_lab_ra(f: &LabRa, from: u64, to: u64) -> u64 {
    (from..to)
        .map(|i| u64::from(f.contains(&key(i).to_le_bytes())))
        .sum()
}

#[inline(never)]
fn query_fast(f: &Fast, from: u64, to: u64) -> u64 {
    (from..to).map(|i| u64::from(f.contains(&key(i)))).sum()
}

#[inline(never)]
fn insert_lab(f: &mut Lab, n: u64) {
    for i in 0..n {
        f.insert(&key(i).to_le_bytes());
    }
}

#[inline(never)]
fn insert_lab_ra(f: &mut LabRa, n: u64) {
    for i in 0..n {
        f.insert(&key(i).to_le_bytes());
    }
}

#[inline(never)]
fn insert_fast(f: &mut Fast, n: u64) {
    for i in 0..n {
        f.insert(&key(i));
    }
}

enum Subject {
    Lab(Lab),
    Fast(Fast),
    LabRa(LabRa),
}

impl Subject {
    fn build(which: usize, n: u64) -> (Self, f64) {
        let t = Instant::now();
        let s = if which == 1 {
            let mut f = new_fast(n);
            insert_fast(&mut f, n);
            Subject::Fast(f)
        } else if which == 3 {
            let mut f = new_lab_ra(n);
            insert_lab_ra(&mut f, n);
            Subject::LabRa(f)
        } else {
            let mut f = new_lab(n);
            insert_lab(&mut f, n);
            Subject::Lab(f)
        };
        (s, t.elapsed().as_nanos() as f64 / n as f64)
    }
    /// `lp`: the query loop for a bloomlab filter (0 `contains`, 1 early exit, 2 all probes).
    fn query(&self, from: u64, to: u64, lp: usize) -> (u64, f64) {
        let t = Instant::now();
        let c = match self {
            Subject::Lab(f) if lp == 1 => query_lab_early(f, from, to),
            Subject::Lab(f) if lp == 2 => query_lab_all(f, from, to),
            Subject::Lab(f) => query_lab(f, from, to),
            Subject::Fast(f) => query_fast(f, from, to),
            Subject::LabRa(f) => query_lab_ra(f, from, to),
        };
        (
            black_box(c),
            t.elapsed().as_nanos() as f64 / (to - from) as f64,
        )
    }
    fn bits(&self) -> u64 {
        match self {
            Subject::Lab(f) => f.bits(),
            Subject::Fast(f) => f.num_bits() as u64,
            Subject::LabRa(f) => f.bits(),
        }
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let h = v.len() / 2;
    if v.len() % 2 == 1 {
        v[h]
    } else {
        (v[h - 1] + v[h]) / 2.0
    }
}

fn arg<T: std::str::FromStr>(args: &[String], i: usize, default: T) -> T {
    match args.get(i) {
        None => default,
        Some(s) => s.parse().unwrap_or_else(|_| {
            eprintln!("standard_dram: argument {} ({s:?}) is not a number", i + 1);
            std::process::exit(2);
        }),
    }
}

/// One filter, built, then `q` queries (for valgrind).
fn only(args: &[String]) {
    let which = match args.get(1).map(String::as_str) {
        Some("bloomlab") => 0,
        Some("fastbloom") => 1,
        Some("bloomlab-ra") => 3,
        _ => {
            eprintln!("standard_dram: --only bloomlab|fastbloom|bloomlab-ra N QUERIES hit|miss");
            std::process::exit(2);
        }
    };
    let n: u64 = arg(args, 2, 1_000_000);
    let q: u64 = arg(args, 3, 1_000_000);
    let ops: &[u64] = match args.get(4).map(String::as_str) {
        Some("hit") => &[0],
        Some("miss") => &[1],
        Some("both") => &[0, 1],
        _ => {
            eprintln!("standard_dram: the 4th argument is hit, miss or both");
            std::process::exit(2);
        }
    };
    let (s, _) = Subject::build(which, n);
    let lp = match std::env::var("STANDARD_DRAM_LOOP").as_deref() {
        Ok("early") => 1,
        Ok("all") => 2,
        _ => 0,
    };
    let q = q.min(n);
    for &op in ops {
        // Instrumentation on before the first query pass; a dump after each pass (one
        // callgrind output file per pass).
        callgrind(if op == ops[0] { "-i" } else { "-z" });
        let from = op * n;
        let (c, _) = s.query(from, from + q, lp);
        callgrind("-d");
        println!(
            "{}: {c} of {q} answered present",
            ["hit", "miss"][op as usize]
        );
    }
}

/// `callgrind_control FLAG` on this process (`-i` = instrumentation on), when
/// `STANDARD_DRAM_CALLGRIND` is set.
fn callgrind(flag: &str) {
    if std::env::var_os("STANDARD_DRAM_CALLGRIND").is_none() {
        return;
    }
    let pid = std::process::id().to_string();
    let mut args = vec![flag];
    if flag == "-i" {
        args.push("on");
    }
    args.push(&pid);
    let ok = std::process::Command::new("callgrind_control")
        .args(&args)
        .stdout(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        eprintln!("standard_dram: callgrind_control {flag} failed");
        std::process::exit(3);
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--only") {
        return only(&args);
    }
    let n: u64 = arg(&args, 0, 100_000_000);
    let rounds: usize = arg(&args, 1, 5);
    let q: u64 = arg(&args, 2, n.min(10_000_000)).min(n);
    let names = [
        "bloomlab standard (foldhash, enh-double-64)",
        "fastbloom 0.17 (foldhash)",
        "bloomlab standard, built again (witness)",
        "bloomlab, early-exit loop over the public API (`contains`' closure)",
        "bloomlab, all probes, no early exit",
        "bloomlab standard (foldhash, rotate-add-64): the control",
    ];
    // Subjects 3 and 4 query filter 0 with another loop (no insert of their own); subject 5 is
    // filter 3.
    let (filter_of, loop_of) = ([0, 1, 2, 0, 0, 3], [0, 0, 0, 1, 2, 0]);
    const S: usize = 6;
    const F: usize = 4;
    // t[subject][op] over the rounds; op 0 insert, 1 hit, 2 miss.
    let mut t = vec![vec![Vec::new(); 3]; S];
    let mut fp = [0u64; S];
    let mut bits = [0u64; S];
    let mut filters: Vec<Option<Subject>> = (0..F).map(|_| None).collect();
    for r in 0..rounds {
        let order: Vec<usize> = (0..F).map(|j| (r + j) % F).collect();
        for &s in &order {
            filters[s] = None; // free the old one first: four at a time at most
            let (f, ns) = Subject::build(s, n);
            let subject = filter_of
                .iter()
                .zip(loop_of)
                .position(|(&of, lp)| of == s && lp == 0)
                .expect("each filter has a contains row");
            t[subject][0].push(ns);
            for (b, _) in bits.iter_mut().zip(filter_of).filter(|&(_, of)| of == s) {
                *b = f.bits();
            }
            filters[s] = Some(f);
        }
        for (op, from) in [(1, 0), (2, n)] {
            for s in (0..S).map(|j| (r + j) % S) {
                let f = filters[filter_of[s]].as_ref().expect("built");
                let (c, ns) = f.query(from, from + q, loop_of[s]);
                if op == 1 {
                    assert_eq!(c, q, "{}: a false negative", names[s]);
                } else {
                    fp[s] = c;
                }
                t[s][op].push(ns);
            }
        }
        eprintln!("round {}/{rounds} done", r + 1);
    }
    let med: Vec<Vec<f64>> = t
        .iter()
        .map(|ops| {
            ops.iter()
                .map(|v| {
                    if v.is_empty() {
                        f64::NAN
                    } else {
                        median(v.clone())
                    }
                })
                .collect()
        })
        .collect();
    // Per-round ratios, their medians (the witness: second bloomlab build / first).
    let ratio = |a: usize, b: usize, op: usize| {
        median((0..rounds).map(|r| t[a][op][r] / t[b][op][r]).collect())
    };
    println!(
        "n = {n}, p = {P}, {rounds} rounds, {q} hit and {q} miss queries per round; medians, ns per key\n"
    );
    println!("| subject | insert | hit | miss | FPR | bits/key |\n|---|---|---|---|---|---|");
    for s in 0..S {
        println!(
            "| {} | {:.1} | {:.1} | {:.1} | {:.4}% | {:.2} |",
            names[s],
            med[s][0],
            med[s][1],
            med[s][2],
            100.0 * fp[s] as f64 / q as f64,
            bits[s] as f64 / n as f64
        );
    }
    for (a, b, what) in [
        (
            0,
            1,
            "ratio bloomlab / fastbloom (median of per-round ratios)",
        ),
        (2, 0, "witness: bloomlab again / bloomlab"),
        (5, 1, "ratio rotate-add-64 (the control) / fastbloom"),
        (
            0,
            5,
            "ratio enhanced-double-64 / rotate-add-64 (the strategy's share)",
        ),
    ] {
        println!(
            "| {what} | {:.2} | {:.2} | {:.2} | | |",
            ratio(a, b, 0),
            ratio(a, b, 1),
            ratio(a, b, 2)
        );
    }
    for (s, what) in [(3, "early-exit loop"), (4, "all-probes loop")] {
        println!(
            "| ratio {what} / fastbloom | | {:.2} | {:.2} | | |",
            ratio(s, 1, 1),
            ratio(s, 1, 2)
        );
    }
}
