import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Composition } from './compose.ts';
import { registerProbeRoutes } from './modules/health/health.routes.ts';
import { handleFrameworkError, registerErrorHandling } from './platform/errors.ts';
import { registerMetrics } from './platform/metrics.ts';

/**
 * The small listener of a worker-only process (`--role=worker`): `/healthz`, `/readyz` (the
 * database answers) and `/metrics` (METRICS_TOKEN, as on the API: the process's default metrics
 * and the jobs' own, such as the payments watcher's), so workers are probed and scraped like the
 * API. Nothing else: no API routes, no auth hook.
 */
export async function buildOpsApp(composition: Composition): Promise<FastifyInstance> {
  const app = Fastify({
    forceCloseConnections: true,
    frameworkErrors: handleFrameworkError,
    loggerInstance: composition.platform.log as FastifyBaseLogger,
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerErrorHandling(app);
  registerMetrics(app, composition.platform.metrics);
  registerProbeRoutes(app.withTypeProvider<ZodTypeProvider>(), composition.services, composition.platform);
  await app.ready();
  return app;
}
