#!/usr/bin/env python3
"""Lines `name|p|{calc --json}` -> the scenarios table rows."""
import json
import sys

for line in sys.stdin:
    line = line.strip()
    if not line:
        continue
    name, p, js = line.split("|", 2)
    r = json.loads(js)
    print(
        f"| {name} | {p} | {r['n']:,} | {r['m_bits']:,} | {r['bytes'] / 1e6:,.2f} | {r['k']} | "
        f"{r['bits_per_key']:.2f} |"
    )
