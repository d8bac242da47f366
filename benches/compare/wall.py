#!/usr/bin/env python3
"""Wall-clock rows of benches/compare/wall.sh.

  wall.py parse SIDE ROUND      criterion's text output on stdin -> "SIDE ROUND ID NS" lines
  wall.py summarize RAW         per benchmark: median of the per-round HEAD/BASE ratios and its
                                95% interval -> result rows (benchmark, wall, median, lo, hi)

The interval is distribution-free: the order statistics x(k), x(n+1-k) of the n round ratios
with k the largest rank such that P(Binomial(n, 1/2) < k) <= 2.5% (the same construction as
bloomlab::stats::median_ci95, which the paired harness uses); it needs n >= 6 rounds.
"""

import math
import re
import sys

UNITS = {"ps": 1e-3, "ns": 1.0, "µs": 1e3, "us": 1e3, "ms": 1e6, "s": 1e9}
TIME = re.compile(r"time:\s+\[\S+ \S+ (\S+) (\S+) \S+ \S+\]")


def parse(side, rnd):
    name = None
    for line in sys.stdin:
        stripped = line.strip()
        m = TIME.search(line)
        if m:
            # criterion prints the id on the line before, or at the start of the same line
            head = line[: m.start()].strip()
            bench = head or name
            if bench:
                print(f"{side}\t{rnd}\t{bench}\t{float(m.group(1)) * UNITS[m.group(2)]}")
            name = None
        elif stripped and not stripped.startswith(("Benchmarking", "Found", "Warning", "change:",
                                                    "thrpt:", "Performance", "No change", "Change")):
            if not line.startswith(" "):
                name = stripped


def median_ci95(xs):
    """Line for line bloomlab::stats::median_ci95 (src/stats.rs): (median, lo, hi)."""
    xs = sorted(xs)
    r = len(xs)
    med = xs[r // 2] if r % 2 else (xs[r // 2 - 1] + xs[r // 2]) / 2
    tail, j = 0.0, 0
    while j < r // 2:
        p = math.comb(r, j) / 2**r
        if tail + p > 0.025:
            break
        tail += p
        j += 1
    j = max(j, 1)
    return med, xs[j - 1], xs[r - j]


def summarize(path):
    times = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            side, rnd, bench, ns = line.rstrip("\n").split("\t")
            times.setdefault(bench, {}).setdefault(rnd, {})[side] = float(ns)
    print("# metric\twall (HEAD/BASE time ratio per round; median and 95% interval)")
    for bench, rounds in sorted(times.items()):
        ratios = [r["B"] / r["A"] for r in rounds.values() if "A" in r and "B" in r and r["A"] > 0]
        if len(ratios) < 2:
            continue
        med, lo, hi = median_ci95(ratios)
        print(f"{bench}\twall\t{med:.5f}\t{lo:.5f}\t{hi:.5f}")


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "parse":
        parse(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 3 and sys.argv[1] == "summarize":
        summarize(sys.argv[2])
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
