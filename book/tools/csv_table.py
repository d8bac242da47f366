#!/usr/bin/env python3
"""A CSV file from results/ -> a Markdown table (at most 40 rows), naming its source."""
import csv
import sys

path = sys.argv[1]
limit = 40
with open(path, newline="") as f:
    rows = list(csv.reader(f))
if not rows:
    print(f"*(`{path}` is empty)*")
    sys.exit(0)


def cell(v):
    try:
        x = float(v)
    except ValueError:
        return v.replace("|", "\\|")
    if x != x:  # NaN
        return v
    if x == int(x) and abs(x) < 1e15 and "." not in v and "e" not in v.lower():
        return f"{int(x):,}"
    if x != 0 and (abs(x) < 1e-3 or abs(x) >= 1e7):
        return f"{x:.4g}"
    return f"{x:.4f}".rstrip("0").rstrip(".")


head, body = rows[0], rows[1:]
print("| " + " | ".join(head) + " |")
print("|" + "---|" * len(head))
for r in body[:limit]:
    print("| " + " | ".join(cell(v) for v in r) + " |")
print()
more = f", first {limit} of {len(body)} rows" if len(body) > limit else ""
print(f"*Source: `{path}`{more}.*")
