#!/usr/bin/env python3
"""Lines `label|{measure --json}` -> a table of filters (deterministic fields only).

Columns: label, filter, bits/key, measured FPR with CI, the filter's own model, and the
details the filter reports that are named on the command line (--details "a;b;c").
"""
import json
import sys

details = []
if len(sys.argv) > 2 and sys.argv[1] == "--details":
    details = [d for d in sys.argv[2].split(";") if d]


def pct(v):
    if v is None:
        return "–"
    if v == 0:
        return "0"
    if v < 1e-3:
        return f"{v * 100:.4f}%"
    return f"{v * 100:.3f}%"


head = ["setting", "filter", "items", "heap bits/item", "measured FPR", "95% CI", "model"] + details
print("| " + " | ".join(head) + " |")
print("|---|---|---:|---:|---:|---|---:|" + "---:|" * len(details))
for line in sys.stdin:
    if not line.strip():
        continue
    label, js = line.split("|", 1)
    r = json.loads(js)
    lo, hi = r["fpr_ci95"]
    cells = [
        label,
        f"`{r['filter']}`",
        f"{r['n']:,}",
        f"{r['bits_per_key']:.2f}",
        pct(r["fpr"]),
        f"{pct(lo)}–{pct(hi)}",
        pct(r["theory"]["model"]),
    ] + [str(r["details"].get(d, "–")) for d in details]
    print("| " + " | ".join(cells) + " |")
