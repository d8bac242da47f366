//! Adversarial inputs against Bloom filters: pollution and offline false-positive search, with
//! a public unkeyed hash and with a secret-keyed one.
//!
//! After Gerbet, Kumar & Lauradoux (2015), "The Power of Evil Choices in Bloom Filters"
//! (45th IEEE/IFIP DSN): an adversary who can compute an item's k bit positions can (a) choose
//! items that each set k bits that are still 0 ("pollution"), driving the false-positive rate far
//! above design with the same number of items, and (c) find false positives offline at a cost of
//! about 1/FPR hash computations each. Their countermeasure is a keyed pseudo-random function
//! (they name SipHash) with a secret key, which is what (b) and the keyed half of (c) measure.
//!
//! ```text
//! cargo run --release --example adversarial -- [SEED] [OUT_DIR]
//! ```
//! writes `OUT_DIR/adversarial.csv` (FPR against items inserted, one row per scenario and
//! checkpoint), `OUT_DIR/adversarial_offline.csv` and `OUT_DIR/adversarial.{svg,png}`, and
//! prints a summary. Defaults: seed 2015, `results/`. `-- --replot [OUT_DIR]` redraws the
//! figure from `OUT_DIR/adversarial.csv` without measuring.
//!
//! Scenarios (n = 10,000 items designed at p = 1%, so m ≈ 95,851 bits, k = 7):
//! * `murmur3-guava64` — Guava's filter: `Murmur3::default()` (seed 0) + `Guava64`: public.
//! * `sip24-secret` — [`StandardBloom::keyed`]: SipHash-2-4 under a secret 128-bit key.
//! * `sip24-leaked` — the same filter when the attacker has the key (control: the protection
//!   is the key's secrecy, not the function).
//!
//! and two insertion streams: `random` (keys the attacker does not choose) and `attack` (the
//! attacker sees the real bit array, computes candidate positions with the hash and key it
//! believes the filter uses, and inserts only candidates whose k positions are all 0 there). For
//! the secret-key filter its belief is a guessed key.
//!
//! FPR is measured on 100,000 fresh keys at each checkpoint, next to the fill model
//! `(ones/m)^k` (the probability that k positions of a key the attacker did not choose all land
//! on set bits).

use bloomlab::hash::{EnhancedDoubleHashing, Guava64, IndexStrategy, ItemHasher, Murmur3, Sip24};
use bloomlab::{Filter, StandardBloom};
use std::fmt::Write as _;
use std::time::Instant;

const N: u64 = 10_000;
const P: f64 = 0.01;
const STEP: u64 = 250;
const PROBES: u64 = 100_000;

/// SplitMix64 (Steele, Lea & Flood 2014): a seeded stream for keys and the secret key.
struct SplitMix(u64);
impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        bloomlab::hash::mix64(self.0)
    }
}

fn probe(i: u64) -> String {
    format!("probe-{i}")
}

#[derive(Debug, Clone)]
struct Row {
    scenario: &'static str,
    keyed: bool,
    stream: &'static str,
    items: u64,
    ones: u64,
    fpr_measured: f64,
    fpr_fill_model: f64,
    candidates: u64,
}

fn measure_fpr<H: ItemHasher, S: IndexStrategy>(f: &StandardBloom<H, S>) -> f64 {
    (0..PROBES)
        .filter(|&i| f.contains(probe(i).as_bytes()))
        .count() as f64
        / PROBES as f64
}

fn fill_model<H: ItemHasher, S: IndexStrategy>(f: &StandardBloom<H, S>) -> f64 {
    (f.ones() as f64 / f.bits() as f64).powi(f.k() as i32)
}

/// Insert N items, chosen by `next_item` (which sees the filter and returns an item plus the
/// candidates it tried), recording a row every STEP items.
fn run<H: ItemHasher, S: IndexStrategy>(
    scenario: &'static str,
    keyed: bool,
    stream: &'static str,
    mut f: StandardBloom<H, S>,
    mut next_item: impl FnMut(&StandardBloom<H, S>) -> (Vec<u8>, u64),
) -> Vec<Row> {
    let mut rows = Vec::new();
    let mut candidates = 0;
    let row = |f: &StandardBloom<H, S>, items, candidates| Row {
        scenario,
        keyed,
        stream,
        items,
        ones: f.ones(),
        fpr_measured: measure_fpr(f),
        fpr_fill_model: fill_model(f),
        candidates,
    };
    rows.push(row(&f, 0, 0));
    for i in 1..=N {
        let (item, tried) = next_item(&f);
        candidates += tried;
        f.insert(&item);
        if i % STEP == 0 {
            rows.push(row(&f, i, candidates));
        }
    }
    rows
}

/// The pollution attacker: candidates `evil-{seed}-{j}` from a stream; keep the first whose k
/// positions — computed with `(model_hasher, strategy)`, the attacker's belief — are distinct
/// and all 0 in the real bit array. Past `max_tries` candidates for one item it settles for the
/// candidate with the most zero positions seen.
fn polluter<H: ItemHasher, S: IndexStrategy, MH: ItemHasher>(
    seed: u64,
    model_hasher: MH,
    strategy: S,
    max_tries: u64,
) -> impl FnMut(&StandardBloom<H, S>) -> (Vec<u8>, u64) {
    let mut j = 0u64;
    move |f: &StandardBloom<H, S>| {
        let m = f.bits();
        let k = f.k();
        let mut best: Option<(usize, Vec<u8>)> = None;
        for tried in 1..=max_tries {
            let cand = format!("evil-{seed}-{j}").into_bytes();
            j += 1;
            let mut pos = [0u64; 64];
            let mut n = 0;
            let mut zeros = 0;
            strategy.for_each_index(&model_hasher, &cand, k, m, |i| {
                pos[n] = i;
                n += 1;
                if !f.bit_vec().get(i) {
                    zeros += 1;
                }
                true
            });
            let p = &mut pos[..n];
            p.sort_unstable();
            let distinct = p.windows(2).all(|w| w[0] != w[1]);
            if distinct && zeros == n {
                return (cand, tried);
            }
            if best.as_ref().is_none_or(|(z, _)| zeros > *z) {
                best = Some((zeros, cand));
            }
        }
        (best.map(|(_, c)| c).unwrap_or_default(), max_tries)
    }
}

fn random_keys<H: ItemHasher, S: IndexStrategy>(
    seed: u64,
) -> impl FnMut(&StandardBloom<H, S>) -> (Vec<u8>, u64) {
    let mut rng = SplitMix(seed);
    move |_| (format!("user-{:016x}", rng.next()).into_bytes(), 1)
}

/// Offline search for false positives in a filter the attacker holds a copy of: try candidates
/// until `want` false positives are found (or `budget` candidates tried). With the wrong key
/// the "found" ones are then checked against the real filter.
struct Offline {
    scenario: &'static str,
    filter_fpr: f64,
    candidates: u64,
    found_offline: u64,
    confirmed_live: u64,
    seconds: f64,
}

fn offline_search<H: ItemHasher, S: IndexStrategy, MH: ItemHasher>(
    scenario: &'static str,
    real: &StandardBloom<H, S>,
    model: &StandardBloom<MH, S>,
    want: u64,
    seed: u64,
) -> Offline {
    let start = Instant::now();
    let (mut candidates, mut found, mut confirmed) = (0u64, 0u64, 0u64);
    while found < want {
        let cand = format!("fp-{seed}-{candidates}");
        candidates += 1;
        if model.contains(cand.as_bytes()) {
            found += 1;
            confirmed += u64::from(real.contains(cand.as_bytes()));
        }
    }
    let seconds = start.elapsed().as_secs_f64();
    Offline {
        scenario,
        filter_fpr: measure_fpr(real),
        candidates,
        found_offline: found,
        confirmed_live: confirmed,
        seconds,
    }
}

/// Draw `adversarial.svg` and `.png` in `out` from `out/adversarial.csv` (the run's table, or
/// an earlier run's with `--replot`), in the book layout of `bloomlab::plot`.
fn plot(out: &std::path::Path) -> Result<(), Box<dyn std::error::Error>> {
    use bloomlab::plot::{Axis, Chart, Format, Legend, Panel, Point, Series, Style};
    let text = std::fs::read_to_string(out.join("adversarial.csv"))?;
    let head: Vec<&str> = text.lines().next().unwrap_or_default().split(',').collect();
    let col = |name: &str| {
        head.iter()
            .position(|c| *c == name)
            .ok_or_else(|| format!("adversarial.csv has no column {name}"))
    };
    let (sc, st, it, fm, fd) = (
        col("scenario")?,
        col("stream")?,
        col("items")?,
        col("fpr_measured")?,
        col("fpr_fill_model")?,
    );
    let rows: Vec<Vec<&str>> = text
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect())
        .collect();
    let num = |r: &Vec<&str>, i: usize| r.get(i).and_then(|v| v.parse::<f64>().ok());
    let mut series = Vec::new();
    let combos = [
        (
            "murmur3-guava64",
            "random",
            "unkeyed murmur3+guava64, random keys",
        ),
        (
            "murmur3-guava64",
            "attack",
            "unkeyed murmur3+guava64, attack",
        ),
        (
            "sip24-secret",
            "random",
            "SipHash-2-4, secret key, random keys",
        ),
        (
            "sip24-secret",
            "attack",
            "SipHash-2-4, secret key, attack (guessed key)",
        ),
        ("sip24-leaked", "attack", "SipHash-2-4, leaked key, attack"),
    ];
    for (ci, (scenario, stream, label)) in combos.into_iter().enumerate() {
        let mine: Vec<&Vec<&str>> = rows
            .iter()
            .filter(|r| r.get(sc) == Some(&scenario) && r.get(st) == Some(&stream))
            .collect();
        // The CSV has six decimals: below 10^-5 the model is rounded to a staircase, and the
        // measured rate (100,000 queries) resolves 10^-5 at best.
        let pts = |i: usize| -> Vec<Point> {
            mine.iter()
                .filter_map(|r| Some(Point::new(num(r, it)?, num(r, i)?)))
                .filter(|p| p.y >= 1e-5)
                .collect()
        };
        // The model as a line without a legend entry, the measured rate as markers.
        series.push(Series::new("", Style::Line, ci).with_points(pts(fd)));
        series.push(Series::new(label, Style::Points, ci).with_points(pts(fm)));
    }
    series.push(Series {
        label: "design p = 1%".into(),
        style: Style::Dashed,
        color: None,
        points: vec![Point::new(0.0, P), Point::new(N as f64, P)],
    });
    let chart = Chart::book(
        "Pollution attack (Gerbet et al. 2015): FPR against items inserted, n = 10,000, p = 1%",
        vec![Panel {
            title: "markers: FPR measured on 100,000 fresh keys; lines: the fill model (ones/m)^k"
                .into(),
            x: Axis::linear("items inserted"),
            y: Axis {
                range: Some((1e-5, 1.0)),
                format: Format::Percent,
                ..Axis::log("false-positive rate")
            },
            series,
            legend: Legend::default(),
        }],
    );
    chart.save_svg(&out.join("adversarial.svg"))?;
    chart.save_png(&out.join("adversarial.png"))?;
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1).peekable();
    if args.peek().map(String::as_str) == Some("--replot") {
        args.next();
        let out = std::path::PathBuf::from(args.next().unwrap_or_else(|| "results".into()));
        plot(&out)?;
        eprintln!(
            "redrew {}/adversarial.svg and .png from adversarial.csv",
            out.display()
        );
        return Ok(());
    }
    let seed: u64 = args.next().map_or(Ok(2015), |s| s.parse())?;
    let out = std::path::PathBuf::from(args.next().unwrap_or_else(|| "results".into()));
    std::fs::create_dir_all(&out)?;
    let mut rng = SplitMix(seed);
    let secret = {
        let mut k = [0u8; 16];
        k[..8].copy_from_slice(&rng.next().to_le_bytes());
        k[8..].copy_from_slice(&rng.next().to_le_bytes());
        k
    };
    let guessed = {
        let mut k = [0u8; 16];
        k[..8].copy_from_slice(&rng.next().to_le_bytes());
        k[8..].copy_from_slice(&rng.next().to_le_bytes());
        k
    };
    let max_tries = 50_000_000;
    let unkeyed = || StandardBloom::with_rate_and(N, P, Murmur3::default(), Guava64).expect("size");
    let keyed = || StandardBloom::keyed(N, P, secret).expect("size");
    println!(
        "n = {N}, p = {P}: murmur3+guava64 m = {} k = {}; sip24 m = {} k = {}; seed {seed}",
        unkeyed().bits(),
        unkeyed().k(),
        keyed().bits(),
        keyed().k()
    );

    let t = Instant::now();
    let mut rows = Vec::new();
    rows.extend(run(
        "murmur3-guava64",
        false,
        "random",
        unkeyed(),
        random_keys(seed),
    ));
    rows.extend(run(
        "murmur3-guava64",
        false,
        "attack",
        unkeyed(),
        polluter(seed, Murmur3::default(), Guava64, max_tries),
    ));
    rows.extend(run(
        "sip24-secret",
        true,
        "random",
        keyed(),
        random_keys(seed),
    ));
    rows.extend(run(
        "sip24-secret",
        true,
        "attack",
        keyed(),
        polluter(
            seed,
            Sip24::with_key(&guessed),
            EnhancedDoubleHashing,
            max_tries,
        ),
    ));
    rows.extend(run(
        "sip24-leaked",
        true,
        "attack",
        keyed(),
        polluter(
            seed,
            Sip24::with_key(&secret),
            EnhancedDoubleHashing,
            max_tries,
        ),
    ));
    println!("pollution runs: {:.1} s", t.elapsed().as_secs_f64());

    let mut csv = String::from(
        "scenario,keyed,stream,items,ones,fill,fpr_measured,fpr_fill_model,candidates_tried\n",
    );
    for r in &rows {
        let m = if r.scenario == "murmur3-guava64" {
            unkeyed().bits()
        } else {
            keyed().bits()
        };
        writeln!(
            csv,
            "{},{},{},{},{},{:.6},{:.6},{:.6},{}",
            r.scenario,
            r.keyed,
            r.stream,
            r.items,
            r.ones,
            r.ones as f64 / m as f64,
            r.fpr_measured,
            r.fpr_fill_model,
            r.candidates
        )?;
    }
    std::fs::write(out.join("adversarial.csv"), csv)?;
    println!(
        "\nscenario          stream  items  fill    FPR measured  (ones/m)^k  candidates tried"
    );
    for r in rows.iter().filter(|r| r.items % 2_500 == 0 && r.items > 0) {
        println!(
            "{:<17} {:<7} {:>5}  {:.3}   {:>10.4}%  {:>9.4}%  {}",
            r.scenario,
            r.stream,
            r.items,
            r.ones as f64
                / if r.scenario == "murmur3-guava64" {
                    unkeyed().bits()
                } else {
                    keyed().bits()
                } as f64,
            100.0 * r.fpr_measured,
            100.0 * r.fpr_fill_model,
            r.candidates
        );
    }

    // (c) offline false-positive search against filters filled with N random keys.
    let mut u = unkeyed();
    let mut s = keyed();
    let mut rng = SplitMix(seed ^ 0xfeed);
    for _ in 0..N {
        let item = format!("user-{:016x}", rng.next());
        u.insert(item.as_bytes());
        s.insert(item.as_bytes());
    }
    // The attacker's offline copy of the keyed filter: the real bits, its guessed key.
    let s_model = StandardBloom::from_bits(
        s.bit_vec().clone(),
        s.k(),
        s.len(),
        Sip24::with_key(&guessed),
        EnhancedDoubleHashing,
    )?;
    let want = 1_000;
    let results = [
        offline_search("murmur3-guava64", &u, &u.clone(), want, seed),
        offline_search("sip24-secret (guessed key)", &s, &s_model, want, seed),
    ];
    let mut ocsv = String::from(
        "scenario,filter_fpr,candidates_tried,found_offline,confirmed_live,seconds,candidates_per_confirmed_fp,us_per_confirmed_fp\n",
    );
    println!("\noffline false-positive search ({want} offline hits each):");
    for o in &results {
        let per = o.candidates as f64 / o.confirmed_live.max(1) as f64;
        let us = 1e6 * o.seconds / o.confirmed_live.max(1) as f64;
        writeln!(
            ocsv,
            "{},{:.5},{},{},{},{:.4},{:.1},{:.2}",
            o.scenario,
            o.filter_fpr,
            o.candidates,
            o.found_offline,
            o.confirmed_live,
            o.seconds,
            per,
            us
        )?;
        println!(
            "  {:<28} FPR {:.4}: {} candidates, {} offline hits, {} real false positives ({:.0} candidates and {:.2} µs per real FP; 1/FPR = {:.0})",
            o.scenario,
            o.filter_fpr,
            o.candidates,
            o.found_offline,
            o.confirmed_live,
            per,
            us,
            1.0 / o.filter_fpr
        );
    }
    std::fs::write(out.join("adversarial_offline.csv"), ocsv)?;
    plot(&out)?;
    println!(
        "\nwrote {}/adversarial.csv, adversarial_offline.csv, adversarial.svg, adversarial.png",
        out.display()
    );
    Ok(())
}
