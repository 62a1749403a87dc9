/**
 * Test kit for the package ports' relay tests: raw TCP targets that send without end, send a
 * fixed amount and hold, or swallow what they get; a SOCKS client through a package port that
 * counts what it received; agents with synthetic places dialing a test node.
 */
import net from 'node:net';
import { type AgentHandle, startAgent } from '@pm/agent';
import type { DbHandle } from '@pm/db';
import { socksConnect } from '../protocol/client.ts';
import { insertAgent } from './network.testkit.ts';
import type { TestNode } from './node.testkit.ts';

export interface RawTarget {
  port: number;
  /** Bytes the sink received, all connections together. */
  received(): number;
  close(): Promise<void>;
}

const CHUNK = Buffer.alloc(64 * 1024, 0x5a);

/**
 * A loopback TCP target. `source`: writes to every connection without end (as fast as the
 * reader takes it); `hold`: writes `bytes` and keeps the connection open; `sink`: reads and counts.
 */
export async function startRawTarget(mode: 'source' | 'sink' | { hold: number }): Promise<RawTarget> {
  let received = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => {});
    s.on('data', (d: Buffer) => {
      received += d.length;
    });
    if (mode === 'source') {
      const pump = () => {
        while (!s.destroyed && s.write(CHUNK));
      };
      s.on('drain', pump);
      pump();
    } else if (mode !== 'sink') {
      s.write(Buffer.alloc(mode.hold, 0x33));
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as net.AddressInfo).port,
    received: () => received,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** A connection through a package port: what it received, and a promise of its end (reset or close). */
export interface Pull {
  socket: net.Socket;
  received(): number;
  /** Resolves when the connection is gone, with whether it ended in an error (a reset). */
  ended: Promise<{ reset: boolean }>;
}

/** Opens a SOCKS connection through `port` (login `user`) to the loopback `targetPort` and counts what arrives. */
export async function pullThrough(
  port: number,
  user: string,
  pwd: string,
  targetPort: number,
): Promise<Pull> {
  const socket = await socksConnect({
    proxyHost: '127.0.0.1',
    proxyPort: port,
    user,
    pwd,
    host: '127.0.0.1',
    port: targetPort,
  });
  let received = 0;
  let reset = false;
  socket.on('data', (d: Buffer) => {
    received += d.length;
  });
  socket.on('error', () => {
    reset = true;
  });
  const ended = new Promise<{ reset: boolean }>((resolve) => socket.once('close', () => resolve({ reset })));
  return { socket, received: () => received, ended };
}

/** Registers an agent for `node` and starts it with a synthetic public address (its place comes from the node's geo). */
export async function connectAgent(
  db: DbHandle,
  node: TestNode,
  tls: { cert: string },
  ip: string,
  conn: 'wifi' | 'cell',
): Promise<{ id: string; agent: AgentHandle }> {
  const a = await insertAgent(db, null);
  const agent = startAgent({
    gateway: { host: '127.0.0.1', port: node.gateway.tunnelPort },
    key: a.key,
    tls: { ca: tls.cert },
    allowLoopback: true,
    ipOverride: ip,
    conn,
    dev: 'android',
    backoffMinMs: 50,
    backoffMaxMs: 500,
  });
  await agent.waitConnected(5000);
  await node.plane.registry.idle();
  return { id: a.id, agent };
}

/** The package's counters as the meter wrote them. */
export async function packageCounters(
  db: DbHandle,
  id: string,
): Promise<{
  up: number;
  down: number;
  requests: number;
  errors: number;
  authFails: number;
  status: string;
}> {
  const [r] = await db.query<Record<string, string>>(
    `SELECT upload, download, requests, errors, auth_fails, status FROM port_packages WHERE id = $1`,
    [id],
  );
  return {
    up: Number(r?.upload),
    down: Number(r?.download),
    requests: Number(r?.requests),
    errors: Number(r?.errors),
    authFails: Number(r?.auth_fails),
    status: String(r?.status),
  };
}
