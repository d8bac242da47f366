//! The command line as a user meets it: outputs, JSON fields, and refusals of bad input.

mod common;
use common::run;

use std::process::Output;

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn json(args: &[&str]) -> serde_json::Value {
    let o = run(args);
    assert!(
        o.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_slice(&o.stdout).expect("valid JSON")
}

#[test]
fn no_terminal_prints_the_guide_and_exits_0() {
    let o = run(&[]);
    assert!(o.status.success());
    assert!(stdout(&o).contains("bloomlab calc"), "{}", stdout(&o));
}

#[test]
fn calc_reproduces_the_articles_sizing_table() {
    // (n, p, m bits, k, bytes): the articles' table, in exact bits.
    let rows = [
        ("1000000", "0.01", 9_585_058u64, 7u64),
        ("1000000", "0.1%", 14_377_587, 10),
        ("10000000", "1%", 95_850_583, 7),
        ("100000000", "1/100", 958_505_837, 7),
        ("1000000000", "0.01", 9_585_058_377, 7),
        ("10000000", "0.001", 143_775_875, 10),
        ("100000000", "0.001", 1_437_758_756, 10),
    ];
    for (n, p, m, k) in rows {
        let v = json(&["calc", "--n", n, "--p", p, "--json"]);
        assert_eq!(v["m_bits"], m, "n={n} p={p}");
        assert_eq!(v["k"], k, "n={n} p={p}");
        // Whole 64-bit words, as the filter allocates them (was ⌈m/8⌉, 3 bytes short of
        // StandardBloom::bytes() at n = 10^6, p = 1%).
        assert_eq!(v["bytes"], m.div_ceil(64) * 8);
        for f in ["n", "p", "bits_per_key", "fpr_classic", "fpr_exact"] {
            assert!(v.get(f).is_some(), "missing {f}");
        }
    }
    // The articles' "17.2 MB" for 10M at 0.1% is neither unit: 17.97 MB = 17.14 MiB.
    let text = stdout(&run(&["calc", "--n", "10000000", "--p", "0.001"]));
    assert!(text.contains("17.972 MB = 17.139 MiB"), "{text}");
    // ... and "about 171 MB" for 100M at 0.1% is MiB: 179.7 MB = 171.4 MiB.
    let text = stdout(&run(&["calc", "--n", "100000000", "--p", "0.001"]));
    assert!(text.contains("179.720 MB = 171.394 MiB"), "{text}");
}

#[test]
fn calc_accepts_units_and_solves_other_subsets() {
    let v = json(&["calc", "--n", "1000000", "--m", "1.2MB", "--json"]);
    assert_eq!(v["m_bits"], 9_600_000);
    assert_eq!(v["k"], 7);
    let v = json(&["calc", "--m", "64KiB", "--p", "1%", "--json"]);
    assert_eq!(v["m_bits"], 524_288);
    let n = v["n"].as_u64().unwrap();
    assert!((54_000..56_000).contains(&n), "{n}");
}

/// The text of the number after `"field": ` in pretty-printed JSON.
fn raw_number<'a>(json: &'a str, field: &str) -> &'a str {
    let key = format!("\"{field}\": ");
    let at = json
        .find(&key)
        .unwrap_or_else(|| panic!("{field} in {json}"))
        + key.len();
    let rest = &json[at..];
    &rest[..rest.find([',', '\n', '}']).unwrap_or(rest.len())]
}

#[test]
fn every_units_example_through_calc() {
    // The one table of `bloomlab::units`; the TUI's tests type the same rows into its fields.
    use bloomlab::units::{EXAMPLES, Expected, Kind};
    for e in EXAMPLES {
        // n with a 1000-bit, k = 1 filter; p alone (bits per item); m for one item, k = 1:
        // each cheap to solve, and each echoes the parsed value in the JSON.
        let (args, flag, field): (Vec<&str>, &str, &str) = match e.kind {
            Kind::Count => (vec!["--n", e.input, "--m", "1000", "--k", "1"], "--n", "n"),
            Kind::Prob => (vec!["--p", e.input], "--p", "p"),
            Kind::Size => (
                vec!["--n", "1", "--m", e.input, "--k", "1"],
                "--m",
                "m_bits",
            ),
        };
        let o = run(&[&["calc"], args.as_slice(), &["--json"]].concat());
        let err = String::from_utf8_lossy(&o.stderr);
        match e.expected {
            Expected::Refused => {
                assert_eq!(o.status.code(), Some(2), "{e:?}: {}", stdout(&o));
                assert_eq!(err.trim_end().lines().count(), 1, "{e:?}: {err}");
                assert!(err.contains(flag), "{e:?}: {err}");
                assert!(
                    err.contains(&format!("'{}'", e.input.trim())),
                    "{e:?}: {err}"
                );
                assert!(!err.contains("panicked"), "{e:?}: {err}");
            }
            want => {
                assert!(o.status.success(), "{e:?}: {err}");
                let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
                let got = match want {
                    Expected::Int(_) => Expected::Int(v[field].as_u64().unwrap()),
                    // The printed digits (shortest round-trip form), read by the standard
                    // library: serde_json's own float reading may be one ulp off (1e-30).
                    _ => Expected::Real(raw_number(&stdout(&o), field).parse().unwrap()),
                };
                assert_eq!(got, want, "{e:?}");
            }
        }
    }
}

#[test]
fn calc_reads_1mb_as_bits_and_10mbit_and_1_in_1000() {
    let text = stdout(&run(&["calc", "--m", "1Mb", "--n", "1000"]));
    assert!(
        text.contains("m         1,000,000 bits = 125,000 bytes"),
        "{text}"
    );
    let v = json(&["calc", "--m", "1MB", "--n", "1000", "--json"]);
    assert_eq!(v["m_bits"], 8_000_000);
    let v = json(&["calc", "--m", "10Mbit", "--n", "1000", "--json"]);
    assert_eq!(v["m_bits"], 10_000_000);
    let text = stdout(&run(&["calc", "--n", "1000", "--p", "1 in 1000"]));
    assert!(
        text.contains("target p  0.1000% (0.001, 1 in 1,000)"),
        "{text}"
    );
}

#[test]
fn bad_input_is_one_line_naming_the_flag_exit_2() {
    let cases: [(&[&str], &str); 14] = [
        (&["calc", "--n", "0", "--p", "0.01"], "--n"),
        (&["calc", "--n", "10", "--p", "1.5"], "--p"),
        (&["calc", "--n", "10", "--p", "0"], "--p"),
        (&["calc", "--n", "10", "--p", "NaN"], "--p"),
        (&["calc", "--n", "10", "--m", "0"], "--m"),
        (&["calc", "--n", "10", "--m", "100", "--k", "0"], "--k"),
        (&["calc", "--n", "10", "--m", "100", "--k", "1000"], "--k"),
        (&["measure", "--n", "10", "--m", "1000000TiB"], "m"),
        (
            &["measure", "--filter", "bogus", "--n", "10", "--p", "0.1"],
            "--filter",
        ),
        (
            &["measure", "--hash", "bogus", "--n", "10", "--p", "0.1"],
            "--hash",
        ),
        (&["calc", "--n", "10"], "p or m"),
        (
            &[
                "measure",
                "--filter",
                "cuckoo",
                "--n",
                "100",
                "--p",
                "0.01",
                "--bucket-size",
                "3",
            ],
            "--bucket-size",
        ),
        (
            &[
                "measure",
                "--filter",
                "cuckoo",
                "--n",
                "100",
                "--p",
                "0.01",
                "--fingerprint-bits",
                "33",
            ],
            "--fingerprint-bits",
        ),
        (
            &[
                "measure", "--filter", "cuckoo", "--n", "100", "--p", "1e-10",
            ],
            "invalid p",
        ),
    ];
    for (args, needle) in cases {
        let o = run(args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

/// A fingerprint width sizes a filter without --p (it was required, then ignored): the rate
/// is the result, the model's for that width.
#[test]
fn a_width_flag_needs_no_p_and_prints_the_rate() {
    // measure: cuckoo at 12 bits, b = 4, load ~0.94: 2·4·0.94/2^12 ≈ 0.18%.
    let v = json(&[
        "measure",
        "--filter",
        "cuckoo",
        "--n",
        "10000",
        "--fingerprint-bits",
        "12",
        "--json",
    ]);
    let model = v["theory"]["model"].as_f64().unwrap();
    assert!((0.0015..0.0021).contains(&model), "{v}");
    assert!(v["fpr"].as_f64().unwrap() > 0.0, "{v}");
    for (kind, bits, rate) in [
        ("cuckoo", "12", 0.001_835),
        ("xor", "16", 1.0 / 65_536.0),
        ("binary-fuse", "8", 1.0 / 256.0),
        ("ribbon", "12", 1.0 / 4_096.0),
    ] {
        let args = [
            "calc",
            "--filter",
            kind,
            "--n",
            "10000",
            "--fingerprint-bits",
            bits,
        ];
        let v = json(&[&args[..], &["--json"]].concat());
        let got = v["fpr_model"].as_f64().unwrap();
        assert!((got / rate - 1.0).abs() < 0.01, "{kind}: {got} vs {rate}");
        assert!(v["p"].is_null(), "{v}");
        let o = run(&args);
        let text = stdout(&o);
        assert!(o.status.success(), "{text}");
        assert!(text.contains("(the rate is the result)"), "{text}");
        assert!(text.contains("  FPR       model "), "{text}");
        assert!(!text.contains("target p"), "{text}");
    }
    // build, from a file of keys.
    let dir = tempfile::tempdir().unwrap();
    let keys = dir.path().join("keys.txt");
    std::fs::write(&keys, "apple\nbanana\ncherry\n").unwrap();
    let out = dir.path().join("f.bloom");
    let o = run(&[
        "build",
        "--keys",
        keys.to_str().unwrap(),
        "--filter",
        "xor",
        "--fingerprint-bits",
        "16",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(out.exists());
}

#[test]
fn measure_json_has_the_documented_fields() {
    let v = json(&[
        "measure",
        "--filter",
        "standard",
        "--n",
        "5000",
        "--p",
        "0.01",
        "--queries",
        "20000",
        "--json",
    ]);
    for f in [
        "filter",
        "hash",
        "strategy",
        "keys",
        "n",
        "m_bits",
        "k",
        "bytes",
        "bits_per_key",
        "queries",
        "false_positives",
        "fpr",
        "fpr_ci95",
        "theory",
        "false_negatives",
        "ns_per_insert",
        "ns_per_query",
        "seed",
    ] {
        assert!(v.get(f).is_some(), "missing {f}");
    }
    for t in ["classic", "exact", "model"] {
        assert!(v["theory"].get(t).is_some(), "missing theory.{t}");
    }
    assert_eq!(v["timing"]["path"], "dynamic (AnyFilter), batched 1000");
    assert_eq!(v["timing"]["batch"], 1000);
    for op in ["insert", "query", "query_hit"] {
        for f in ["median", "min", "max", "samples"] {
            assert!(v["timing"][op].get(f).is_some(), "missing timing.{op}.{f}");
        }
    }
    assert_eq!(v["false_negatives"], 0);
    assert_eq!(v["m_bits"], 47_925);
    assert_eq!(v["queries"], 20_000);
}

#[test]
fn walkthrough_tells_the_story() {
    let text = stdout(&run(&["walkthrough"]));
    assert!(text.contains("a collision"), "{text}");
    assert!(
        text.contains("\"grape\" was DEFINITELY never inserted"),
        "{text}"
    );
    assert!(text.contains("FALSE POSITIVE"), "{text}");
    assert!(!text.contains("hits bit"), "{text}");
}

#[test]
fn walkthrough_says_when_a_word_hits_one_bit_more_than_once() {
    // With seed 4, apple's three positions are all bit 0.
    let text = stdout(&run(&["walkthrough", "--seed", "4"]));
    assert!(
        text.contains("\"apple\": h1 = 0x031a7cb415bd37d7"),
        "{text}"
    );
    assert!(text.contains("positions [0, 0, 0]"), "{text}");
    assert!(text.contains("\"apple\" hits bit 0 3 times"), "{text}");
}

/// The exact rate at the edges where the old f64 moment form broke (true values from 400-digit
/// arithmetic, tests/reference/exact_fpr.py): printed with the digits its error bound supports,
/// below f64's range from its logarithm.
#[test]
fn calc_prints_the_exact_rate_right_at_the_edges() {
    let cases: [(&[&str], &str); 5] = [
        (&["calc", "--m", "64KiB", "--n", "1000"], "exact 7.322e-61"),
        (&["calc", "--n", "1000", "--p", "1e-18"], "exact 1.007e-18"),
        (&["calc", "--n", "1e6", "--p", "1e-12"], "exact 1.000e-12"),
        (
            &["calc", "--n", "5", "--m", "1e10", "--k", "64"],
            "exact 2.136e-480",
        ),
        (
            &["calc", "--m", "256", "--n", "26", "--k", "7"],
            "exact 0.9135%",
        ),
    ];
    for (args, want) in cases {
        let o = run(args);
        assert!(o.status.success(), "{args:?}");
        let out = stdout(&o);
        assert!(out.contains(want), "{args:?}: want {want} in\n{out}");
    }
    let v = json(&["calc", "--n", "5", "--m", "1e10", "--k", "64", "--json"]);
    let log10 = v["fpr_exact_log10"].as_f64().unwrap();
    assert!((log10 - (-479.670_4)).abs() < 0.01, "{log10}");
    assert!(v["fpr_exact_rel_error"].as_f64().unwrap() < 1e-10);
}

/// `calc --rule` against numbers worked by hand from each system's formula:
///
/// (n = 10^6, p = 1%): −ln p / ln²2 = 4.605170/0.480453 = 9.585058 bits per item.
/// - guava: ⌊9,585,058.4⌋ = 9,585,058 bits, k = round(9.585058·ln 2 = 6.644) = 7; Guava's
///   `long[⌈9,585,058/64⌉ = 149,767]` indexes 9,585,088 bits, 1,198,136 bytes.
/// - redisbloom (`BF.RESERVE`, scaling: first filter at ε = 0.5%): bpe = 5.298317/0.480453
///   = 11.027753, bits = ⌊11,027,753.4⌋, ⌈/64⌉ = 172,309 words = 11,027,776 bits, 1,378,472 bytes,
///   k = ⌈0.693147·11.027753 = 7.644⌉ = 8.
/// - redisbloom-nonscaling (ε = 1%): 9,585,058 bits → 149,767 words = 9,585,088 bits,
///   1,198,136 bytes, k = ⌈6.644⌉ = 7.
/// - parquet: −8/ln(1 − 0.01^(1/8)) = 9.681526 bits per item → ⌊9,681,526/8⌋ = 1,210,190 bytes →
///   2^21 = 2,097,152 bytes = 16,777,216 bits, k = 8.
/// - optimal: ⌈9,585,058.4⌉ = 9,585,059 bits, k = 7, ⌈/8⌉ = 1,198,133 bytes.
///
/// (n = 1000, p = 3%): −ln p / ln²2 = 3.506558/0.480453 = 7.298441.
/// - guava: 7298 bits, k = round(5.059) = 5; 115 words = 7360 bits, 920 bytes.
/// - redisbloom (ε = 1.5%): bpe = 4.199705/0.480453 = 8.741136 → 8741 bits → 137 words = 8768
///   bits, 1096 bytes, k = ⌈6.059⌉ = 7 (RedisBloom 2.8.2's `BF.DEBUG`: bytes:1096 bits:8768 hashes:7).
/// - redisbloom-nonscaling: 7298 bits → 7360 bits, 920 bytes, k = ⌈5.059⌉ = 6 (the "6").
/// - parquet: −8/ln(1 − 0.03^(1/8)) = 7.722 → 7722 bits → 965 bytes → 1024 bytes = 8192 bits, k = 8.
/// - optimal: ⌈7298.44⌉ = 7299 bits, k = 5, 913 bytes.
#[test]
fn calc_rule_allocations_match_the_hand_computed_numbers() {
    let rows: [(&str, &str, &str, u64, u64, u64); 10] = [
        ("1e6", "1%", "guava", 9_585_088, 7, 1_198_136),
        ("1e6", "1%", "redisbloom", 11_027_776, 8, 1_378_472),
        (
            "1e6",
            "1%",
            "redisbloom-nonscaling",
            9_585_088,
            7,
            1_198_136,
        ),
        ("1e6", "1%", "parquet", 16_777_216, 8, 2_097_152),
        ("1e6", "1%", "optimal", 9_585_059, 7, 1_198_133),
        ("1000", "3%", "guava", 7360, 5, 920),
        ("1000", "3%", "redisbloom", 8768, 7, 1096),
        ("1000", "3%", "redisbloom-nonscaling", 7360, 6, 920),
        ("1000", "3%", "parquet", 8192, 8, 1024),
        ("1000", "3%", "optimal", 7299, 5, 913),
    ];
    for (n, p, rule, m, k, bytes) in rows {
        let v = json(&["calc", "--n", n, "--p", p, "--rule", rule, "--json"]);
        assert_eq!(v["rule"], rule, "{v}");
        assert_eq!(
            (v["m_bits"].as_u64(), v["k"].as_u64(), v["bytes"].as_u64()),
            (Some(m), Some(k), Some(bytes)),
            "{n} {p} {rule}: {v}"
        );
        // The real rate of that allocation, classic and exact, from the library's formulas.
        let classic = bloomlab::theory::fpr_classic(m, n.parse::<f64>().unwrap() as u64, k as u32);
        // (JSON's decimal text round-trips to within an ulp or so)
        let got = v["fpr_classic"].as_f64().unwrap();
        assert!(
            (got / classic - 1.0).abs() < 1e-12,
            "{rule}: {got} vs {classic}"
        );
        let exact = v["fpr_exact"].as_f64().unwrap();
        assert!(
            (exact / classic - 1.0).abs() < 2e-3,
            "{rule}: {exact} vs {classic}"
        );
    }
    // Without a value: every rule, a line each, in text and as a JSON array.
    let text = stdout(&run(&["calc", "--n", "1000", "--p", "3%", "--rule"]));
    for rule in [
        "guava",
        "redisbloom",
        "redisbloom-nonscaling",
        "parquet",
        "optimal",
    ] {
        assert!(
            text.lines().any(|l| l.trim_start().starts_with(rule)),
            "{rule}: {text}"
        );
    }
    let v = json(&["calc", "--n", "1000", "--p", "3%", "--rule", "--json"]);
    assert_eq!(v.as_array().map(Vec::len), Some(5), "{v}");
    assert!(v[3]["fpr_split_block"].is_f64(), "{v}");
}

#[test]
fn calc_refuses_n_p_and_m_together_naming_the_flags() {
    for args in [
        &["calc", "--n", "1e6", "--p", "0.01", "--m", "1MB"][..],
        &[
            "calc", "--n", "1e6", "--p", "0.01", "--m", "1MB", "--k", "7",
        ],
        &[
            "calc", "--n", "1e6", "--p", "0.01", "--rule", "guava", "--m", "1MB",
        ],
    ] {
        let o = run(args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains("--m"), "{args:?}: {err}");
        assert!(o.stdout.is_empty(), "{args:?}");
    }
}

#[test]
fn calc_filter_cuckoo_is_sized_by_the_cuckoo_rule() {
    let v = json(&[
        "calc", "--n", "1e6", "--p", "1%", "--filter", "cuckoo", "--json",
    ]);
    assert_eq!(v["filter"], "cuckoo", "{v}");
    // What the cuckoo filter itself allocates for (n, p), not a standard filter's 1,198,136 bytes.
    let f = bloomlab::FilterSpec::new(bloomlab::FilterKind::Cuckoo, 1_000_000, 0.01)
        .build()
        .unwrap();
    use bloomlab::Filter;
    assert_eq!(v["bytes"].as_u64(), Some(f.bytes() as u64), "{v}");
    assert_eq!(v["m_bits"].as_u64(), Some(f.bits()), "{v}");
    assert_ne!(v["bytes"].as_u64(), Some(1_198_136), "{v}");
    let fpr = v["fpr_model"].as_f64().unwrap();
    assert!(fpr > 0.0 && fpr <= 0.01, "{v}");
    let text = stdout(&run(&[
        "calc", "--n", "1e6", "--p", "1%", "--filter", "cuckoo",
    ]));
    assert!(
        text.contains("cuckoo filter sized by its own rule"),
        "{text}"
    );
    assert!(text.contains("bits/key"), "{text}");
    // The default is still the standard filter.
    let v = json(&["calc", "--n", "1e6", "--p", "1%", "--json"]);
    assert_eq!(v["bytes"], 1_198_136);
}

/// `--bucket-size` and any fingerprint width reach the cuckoo filter.
#[test]
fn cuckoo_bucket_size_and_fingerprint_bits_flags() {
    for (b, f, bits) in [("2", "9", 12_050 * 9), ("8", "10", 1_289 * 80)] {
        let v = json(&[
            "measure",
            "--filter",
            "cuckoo",
            "--n",
            "10000",
            "--p",
            "0.01",
            "--bucket-size",
            b,
            "--fingerprint-bits",
            f,
            "--queries",
            "1000",
            "--json",
        ]);
        assert_eq!(v["m_bits"], bits, "b={b}: {v}");
    }
}

/// Issue 46, item 9: the smaller edges of the command line, each as it was and as it is.
#[test]
fn saturated_filters_print_words_not_inf() {
    // calc --n 1000 --m 1 printed "lower bound log2(1/p) = -0.000   overhead +inf%".
    let o = run(&["calc", "--n", "1000", "--m", "1"]);
    let out = stdout(&o);
    assert!(o.status.success(), "{out}");
    assert!(
        out.contains(
            "lower bound log2(1/p) = 0.000   overhead n/a (FPR 100%: the bound is 0 bits)"
        ),
        "{out}"
    );
    assert!(!out.contains("inf") && !out.contains("-0.000"), "{out}");
    let j = json(&["calc", "--n", "1000", "--m", "1", "--json"]);
    assert_eq!(j["lower_bound_bits_per_key"], 0.0);
    assert!(j["overhead_vs_lower_bound"].is_null(), "{j}");
    // measure --m 65 printed "estimated count inf": every bit is set, no count follows.
    for m in ["1", "65"] {
        let o = run(&["measure", "--n", "1000", "--m", m, "--queries", "100"]);
        let out = stdout(&o);
        assert!(o.status.success(), "{out}");
        assert!(
            out.contains("estimated count none: every bit is set (the filter is saturated)"),
            "--m {m}: {out}"
        );
        assert!(!out.contains(" inf"), "--m {m}: {out}");
    }
    // A filter with zeros left still gets its number.
    let out = stdout(&run(&[
        "measure",
        "--n",
        "1000",
        "--p",
        "0.01",
        "--queries",
        "100",
    ]));
    let count = out
        .lines()
        .find_map(|l| l.trim().strip_prefix("estimated count "))
        .expect("a count");
    let c: f64 = count.parse().expect("a number");
    assert!((900.0..1100.0).contains(&c), "{c}");
}
