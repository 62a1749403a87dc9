/**
 * Gateway node process. Production: a node on PostgreSQL, configured by the environment
 * (docs/gateway.md lists the variables), with a TLS 1.3 agent tunnel it refuses to start without.
 * `--standalone [--plaintext]`: the benchmark's gateway, no database (`standalone.ts`).
 * Settings are checked before anything starts (`readNodeEnv`: every problem named by its
 * variable, exit 1); logs are pino JSON lines on stdout (`LOG_LEVEL`), as the other apps'.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import type { GeoLookup } from './geo/geo.ts';
import { readNodeEnv } from './node-env.ts';
import { ephemeralWarning, readEphemeralRange } from './port-plan.ts';
import { startStandalone } from './standalone.ts';

const { values } = parseArgs({
  options: {
    standalone: { type: 'boolean', default: false },
    plaintext: { type: 'boolean', default: false },
    host: { type: 'string', default: '127.0.0.1' },
    'socks-port': { type: 'string', default: '0' },
    'http-port': { type: 'string', default: '0' },
    'auth-port': { type: 'string', default: '0' },
    'tunnel-port': { type: 'string', default: '0' },
    'metrics-port': { type: 'string' },
  },
});

/** Stops with a message naming what to fix. */
function refuse(message: string): never {
  console.error(message);
  process.exit(1);
}

/**
 * The gateway's messages through pino, as the other apps log: JSON lines on stdout with
 * `app: "gateway"`; a message carrying an error is a warning. LOG_LEVEL sets the level. The
 * standalone gateway logs to stderr: its stdout is the one JSON line the load generator reads.
 */
function createLog(level: string, base: Record<string, unknown>, fd: 1 | 2 = 1) {
  const logger = pino({ level, base: { app: 'gateway', ...base } }, pino.destination(fd));
  return (msg: string, fields?: Record<string, unknown>) => {
    if (fields && ('error' in fields || 'err' in fields)) logger.warn(fields, msg);
    else logger.info(fields ?? {}, msg);
  };
}

/** The IP database agents' addresses are located with: `dbip` (DB-IP lite, about 130 MB) or `off`. */
async function openGeo(kind: 'dbip' | 'off'): Promise<GeoLookup | undefined> {
  if (kind === 'off') return undefined;
  const { openMmdbGeo } = await import('./geo/mmdb.ts');
  return openMmdbGeo();
}

/** Starts a production node from the environment (checked first: every problem named); returns how to stop it. */
async function startFromEnv(): Promise<() => Promise<void>> {
  const read = readNodeEnv(process.env);
  if (!read.ok) refuse(`gateway: refusing to start:\n  - ${read.problems.join('\n  - ')}`);
  const env = read.value;
  const log = createLog(env.logLevel, { node: env.nodeId });
  const ephemeral = ephemeralWarning(env, readEphemeralRange());
  if (ephemeral) log('port settings', { error: ephemeral });
  let tls: { cert: Buffer; key: Buffer };
  try {
    tls = { cert: readFileSync(env.tlsCertFile), key: readFileSync(env.tlsKeyFile) };
  } catch (e) {
    refuse(`gateway: refusing to start:\n  - GATEWAY_TLS_CERT/GATEWAY_TLS_KEY: ${(e as Error).message}`);
  }
  const geo = await openGeo(env.geo);
  const { createDb } = await import('@pm/db');
  const { startGatewayNode } = await import('./node.ts');
  const db = await createDb({ databaseUrl: env.databaseUrl });
  const node = await startGatewayNode({
    db,
    nodeId: env.nodeId,
    node: {
      publicHost: env.publicHost,
      publicIp: env.publicIp,
      socksBasePort: env.socksBasePort,
      authPortMin: env.authPortMin,
      authPortMax: env.authPortMax,
      packagePortMin: env.packagePortMin,
      packagePortMax: env.packagePortMax,
      packageHttpOffset: env.httpPortOffset,
    },
    packageSparePorts: env.packageSparePorts,
    host: env.host,
    tunnelPort: env.tunnelPort,
    tls,
    metricsPort: env.metricsPort,
    metricsHost: env.metricsHost,
    metricsToken: env.metricsToken,
    geo,
    presence: { probeUrl: env.probeUrl, speedUrl: env.speedUrl },
    probeRequests: { echoUrl: env.echoUrl },
    log,
  });
  const { gateway } = node;
  log('gateway started', {
    nodeId: env.nodeId,
    socksPorts: gateway.socksPorts,
    tunnelPort: gateway.tunnelPort,
    packagePorts: `${env.packagePortMin}-${env.packagePortMax}`,
    httpPortOffset: env.httpPortOffset,
    sparePorts: node.spares?.held().length ?? 0,
  });
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
        httpPort: Number(values['http-port']),
        authPort: Number(values['auth-port']),
        tunnelPort: Number(values['tunnel-port']),
        metricsPort: values['metrics-port'] ? Number(values['metrics-port']) : undefined,
        plaintext: values.plaintext,
        log: createLog(process.env.LOG_LEVEL?.trim() || 'info', { node: 'standalone' }, 2),
      })
    ).stop
  : await startFromEnv();

const shutdown = () => {
  void stop().finally(() => process.exit(0));
};
process.once('SIGINT', shutdown);
process.once('SIGTERM', shutdown);
