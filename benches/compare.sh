#!/usr/bin/env bash
# Did my branch make anything slower? Compare two commits' benchmarks.
#
#   benches/compare.sh [OPTIONS] BASE [HEAD]
#
# BASE and HEAD are git revisions; HEAD defaults to the working tree as it is (uncommitted
# changes included). Both are built with the current toolchain in one scratch worktree under
# target/compare/ (one shared target directory, so only the crate recompiles; results cached by
# source tree and toolchain, so a second compare of the same commits takes seconds), and the
# instruction-count suite (benches/gate.rs, callgrind) runs on both.
#
# Options:
#   --markdown FILE     write the PR-comment table there instead of stdout
#   --json FILE         HEAD's results in bencher's metric format (BMF)
#   --gh-bench FILE     HEAD's results for github-action-benchmark (tool: customSmallerIsBetter)
#   --wall              also time both builds (criterion suite, A and B in alternating
#                       processes over --rounds rounds, 95% interval of each HEAD/BASE ratio)
#   --wall-filter RE    criterion filter of the --wall rows (default: query_hit/bloomlab-standard/10000)
#   --rounds N          --wall rounds (default 11)
#   --filter PATTERN    only gate benchmarks whose module path matches this gungraun wildcard
#                       pattern (e.g. "*hot_paths::query_hit*")
#   --thresholds FILE   thresholds (default benches/thresholds.toml)
#   --force             measure again even when cached
#
# Exit: 0 no regression, 1 a benchmark regressed beyond its threshold, 2 usage error,
# 3 a build or run failed. Installs gungraun-runner 0.20.0 when it is missing (needs valgrind).
set -euo pipefail
cd "$(dirname "$0")/.."

usage() { sed -n '2,27p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
py=(python3 benches/compare/results.py compare)
wall=0 rounds=11 wall_filter="query_hit/bloomlab-standard/10000" revs=()
while [ $# -gt 0 ]; do
    case "$1" in
        --markdown|--json|--gh-bench)
            [ $# -ge 2 ] || { echo "compare: $1 needs a file" >&2; exit 2; }
            # checked now, not after the builds: the directory must exist and be writable
            d="$(dirname -- "$2")"
            [ -d "$d" ] && [ -w "$d" ] && { [ ! -e "$2" ] || { [ -f "$2" ] && [ -w "$2" ]; }; } || {
                echo "compare: $1 '$2': not a writable file in an existing directory" >&2; exit 2; }
            py+=("$1" "$2"); shift 2 ;;
        --thresholds)
            [ $# -ge 2 ] && [ -f "$2" ] && [ -r "$2" ] || { echo "compare: --thresholds needs a readable file" >&2; exit 2; }
            py+=("$1" "$2"); shift 2 ;;
        --wall) wall=1; shift ;;
        --rounds) rounds="${2:-}"; shift 2 || { echo "compare: --rounds needs a number" >&2; exit 2; } ;;
        --wall-filter) wall_filter="${2:-}"; shift 2 || { echo "compare: --wall-filter needs a value" >&2; exit 2; } ;;
        --filter) export COMPARE_FILTER="${2:-}"; shift 2 || { echo "compare: --filter needs an id" >&2; exit 2; } ;;
        --force) export COMPARE_FORCE=1; shift ;;
        -h|--help) usage ;;
        -*) echo "compare: unknown option '$1'" >&2; usage ;;
        *) revs+=("$1"); shift ;;
    esac
done
case "$rounds" in ''|*[!0-9]*) echo "compare: --rounds takes a whole number, not '$rounds'" >&2; exit 2 ;; esac
if [ "${#revs[@]}" -lt 1 ] || [ "${#revs[@]}" -gt 2 ]; then
    echo "compare: give BASE and optionally HEAD (got ${#revs[@]} revisions)" >&2
    usage
fi
base="${revs[0]}" head="${revs[1]:-WORKTREE}"
for r in "$base" "$head"; do
    [ "$r" = WORKTREE ] || git rev-parse --verify --quiet "$r^{commit}" >/dev/null || {
        echo "compare: '$r' is not a commit of this repository" >&2; exit 2; }
done

label_of() { if [ "$1" = WORKTREE ]; then echo "worktree"; else git rev-parse "$1"; fi; }
start=$(date +%s)
set +e
base_file="$(benches/compare/measure.sh "$base")"; s1=$?
# A copy: with --force and one tree on both sides (an A/A run), HEAD's run replaces the cache entry.
tmp="$(mktemp)"
trap 'rm -f "$tmp"' EXIT
[ "$s1" -eq 0 ] && cp "$base_file" "$tmp" && base_file="$tmp"
head_file="$(benches/compare/measure.sh "$head")"; s2=$?
set -e
[ "$s1" -eq 0 ] && [ "$s2" -eq 0 ] || exit 3
if [ "$wall" = 1 ]; then
    wall_file="$(benches/compare/wall.sh "$base" "$head" "$rounds" "$wall_filter")" || exit 3
    py+=(--wall "$wall_file")
fi
set +e
"${py[@]}" "$base_file" "$head_file" --base-label "$(label_of "$base")" --head-label "$(label_of "$head")"
status=$?
set -e
echo "compare: done in $(( $(date +%s) - start )) s" >&2
exit "$status"
