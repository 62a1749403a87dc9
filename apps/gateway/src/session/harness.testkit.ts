/**
 * Test kit for data-path tests: loopback HTTP targets, a gateway with in-memory seam
 * implementations, agents, a self-signed certificate made at run time, and a curl wrapper.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import http from 'node:http';
import type net from 'node:net';
import { type AgentConfig, type AgentHandle, startAgent } from '@pm/agent';
import { type GatewayConfig, type GatewayHandle, startGateway } from '../gateway.ts';
import {
  createMemoryDirectory,
  createMemoryMeter,
  createMemoryRegistry,
  type MemoryDirectory,
  type MemoryMeter,
  type MemoryRegistry,
} from '../policy/memory.ts';
import type { LeaseEntry } from '../policy/types.ts';
import { makeSelfSignedCert } from '../tunnel/self-signed.ts';

/** Deterministic body of `n` bytes (so transfers can be checked byte for byte). */
export function patternBytes(n: number): Buffer {
  const b = Buffer.allocUnsafe(n);
  for (let i = 0; i < n; i++) b[i] = (i * 31 + 7) & 255;
  return b;
}

/**
 * Asserts that `actual` is exactly `patternBytes(n)`, naming the length or the first differing
 * offset. (`deepEqual` on large buffers runs a diff that can take minutes when they differ.)
 */
export function assertPatternBytes(actual: Buffer, n: number): void {
  const expected = patternBytes(n);
  assert.equal(actual.length, n, `received ${actual.length} bytes, expected ${n}`);
  const at = actual.findIndex((byte, i) => byte !== expected[i]);
  assert.equal(at, -1, `bytes differ from offset ${at}`);
}

export interface HttpTarget {
  port: number;
  /** Port of the same server on ::1 (undefined when IPv6 loopback is unavailable). */
  port6: number | undefined;
  close(): Promise<void>;
}

/**
 * Loopback HTTP target: GET /bytes/N answers N pattern bytes; GET /slow/N sends N bytes slowly
 * (64 KiB every 20 ms); POST /echo echoes the body; anything else answers "hello".
 */
export async function startHttpTarget(): Promise<HttpTarget> {
  const handler: http.RequestListener = (req, res) => {
    const m = /^\/(bytes|slow)\/(\d+)$/.exec(req.url ?? '');
    if (m) {
      const body = patternBytes(Number(m[2]));
      res.writeHead(200, { 'content-length': body.length, 'content-type': 'application/octet-stream' });
      if (m[1] === 'bytes') return res.end(body);
      let off = 0;
      const tick = () => {
        if (res.destroyed) return;
        const part = body.subarray(off, off + 65536);
        off += part.length;
        if (off >= body.length) res.end(part);
        else {
          res.write(part);
          setTimeout(tick, 20);
        }
      };
      return tick();
    }
    if (req.url === '/echo') {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      req.pipe(res);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('hello');
  };
  const v4 = http.createServer(handler);
  const v6 = http.createServer(handler);
  await new Promise<void>((r) => v4.listen(0, '127.0.0.1', r));
  const port6 = await new Promise<number | undefined>((resolve) => {
    v6.once('error', () => resolve(undefined));
    // Same port on ::1 when possible, so a name resolving to either loopback reaches it.
    v6.listen((v4.address() as net.AddressInfo).port, '::1', () =>
      resolve((v6.address() as net.AddressInfo).port),
    );
  });
  return {
    port: (v4.address() as net.AddressInfo).port,
    port6,
    close: async () => {
      for (const s of [v4, v6]) {
        s.closeAllConnections();
        if (s.listening) await new Promise<void>((r) => s.close(() => r()));
      }
    },
  };
}

let leaseSeq = 0;
/** A lease entry for tests (credentials unique per call). */
export function buildLease(agentId: string, overrides: Partial<LeaseEntry> = {}): LeaseEntry {
  leaseSeq++;
  return {
    leaseId: `lease-${leaseSeq}`,
    agentId,
    user: `user${leaseSeq}`,
    pwd: `pw-${leaseSeq}-${Math.random().toString(36).slice(2)}`,
    whitelist: [],
    authPort: null,
    untilMs: Date.now() + 3_600_000,
    ...overrides,
  };
}

export interface TestNetwork {
  gateway: GatewayHandle;
  directory: MemoryDirectory;
  meter: MemoryMeter;
  registry: MemoryRegistry;
  /** The tunnel's throwaway certificate; undefined for a plaintext loopback tunnel (`tls: false`). */
  tls: { cert: string; key: string } | undefined;
  /** Starts an agent with key `key` against this gateway (loopback targets allowed unless told). */
  addAgent(key: string, overrides?: Partial<AgentConfig>): Promise<AgentHandle>;
  /** Restarts the gateway on the same ports with the same seam objects. */
  restartGateway(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Gateway on 127.0.0.1 with in-memory directory/meter/registry; `keys` maps agent key -> agent id.
 * The tunnel is TLS with a throwaway certificate unless `tls: false` (plaintext on loopback).
 */
export async function startTestNetwork(opts: {
  keys: Record<string, string>;
  leases?: LeaseEntry[];
  tls?: boolean;
  gateway?: Partial<GatewayConfig>;
  /** The directory's clock: a test moves it to pass a lease's end instead of waiting for it. */
  now?: () => number;
}): Promise<TestNetwork> {
  const directory = createMemoryDirectory(opts.leases ?? [], opts.now);
  const meter = createMemoryMeter();
  const registry = createMemoryRegistry(opts.keys);
  const tls = opts.tls === false ? undefined : makeSelfSignedCert();
  const baseConfig: GatewayConfig = {
    nodeId: 'test-node',
    host: '127.0.0.1',
    tunnelPort: 0,
    socksPorts: [0, 0, 0, 0],
    tls,
    plaintextTunnel: !tls,
    directory,
    meter,
    registry,
    handshakeTimeoutMs: 5000,
    pingIntervalMs: 1000,
    idleTimeoutMs: 5000,
    ...opts.gateway,
  };
  const agents: AgentHandle[] = [];
  const net: TestNetwork = {
    gateway: await startGateway(baseConfig),
    directory,
    meter,
    registry,
    tls,
    async addAgent(key, overrides = {}) {
      const agent = startAgent({
        gateway: { host: '127.0.0.1', port: net.gateway.tunnelPort },
        key,
        tls: tls ? { ca: tls.cert } : undefined,
        plaintext: !tls,
        allowLoopback: true,
        restrictTo: ['127.0.0.0/8', '::1'],
        backoffMinMs: 50,
        backoffMaxMs: 500,
        pingIntervalMs: 1000,
        idleTimeoutMs: 5000,
        ...overrides,
      });
      agents.push(agent);
      await agent.waitConnected(5000);
      return agent;
    },
    async restartGateway() {
      const { tunnelPort, socksPorts } = net.gateway;
      await net.gateway.close();
      net.gateway = await startGateway({ ...baseConfig, tunnelPort, socksPorts });
    },
    async close() {
      await Promise.all(agents.map((a) => a.close()));
      await net.gateway.close();
    },
  };
  return net;
}

export interface CurlResult {
  code: number;
  stdout: Buffer;
  stderr: string;
}

/** Runs curl (bounded by `--max-time`); never rejects. */
export function curl(args: string[], timeoutSec = 10): Promise<CurlResult> {
  return new Promise((resolve) => {
    execFile(
      'curl',
      ['-sS', '--max-time', String(timeoutSec), ...args],
      { encoding: 'buffer', maxBuffer: 64 * 1024 * 1024, timeout: (timeoutSec + 5) * 1000 },
      (err, stdout, stderr) => {
        const code = err ? Number((err as { code?: unknown }).code ?? 1) || 1 : 0;
        resolve({ code, stdout, stderr: stderr.toString('utf8') });
      },
    );
  });
}
