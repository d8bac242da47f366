#!/usr/bin/env python3
"""Lines `fraction|{measure --json}` -> the overfill table (deterministic fields only)."""
import json
import sys



def pct(v):
    """A rate as a percentage; tiny ones in scientific notation so they do not read as 0."""
    if v == 0:
        return "0"
    if v < 1e-5:
        return f"{v * 100:.1e}%"
    return f"{v * 100:.3f}%"


for line in sys.stdin:
    if not line.strip():
        continue
    frac, js = line.split("|", 1)
    r = json.loads(js)
    lo, hi = r["fpr_ci95"]
    print(
        f"| {r['n']:,} | {frac} | {r['details'].get('fill', '')} | {pct(r['fpr'])} | "
        f"{pct(lo)}–{pct(hi)} | {pct(r['theory']['classic'])} | "
        f"{r['false_negatives']} |"
    )
