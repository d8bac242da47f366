use super::*;

fn fpr(n: u64, p: f64) -> Constraints {
    Constraints::new(n, Target::Fpr(p))
}

#[test]
fn capabilities_select_the_kinds() {
    let mut c = fpr(10_000, 0.01);
    c.deletes = true;
    let kinds: Vec<_> = candidates(&c)
        .unwrap()
        .iter()
        .map(|x| x.spec.kind)
        .collect();
    assert!(kinds.iter().all(|k| k.caps().removable), "{kinds:?}");
    assert!(kinds.contains(&FilterKind::Cuckoo) && kinds.contains(&FilterKind::Counting));
    let mut c = fpr(10_000, 0.01);
    c.grows = true;
    let kinds: Vec<_> = candidates(&c)
        .unwrap()
        .iter()
        .map(|x| x.spec.kind)
        .collect();
    assert_eq!(kinds, vec![FilterKind::Scalable]);
    let c = fpr(10_000, 0.01);
    assert!(
        candidates(&c)
            .unwrap()
            .iter()
            .all(|x| !x.spec.kind.caps().static_set)
    );
    let c = Constraints {
        allow_static: true,
        ..fpr(10_000, 0.01)
    };
    let labels: Vec<_> = candidates(&c)
        .unwrap()
        .into_iter()
        .map(|x| x.label)
        .collect();
    for l in [
        "xor",
        "binary-fuse arity=4",
        "ribbon",
        "cuckoo b=8",
        "standard k/2",
    ] {
        assert!(labels.iter().any(|x| x == l), "{l} not in {labels:?}");
    }
}

#[test]
fn every_candidate_meets_the_target() {
    let c = Constraints {
        allow_static: true,
        ..fpr(50_000, 0.001)
    };
    for cand in candidates(&c).unwrap() {
        assert!(
            cand.model.fpr <= 0.001 * 1.0001,
            "{}: {}",
            cand.label,
            cand.model.fpr
        );
    }
    let c = Constraints {
        allow_static: true,
        ..Constraints::new(50_000, Target::BitsPerKey(10.0))
    };
    let all = candidates(&c).unwrap();
    assert!(all.len() >= 10);
    for cand in &all {
        assert!(
            cand.model.bits_per_key <= 10.0 + 1e-9,
            "{}: {}",
            cand.label,
            cand.model.bits_per_key
        );
        // Counting spends 4 bits a counter: 2.5 counters per key leave it near 30%.
        let worst = if cand.spec.kind.caps().cell_bits > 1 {
            0.35
        } else {
            0.05
        };
        assert!(cand.model.fpr < worst, "{}: {}", cand.label, cand.model.fpr);
    }
    // Memory is bits per key times n / 8.
    let m = Constraints::new(50_000, Target::Memory(62_500));
    assert_eq!(m.bits_per_key_budget(), Some(10.0));
}

#[test]
fn impossible_constraints_are_refused_by_name() {
    let e = |c: &Constraints| candidates(c).unwrap_err().to_string();
    assert!(e(&fpr(1000, 1.5)).contains("p"));
    assert!(e(&fpr(1000, 0.0)).contains("p"));
    assert!(e(&Constraints::new(1_000_000, Target::Memory(100_000))).contains("memory"));
    let both = Constraints {
        deletes: true,
        grows: true,
        ..fpr(1000, 0.01)
    };
    assert!(e(&both).contains("constraints"), "{}", e(&both));
    // Growth at a rate no layer can reach.
    let deep = Constraints {
        grows: true,
        ..fpr(1000, 1e-300)
    };
    assert!(candidates(&deep).is_err());
}

fn point(label: &str, kind: FilterKind, bpk: f64, fpr: f64, lookup: f64) -> Measured {
    let t = flat(lookup);
    Measured {
        label: label.into(),
        spec: FilterSpec::new(kind, 1000, 0.01),
        measured: true,
        bits: (bpk * 1000.0) as u64,
        bytes: 0,
        bits_per_key: bpk,
        fpr,
        fpr_ci95: [fpr, fpr],
        fpr_model: fpr,
        queries: 0,
        build_ns_per_key: None,
        hit_ns: t.clone(),
        miss_ns: t,
        miss_ns_threads: None,
        lookup_ns: lookup,
        expected_cost_ns: lookup,
    }
}

#[test]
fn pareto_keeps_the_undominated_and_crossovers_follow_the_envelope() {
    let all = vec![
        point("fast", FilterKind::Blocked, 10.0, 0.01, 5.0),
        point("tight", FilterKind::Xor, 10.0, 0.001, 20.0),
        point("worse", FilterKind::Standard, 11.0, 0.01, 25.0),
    ];
    assert_eq!(pareto(&all), vec![0, 1]);
    // Costs 5 + 0.01c and 20 + 0.001c cross at c = 15/0.009 = 1666.7 (hit ratio 0).
    let x = crossovers(&all, 0.0, 1.0, 1e7);
    assert_eq!(x.len(), 1);
    assert_eq!((x[0].from, x[0].to), (0, 1));
    assert!((x[0].negative_cost_ns - 15.0 / 0.009).abs() < 1e-6);
}

#[test]
fn the_recommendation_minimises_expected_cost() {
    let mut c = fpr(1000, 0.01);
    c.hit_ratio = 0.0;
    let mk = |neg: f64| {
        let mut v = vec![
            point("fast", FilterKind::Blocked, 10.0, 0.01, 5.0),
            point("tight", FilterKind::Xor, 10.0, 0.001, 20.0),
        ];
        for m in &mut v {
            m.expected_cost_ns = m.cost_at(neg, 0.0);
        }
        v
    };
    c.negative_cost_ns = 50.0;
    let r = recommend(&mk(50.0), &c).unwrap();
    assert_eq!((r.best, r.runner_up), (0, Some(1)));
    assert!((r.cost_ratio.unwrap() - 20.05 / 5.5).abs() < 1e-9);
    assert!(
        r.reason.contains("fast") && r.reason.contains("tight"),
        "{}",
        r.reason
    );
    c.negative_cost_ns = 1e6;
    let r = recommend(&mk(1e6), &c).unwrap();
    assert_eq!(r.best, 1);
    assert!(r.reason.contains("false positives"), "{}", r.reason);
}

#[test]
fn build_commands_carry_the_sizing() {
    let spec = FilterSpec {
        bucket_size: 2,
        ..FilterSpec::new(FilterKind::Cuckoo, 1000, 0.01)
    };
    let s = build_command(&spec);
    assert!(
        s.contains("--filter cuckoo") && s.contains("--bucket-size 2") && s.contains("--p 0.01"),
        "{s}"
    );
    let spec = FilterSpec {
        m: Some(4096),
        k: Some(3),
        p: None,
        ..FilterSpec::new(FilterKind::Standard, 1000, 0.01)
    };
    let s = build_command(&spec);
    assert!(s.contains("--m 4096 --k 3") && !s.contains("--p"), "{s}");
}

#[test]
fn durations_parse() {
    assert_eq!(parse_duration_ns("50ns").unwrap(), 50.0);
    assert_eq!(parse_duration_ns("10us").unwrap(), 10_000.0);
    assert_eq!(parse_duration_ns("10µs").unwrap(), 10_000.0);
    assert_eq!(parse_duration_ns("1ms").unwrap(), 1e6);
    assert_eq!(parse_duration_ns("2s").unwrap(), 2e9);
    assert_eq!(parse_duration_ns("75").unwrap(), 75.0);
    for bad in ["", "-1ms", "fast", "1 hour", "NaNs"] {
        assert!(parse_duration_ns(bad).is_err(), "{bad}");
    }
}

#[test]
fn a_small_run_measures_real_numbers() {
    let c = Constraints {
        quick: true,
        allow_static: true,
        negative_cost_ns: 1e4,
        ..fpr(5_000, 0.01)
    };
    let ch = run(&c, &crate::measure::Control::default()).unwrap();
    assert!(ch.candidates.len() >= 10, "{:?}", ch.left_out);
    for m in &ch.candidates {
        assert!(m.measured && m.queries == 100_000);
        assert!(m.fpr_ci95[0] <= m.fpr && m.fpr <= m.fpr_ci95[1]);
        assert!(m.fpr < 0.03, "{}: {}", m.label, m.fpr);
        assert!(m.bits_per_key > 1.0 && m.hit_ns.median > 0.0 && m.hit_ns.samples >= 5);
        assert!(m.hit_ns.min <= m.hit_ns.median && m.hit_ns.median <= m.hit_ns.max);
    }
    let best = &ch.candidates[ch.recommendation.best];
    assert!(
        ch.candidates
            .iter()
            .all(|m| m.expected_cost_ns >= best.expected_cost_ns)
    );
    assert!(!ch.pareto.is_empty());
}
