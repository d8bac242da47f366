#!/usr/bin/env python3
"""results/redis/*.csv -> the tables of the Distributed filters chapter.

Usage: redis_tables.py compare FILE.csv | redis_tables.py penetration FILE.csv
Rates are shown as measured (one run, one machine) and as ratios to RedisBloom's BF row of the
same file, since only ratios within one run carry over to another machine.
"""
import csv
import sys

kind, path = sys.argv[1], sys.argv[2]
with open(path, newline="") as f:
    rows = list(csv.DictReader(f))


def k(v):
    return f"{float(v) / 1000:,.0f}k"


if kind == "compare":
    # Short headers and no constant columns: the table must fit a 1280 px page without clipping.
    base = next((r for r in rows if r["filter"] == "redisbloom-bf"), None)
    print("| filter | transport | adds/s | hits/s | misses/s | adds ×BF | misses ×BF | FPR | in Redis | bits/key |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        ra = float(r["adds_per_s"]) / float(base["adds_per_s"]) if base else float("nan")
        rm = float(r["miss_queries_per_s"]) / float(base["miss_queries_per_s"]) if base else float("nan")
        transport = r["transport"].split(" (")[0].replace("/", " / ")
        print(
            f"| {r['filter']} | {transport} | {k(r['adds_per_s'])} | {k(r['hit_queries_per_s'])} | "
            f"{k(r['miss_queries_per_s'])} | {ra:.2f} | {rm:.2f} | {float(r['fpr']) * 100:.3f}% | "
            f"{int(r['memory_bytes']) / 1e6:.2f} MB | {float(r['bits_per_key']):.2f} |"
        )
    r0 = rows[0]
    trips = sorted({int(r["round_trips"]) for r in rows})
    print()
    print(
        f"*Source: `{path}` (n = {int(r0['n']):,}, p = {float(r0['p']) * 100:g}%, "
        f"{int(r0['batch']):,} items per round trip, {', '.join(f'{t:,}' for t in trips)} round trips per row, "
        f"{int(r0['queries']):,} absent-key queries; ×BF: the rate over RedisBloom's default `redisbloom-bf` row; "
        f"in Redis: the key's memory in MB = 10⁶ bytes; "
        f"false negatives in every row: {', '.join(sorted({r['false_negatives'] for r in rows}))}).*"
    )
elif kind == "penetration":
    print("| mode | requests | database queries | cache hits | null-cache hits | filter rejects | filter false positives | p50 µs | p90 µs | p99 µs |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(
            f"| {r['mode']} | {int(r['requests']):,} | {int(r['db_queries']):,} | {int(r['cache_hits']):,} | "
            f"{int(r['null_hits']):,} | {int(r['filter_rejects']):,} | {int(r['filter_false_positives']):,} | "
            f"{float(r['p50_us']):.0f} | {float(r['p90_us']):.0f} | "
            f"{float(r['p99_us']):,.0f} |"
        )
    r0 = rows[0]
    print()
    print(
        f"*Source: `{path}` ({int(r0['products']):,} products, {float(r0['missing_share']) * 100:g}% of "
        f"requests for missing ids, filter p = {float(r0['filter_p']) * 100:g}%; false negatives in every row: "
        f"{', '.join(sorted({r['filter_false_negatives'] for r in rows}))}).*"
    )
else:
    sys.exit(f"unknown table kind {kind}")
