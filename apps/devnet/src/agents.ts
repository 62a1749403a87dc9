/**
 * Demo agents for `npm start` and tests: agent rows with synthetic public identities from the
 * documentation ranges (RFC 5737), run by the real agent code against a real gateway, relaying real
 * traffic from this machine. Plus a loopback HTTP target for the gateway's probes and speed tests.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { type AgentHandle, startAgent } from '@pm/agent';
import type { DbHandle } from '@pm/db';
import { hashAgentKey } from '@pm/gateway/store/agent-registry';
import { type DemoIdentity, demoIdentities } from './demo-identities.ts';

export {
  DEMO_AGENT_COUNT,
  type DemoIdentity,
  demoGeo,
  demoIdentities,
  demoStaticIdentities,
} from './demo-identities.ts';

export interface DemoAgentsOptions {
  db: DbHandle;
  /**
   * The gateway's agent tunnel address (the gateway must trust agents' `ip` override). The demo
   * agents dial it without TLS, so it must be a loopback address (the agent refuses otherwise).
   */
  gateway: { host: string; port: number };
  identities?: DemoIdentity[];
  log?: (msg: string, fields?: Record<string, unknown>) => void;
}

export interface DemoAgents {
  identities: DemoIdentity[];
  agents: AgentHandle[];
  /** Resolves when every agent has its tunnel up (rejects after `timeoutMs`). */
  waitConnected(timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * Writes the demo agents' rows (a fresh key each start, stored hashed; location and scores only
 * and the static mark when the row is new, so edits survive restarts; prices come from the pricing rules) and starts the real agent for each.
 */
export async function startDemoAgents(options: DemoAgentsOptions): Promise<DemoAgents> {
  const identities = options.identities ?? demoIdentities();
  const keys = new Map<string, string>();
  for (const d of identities) {
    const key = randomBytes(24).toString('base64url');
    keys.set(d.id, key);
    await options.db.query(
      `INSERT INTO agents (id, key_hash, ip, host, cc, reg, city, zip, isp, mob, lat, lon, conn, dev, stars, is_static)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)
       ON CONFLICT (id) DO UPDATE SET key_hash = EXCLUDED.key_hash`,
      [
        d.id,
        hashAgentKey(key),
        d.ip,
        d.loc.host,
        d.loc.cc,
        d.loc.reg,
        d.loc.city,
        d.loc.zip,
        d.loc.isp,
        d.loc.mob,
        d.loc.lat,
        d.loc.lon,
        d.conn,
        d.dev,
        d.stars,
        d.static ?? false,
      ],
    );
  }
  const agents = identities.map((d) =>
    startAgent({
      gateway: options.gateway,
      key: keys.get(d.id)!,
      plaintext: true,
      conn: d.conn,
      dev: d.dev,
      ipOverride: d.ip,
      // The demo relays to this machine's own services (probe target, local test pages).
      allowLoopback: true,
      backoffMinMs: 200,
      backoffMaxMs: 5000,
      log: options.log,
    }),
  );
  return {
    identities,
    agents,
    async waitConnected(timeoutMs) {
      await Promise.all(agents.map((a) => a.waitConnected(timeoutMs)));
    },
    async close() {
      await Promise.all(agents.map((a) => a.close()));
    },
  };
}

export interface ProbeTarget {
  /** `http://127.0.0.1:port/probe`: answers 200 "ok". */
  probeUrl: string;
  /** `http://127.0.0.1:port/ip`: an IP echo answering the probed agent's exit (see `exits`). */
  echoUrl: string;
  /** `http://127.0.0.1:port/bytes/<n>`: n bytes (default 5 MB) for speed tests. */
  speedUrl: string;
  port: number;
  close(): Promise<void>;
}

const MAX_SPEED_BYTES = 50_000_000;

/**
 * A loopback HTTP server the gateway probes and speed-tests through the demo agents. `/ip` is the
 * IP echo of purchase probes: every demo agent exits from this machine, so it answers the public
 * exit `exits` gives for the agent the gateway names in `X-Probe-Agent` (the devnet's stand-in for
 * the carrier's NAT), else the connection's own address.
 */
export async function startProbeTarget(
  options: {
    host?: string;
    port?: number;
    speedBytes?: number;
    exits?: (agentId: string) => string | undefined;
  } = {},
): Promise<ProbeTarget> {
  const host = options.host ?? '127.0.0.1';
  const chunk = Buffer.alloc(64 * 1024, 0x61);
  const server = http.createServer((req, res) => {
    if (req.url === '/probe') {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': 2 });
      res.end('ok');
      return;
    }
    if (req.url === '/ip') {
      const agentId = req.headers['x-probe-agent'];
      const exit = (typeof agentId === 'string' && options.exits?.(agentId)) || req.socket.remoteAddress;
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(`${exit}\n`);
      return;
    }
    const m = /^\/bytes\/(\d{1,9})$/.exec(req.url ?? '');
    if (!m) {
      res.writeHead(404);
      res.end();
      return;
    }
    const total = Math.min(Number(m[1]), MAX_SPEED_BYTES);
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': total });
    let left = total;
    const pump = () => {
      while (left > 0) {
        const n = Math.min(left, chunk.length);
        left -= n;
        if (!res.write(n === chunk.length ? chunk : chunk.subarray(0, n))) {
          res.once('drain', pump);
          return;
        }
      }
      res.end();
    };
    pump();
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, host, resolve));
  const { port } = server.address() as AddressInfo;
  const base = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return {
    probeUrl: `${base}/probe`,
    echoUrl: `${base}/ip`,
    speedUrl: `${base}/bytes/${options.speedBytes ?? 5_000_000}`,
    port,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
