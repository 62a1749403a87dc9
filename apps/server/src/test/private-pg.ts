/**
 * A PostgreSQL cluster of the test's own (the outage tests stop it; the machine's shared server at
 * 127.0.0.1:5432 serves every other test at once and must never be stopped). initdb in a temporary
 * directory, a free loopback port, and `pg_ctl stop -m immediate`: the crash-like stop an outage is.
 * PostgreSQL refuses to run as root, so as root its tools run as the `postgres` user (runuser).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface PrivatePg {
  /** `postgres://postgres@127.0.0.1:<port>/postgres`. */
  url: string;
  /** Stops the server as a crash would (`-m immediate`: no checkpoint, connections cut). */
  stop(): void;
  /** Starts it again on the same port and data; resolves when it accepts connections. */
  start(): void;
  /** Stops it and removes its directory. */
  close(): void;
}

/** The directory of PostgreSQL's server binaries, or undefined when none is installed. */
function findBinDir(): string | undefined {
  const pgConfig = spawnSync('pg_config', ['--bindir'], { encoding: 'utf8' });
  const fromConfig = pgConfig.status === 0 ? pgConfig.stdout.trim() : '';
  if (fromConfig && existsSync(join(fromConfig, 'initdb'))) return fromConfig;
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root).sort((a, b) => Number(b) - Number(a));
  const dir = versions.map((v) => join(root, v, 'bin')).find((d) => existsSync(join(d, 'initdb')));
  return dir;
}

const isRoot = () => process.getuid?.() === 0;

/** Why a private cluster cannot be started here, or undefined when it can. */
export function privatePgUnavailable(): string | undefined {
  if (!findBinDir()) return 'no PostgreSQL server binaries (initdb, pg_ctl) on this machine';
  if (isRoot() && spawnSync('id', ['-u', 'postgres']).status !== 0)
    return 'running as root and no `postgres` user to run PostgreSQL as';
  return undefined;
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

/** initdb, then start on a free loopback port. */
export async function startPrivatePg(): Promise<PrivatePg> {
  const bin = findBinDir();
  if (!bin) throw new Error('no PostgreSQL binaries');
  const dir = mkdtempSync(join(tmpdir(), 'pm-pg-'));
  const data = join(dir, 'data');
  if (isRoot()) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(dir, uid, gid);
    chmodSync(dir, 0o700);
  }
  const run = (tool: string, args: string[]) => {
    const cmd = isRoot() ? 'runuser' : join(bin, tool);
    const full = isRoot() ? ['-u', 'postgres', '--', join(bin, tool), ...args] : args;
    const r = spawnSync(cmd, full, { encoding: 'utf8', timeout: 60_000 });
    if (r.status !== 0) throw new Error(`${tool} ${args.join(' ')}: ${r.stderr || r.stdout || r.error}`);
  };
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  const port = await freePort();
  // fsync off: the stop is a process crash, not a machine's; the OS keeps what was written.
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
  const start = () =>
    run('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', '-t', '60', 'start']);
  const stop = () => run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
  start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop,
    start,
    close() {
      try {
        stop();
      } catch {
        // Already stopped.
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
