/** Test helpers for the package port range: a free block of ports with its twins, and a port another process holds. */
import { spawn } from 'node:child_process';
import net from 'node:net';

function isFree(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, host, () => probe.close(() => resolve(true)));
  });
}

/**
 * The first port of `count` consecutive free ports whose twins (each plus `offset`) are free too,
 * drawn below the ephemeral range (20000-29999, away from the ports the OS hands out).
 */
export async function findFreeRange(count: number, offset: number, host = '127.0.0.1'): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = 20_000 + Math.floor(Math.random() * (10_000 - count - offset));
    const ports = Array.from({ length: count }, (_, i) => base + i);
    const free = await Promise.all([...ports, ...ports.map((p) => p + offset)].map((p) => isFree(p, host)));
    if (free.every(Boolean)) return base;
  }
  throw new Error(`no ${count} free ports with their twins (+${offset})`);
}

/** A port held by another process until `close()`. */
export interface HeldPort {
  port: number;
  close(): Promise<void>;
}

/** Starts a separate node process that listens on `port` (answering nothing) and resolves once it does. */
export function holdPortElsewhere(port: number, host = '127.0.0.1'): Promise<HeldPort> {
  const code = `require('node:net').createServer().listen(${port}, ${JSON.stringify(host)}, () => console.log('up'))`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d));
    child.once('exit', (c) => reject(new Error(`holder of ${port} exited ${c}: ${err}`)));
    child.stdout.once('data', () => {
      child.removeAllListeners('exit');
      resolve({
        port,
        close: () =>
          new Promise<void>((r) => {
            child.once('exit', () => r());
            child.kill();
          }),
      });
    });
  });
}
