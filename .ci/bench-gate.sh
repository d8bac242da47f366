#!/usr/bin/env bash
# Instruction-count gate for the hot paths (benches/gate.rs, gungraun + callgrind).
#
#   .ci/bench-gate.sh            compare with results/bench/gate-baseline/; exit 3 on a >5% rise
#                                in instructions (ir) of any benchmark, non-zero on any failure
#   .ci/bench-gate.sh --refresh  make a new baseline and copy it into results/bench/gate-baseline/
#
# Counts belong to one compiled binary: after a toolchain or dependency change, refresh on
# purpose and commit (see benches/README.md).
set -euo pipefail
cd "$(dirname "$0")/.."

VERSION=0.20.0          # must equal the gungraun dev-dependency's version
NAME=committed          # the baseline's name (always pass it with '=': see benches/README.md)
BASE=results/bench/gate-baseline
# gungraun resolves a relative --home against the package, so the path must be absolute.
TARGET="$(realpath -m "${CARGO_TARGET_DIR:-target}")"
WORK="$TARGET/gungraun-gate"

if ! command -v valgrind >/dev/null; then
    echo "bench-gate: valgrind is required (apt-get install valgrind)" >&2
    exit 1
fi
if [ "$(gungraun-runner --version 2>/dev/null | awk '{print $2}')" != "$VERSION" ]; then
    echo "bench-gate: installing gungraun-runner $VERSION"
    cargo install --locked "gungraun-runner@$VERSION"
fi

rm -rf "$WORK"
mkdir -p "$WORK"

if [ "${1:-}" = "--refresh" ]; then
    cargo bench --bench gate -- --home="$WORK" --save-baseline="$NAME"
    rm -rf "$BASE"
    mkdir -p "$BASE"
    # Keep only the baseline files (not this run's logs and flamegraphs), with their layout.
    (cd "$WORK" && find . -type f -name "*.base@$NAME*" -print0) |
        while IFS= read -r -d '' f; do
            mkdir -p "$BASE/$(dirname "$f")"
            cp "$WORK/$f" "$BASE/$f"
        done
    rustc -V > "$BASE/TOOLCHAIN"
    echo "gungraun-runner $VERSION" >> "$BASE/TOOLCHAIN"
    echo "bench-gate: baseline written to $BASE ($(find "$BASE" -type f -name "*.base@$NAME*" | wc -l) files)"
    exit 0
fi

count=$(find "$BASE" -type f -name "*.base@$NAME*" 2>/dev/null | wc -l)
if [ "$count" -eq 0 ]; then
    echo "bench-gate: no baseline under $BASE (run .ci/bench-gate.sh --refresh and commit it)" >&2
    exit 1
fi
if [ "$(head -1 "$BASE/TOOLCHAIN" 2>/dev/null)" != "$(rustc -V)" ]; then
    echo "bench-gate: WARNING: baseline made with '$(head -1 "$BASE/TOOLCHAIN" 2>/dev/null)'," \
         "this is '$(rustc -V)': counts may differ for that reason alone" >&2
fi
cp -r "$BASE"/. "$WORK"/
log="$WORK/gate.log"
set +e
cargo bench --bench gate -- --home="$WORK" --baseline="$NAME" --callgrind-limits='ir=5%' 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e
if [ "$status" -ne 0 ]; then
    echo "bench-gate: FAILED (exit $status; 3 = instruction count above the baseline by more than 5%)" >&2
    exit "$status"
fi
# Every benchmark must have been compared with the baseline: a missing old value shows as
# 'N/A' (gungraun then passes), which must not pass silently here.
compared=$(grep -cE '^ *Instructions: *[0-9]+\|[0-9]+' "$log" || true)
missing=$(grep -cE '^ *Instructions: .*\|N/A' "$log" || true)
if [ "$compared" -eq 0 ] || [ "$missing" -ne 0 ]; then
    echo "bench-gate: FAILED: $missing benchmark(s) without a baseline value, $compared compared" >&2
    exit 1
fi
echo "bench-gate: OK ($compared benchmarks within 5% of baseline '$NAME')"
