import type { FastifyInstance } from 'fastify';
import { Counter, collectDefaultMetrics, Histogram, type Registry } from 'prom-client';

/**
 * Prometheus metrics into `registry` (one per app instance, so several apps can live in one
 * process): default process metrics plus request count and duration by route and status.
 */
export function registerMetrics(app: FastifyInstance, registry: Registry): void {
  collectDefaultMetrics({ register: registry });
  const labelNames = ['method', 'route', 'status_code'] as const;
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by route template and status',
    labelNames,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration in seconds, by route template and status',
    labelNames,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  app.addHook('onResponse', async (req, reply) => {
    // The route template, never the raw URL: ids in paths would explode the label set.
    const labels = {
      method: req.method,
      route: req.is404 ? 'unmatched' : (req.routeOptions.url ?? 'unmatched'),
      status_code: String(reply.statusCode),
    };
    requests.inc(labels);
    duration.observe(labels, reply.elapsedTime / 1000);
  });
}
