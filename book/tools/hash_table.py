#!/usr/bin/env python3
"""Lines of `bloomlab measure --json` -> hash × key kind table (deterministic fields only)."""
import json
import sys

print("| hash | keys | measured FPR | 95% CI | bits set (fill) | model |")
print("|---|---|---:|---|---:|---:|")
for line in sys.stdin:
    if not line.strip():
        continue
    r = json.loads(line)
    lo, hi = r["fpr_ci95"]
    d = r["details"]
    print(
        f"| `{r['hash']}` | `{r['keys']}` | {r['fpr'] * 100:.3f}% | {lo * 100:.3f}–{hi * 100:.3f}% | "
        f"{int(d['bits set']):,} ({d['fill']}) | {r['theory']['model'] * 100:.3f}% |"
    )
