#!/usr/bin/env bash
# Start the standalone gateway plus one agent (loopback targets allowed), both pinned to
# PROXY_CPUS (default 0), then warm them up. Prints, usable with eval:
#   PROXY=socks5://bench:PASS@127.0.0.1:PORT  NOAUTH_PROXY=socks5://127.0.0.1:APORT  PIDS=gw,agent
#   PROXY_HTTP=http://bench:PASS@127.0.0.1:HPORT (the same lease's HTTP proxy port)
# (NOAUTH_PROXY: the same lease's no-auth port, whitelisted for 127.0.0.1: the SOCKS exchange of
# the ssh -R peer, which asks for no password)
#   usage: start-gateway.sh tls|plain   (plain: the tunnel without TLS, on loopback: what TLS costs)
# Warm-up (WARMUP_S seconds at concurrency 1, then at 64; default 3, 0 = none): V8 compiles the
# per-connection path only after thousands of requests, on the same pinned core, and a production
# gateway runs for days; the C peers have nothing to warm. Only code paths are warmed: no bulk
# transfer runs, so the tunnel's TCP buffers start as cold as OpenSSH's.
# env: GATEWAY_ROOT (the checkout whose gateway and agent run; default this one), NODE_FLAGS
#      (default --no-memory-reducer --max-semi-space-size=4 --no-allocation-site-pretenuring, as docs/gateway.md runs them), SOCKS_BENCH, LOADGEN_CPUS
set -euo pipefail
HERE_ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
ROOT=${GATEWAY_ROOT:-$HERE_ROOT}
NODE=$ROOT/node_modules/.bin/node
MODE=${1:-tls}
PIN=${PROXY_CPUS:-0}
if [ "$PIN" = none ]; then TS=(); else TS=(taskset -c "$PIN"); fi
OUT=$(mktemp)
# The standalone gateway is TLS unless told otherwise; a checkout from before that asks for --tls.
GW_FLAGS=()
AGENT_PLAIN=(--plaintext)
AGENT_TLS=()
if grep -q "plaintext: { type" "$ROOT/apps/gateway/src/main.ts"; then
  [ "$MODE" = tls ] || GW_FLAGS=(--plaintext)
else
  [ "$MODE" = tls ] && GW_FLAGS=(--tls)
  AGENT_PLAIN=()
  AGENT_TLS=(--tls)
fi
read -r -a NODE_FLAGS <<<"${NODE_FLAGS---no-memory-reducer --max-semi-space-size=4 --no-allocation-site-pretenuring}"
"${TS[@]}" "$NODE" "${NODE_FLAGS[@]}" "$ROOT/apps/gateway/src/main.ts" --standalone "${GW_FLAGS[@]}" >"$OUT" 2>/dev/null &
GW=$!
for _ in $(seq 100); do [ -s "$OUT" ] && break; sleep 0.1; done
[ -s "$OUT" ] || { echo "gateway did not start" >&2; kill $GW; exit 1; }
field() { "$NODE" -e 'const j=JSON.parse(require("fs").readFileSync(process.argv[1],"utf8"));const v=j[process.argv[2]];console.log(Array.isArray(v)?v[0]:v??"")' "$OUT" "$1"; }
PORT=$(field socksPorts); HPORT=$(field httpPorts); APORT=$(field authPort); TPORT=$(field tunnelPort); PASS=$(field pwd); KEY=$(field agentKey); CA=$(field caFile)
rm -f "$OUT"
AGENT_ARGS=(--gateway "127.0.0.1:$TPORT" --allow-loopback --max-streams 30000)
if [ "$MODE" = tls ]; then AGENT_ARGS+=("${AGENT_TLS[@]}" --ca "$CA"); else AGENT_ARGS+=("${AGENT_PLAIN[@]}"); fi
AGENT_KEY=$KEY "${TS[@]}" "$NODE" "${NODE_FLAGS[@]}" "$ROOT/apps/agent/src/main.ts" "${AGENT_ARGS[@]}" >/dev/null 2>&1 &
AG=$!
sleep 1
WARMUP_S=${WARMUP_S:-3}
if [ "$WARMUP_S" != 0 ]; then
  # shellcheck source=socks-bench.sh
  . "$HERE_ROOT/apps/gateway/bench/socks-bench.sh"
  require_socks_bench
  LG=${LOADGEN_CPUS:-1}
  if [ "$LG" = none ]; then LGS=(); else LGS=(taskset -c "$LG"); fi
  WARM_OUT=$(mktemp)
  "${LGS[@]}" "$NODE" "$SOCKS_BENCH/bench.mjs" --proxy "socks5://bench:$PASS@127.0.0.1:$PORT" --label warm-up \
    --tests rate --rate-conc 1,64 --rate-seconds "$WARMUP_S" --rate-warmup 0 --quiet-wait 0 --out "$WARM_OUT" >/dev/null 2>&1 ||
    echo "warm-up failed (the measurement will show why)" >&2
  rm -f "$WARM_OUT"
fi
echo "PROXY=socks5://bench:$PASS@127.0.0.1:$PORT"
echo "NOAUTH_PROXY=socks5://127.0.0.1:$APORT"
# The lease's HTTP proxy port (a build from before the HTTP proxy has none: empty).
echo "PROXY_HTTP=${HPORT:+http://bench:$PASS@127.0.0.1:$HPORT}"
echo "PIDS=$GW,$AG"
