#!/usr/bin/env bash
# npm run bench:gateway — our gateway + one agent over a TLS 1.3 tunnel, pinned to PROXY_CPUS
# (default CPU 0), measured side by side with the reference peers by the shared SOCKS5 load
# generator (../shared/bench/socks beside the repository).
#   env: REPS (default 1), PEERS (default: direct, both OpenSSH ciphers, Dante, microsocks, and our
#        pair on its password port (gateway-tls) and on the bench lease's no-auth port
#        (gateway-tls-noauth: the SOCKS exchange without a password that the ssh -R peers offer);
#        gateway-plain and gateway-plain-noauth are a pair without TLS on loopback, to see what TLS
#        costs; each pair is started only when listed),
#        SOCKS_BENCH (path of the load generator), BENCH_ARGS, OUTDIR (passed to run-matrix.sh)
#   e.g. PEERS="ssh-r ssh-r-aesgcm gateway-tls" BENCH_ARGS="--tests bulk,rate" npm run bench:gateway
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
SOCKS_BENCH=${SOCKS_BENCH:-$ROOT/../shared/bench/socks}
[ -x "$SOCKS_BENCH/run-matrix.sh" ] || { echo "load generator not found at $SOCKS_BENCH (set SOCKS_BENCH)" >&2; exit 1; }
export PEERS_RUN_DIR=${PEERS_RUN_DIR:-${TMPDIR:-/tmp}/socks-peers-run}
# run-matrix.sh and bench.mjs call `node`: use the project's Node 24 like npm scripts do.
export PATH="$ROOT/node_modules/.bin:$PATH"

GW_PIDS=()
cleanup() { for p in "${GW_PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT INT TERM

WANTED=${PEERS:-"direct ssh-r ssh-r-aesgcm dante microsocks gateway-tls gateway-tls-noauth"}
LIST=()
for peer in $WANTED; do
  case "$peer" in
    gateway-tls | gateway-plain | gateway-tls-noauth | gateway-plain-noauth)
      mode=${peer#gateway-}
      mode=${mode%-noauth}
      eval "$("$HERE/start-gateway.sh" "$mode")"
      GW_PIDS+=(${PIDS//,/ })
      [[ $peer == *-noauth ]] && PROXY=$NOAUTH_PROXY
      LIST+=("ext:$peer:$PROXY:$PIDS") ;;
    *) LIST+=("$peer") ;;
  esac
done

export REPS=${REPS:-1}
export PEERS="${LIST[*]}"
"$SOCKS_BENCH/run-matrix.sh"
