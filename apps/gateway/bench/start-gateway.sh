#!/usr/bin/env bash
# Start the standalone gateway plus one agent (loopback targets allowed), both pinned to
# PROXY_CPUS (default 0). Prints, usable with eval:  PROXY=socks5://bench:PASS@127.0.0.1:PORT  PIDS=gw,agent
#   usage: start-gateway.sh tls|plain
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
NODE=$ROOT/node_modules/.bin/node
MODE=${1:-tls}
PIN=${PROXY_CPUS:-0}
if [ "$PIN" = none ]; then TS=(); else TS=(taskset -c "$PIN"); fi
OUT=$(mktemp)
TLSFLAG=()
[ "$MODE" = tls ] && TLSFLAG=(--tls)
"${TS[@]}" "$NODE" "$ROOT/apps/gateway/src/main.ts" --standalone "${TLSFLAG[@]}" >"$OUT" 2>/dev/null &
GW=$!
for _ in $(seq 100); do [ -s "$OUT" ] && break; sleep 0.1; done
[ -s "$OUT" ] || { echo "gateway did not start" >&2; kill $GW; exit 1; }
field() { "$NODE" -e 'const j=JSON.parse(require("fs").readFileSync(process.argv[1],"utf8"));const v=j[process.argv[2]];console.log(Array.isArray(v)?v[0]:v??"")' "$OUT" "$1"; }
PORT=$(field socksPorts); TPORT=$(field tunnelPort); PASS=$(field pwd); KEY=$(field agentKey); CA=$(field caFile)
rm -f "$OUT"
AGENT_ARGS=(--gateway "127.0.0.1:$TPORT" --allow-loopback --max-streams 30000)
[ "$MODE" = tls ] && AGENT_ARGS+=(--tls --ca "$CA")
AGENT_KEY=$KEY "${TS[@]}" "$NODE" "$ROOT/apps/agent/src/main.ts" "${AGENT_ARGS[@]}" >/dev/null 2>&1 &
AG=$!
# The agent is up once a SOCKS request to a closed port gets a SOCKS reply instead of "agent offline".
sleep 1
echo "PROXY=socks5://bench:$PASS@127.0.0.1:$PORT"
echo "PIDS=$GW,$AG"
