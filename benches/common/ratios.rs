//! The headline ratios of the criterion suite, with their performance targets: ONE list, read by
//! the summary writer (`summary.rs`, from criterion's estimates) and by the interleaved paired
//! runner (`paired.rs`, which measures each pair itself).

#![allow(dead_code)]

/// A target for a ratio: at most `max` (at one n only, if `at` is set).
#[derive(Clone, Copy)]
pub struct Target {
    pub max: f64,
    pub at: Option<u64>,
}

/// A headline ratio: label, numerator (group, impl), denominator (group, impl), target.
pub type Ratio = (
    String,
    (&'static str, &'static str),
    (&'static str, &'static str),
    Option<Target>,
);

/// The ratios the summary reports, with the performance targets where one was set.
pub fn headline_ratios() -> Vec<Ratio> {
    let le = |max| Some(Target { max, at: None });
    let mut v: Vec<Ratio> = vec![(
        "NOISE WITNESS, insert: bloomlab-standard-batch / bloomlab-standard (the same code: ideally 1.00)".into(),
        ("insert", "bloomlab-standard-batch"),
        ("insert", "bloomlab-standard"),
        None,
    )];
    for op in ["insert", "query_hit", "query_miss"] {
        let lines = [
            (
                "bloomlab-standard-witness / bloomlab-standard (the same code: noise witness)",
                (op, "bloomlab-standard-witness"),
                (op, "bloomlab-standard"),
                None,
            ),
            (
                "bloomlab-standard-sip13-64 / fastbloom (same hash: 64-bit SipHash-1-3; rotate-add-64)",
                (op, "bloomlab-standard-sip13-64"),
                (op, "fastbloom"),
                le(1.0),
            ),
            (
                "bloomlab-standard-foldhash-64 / fastbloom-foldhash (same hash: foldhash; rotate-add-64)",
                (op, "bloomlab-standard-foldhash-64"),
                (op, "fastbloom-foldhash"),
                le(1.0),
            ),
            (
                "bloomlab-standard-foldhash-ed64 / fastbloom-foldhash (issue 44: foldhash; enhanced-double-64)",
                (op, "bloomlab-standard-foldhash-ed64"),
                (op, "fastbloom-foldhash"),
                le(1.0),
            ),
            (
                "bloomlab-standard-xxh3-64 (xxh3 64-bit, enhanced-double-64) / bloomlab-standard (xxh3-128, enhanced-double)",
                (op, "bloomlab-standard-xxh3-64"),
                (op, "bloomlab-standard"),
                None,
            ),
            (
                "bloomlab-standard-sip13 (128-bit SipHash-1-3) / fastbloom",
                (op, "bloomlab-standard-sip13"),
                (op, "fastbloom"),
                None,
            ),
            (
                "bloomlab-standard (xxh3) / fastbloom (sip13)",
                (op, "bloomlab-standard"),
                (op, "fastbloom"),
                None,
            ),
            (
                "bloomlab-standard (xxh3) / fastbloom-foldhash",
                (op, "bloomlab-standard"),
                (op, "fastbloom-foldhash"),
                None,
            ),
            (
                "bloomlab-blocked / sbbf-rs-safe (cross-design: 512-bit blocked against 256-bit split-block, both xxh3_64)",
                (op, "bloomlab-blocked"),
                (op, "sbbf-rs-safe"),
                None,
            ),
            (
                "bloomlab-split-block (its default hash, XXH64) / sbbf-rs-safe (xxh3_64): not the same hash",
                (op, "bloomlab-split-block"),
                (op, "sbbf-rs-safe"),
                None,
            ),
            (
                "bloomlab-split-block-xxh3 / sbbf-rs-safe (both xxh3_64)",
                (op, "bloomlab-split-block-xxh3"),
                (op, "sbbf-rs-safe"),
                le(1.0),
            ),
            (
                "bloomlab-blocked / fastbloom09-512-xxh3 (both xxh3_64)",
                (op, "bloomlab-blocked"),
                (op, "fastbloom09-512-xxh3"),
                le(1.0),
            ),
            (
                "bloomlab-blocked-foldhash / fastbloom09-512-foldhash (both foldhash)",
                (op, "bloomlab-blocked-foldhash"),
                (op, "fastbloom09-512-foldhash"),
                le(1.0),
            ),
            (
                "noise witness: sbbf-rs-safe / sbbf-rs-safe-xxh3-witness (same code)",
                (op, "sbbf-rs-safe"),
                (op, "sbbf-rs-safe-xxh3-witness"),
                None,
            ),
            (
                "bloomlab-cuckoo / cuckoofilter",
                (op, "bloomlab-cuckoo"),
                (op, "cuckoofilter"),
                le(0.5),
            ),
            (
                "bloomlab-cuckoo-peershape / cuckoofilter (the same table: 2^⌈log2 n⌉/4 buckets of four 8-bit slots, the same load)",
                (op, "bloomlab-cuckoo-peershape"),
                (op, "cuckoofilter"),
                le(0.5),
            ),
            (
                "bloomlab-cuckoo-batch (insert_batch / contains_batch) / cuckoofilter (one at a time: it has no batch API)",
                (op, "bloomlab-cuckoo-batch"),
                (op, "cuckoofilter"),
                None,
            ),
            (
                "bloomlab-scalable (xxh3) / growable-bloom-filter (SipHash-1-3), one layer",
                (op, "bloomlab-scalable"),
                (op, "growable-bloom-filter"),
                le(0.5),
            ),
            (
                "bloomlab-scalable-grown / growable-bloom-filter-grown (started at n/1000, filled to n)",
                (op, "bloomlab-scalable-grown"),
                (op, "growable-bloom-filter-grown"),
                le(0.5),
            ),
            (
                "bloomlab-counting / bloomlab-standard",
                (op, "bloomlab-counting"),
                (op, "bloomlab-standard"),
                None,
            ),
        ];
        for (label, a, b, t) in lines {
            v.push((format!("{op}: {label}"), a, b, t));
        }
    }
    let single: [(&str, _, _, _); 12] = [
        (
            "query_hit: batch / single (bloomlab-standard)",
            ("query_hit", "bloomlab-standard-batch"),
            ("query_hit", "bloomlab-standard"),
            None,
        ),
        (
            "query_miss: batch / single (bloomlab-standard)",
            ("query_miss", "bloomlab-standard-batch"),
            ("query_miss", "bloomlab-standard"),
            None,
        ),
        (
            "query_hit: batch / single (bloomlab-blocked)",
            ("query_hit", "bloomlab-blocked-batch"),
            ("query_hit", "bloomlab-blocked"),
            None,
        ),
        (
            "query_miss: batch / single (bloomlab-blocked)",
            ("query_miss", "bloomlab-blocked-batch"),
            ("query_miss", "bloomlab-blocked"),
            None,
        ),
        (
            "query_hit: bloomlab-blocked-batch / 1-line floor",
            ("query_hit", "bloomlab-blocked-batch"),
            ("floor", "random-cache-line"),
            Some(Target {
                max: 1.5,
                at: Some(100_000_000),
            }),
        ),
        (
            "query_miss: bloomlab-blocked-batch / 1-line floor",
            ("query_miss", "bloomlab-blocked-batch"),
            ("floor", "random-cache-line"),
            Some(Target {
                max: 1.5,
                at: Some(100_000_000),
            }),
        ),
        (
            "query_hit: bloomlab-split-block-xxh3-batch / 1-line floor",
            ("query_hit", "bloomlab-split-block-xxh3-batch"),
            ("floor", "random-cache-line"),
            Some(Target {
                max: 1.5,
                at: Some(100_000_000),
            }),
        ),
        (
            "query_miss: bloomlab-split-block-xxh3-batch / 1-line floor",
            ("query_miss", "bloomlab-split-block-xxh3-batch"),
            ("floor", "random-cache-line"),
            Some(Target {
                max: 1.5,
                at: Some(100_000_000),
            }),
        ),
        (
            "query_miss: bloomlab-cuckoo-batch / 1-line floor (two buckets: two lines)",
            ("query_miss", "bloomlab-cuckoo-batch"),
            ("floor", "random-cache-line"),
            None,
        ),
        (
            "query_hit: bloomlab-standard / 1-line floor",
            ("query_hit", "bloomlab-standard"),
            ("floor", "random-cache-line"),
            None,
        ),
        (
            "query_hit: bloomlab-standard-batch / 7-line floor",
            ("query_hit", "bloomlab-standard-batch"),
            ("floor", "7-random-cache-lines"),
            None,
        ),
        (
            "query_miss: bloomlab-standard / 1-line floor",
            ("query_miss", "bloomlab-standard"),
            ("floor", "random-cache-line"),
            None,
        ),
    ];
    v.extend(single.map(|(l, a, b, t)| (l.to_string(), a, b, t)));
    // The static filters against xorf (same keys, each side's own 64-bit finalizer; both
    // borrow the keys): construction is timed up to n = 10^6.
    v.push((
        "NOISE WITNESS, build: bloomlab-fuse8-witness / bloomlab-fuse8 (the same code: ideally 1.00)"
            .into(),
        ("build", "bloomlab-fuse8-witness"),
        ("build", "bloomlab-fuse8"),
        None,
    ));
    for op in ["build", "query_hit", "query_miss"] {
        for (ours, peer, what) in [
            ("bloomlab-fuse8", "xorf", "binary fuse 3-wise, 8-bit"),
            (
                "bloomlab-fuse16",
                "xorf-fuse16",
                "binary fuse 3-wise, 16-bit",
            ),
            ("bloomlab-xor8", "xorf-xor8", "xor, 8-bit"),
            ("bloomlab-xor16", "xorf-xor16", "xor, 16-bit"),
        ] {
            v.push((
                format!("{op}: {ours} / {peer} ({what})"),
                (op, ours),
                (op, peer),
                le(1.0),
            ));
        }
    }
    // The quotient filter against qfilter (issue 38 item 1): the same xxh3_64 of the 8 LE bytes,
    // the same q and r (qfilter fed the hash as its fingerprint), n keys at 95% design load.
    for op in ["insert", "query_hit", "query_miss"] {
        v.push((
            format!("{op}: bloomlab-quotient / qfilter (rank-select both; same hash, q and r)"),
            (op, "bloomlab-quotient"),
            (op, "qfilter"),
            le(1.0),
        ));
    }
    // Its sorted bulk build against one insert after another (the same keys, the same table):
    // the target is a 5x speed-up.
    v.push((
        "NOISE WITNESS, build: bloomlab-quotient-bulk-witness / bloomlab-quotient-bulk (the same code: ideally 1.00)"
            .into(),
        ("build", "bloomlab-quotient-bulk-witness"),
        ("build", "bloomlab-quotient-bulk"),
        None,
    ));
    v.push((
        "build: bloomlab-quotient-bulk / bloomlab-quotient-inserts (sorted bulk build vs one insert after another)".into(),
        ("build", "bloomlab-quotient-bulk"),
        ("build", "bloomlab-quotient-inserts"),
        le(0.2),
    ));
    // Issue 38 item 5: the prefix filter (≈0.37% by its 8-bit remainders, 11.6 bits/key)
    // against cuckoo (inserts) and blocked (queries), both sized for the prefix filter's own
    // rate at n, and against them at the suite's p = 1% (the paired runner adds the witness).
    for op in ["insert", "query_hit", "query_miss"] {
        for (num, den, target, what) in [
            (
                "bloomlab-prefix",
                "bloomlab-cuckoo-at-prefix-rate",
                (op == "insert").then_some(1.0),
                "cuckoo at the prefix filter's rate",
            ),
            (
                "bloomlab-prefix",
                "bloomlab-blocked-at-prefix-rate",
                (op == "query_hit").then_some(1.0),
                "blocked at the prefix filter's rate",
            ),
            (
                "bloomlab-prefix",
                "bloomlab-cuckoo",
                None,
                "cuckoo at p = 1%",
            ),
            (
                "bloomlab-prefix",
                "bloomlab-blocked",
                None,
                "blocked at p = 1%",
            ),
            (
                "bloomlab-prefix-batch",
                "bloomlab-prefix",
                None,
                "contains_batch / contains",
            ),
        ] {
            if op == "insert" && num == "bloomlab-prefix-batch" {
                continue;
            }
            v.push((
                format!("{op}: {num} / {den} ({what})"),
                (op, num),
                (op, den),
                target.and_then(le),
            ));
        }
    }
    // Ribbon against xorf's BinaryFuse8 (issue 38 item 2: queries within 2×, builds 1.2×).
    for op in ["build", "query_hit", "query_miss"] {
        for (ours, r) in [("bloomlab-ribbon7", 7), ("bloomlab-ribbon10", 10)] {
            v.push((
                format!("{op}: {ours} / xorf (ribbon r={r} vs binary fuse 3-wise 8-bit)"),
                (op, ours),
                (op, "xorf"),
                le(if op == "build" { 1.2 } else { 2.0 }),
            ));
        }
        // Like for like with the Rust ribbon peer (pleat: homogeneous ribbon, the same w = 64
        // interleaved query; issue 38 item 6).
        for r in [7, 10] {
            let ours: &'static str = format!("bloomlab-ribbon{r}").leak();
            let peer: &'static str = format!("pleat-ribbon{r}").leak();
            v.push((
                format!("{op}: {ours} / {peer} (ribbon w=64 r={r}, standard vs homogeneous)"),
                (op, ours),
                (op, peer),
                le(1.0),
            ));
        }
    }
    // The dynamic path (AnyFilter through the registry, batched) against the monomorphic type.
    for op in ["dynamic_insert", "dynamic_query_hit", "dynamic_query_miss"] {
        for kind in DYNAMIC_KINDS {
            if op == "dynamic_insert" && matches!(kind, "xor" | "binary-fuse") {
                continue;
            }
            let any: &'static str = format!("{kind}-any").leak();
            let mono: &'static str = format!("{kind}-mono").leak();
            v.push((
                format!("{op}: {kind}, AnyFilter batched / monomorphic"),
                (op, any),
                (op, mono),
                le(1.3),
            ));
        }
    }
    // The multiblock kind against the peers of its two headline shapes (same hash: xxh3_64).
    for op in ["insert", "query_hit", "query_miss"] {
        v.push((
            format!("{op}: bloomlab-multiblock-32x8 / sbbf-rs-safe (the split-block layout, both xxh3_64)"),
            (op, "bloomlab-multiblock-32x8"),
            (op, "sbbf-rs-safe"),
            le(1.0),
        ));
        v.push((
            format!("{op}: bloomlab-multiblock-64x8 / fastbloom09-512-xxh3 (one 512-bit line each, both xxh3_64)"),
            (op, "bloomlab-multiblock-64x8"),
            (op, "fastbloom09-512-xxh3"),
            le(1.0),
        ));
    }
    v
}

/// The subject that reads one random 64-byte line per key from an array as large as the
/// standard filter at n: the DRAM floor of a batch (`paired.rs` builds it; criterion's is
/// `floor/random-cache-line`).
pub const FLOOR_SUBJECT: &str = "floor-1-line";

/// Issue 38's bulk queries: every kind's batch against its single query and against the
/// 1-line floor, both timed in the paired runner (which alone has the floor as a subject, so
/// these are not in [`headline_ratios`], whose rows the criterion summary reads too). The targets (n = 10^8 only): a batched miss
/// of a one-cache-line kind (blocked, split-block) at most 1.15 times the floor and at least 2
/// times faster than its single query (a ratio of at most 0.5).
pub fn bulk_ratios() -> Vec<Ratio> {
    let at_1e8 = |max| {
        Some(Target {
            max,
            at: Some(100_000_000),
        })
    };
    let mut v: Vec<Ratio> = Vec::new();
    for (single, batch, line) in [
        ("bloomlab-blocked", "bloomlab-blocked-batch", true),
        (
            "bloomlab-split-block-xxh3",
            "bloomlab-split-block-xxh3-batch",
            true,
        ),
        ("bloomlab-cuckoo", "bloomlab-cuckoo-batch", false),
        ("bloomlab-standard", "bloomlab-standard-batch", false),
        ("bloomlab-counting", "bloomlab-counting-batch", false),
        ("bloomlab-scalable", "bloomlab-scalable-batch", false),
        (
            "bloomlab-scalable-grown",
            "bloomlab-scalable-grown-batch",
            false,
        ),
        ("bloomlab-xor8-bytes", "bloomlab-xor8-batch", false),
    ] {
        for op in ["query_hit", "query_miss"] {
            let miss_of_line = line && op == "query_miss";
            v.push((
                format!("bulk {op}: {batch} / {single} (batch / single)"),
                (op, batch),
                (op, single),
                if miss_of_line { at_1e8(0.5) } else { None },
            ));
            v.push((
                format!("bulk {op}: {batch} / {FLOOR_SUBJECT} (batch / 1-line floor)"),
                (op, batch),
                (op, FLOOR_SUBJECT),
                if miss_of_line { at_1e8(1.15) } else { None },
            ));
        }
    }
    v
}

/// The kinds of the `dynamic` bench group (benches/groups/dynamic.rs).
pub const DYNAMIC_KINDS: [&str; 8] = [
    "standard",
    "counting",
    "blocked",
    "split-block",
    "scalable",
    "cuckoo",
    "xor",
    "binary-fuse",
];
