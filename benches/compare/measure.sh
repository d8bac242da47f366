#!/usr/bin/env bash
# Measure one source tree's instruction counts (benches/gate.rs under callgrind), cached.
#
#   benches/compare/measure.sh REV        REV: a git revision, or WORKTREE for the working tree
#   prints the path of the result file: target/compare/cache/TREE-TOOLCHAIN.tsv
#
# Shared by compare.sh, history.sh and .ci/bench-gate.sh. Every tree is built in ONE scratch
# worktree (target/compare/tree) with ONE target directory (target/compare/build), so registry
# dependencies compile once and only the crate recompiles per commit; what is kept per commit is
# the small .tsv (and the build log). Results are keyed by the *tree* hash (same sources, same
# result; a working tree equal to a commit shares its entry) and by the toolchain (rustc -vV and
# the gungraun-runner version): another rustc measures again. A failed build is remembered
# (.failed beside it) so a backfill does not retry it.
# Environment: COMPARE_FORCE=1 measures again even when cached; COMPARE_FILTER=PATTERN passes a
# gungraun benchmark filter (the result file name then carries it); COMPARE_NICE (default 5);
# COMPARE_TREE, COMPARE_TARGET_DIR (benches/compare/lib.sh).
set -euo pipefail
here="$(cd "$(dirname "$0")/../.." && pwd)"
rev="${1:?usage: measure.sh REV|WORKTREE}"
cd "$here"
COMPARE_ROOT="$here/target/compare"
mkdir -p "$COMPARE_ROOT/cache" "$COMPARE_ROOT/logs"
# shellcheck source=benches/compare/lib.sh
source "$here/benches/compare/lib.sh"
ensure_runner >&2
resolve_rev "$rev"

filter="${COMPARE_FILTER:-}"
suffix=""
[ -n "$filter" ] && suffix="-f$(printf %s "$filter" | sha1sum | cut -c1-8)"
out="$COMPARE_ROOT/cache/${tree:0:16}-$(toolchain_id)$suffix.tsv"
if [ "${COMPARE_FORCE:-0}" != 1 ]; then
    if [ -s "$out" ]; then
        echo "$out"
        exit 0
    fi
    if [ -s "${out%.tsv}.failed" ]; then
        echo "measure: ${label:0:12} failed before with this toolchain (COMPARE_FORCE=1 retries):" >&2
        cat "${out%.tsv}.failed" >&2
        exit 3
    fi
fi

# One measurement at a time per scratch worktree (two compares started together would check
# out over each other); released once the binary is built and copied.
exec 9>"$(tree_dir).lock"
flock 9
checkout_tree "$commit"
# Paths of one length for every run: the counts move by a few instructions in a thousand
# operations (up to 0.06% seen) with the length of the binary's path (argv and stack layout).
slot="$(printf %08d $$)"
home="$COMPARE_ROOT/home-$slot"
rm -rf "$home"
mkdir -p "$home"
log="$COMPARE_ROOT/logs/${tree:0:16}$suffix.log"
echo "measure: building and running the gate of ${label:0:12} (log: $log)" >&2
start=$(date +%s)
args=(--home="$home")
[ -n "$filter" ] && args+=("$filter")
# Build, then run a private copy of the binary: cargo's lock on the shared target directory is
# held only while building, and another tree's build cannot replace the binary mid-run.
bin="$COMPARE_ROOT/bin/gate-$slot"
mkdir -p "$COMPARE_ROOT/bin"
set +e
(
    set -o pipefail
    cd "$(tree_dir)"
    exe="$(CARGO_TARGET_DIR="$(build_dir)" nice -n "${COMPARE_NICE:-5}" \
        cargo bench --bench gate --no-run --message-format=json-render-diagnostics |
        python3 "$here/benches/compare/results.py" executable gate)" || exit 101
    cp "$exe" "$bin" || exit 101
    flock -u 9
    nice -n "${COMPARE_NICE:-5}" "$bin" --bench "${args[@]}"
) >"$log" 2>&1
status=$?
rm -f "$bin"
set -e
if [ "$status" -ne 0 ]; then
    echo "measure: the gate of ${label:0:12} failed (exit $status); last lines of $log:" >&2
    tail -5 "$log" >&2
    { echo "exit $status; log $log"; grep -m3 -E '^error' "$log" || true; } > "${out%.tsv}.failed"
    exit 3
fi
tmp="$out.tmp"
{
    printf '# commit\t%s\n# date\t%s\n# toolchain\t%s\n# seconds\t%s\n' \
        "$label" "$(git show -s --format=%cI "$commit")" "$(toolchain_label)" "$(( $(date +%s) - start ))"
    python3 "$here/benches/compare/results.py" collect "$home"
} >"$tmp"
if [ "$(grep -vc '^#' "$tmp")" -eq 0 ]; then
    echo "measure: no callgrind results under $home for ${label:0:12}" >&2
    rm -f "$tmp"
    exit 3
fi
mv "$tmp" "$out"
rm -rf "$home"
echo "$out"
