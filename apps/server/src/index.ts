import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.ts';
import { httpUrl, type ServerConfig } from './platform/config.ts';
import { buildWebApp } from './platform/web.ts';

export { type AppDeps, buildApp, type CoreServices, type RouteModule } from './app.ts';
export {
  type AccountService,
  createAccountService,
  type EnsureAccountInput,
  ensureAccount,
} from './modules/accounts/accounts.service.ts';
export {
  createLedgerService,
  type LedgerService,
  type MoveInput,
  type MoveResult,
} from './modules/ledger/ledger.service.ts';
export {
  type AuthLevel,
  createTokenVerifier,
  getPrincipal,
  type Principal,
  type TokenVerifier,
} from './platform/auth.ts';
export type { OidcConfig, ServerConfig, WebConfig } from './platform/config.ts';

export interface ServerHandle {
  apiUrl: string;
  webUrl?: string;
  close(): Promise<void>;
}

/** Starts the API listener (and the web listener when `config.web` is set). The database must be migrated. */
export async function start(config: ServerConfig): Promise<ServerHandle> {
  const api = await buildApp({
    db: config.db,
    oidc: config.oidc,
    corsOrigins: config.corsOrigins,
    logLevel: config.logLevel,
    blockCacheMs: config.blockCacheMs,
  });
  const started: FastifyInstance[] = [];
  try {
    await api.listen({ host: config.host, port: config.port });
    started.push(api);
    const apiPort = (api.server.address() as { port: number }).port;
    const handle: ServerHandle = {
      apiUrl: httpUrl(config.host, apiPort),
      async close() {
        for (const app of started.reverse()) await app.close();
      },
    };
    if (config.web) {
      const web = await buildWebApp({
        root: config.web.root,
        environments: config.web.environments,
        logLevel: config.logLevel,
      });
      await web.listen({ host: config.web.host, port: config.web.port });
      started.push(web);
      handle.webUrl = httpUrl(config.web.host, (web.server.address() as { port: number }).port);
    }
    return handle;
  } catch (e) {
    for (const app of started.reverse()) await app.close().catch(() => {});
    if (!started.includes(api)) await api.close().catch(() => {});
    throw e;
  }
}
