#!/usr/bin/env bash
# Self-test of benches/compare.sh and .ci/bench-gate.sh: they catch what they should and
# nothing else. Run by .ci/run after the gate (it reuses the gate's cache under target/compare/).
#
#   1. A/A: HEAD against itself, both sides measured afresh: 0 regressions, every count equal.
#   2. An extra mixing round in one hash (XXH64's hash64 gets a mix64, split-block's default
#      hash; a temporary commit object made through a private index, on no branch): the
#      split-block benchmark is the one regression, every other benchmark unchanged.
#      The --json (BMF) and --gh-bench files of 1 are checked against their formats.
#   3. A toolchain mismatch: the gate with a copy of the baseline whose TOOLCHAIN names another
#      rustc measures the baseline's commit again with this toolchain and passes.
#
# 1 and 2 use the gungraun filter below (the 14 query_hit benchmarks of hot_paths) to keep CI
# short; benches/compare.sh without --filter runs them all.
set -euo pipefail
cd "$(dirname "$0")/.."
FILTER='*hot_paths::query_hit*'
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fail() { echo "compare-selftest: FAILED: $*" >&2; exit 1; }
start=$(date +%s)

# ---- 1. A/A ----
set +e
COMPARE_FORCE=1 benches/compare.sh --filter "$FILTER" --json "$tmp/aa.json" --gh-bench "$tmp/aa-gh.json" \
    HEAD HEAD > "$tmp/aa.md"
status=$?
set -e
cat "$tmp/aa.md"
[ "$status" -eq 0 ] || fail "A/A compare exited $status (expected 0)"
grep -q '^\*\*0 regression(s)\*\*, 0 improvement(s)' "$tmp/aa.md" || fail "A/A: not 0 regressions and 0 improvements"
rows=$(grep -c '| instructions |' "$tmp/aa.md")
equal=$(grep -c '| instructions | .* | +0.00% | unchanged |' "$tmp/aa.md")
[ "$rows" -ge 10 ] || fail "A/A compared only $rows benchmarks"
[ "$equal" -eq "$rows" ] || fail "A/A: $((rows - equal)) of $rows counts differ between two runs of one binary"
python3 benches/compare/results.py validate bmf "$tmp/aa.json" || fail "--json is not valid BMF"
python3 benches/compare/results.py validate gh "$tmp/aa-gh.json" || fail "--gh-bench is not valid"
echo "compare-selftest: A/A OK ($rows benchmarks, all counts equal; BMF and gh-bench files valid)"

# ---- 2. an injected extra mixing round ----
file=src/hash/functions.rs
pattern='^        xxhash_rust::xxh64::xxh64(bytes, self.seed)$'
git show "HEAD:$file" > "$tmp/orig.rs"
sed "s/$pattern/        mix64(xxhash_rust::xxh64::xxh64(bytes, self.seed))/" "$tmp/orig.rs" > "$tmp/slow.rs"
[ "$(diff "$tmp/orig.rs" "$tmp/slow.rs" | grep -c '^>')" -eq 1 ] ||
    fail "the injection no longer applies to $file (one line expected to change)"
export GIT_INDEX_FILE="$tmp/index"
git read-tree HEAD
git update-index --cacheinfo "100644,$(git hash-object -w "$tmp/slow.rs"),$file"
slow="$(git commit-tree "$(git write-tree)" -p HEAD -m "compare self-test: XXH64 hash64 + mix64 (never merged)")"
unset GIT_INDEX_FILE
set +e
benches/compare.sh --filter "$FILTER" --json "$tmp/slow.json" HEAD "$slow" > "$tmp/slow.md"
status=$?
set -e
cat "$tmp/slow.md"
[ "$status" -eq 1 ] || fail "injected change: compare exited $status (expected 1, a regression)"
regressed=$(grep '| \*\*regression\*\*' "$tmp/slow.md" | cut -d'`' -f2 | tr '\n' ' ')
[ "$regressed" = "hot_paths/query_hit.split_block " ] ||
    fail "injected change: regressions [$regressed], expected [hot_paths/query_hit.split_block]"
others=$(grep -c '| instructions |' "$tmp/slow.md")
unchanged=$(grep -c '| +0.00% | unchanged |' "$tmp/slow.md")
[ "$unchanged" -eq $((others - 1)) ] ||
    fail "injected change: $((others - 1 - unchanged)) benchmark(s) besides split_block moved"
echo "compare-selftest: injected change OK (query_hit.split_block flagged, $unchanged others unchanged)"

# ---- 3. a toolchain mismatch does not fail the gate ----
mkdir -p "$tmp/baseline"
cp -r results/bench/gate-baseline/. "$tmp/baseline/"
# The commit the gate then rebuilds: HEAD, whose counts the gate step has cached (cheap in CI).
git rev-parse HEAD > "$tmp/baseline/COMMIT"
printf 'rustc 1.0.0 (a toolchain of the past)\ngungraun-runner 0.20.0\n' > "$tmp/baseline/TOOLCHAIN"
set +e
BENCH_GATE_BASELINE="$tmp/baseline" .ci/bench-gate.sh > "$tmp/gate.out" 2>&1
status=$?
set -e
tail -3 "$tmp/gate.out"
[ "$status" -eq 0 ] || fail "gate with another toolchain's baseline exited $status (expected 0)"
grep -q 'again with this toolchain' "$tmp/gate.out" || fail "the gate did not measure the baseline commit again"
grep -qi 'warning' "$tmp/gate.out" && fail "the gate still warns about the toolchain"
echo "compare-selftest: toolchain mismatch OK (baseline commit measured again, gate passed)"
echo "compare-selftest: all OK in $(( $(date +%s) - start )) s"
