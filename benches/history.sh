#!/usr/bin/env bash
# Instruction-count history of the gate's benchmarks, one row per commit and benchmark.
#
#   benches/history.sh [--since REV] [--until REV] [--every N] [--no-plot] [--cached-only]
#
# Measures every N-th commit of the first-parent line SINCE..UNTIL that has benches/gate.rs
# (default SINCE: the commit that added it; the first and last are always included) with
# benches/compare/measure.sh (its cache under target/compare/ is shared with compare.sh, so a
# commit is never built twice for one toolchain), merges the results into
# results/bench/history.csv (commit, date, toolchain, benchmark, metric, value), and writes
# results/bench/history.md (the largest steps) and history.svg/.png (cargo run --example
# bench_history). A commit whose gate does not build or run is skipped and named at the end;
# --cached-only measures nothing and skips (and names) the picked commits not in the cache.
# A picked commit that history.csv already holds for this toolchain is kept, not measured again
# (the CSV is the history's memory; the build cache under target/ may be gone).
# Exit: 0 done (skips are reported, not failures), 2 usage error, 3 nothing could be measured.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() { sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
since="" until=HEAD every=1 plot=1 cached_only=0
while [ $# -gt 0 ]; do
    case "$1" in
        --since) since="${2:?--since needs a revision}"; shift 2 ;;
        --since=*) since="${1#*=}"; shift ;;
        --until) until="${2:?--until needs a revision}"; shift 2 ;;
        --until=*) until="${1#*=}"; shift ;;
        --every) every="${2:?--every needs a number}"; shift 2 ;;
        --every=*) every="${1#*=}"; shift ;;
        --no-plot) plot=0; shift ;;
        --cached-only) cached_only=1; shift ;;
        -h|--help) usage ;;
        *) echo "history: unknown argument '$1'" >&2; usage ;;
    esac
done
case "$every" in ''|*[!0-9]*|0) echo "history: --every takes a positive whole number, not '$every'" >&2; exit 2 ;; esac
[ -n "$since" ] || since="$(git log --diff-filter=A --format=%H -- benches/gate.rs | tail -1)"
for r in "$since" "$until"; do
    git rev-parse --verify --quiet "$r^{commit}" >/dev/null || {
        echo "history: '$r' is not a commit of this repository" >&2; exit 2; }
done

# The first-parent line (the merges of main, one per landed branch), from SINCE where it has the
# gate: commits before the gate reached this line have no benches/gate.rs to run.
mapfile -t line < <(git rev-list --first-parent --reverse "$since^..$until" 2>/dev/null ||
                    git rev-list --first-parent --reverse "$until")
all=()
for c in "${line[@]}"; do
    git cat-file -e "$c:benches/gate.rs" 2>/dev/null && all+=("$c")
done
picked=()
for i in "${!all[@]}"; do
    if [ $((i % every)) -eq 0 ] || [ "$i" -eq $((${#all[@]} - 1)) ]; then picked+=("${all[$i]}"); fi
done
echo "history: ${#picked[@]} of ${#all[@]} first-parent commits with the gate (every $every)" >&2

files=() skipped=() kept=0
# shellcheck source=benches/compare/lib.sh
source benches/compare/lib.sh
toolchain_name="$(rustc -V) + gungraun-runner $GUNGRAUN_VERSION"
for c in "${picked[@]}"; do
    if [ -s results/bench/history.csv ] &&
        awk -F, -v c="$(git rev-parse "$c")" -v t="$toolchain_name" \
            '$1 == c && $3 == t { found = 1; exit } END { exit !found }' results/bench/history.csv; then
        kept=$((kept + 1))
        continue
    fi
    cached="target/compare/cache/$(git rev-parse "$c^{tree}" | cut -c1-16)-$(toolchain_id).tsv"
    if [ "$cached_only" = 1 ] && [ ! -s "$cached" ]; then
        skipped+=("$(git log -1 --format='%h %s' "$c" | cut -c1-80): not measured yet (--cached-only)")
        continue
    fi
    if f="$(COMPARE_TREE="${COMPARE_TREE:-tree-history}" COMPARE_NICE="${COMPARE_NICE:-10}" \
            benches/compare/measure.sh "$c")"; then
        files+=("$c" "$f")
    else
        skipped+=("$(git log -1 --format='%h %s' "$c" | cut -c1-80): gate did not build or run (log under target/compare/logs/)")
    fi
done
if [ ${#files[@]} -eq 0 ] && [ "$kept" -eq 0 ]; then
    echo "history: nothing measured" >&2
    exit 3
fi
[ ${#files[@]} -eq 0 ] || python3 benches/compare/results.py history results/bench/history.csv "${files[@]}"
python3 benches/compare/results.py steps results/bench/history.csv results/bench/history.md 10
{
    echo
    echo "## Coverage"
    echo
    echo "Picked: every ${every}th of the ${#all[@]} commits on the first-parent line from" \
         "\`$(git rev-parse --short=10 "$since")\` to \`$(git rev-parse --short=10 "$until")\` that have" \
         "\`benches/gate.rs\` (the last one always), ${#picked[@]} commits; $(( ${#line[@]} - ${#all[@]} ))" \
         "first-parent commits in that range predate the gate on this line and have nothing to measure." \
         "Measured: $(( ${#files[@]} / 2 + kept )) ($kept of them kept from history.csv)."
} >> results/bench/history.md
if [ ${#skipped[@]} -gt 0 ]; then
    { echo; echo "## Skipped"; echo; printf -- '- %s\n' "${skipped[@]}"; } >> results/bench/history.md
    printf 'history: skipped %s\n' "${skipped[@]}" >&2
fi
if [ "$plot" = 1 ]; then
    cargo run --quiet --example bench_history -- results/bench/history.csv results/bench/history
fi
echo "history: results/bench/history.{csv,md,svg,png}" >&2
