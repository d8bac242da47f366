#!/usr/bin/env python3
"""The extreme-scale rows in DIR (extreme_scale_rows.sh): LABEL-N.json (from `bloomlab measure
--json` or the extreme_scale_peers example: the same fields), LABEL-N.time (GNU time's '%e %M':
wall seconds and the peak resident set of the row's process in KB), LABEL-N.skip (a row not
started: why), LABEL-N.err (what an unfinished row said).

  extreme_scale_table.py DIR                 print the Markdown table
  extreme_scale_table.py DIR --csv FILE      also merge the rows into the experiment's CSV
                                             (results/extreme-scale/extreme-scale.csv, same
                                             columns; rows of the same series and n replaced),
                                             for `bloomlab run experiments/extreme-scale.toml
                                             --replot --out results/extreme-scale`

"vs model" is z = (measured - model) / (the interval's half-width / 1.96): within +-1.96 the
model is inside the measured 95% interval."""
import csv
import glob
import json
import math
import os
import sys

PEERS = ["fastbloom", "fastbloom09-512", "sbbf-rs-safe", "cuckoofilter", "qfilter", "xorf-xor8", "xorf-fuse8"]
ORDER = [
    "standard-enhanced-double", "standard-enhanced-double-64", "standard-rotate-add-64",
    "standard-double", "standard-guava64", "standard-guava32", "blocked", "split-block",
    "cuckoo", "quotient", "xor", "binary-fuse", "ribbon",
] + PEERS


def series(label):
    """The experiment CSV's series name of a row label."""
    if label.startswith("standard-"):
        return "standard " + label[len("standard-"):]
    return label


def rows(d):
    out = []
    for path in glob.glob(os.path.join(d, "*-*.json")) + glob.glob(os.path.join(d, "*-*.skip")):
        base = path.rsplit(".", 1)[0]
        label, n = base.rsplit("-", 1)
        label = os.path.basename(label)
        r = {"label": label, "n": int(n), "wall": math.nan, "rss_mb": math.nan}
        if path.endswith(".skip"):
            r["skip"] = open(path).read().strip()
            out.append(r)
            continue
        try:
            with open(base + ".time") as f:
                last = [x for x in f.read().split("\n") if x.strip()][-1].split()
            r["wall"], r["rss_mb"] = float(last[0]), int(last[1]) / 1024
        except (OSError, ValueError, IndexError):
            pass
        try:
            with open(path) as f:
                r["m"] = json.load(f)
        except (OSError, ValueError):
            try:
                err = open(base + ".err").read().replace("\r", "\n").strip().splitlines()
            except OSError:
                err = []
            r["unfinished"] = err[-1].strip() if err else "no output"
        out.append(r)
    key = lambda r: (ORDER.index(r["label"]) if r["label"] in ORDER else len(ORDER), r["n"])
    return sorted(out, key=key)


def z(m):
    lo, hi = m["fpr_ci95"]
    half = (hi - lo) / 2
    return (m["fpr"] - m["theory"]["model"]) / (half / 1.959964) if half > 0 else math.nan


def markdown(rs):
    lines = [
        "| design | n | queries | FPR [95% CI] | model | vs model (z) | FN | table MB | wall s | peak RSS MB | peak B/key |",
        "|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rs:
        head = f"| {r['label']} | {r['n']:,} "
        if "skip" in r:
            lines.append(head + f"| | not run: {r['skip']} | | | | | | | |")
            continue
        if "m" not in r:
            lines.append(head + f"| | not finished: {r['unfinished']} | | | | | {r['wall']:.0f} | {r['rss_mb']:.0f} | |")
            continue
        m = r["m"]
        lo, hi = m["fpr_ci95"]
        fails = m.get("insert_failures", 0)
        fn = f"{m['false_negatives']}" + (f" ({fails} refused)" if fails else "")
        lines.append(
            head + f"| {m['queries']:,} | {100 * m['fpr']:.3f}% [{100 * lo:.3f}, {100 * hi:.3f}] "
            f"| {100 * m['theory']['model']:.3f}% | {z(m):+.1f} | {fn} | {m['bytes'] / 1e6:.0f} "
            f"| {r['wall']:.0f} | {r['rss_mb']:.0f} | {r['rss_mb'] * 1048576 / r['n']:.1f} |"
        )
    return "\n".join(lines)


def merge_csv(rs, path):
    with open(path, newline="") as f:
        rd = csv.DictReader(f)
        cols = rd.fieldnames
        old = list(rd)
    new = []
    for r in rs:
        if "m" not in r:
            continue
        m = r["m"]
        lo, hi = m["fpr_ci95"]
        th = m["theory"]
        new.append({
            "series": series(r["label"]), "row_type": "measured", "filter": m["filter"],
            "hash": m.get("hash", ""), "strategy": m.get("strategy") or "", "keys": "u64",
            "n_design": r["n"], "p_design": 0.01, "inserted": r["n"], "m_bits": m.get("m_bits", ""),
            "k": m.get("k") or "", "bytes": m["bytes"], "bits_per_key": m["bits_per_key"],
            "trials": 1, "queries": m["queries"], "false_positives": m["false_positives"],
            "fpr": m["fpr"], "fpr_lo": lo, "fpr_hi": hi, "ci_method": "wilson",
            "theory_classic": th.get("classic") or "", "theory_exact": th.get("exact") or "",
            "theory_model": th["model"], "false_negatives": m["false_negatives"],
            "insert_failures": m.get("insert_failures", 0),
            "ns_per_insert": m.get("ns_per_insert", ""), "ns_per_query": m.get("ns_per_query", ""),
            "var": "n", "x": r["n"],
        })
    keys = {(x["series"], str(x["x"])) for x in new}
    kept = [x for x in old if (x["series"], x["x"]) not in keys]
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols)
        w.writeheader()
        for x in kept + new:
            w.writerow({c: x.get(c, "") for c in cols})


def main():
    d = sys.argv[1]
    rs = rows(d)
    print(markdown(rs))
    done = [r for r in rs if "m" in r]
    print(f"\n{len(done)} rows, {sum(r['wall'] for r in done if not math.isnan(r['wall'])):.0f} s of wall time in all")
    if "--csv" in sys.argv:
        merge_csv(rs, sys.argv[sys.argv.index("--csv") + 1])


if __name__ == "__main__":
    main()
