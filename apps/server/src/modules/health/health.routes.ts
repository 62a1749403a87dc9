import { AppError, ZHealthResponse } from '@pm/contracts';
import type { Registry } from 'prom-client';
import type { ApiApp } from '../../platform/module.ts';
import type { HealthService } from './health.service.ts';

const ok = { status: 'ok' as const };

/** Liveness, readiness (database reachable), Prometheus metrics and the OpenAPI document; all public. */
export function registerHealthRoutes(
  app: ApiApp,
  deps: { health: Pick<HealthService, 'checkReady'> },
  platform: { metrics: Registry },
): void {
  app.get(
    '/healthz',
    {
      config: { auth: 'public' },
      schema: { tags: ['ops'], security: [], response: { 200: ZHealthResponse } },
    },
    async () => ok,
  );

  app.get(
    '/readyz',
    {
      config: { auth: 'public' },
      schema: { tags: ['ops'], security: [], response: { 200: ZHealthResponse } },
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

  app.get('/metrics', { config: { auth: 'public' }, schema: { hide: true } }, async (_req, reply) => {
    reply.type(platform.metrics.contentType);
    return platform.metrics.metrics();
  });

  app.get('/openapi.json', { config: { auth: 'public' }, schema: { hide: true } }, async () => app.swagger());
}
