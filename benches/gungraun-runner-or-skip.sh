#!/usr/bin/env bash
# The gate's runner as `cargo bench` calls it (.cargo/config.toml sets GUNGRAUN_RUNNER to this
# file): gungraun-runner 0.20.0 with all arguments when it and valgrind are installed; otherwise
# one line saying what to install, and exit 0 so that plain `cargo bench` goes on with the other
# benches. The version must equal the gungraun dev-dependency's (the first argument).
set -u
want="${1:-}"
have="$(gungraun-runner --version 2>/dev/null | awk '{print $2}')"
if ! command -v valgrind >/dev/null || [ "$have" != "$want" ]; then
    echo "gate: skipped (needs valgrind and gungraun-runner $want:" \
         "apt-get install valgrind; cargo install --locked gungraun-runner@$want;" \
         ".ci/bench-gate.sh installs the runner itself)" >&2
    exit 0
fi
exec gungraun-runner "$@"
