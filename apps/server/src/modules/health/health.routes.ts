import { AppError, ZHealthResponse } from '@pm/contracts';
import type { DbHandle } from '@pm/db';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Registry } from 'prom-client';

const READY_TIMEOUT_MS = 2000;

/** Liveness, readiness (database reachable), Prometheus metrics and the OpenAPI document; all public. */
export function register(
  app: FastifyInstance,
  deps: { db: Pick<DbHandle, 'query'>; registry: Registry },
): void {
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.get(
    '/healthz',
    {
      config: { auth: 'public' },
      schema: { tags: ['ops'], security: [], response: { 200: ZHealthResponse } },
    },
    async () => ({
      status: 'ok' as const,
    }),
  );

  r.get(
    '/readyz',
    {
      config: { auth: 'public' },
      schema: { tags: ['ops'], security: [], response: { 200: ZHealthResponse } },
    },
    async () => {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`database did not answer in ${READY_TIMEOUT_MS} ms`)),
          READY_TIMEOUT_MS,
        );
      });
      try {
        await Promise.race([deps.db.query('SELECT 1'), timeout]);
      } catch (e) {
        throw new AppError('UNAVAILABLE', { message: `not ready: ${(e as Error).message}`, cause: e });
      } finally {
        clearTimeout(timer);
      }
      return { status: 'ok' as const };
    },
  );

  r.get('/metrics', { config: { auth: 'public' }, schema: { hide: true } }, async (_req, reply) => {
    reply.type(deps.registry.contentType);
    return deps.registry.metrics();
  });

  r.get('/openapi.json', { config: { auth: 'public' }, schema: { hide: true } }, async () => app.swagger());
}
