/**
 * Gateway node process. Production: a node on PostgreSQL, configured by the environment
 * (docs/gateway.md lists the variables), with a TLS 1.3 agent tunnel it refuses to start without.
 * `--standalone [--plaintext]`: the benchmark's gateway, no database (`standalone.ts`).
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { GeoLookup } from './geo/geo.ts';
import { readNodeExposure } from './node-env.ts';
import { startStandalone } from './standalone.ts';

const { values } = parseArgs({
  options: {
    standalone: { type: 'boolean', default: false },
    plaintext: { type: 'boolean', default: false },
    host: { type: 'string', default: '127.0.0.1' },
    'socks-port': { type: 'string', default: '0' },
    'auth-port': { type: 'string', default: '0' },
    'tunnel-port': { type: 'string', default: '0' },
    'metrics-port': { type: 'string' },
  },
});

const log = (msg: string, fields?: Record<string, unknown>) =>
  console.error(JSON.stringify({ time: new Date().toISOString(), msg, ...fields }));

/** Stops with a message naming what to fix. */
function refuse(message: string): never {
  console.error(message);
  process.exit(1);
}

/** A port from the environment (0-65535), or `fallback` when unset. */
function envPort(name: string, fallback?: number): number | undefined {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    refuse(`${name} must be a port (0-65535), got "${raw}"`);
  return port;
}

/** The IP database agents' addresses are located with: `dbip` (DB-IP lite, about 130 MB) or `off`. */
async function openGeo(kind: string): Promise<GeoLookup | undefined> {
  if (kind === 'off') return undefined;
  if (kind !== 'dbip') refuse(`GATEWAY_GEO must be dbip or off, got "${kind}"`);
  const { openMmdbGeo } = await import('./geo/mmdb.ts');
  return openMmdbGeo();
}

/** Starts a production node from the environment; returns how to stop it. */
async function startFromEnv(): Promise<() => Promise<void>> {
  const env = process.env;
  if (!env.GATEWAY_TLS_CERT || !env.GATEWAY_TLS_KEY) {
    // Agent keys and every customer's traffic cross the tunnel: it is TLS or nothing.
    refuse(
      "GATEWAY_TLS_CERT and GATEWAY_TLS_KEY are required: PEM files of the certificate and key of the agents' TLS tunnel (plaintext only in the devnet and --standalone --plaintext)",
    );
  }
  if (!env.DATABASE_URL) refuse('DATABASE_URL is required (or use --standalone)');
  const exposure = readNodeExposure(env);
  if (!exposure.ok) refuse(`gateway: refusing to start:\n  - ${exposure.problems.join('\n  - ')}`);
  const { publicIp, publicHost, metricsHost, metricsToken } = exposure.value;
  const tls = { cert: readFileSync(env.GATEWAY_TLS_CERT), key: readFileSync(env.GATEWAY_TLS_KEY) };
  const socksBasePort = envPort('GATEWAY_SOCKS_BASE_PORT', 0)!;
  const tunnelPort = envPort('GATEWAY_TUNNEL_PORT', 7000)!;
  const metricsPort = envPort('GATEWAY_METRICS_PORT');
  const geo = await openGeo(env.GATEWAY_GEO ?? 'dbip');
  const { createDb } = await import('@pm/db');
  const { startGatewayNode } = await import('./node.ts');
  const db = await createDb({ databaseUrl: env.DATABASE_URL });
  const nodeId = env.GATEWAY_NODE_ID ?? 'gw-1';
  const node = await startGatewayNode({
    db,
    nodeId,
    node: {
      publicHost,
      publicIp,
      socksBasePort,
    },
    host: env.GATEWAY_HOST ?? '0.0.0.0',
    tunnelPort,
    tls,
    metricsPort,
    metricsHost,
    metricsToken,
    geo,
    presence: {
      probeUrl: env.GATEWAY_PROBE_URL ?? 'http://checkip.amazonaws.com/',
      speedUrl: env.GATEWAY_SPEED_URL ?? 'http://speedtest.tele2.net/10MB.zip',
    },
    probeRequests: { echoUrl: env.GATEWAY_ECHO_URL ?? 'http://checkip.amazonaws.com/' },
    log,
  });
  const { gateway } = node;
  log('gateway started', { nodeId, socksPorts: gateway.socksPorts, tunnelPort: gateway.tunnelPort });
  return async () => {
    await node.close();
    await db.close();
  };
}

const stop = values.standalone
  ? (
      await startStandalone({
        host: values.host,
        socksPort: Number(values['socks-port']),
        authPort: Number(values['auth-port']),
        tunnelPort: Number(values['tunnel-port']),
        metricsPort: values['metrics-port'] ? Number(values['metrics-port']) : undefined,
        plaintext: values.plaintext,
        log,
      })
    ).stop
  : await startFromEnv();

const shutdown = () => {
  void stop().finally(() => process.exit(0));
};
process.once('SIGINT', shutdown);
process.once('SIGTERM', shutdown);
