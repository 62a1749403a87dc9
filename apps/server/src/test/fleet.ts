/**
 * The product on several hosts (issue 29): network namespaces from `@pm/devnet/netns`, each running
 * a real process as docs/deploying.md starts it (`node <app>/src/main.ts` with its environment).
 * Hosts: two market APIs (`--role=http`), two workers (`--role=worker`), two gateway nodes, two
 * agent hosts (each with agents that prefer their own node: both nodes share one name, the nearer
 * listed first), and a customers' host. The root namespace (the bridge's `.1`) holds what every
 * host reaches: a TCP forwarder to the loopback PostgreSQL, the OpenID issuer of the test tokens,
 * and an HTTP target that answers the address it sees (the agents' exit).
 */

import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildAgent, type TestDatabase } from '@pm/db/testing';
import { createHostNet, forwardTcp, type HostNet } from '@pm/devnet/netns';
import { hashAgentKey } from '@pm/gateway/store/agent-registry';
import { makeSelfSignedCert } from '@pm/gateway/tunnel/self-signed';
import { type FleetProcess, startProcess } from './fleet-process.ts';
import { startTestIssuer, type TestIssuer } from './issuer.ts';

const APPS = fileURLToPath(new URL('../../../', import.meta.url));
export const FLEET_AUDIENCE = 'https://api.fleet.test';
/** The name both gateway nodes answer to (in their certificate) and agents dial. */
export const GATEWAY_NAME = 'gw.pm.test';
export const SOCKS_BASE_PORT = 10_000;
export const API_PORT = 7301;
export const PORTS_API_PORT = 7307;
/** How long a process may take to start: Node compiling the app's TypeScript on a busy 2-core CI machine. */
const START_LIMIT_MS = 300_000;
/**
 * Where each agent host's agents are (the rows' geo; the nodes run with GATEWAY_GEO=off): one city
 * only on B's agent host, so a port package there has its ports on gateway B.
 */
export const AGENT_GEO = {
  ag1: { cc: 'US', reg: 'California', city: 'San Jose' },
  ag2: { cc: 'US', reg: 'Texas', city: 'Austin' },
} as const;

/** Hosts and their addresses' last octet: agents share a longer prefix with their own node. */
const HOSTS = [
  { name: 'api1', octet: 2 },
  { name: 'api2', octet: 3 },
  { name: 'w1', octet: 4 },
  { name: 'w2', octet: 5 },
  { name: 'gw1', octet: 16 },
  { name: 'ag1', octet: 17 },
  { name: 'gw2', octet: 32 },
  { name: 'ag2', octet: 33 },
  { name: 'cust', octet: 64 },
];

export interface FleetAgent {
  id: string;
  host: 'ag1' | 'ag2';
  process: FleetProcess;
}

export interface Fleet {
  net: HostNet;
  issuer: TestIssuer;
  /** `http://<address>:7301` of API A and API B. */
  apis: [string, string];
  /** `http://<address>:7307`: the Ports API listeners of API A and API B. */
  portsApis: [string, string];
  workers: Record<'w1' | 'w2', FleetProcess>;
  gateways: Record<'gw1' | 'gw2', FleetProcess>;
  agents: FleetAgent[];
  /** The root's HTTP target: `/ip` answers the caller's address. */
  targetUrl: string;
  /** Starts a worker again on its host (after a kill). */
  restartWorker(name: 'w1' | 'w2'): Promise<FleetProcess>;
  /** API B's process (host api2), replaced by `restartApiB`. */
  apiB(): FleetProcess;
  /** Stops API B with `signal` and starts it again on its host; resolves when it listens. */
  restartApiB(signal?: NodeJS.Signals): Promise<FleetProcess>;
  /** The last lines every process wrote, for a failing test's message. */
  logs(): string;
  close(): Promise<void>;
}

/** The HTTP target customers fetch through the agents: `/ip` answers the address the request came from. */
async function startTarget(host: string): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    if (req.url?.startsWith('/speed')) return res.end(Buffer.alloc(64 * 1024));
    res.end(`${req.socket.remoteAddress?.replace(/^::ffff:/, '')}\n`);
  });
  await new Promise<void>((r) => server.listen(0, host, r));
  return {
    url: `http://${host}:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** One certificate for both nodes: the shared name and each node's address, written beside the run. */
function writeCertificate(dir: string, addresses: string[]): { cert: string; key: string } {
  const pem = makeSelfSignedCert([`DNS:${GATEWAY_NAME}`, ...addresses.map((a) => `IP:${a}`)]);
  const cert = join(dir, 'gateway.pem');
  const key = join(dir, 'gateway.key');
  writeFileSync(cert, pem.cert);
  writeFileSync(key, pem.key, { mode: 0o600 });
  return { cert, key };
}

export async function startFleet(db: TestDatabase, o: { agentsPerHost?: number } = {}): Promise<Fleet> {
  const hostNet = createHostNet(HOSTS);
  const addr = (h: string) => hostNet.hosts[h]!.address;
  const root = hostNet.rootAddress;
  const dir = mkdtempSync(join(tmpdir(), 'pm-fleet-'));
  const closers: (() => Promise<void>)[] = [async () => rmSync(dir, { recursive: true, force: true })];
  const processes: FleetProcess[] = [];
  const close = async () => {
    await hostNet.close();
    for (const c of closers.reverse()) await c().catch(() => {});
  };
  try {
    const forwarder = await forwardTcp(root, new URL(db.url));
    closers.push(forwarder.close);
    const dbUrl = new URL(db.url);
    dbUrl.host = `${root}:${forwarder.port}`;
    const issuer = await startTestIssuer(FLEET_AUDIENCE, root);
    closers.push(issuer.close);
    const target = await startTarget(root);
    closers.push(target.close);
    const tls = writeCertificate(dir, [addr('gw1'), addr('gw2')]);
    const base = { PATH: process.env.PATH ?? '', DATABASE_URL: dbUrl.toString(), LOG_LEVEL: 'info' };
    const start = (host: string, label: string, app: string, args: string[], env: Record<string, string>) => {
      const p = startProcess(hostNet, host, label, [join(APPS, app), ...args], { ...base, ...env });
      processes.push(p);
      return p;
    };

    const serverEnv = {
      HOST: '0.0.0.0',
      PORT: String(API_PORT),
      METRICS_TOKEN: randomBytes(12).toString('hex'),
    };
    const startWorker = (name: 'w1' | 'w2') =>
      start(name, name, 'server/src/main.ts', ['--role=worker'], serverEnv);
    const apiEnv = {
      ...serverEnv,
      PORTS_PORT: String(PORTS_API_PORT),
      OIDC_ISSUER: issuer.issuer,
      OIDC_AUDIENCE: FLEET_AUDIENCE,
    };
    // One API first: it runs the migrations (the rest would wait on the advisory lock anyway).
    const api1 = start('api1', 'api-a', 'server/src/main.ts', ['--role=http'], apiEnv);
    await api1.waitForLine(/market API on .*ports API on/, START_LIMIT_MS);
    const startApiB = () => start('api2', 'api-b', 'server/src/main.ts', ['--role=http'], apiEnv);
    const rest = [startApiB(), startWorker('w1'), startWorker('w2')];
    let apiB = rest[0]!;
    const gateways = {} as Fleet['gateways'];
    for (const gw of ['gw1', 'gw2'] as const) {
      gateways[gw] = start(gw, gw, 'gateway/src/main.ts', [], {
        GATEWAY_NODE_ID: gw,
        GATEWAY_PUBLIC_IP: addr(gw),
        GATEWAY_PUBLIC_HOST: `${gw}.pm.test`,
        GATEWAY_TLS_CERT: tls.cert,
        GATEWAY_TLS_KEY: tls.key,
        GATEWAY_HOST: '0.0.0.0',
        GATEWAY_TUNNEL_PORT: '7000',
        GATEWAY_SOCKS_BASE_PORT: String(SOCKS_BASE_PORT),
        GATEWAY_GEO: 'off',
        GATEWAY_PROBE_URL: `${target.url}/ip`,
        GATEWAY_ECHO_URL: `${target.url}/ip`,
        GATEWAY_SPEED_URL: `${target.url}/speed`,
      });
    }
    await Promise.all([
      rest[0]!.waitForLine(/market API on .*ports API on/, START_LIMIT_MS),
      rest[1]!.waitForLine(/job workers running/, START_LIMIT_MS),
      rest[2]!.waitForLine(/job workers running/, START_LIMIT_MS),
      gateways.gw1.waitForLine(/gateway started/, START_LIMIT_MS),
      gateways.gw2.waitForLine(/gateway started/, START_LIMIT_MS),
    ]);

    // Agents: each host lists its own node first (and is nearer to it), the other as the fallback.
    const agents: FleetAgent[] = [];
    for (const [host, own, other] of [
      ['ag1', 'gw1', 'gw2'],
      ['ag2', 'gw2', 'gw1'],
    ] as const) {
      hostNet.setHostsFile(host, [
        [addr(own), GATEWAY_NAME],
        [addr(other), GATEWAY_NAME],
      ]);
      for (let i = 0; i < (o.agentsPerHost ?? 2); i++) {
        const key = randomBytes(24).toString('base64url');
        const row = await buildAgent(db, {
          keyHash: hashAgentKey(key),
          nodeId: null,
          online: false,
          ip: '',
          ...AGENT_GEO[host],
        });
        // --allow-private: the test-only switch that lets an exit reach private addresses (the
        // namespaces' 10.199.N.0/24); production agents refuse them.
        const args = ['--gateway', `${GATEWAY_NAME}:7000`, '--ca', tls.cert, '--allow-private'];
        agents.push({
          id: row.id,
          host,
          process: start(host, `${host}-${i}`, 'agent/src/main.ts', args, { AGENT_KEY: key }),
        });
      }
    }
    return {
      net: hostNet,
      issuer,
      apis: [`http://${addr('api1')}:${API_PORT}`, `http://${addr('api2')}:${API_PORT}`],
      portsApis: [`http://${addr('api1')}:${PORTS_API_PORT}`, `http://${addr('api2')}:${PORTS_API_PORT}`],
      workers: { w1: rest[1]!, w2: rest[2]! },
      gateways,
      agents,
      targetUrl: target.url,
      apiB: () => apiB,
      async restartApiB(signal = 'SIGTERM') {
        await apiB.stop(signal);
        apiB = startApiB();
        await apiB.waitForLine(/market API on .*ports API on/, START_LIMIT_MS);
        return apiB;
      },
      async restartWorker(name) {
        const p = startWorker(name);
        await p.waitForLine(/job workers running/, START_LIMIT_MS);
        return p;
      },
      logs: () => processes.map((p) => p.tail()).join('\n'),
      close,
    };
  } catch (e) {
    const logs = processes.map((p) => p.tail()).join('\n');
    await close();
    throw new Error(`${(e as Error).message}\n${logs}`);
  }
}
