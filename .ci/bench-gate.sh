#!/usr/bin/env bash
# Instruction-count gate for the hot paths (benches/gate.rs, gungraun + callgrind): a compare
# (benches/compare.sh) of the working tree with the commit the baseline was made from.
#
#   .ci/bench-gate.sh            exit 0 when no benchmark executes more instructions than the
#                                baseline beyond its threshold (benches/thresholds.toml, 1% by
#                                default), 1 when one does, 2 on a usage error, 3 when a build,
#                                a run or the baseline itself is broken
#   .ci/bench-gate.sh --refresh  make a new baseline from HEAD (commit the code first) and copy it
#                                into results/bench/gate-baseline/, with COMMIT and TOOLCHAIN
#
# results/bench/gate-baseline/ holds gungraun's baseline files, TOOLCHAIN (the rustc and runner
# that made them) and COMMIT (the commit whose code they measure). With the same toolchain the
# committed counts are the BASE side; with another one, COMMIT is rebuilt and measured with the
# current toolchain instead (benches/compare/measure.sh, cached under target/compare/), so a new
# rustc never fails the gate by itself. The table goes to stdout and target/compare/gate.md.
set -euo pipefail
cd "$(dirname "$0")/.."

NAME=committed          # the gungraun baseline's name (always pass it with '=': see benches/README.md)
BASE="${BENCH_GATE_BASELINE:-results/bench/gate-baseline}"   # another one: the self-test
# shellcheck source=benches/compare/lib.sh
source benches/compare/lib.sh
ensure_runner
mkdir -p target/compare

if [ "${1:-}" = "--refresh" ]; then
    if [ -n "$(git status --porcelain -- . ":(exclude)$BASE")" ]; then
        echo "bench-gate: --refresh records HEAD as the baseline's commit: commit (or stash) your" \
             "changes first, then refresh and commit the baseline" >&2
        exit 2
    fi
    # gungraun resolves a relative --home against the package, so the path must be absolute.
    work="$(realpath -m "${CARGO_TARGET_DIR:-target}")/gungraun-gate"
    rm -rf "$work"
    mkdir -p "$work"
    cargo bench --bench gate -- --home="$work" --save-baseline="$NAME"
    rm -rf "$BASE"
    mkdir -p "$BASE"
    # Keep only the baseline files (not this run's logs and flamegraphs), with their layout.
    (cd "$work" && find . -type f -name "*.base@$NAME*" -print0) |
        while IFS= read -r -d '' f; do
            mkdir -p "$BASE/$(dirname "$f")"
            cp "$work/$f" "$BASE/$f"
        done
    rustc -V > "$BASE/TOOLCHAIN"
    echo "gungraun-runner $GUNGRAUN_VERSION" >> "$BASE/TOOLCHAIN"
    git rev-parse HEAD > "$BASE/COMMIT"
    echo "bench-gate: baseline of $(cut -c1-10 "$BASE/COMMIT") written to $BASE" \
         "($(find "$BASE" -type f -name "*.base@$NAME*" | wc -l) files)"
    exit 0
fi
[ $# -eq 0 ] || { echo "bench-gate: unknown argument '$1' (only --refresh)" >&2; exit 2; }

commit="$(cat "$BASE/COMMIT" 2>/dev/null || true)"
if ! git rev-parse --verify --quiet "$commit^{commit}" >/dev/null; then
    echo "bench-gate: $BASE/COMMIT ('$commit') is not a commit of this clone (a shallow clone?" \
         "fetch the history, or run .ci/bench-gate.sh --refresh and commit it)" >&2
    exit 3
fi
want="$(rustc -V)
gungraun-runner $GUNGRAUN_VERSION"
if [ "$(cat "$BASE/TOOLCHAIN" 2>/dev/null)" = "$want" ]; then
    base_file=target/compare/gate-base.tsv
    {
        printf '# commit\t%s\n# date\t%s\n# toolchain\t%s\n' \
            "$(git rev-parse "$commit")" "$(git show -s --format=%cI "$commit")" "$(toolchain_label)"
        python3 benches/compare/results.py collect "$BASE" ".out.base@$NAME"
    } > "$base_file"
    echo "bench-gate: BASE = the committed baseline of $(cut -c1-10 <<<"$commit") (same toolchain)" >&2
else
    echo "bench-gate: the baseline was made with '$(head -1 "$BASE/TOOLCHAIN" 2>/dev/null)'," \
         "this is '$(rustc -V)': measuring $(cut -c1-10 <<<"$commit") again with this toolchain" >&2
    base_file="$(benches/compare/measure.sh "$commit")" || exit 3
fi
if [ "$(grep -vc '^#' "$base_file")" -eq 0 ]; then
    echo "bench-gate: no baseline values in $BASE" >&2
    exit 3
fi
head_file="$(benches/compare/measure.sh WORKTREE)" || exit 3
set +e
python3 benches/compare/results.py compare "$base_file" "$head_file" --markdown target/compare/gate.md \
    --base-label "$(git rev-parse "$commit")" --head-label worktree
status=$?
set -e
cat target/compare/gate.md
case "$status" in
    0) echo "bench-gate: OK (no regression beyond the thresholds of benches/thresholds.toml)" ;;
    1) echo "bench-gate: FAILED: a benchmark regressed (table above; refresh on purpose if meant)" >&2 ;;
    *) echo "bench-gate: FAILED (exit $status)" >&2 ;;
esac
exit "$status"
