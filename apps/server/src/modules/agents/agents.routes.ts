import {
  ZAgent,
  ZAgentIdParams,
  ZAgentListQuery,
  ZAgentListResponse,
  ZCountryTotals,
  ZCountryTotalsQuery,
  ZErrorBody,
} from '@pm/contracts';
import type { FastifyRequest } from 'fastify';
import { getPrincipal } from '../../platform/auth.ts';
import type { ApiApp } from '../../platform/module.ts';
import type { AgentsService } from './agents.service.ts';

const errors = { 400: ZErrorBody, 401: ZErrorBody, 403: ZErrorBody };

/** `Cache-Control: no-cache` (or `Pragma: no-cache`) asks for the list as it is now, not as shared a moment ago. */
function wantsFresh(req: FastifyRequest): boolean {
  const ask = `${req.headers['cache-control'] ?? ''},${req.headers.pragma ?? ''}`;
  return /(^|[\s,])no-cache($|[\s,=])/i.test(ask);
}

/** `GET /agents`, `GET /agents/{id}`, `GET /totals/agents`: the shop's list, one proxy, the country chips. */
export function registerAgentsRoutes(
  app: ApiApp,
  deps: { agents: Pick<AgentsService, 'listAgents' | 'getAgent' | 'countryTotals'> },
): void {
  app.get(
    '/agents',
    {
      config: { auth: 'user' },
      schema: {
        tags: ['shop'],
        querystring: ZAgentListQuery,
        response: { 200: ZAgentListResponse, ...errors },
      },
    },
    async (req) => deps.agents.listAgents(req.query, getPrincipal(req).userId, { fresh: wantsFresh(req) }),
  );

  app.get(
    '/agents/:id',
    {
      config: { auth: 'user' },
      schema: {
        tags: ['shop'],
        params: ZAgentIdParams,
        response: { 200: ZAgent, ...errors, 404: ZErrorBody },
      },
    },
    async (req) => deps.agents.getAgent(req.params.id, getPrincipal(req).userId),
  );

  app.get(
    '/totals/agents',
    {
      config: { auth: 'user' },
      schema: {
        tags: ['shop'],
        querystring: ZCountryTotalsQuery,
        response: { 200: ZCountryTotals, ...errors },
      },
    },
    async (req) => deps.agents.countryTotals({ all: req.query.all, fresh: wantsFresh(req) }),
  );
}
