#!/usr/bin/env bash
# The extreme-scale rows at one n (default 10^8): one process per design, bloomlab's kinds by
# `bloomlab measure`, the peers by the extreme_scale_peers example
# (experiments/programs/extreme_scale_peers.rs), each capped at CAP bytes of address space
# (default 6 GB) and at nice 10, with its wall time and peak resident memory (GNU time's %e and
# %M: the peak RSS of the row's own process, so construction arrays and key buffers included).
# Writes DIR/LABEL-N.{json,time,err} and prints the Markdown table
# (experiments/programs/extreme_scale_table.py). Keys are generated on the fly. A row whose
# construction cannot fit CAP (the static kinds hold every key and their construction arrays:
# STATIC_BYTES_PER_KEY, measured at 10^8 by this script, see results/extreme-scale/rows.md) is
# not started: DIR/LABEL-N.skip says why, and the table prints it in place of a row.
# After each row a progress line on standard error: rows done, elapsed, and an ETA from the
# mean time per row so far.
#
#   cargo build --release --bin bloomlab --example extreme_scale_peers
#   experiments/programs/extreme_scale_rows.sh target/release/bloomlab 100000000 10000000 DIR [LABEL...]
set -euo pipefail
bin=${1:?bloomlab binary}; n=${2:-100000000}; q=${3:-10000000}; out=${4:-results/extreme-scale/rows}
shift $(( $# < 4 ? $# : 4 ))
peers=${PEERS_BIN:-$(dirname "$bin")/examples/extreme_scale_peers}
cap=${CAP:-6000000000}
mkdir -p "$out"

# label | how: "measure ARGS..." or "peer NAME" | peak bytes per key while building, for the
# static rows (their keys and construction arrays; 0 = the table alone, sized by the plan)
rows=(
  "standard-enhanced-double|measure --filter standard --strategy enhanced-double|0"
  "standard-enhanced-double-64|measure --filter standard --strategy enhanced-double-64|0"
  "standard-rotate-add-64|measure --filter standard --strategy rotate-add-64|0"
  "standard-double|measure --filter standard --strategy double|0"
  "standard-guava64|measure --filter standard --hash murmur3 --strategy guava64|0"
  "standard-guava32|measure --filter standard --hash murmur3 --strategy guava32|0"
  "blocked|measure --filter blocked|0"
  "split-block|measure --filter split-block|0"
  "cuckoo|measure --filter cuckoo|0"
  "quotient|measure --filter quotient|0"
  "xor|measure --filter xor|${XOR_BPK:-0}"
  "binary-fuse|measure --filter binary-fuse|${FUSE_BPK:-0}"
  "ribbon|measure --filter ribbon|${RIBBON_BPK:-0}"
  "fastbloom|peer fastbloom|0"
  "fastbloom09-512|peer fastbloom09-512|0"
  "sbbf-rs-safe|peer sbbf-rs-safe|0"
  "cuckoofilter|peer cuckoofilter|0"
  "qfilter|peer qfilter|0"
  "xorf-xor8|peer xorf-xor8|${XORF_XOR8_BPK:-0}"
  "xorf-fuse8|peer xorf-fuse8|${XORF_FUSE8_BPK:-0}"
)
wanted() { [ "$#" -eq 1 ] && return 0; local l=$1; shift; for w in "$@"; do [ "$w" = "$l" ] && return 0; done; return 1; }
count=0
for r in "${rows[@]}"; do wanted "${r%%|*}" "$@" && count=$((count + 1)); done
start=$(date +%s); done_rows=0
for r in "${rows[@]}"; do
    IFS='|' read -r label how bpk <<<"$r"
    wanted "$label" "$@" || continue
    base="$out/$label-$n"
    rm -f "$base.skip"
    need=$(python3 -c "print(int(float('$bpk') * $n))")
    if [ "$need" -gt "$cap" ]; then
        echo "construction needs about $bpk bytes per key ($(python3 -c "print(f'{$need/1e9:.1f}')") GB at n = $n) > the cap of $(python3 -c "print(f'{$cap/1e9:.1f}')") GB" >"$base.skip"
        echo "$label n=$n skipped: $(cat "$base.skip")" >&2
        rm -f "$base.json" "$base.time" "$base.err"
    else
        rc=0
        case "$how" in
            measure*) cmd=("$bin" measure --n "$n" --p 0.01 --queries "$q" --trials 1 --seed 20261207 --json ${how#measure }) ;;
            peer*) cmd=("$peers" "${how#peer }" "$n" "$q" 20261207) ;;
        esac
        /usr/bin/time -f "%e %M" -o "$base.time" prlimit --as="$cap" nice -n 10 "${cmd[@]}" \
            >"$base.json" 2>"$base.err" || rc=$?
        echo "$label n=$n exit $rc: $(tail -1 "$base.time") (s, KB)" >&2
    fi
    done_rows=$((done_rows + 1))
    el=$(( $(date +%s) - start ))
    echo "progress: $done_rows/$count rows, ${el} s elapsed, eta $(( el * (count - done_rows) / done_rows )) s" >&2
done
python3 "$(dirname "$0")/extreme_scale_table.py" "$out"
