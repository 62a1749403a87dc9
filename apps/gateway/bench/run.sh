#!/usr/bin/env bash
# npm run bench:gateway — our gateway + one agent over a TLS 1.3 tunnel, pinned to PROXY_CPUS
# (default CPU 0), measured side by side with the reference peers by the SOCKS5 load generator,
# which is not in this repository: SOCKS_BENCH names its folder (socks-bench.sh says how to get it).
#   env: REPS (default 1), PEERS (default: direct, both OpenSSH ciphers, Dante, microsocks, and our
#        pair on its password port (gateway-tls) and on the bench lease's no-auth port
#        (gateway-tls-noauth: the SOCKS exchange without a password that the ssh -R peers offer);
#        gateway-plain and gateway-plain-noauth are a pair without TLS on loopback, to see what TLS
#        costs; each pair is started only when listed),
#        SOCKS_BENCH (path of the load generator), BENCH_ARGS, OUTDIR (passed to run-matrix.sh)
#        HTTP proxy peers (measured by http-proxy.ts, after the SOCKS ones, REPS times interleaved,
#        into the same OUTDIR and table): gateway-tls-http (our pair's lease HTTP port: CONNECT;
#        plus a gateway-tls-http-get row, the rate test with absolute-form GETs), gateway-plain-http,
#        tinyproxy (Debian's, `apt-get install -y tinyproxy`; also a tinyproxy-get row)
#   e.g. PEERS="ssh-r ssh-r-aesgcm gateway-tls" BENCH_ARGS="--tests bulk,rate" npm run bench:gateway
#        PEERS="gateway-tls-http tinyproxy" npm run bench:gateway
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
# shellcheck source=socks-bench.sh
. "$HERE/socks-bench.sh"
require_socks_bench
export PEERS_RUN_DIR=${PEERS_RUN_DIR:-${TMPDIR:-/tmp}/socks-peers-run}
# run-matrix.sh and bench.mjs call `node`: use the project's Node 24 like npm scripts do.
export PATH="$ROOT/node_modules/.bin:$PATH"

GW_PIDS=()
cleanup() { for p in "${GW_PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT INT TERM

WANTED=${PEERS:-"direct ssh-r ssh-r-aesgcm dante microsocks gateway-tls gateway-tls-noauth gateway-tls-http tinyproxy"}
LIST=()
HTTP=()
for peer in $WANTED; do
  case "$peer" in
    tinyproxy | gateway-tls-http | gateway-plain-http) HTTP+=("$peer") ;;
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

if [[ " ${HTTP[*]} " == *" tinyproxy "* ]] && ! command -v tinyproxy >/dev/null; then
  echo "tinyproxy is not installed: apt-get install -y tinyproxy (Debian; the benchmark's reference HTTP proxy), or leave it out of PEERS" >&2
  exit 1
fi

export REPS=${REPS:-1}
export OUTDIR=${OUTDIR:-$SOCKS_BENCH/results/$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$OUTDIR" 2>/dev/null && [ -w "$OUTDIR" ] || OUTDIR=${TMPDIR:-/tmp}/socks-bench-$(date -u +%Y%m%dT%H%M%SZ)
if [ ${#LIST[@]} -gt 0 ]; then PEERS="${LIST[*]}" "$SOCKS_BENCH/run-matrix.sh"; fi
[ ${#HTTP[@]} -eq 0 ] && exit 0

# The HTTP proxy peers: each started once (our pair warmed up on its HTTP port too), then REPS
# rounds over them; each peer gives a CONNECT row (every test) and a -get row (absolute-form rate).
LG=(taskset -c "${LOADGEN_CPUS:-1}")
[ "${LOADGEN_CPUS:-1}" = none ] && LG=()
declare -A HURL HPIDS
for peer in "${HTTP[@]}"; do
  if [ "$peer" = tinyproxy ]; then
    eval "$("$HERE/start-tinyproxy.sh")"
  else
    mode=${peer#gateway-}
    eval "$("$HERE/start-gateway.sh" "${mode%-http}")"
    [ -n "$PROXY_HTTP" ] || { echo "$peer: the gateway has no HTTP proxy port" >&2; exit 1; }
    "${LG[@]}" node "$HERE/http-proxy.ts" --proxy "$PROXY_HTTP" --label warm-up --tests rate --rate-conc 1,64 \
      --rate-seconds "${WARMUP_S:-3}" --rate-warmup 0 --quiet-wait 0 --out "$(mktemp)" >/dev/null 2>&1 ||
      echo "$peer: HTTP warm-up failed (the measurement will show why)" >&2
  fi
  GW_PIDS+=(${PIDS//,/ })
  HURL[$peer]=$PROXY_HTTP
  HPIDS[$peer]=$PIDS
done
# The absolute-form row only when the rate test is run.
GET=1
[[ " ${BENCH_ARGS:-} " == *" --tests "* && " ${BENCH_ARGS:-} " != *" --tests "*rate* ]] && GET=
for rep in $(seq "$REPS"); do
  for peer in "${HTTP[@]}"; do
    echo "== rep $rep: $peer (HTTP proxy)"
    # shellcheck disable=SC2086 # BENCH_ARGS is a list of options
    "${LG[@]}" node "$HERE/http-proxy.ts" --proxy "${HURL[$peer]}" --pid "${HPIDS[$peer]}" --label "$peer" \
      --out "$OUTDIR/$peer-rep$rep.json" ${BENCH_ARGS:-}
    sleep 2
    [ -n "$GET" ] || continue
    echo "== rep $rep: $peer-get (HTTP proxy, absolute-form)"
    # shellcheck disable=SC2086
    "${LG[@]}" node "$HERE/http-proxy.ts" --proxy "${HURL[$peer]}" --pid "${HPIDS[$peer]}" --label "$peer-get" \
      --out "$OUTDIR/$peer-get-rep$rep.json" ${BENCH_ARGS:-} --tests rate --rate-mode forward
    sleep 2
  done
done
# The table's order: the SOCKS peers (env.txt's peers line, as run-matrix.sh wrote it), then these.
ORDER=$(for p in "${HTTP[@]}"; do printf '%s ' "$p"; if [ -n "$GET" ]; then printf '%s ' "$p-get"; fi; done)
if grep -q '^peers: ' "$OUTDIR/env.txt" 2>/dev/null; then sed -i "s|^peers: .*|& $ORDER|" "$OUTDIR/env.txt"
else echo "peers: $ORDER" >>"$OUTDIR/env.txt"; fi
node "$SOCKS_BENCH/summarize.mjs" "$OUTDIR" | tee "$OUTDIR/summary.md"
