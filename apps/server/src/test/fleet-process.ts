/** One process of the several-hosts test, started in its host's namespace: its output kept and waited on. */
import type { ChildProcess } from 'node:child_process';
import type { HostNet } from '@pm/devnet/netns';

export interface FleetProcess {
  label: string;
  host: string;
  child: ChildProcess;
  /** Resolves when a line of stdout or stderr matches; rejects on exit or after `timeoutMs`. */
  waitForLine(pattern: RegExp, timeoutMs: number): Promise<string>;
  /** Sends `signal` and waits for the exit (SIGKILL after 10 s if a gentler signal was ignored). */
  stop(signal?: NodeJS.Signals): Promise<void>;
  /** The last lines it wrote, prefixed with its label. */
  tail(): string;
}

const KEEP_LINES = 40;

/** Starts `node <args>` (this process's Node) in `host` with exactly `env`. */
export function startProcess(
  hostNet: HostNet,
  host: string,
  label: string,
  args: string[],
  env: Record<string, string>,
): FleetProcess {
  const child = hostNet.spawnIn(host, process.execPath, args, env);
  const lines: string[] = [];
  const listeners = new Set<(line: string) => void>();
  const onData = (stream: NodeJS.ReadableStream) => {
    let buffered = '';
    stream.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const parts = buffered.split('\n');
      buffered = parts.pop()!;
      for (const line of parts) {
        lines.push(line);
        if (lines.length > KEEP_LINES) lines.shift();
        for (const l of listeners) l(line);
      }
    });
  };
  onData(child.stdout!);
  onData(child.stderr!);
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const isRunning = () => child.exitCode === null && child.signalCode === null;
  return {
    label,
    host,
    child,
    waitForLine(pattern, timeoutMs) {
      const seen = lines.find((l) => pattern.test(l));
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const done = (err: Error | null, line = '') => {
          clearTimeout(timer);
          listeners.delete(onLine);
          child.off('exit', onExit);
          if (err) reject(err);
          else resolve(line);
        };
        const onLine = (line: string) => pattern.test(line) && done(null, line);
        const onExit = () =>
          done(new Error(`${label} exited (${child.exitCode ?? child.signalCode}) before ${pattern}`));
        const timer = setTimeout(
          () => done(new Error(`${label}: no ${pattern} within ${timeoutMs} ms`)),
          timeoutMs,
        );
        listeners.add(onLine);
        if (!isRunning()) return onExit();
        child.once('exit', onExit);
      });
    },
    async stop(signal = 'SIGTERM') {
      if (!isRunning()) return;
      child.kill(signal);
      const force = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(force);
    },
    tail: () => lines.map((l) => `[${label}] ${l}`).join('\n'),
  };
}
