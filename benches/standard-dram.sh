#!/bin/sh
# Issue 44 in one command: the standard filter (foldhash, enhanced-double-64) against fastbloom 0.17
# (foldhash) at n = 10^6, 10^7, 10^8, in both harnesses, for an idle machine.
#
#   benches/standard-dram.sh [OUT_DIR]        (default: target/standard-dram)
#
# Writes OUT_DIR/standard-dram-N.md for each n (the issue's harness,
# experiments/programs/standard_dram.rs: read the rows "ratio bloomlab / fastbloom", "witness",
# "ratio rotate-add-64 (the control) / fastbloom" and "ratio enhanced-double-64 / rotate-add-64")
# and OUT_DIR/paired-standard.md (the paired rows bloomlab-standard-foldhash-ed64 and
# -foldhash-64 over fastbloom-foldhash at the same sizes: read "ratio" and "witness"), and the load
# average before, between and after in OUT_DIR/load.txt. About 8-10 minutes on the idle two-core
# VM; peak memory about 0.6 GB (four 10^8 filters of 120 MB). Run it with nothing else on the
# machine: a 10^8 ratio moves by up to 10% between runs, and its witness (the same code built
# twice) says how far.
#
# STANDARD_DRAM_SIZES="10000 100000" (space-separated) replaces the three sizes, for a quick check
# of the script itself; the round counts stay.
set -eu
cd "$(dirname "$0")/.."
out=${1:-target/standard-dram}
sizes=${STANDARD_DRAM_SIZES:-1000000 10000000 100000000}
mkdir -p "$out"
cargo build --release --example standard_dram
cargo bench --bench paired --no-run
sd=target/release/examples/standard_dram
# A 6 GB address-space cap: the run needs ~0.6 GB; a bug must not take the shared machine down.
cap="prlimit --as=6000000000"
uptime | tee "$out/load.txt"
for n in $sizes; do
    rounds=5
    [ "$n" -le 1000000 ] && rounds=9
    $cap "$sd" "$n" "$rounds" | tee "$out/standard-dram-$n.md"
    uptime | tee -a "$out/load.txt"
done
GLIBC_TUNABLES=glibc.malloc.mmap_threshold=131072 BLOOMLAB_PAIRED_ROUNDS=31 \
    BLOOMLAB_BENCH_SIZES="$(echo "$sizes" | tr ' ' ',')" \
    BLOOMLAB_PAIRED_OUT="$out/paired-standard.md" \
    $cap cargo bench --bench paired -- standard-foldhash
uptime | tee -a "$out/load.txt"
cat "$out/paired-standard.md"
