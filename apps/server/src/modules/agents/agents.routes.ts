import {
  ENDPOINTS,
  type TAgent,
  type TAgentListResponse,
  type TSegments,
  ZAgentListResponse,
  ZSegments,
} from '@pm/contracts';
import { getPrincipal } from '../../platform/auth.ts';
import { registerEndpoint } from '../../platform/endpoint.ts';
import { wantsFresh } from '../../platform/fresh.ts';
import type { ApiApp } from '../../platform/module.ts';
import type { AgentsService } from './agents.service.ts';

/**
 * The list's JSON, with the parts shared between callers serialized once: a cached segment list
 * (tens of kB of zips and cities for a country) and a cached page as callers who never leased its
 * agents see it are the same objects while cached, so their JSON is kept beside them instead of
 * checked by zod and stringified on every answer. Each part is checked against the contract when
 * first serialized.
 */
const jsonOf = new WeakMap<object, string>();
function serializeOnce<T extends object>(value: T, check: (v: T) => unknown): string {
  let json = jsonOf.get(value);
  if (json === undefined) {
    json = JSON.stringify(check(value));
    jsonOf.set(value, json);
  }
  return json;
}
const checkAgents = (agents: TAgent[]) => ZAgentListResponse.shape.agents.parse(agents);
const checkSegments = (segments: TSegments) => ZSegments.parse(segments);

/** No segment list asked for: the key of a page's answers without one. */
const NO_SEGMENTS = {};
/**
 * Whole answers as bytes, per shared page and shared segment list (then cursor and total): the
 * callers of a cached page get the same Buffer, so it is neither assembled nor encoded again, and
 * compressed once for all of them (compress.ts). Dropped with the page or list it was made of.
 */
const answers = new WeakMap<object, WeakMap<object, Map<string, Buffer>>>();

function serializeAgentList(body: TAgentListResponse): Buffer {
  const byPage = answers.get(body.agents) ?? new WeakMap<object, Map<string, Buffer>>();
  answers.set(body.agents, byPage);
  const bySegments = byPage.get(body.segments ?? NO_SEGMENTS) ?? new Map<string, Buffer>();
  byPage.set(body.segments ?? NO_SEGMENTS, bySegments);
  const key = `${body.cursor},${body.total}`;
  let bytes = bySegments.get(key);
  if (bytes === undefined) {
    const agents = serializeOnce(body.agents, checkAgents);
    const segments = body.segments ? `,"segments":${serializeOnce(body.segments, checkSegments)}` : '';
    bytes = Buffer.from(`{"agents":${agents},"cursor":${body.cursor},"total":${body.total}${segments}}`);
    bySegments.set(key, bytes);
  }
  return bytes;
}

/** `GET /agents`, `GET /agents/{id}`, `GET /totals/agents`: the shop's list, one proxy, the country chips. */
export function registerAgentsRoutes(
  app: ApiApp,
  deps: { agents: Pick<AgentsService, 'listAgents' | 'getAgent' | 'countryTotals'> },
): void {
  // Also `GET /api/agents` (public API).
  registerEndpoint(app, ENDPOINTS.listAgents, {
    handler: async (req, { query }, reply) => {
      const body = await deps.agents.listAgents(query, getPrincipal(req).userId, { fresh: wantsFresh(req) });
      reply.type('application/json; charset=utf-8').serializer(serializeAgentList);
      return body;
    },
  });

  registerEndpoint(app, ENDPOINTS.getAgent, {
    handler: async (req, { params }) =>
      deps.agents.getAgent(params.id, getPrincipal(req).userId, { fresh: wantsFresh(req) }),
  });

  registerEndpoint(app, ENDPOINTS.getCountryTotals, {
    handler: async (req, { query }) => deps.agents.countryTotals({ all: query.all, fresh: wantsFresh(req) }),
  });
}
