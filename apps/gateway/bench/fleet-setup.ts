/**
 * The parts `fleet.ts` sets up: a fresh database seeded as a node expects (its node row, N agents
 * with their key hashes, one lease), loopback ports, the node as a production process (TLS, the V8
 * options of docs/gateway.md) and the processes of light agents (`fleet-agents.ts`).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { createDb, migrateDb } from '@pm/db';
import pg from 'pg';
import type { FleetAgentsConfig } from './fleet-agents.ts';

export const NODE_ID = 'fleet-1';
/** docs/gateway.md "The V8 options", as `npm run start -w @pm/gateway` runs the node. */
export const V8_OPTIONS = [
  '--no-memory-reducer',
  '--max-semi-space-size=4',
  '--no-allocation-site-pretenuring',
];
const MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));
const AGENTS = fileURLToPath(new URL('./fleet-agents.ts', import.meta.url));

export interface Seeded {
  url: string;
  keys: string[];
  lease: { user: string; pwd: string };
}

/** Drops and creates `dbName`, migrates it, and writes the node row, `n` agents on it and one private lease on the first. */
export async function prepareDatabase(
  pgUrl: string,
  dbName: string,
  n: number,
  basePort: number,
): Promise<Seeded> {
  const server = pgUrl.replace(/\/+$/, '');
  const admin = new pg.Client({ connectionString: `${server}/postgres` });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${dbName}`);
  await admin.end();
  const url = `${server}/${dbName}`;
  const db = await createDb({ databaseUrl: url, maxConnections: 2 });
  try {
    await migrateDb(db);
    await db.query(
      'INSERT INTO gateway_nodes (id, public_host, public_ip, socks_base_port) VALUES ($1, $2, $3, $4)',
      [NODE_ID, 'fleet.bench.test', '192.0.2.10', basePort],
    );
    const keys = Array.from({ length: n }, () => randomBytes(24).toString('base64url'));
    const ids = keys.map((_, i) => `fl-${String(i).padStart(6, '0')}`);
    for (let i = 0; i < n; i += 5000) {
      await db.query(
        `INSERT INTO agents (id, key_hash, node_id) SELECT id, h, $3 FROM unnest($1::text[], $2::text[]) AS t(id, h)`,
        [
          ids.slice(i, i + 5000),
          keys.slice(i, i + 5000).map((k) => createHash('sha256').update(k).digest('hex')),
          NODE_ID,
        ],
      );
    }
    const lease = { user: randomBytes(5).toString('hex'), pwd: randomBytes(8).toString('hex') };
    await db.query(
      `INSERT INTO leases (id, user_id, agent_id, exc, until, socks_user, socks_pwd, node_id)
       VALUES ('flbe-0001', 'bench-user', $1, true, now() + interval '1 day', $2, $3, $4)`,
      [ids[0], lease.user, lease.pwd, NODE_ID],
    );
    return { url, keys, lease };
  } finally {
    await db.close();
  }
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

/**
 * The node's ports, all below the ephemeral range (32768+): after the kill, 10,000 agents
 * reconnecting from ephemeral ports must not take a port the restarted node binds again.
 * SOCKS ports are base + 2080..5080 and the lease HTTP port base + 6080; all of them below the
 * node's no-auth and package ranges (17000 and up, with their HTTP twins up to 31999), which the
 * node refuses to share (`checkPortPlan`).
 */
export async function choosePorts(): Promise<{
  base: number;
  tunnel: number;
  metrics: number;
  inspect: number;
}> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const base = 1_000 + Math.floor(Math.random() * 9_900);
    const ports = [2080, 3080, 4080, 5080, 6080, 6081, 6082, 6083].map((o) => base + o);
    const free = await Promise.all(ports.map(portFree));
    if (free.every(Boolean)) return { base, tunnel: ports[5]!, metrics: ports[6]!, inspect: ports[7]! };
  }
  throw new Error('no free loopback ports below 17000');
}

/**
 * `node ...args` with the open-file limit raised (30,000 tunnels need 30,000 descriptors and the
 * node's listeners some thousands more): to FD_LIMIT where the user may raise the hard limit
 * (root), else to the hard limit. The agents run at the node's priority: at nice 10 on a shared
 * machine they noticed the node's kill 8-18 s late, which timed their lag, not the node's.
 */
const FD_LIMIT = 200_000;
function spawnWithFdLimit(args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  const script = `{ ulimit -n ${FD_LIMIT} || ulimit -n "$(ulimit -Hn)"; } 2>/dev/null && exec "$0" "$@"`;
  return spawn('bash', ['-c', script, process.execPath, ...args], {
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
}

export interface GatewayProcess {
  child: ChildProcess;
  pid: number;
  /** Resolves with the node's first SOCKS port once it logged "gateway started"; rejects if it exits first. */
  started: Promise<number>;
}

/** Starts the node as production runs it: `main.ts` with the V8 options, TLS, PostgreSQL, pino logs at `info`. */
export function startGatewayProcess(env: Record<string, string>, inspectPort?: number): GatewayProcess {
  const inspect = inspectPort ? [`--inspect=127.0.0.1:${inspectPort}`] : [];
  const child = spawnWithFdLimit([...V8_OPTIONS, ...inspect, MAIN], { ...process.env, ...env });
  const started = new Promise<number>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      if (!line.includes('"gateway started"')) return;
      const entry = JSON.parse(line) as { socksPorts: number[] };
      resolve(entry.socksPorts[0]!);
    });
    child.once('exit', (code, signal) =>
      reject(new Error(`gateway exited (${code ?? signal}) before starting`)),
    );
  });
  started.catch(() => {});
  return { child, pid: child.pid!, started };
}

export interface AgentProcess {
  child: ChildProcess;
  /** The latest report of the process. */
  last: { started: number; connected: number; first: boolean; reasons?: Record<string, number> };
  /** When it arrived (`performance.now()`). */
  lastAt: number;
}

/** Starts one process of light agents with `keys` (written to a file in `dir`). */
export function startAgentProcess(dir: string, index: number, config: FleetAgentsConfig): AgentProcess {
  const file = join(dir, `agents-${index}.json`);
  writeFileSync(file, JSON.stringify(config));
  const child = spawnWithFdLimit([...V8_OPTIONS, AGENTS, file], process.env);
  const proc: AgentProcess = { child, last: { started: 0, connected: 0, first: false }, lastAt: 0 };
  createInterface({ input: child.stdout! }).on('line', (line) => {
    try {
      proc.last = JSON.parse(line) as AgentProcess['last'];
      proc.lastAt = performance.now();
    } catch {
      // not a report
    }
  });
  return proc;
}
