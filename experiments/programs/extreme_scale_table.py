#!/usr/bin/env python3
"""The Markdown table of the extreme-scale rows in DIR (extreme_scale_rows.sh): one line per
LABEL-N.json with its measured FPR and 95% interval, the model, table bytes, wall time and peak
resident memory (LABEL-N.time: GNU time's '%e %M'). Rows whose run did not finish are listed as
such, with what their .err file says."""
import glob
import json
import os
import sys

d = sys.argv[1]
print("| design | n | FPR [95% CI] | model | table MB | wall s | peak RSS MB |")
print("|---|---:|---|---:|---:|---:|---:|")
for path in sorted(glob.glob(os.path.join(d, "*.json"))):
    base = path[:-5]
    label, n = base.rsplit("-", 1)
    label = os.path.basename(label)
    try:
        with open(base + ".time") as f:
            last = f.read().split("\n")
        wall, rss = [x for x in last if x.strip()][-1].split()[:2]
        wall, rss = float(wall), int(rss) / 1024
    except (OSError, ValueError, IndexError):
        wall, rss = float("nan"), float("nan")
    try:
        with open(path) as f:
            m = json.load(f)
    except (OSError, ValueError):
        try:
            err = open(base + ".err").read().strip().splitlines()
        except OSError:
            err = []
        print(f"| {label} | {int(n):,} | not finished: {err[-1] if err else 'no output'} | | | {wall:.0f} | {rss:.0f} |")
        continue
    lo, hi = m["fpr_ci95"]
    model = m["theory"].get("model")
    print(
        f"| {label} | {int(n):,} | {100 * m['fpr']:.3f}% [{100 * lo:.3f}, {100 * hi:.3f}] "
        f"| {100 * model:.3f}% | {m['bytes'] / 1e6:.0f} | {wall:.0f} | {rss:.0f} |"
    )
