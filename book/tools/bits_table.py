#!/usr/bin/env python3
"""Lines of `bloomlab calc --p P --json` -> bits per item: bound, Bloom, cuckoo."""
import json
import sys

for line in sys.stdin:
    r = json.loads(line)
    p, lb, b = r["p"], r["lower_bound_bits_per_key"], r["bits_per_key"]
    cuckoo = (lb + 3) / 0.95  # Fan et al. 2014, b = 4, load 0.95: theory::cuckoo::bits_per_item
    print(
        f"| {p * 100:g}% | {lb:.2f} | {b:.2f} | +{r['overhead_vs_lower_bound'] * 100:.1f}% | {r['k']} | "
        f"{cuckoo:.2f} |"
    )
