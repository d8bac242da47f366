//! `bloomlab choose` end to end (small n: debug-fast): the JSON fields are real numbers, the
//! recommendation follows the cost model, the figures are written.

use std::process::Command;

fn choose(args: &str) -> (Option<i32>, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_bloomlab"))
        .arg("choose")
        .args(args.split_whitespace())
        .output()
        .expect("run bloomlab");
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn json(args: &str) -> serde_json::Value {
    let (code, out, err) = choose(args);
    assert_eq!(code, Some(0), "{err}");
    serde_json::from_str(&out).expect("JSON")
}

fn num(v: &serde_json::Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

#[test]
fn json_fields_are_measured_and_the_pick_is_the_cheapest() {
    let v = json("--n 4000 --p 1% --static --negative-cost 10us --quick --json");
    let cands = v["candidates"].as_array().unwrap();
    assert!(cands.len() >= 10, "{}", cands.len());
    for c in cands {
        assert_eq!(c["measured"], true);
        let fpr = num(&c["fpr"]);
        let [lo, hi] = [num(&c["fpr_ci95"][0]), num(&c["fpr_ci95"][1])];
        assert!(lo <= fpr && fpr <= hi && hi < 0.03, "{c}");
        assert!(num(&c["bits_per_key"]) > 4.0);
        assert!(num(&c["build_ns_per_key"]) > 0.0);
        for t in ["hit_ns", "miss_ns"] {
            let (med, min, max) = (num(&c[t]["median"]), num(&c[t]["min"]), num(&c[t]["max"]));
            assert!(min > 0.0 && min <= med && med <= max, "{t}: {c}");
        }
        // expected cost = lookup + (1 - h)·FPR·negative cost
        let want = num(&c["lookup_ns"]) + 0.9 * fpr * 10_000.0;
        assert!(
            (num(&c["expected_cost_ns"]) - want).abs() < 1e-6 * want,
            "{c}"
        );
    }
    let r = &v["recommendation"];
    let best = r["best"].as_u64().unwrap() as usize;
    let runner = r["runner_up"].as_u64().unwrap() as usize;
    let cost = |i: usize| num(&cands[i]["expected_cost_ns"]);
    assert!(
        cands
            .iter()
            .all(|c| num(&c["expected_cost_ns"]) >= cost(best))
    );
    assert!((num(&r["cost_ratio"]) - cost(runner) / cost(best)).abs() < 1e-9);
    // The runner-up is the second row of the ranking by cost, whatever its kind.
    assert_ne!(runner, best);
    assert!(
        (0..cands.len())
            .filter(|&i| i != best)
            .all(|i| cost(i) >= cost(runner))
    );
    // The cheapest of another kind is named apart when it is not the runner-up.
    let best_kind = &cands[best]["spec"]["kind"];
    let other = (0..cands.len())
        .filter(|&i| &cands[i]["spec"]["kind"] != best_kind)
        .min_by(|&a, &b| cost(a).total_cmp(&cost(b)));
    match r["other_kind"].as_u64() {
        Some(o) => {
            assert_eq!(Some(o as usize), other);
            assert_ne!(o as usize, runner);
        }
        None => assert!(other.is_none() || other == Some(runner), "{r}"),
    }
    let kind = cands[best]["spec"]["kind"].as_str().unwrap();
    assert!(
        r["command"]
            .as_str()
            .unwrap()
            .contains(&format!("--filter {kind}"))
    );
    assert!(!v["pareto"].as_array().unwrap().is_empty());
    assert_eq!(v["constraints"]["n"], 4000);
}

#[test]
fn deletes_admit_only_removable_kinds_and_out_writes_the_figures() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("ch");
    let v = json(&format!(
        "--n 3000 --bits-per-key 12 --deletes --quick --json --out {}",
        out.display()
    ));
    let kinds: Vec<&str> = v["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["spec"]["kind"].as_str().unwrap())
        .collect();
    assert!(
        kinds
            .iter()
            .all(|k| ["counting", "cuckoo", "quotient"].contains(k)),
        "{kinds:?}"
    );
    for c in v["candidates"].as_array().unwrap() {
        // heap bytes include a few words of struct: a little above the budget at most
        assert!(num(&c["bits_per_key"]) < 12.0 * 1.05, "{c}");
    }
    for f in [
        "choose.json",
        "choose-fpr.svg",
        "choose-fpr.png",
        "choose-cost.svg",
        "choose-cost.png",
    ] {
        let p = out.join(f);
        assert!(
            std::fs::metadata(&p)
                .map(|m| m.len() > 100)
                .unwrap_or(false),
            "{}",
            p.display()
        );
    }
    let svg = std::fs::read_to_string(out.join("choose-fpr.svg")).unwrap();
    assert!(svg.contains("lower bound log2(1/ε)") && svg.contains("cuckoo b=4"));
}

#[test]
fn text_output_names_the_pick_the_runner_up_and_the_rebuild_command() {
    let (code, out, err) = choose("--n 2000 --p 1% --negative-cost 50ns --quick");
    assert_eq!(code, Some(0), "{err}");
    for s in [
        "recommendation: ",
        "  why: ",
        "  runner-up: ",
        "× the chosen one's cost",
        "  rebuild: bloomlab build --keys keys.txt --filter ",
    ] {
        assert!(out.contains(s), "'{s}' missing in:\n{out}");
    }
}
