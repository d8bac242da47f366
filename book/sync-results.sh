#!/usr/bin/env bash
# Regenerate everything the book shows that comes from the workbench:
#   book/src/generated/  outputs of bloomlab commands (walkthrough, calc, measure) and tables
#                        made from results/ files
#   book/src/figures/    copies of the committed plots in results/ (mdbook copies only book/src)
#
# Usage:
#   book/sync-results.sh           rewrite book/src/generated and book/src/figures
#   book/sync-results.sh --check   regenerate into a temporary folder and fail if anything differs
#                                  from what is committed (CI runs this)
#   book/sync-results.sh --quick   skip the slow measurements (about two minutes), keep the
#                                  committed ones; for local edits only
#
# Needs a release build of the binary: BLOOMLAB=path/to/bloomlab, or it runs
# `cargo build --release --bin bloomlab` (with CARGO_TARGET_DIR if set).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

mode=write
quick=0
for a in "$@"; do
    case "$a" in
        --check) mode=check ;;
        --quick) quick=1 ;;
        *) echo "usage: $0 [--check] [--quick]" >&2; exit 2 ;;
    esac
done

if [[ -z "${BLOOMLAB:-}" ]]; then
    cargo build --release --quiet --bin bloomlab
    BLOOMLAB="${CARGO_TARGET_DIR:-$root/target}/release/bloomlab"
fi
[[ -x "$BLOOMLAB" ]] || { echo "no bloomlab binary at $BLOOMLAB" >&2; exit 1; }

if [[ $mode == check ]]; then
    out=$(mktemp -d)
    trap 'rm -rf "$out"' EXIT
else
    out="$root/book/src"
fi
gen="$out/generated"
fig="$out/figures"
keep=$(mktemp)
if [[ $quick == 1 && -f "$root/book/src/generated/strategies-m256.md" ]]; then
    cp "$root/book/src/generated/strategies-m256.md" "$keep"
else
    quick=0
fi
rm -rf "$gen" "$fig"
mkdir -p "$gen" "$fig"

run() { # run CMD... : prints "$ bloomlab ARGS" then the output, as a reader would type it
    echo "\$ bloomlab $*"
    "$BLOOMLAB" "$@"
}

# --- 1. Command outputs ----------------------------------------------------------------------
run walkthrough > "$gen/walkthrough.txt"
run calc --n 10000000 --p 0.1% > "$gen/calc-1e7-0.1pct.txt"
run calc --n 1000000 --p 1% > "$gen/calc-1e6-1pct.txt"
run calc --m 64KiB --p 0.001 > "$gen/calc-64KiB.txt"
run calc --n 1000000 --m 1.2MB > "$gen/calc-1e6-1.2MB.txt"
run calc --p 1% > "$gen/calc-per-item-1pct.txt"

# The articles' sizing table, recomputed row by row with `calc --json`.
{
    echo "| n | p | m (bits) | MB | MiB | k | classic FPR at n | exact FPR at n |"
    echo "|---:|---:|---:|---:|---:|---:|---:|---:|"
    for row in "1000000 1%" "1000000 0.1%" "10000000 1%" "10000000 0.1%" "100000000 1%" \
               "100000000 0.1%" "1000000000 1%"; do
        set -- $row
        "$BLOOMLAB" calc --n "$1" --p "$2" --json
    done | python3 "$root/book/tools/sizing_table.py"
} > "$gen/sizing-table.md"

# Scenarios of the articles, each with its FPR choice, sized for 10 million items.
{
    echo "| scenario | FPR chosen | n | m (bits) | MB | k | bits/key |"
    echo "|---|---:|---:|---:|---:|---:|---:|"
    for row in "cache-penetration guard|0.1%" "registration de-duplication|0.01%" \
               "recommendations already read|1%" "crawler URL de-duplication|0.01%" \
               "spam sender blacklist|0.1%"; do
        name=${row%|*}
        p=${row#*|}
        printf '%s|%s|' "$name" "$p"
        "$BLOOMLAB" calc --n 10000000 --p "$p" --json | tr -d '\n'
        echo
    done | python3 "$root/book/tools/scenario_table.py"
} > "$gen/scenarios-table.md"

# Overfilling: a filter sized for 10,000 items at 1% receives more and more.
{
    echo "| items inserted | of capacity | fill | measured FPR | 95% CI | classic at that n | false negatives |"
    echo "|---:|---:|---:|---:|---:|---:|---:|"
    for n in 1000 5000 10000 15000 20000 30000 50000 100000 1000000; do
        printf '%s|' "$(( n * 100 / 10000 ))%"
        "$BLOOMLAB" measure --n "$n" --capacity 10000 --p 0.01 --queries 200000 --seed 7 --json | tr -d '\n'
        echo
    done | python3 "$root/book/tools/overfill_table.py"
    echo
    echo "Made by \`bloomlab measure --n N --capacity 10000 --p 0.01 --queries 200000 --seed 7 --json\` for each row (standard filter, m = 95,850 bits, k = 7)."
} > "$gen/overfill.md"

# Hash quality: the same filter with good and bad hashes on easy and hard keys.
hash_cmd="measure --n 100000 --p 0.01 --queries 200000 --seed 3"
{
    for h in xxh3 murmur3 fx fnv1a weak; do
        for keys in seq u64 email; do
            "$BLOOMLAB" $hash_cmd --hash "$h" --keys "$keys" --json | tr -d '\n'
            echo
        done
    done | python3 "$root/book/tools/hash_table.py"
    echo
    echo "Made by \`bloomlab $hash_cmd --hash H --keys K --json\` for each row (standard filter, m = 958,505 bits, k = 7, enhanced double hashing)."
} > "$gen/hash-quality.md"

# Cuckoo filters sized for 996,147 items (~94% load), against standard filters of the same memory
# (the cuckoo table's bits, m_bits of its JSON).
{
    for f in 8 12 16; do
        printf 'f = %s bits|' "$f"
        c=$("$BLOOMLAB" measure --filter cuckoo --n 996147 --fingerprint-bits "$f" --p 0.03 \
            --queries 1000000 --seed 5 --json | tr -d '\n')
        echo "$c"
        m=$(printf '%s' "$c" | python3 -c 'import json, sys; print(json.load(sys.stdin)["m_bits"])')
        printf 'same memory|'
        "$BLOOMLAB" measure --filter standard --n 996147 --m "$m" \
            --queries 1000000 --seed 5 --json | tr -d '\n'
        echo
    done | python3 "$root/book/tools/family_table.py" --details "load factor;longest kick chain;refused inserts"
    echo
    echo "Made by \`bloomlab measure --filter cuckoo --n 996147 --fingerprint-bits F --p 0.03 --queries 1000000 --seed 5 --json\` and \`bloomlab measure --filter standard --n 996147 --m M --queries 1000000 --seed 5 --json\` with M = the cuckoo table's bits (its \`m_bits\`)."
} > "$gen/cuckoo.md"

# A scalable filter started at 1,000 items that receives up to a million.
{
    for n in 1000 10000 100000 1000000; do
        printf '%s items|' "$n"
        "$BLOOMLAB" measure --filter scalable --n "$n" --capacity 1000 --p 0.01 --queries 200000 \
            --seed 11 --json | tr -d '\n'
        echo
    done | python3 "$root/book/tools/family_table.py" --details "layers;capacity;compound bound;probes per absent query"
    echo
    echo "Made by \`bloomlab measure --filter scalable --n N --capacity 1000 --p 0.01 --queries 200000 --seed 11 --json\` (growth 2, tightening 0.5)."
} > "$gen/scalable.md"

# Counting filter at 1x, 2x and 4x its design load.
{
    for n in 1000000 2000000 4000000; do
        printf '%s× design load|' "$(( n / 1000000 ))"
        "$BLOOMLAB" measure --filter counting --n "$n" --capacity 1000000 --p 0.01 \
            --queries 1000000 --seed 13 --json | tr -d '\n'
        echo
    done | python3 "$root/book/tools/family_table.py" --details "max counter;saturated counters;expected saturated (binomial tail, counter >= 15);overflow bound (Fan et al., counter >= 16)"
    echo
    echo "Made by \`bloomlab measure --filter counting --n N --capacity 1000000 --p 0.01 --queries 1000000 --seed 13 --json\`."
} > "$gen/counting.md"

# Standard, blocked and split-block filters at the same memory, then each sized for 1%.
{
    for f in standard blocked split-block; do
        printf '10 bits/item|'
        "$BLOOMLAB" measure --filter "$f" --n 1000000 --m 10000000 --queries 2000000 --seed 17 --json | tr -d '\n'
        echo
    done
    for f in standard blocked split-block; do
        printf 'sized for 1%%|'
        "$BLOOMLAB" measure --filter "$f" --n 1000000 --p 0.01 --queries 2000000 --seed 17 --json | tr -d '\n'
        echo
    done
} | python3 "$root/book/tools/family_table.py" > "$gen/blocked.md"
{
    echo
    echo "Made by \`bloomlab measure --filter F --n 1000000 (--m 10000000 | --p 0.01) --queries 2000000 --seed 17 --json\`."
} >> "$gen/blocked.md"

# Classic against exact as m grows, at about 10 bits per item and k = 7.
{
    echo "| n | m (bits) | k | classic (1 − e<sup>−kn/m</sup>)<sup>k</sup> | exact (Bose et al.) | classic is low by |"
    echo "|---:|---:|---:|---:|---:|---:|"
    for row in "26 256" "100 1024" "1000 10240" "10000 102400" "1000000 10240000"; do
        set -- $row
        "$BLOOMLAB" calc --n "$1" --m "$2" --k 7 --json | tr -d '\n'
        echo
    done | python3 "$root/book/tools/exact_table.py"
    echo
    echo "Made by \`bloomlab calc --n N --m M --k 7 --json\` for each row."
} > "$gen/exact-vs-classic.md"

# Bits per item: the lower bound, a Bloom filter, a cuckoo filter (b = 4, 95% load).
{
    echo "| target p | lower bound log₂(1/p) | Bloom filter at integer k (optimum 1.44·log₂(1/p)) | overhead | k | cuckoo (log₂(1/p) + 3)/0.95 |"
    echo "|---:|---:|---:|---:|---:|---:|"
    for p in 0.1 0.01 0.001 0.0001 0.00001; do
        "$BLOOMLAB" calc --p "$p" --json | tr -d '\n'
        echo
    done | python3 "$root/book/tools/bits_table.py"
    echo
    echo "Made by \`bloomlab calc --p P --json\` for each row; the cuckoo column is Fan et al.'s (2014) formula with the table's b = 4 and 95% load (\`theory::cuckoo::bits_per_item\`)."
} > "$gen/bits-per-item.md"

# Exercise 7: a weak hash with three index strategies; the deterministic fields only (no timings),
# as JSON for the exercise's {{#value}} directives.
{
    for s in default guava64 guava32; do
        strategy=()
        [[ $s != default ]] && strategy=(--strategy "$s")
        printf '%s\t' "$s"
        "$BLOOMLAB" measure --hash weak --keys seq --n 100000 --p 1% --queries 100000 "${strategy[@]}" \
            --json | tr -d '\n'
        echo
    done
} | python3 -c '
import json, sys
out = {}
for line in sys.stdin:
    name, text = line.rstrip("\n").split("\t", 1)
    d = json.loads(text)
    det = d["details"]
    out[name] = {"strategy": d["strategy"], "m_bits": d["m_bits"], "k": d["k"],
                 "queries": d["queries"], "false_positives": d["false_positives"], "fpr": d["fpr"],
                 "bits_set": det["bits set"], "fill": det["fill"],
                 "estimated_count": det["estimated count"]}
print(json.dumps(out, indent=2))
' > "$gen/weak-hash.json"

# Index strategies at m = 256, n = 26, k = 7 (the small-m regime where they differ).
strategies_cmd="measure --n 26 --m 256 --k 7 --trials 40000 --queries 2000 --seed 2024"
if [[ $quick == 1 ]]; then
    cp "$keep" "$gen/strategies-m256.md"   # the slow part is skipped (see --quick)
else
    {
        for s in independent enhanced-double double guava64 guava32; do
            "$BLOOMLAB" $strategies_cmd --strategy "$s" --json | tr -d '\n'
            echo
        done
    } | python3 "$root/book/tools/strategy_table.py" "bloomlab $strategies_cmd --strategy S --json" \
        > "$gen/strategies-m256.md"
fi
rm -f "$keep"

# --- 2. Figures and tables from results/ ---------------------------------------------------------
# Every plot under results/ is copied with its path below results/ kept: results/fpr/x.svg ->
# book/src/figures/fpr/x.svg. Pages refer to figures/..., never to ../results.
if [[ -d results ]]; then
    while IFS= read -r -d '' f; do
        rel=${f#results/}
        mkdir -p "$fig/$(dirname "$rel")"
        cp "$f" "$fig/$rel"
    done < <(find results -type f \( -name '*.svg' -o -name '*.png' \) -print0 | sort -z)
    # Markdown summaries written by the benches and experiments are included as they are.
    # Their image links are relative to results/DIR/; pages include them from book/src, where
    # the copies live in figures/DIR/, so the links are rewritten on the way (copy_results_md.py).
    while IFS= read -r -d '' f; do
        rel=${f#results/}
        dir=$(dirname "$rel")
        prefix="figures/"
        [[ "$dir" != "." ]] && prefix="figures/$dir/"
        mkdir -p "$gen/results/$dir"
        python3 "$root/book/tools/copy_results_md.py" "$f" "$gen/results/$rel" "$prefix"
    done < <(find results -type f -name '*.md' -print0 | sort -z)
    # CSV files become Markdown tables (first 40 rows), with the file they came from.
    while IFS= read -r -d '' f; do
        rel=${f#results/}
        mkdir -p "$gen/results/$(dirname "$rel")"
        python3 "$root/book/tools/csv_table.py" "$f" > "$gen/results/${rel}.md"
    done < <(find results -type f -name '*.csv' -size -2M -print0 | sort -z)
    # The answers of results/README.md, one file per experiment, for the chapters to include.
    if [[ -f results/README.md ]]; then
        python3 "$root/book/tools/md_sections.py" results/README.md "$gen/answers"
    fi
    # Curated tables for the Distributed filters chapter.
    for f in results/redis/compare*.csv; do
        [[ -f "$f" ]] || continue
        python3 "$root/book/tools/redis_tables.py" compare "$f" > "$gen/redis-$(basename "${f%.csv}").md"
    done
    for f in results/redis/penetration*.csv; do
        [[ -f "$f" ]] || continue
        python3 "$root/book/tools/redis_tables.py" penetration "$f" > "$gen/redis-$(basename "${f%.csv}").md"
    done
fi
# --- 3. Structure diagrams, drawn from real filters by `bloomlab diagram` --------------------------
mkdir -p "$fig/diagrams"
"$BLOOMLAB" diagram --all --out-dir "$fig/diagrams" > /dev/null
touch "$fig/.keep" "$gen/.keep"

if [[ $mode == check ]]; then
    status=0
    for d in generated figures; do
        if ! diff -r "$root/book/src/$d" "$out/$d" > "$out/diff-$d.txt" 2>&1; then
            echo "book/src/$d is out of date: run book/sync-results.sh and commit" >&2
            head -40 "$out/diff-$d.txt" >&2
            status=1
        fi
    done
    [[ $status == 0 ]] && echo "book/src/generated and book/src/figures are up to date"
    exit $status
fi
echo "wrote $gen and $fig"
