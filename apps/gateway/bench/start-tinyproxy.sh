#!/usr/bin/env bash
# The reference HTTP proxy of the HTTP-proxy rows: Debian's tinyproxy on 127.0.0.1:18080 (Basic
# auth bench/benchpass, no Via header, every CONNECT port allowed, up to 20,000 clients: one thread
# each), pinned to PROXY_CPUS (default 0), its config in a temp folder while it starts. Prints, usable
# with eval:  PROXY_HTTP=http://bench:benchpass@127.0.0.1:18080  PIDS=pid
# Stop it with `kill PID`. Not a project dependency: the benchmark only (apt-get install -y tinyproxy).
set -euo pipefail
command -v tinyproxy >/dev/null || {
  echo "tinyproxy is not installed: apt-get install -y tinyproxy (Debian; or leave tinyproxy out of PEERS)" >&2
  exit 1
}
PIN=${PROXY_CPUS:-0}
if [ "$PIN" = none ]; then TS=(); else TS=(taskset -c "$PIN"); fi
PORT=${TINYPROXY_PORT:-18080}
DIR=$(mktemp -d "${TMPDIR:-/tmp}/tinyproxy-bench.XXXXXX")
cat >"$DIR/tinyproxy.conf" <<EOF
Port $PORT
Listen 127.0.0.1
Timeout 600
MaxClients 20000
BasicAuth bench benchpass
DisableViaHeader Yes
LogLevel Critical
EOF
"${TS[@]}" tinyproxy -d -c "$DIR/tinyproxy.conf" >"$DIR/tinyproxy.log" 2>&1 &
PID=$!
for _ in $(seq 100); do
  if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then break; fi
  sleep 0.1
done
(exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null || {
  echo "tinyproxy did not open 127.0.0.1:$PORT: $(cat "$DIR/tinyproxy.log")" >&2
  kill "$PID" 2>/dev/null || true
  exit 1
}
rm -rf "$DIR"
echo "PROXY_HTTP=http://bench:benchpass@127.0.0.1:$PORT"
echo "PIDS=$PID"
