#!/usr/bin/env python3
"""Every kind at n = 10^6 for p = 1% and 0.1%, measured by the release binary in one run.

Usage: python3 experiments/programs/family_table.py [path/to/bloomlab] > results/family-table.md
Each row: `bloomlab measure --filter K --n 1e6 --p P --queries Q --json` (bits/key, FPR and its
95% Wilson interval, the model FPR, construction or insert ns/key, query ns/key: the median of
the dynamic path's samples) and `bloomlab calc --filter K --n 1e6 --p P --json` (the kind's own
sizing rule: the model bits/key). The lower bound is log2(1/ε) at the filter's model rate ε.
"""
import json, math, subprocess, sys

B = sys.argv[1] if len(sys.argv) > 1 else "target/release/bloomlab"
N = 1_000_000
KINDS = [("standard", []), ("counting", []), ("blocked", []), ("split-block", []),
         ("scalable", []), ("cuckoo", []), ("xor", []), ("binary-fuse", []),
         ("binary-fuse", ["--arity", "4"]), ("ribbon", []), ("quotient", [])]


def run(args):
    out = subprocess.run([B] + args, capture_output=True, text=True, check=True).stdout
    return json.loads(out)


print("# Every kind at n = 10^6 (u64 keys), one run of the release binary\n")
print("Made by `python3 experiments/programs/family_table.py` (`bloomlab measure … --json` and "
      "`bloomlab calc --filter K … --json` per row). Times are the dynamic path (`AnyFilter`, "
      "batched 1000), median of the samples, on a shared 2-core machine: indicative only.\n")
for p in (0.01, 0.001):
    q = 20_000_000 if p < 0.005 else 5_000_000
    print(f"\n## p = {p:g} ({q:,} absent queries per row)\n")
    print("| kind | bits/key | model bits/key | lower bound log2(1/ε) | over bound | FPR [95%] | model FPR | build or insert ns/key | query ns/key (miss) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for kind, extra in KINDS:
        label = kind + (" 4-wise" if extra else "")
        m = run(["measure", "--filter", kind, "--n", str(N), "--p", str(p), "--queries", str(q),
                 "--seed", "7", "--json"] + extra)
        c = run(["calc", "--filter", kind, "--n", str(N), "--p", str(p), "--json"] + extra)
        eps = m["theory"]["model"]
        lb = math.log2(1 / eps)
        bpk = m["bits_per_key"]
        lo, hi = m["fpr_ci95"]
        qt = m["timing"]["query"]["median"] if m.get("timing", {}).get("query") else m["ns_per_query"]
        print(f"| {label} | {bpk:.3f} | {c['bits_per_key']:.3f} | {lb:.3f} | {100 * (bpk / lb - 1):+.1f}% "
              f"| {m['fpr']:.4%} [{lo:.4%}, {hi:.4%}] | {eps:.4%} | {m['ns_per_insert']:.1f} | {qt:.1f} |")
        sys.stdout.flush()
