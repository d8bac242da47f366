#!/usr/bin/env python3
"""Lines of `bloomlab measure --json` (one object per line) -> a Markdown table.

Only deterministic fields are shown (counts and rates, not timings), so the table is
reproducible bit for bit from the seed.
"""
import json
import sys

cmd = sys.argv[1]
rows = [json.loads(line) for line in sys.stdin if line.strip()]
first = rows[0]
print(
    f"m = {first['m_bits']} bits, n = {first['n']}, k = {first['k']}, hash {first['hash']}, "
    f"{first['trials']:,} filters × {first['queries'] // first['trials']:,} absent queries each "
    f"(seed {first['seed']}). Theory: exact **{first['theory']['exact'] * 100:.3f}%**, "
    f"classic **{first['theory']['classic'] * 100:.3f}%**."
)
print()
print("| strategy | false positives | measured FPR | 95% CI | exact inside CI? | classic inside CI? |")
print("|---|---:|---:|---|:-:|:-:|")
for r in rows:
    lo, hi = r["fpr_ci95"]
    ex, cl = r["theory"]["exact"], r["theory"]["classic"]
    yes = lambda v: "yes" if lo <= v <= hi else "**no**"
    print(
        f"| `{r['strategy']}` | {r['false_positives']:,} of {r['queries']:,} | "
        f"{r['fpr'] * 100:.3f}% | {lo * 100:.3f}–{hi * 100:.3f}% | {yes(ex)} | {yes(cl)} |"
    )
print()
print(f"Made by `{cmd}` for each strategy S (see `book/sync-results.sh`).")
