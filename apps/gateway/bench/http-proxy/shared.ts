// What the HTTP-proxy benchmark takes from the SOCKS5 load generator (the folder SOCKS_BENCH names;
// not part of this repository, see docs/benchmarks.md): its target servers (lib/targets.mjs, a child process), its wire constants
// (lib/proto.mjs) and its /proc sampling (lib/procstat.mjs), so that both generators measure
// against the same servers with the same accounting. Loaded by path: the folder is not a package.
import { type ChildProcess, fork } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
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

/**
 * The load generator's folder, SOCKS_BENCH; when it is unset or wrong, the reason and how to get the
 * generator, then exit 3 (the same words as socks-bench.sh, which the shell scripts source).
 */
export function socksBenchDir(): string {
  const dir = process.env.SOCKS_BENCH;
  if (dir && existsSync(join(dir, 'lib', 'targets.mjs'))) return dir;
  console.error(dir ? `SOCKS_BENCH=${dir} has no lib/targets.mjs.` : 'SOCKS_BENCH is not set.');
  console.error(socksBenchHelp());
  process.exit(3);
}

/** socks-bench.sh's explanation of what the generator is and how to get it. */
function socksBenchHelp(): string {
  const sh = readFileSync(join(import.meta.dirname, '..', 'socks-bench.sh'), 'utf8');
  const help = /SOCKS_BENCH_HELP="([\s\S]*?)"\n/.exec(sh)?.[1] ?? 'see docs/benchmarks.md';
  return help.replaceAll('\\"', '"');
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
