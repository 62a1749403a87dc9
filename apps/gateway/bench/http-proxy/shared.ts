// What the HTTP-proxy benchmark takes from the shared SOCKS5 load generator (../shared/bench/socks,
// or SOCKS_BENCH): its target servers (lib/targets.mjs, a child process), its wire constants
// (lib/proto.mjs) and its /proc sampling (lib/procstat.mjs), so that both generators measure
// against the same servers with the same accounting. Loaded by path: the folder is not a package.
import { type ChildProcess, fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Memory } from './tests.ts';

type Ticks = unknown;
export interface ProcStat {
  treePids(roots: number[]): number[];
  treeCpuSeconds(roots: number[]): number;
  treeMemory(roots: number[]): Memory;
  cpuSnapshot(): Ticks;
  cpuBusy(a: Ticks, b: Ticks): unknown;
  cpusAllowed(pid?: number | 'self'): string | null;
  allProcTicks(): Ticks;
  foreignCpu(a: Ticks, b: Ticks, ours: Set<number>, wallS: number): { pct: number; top: string[] };
}
export interface Proto {
  HTTP_RESPONSE: Buffer;
  httpRequest(host: string): Buffer;
  DEFAULT_TARGET_PORTS: { bulk: number; http: number; echo: number };
}
export type Ports = Proto['DEFAULT_TARGET_PORTS'];

/** The shared generator's folder: SOCKS_BENCH, else ../shared/bench/socks beside the repository. */
export function socksBenchDir(): string {
  const dir = process.env.SOCKS_BENCH || resolve(import.meta.dirname, '../../../../../shared/bench/socks');
  if (!existsSync(join(dir, 'lib', 'targets.mjs'))) {
    throw new Error(`shared load generator not found at ${dir} (set SOCKS_BENCH)`);
  }
  return dir;
}

export async function loadShared(dir: string): Promise<{ procstat: ProcStat; proto: Proto }> {
  const load = (name: string) => import(pathToFileURL(join(dir, 'lib', name)).href);
  return { procstat: (await load('procstat.mjs')) as ProcStat, proto: (await load('proto.mjs')) as Proto };
}

export interface Targets {
  child: ChildProcess;
  ports: Ports;
  /** The echo server's open connections (null when the child does not answer within 2 s). */
  echoOpen(): Promise<number | null>;
  stop(): void;
}

/** Starts the shared target servers in their own process (own fd budget and CPU accounting). */
export function startTargets(dir: string, host: string, wanted: Ports): Promise<Targets> {
  return new Promise((ok, fail) => {
    const child = fork(join(dir, 'lib', 'targets.mjs'), [], {
      env: { ...process.env, BENCH_TARGET_HOST: host, BENCH_TARGET_PORTS: JSON.stringify(wanted) },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const echoOpen = () =>
      new Promise<number | null>((done) => {
        const t = setTimeout(() => done(null), 2000);
        child.once('message', (m: { stats?: { echoOpen: number } }) => {
          clearTimeout(t);
          done(m.stats?.echoOpen ?? null);
        });
        child.send({ type: 'stats' });
      });
    const stop = () => {
      child.removeAllListeners('exit');
      child.send({ type: 'exit' });
      setTimeout(() => child.kill(), 300).unref();
    };
    child.once('message', (m: { type: string; ports: Ports; error?: string }) =>
      m.type === 'ready'
        ? ok({ child, ports: m.ports, echoOpen, stop })
        : fail(new Error(`targets: ${m.error}`)),
    );
    child.once('exit', (c) => fail(new Error(`targets exited ${c}`)));
  });
}
