#!/usr/bin/env python3
"""Turn a stream of `bloomlab calc --json` objects (one after another) into the sizing table."""
import json
import sys

dec = json.JSONDecoder()
text = sys.stdin.read()
i = 0
rows = []
while True:
    while i < len(text) and text[i].isspace():
        i += 1
    if i >= len(text):
        break
    obj, i = dec.raw_decode(text, i)
    rows.append(obj)


def pct(p):
    return f"{p * 100:.4f}%"


for r in rows:
    b = r["bytes"]
    print(
        f"| {r['n']:,} | {r['p'] * 100:g}% | {r['m_bits']:,} | {b / 1e6:,.2f} | "
        f"{b / 2**20:,.2f} | {r['k']} | {pct(r['fpr_classic'])} | {pct(r['fpr_exact'])} |"
    )
