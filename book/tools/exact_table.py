#!/usr/bin/env python3
"""Lines of `bloomlab calc --n N --m M --k K --json` -> classic vs exact rows."""
import json
import sys

for line in sys.stdin:
    r = json.loads(line)
    c, e = r["fpr_classic"], r["fpr_exact"]
    print(
        f"| {r['n']:,} | {r['m_bits']:,} | {r['k']} | {c * 100:.5f}% | {e * 100:.5f}% | "
        f"{(1 - c / e) * 100:.3f}% |"
    )
