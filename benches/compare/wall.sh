#!/usr/bin/env bash
# Wall-clock A/B of two source trees: the criterion suite (benches/bench.rs) of each, built in
# the compare worktree, run in alternating processes (A B, B A, A B, ...) for ROUNDS rounds so
# that a drift of the machine's speed lands on both sides; each round gives one HEAD/BASE ratio
# per benchmark, and the result is their median with a distribution-free 95% interval.
#
#   benches/compare/wall.sh BASE HEAD ROUNDS FILTER    (called by benches/compare.sh --wall)
#   prints the path of the result file (benchmark, "wall", median, lo, hi)
#
# FILTER is a criterion filter (a regular expression over the ids); BLOOMLAB_BENCH_SIZES
# defaults to 10000 so that only small filters are built. Timing numbers on a shared machine
# are contaminated by other load: the alternation and the interval are what keep them honest.
set -euo pipefail
here="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$here"
[ $# -eq 4 ] || { echo "usage: wall.sh BASE HEAD ROUNDS FILTER" >&2; exit 2; }
COMPARE_ROOT="$here/target/compare"
# shellcheck source=benches/compare/lib.sh
source "$here/benches/compare/lib.sh"
mkdir -p "$COMPARE_ROOT/bin" "$COMPARE_ROOT/logs"

# build REV -> path of a copy of its criterion binary (cached by tree and toolchain)
build() {
    resolve_rev "$1"
    local bin="$COMPARE_ROOT/bin/${tree:0:16}-$(toolchain_id)-bench"
    if [ ! -x "$bin" ]; then
        exec 9>"$(tree_dir).lock"
        flock 9 # one build at a time per scratch worktree (see measure.sh)
        checkout_tree "$commit"
        local log="$COMPARE_ROOT/logs/${tree:0:16}-bench.log"
        echo "wall: building the criterion suite of ${label:0:12} (log: $log)" >&2
        (cd "$(tree_dir)" && CARGO_TARGET_DIR="$(build_dir)" \
            nice -n "${COMPARE_NICE:-5}" cargo bench --bench bench --no-run \
            --message-format=json-render-diagnostics) 2>"$log" |
            python3 "$here/benches/compare/results.py" executable bench > "$log.exe" ||
            { tail -5 "$log" >&2; exit 3; }
        [ -s "$log.exe" ] || { echo "wall: no bench executable (log: $log)" >&2; exit 3; }
        cp "$(tail -1 "$log.exe")" "$bin"
        flock -u 9
    fi
    echo "$bin"
}
a="$(build "$1")"
b="$(build "$2")"
rounds="$3" filter="$4"
out="$COMPARE_ROOT/wall-$(basename "$a" | cut -c1-16)-$(basename "$b" | cut -c1-16).tsv"
raw="$out.raw"
: > "$raw"
crit="$(mktemp -d)"
trap 'rm -rf "$crit"' EXIT
run() { # SIDE BINARY ROUND
    CRITERION_HOME="$crit/$1" BLOOMLAB_BENCH_SIZES="${BLOOMLAB_BENCH_SIZES:-10000}" \
        "$2" --bench --noplot --warm-up-time 0.5 --measurement-time 2 "$filter" 2>/dev/null |
        python3 "$here/benches/compare/wall.py" parse "$1" "$3" >> "$raw"
}
for ((i = 1; i <= rounds; i++)); do
    echo "wall: round $i of $rounds" >&2
    if [ $((i % 2)) -eq 1 ]; then run A "$a" "$i"; run B "$b" "$i"; else run B "$b" "$i"; run A "$a" "$i"; fi
done
python3 "$here/benches/compare/wall.py" summarize "$raw" > "$out"
rm -f "$a" "$b" # tens of MB each: rebuilt from the shared target directory when needed
echo "$out"
