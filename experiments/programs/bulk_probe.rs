//! Bulk queries against single queries and the DRAM floor, every kind with a batch path, at
//! one large n (default 10^8, p = 1%), paired: in each round the floor, the single query, the
//! batch and the batch again (the noise witness: the same code a second time) each answer 30
//! passes of 1000 random keys, each subject keys of its own (each pass timed alone; the
//! subject's time in the round is its median pass), in the orders of a Williams design (each
//! subject follows each other equally often); a round gives one ratio each (batch / floor,
//! single / batch, witness / batch), the table reports their medians with a distribution-free 95% interval (`bloomlab::stats::median_ci95`).
//!
//! ```text
//! prlimit --as=6000000000 cargo run --release --example bulk_probe -- [N] [ROUNDS] [KINDS] [sweep]
//!     > results/bench/bulk-probe.md
//! ```
//! KINDS: a comma-separated list of blocked, split-block, cuckoo, standard, counting,
//! scalable, scalable-grown, xor, binary-fuse (default: all). `sweep`: instead, time every
//! depth (items a chunk × probes prefetched) of each named kind that takes one against its
//! default depth, paired the same way (how `bloomlab::filters::bulk::Depth`'s defaults were
//! chosen). The floor: one independent random 64-byte line per key from an array as large as
//! the standard filter at n (as `batch_probe` and the criterion suite's
//! `floor/random-cache-line`). A batch is one `contains_batch` call per pass of 1000 keys (the
//! way `AnyFilter::contains_many` and `query --keys` hand keys over); keys are made into byte
//! strings before the timer starts, for every subject alike.

use bloomlab::Filter;
use bloomlab::filters::bulk::Depth;
use bloomlab::filters::{
    BinaryFuseFilter, BlockedBloom, CountingBloom, CuckooFilter, ScalableBloom, SplitBlockBloom,
    StandardBloom, XorFilter,
};
use bloomlab::hash::{Xxh3, mix64, reduce};
use bloomlab::stats::median_ci95;
use std::hint::black_box;
use std::time::Instant;

const PASS: usize = 1000;
const PASSES: usize = 30;
const P: f64 = 0.01;

fn key(i: u64) -> [u8; 8] {
    mix64(i ^ 0x5eed).to_le_bytes()
}

/// One round's keys: `PASSES` passes of `PASS` hits (inserted keys) or misses.
fn round_keys(n: u64, hit: bool, seed: u64) -> Vec<[u8; 8]> {
    let mut s = seed;
    (0..PASS * PASSES)
        .map(|_| {
            s = mix64(s.wrapping_add(0x9e37_79b9_7f4a_7c15));
            if hit { key(s % n) } else { key(n + s % n) }
        })
        .collect()
}

/// ns per key of `f` over the round's passes: the median pass (`f` answers one pass, returns
/// how many found). Each pass is timed alone (tens of microseconds): on a shared machine a
/// pass during which the process was descheduled is one outlier among the round's passes, not
/// a share of one long slice.
fn timed(items: &[&[u8]], f: &mut dyn FnMut(&[&[u8]]) -> usize) -> (f64, usize) {
    let mut found = 0;
    let mut ns: Vec<f64> = items
        .chunks(PASS)
        .map(|c| {
            let t = Instant::now();
            found += f(black_box(c));
            t.elapsed().as_nanos() as f64 / c.len() as f64
        })
        .collect();
    ns.sort_by(f64::total_cmp);
    (ns[ns.len() / 2], found)
}

/// The order of `s` subjects in round `r`: the rows of a Williams design in turn (a Latin
/// square in which each subject follows each other one equally often; for odd `s` each row and
/// its reverse). A subject that runs after another on the same filter finds its page-table
/// lines in the caches: with a plain rotation the witness always followed the batch and came
/// out 0.8–0.9 of it.
fn williams(s: usize, r: usize) -> Vec<usize> {
    let mut first = vec![0];
    let (mut lo, mut hi) = (1, s.saturating_sub(1));
    while first.len() < s {
        first.push(lo);
        lo += 1;
        if first.len() < s {
            first.push(hi);
            hi -= 1;
        }
    }
    let k = r % if s.is_multiple_of(2) { s } else { 2 * s };
    let mut row: Vec<usize> = first.iter().map(|x| (x + k) % s).collect();
    if k >= s {
        row.reverse();
    }
    row
}

type Probe<'a> = Box<dyn FnMut(&[&[u8]]) -> usize + 'a>;

/// Medians (ns) of the subjects and the paired ratios `(a, b)` = subject a / subject b.
struct Paired {
    ns: Vec<f64>,
    ratios: Vec<(f64, f64, f64)>,
}

/// Time the subjects in `rounds` interleaved rounds (rotating which goes first), each on the
/// same keys; the ratios asked for in `pairs` are taken per round.
fn paired(
    n: u64,
    hit: bool,
    rounds: usize,
    subjects: &mut [Probe<'_>],
    pairs: &[(usize, usize)],
) -> Paired {
    let s = subjects.len();
    let mut t = vec![Vec::new(); s];
    for r in 0..rounds {
        let mut found = vec![0usize; s];
        for i in williams(s, r) {
            // Keys of its own for each subject: on the same keys, the subjects after the first
            // found their lines in the caches (a witness 0.6 of its own batch).
            let seed = 0x1234 ^ (r as u64) << 32 ^ (i as u64) << 16 ^ u64::from(hit);
            let keys = round_keys(n, hit, seed);
            let items: Vec<&[u8]> = keys.iter().map(|k| &k[..]).collect();
            let (ns, f) = timed(&items, &mut subjects[i]);
            t[i].push(ns);
            found[i] = f;
        }
        // Every hit reported by every filter subject (subject 0 is the floor, whose "found"
        // is a parity).
        if hit {
            assert!(found[1..].iter().all(|&f| f == PASS * PASSES), "{found:?}");
        }
    }
    Paired {
        ns: t.iter().map(|v| median_ci95(v.clone()).0).collect(),
        ratios: pairs
            .iter()
            .map(|&(a, b)| median_ci95((0..rounds).map(|r| t[a][r] / t[b][r]).collect()))
            .collect(),
    }
}

/// Query one pass through `contains_batch`, all of it in one call.
fn batch<F: Filter>(f: &F, items: &[&[u8]]) -> usize {
    let mut out = [false; PASS];
    f.contains_batch(items, &mut out[..items.len()]);
    out[..items.len()].iter().filter(|&&b| b).count()
}

fn single<F: Filter>(f: &F, items: &[&[u8]]) -> usize {
    items.iter().filter(|it| f.contains(it)).count()
}

fn ci((m, lo, hi): (f64, f64, f64)) -> String {
    format!("{m:.2} [{lo:.2}, {hi:.2}]")
}

/// One random line per key from `words` (the floor).
fn floor(words: &[u64], items: &[&[u8]]) -> usize {
    let lines = words.len() as u64 / 8;
    let acc = items.iter().fold(0u64, |a, it| {
        let k = u64::from_le_bytes((*it).try_into().unwrap_or([0; 8]));
        a ^ words[(reduce(mix64(k), lines) * 8) as usize]
    });
    usize::from(acc & 1 == 1)
}

/// The paired rows of one kind: floor, single, batch, witness; hits and misses.
fn compare<F: Filter>(name: &str, f: &F, words: &[u64], n: u64, rounds: usize) {
    for hit in [true, false] {
        let mut subjects: Vec<Probe<'_>> = vec![
            Box::new(|it| floor(words, it)),
            Box::new(|it| single(f, it)),
            Box::new(|it| batch(f, it)),
            Box::new(|it| batch(f, it)),
        ];
        let p = paired(n, hit, rounds, &mut subjects, &[(2, 0), (1, 2), (3, 2)]);
        let row = format!(
            "| {name} | {} | {:.1} | {:.1} | {:.1} | {} | {} | {} |",
            if hit { "hit" } else { "miss" },
            p.ns[1],
            p.ns[2],
            p.ns[0],
            ci(p.ratios[0]),
            ci(p.ratios[1]),
            ci(p.ratios[2]),
        );
        eprintln!("{row}");
        println!("{row}");
    }
}

/// Every depth of a kind against its default, paired (subject 0 does nothing, where `compare`
/// has the floor; subject 1 is the default).
fn sweep(name: &str, n: u64, rounds: usize, default: Depth, at: &dyn Fn(&[&[u8]], Depth) -> usize) {
    let mut depths = vec![default];
    for chunk in Depth::CHUNKS {
        for lines in [1, 2, 3, 64] {
            let d = Depth { chunk, lines };
            if d != default {
                depths.push(d);
            }
        }
    }
    for hit in [true, false] {
        // In groups of four beside the default, so that each round stays short.
        for group in depths[1..].chunks(4) {
            let mut subjects: Vec<Probe<'_>> =
                vec![Box::new(|it: &[&[u8]]| usize::from(it.is_empty()))];
            subjects.push(Box::new(move |it| at(it, default)));
            for &d in group {
                subjects.push(Box::new(move |it| at(it, d)));
            }
            let pairs: Vec<(usize, usize)> = (2..subjects.len()).map(|i| (i, 1)).collect();
            let p = paired(n, hit, rounds, &mut subjects, &pairs);
            for (j, d) in group.iter().enumerate() {
                let row = format!(
                    "| {name} | {} | {} | {} | {:.1} | {:.1} | {} |",
                    if hit { "hit" } else { "miss" },
                    d.chunk,
                    if d.lines >= 64 {
                        "all".to_string()
                    } else {
                        d.lines.to_string()
                    },
                    p.ns[j + 2],
                    p.ns[1],
                    ci(p.ratios[j])
                );
                eprintln!("{row}");
                println!("{row}");
            }
        }
    }
}

fn arg_or<T: std::str::FromStr>(s: Option<&String>, what: &str, default: T) -> T {
    match s {
        None => default,
        Some(s) => s.parse().unwrap_or_else(|_| {
            eprintln!(
                "bulk_probe: {what} must be a whole number, not {s:?}\n\
                 usage: bulk_probe [N] [ROUNDS] [KINDS] [sweep]"
            );
            std::process::exit(2);
        }),
    }
}

const KINDS: [&str; 9] = [
    "blocked",
    "split-block",
    "cuckoo",
    "standard",
    "counting",
    "scalable",
    "scalable-grown",
    "xor",
    "binary-fuse",
];

#[allow(
    clippy::too_many_lines,
    reason = "one arm a kind, in the order of the table"
)]
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let n: u64 = arg_or(args.first(), "N", 100_000_000);
    let rounds: usize = arg_or(args.get(1), "ROUNDS", 21);
    let kinds: Vec<&str> = match args.get(2).map(String::as_str) {
        None | Some("all") => KINDS.to_vec(),
        Some(list) => list.split(',').collect(),
    };
    if let Some(bad) = kinds.iter().find(|k| !KINDS.contains(k)) {
        eprintln!("bulk_probe: no kind {bad:?}; kinds: {}", KINDS.join(", "));
        std::process::exit(2);
    }
    let sweeping = args.get(3).is_some_and(|a| a == "sweep");
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let m = bloomlab::theory::size_for(n, P).expect("sizing").m;
    let words: Vec<u64> = (0..m.div_ceil(64).max(8)).map(mix64).collect();
    println!(
        "\n`bulk_probe {}`: n = {n}, p = {P}, {rounds} rounds of {PASSES} passes of {PASS} keys; \
         load average at start {}\n",
        args.join(" "),
        load.split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    );
    if sweeping {
        println!(
            "| kind | op | items a chunk | probes prefetched | ns/key | default ns/key | depth / default: median [95% interval] |\n|---|---|---:|---:|---:|---:|---|"
        );
    } else {
        println!(
            "| kind | op | single ns/key | batch ns/key | floor ns/key | batch / floor | single / batch | witness: batch again / batch |\n|---|---|---:|---:|---:|---|---|---|"
        );
    }
    for kind in kinds {
        let t = Instant::now();
        let fill = |f: &mut dyn FnMut(&[u8])| (0..n).for_each(|i| f(&key(i)));
        match kind {
            "blocked" if !sweeping => {
                let mut f = BlockedBloom::with_rate(n, P).expect("blocked");
                fill(&mut |k| f.insert(k));
                compare(kind, &f, &words, n, rounds);
            }
            "split-block" if !sweeping => {
                let mut f = SplitBlockBloom::with_rate_and(n, P, Xxh3::default()).expect("sbbf");
                fill(&mut |k| f.insert(k));
                compare("split-block (xxh3)", &f, &words, n, rounds);
            }
            "cuckoo" if !sweeping => {
                let mut f = CuckooFilter::with_rate(n, P).expect("cuckoo");
                fill(&mut |k| drop(f.try_insert(k)));
                compare("cuckoo (two buckets: two lines)", &f, &words, n, rounds);
            }
            "standard" => {
                let mut f = StandardBloom::with_rate(n, P).expect("standard");
                fill(&mut |k| f.insert(k));
                if sweeping {
                    sweep(kind, n, rounds, Depth::K_POSITIONS, &|it, d| {
                        at(it, |i, o| f.contains_batch_at(i, o, d))
                    });
                } else {
                    compare("standard (k = 7)", &f, &words, n, rounds);
                }
            }
            "counting" => {
                let mut f = CountingBloom::with_rate(n, P).expect("counting");
                fill(&mut |k| f.insert(k));
                if sweeping {
                    sweep(kind, n, rounds, Depth::K_POSITIONS, &|it, d| {
                        at(it, |i, o| f.contains_batch_at(i, o, d))
                    });
                } else {
                    compare("counting (k = 7, 4-bit)", &f, &words, n, rounds);
                }
            }
            "scalable" | "scalable-grown" => {
                let n0 = if kind == "scalable" {
                    n
                } else {
                    (n / 1000).max(1)
                };
                let mut f = ScalableBloom::new(n0, P).expect("scalable");
                fill(&mut |k| f.insert(k));
                let name = format!("{kind} ({} layers)", layers(&f));
                if sweeping {
                    sweep(&name, n, rounds, Depth::SCALABLE, &|it, d| {
                        at(it, |i, o| f.contains_batch_at(i, o, d))
                    });
                } else {
                    compare(&name, &f, &words, n, rounds);
                }
            }
            "xor" => {
                let f = XorFilter::from_keys((0..n).map(key), 8).expect("xor");
                if sweeping {
                    sweep("xor (8-bit)", n, rounds, Depth::XOR, &|it, d| {
                        at(it, |i, o| f.contains_batch_at(i, o, d))
                    });
                } else {
                    compare("xor (8-bit, three lines)", &f, &words, n, rounds);
                }
            }
            "binary-fuse" if !sweeping => {
                let f = BinaryFuseFilter::from_keys((0..n).map(key), 8).expect("fuse");
                compare(
                    "binary fuse (8-bit, 3-wise: three lines)",
                    &f,
                    &words,
                    n,
                    rounds,
                );
            }
            _ => eprintln!("{kind}: no depth to sweep (its chunk is fixed at 16)"),
        }
        eprintln!("{kind}: {:.0} s", t.elapsed().as_secs_f64());
    }
}

/// How many layers a scalable filter has (its `details` name them).
fn layers<F: Filter>(f: &F) -> usize {
    f.details()
        .iter()
        .find(|(k, _)| k == "layers")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0)
}

/// One pass through a `contains_batch_at`-like call, counting what it found.
fn at(items: &[&[u8]], f: impl Fn(&[&[u8]], &mut [bool])) -> usize {
    let mut out = [false; PASS];
    f(items, &mut out[..items.len()]);
    out[..items.len()].iter().filter(|&&b| b).count()
}
