#!/usr/bin/env bash
# The extreme-scale rows at one n (default 10^8), one `bloomlab measure` process per design, each
# capped at 8 GB of address space and at nice 10, with its wall time and peak resident memory
# (GNU time). Writes DIR/LABEL-N.{json,time,err} and prints the Markdown table
# (experiments/programs/extreme_scale_table.py). Keys are generated on the fly; the static kinds
# hold their keys (16 bytes each for u64 keys) and hashes while building.
#
#   experiments/programs/extreme_scale_rows.sh target/release/bloomlab 100000000 1000000 DIR
set -euo pipefail
bin=${1:?bloomlab binary}; n=${2:-100000000}; q=${3:-1000000}; out=${4:-results/extreme-scale/rows}
mkdir -p "$out"
run() { # LABEL ARGS...
    local label=$1; shift
    local rc=0
    /usr/bin/time -f "%e %M" -o "$out/$label-$n.time" prlimit --as=8000000000 nice -n 10 \
        "$bin" measure --n "$n" --p 0.01 --queries "$q" --trials 1 --seed 20261207 --json "$@" \
        >"$out/$label-$n.json" 2>"$out/$label-$n.err" || rc=$?
    echo "$label n=$n exit $rc: $(tail -1 "$out/$label-$n.time") (s, KB)" >&2
}
run standard-enhanced-double --filter standard --strategy enhanced-double
run blocked --filter blocked
run split-block --filter split-block
run cuckoo --filter cuckoo
run quotient --filter quotient
run xor --filter xor
run binary-fuse --filter binary-fuse
run ribbon --filter ribbon
run standard-enhanced-double-64 --filter standard --strategy enhanced-double-64
run standard-rotate-add-64 --filter standard --strategy rotate-add-64
run standard-guava64 --filter standard --hash murmur3 --strategy guava64
run standard-guava32 --filter standard --hash murmur3 --strategy guava32
run standard-double --filter standard --strategy double
python3 "$(dirname "$0")/extreme_scale_table.py" "$out"
