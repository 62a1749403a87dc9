#!/usr/bin/env bash
# A/B of two builds of the gateway + agent that run AT THE SAME TIME, both pairs pinned to the same
# CPU, each driven by its own load generator: the machine's drift (other tenants, clock changes)
# then hits both alike, which sequential runs on a shared VM cannot promise. Compare the proxy CPU
# per request (µs/req) and per GB (s/GB); throughput is split between the pairs and is not the figure.
#   usage: side-by-side.sh BASE_REF [ROUNDS] [bench.mjs args]     (default: --tests rate)
#   e.g.   side-by-side.sh HEAD~1 3 --tests rate --rate-conc 1,64
#          side-by-side.sh peer:ssh-r-aesgcm 3 --tests bulk,rate     (a reference peer as the base)
#   env:   MODE=tls|plain (tls), BASE_MODE (the base pair's mode when it differs, e.g. BASE_MODE=plain
#          with BASE_REF HEAD: what TLS costs), BASE_FLAGS / NEW_FLAGS (node flags for the base / working-tree pair;
#          default --no-memory-reducer --max-semi-space-size=4 --no-allocation-site-pretenuring, as docs/gateway.md runs them),
#          WARMUP_S (3): seconds of c1 and of c64 load through each of our pairs before it is measured,
#          NOAUTH=1: our pairs are measured on the lease's no-auth port (the ssh -R peers' exchange)
# The base build is a git worktree of BASE_REF in a temp folder, sharing this checkout's node_modules;
# with peer:NAME it is that reference peer, started by the load generator's peers/start.sh on the
# same CPU. SOCKS_BENCH names the load generator's folder (socks-bench.sh says how to get it).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
BASE_REF=${1:?usage: side-by-side.sh BASE_REF [ROUNDS] [bench.mjs args]}
ROUNDS=${2:-3}
shift $(($# >= 2 ? 2 : 1))
ARGS=("$@")
[ ${#ARGS[@]} -eq 0 ] && ARGS=(--tests rate)
# shellcheck source=socks-bench.sh
. "$HERE/socks-bench.sh"
require_socks_bench
NODE=$ROOT/node_modules/.bin/node
# The node options docs/gateway.md runs both processes with.
DEFAULT_FLAGS="--no-memory-reducer --max-semi-space-size=4 --no-allocation-site-pretenuring"
PIN=${PROXY_CPUS:-0}
LOADGEN=${LOADGEN_CPUS:-1}
WORK=$(mktemp -d)
PIDS=()
PEER=
[[ $BASE_REF == peer:* ]] && PEER=${BASE_REF#peer:}
export PEERS_RUN_DIR=${PEERS_RUN_DIR:-${TMPDIR:-/tmp}/socks-peers-run}
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  if [ -n "$PEER" ]; then
    "$SOCKS_BENCH/peers/stop.sh" "$PEER" >/dev/null 2>&1 || true
  else
    git -C "$ROOT" worktree remove --force "$WORK/base" 2>/dev/null || true
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT INT TERM

if [ -z "$PEER" ]; then
  # The base tree: its own sources, this checkout's packages, its own workspace links.
  git -C "$ROOT" worktree add --detach "$WORK/base" "$BASE_REF" >/dev/null 2>&1
  mkdir -p "$WORK/base/node_modules/@pm"
  for e in "$ROOT"/node_modules/* "$ROOT"/node_modules/.bin; do
    [ "$(basename "$e")" = @pm ] || ln -s "$e" "$WORK/base/node_modules/$(basename "$e")"
  done
  cp -P "$ROOT"/node_modules/@pm/* "$WORK/base/node_modules/@pm/"
fi

# start TREE FLAGS [MODE] -> "PROXY PIDLIST": that checkout's gateway and agent, started and warmed
# up by this checkout's start-gateway.sh.
start() {
  local PROXY NOAUTH_PROXY PIDS
  eval "$(GATEWAY_ROOT=$1 NODE_FLAGS=$2 PROXY_CPUS=$PIN LOADGEN_CPUS=$LOADGEN SOCKS_BENCH=$SOCKS_BENCH \
    "$HERE/start-gateway.sh" "${3:-${MODE:-tls}}")"
  [ -n "${NOAUTH:-}" ] && PROXY=$NOAUTH_PROXY
  echo "$PROXY $PIDS"
}

# start_base -> "PROXY PIDLIST" of the base: the worktree's pair, or the reference peer.
start_base() {
  if [ -z "$PEER" ]; then
    start "$WORK/base" "${BASE_FLAGS-$DEFAULT_FLAGS}" "${BASE_MODE:-}"
  else
    local PROXY PIDS
    eval "$(PROXY_CPUS=$PIN "$SOCKS_BENCH/peers/start.sh" "$PEER")"
    echo "$PROXY $PIDS"
  fi
}

show() {
  "$NODE" -e '
    const j = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    const out = [process.argv[2].padEnd(12)];
    for (const k of ["bulk1", "bulkN"]) {
      const b = j.tests[k];
      if (b) out.push(`${k} ${(b.cpu.proxyCpuS / b.bytes * 1e9).toFixed(2)} s/GB`);
    }
    for (const [c, r] of Object.entries(j.tests.rate ?? {}))
      out.push(`c${c} ${Math.round(r.cpu.proxyCpuS / r.okTotal * 1e6)} µs/req (p99 ${r.latencyMs.p99.toFixed(1)} ms)`);
    console.log(out.join(" | "));' "$1" "$2"
}

if [ -n "$PEER" ]; then BASE_NAME=$PEER; else BASE_NAME="$BASE_REF ($(git -C "$ROOT" rev-parse --short "$BASE_REF"))"; fi
echo "base: $BASE_NAME, new: working tree; ${MODE:-tls}; ${ARGS[*]}"
for round in $(seq "$ROUNDS"); do
  read -r PB IB <<<"$(start_base)"
  read -r PN IN <<<"$(start "$ROOT" "${NEW_FLAGS-$DEFAULT_FLAGS}")"
  PIDS=(${IN//,/ })
  [ -z "$PEER" ] && PIDS+=(${IB//,/ })
  sleep 1
  taskset -c "$LOADGEN" "$NODE" "$SOCKS_BENCH/bench.mjs" --proxy "$PB" --pid "$IB" --label base \
    --quiet-wait 0 --out "$WORK/base-$round.json" "${ARGS[@]}" >/dev/null 2>&1 &
  B=$!
  taskset -c "$LOADGEN" "$NODE" "$SOCKS_BENCH/bench.mjs" --proxy "$PN" --pid "$IN" --label new \
    --target-ports 19201,19202,19203 --quiet-wait 0 --out "$WORK/new-$round.json" "${ARGS[@]}" >/dev/null 2>&1 &
  N=$!
  wait "$B" "$N" || true
  kill "${PIDS[@]}" 2>/dev/null || true
  PIDS=()
  [ -n "$PEER" ] && "$SOCKS_BENCH/peers/stop.sh" "$PEER" >/dev/null 2>&1
  sleep 0.5
  show "$WORK/base-$round.json" "${PEER:-base}"
  show "$WORK/new-$round.json" new
done
