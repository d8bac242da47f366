#!/usr/bin/env bash
# Stop the servers .ci/redis-up.sh started and remove their data (the downloaded module stays).
set -uo pipefail
BASE="${BLOOMLAB_REDIS_DIR:-/tmp/bloomlab-redis}"
for p in 6390 6391 7001 7002 7003; do
    if redis-cli -h 127.0.0.1 -p "$p" ping 2>/dev/null | grep -q PONG; then
        echo "redis-down: stopping 127.0.0.1:$p" >&2
        redis-cli -h 127.0.0.1 -p "$p" shutdown nosave >/dev/null 2>&1 || true
    fi
done
rm -rf "$BASE/6390" "$BASE/6391" "$BASE/cluster" "$BASE/env" "$BASE"/*.log
exit 0
