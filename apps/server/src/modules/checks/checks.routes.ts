import { ENDPOINTS } from '@pm/contracts';
import { getPrincipal } from '../../platform/auth.ts';
import { registerEndpoint } from '../../platform/endpoint.ts';
import type { ApiApp } from '../../platform/module.ts';
import type { ScoreService } from './checks.score.ts';
import type { ChecksService } from './checks.service.ts';

/**
 * `GET /agents/{id}/speedcheck[?request=true]`, `POST /agents/scorecheck` (quote) and
 * `PATCH /agents/scorecheck` (buy): rules §7.
 */
export function registerChecksRoutes(
  app: ApiApp,
  deps: {
    checks: Pick<ChecksService, 'getSpeedCheck'>;
    scoreChecks: Pick<ScoreService, 'quote' | 'purchase'>;
  },
) {
  registerEndpoint(app, ENDPOINTS.getSpeedCheck, {
    // The page polls every 2 s while a test runs; a new test per agent is limited to one in 6 minutes.
    rateLimit: { max: 120, timeWindow: 60_000 },
    handler: async (req, { params, query }) =>
      deps.checks.getSpeedCheck(params.id, getPrincipal(req).userId, query.request),
  });

  registerEndpoint(app, ENDPOINTS.quoteScoreCheck, {
    rateLimit: { max: 10, timeWindow: 60_000 },
    handler: async (req) => deps.scoreChecks.quote(getPrincipal(req).userId),
  });

  registerEndpoint(app, ENDPOINTS.buyScoreCheck, {
    // Each call costs money and three provider queries.
    rateLimit: { max: 10, timeWindow: 60_000 },
    handler: async (req, { body }) => deps.scoreChecks.purchase(getPrincipal(req).userId, body),
  });
}
