// HTTP proxy benchmark: the SOCKS5 load generator's tests (bench.mjs in SOCKS_BENCH:
// bulk, parallel, rate, idle; the same target servers, loops, bounds, CPU and memory accounting and
// JSON, so that its summarize.mjs tables both) through an HTTP proxy: `CONNECT` tunnels, Basic
// `Proxy-Authorization` when the URL carries a user. `--rate-mode forward` runs the rate test with
// absolute-form requests instead (`GET http://127.0.0.1:PORT/bench`, one per connection).
//   node apps/gateway/bench/http-proxy.ts --proxy http://bench:PASS@127.0.0.1:PORT --pid GW,AGENT --label gw-http
//   options as bench.mjs's (README.md there), with --proxy http://..., plus --rate-mode connect|forward
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { authLine, isLoopbackHost, parseHttpProxy } from './http-proxy/dial.ts';
import { loadShared, socksBenchDir, startTargets } from './http-proxy/shared.ts';
import { bulkDownload, idleLevel, r2, r3, rateTest, type TestContext } from './http-proxy/tests.ts';

const { values: a } = parseArgs({
  options: {
    proxy: { type: 'string' },
    label: { type: 'string' },
    pid: { type: 'string', multiple: true, default: [] },
    tests: { type: 'string', default: 'bulk,parallel,rate,idle' },
    'rate-mode': { type: 'string', default: 'connect' },
    'bulk-bytes': { type: 'string', default: String(1024 ** 3) },
    parallel: { type: 'string', default: '16' },
    'parallel-bytes': { type: 'string', default: String(1024 ** 3) },
    'bulk-timeout': { type: 'string', default: '60' },
    'rate-conc': { type: 'string', default: '1,64' },
    'rate-seconds': { type: 'string', default: '6' },
    'rate-warmup': { type: 'string', default: '1' },
    'rate-max': { type: 'string', default: '300000' },
    'idle-levels': { type: 'string', default: '2000,10000' },
    'idle-ramp': { type: 'string', default: '100' },
    'idle-seconds': { type: 'string', default: '60' },
    'idle-hold': { type: 'string', default: '3' },
    'target-host': { type: 'string', default: '127.0.0.1' },
    'target-ports': { type: 'string' },
    'quiet-wait': { type: 'string', default: '10' },
    'quiet-pct': { type: 'string', default: '15' },
    out: { type: 'string' },
  },
});

const num = (k: keyof typeof a) => Number(a[k]);
const list = (k: keyof typeof a) => String(a[k]).split(',').filter(Boolean).map(Number);
const now = () => performance.now();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

if (!a.proxy) throw new Error('--proxy http://[user:pass@]127.0.0.1:PORT is required');
const rateMode = a['rate-mode'];
if (rateMode !== 'connect' && rateMode !== 'forward') throw new Error('--rate-mode is connect or forward');
const proxy = parseHttpProxy(a.proxy);
const label = a.label ?? `${proxy.host}:${proxy.port}${proxy.auth ? '+auth' : ''}-http`;
const pids = a.pid
  .flatMap((s) => s.split(','))
  .filter(Boolean)
  .map(Number);
const tests = new Set(a.tests.split(',').map((s) => s.trim()));
const targetHost = a['target-host'];
if (!isLoopbackHost(targetHost)) throw new Error(`refusing non-loopback target host ${targetHost}`);
const log = (...x: unknown[]) => process.stderr.write(`[${label}] ${x.join(' ')}\n`);

const dir = socksBenchDir();
const { procstat: ps, proto } = await loadShared(dir);
const [pb, ph, pe] = (a['target-ports'] ?? Object.values(proto.DEFAULT_TARGET_PORTS).join(','))
  .split(',')
  .map(Number);
const targets = await startTargets(dir, targetHost, { bulk: pb ?? 0, http: ph ?? 0, echo: pe ?? 0 });

// The rate test's request: origin-form inside a CONNECT tunnel (as bench.mjs sends it through
// SOCKS), or absolute-form with the proxy's credentials. The gateway passes the answer on
// unchanged; a proxy that rewrites answer heads (tinyproxy) is held to the status and the body.
const authority = `${targetHost}:${targets.ports.http}`;
const request =
  rateMode === 'connect'
    ? proto.httpRequest(targetHost)
    : Buffer.from(
        `GET http://${authority}/bench HTTP/1.1\r\nHost: ${authority}\r\nUser-Agent: socks-bench\r\n${authLine(proxy)}Connection: close\r\n\r\n`,
        'latin1',
      );
const exact = proto.HTTP_RESPONSE.length;
const body = proto.HTTP_RESPONSE.length - proto.HTTP_RESPONSE.indexOf('\r\n\r\n') - 4;
const ctx: TestContext = {
  proxy,
  targetHost,
  ports: targets.ports,
  rateMode,
  request,
  answerOk: (head, bytes) =>
    /^HTTP\/1\.[01] 200/.test(head) && (rateMode === 'connect' ? bytes === exact : bytes > body),
  memory: () => (pids.length ? ps.treeMemory(pids) : null),
  echoOpen: targets.echoOpen,
};

const ours = () => new Set([...ps.treePids([process.pid]), ...(pids.length ? ps.treePids(pids) : [])]);

/** Before each test: wait (bounded) until other processes use less than --quiet-pct % CPU. */
async function waitQuiet() {
  const t0 = now();
  let last: { pct: number; top: string[] };
  do {
    const x = ps.allProcTicks();
    await sleep(1000);
    last = ps.foreignCpu(x, ps.allProcTicks(), ours(), 1);
    if (last.pct < num('quiet-pct')) break;
  } while ((now() - t0) / 1000 < num('quiet-wait'));
  if (last.pct >= num('quiet-pct'))
    log(`  machine not quiet: foreign CPU ${last.pct}% ${last.top.join(' ')}`);
  return { waitedS: r2((now() - t0) / 1000), foreignPct: last.pct, top: last.top };
}

/** A test with the CPU of the proxy tree, of the load generator, per CPU and of everything else. */
async function measured<T extends object>(fn: () => Promise<T>): Promise<T & { cpu: unknown }> {
  const quiet = num('quiet-wait') > 0 ? await waitQuiet() : null;
  const f0 = ps.allProcTicks();
  const c0 = ps.cpuSnapshot();
  const p0 = pids.length ? ps.treeCpuSeconds(pids) : null;
  const l0 = ps.treeCpuSeconds([process.pid]);
  const t0 = now();
  const r = await fn();
  const wall = (now() - t0) / 1000;
  const p1 = pids.length ? ps.treeCpuSeconds(pids) : null;
  const l1 = ps.treeCpuSeconds([process.pid]);
  const foreign = ps.foreignCpu(f0, ps.allProcTicks(), ours(), wall);
  const cpu = {
    wallS: r3(wall),
    proxyCpuS: p0 == null || p1 == null ? null : r2(p1 - p0),
    proxyCpuPct: p0 == null || p1 == null ? null : Math.round(((p1 - p0) / wall) * 100),
    loadgenCpuPct: Math.round(((l1 - l0) / wall) * 100),
    busy: ps.cpuBusy(c0, ps.cpuSnapshot()),
    foreignCpuPct: foreign.pct,
    foreignTop: foreign.top,
    quietBefore: quiet,
  };
  return { ...r, cpu };
}

const results: { info: Record<string, unknown>; tests: Record<string, unknown>; error?: string } = {
  info: {
    label,
    proxy: {
      host: proxy.host,
      port: proxy.port,
      kind: 'http',
      rateMode,
      auth: proxy.auth ? '***' : undefined,
    },
    proxyPids: pids,
    proxyTreePids: pids.length ? ps.treePids(pids) : [],
    proxyCpus: pids.length ? ps.cpusAllowed(pids[0]) : null,
    loadgenCpus: ps.cpusAllowed(),
    node: process.version,
    kernel: os.release(),
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model,
    startedAt: new Date().toISOString(),
    targets: { host: targetHost, ports: targets.ports },
    args: a,
  },
  tests: {},
};

async function runTests(T: Record<string, unknown>) {
  const sanity = await rateTest(ctx, 1, 0.3, 0, 3);
  if (sanity.okTotal < 1)
    throw new Error(`sanity request through ${label} failed: ${JSON.stringify(sanity.errors)}`);
  if (tests.has('bulk')) {
    log(`bulk: 1 connection, ${num('bulk-bytes')} bytes download`);
    T.bulk1 = await measured(() => bulkDownload(ctx, 1, num('bulk-bytes'), num('bulk-timeout')));
    await sleep(500);
  }
  if (tests.has('parallel')) {
    const n = num('parallel');
    log(`parallel: ${n} connections, ${num('parallel-bytes')} bytes total`);
    T.bulkN = await measured(() =>
      bulkDownload(ctx, n, Math.floor(num('parallel-bytes') / n), num('bulk-timeout')),
    );
    await sleep(500);
  }
  if (tests.has('rate')) {
    const rate: Record<number, unknown> = {};
    T.rate = rate;
    for (const c of list('rate-conc')) {
      log(
        `rate (${rateMode}): concurrency ${c}, ${num('rate-seconds')} s (+${num('rate-warmup')} s warm-up)`,
      );
      rate[c] = await measured(() =>
        rateTest(ctx, c, num('rate-seconds'), num('rate-warmup'), num('rate-max')),
      );
      await sleep(1000); // let TIME_WAIT / proxy cleanup settle a bit
    }
  }
  if (tests.has('idle')) {
    const idle: Record<number, unknown> = {};
    T.idle = idle;
    for (const n of list('idle-levels')) {
      log(`idle: ${n} connections (ramp concurrency ${num('idle-ramp')}, max ${num('idle-seconds')} s)`);
      const r = await idleLevel(ctx, n, num('idle-ramp'), num('idle-seconds'), num('idle-hold'));
      idle[n] = r;
      log(
        `  held ${r.held}/${n} (failed ${r.failed}) probe ${r.probe.ok}/${r.probe.sent} ${JSON.stringify(r.errors)}`,
      );
      await sleep(1000);
    }
  }
}

let exitCode = 0;
try {
  await runTests(results.tests);
} catch (e) {
  results.error = String((e as Error)?.stack ?? e);
  log(`ERROR ${results.error}`);
  exitCode = 2;
}
results.info.finishedAt = new Date().toISOString();
const out =
  a.out ?? join(os.tmpdir(), 'http-proxy-bench', `${label.replace(/[^\w.-]+/g, '_')}-${Date.now()}.json`);
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, JSON.stringify(results, null, 2));
console.log(`${label}: ${JSON.stringify(summaryLine(results.tests))}\njson: ${out}`);
targets.stop();
setTimeout(() => process.exit(exitCode), 300).unref();

/** The headline figures, for the console (the table comes from summarize.mjs). */
function summaryLine(T: Record<string, unknown>) {
  const get = (k: string) => T[k] as { MBps?: number } | undefined;
  const rate = (T.rate ?? {}) as Record<string, { rps: number; latencyMs: { p50: number; p99: number } }>;
  const idle = (T.idle ?? {}) as Record<string, { held: number }>;
  return {
    bulk1MBps: get('bulk1')?.MBps,
    bulkNMBps: get('bulkN')?.MBps,
    rate: Object.fromEntries(
      Object.entries(rate).map(([c, r]) => [
        `c${c}`,
        `${r.rps} req/s ${r.latencyMs.p50}/${r.latencyMs.p99} ms`,
      ]),
    ),
    idleHeld: Object.fromEntries(Object.entries(idle).map(([n, r]) => [n, r.held])),
  };
}
