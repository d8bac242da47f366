#!/usr/bin/env bash
# The file and stream cases of book/src/validation.md, run on the built binary in a scratch
# directory: a FIFO, a symbolic link, a read-only file and the keys file as --out; /dev/full and a
# closed pipe as standard output; endless inputs under a memory cap. Never a real device node as
# --out (the /dev/null case is in tests/validation.rs, where it cannot write even if the check
# regressed). Usage: .ci/validation-files.sh [path/to/bloomlab] [--rss]
#   --rss  also measure the peak RSS of `query` on a 200 MB filter (/usr/bin/time -v).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-target/debug/bloomlab}
[[ -x "$bin" ]] || cargo build -q
bin=$(realpath "$bin")
rss=""; [[ "${2:-}" == "--rss" || "${1:-}" == "--rss" ]] && rss=1
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cd "$scratch"
fails=0
expect() { # expect STATUS FRAGMENT -- COMMAND...
    local want=$1 frag=$2; shift 3
    local got=0 err
    err=$("$@" 2>&1 >/dev/null) || got=$?
    if [[ $got -ne $want || "$err" != *"$frag"* || "$err" == *panicked* ]]; then
        echo "FAIL: $* -> status $got (want $want): $err" >&2; fails=$((fails + 1))
    else
        echo "ok   $want  $*"
    fi
}
seq 1 1000 > keys.txt
mkfifo fifo
ln -s target.bloom link.bloom
echo old > readonly.bloom; chmod 444 readonly.bloom
expect 2 "is a FIFO" -- "$bin" build --keys keys.txt --p 0.01 --out fifo
expect 2 "is a symbolic link" -- "$bin" build --keys keys.txt --p 0.01 --out link.bloom
expect 2 "is read-only" -- "$bin" build --keys keys.txt --p 0.01 --out readonly.bloom
expect 2 "a file other than the input --keys" -- "$bin" build --keys keys.txt --p 0.01 --out keys.txt
[[ -p fifo && -L link.bloom && ! -e target.bloom && "$(cat readonly.bloom)" == old && "$(head -1 keys.txt)" == 1 ]] ||
    { echo "FAIL: a refused output was changed" >&2; fails=$((fails + 1)); }
expect 0 "" -- "$bin" build --keys keys.txt --p 0.01 --out link.bloom --follow-symlinks
[[ -L link.bloom && -f target.bloom ]] || { echo "FAIL: --follow-symlinks" >&2; fails=$((fails + 1)); }
for cmd in "calc --n 5 --p 0.1" "walkthrough" "measure --n 1000 --p 0.01 --queries 1000" "query target.bloom 7"; do
    # shellcheck disable=SC2086
    got=0; err=$("$bin" $cmd 2>&1 >/dev/full) || got=$?
    # A full disk is a runtime failure (exit 3), not bad input (2).
    if [[ $got -ne 3 || "$err" != *"No space left on device"* ]]; then
        echo "FAIL: $cmd > /dev/full -> $got: $err" >&2; fails=$((fails + 1))
    else echo "ok   3  $cmd > /dev/full"; fi
    # shellcheck disable=SC2086
    set +o pipefail; err=$( { "$bin" $cmd | true; } 2>&1 ); set -o pipefail
    if [[ -n "$err" ]]; then echo "FAIL: $cmd | true: $err" >&2; fails=$((fails + 1));
    else echo "ok      $cmd | (closed pipe): nothing on stderr"; fi
done
# Endless inputs, under a 1 GiB address-space cap: refused at once (they grew to 23 GB before).
for keys in "--keys /dev/zero" "--keys keys.txt --hash sip24 --key-file /dev/zero"; do
    # shellcheck disable=SC2086
    expect 2 "invalid key" -- prlimit --as=$((1 << 30)) /usr/bin/time -f "peak RSS %M KiB" "$bin" build $keys --p 0.01 --out z.bloom
done
/usr/bin/time -f "build --keys /dev/zero: peak RSS %M KiB" "$bin" build --keys /dev/zero --p 0.01 --out z.bloom 2>&1 | grep peak || true
if [[ -n "$rss" ]]; then
    "$bin" build --keys keys.txt --m 1600Mbit --out big.bloom | tail -1
    size=$(stat -c %s big.bloom)
    peak=$(/usr/bin/time -v "$bin" query big.bloom 7 2>&1 >/dev/null | awk -F': ' '/Maximum resident/ {print $2}')
    echo "query on a $size-byte filter: peak RSS $peak KiB ($(awk "BEGIN {printf \"%.3f\", $peak * 1024 / $size}")x the file)"
    awk "BEGIN {exit !($peak * 1024 <= 1.1 * $size)}" || { echo "FAIL: query peak above 1.1x the file" >&2; fails=$((fails + 1)); }
fi
[[ $fails -eq 0 ]] || { echo "$fails case(s) failed" >&2; exit 1; }
echo "all file and stream cases passed"
