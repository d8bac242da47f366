#!/usr/bin/env bash
# Run every experiment spec in quick mode (release build) into a temporary directory, then check
# that each produced a CSV with a header and at least one row, an SVG that parses as XML and a
# PNG, unless its [quick] section says `skip = "..."`. Fails when the run takes over 5 minutes, or
# exits non-zero: 2 when an experiment could not run, 4 when one ran and a check failed (the
# literature experiment: a published number bloomlab no longer reproduces).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never
cargo build --release --quiet
bin="${CARGO_TARGET_DIR:-target}/release/bloomlab"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

start=$(date +%s)
status=0
timeout 300 "$bin" run --all --quick --out "$out" || status=$?
if [ "$status" -ne 0 ]; then
    case "$status" in
        4) echo "FAIL: 'bloomlab run --all --quick' found a failed check (status 4: see 'check failed' above; e.g. a published number experiments/literature.toml no longer reproduces)" >&2 ;;
        124) echo "FAIL: 'bloomlab run --all --quick' took more than 300 s" >&2 ;;
        *) echo "FAIL: 'bloomlab run --all --quick' failed (status $status)" >&2 ;;
    esac
    exit 1
fi
echo "quick run: $(( $(date +%s) - start ))s"

fail=0
for spec in experiments/*.toml; do
    name=$(sed -n 's/^name *= *"\(.*\)".*/\1/p' "$spec" | head -1)
    # `skip = "..."` inside the [quick] table
    if awk '/^\[/{q=($0=="[quick]")} q && /^skip *=/{found=1} END{exit !found}' "$spec"; then
        if [ -e "$out/$name.csv" ]; then
            echo "FAIL: $name is marked skip-in-quick but produced output" >&2; fail=1
        else
            echo "ok   $name (skipped in --quick, as its spec says)"
        fi
        continue
    fi
    for ext in csv svg png; do
        if [ ! -s "$out/$name.$ext" ]; then
            echo "FAIL: $out/$name.$ext missing or empty" >&2; fail=1
        fi
    done
    [ -s "$out/$name.csv" ] && [ -s "$out/$name.svg" ] && [ -s "$out/$name.png" ] || continue
    if command -v python3 >/dev/null; then
        python3 - "$out/$name" <<'PY' || fail=1
import csv, sys, xml.etree.ElementTree as ET
base = sys.argv[1]
with open(base + ".csv", newline="") as f:
    rows = list(csv.reader(f))
assert len(rows) >= 2, f"{base}.csv: header and at least one row expected, got {len(rows)} lines"
header = rows[0]
# every experiment writes the common leading columns; an x column only where the sweep is numeric
# (hash-strategies and guava32-large are categorical)
assert header[:2] == ["series", "row_type"], f"{base}.csv: header starts {header[:2]}"
assert all(len(r) == len(header) for r in rows), f"{base}.csv: ragged rows"
root = ET.parse(base + ".svg").getroot()
assert root.tag.endswith("svg"), f"{base}.svg: root is {root.tag}"
with open(base + ".png", "rb") as f:
    assert f.read(8) == b"\x89PNG\r\n\x1a\n", f"{base}.png: not a PNG"
PY
    else
        [ "$(wc -l < "$out/$name.csv")" -ge 2 ] || { echo "FAIL: $name.csv has no rows" >&2; fail=1; }
        grep -q '</svg>' "$out/$name.svg" || { echo "FAIL: $name.svg incomplete" >&2; fail=1; }
        [ "$(head -c 4 "$out/$name.png" | tail -c 3)" = "PNG" ] || { echo "FAIL: $name.png" >&2; fail=1; }
    fi
    echo "ok   $name ($(($(wc -l < "$out/$name.csv") - 1)) rows)"
done
exit $fail
