#!/usr/bin/env bash
# The book gate: generated files up to date, the book builds, its Rust examples run against the
# crate, and no internal link, anchor or image is broken.
#
#   bash .ci/book.sh            everything (the generated-file check needs about 3-4 minutes of
#                               release-mode measurements)
#   BOOK_SKIP_SYNC=1 bash .ci/book.sh   skip the generated-file check (local iterations)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
export CARGO_TERM_COLOR=never
MDBOOK_VERSION=0.5.4

step() { printf '\n== book: %s\n' "$*"; }

step "mdbook ${MDBOOK_VERSION}"
if ! command -v mdbook > /dev/null || [[ "$(mdbook --version)" != "mdbook v${MDBOOK_VERSION}" ]]; then
    cargo install --locked "mdbook@${MDBOOK_VERSION}"
fi
mdbook --version

if [[ "${BOOK_SKIP_SYNC:-0}" != 1 ]]; then
    step "generated outputs and figures up to date (book/sync-results.sh --check)"
    cargo build --release --bin bloomlab
    # --quick: the slow measurements (strategies at m = 256, 40,000 filters) are not re-run here;
    # tests/statistics.rs checks the same numbers in release.
    BLOOMLAB="${CARGO_TARGET_DIR:-$root/target}/release/bloomlab" book/sync-results.sh --check --quick
fi

step "figures readable in the book's column: SVG at most 1200 px wide, no text under 12 px"
python3 .ci/figure-sizes.py book/src/figures

step "crate for mdbook test (target/book, one copy of every dependency)"
# mdbook test passes `-L target/book/debug/deps` to rustdoc: a stale second libbloomlab there
# would make `extern crate bloomlab` ambiguous, so remove old copies first.
rm -f target/book/debug/deps/libbloomlab-*
CARGO_TARGET_DIR="$root/target/book" cargo build --lib

step "mdbook build"
log=$(mktemp)
mdbook build book 2>&1 | tee "$log"
if grep -E '^\s*(ERROR|WARN)|\[(ERROR|WARN)\]' "$log"; then
    echo "mdbook build reported errors or warnings (above)" >&2
    exit 1
fi
rm -f "$log"

step "mdbook test (Rust examples against the crate)"
mdbook test book -L target/book/debug/deps

step "links, anchors and images"
python3 book/tools/check_links.py book/book

step "book: all checks passed"
