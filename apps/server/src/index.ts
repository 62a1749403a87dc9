import type { DbHandle } from '@pm/db';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.ts';
import { bindModuleJobs, compose } from './compose.ts';
import type { Services } from './modules/index.ts';
import { buildOpsApp } from './ops.ts';
import { type FeatureSettings, httpUrl, type ServerConfig, withSettingDefaults } from './platform/config.ts';
import { createLogger } from './platform/logger.ts';
import { buildWebApp } from './platform/web.ts';

export { type AppDeps, buildApp } from './app.ts';
export { type Composition, compose } from './compose.ts';
export type { AccountService, EnsureAccountInput } from './modules/accounts/accounts.service.ts';
export { type ChecksSettings, DEFAULT_CHECKS_SETTINGS } from './modules/checks/checks.config.ts';
export type { Services } from './modules/index.ts';
export type { CreateLeaseInput, LeaseService } from './modules/leases/leases.service.ts';
export type { LedgerService, MoveInput, MoveResult } from './modules/ledger/ledger.service.ts';
export type { PaymentsSettings } from './modules/payments/payments.config.ts';
export { DEFAULT_PAYMENTS_SETTINGS } from './modules/payments/payments.config.ts';
export {
  type AuthLevel,
  createTokenVerifier,
  getPrincipal,
  type Principal,
  type TokenVerifier,
} from './platform/auth.ts';
export type { FeatureSettings, OidcConfig, ServerConfig, ServerRole, WebConfig } from './platform/config.ts';

export interface ServerHandle {
  /** The API's URL; undefined without the http role. */
  apiUrl?: string;
  /** A worker-only process's listener (`/healthz`, `/readyz`, `/metrics`) on `host`/`port`. */
  opsUrl?: string;
  /** The Ports API's URL, when `config.ports` is set. */
  portsUrl?: string;
  webUrl?: string;
  /**
   * Queues a module's job by name now, with its cron payload unless one is given, as its schedule
   * would (the devnet starts the payments watcher at once instead of at the cron's next minute).
   */
  sendJob(name: string, payload?: unknown): Promise<void>;
  close(): Promise<void>;
}

/**
 * The services of every module over `db`, for scripts such as the launcher's demo seed. Jobs can
 * be sent but none run here. `settings` as the running API's where a rule depends on them (the
 * demo customer's webhook endpoint on the allow-listed inbox).
 */
export function createServices(db: DbHandle, logLevel = 'warn', settings?: FeatureSettings): Services {
  return compose({ db, log: createLogger({ level: logLevel }), settings }).services;
}

/**
 * Starts the server's roles (default both): the API listener (and the web listener when
 * `config.web` is set) and the job workers, sharing one set of services. The database must be
 * migrated.
 */
export async function start(config: ServerConfig): Promise<ServerHandle> {
  const roles = config.roles ?? ['http', 'worker'];
  const composition = compose({
    db: config.db,
    log: createLogger({ level: config.logLevel }),
    isWorker: roles.includes('worker'),
    jobPollingIntervalMs: config.jobPollingIntervalMs,
    settings: withSettingDefaults(config.settings, config.oidc.issuer),
  });
  const started: FastifyInstance[] = [];
  const handle: ServerHandle = {
    async sendJob(name, payload) {
      const job = composition.modules.flatMap((m) => m.jobs ?? []).find((j) => j.name === name);
      if (!job) throw new Error(`no job named ${name}`);
      await composition.jobs.send(job, payload ?? job.schedule?.payload ?? {});
    },
    async close() {
      for (const app of started.reverse()) await app.close();
      await composition.close();
    },
  };
  try {
    if (roles.includes('worker')) await composition.jobs.work(bindModuleJobs(composition));
    if (!roles.includes('http')) {
      // A worker-only process answers /healthz, /readyz and /metrics on its own small listener.
      const ops = await buildOpsApp(composition);
      started.push(ops);
      await ops.listen({ host: config.host, port: config.port });
      handle.opsUrl = httpUrl(config.host, (ops.server.address() as { port: number }).port);
      return handle;
    }
    // The API's caches are cleared when any process commits a change they hold.
    await composition.changes.start();
    const api = await buildApp({
      db: config.db,
      oidc: config.oidc,
      corsOrigins: config.corsOrigins,
      blockCacheMs: config.blockCacheMs,
      trustProxyHops: config.trustProxyHops,
      composition,
    });
    started.push(api);
    await api.listen({ host: config.host, port: config.port });
    handle.apiUrl = httpUrl(config.host, (api.server.address() as { port: number }).port);
    if (config.ports) {
      // The Ports API: the same services, only the modules' `portsRoutes`, on its own listener.
      const portsApi = await buildApp({
        db: config.db,
        oidc: config.oidc,
        corsOrigins: config.corsOrigins,
        blockCacheMs: config.blockCacheMs,
        trustProxyHops: config.trustProxyHops,
        composition,
        surface: 'ports',
      });
      started.push(portsApi);
      await portsApi.listen({ host: config.ports.host, port: config.ports.port });
      handle.portsUrl = httpUrl(config.ports.host, (portsApi.server.address() as { port: number }).port);
    }
    if (config.web) {
      const web = await buildWebApp({
        root: config.web.root,
        environments: config.web.environments,
        legal: config.web.legal,
        logLevel: config.logLevel,
      });
      started.push(web);
      await web.listen({ host: config.web.host, port: config.web.port });
      handle.webUrl = httpUrl(config.web.host, (web.server.address() as { port: number }).port);
    }
    return handle;
  } catch (e) {
    await handle.close().catch(() => {});
    throw e;
  }
}
