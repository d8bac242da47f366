//! One sizing for every front end: for every kind at n ∈ {10^3, 10^5, 10^7} and
//! p ∈ {1%, 0.1%}, `calc --json`, `choose --json` and a filter built through the registry report
//! the bits and the model rate of [`FilterSpec::plan`], exactly (the TUI model is checked
//! against the plan by the binary's own tests, `tui::model`).
//!
//! What runs where: `calc` runs for every (kind, n, p). `choose` is a measurement (it builds,
//! fills and times every candidate), so the command runs at n = 10^3 and 10^5 (`--quick
//! --static`, a few seconds in a debug build); at 10^7 its candidates come from
//! `bloomlab::choose::candidates`, the function the command's `fpr_model` and sizing come
//! from. Built filters: every kind at 10^3 and 10^5 filled with n keys (the model rate then is
//! the filter's own `expected_fpr`); at 10^7 the dynamic kinds are built empty (bits only: a
//! debug build inserting 10^7 keys into every kind takes minutes) and the static kinds are not
//! built.

mod common;

use bloomlab::choose::{Constraints, Target, candidates};
use bloomlab::filters::ScalableBloom;
use bloomlab::hash::{AnyHasher, AnyStrategy};
use bloomlab::{AnyFilter, Filter, FilterKind, FilterSpec};
use serde_json::Value;

const NS: [u64; 3] = [1_000, 100_000, 10_000_000];
const PS: [f64; 2] = [0.01, 0.001];

/// The command's JSON, parsed, and its text.
fn json(args: &[&str]) -> (Value, String) {
    let out = common::run(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).expect("UTF-8");
    (serde_json::from_str(&text).expect("JSON"), text)
}

fn u(v: &Value, key: &str) -> u64 {
    v[key].as_u64().unwrap_or_else(|| panic!("{key} in {v}"))
}

/// Every number printed for `key`, in document order, parsed exactly: serde_json's parser
/// (without its `float_roundtrip` feature) may land 1 ulp off the printed digits, and the
/// comparisons here are exact.
fn printed(text: &str, key: &str) -> Vec<f64> {
    let pat = format!("\"{key}\": ");
    text.match_indices(&pat)
        .map(|(i, _)| {
            let rest = &text[i + pat.len()..];
            let end = rest.find([',', '\n', '}']).unwrap_or(rest.len());
            rest[..end]
                .trim()
                .parse()
                .unwrap_or_else(|e| panic!("{key}: {e}"))
        })
        .collect()
}

fn one(text: &str, key: &str) -> f64 {
    let all = printed(text, key);
    assert_eq!(all.len(), 1, "{key} in {text}");
    all[0]
}

/// `calc` for the kind: `calc --filter K` (standard: the plain `calc --n --p`, whose m and
/// classic rate are the standard filter's).
fn calc(kind: FilterKind, n: u64, p: f64) -> (u64, f64) {
    let (n, p) = (n.to_string(), p.to_string());
    let mut args = vec!["calc", "--n", &n, "--p", &p, "--json"];
    if kind.caps().bit_array {
        let (v, text) = json(&args);
        return (u(&v, "m_bits"), one(&text, "fpr_classic"));
    }
    args.extend(["--filter", kind.name()]);
    let (v, text) = json(&args);
    (u(&v, "m_bits"), one(&text, "fpr_model"))
}

#[test]
fn calc_reports_the_plan_for_every_kind_n_and_p() {
    let mut checked = 0;
    for kind in FilterKind::ALL {
        for n in NS {
            for p in PS {
                let plan = FilterSpec::new(kind, n, p).plan().unwrap();
                let (bits, fpr) = calc(kind, n, p);
                assert_eq!(bits, plan.bits, "{kind} n {n} p {p}: calc bits");
                assert_eq!(fpr, plan.fpr(), "{kind} n {n} p {p}: calc rate");
                checked += 1;
            }
        }
    }
    assert_eq!(checked, FilterKind::ALL.len() * NS.len() * PS.len());
}

/// Every candidate of `choose` (its variants too: k/2, bucket sizes, arities) against its own
/// spec's plan, and the default variant of each kind against `calc`'s plan.
fn check_choose(cands: &[(String, FilterSpec, u64, f64)], n: u64, p: f64) {
    let mut kinds = Vec::new();
    for (label, spec, bits, fpr) in cands {
        let plan = spec.plan().unwrap();
        assert_eq!(*bits, plan.bits, "{label} n {n} p {p}: choose bits");
        assert_eq!(*fpr, plan.fpr(), "{label} n {n} p {p}: choose rate");
        let at_defaults = FilterSpec {
            seed: spec.seed,
            ..FilterSpec::new(spec.kind, n, p)
        };
        if *spec == at_defaults {
            let default = at_defaults.plan().unwrap();
            let (b, r) = calc(spec.kind, n, p);
            assert_eq!((*bits, *fpr), (default.bits, default.fpr()), "{label}");
            assert_eq!(
                (*bits, *fpr),
                (b, r),
                "{label} n {n} p {p}: choose against calc"
            );
            kinds.push(spec.kind);
        }
    }
    // Every kind appears at its defaults (bucket size 4, arity 3 written as such are the
    // defaults' plans too, compared above through their own specs).
    for kind in FilterKind::ALL {
        assert!(
            cands.iter().any(|(_, s, ..)| s.kind == kind),
            "{kind} missing from choose at n {n} p {p}"
        );
    }
    assert!(kinds.len() >= 6, "{kinds:?}");
}

#[test]
fn choose_reports_the_plan_for_every_kind_n_and_p() {
    for n in NS {
        for p in PS {
            let cands: Vec<(String, FilterSpec, u64, f64)> = if n <= 100_000 {
                let (ns, ps) = (n.to_string(), p.to_string());
                let (v, text) = json(&[
                    "choose", "--n", &ns, "--p", &ps, "--quick", "--static", "--json",
                ]);
                let all = v["candidates"].as_array().unwrap();
                let rates = printed(&text, "fpr_model");
                assert_eq!(rates.len(), all.len());
                all.iter()
                    .zip(rates)
                    .map(|(c, rate)| {
                        let spec: FilterSpec = serde_json::from_value(c["spec"].clone()).unwrap();
                        let label = c["label"].as_str().unwrap().to_string();
                        (label, spec, u(c, "bits"), rate)
                    })
                    .collect()
            } else {
                let mut c = Constraints::new(n, Target::Fpr(p));
                c.allow_static = true;
                candidates(&c)
                    .unwrap()
                    .into_iter()
                    .map(|c| (c.label, c.spec, c.model.bits, c.model.fpr))
                    .collect()
            };
            check_choose(&cands, n, p);
        }
    }
}

#[test]
fn built_filters_have_the_plans_bits_and_rate() {
    for kind in FilterKind::ALL {
        for n in NS {
            for p in PS {
                let spec = FilterSpec::new(kind, n, p);
                let plan = spec.plan().unwrap();
                let what = format!("{kind} n {n} p {p}");
                if n > 100_000 {
                    if !kind.caps().static_set {
                        let f = spec.build().unwrap();
                        assert_eq!(f.bits(), plan.bits, "{what}: bits");
                        assert_eq!(f.bytes() as u64, plan.bytes, "{what}: bytes");
                        assert_eq!(f.k(), plan.k, "{what}: k");
                    }
                    continue;
                }
                let f = spec.build_from((0..n).map(u64::to_le_bytes)).unwrap();
                assert_eq!(f.len(), n, "{what}");
                assert_eq!(f.bits(), plan.bits, "{what}: bits");
                assert_eq!(f.k(), plan.k, "{what}: k");
                let got = match &f {
                    // A scalable filter's `expected_fpr` reads its bits set (random); its model
                    // is the rule that sized its layer, at the layer's bits, k and items.
                    AnyFilter::Scalable(s) => {
                        let l = s.layers().next().unwrap();
                        let rule = ScalableBloom::<AnyHasher, AnyStrategy>::rule(AnyStrategy(
                            spec.strategy,
                        ));
                        rule.rate(l.bits(), l.len(), l.k())
                    }
                    _ => f.expected_fpr(),
                };
                assert_eq!(got, plan.fpr(), "{what}: rate");
            }
        }
    }
}
