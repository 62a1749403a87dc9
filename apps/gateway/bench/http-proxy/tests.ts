// The tests of the HTTP-proxy benchmark: the SOCKS5 load generator's bulk, parallel, rate and idle
// tests (bench.mjs in SOCKS_BENCH), the same loops, bounds and figures, through `dial.ts`.
import { performance } from 'node:perf_hooks';
import type { DialHandlers, HttpProxy } from './dial.ts';
import { dial } from './dial.ts';

const now = () => performance.now();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
export const r2 = (x: number | null) => (x == null ? null : Math.round(x * 100) / 100);
export const r3 = (x: number | null) => (x == null ? null : Math.round(x * 1000) / 1000);

function pct(sorted: number[], p: number): number | null {
  if (!sorted.length) return null;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? null;
}

const count = (errors: Record<string, number>, e: Error) => {
  errors[e.message] = (errors[e.message] ?? 0) + 1;
};

export interface Memory {
  pssKiB: number;
  rssKiB: number;
  fds: number;
}

/** What the tests run against: the proxy, the targets, and how to read the proxy's memory. */
export interface TestContext {
  proxy: HttpProxy;
  targetHost: string;
  ports: { bulk: number; http: number; echo: number };
  /** The rate test's request: absolute-form through the proxy (`forward`) or origin-form in a CONNECT tunnel. */
  rateMode: 'connect' | 'forward';
  request: Buffer;
  /** Accepts a whole answer of the rate test: its first bytes and its length. */
  answerOk(head: string, bytes: number): boolean;
  memory(): Memory | null;
  echoOpen(): Promise<number | null>;
}

const tunnel = (ctx: TestContext, port: number, h: DialHandlers, timeoutMs?: number) =>
  dial(ctx.proxy, 'connect', ctx.targetHost, port, h, timeoutMs);

interface Conn {
  bytes: number;
  tEnd: number | null;
  failed: boolean;
  sock?: { destroy(): void; write(s: string): boolean };
}

/** `nConns` tunnels to the bulk server, started together, each downloading `bytesEach`. */
export function bulkDownload(ctx: TestContext, nConns: number, bytesEach: number, timeoutS: number) {
  return new Promise<Record<string, unknown>>((resolve) => {
    const conns: Conn[] = [];
    const errors: Record<string, number> = {};
    let settled = 0;
    let ready = 0;
    let t0: number | null = null;
    let finished = false;
    const finish = (timedOut: boolean) => {
      if (finished) return;
      finished = true;
      clearTimeout(deadline);
      const tEnd = now();
      let bytes = 0;
      const per: number[] = [];
      for (const c of conns) {
        bytes += c.bytes;
        if (t0 != null) per.push(c.bytes / (((c.tEnd ?? tEnd) - t0) / 1000) / 1e6);
        c.sock?.destroy();
      }
      const secs = t0 == null ? null : (Math.max(...conns.map((c) => c.tEnd ?? tEnd)) - t0) / 1000;
      resolve({
        conns: nConns,
        bytesRequested: nConns * bytesEach,
        bytes,
        complete: bytes === nConns * bytesEach,
        seconds: r3(secs),
        MBps: secs ? r2(bytes / secs / 1e6) : 0,
        perConnMBps: per.length ? { min: r2(Math.min(...per)), max: r2(Math.max(...per)) } : null,
        timedOut,
        errors,
      });
    };
    const deadline = setTimeout(() => finish(true), timeoutS * 1000);
    const start = () => {
      t0 = now();
      for (const c of conns) if (!c.failed) c.sock?.write(`D ${bytesEach}\n`);
    };
    const done = (c: Conn) => {
      if (c.tEnd != null) return;
      c.tEnd = now();
      if (++settled === nConns) finish(false);
    };
    for (let i = 0; i < nConns; i++) {
      const c: Conn = { bytes: 0, tEnd: null, failed: false };
      conns.push(c);
      c.sock = tunnel(ctx, ctx.ports.bulk, {
        onReady: () => ++ready === nConns && start(),
        onData: (n) => {
          c.bytes += n;
        },
        onEnd: () => done(c),
        onError: (e) => {
          count(errors, e);
          if (t0 == null) {
            c.failed = true;
            if (++ready === nConns) start();
          }
          done(c);
        },
      });
    }
  });
}

/**
 * Closed loop per worker: connect to the proxy, (CONNECT,) send the HTTP request, read the answer
 * until the server closes, close; `warmupS` discarded, then `seconds` counted.
 */
export function rateTest(ctx: TestContext, conc: number, seconds: number, warmupS: number, maxReq: number) {
  const reqTimeoutMs = 10_000;
  return new Promise<Record<string, unknown> & { okTotal: number; errors: Record<string, number> }>(
    (resolve) => {
      const tMeasure = now() + warmupS * 1000;
      const tStop = tMeasure + seconds * 1000;
      const lat: number[] = [];
      const errors: Record<string, number> = {};
      let started = 0;
      let okTotal = 0;
      let errTotal = 0;
      let active = conc;
      const done = () => {
        lat.sort((x, y) => x - y);
        resolve({
          concurrency: conc,
          windowS: seconds,
          requests: lat.length,
          rps: r2(lat.length / seconds),
          latencyMs: {
            p50: r3(pct(lat, 50)),
            p90: r3(pct(lat, 90)),
            p99: r3(pct(lat, 99)),
            max: r3(lat.at(-1) ?? null),
          },
          startedTotal: started,
          okTotal,
          errorsTotal: errTotal,
          errors,
          hitMaxRequests: started >= maxReq,
        });
      };
      const one = () => {
        const t = now();
        if (t >= tStop || started >= maxReq) {
          if (--active === 0) done();
          return;
        }
        started++;
        let bytes = 0;
        let head: string | null = null;
        let fin = false;
        const complete = (err: Error | null) => {
          if (fin) return;
          fin = true;
          clearTimeout(timer);
          sock.destroy();
          const t1 = now();
          if (!err && !ctx.answerOk(head ?? '', bytes)) err = new Error(`bad response (${bytes} bytes)`);
          if (err) {
            errTotal++;
            count(errors, err);
            setTimeout(one, 10); // back off a little; bounded by tStop anyway
            return;
          }
          okTotal++;
          if (t1 >= tMeasure && t1 <= tStop) lat.push(t1 - t);
          one();
        };
        const timer = setTimeout(() => complete(new Error('request timeout')), reqTimeoutMs);
        const sock = dial(
          ctx.proxy,
          ctx.rateMode,
          ctx.targetHost,
          ctx.ports.http,
          {
            onReady: (s) => s.write(ctx.request),
            onData: (n, buf) => {
              if (head === null) head = buf.toString('latin1', 0, Math.min(n, 12));
              bytes += n;
            },
            onEnd: () => complete(null),
            onError: (e) => complete(e),
          },
          reqTimeoutMs,
        );
      };
      for (let i = 0; i < conc; i++) one();
    },
  );
}

interface IdleConn {
  ok: boolean;
  alive: boolean;
  settled?: boolean;
  pong: (() => void) | null;
  timer?: NodeJS.Timeout;
  sock?: { destroy(): void; write(s: string): boolean };
}

/** Opens `n` tunnels to the echo server (at most `rampConc` handshakes in flight), each pinged once. */
function openIdle(ctx: TestContext, n: number, rampConc: number, maxSeconds: number) {
  const conns: IdleConn[] = [];
  const errors: Record<string, number> = {};
  const st = { launched: 0, established: 0, failed: 0, inflight: 0 };
  const maxFailures = 300;
  const setupTimeoutMs = 10_000;
  const deadline = now() + maxSeconds * 1000;
  return new Promise<{ conns: IdleConn[]; errors: Record<string, number>; st: typeof st }>((resolve) => {
    let resolved = false;
    const check = () => {
      const stop = st.launched >= n || now() >= deadline || st.failed >= maxFailures;
      if (resolved || !stop || st.inflight !== 0) return;
      resolved = true;
      clearInterval(tick);
      resolve({ conns, errors, st });
    };
    const launch = () => {
      while (st.inflight < rampConc && st.launched < n && now() < deadline && st.failed < maxFailures) {
        st.launched++;
        st.inflight++;
        const c: IdleConn = { ok: false, alive: true, pong: null };
        const settle = (err: Error | null) => {
          if (c.ok || c.settled) return;
          c.settled = true;
          clearTimeout(c.timer);
          st.inflight--;
          if (err) {
            st.failed++;
            c.alive = false;
            count(errors, err);
            c.sock?.destroy();
          } else {
            c.ok = true;
            st.established++;
          }
          launch();
          check();
        };
        c.timer = setTimeout(() => settle(new Error('setup+echo timeout')), setupTimeoutMs);
        const handlers: DialHandlers = {
          onReady: (s) => s.write('p'),
          onData: () => (c.ok ? c.pong?.() : settle(null)),
          onError: (e) => {
            c.alive = false;
            settle(e);
          },
          onClose: () => {
            c.alive = false;
            if (!c.ok) settle(new Error('closed before echo'));
          },
        };
        c.sock = tunnel(ctx, ctx.ports.echo, handlers, setupTimeoutMs);
        conns.push(c);
      }
    };
    const tick = setInterval(() => {
      launch();
      check();
    }, 250);
    launch();
  });
}

/** Pings up to 200 of the held connections, spread over the set; how many answered within 5 s. */
async function probe(alive: IdleConn[]): Promise<{ sent: number; ok: number }> {
  const sent = Math.min(200, alive.length);
  let ok = 0;
  const step = alive.length / sent;
  await Promise.all(
    Array.from({ length: sent }, (_, i) => {
      const c = alive[Math.floor(i * step)] as IdleConn;
      return new Promise<void>((res) => {
        const t = setTimeout(() => {
          c.pong = null;
          res();
        }, 5000);
        c.pong = () => {
          c.pong = null;
          clearTimeout(t);
          ok++;
          res();
        };
        c.sock?.write('q');
      });
    }),
  );
  return { sent, ok };
}

/** One idle level: open, hold `holdS`, probe, close all, wait (bounded) for the proxy to let go. */
export async function idleLevel(
  ctx: TestContext,
  n: number,
  rampConc: number,
  maxSeconds: number,
  holdS: number,
) {
  const memBefore = ctx.memory();
  const tStart = now();
  const { conns, errors, st } = await openIdle(ctx, n, rampConc, maxSeconds);
  const rampS = (now() - tStart) / 1000;
  await sleep(holdS * 1000);
  const alive = conns.filter((c) => c.ok && c.alive);
  const memAt = ctx.memory();
  const heldAtTarget = await ctx.echoOpen();
  const probed = await probe(alive);
  for (const c of conns) c.sock?.destroy();
  let memAfter: Memory | null = null;
  for (let i = 0; i < 40; i++) {
    await sleep(250);
    const open = await ctx.echoOpen();
    memAfter = ctx.memory();
    if (open === 0 && (!memAfter || memAfter.fds <= (memBefore?.fds ?? 0) + 8)) break;
  }
  const held = alive.length;
  const perConn = memBefore && memAt && held ? r2((memAt.pssKiB - memBefore.pssKiB) / held) : null;
  return {
    target: n,
    launched: st.launched,
    established: st.established,
    failed: st.failed,
    held,
    heldAtTarget,
    probe: probed,
    rampS: r3(rampS),
    setupRate: r2(st.established / rampS),
    errors,
    proxyMem: memBefore
      ? { before: memBefore, atPeak: memAt, afterClose: memAfter, pssKiBPerConn: perConn }
      : null,
  };
}
