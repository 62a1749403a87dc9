import { randomUUID } from 'node:crypto';
import fastifyCors from '@fastify/cors';
import fastifyRateLimit from '@fastify/rate-limit';
import fastifySwagger from '@fastify/swagger';
import { createPgRateCounter, type DbHandle } from '@pm/db';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type RouteOptions } from 'fastify';
import {
  jsonSchemaTransform,
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import { type Composition, compose, registerModuleRoutes } from './compose.ts';
import { createAuthHook, createTokenVerifier, type TokenVerifier } from './platform/auth.ts';
import { registerCompression } from './platform/compress.ts';
import { type FeatureSettings, type OidcConfig, withSettingDefaults } from './platform/config.ts';
import { handleFrameworkError, registerErrorHandling } from './platform/errors.ts';
import { registerInputRules } from './platform/input.ts';
import { createLogger } from './platform/logger.ts';
import { registerMetrics } from './platform/metrics.ts';
import type { AnyModule, ApiSurface } from './platform/module.ts';
import { sharedRateLimitStore } from './platform/rate-limit.ts';

export interface AppDeps {
  db: DbHandle;
  oidc: OidcConfig;
  corsOrigins?: string[] | undefined;
  logLevel?: string | undefined;
  /** Where log lines go (default stdout); tests capture them. */
  logStream?: { write(line: string): void } | undefined;
  /** How long a "not blocked" answer may be cached; default 1000 ms. */
  blockCacheMs?: number | undefined;
  /**
   * Reverse proxies in front (default 0: X-Forwarded-For is ignored, the peer is the client).
   * With N, `req.ip` (the per-IP rate limits' key) is the Nth X-Forwarded-For entry from the
   * right: entries further left are written by the client.
   */
  trustProxyHops?: number | undefined;
  /**
   * The services to serve; `start()` passes the composition it shares with the worker role.
   * Without it the app composes its own (sender-only jobs) and stops it on close; then
   * `db`, `logLevel` and `logStream` configure it.
   */
  composition?: Composition | undefined;
  /** Modules after the product's own, when the app composes its own (tests add throwaway routes). */
  extraModules?: readonly AnyModule[] | undefined;
  /** Feature settings when the app composes its own (payments, referral link). */
  settings?: FeatureSettings | undefined;
  /** Clock when the app composes its own; tests may move it. */
  now?: (() => number) | undefined;
  /** Which routes to serve: the market API (default) or the Ports API on its own listener. */
  surface?: ApiSurface | undefined;
  /** Replaces the JWKS-based verifier (only for tests of other modules). */
  verifier?: TokenVerifier | undefined;
  /** Sees every route as it is declared, plugins' too (the endpoint-contract test lists them). */
  onRoute?: ((route: RouteOptions) => void) | undefined;
}

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/**
 * Fastify's trust for N proxy hops: the peer and the N-1 addresses after it (right to left in
 * X-Forwarded-For) are proxies, so `req.ip` is the Nth entry from the right. A function, because
 * Fastify 5 ignores a numeric `trustProxy` (it fails closed) and `true` believes the leftmost,
 * client-written entry. The API's port must be reachable only through those proxies.
 */
function trustHops(hops: number): false | ((address: string, hop: number) => boolean) {
  if (!Number.isInteger(hops) || hops < 0)
    throw new Error(`trustProxyHops must be a whole number, got ${hops}`);
  return hops === 0 ? false : (_address, hop) => hop < hops;
}

/**
 * Builds the market API: zod validation and serialization, one error handler, request ids,
 * bearer-token auth on every non-public route, per-route rate limits, metrics, OpenAPI, and the
 * routes of every feature module. Not listening; `start()` listens, tests use `app.inject`.
 */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const composition =
    deps.composition ??
    compose({
      db: deps.db,
      log: createLogger({ level: deps.logLevel, stream: deps.logStream }),
      extraModules: deps.extraModules,
      settings: withSettingDefaults(deps.settings, deps.oidc.issuer),
      now: deps.now,
    });
  const app = Fastify({
    trustProxy: trustHops(deps.trustProxyHops ?? 0),
    // Close every socket on shutdown, including browsers' pre-opened ones that never sent a request.
    forceCloseConnections: true,
    // Bad percent-encodings and over-long path segments are answered in the API's error format.
    frameworkErrors: handleFrameworkError,
    // pino's Logger is a FastifyBaseLogger; typed as one so the app keeps Fastify's default instance type.
    loggerInstance: composition.platform.log as FastifyBaseLogger,
    // A caller's well-formed x-request-id is kept so logs can be joined across services.
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
  });
  if (deps.onRoute) app.addHook('onRoute', deps.onRoute);
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.decorateRequest('principal', null);
  registerErrorHandling(app);
  // Body parsing (strict UTF-8, empty means no body) and the input rules every route obeys.
  registerInputRules(app);
  // Answers of 1 KB or more go brotli or gzip compressed, by Accept-Encoding.
  registerCompression(app);

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
      info: { title: deps.surface === 'ports' ? 'Ports API' : 'Proxy market API', version: '1.0.0' },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
      security: [{ bearer: [] }],
    },
    transform: jsonSchemaTransform,
  });
  // One registry per composition: the Ports API's listener shares the market API's and adds no second /metrics.
  if (deps.surface !== 'ports') registerMetrics(app, composition.platform.metrics);
  // Routes opt in with `config.rateLimit`; counted per signed-in user (the auth hook has run by preHandler), else per IP,
  // in the shared `rate_limits` table so every API process counts one budget.
  const { db, now } = composition.platform;
  await app.register(fastifyRateLimit, {
    global: false,
    hook: 'preHandler',
    store: sharedRateLimitStore(createPgRateCounter(db, now), deps.surface ?? 'market', now),
    keyGenerator: (req) => req.principal?.userId ?? req.ip,
  });
  app.addHook(
    'onRequest',
    createAuthHook({
      verifier: deps.verifier ?? createTokenVerifier(deps.oidc),
      getAccess: (userId) => composition.services.accounts.getAccess(userId),
      blockCacheMs: deps.blockCacheMs ?? 1000,
      resolveApiKey: (key) => composition.services.apiKeys.resolve(key),
      confirmEmail: (userId) => composition.services.accounts.confirmEmail(userId),
    }),
  );
  // Which listener this app is: `registerEndpoint` serves each operation only on the API it declares.
  app.decorate('apiSurface', deps.surface ?? 'market');
  registerModuleRoutes(app.withTypeProvider<ZodTypeProvider>(), composition, deps.surface);
  if (!deps.composition) {
    // Caches cleared when any process commits a change they hold (the shop after a sale, the price
    // list); with a composition passed in, its owner (`start()`) starts and stops the listener.
    await composition.changes.start();
    app.addHook('onClose', () => composition.close());
  }
  return app;
}
