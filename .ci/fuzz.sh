#!/usr/bin/env bash
# Time-boxed fuzzing of both decoders (bloomlab's own format and Guava's), on stable Rust
# without a sanitizer (-s none). Any crash or failed assertion fails the step; libFuzzer's
# crash input is left in tests/fuzz/artifacts/.
#
#   .ci/fuzz.sh [SECONDS]     each target runs SECONDS (default 45)
set -euo pipefail
cd "$(dirname "$0")/.."
secs="${1:-45}"
if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "fuzz: installing cargo-fuzz"
    cargo install --locked cargo-fuzz
fi
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$(pwd)/target}/fuzz"
for target in load_filter load_guava; do
    corpus="$(mktemp -d)"
    echo "fuzz: $target for ${secs}s (seeds: tests/fuzz/seeds/$target)"
    cargo fuzz run --fuzz-dir tests/fuzz -s none "$target" "$corpus" "tests/fuzz/seeds/$target" \
        -- -max_total_time="$secs" -rss_limit_mb=2048 2>&1 | tail -n 3
    rm -rf "$corpus"
done
echo "fuzz: both decoders ran without a crash"
