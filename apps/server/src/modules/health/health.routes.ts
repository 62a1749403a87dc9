import { timingSafeEqual } from 'node:crypto';
import { AppError, ERROR_STATUS_MEANING, ZErrorBody, ZHealthResponse } from '@pm/contracts';
import type { Registry } from 'prom-client';
import type { ApiApp } from '../../platform/module.ts';
import type { HealthService } from './health.service.ts';

const ok = { status: 'ok' as const };

/**
 * Refuses a `/metrics` request without the operator's bearer token: 401 without a bearer token, 403
 * with another one, or when no token is configured (metrics are never public).
 */
export function checkMetricsToken(authorization: string | undefined, token: string | undefined): void {
  const given = /^Bearer (.+)$/i.exec(authorization ?? '')?.[1];
  if (!given)
    throw new AppError('UNAUTHENTICATED', { userMessage: '/metrics needs the metrics bearer token' });
  const a = Buffer.from(given);
  const b = Buffer.from(token ?? '');
  if (!token || a.length !== b.length || !timingSafeEqual(a, b)) {
    throw new AppError('FORBIDDEN', {
      userMessage: token ? 'Wrong metrics token' : 'Metrics are off: the operator sets METRICS_TOKEN',
    });
  }
}

/**
 * Liveness, readiness (database reachable) and the OpenAPI document, public; Prometheus metrics
 * behind the operator's bearer token (`settings.metricsToken`, METRICS_TOKEN).
 */
export function registerHealthRoutes(
  app: ApiApp,
  deps: { health: Pick<HealthService, 'checkReady'> },
  platform: { metrics: Registry; settings: { metricsToken?: string | undefined } },
): void {
  registerProbeRoutes(app, deps, platform);
  registerDocumentRoute(app);
}

/**
 * `GET /openapi.json`, the listener's own OpenAPI document generated from its routes: the market
 * API's, and on the Ports API's listener (rules §7: its own base address) the Ports API's.
 */
export function registerDocumentRoute(app: ApiApp): void {
  app.get('/openapi.json', { config: { auth: 'public' }, schema: { hide: true } }, async () => app.swagger());
}

/**
 * `/healthz`, `/readyz` and `/metrics`: on the API, and alone on a worker-only process's own
 * listener (`buildOpsApp`).
 */
export function registerProbeRoutes(
  app: ApiApp,
  deps: { health: Pick<HealthService, 'checkReady'> },
  platform: { metrics: Registry; settings: { metricsToken?: string | undefined } },
): void {
  app.get(
    '/healthz',
    {
      config: { auth: 'public' },
      schema: {
        operationId: 'getLiveness',
        summary: 'Liveness: the process answers',
        tags: ['ops'],
        security: [],
        response: { 200: ZHealthResponse },
      },
    },
    async () => ok,
  );

  app.get(
    '/readyz',
    {
      config: { auth: 'public' },
      schema: {
        operationId: 'getReadiness',
        summary: 'Readiness: the database answers',
        tags: ['ops'],
        security: [],
        response: { 200: ZHealthResponse, 503: ZErrorBody.describe(ERROR_STATUS_MEANING[503]!) },
      },
    },
    async () => {
      try {
        await deps.health.checkReady();
      } catch (e) {
        throw new AppError('UNAVAILABLE', { message: `not ready: ${(e as Error).message}`, cause: e });
      }
      return ok;
    },
  );

  // Not a user route: the token is the operator's, checked here rather than by the bearer-token auth.
  app.get('/metrics', { config: { auth: 'public' }, schema: { hide: true } }, async (req, reply) => {
    checkMetricsToken(req.headers.authorization, platform.settings.metricsToken);
    reply.type(platform.metrics.contentType);
    return platform.metrics.metrics();
  });
}
