/**
 * Test helpers for the real proxy network on loopback: a gateway node with its PostgreSQL control
 * plane on a random SOCKS base, real agents dialing it, loopback servers for them to reach, and
 * curl through a lease's credentials.
 */
import { randomBytes } from 'node:crypto';
import net, { type AddressInfo } from 'node:net';
import { type AgentHandle, startAgent } from '@pm/agent';
import { LEASE_HTTP_PORT_OFFSET, SOCKS_PORT_OFFSETS } from '@pm/contracts';
import { buildAgent, type TestDatabase } from '@pm/db/testing';
import { type ControlPlane, type GatewayHandle, startControlPlane, startGateway } from '@pm/gateway';
import type { GeoLookup } from '@pm/gateway/geo/geo';
import { curl } from '@pm/gateway/session/harness.testkit';
import { hashAgentKey } from '@pm/gateway/store/agent-registry';
import { waitFor } from '@pm/testkit';

/** A running gateway node and the agents connected to it. */
export interface GatewayStack {
  plane: ControlPlane;
  gateway: GatewayHandle;
  /**
   * Creates an agent row with a fresh key and starts the real agent dialing the gateway with that
   * identity and public exit `ip`; resolves with the row's id once the registry has it.
   */
  connectAgent(ip: string, o?: { allowLoopback?: boolean }): Promise<string>;
  /** Closes one agent (the gateway then marks it offline). */
  closeAgent(agentId: string): Promise<void>;
  /** Closes the agents still running, the gateway and its control plane. */
  close(): Promise<void>;
}

/** Starts the gateway node `nodeId` on a random SOCKS base (its four SOCKS ports and HTTP proxy port are fixed offsets from it). */
export async function startGatewayStack(
  db: TestDatabase,
  o: { nodeId: string; geo?: GeoLookup },
): Promise<GatewayStack> {
  let plane: ControlPlane;
  let gateway: GatewayHandle;
  for (let attempt = 1; ; attempt++) {
    const base = 21_000 + Math.floor(Math.random() * 5000);
    plane = await startControlPlane({
      db,
      nodeId: o.nodeId,
      node: { publicHost: 'localhost', publicIp: '127.0.0.1', socksBasePort: base },
      geo: o.geo,
      reverseDns: false,
    });
    try {
      gateway = await startGateway({
        nodeId: o.nodeId,
        host: '127.0.0.1',
        tunnelPort: 0,
        socksPorts: SOCKS_PORT_OFFSETS.map((offset) => base + offset),
        httpPorts: [base + LEASE_HTTP_PORT_OFFSET],
        plaintextTunnel: true,
        directory: plane.directory,
        meter: plane.meter,
        registry: plane.registry,
        handshakeTimeoutMs: 5000,
        trustAgentIp: true,
      });
      break;
    } catch (e) {
      await plane.close();
      if ((e as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt === 5) throw e;
    }
  }
  const agents = new Map<string, AgentHandle>();
  return {
    plane,
    gateway,
    async connectAgent(ip, { allowLoopback = true } = {}) {
      const key = randomBytes(24).toString('base64url');
      const row = await buildAgent(db, { keyHash: hashAgentKey(key), nodeId: null, online: false, ip: '' });
      const agent = startAgent({
        gateway: { host: '127.0.0.1', port: gateway.tunnelPort },
        key,
        plaintext: true,
        ipOverride: ip,
        allowLoopback,
        backoffMinMs: 50,
        backoffMaxMs: 500,
      });
      agents.set(row.id, agent);
      await agent.waitConnected(5000);
      await plane.registry.idle();
      return row.id;
    },
    async closeAgent(agentId) {
      await agents.get(agentId)!.close();
      agents.delete(agentId);
    },
    async close() {
      for (const a of agents.values()) await a.close();
      await gateway.close();
      await plane.close();
    },
  };
}

/** Listens on 127.0.0.1, port 0; resolves with the port. */
export async function listenLoopback(server: net.Server): Promise<number> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return (server.address() as AddressInfo).port;
}

/** Closes `server` if there is one (for `after`, when `before` may have stopped early). */
export function closeServer(server: net.Server | undefined): Promise<void> {
  return new Promise<void>((r) => (server ? server.close(() => r()) : r()));
}

/** A loopback port that refuses connections: bound, then closed, so nothing listens there. */
export async function refusingPort(): Promise<number> {
  const server = net.createServer();
  const port = await listenLoopback(server);
  await closeServer(server);
  return port;
}

/**
 * `curl` with `args` (`timeoutS` seconds a try), tried again up to 20 times 100 ms apart while it
 * fails: the gateway learns a new lease from PostgreSQL's notification, so allow it a moment.
 */
export async function curlRetrying(
  args: string[],
  timeoutS: number,
): Promise<Awaited<ReturnType<typeof curl>>> {
  let r = await curl(args, timeoutS);
  if (r.code === 0) return r;
  await waitFor(
    async () => {
      r = await curl(args, timeoutS);
      return r.code === 0;
    },
    { timeoutMs: 2000 + 20 * timeoutS * 1000, intervalMs: 100, what: `curl ${args.join(' ')}` },
  ).catch(() => {}); // the caller asserts on the last answer
  return r;
}
