# Sourced by the gateway benchmark scripts: checks SOCKS_BENCH, the folder of the SOCKS5 load
# generator, and explains how to get it when it is missing (exit 3) instead of failing later.
# The generator is not part of this repository (docs/benchmarks.md, "The SOCKS5 load generator").
SOCKS_BENCH_HELP="The gateway benchmark needs the SOCKS5 load generator, which is not part of this repository.
It is the project's loopback SOCKS5 benchmark: a dependency-free Node tool (bench.mjs, lib/socks5.mjs,
lib/targets.mjs, lib/procstat.mjs, lib/proto.mjs, run-matrix.sh, summarize.mjs, and peers/ with the
start and stop scripts of the reference proxies microsocks, Dante and OpenSSH). It is handed out with the
project's shared material as the folder bench/socks, not published in a package registry.
Get that folder and point SOCKS_BENCH at it, for example:
  SOCKS_BENCH=/path/to/shared/bench/socks npm run bench:gateway
See docs/benchmarks.md, \"The SOCKS5 load generator\"."

# require_socks_bench: returns when SOCKS_BENCH names the generator's folder, else explains and exits 3.
require_socks_bench() {
  if [ -z "${SOCKS_BENCH:-}" ]; then
    echo "SOCKS_BENCH is not set." >&2
  elif [ ! -f "$SOCKS_BENCH/bench.mjs" ] || [ ! -x "$SOCKS_BENCH/run-matrix.sh" ]; then
    echo "SOCKS_BENCH=$SOCKS_BENCH has no bench.mjs and run-matrix.sh." >&2
  else
    export SOCKS_BENCH
    return 0
  fi
  echo "$SOCKS_BENCH_HELP" >&2
  exit 3
}
