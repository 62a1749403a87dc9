import {
  type TAgentListResponse,
  type TSegments,
  ZAgent,
  ZAgentIdParams,
  ZAgentListQuery,
  ZAgentListResponse,
  ZCountryTotals,
  ZCountryTotalsQuery,
  ZErrorBody,
  ZSegments,
} from '@pm/contracts';
import type { FastifyRequest } from 'fastify';
import { getPrincipal } from '../../platform/auth.ts';
import type { ApiApp } from '../../platform/module.ts';
import type { AgentsService } from './agents.service.ts';

const errors = { 400: ZErrorBody, 401: ZErrorBody, 403: ZErrorBody };

/**
 * The list's JSON with its segments serialized once per shared segment list (same object while
 * cached) instead of per request: a country's segments run to thousands of zips and cities, tens
 * of kB that zod would check and JSON.stringify each time. The agents are still checked against
 * the contract on every answer, the segments when first serialized.
 */
const segmentsJson = new WeakMap<TSegments, string>();
function serializeAgentList(body: TAgentListResponse): string {
  const agents = JSON.stringify(ZAgentListResponse.shape.agents.parse(body.agents));
  let segments = '';
  if (body.segments) {
    let json = segmentsJson.get(body.segments);
    if (json === undefined) {
      json = JSON.stringify(ZSegments.parse(body.segments));
      segmentsJson.set(body.segments, json);
    }
    segments = `,"segments":${json}`;
  }
  return `{"agents":${agents},"cursor":${body.cursor},"total":${body.total}${segments}}`;
}

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
    async (req, reply) => {
      const body = await deps.agents.listAgents(req.query, getPrincipal(req).userId, {
        fresh: wantsFresh(req),
      });
      reply.type('application/json; charset=utf-8').serializer(serializeAgentList);
      return body;
    },
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
