import {
  ZAgentIdParams,
  ZErrorBody,
  ZScoreCheck,
  ZScoreCheckPurchase,
  ZScoreCheckQuote,
  ZSpeedCheck,
  ZSpeedCheckErrorBody,
  ZSpeedCheckQuery,
} from '@pm/contracts';
import { getPrincipal } from '../../platform/auth.ts';
import type { ApiApp } from '../../platform/module.ts';
import type { ScoreService } from './checks.score.ts';
import type { ChecksService } from './checks.service.ts';

const errors = { 400: ZErrorBody, 401: ZErrorBody, 404: ZErrorBody, 429: ZErrorBody };

/**
 * `GET /agents/{id}/speedcheck[?request=true]`, `POST /agents/scorecheck` (quote) and
 * `PATCH /agents/scorecheck` (buy): SPEC 7.
 */
export function registerChecksRoutes(
  app: ApiApp,
  deps: {
    checks: Pick<ChecksService, 'getSpeedCheck'>;
    scoreChecks: Pick<ScoreService, 'quote' | 'purchase'>;
  },
) {
  app.get(
    '/agents/:id/speedcheck',
    {
      // The page polls every 2 s while a test runs; a new test per agent is limited to one in 6 minutes.
      config: { auth: 'user', rateLimit: { max: 120, timeWindow: 60_000 } },
      schema: {
        tags: ['agents'],
        params: ZAgentIdParams,
        querystring: ZSpeedCheckQuery,
        response: { 200: ZSpeedCheck, 409: ZSpeedCheckErrorBody, ...errors },
      },
    },
    async (req) => deps.checks.getSpeedCheck(req.params.id, getPrincipal(req).userId, req.query.request),
  );

  app.post(
    '/agents/scorecheck',
    {
      config: { auth: 'user', rateLimit: { max: 10, timeWindow: 60_000 } },
      schema: { tags: ['agents'], response: { 200: ZScoreCheckQuote, ...errors } },
    },
    async (req) => deps.scoreChecks.quote(getPrincipal(req).userId),
  );

  app.patch(
    '/agents/scorecheck',
    {
      // Each call costs money and three provider queries.
      config: { auth: 'user', rateLimit: { max: 10, timeWindow: 60_000 } },
      schema: {
        tags: ['agents'],
        body: ZScoreCheckPurchase,
        response: { 200: ZScoreCheck, 402: ZErrorBody, 409: ZErrorBody, 503: ZErrorBody, ...errors },
      },
    },
    async (req) => deps.scoreChecks.purchase(getPrincipal(req).userId, req.body),
  );
}
