import { randomUUID } from 'node:crypto';
import fastifyCors from '@fastify/cors';
import fastifySwagger from '@fastify/swagger';
import type { DbHandle } from '@pm/db';
import Fastify, { type FastifyInstance } from 'fastify';
import { jsonSchemaTransform, serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { register as registerAccounts } from './modules/accounts/accounts.routes.ts';
import { type AccountService, createAccountService } from './modules/accounts/accounts.service.ts';
import { authportModule } from './modules/authport/authport.module.ts';
import { register as registerHealth } from './modules/health/health.routes.ts';
import { register as registerLedger } from './modules/ledger/ledger.routes.ts';
import { createLedgerService, type LedgerService } from './modules/ledger/ledger.service.ts';
import { createAuthHook, createTokenVerifier, type TokenVerifier } from './platform/auth.ts';
import type { OidcConfig } from './platform/config.ts';
import { handleFrameworkError, registerErrorHandling } from './platform/errors.ts';
import { registerInputRules } from './platform/input.ts';
import { registerMetrics } from './platform/metrics.ts';

/** The services route modules may use (features talk through services, never repositories). */
export interface CoreServices {
  db: DbHandle;
  ledger: LedgerService;
  accounts: AccountService;
}

/** A feature's routes, registered after the core ones, e.g. `(app, core) => registerLeases(app, { ... })`. */
export type RouteModule = (app: FastifyInstance, core: CoreServices) => void | Promise<void>;

export interface AppDeps {
  db: DbHandle;
  oidc: OidcConfig;
  corsOrigins?: string[] | undefined;
  logLevel?: string | undefined;
  /** Where log lines go (default stdout); tests capture them. */
  logStream?: { write(line: string): void } | undefined;
  /** How long a "not blocked" answer may be cached; default 1000 ms. */
  blockCacheMs?: number | undefined;
  /** Feature route modules (leases, authport, ...). */
  modules?: RouteModule[] | undefined;
  /** Replaces the JWKS-based verifier (only for tests of other modules). */
  verifier?: TokenVerifier | undefined;
}

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/**
 * Builds the market API: zod validation and serialization, one error handler, request ids,
 * bearer-token auth on every non-public route, metrics, OpenAPI, and the route modules.
 * Not listening; `start()` listens, tests use `app.inject`.
 */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    // Close every socket on shutdown, including browsers' pre-opened ones that never sent a request.
    forceCloseConnections: true,
    // Bad percent-encodings and over-long path segments are answered in the API's error format.
    frameworkErrors: handleFrameworkError,
    logger: {
      level: deps.logLevel ?? 'info',
      redact: ['req.headers.authorization'],
      ...(deps.logStream ? { stream: deps.logStream } : {}),
    },
    // A caller's well-formed x-request-id is kept so logs can be joined across services.
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.decorateRequest('principal', null);
  registerErrorHandling(app);
  // Body parsing (strict UTF-8, empty means no body) and the input rules every route obeys.
  registerInputRules(app);

  app.addHook('onRequest', async (req, reply) => {
    reply.header('x-request-id', req.id);
  });
  await app.register(fastifyCors, {
    origin: deps.corsOrigins ?? [],
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowedHeaders: ['Authorization', 'Content-Type', 'Idempotency-Key', 'X-Request-Id'],
    exposedHeaders: ['X-Request-Id'],
    maxAge: 600,
  });
  await app.register(fastifySwagger, {
    openapi: {
      info: { title: 'Proxy market API', version: '1.0.0' },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
      security: [{ bearer: [] }],
    },
    transform: jsonSchemaTransform,
  });
  const { registry } = registerMetrics(app);

  const ledger = createLedgerService(deps.db);
  const accounts = createAccountService(deps.db, ledger);
  app.addHook(
    'onRequest',
    createAuthHook({
      verifier: deps.verifier ?? createTokenVerifier(deps.oidc),
      isBlocked: (userId) => accounts.isBlocked(userId),
      blockCacheMs: deps.blockCacheMs ?? 1000,
    }),
  );

  registerHealth(app, { db: deps.db, registry });
  registerAccounts(app, { accounts });
  registerLedger(app, { ledger });
  const core: CoreServices = { db: deps.db, ledger, accounts };
  for (const mod of [authportModule, ...(deps.modules ?? [])]) await mod(app, core);
  return app;
}
