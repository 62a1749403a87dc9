import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { freePort } from './free-port.ts';
import { type GatewayHandle, startGateway } from './gateway.ts';
import type { GeoLookup } from './geo/geo.ts';
import { createMemoryDirectory, createMemoryMeter, createMemoryRegistry } from './policy/memory.ts';
import { makeSelfSignedCert } from './tunnel/self-signed.ts';

const { values } = parseArgs({
  options: {
    standalone: { type: 'boolean', default: false },
    /** Standalone only: the agent tunnel without TLS, on loopback (the benchmark's TLS-cost comparison). */
    plaintext: { type: 'boolean', default: false },
    host: { type: 'string', default: '127.0.0.1' },
    'socks-port': { type: 'string', default: '0' },
    /** Standalone: the bench lease's no-auth port, open to 127.0.0.1 (0: a free port). */
    'auth-port': { type: 'string', default: '0' },
    'tunnel-port': { type: 'string', default: '0' },
    'metrics-port': { type: 'string' },
  },
});

const log = (msg: string, fields?: Record<string, unknown>) =>
  console.error(JSON.stringify({ time: new Date().toISOString(), msg, ...fields }));

let cleanup: () => Promise<void> = async () => {};
let gateway: GatewayHandle;

if (values.standalone) {
  let tls: { cert: string; key: string } | undefined;
  let caFile: string | undefined;
  const dir = mkdtempSync(join(tmpdir(), 'gateway-standalone-'));
  if (!values.plaintext) {
    // A throwaway self-signed certificate for this run; the agent trusts it with --ca.
    tls = makeSelfSignedCert();
    writeFileSync(join(dir, 'cert.pem'), tls.cert);
    caFile = join(dir, 'cert.pem');
  }
  console.error(
    `standalone benchmark gateway: in-memory bench lease, ${tls ? 'TLS 1.3 tunnel with a throwaway self-signed certificate' : 'PLAINTEXT tunnel on loopback'}; not for production`,
  );
  const user = 'bench';
  const pwd = randomBytes(9).toString('base64url');
  const agentKey = randomBytes(24).toString('base64url');
  const socksPort = Number(values['socks-port']);
  const authPort = Number(values['auth-port']) || (await freePort(values.host));
  gateway = await startGateway({
    nodeId: 'standalone',
    host: values.host,
    tunnelPort: Number(values['tunnel-port']),
    socksPorts: [socksPort],
    tls,
    plaintextTunnel: !tls,
    directory: createMemoryDirectory([
      {
        leaseId: 'bench-lease',
        agentId: 'bench-agent',
        user,
        pwd,
        // The same lease without a password on its no-auth port, from this machine only.
        whitelist: ['127.0.0.1'],
        authPort,
        untilMs: Date.now() + 365 * 86_400_000,
      },
    ]),
    meter: createMemoryMeter(),
    registry: createMemoryRegistry({ [agentKey]: 'bench-agent' }),
    handshakeTimeoutMs: 10_000,
    maxStreamsPerAgent: 40_000,
    metricsPort: values['metrics-port'] ? Number(values['metrics-port']) : undefined,
    log,
  });
  console.log(
    JSON.stringify({
      socksPorts: gateway.socksPorts,
      authPort,
      tunnelPort: gateway.tunnelPort,
      user,
      pwd,
      agentKey,
      caFile,
      tunnel: tls ? 'tls' : 'plaintext',
    }),
  );
  cleanup = async () => rmSync(dir, { recursive: true, force: true });
} else {
  const env = process.env;
  if (!env.GATEWAY_TLS_CERT || !env.GATEWAY_TLS_KEY) {
    // Agent keys and every customer's traffic cross the tunnel: it is TLS or nothing.
    console.error(
      "GATEWAY_TLS_CERT and GATEWAY_TLS_KEY are required: PEM files of the certificate and key of the agents' TLS tunnel (plaintext only in the devnet and --standalone --plaintext)",
    );
    process.exit(1);
  }
  const tls = { cert: readFileSync(env.GATEWAY_TLS_CERT), key: readFileSync(env.GATEWAY_TLS_KEY) };
  if (!env.DATABASE_URL) throw new Error('DATABASE_URL is required (or use --standalone)');
  const { createDb } = await import('@pm/db');
  const { startControlPlane } = await import('./store/control-plane.ts');
  const { startProbeRequestWorker } = await import('./presence/probe-requests.ts');
  const db = await createDb({ databaseUrl: env.DATABASE_URL });
  const nodeId = env.GATEWAY_NODE_ID ?? 'gw-1';
  const base = Number(env.GATEWAY_SOCKS_BASE_PORT ?? 0);
  const geo = await openGeo(env.GATEWAY_GEO ?? 'dbip');
  const plane = await startControlPlane({
    db,
    nodeId,
    geo,
    node: {
      publicHost: env.GATEWAY_PUBLIC_HOST ?? '127.0.0.1',
      publicIp: env.GATEWAY_PUBLIC_IP ?? '127.0.0.1',
      socksBasePort: base,
    },
    onError: (err) => log('control plane error', { error: String(err) }),
  });
  gateway = await startGateway({
    nodeId,
    host: env.GATEWAY_HOST ?? '0.0.0.0',
    tunnelPort: Number(env.GATEWAY_TUNNEL_PORT ?? 7000),
    socksPorts: base ? [base + 2080, base + 3080, base + 4080, base + 5080] : [0, 0, 0, 0],
    tls,
    directory: plane.directory,
    meter: plane.meter,
    registry: plane.registry,
    handshakeTimeoutMs: 10_000,
    metricsPort: env.GATEWAY_METRICS_PORT ? Number(env.GATEWAY_METRICS_PORT) : undefined,
    trustAgentIp: env.GATEWAY_TRUST_AGENT_IP === '1',
    log,
  });
  // Purchase probes the market API asks for through PostgreSQL (probe_requests).
  const probes = startProbeRequestWorker({
    db,
    nodeId,
    dialer: gateway,
    echoUrl: env.GATEWAY_ECHO_URL ?? 'http://checkip.amazonaws.com/',
    geo,
    onError: (err) => log('probe request error', { error: String(err) }),
  });
  await probes.ready;
  log('gateway started', { nodeId, socksPorts: gateway.socksPorts, tunnelPort: gateway.tunnelPort });
  cleanup = async () => {
    await probes.close();
    await plane.close();
    await db.close();
  };
}

/** The IP database agents' addresses are located with: `dbip` (DB-IP lite, about 130 MB) or `off`. */
async function openGeo(kind: string): Promise<GeoLookup | undefined> {
  if (kind === 'off') return undefined;
  if (kind !== 'dbip') throw new Error(`GATEWAY_GEO must be dbip or off, got ${kind}`);
  const { openMmdbGeo } = await import('./geo/mmdb.ts');
  return openMmdbGeo();
}

const shutdown = () => {
  void gateway
    .close()
    .then(cleanup)
    .finally(() => process.exit(0));
};
process.once('SIGINT', shutdown);
process.once('SIGTERM', shutdown);
