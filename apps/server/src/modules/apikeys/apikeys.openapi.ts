import {
  ENDPOINTS,
  type Endpoint,
  publicRoute,
  TOKEN_ENDPOINT,
  ZTokenError,
  ZTokenRequest,
  ZTokenResponse,
} from '@pm/contracts';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { ApiApp, Platform } from '../../platform/module.ts';

type OpenApiDoc = {
  paths?: Record<string, Record<string, unknown>>;
  components?: Record<string, unknown>;
  [k: string]: unknown;
};

/**
 * A token schema as OpenAPI 3.0 takes it (`enum` for a literal, no `$schema`): zod's default target,
 * JSON Schema 2020-12, does not validate there. Input mode leaves the objects open, since the sign-in
 * host's answers may carry more fields than the ones a client needs.
 */
const openApi30 = (schema: z.ZodType) => z.toJSONSchema(schema, { target: 'openapi-3.0', io: 'input' });
const json = (schema: z.ZodType) => ({ 'application/json': { schema: openApi30(schema) } });

/** The token endpoint as an OpenAPI path item, served from the sign-in host (a path-level `servers`). */
function tokenPathItem(tokenUrl: string): { path: string; item: Record<string, unknown> } {
  const url = new URL(tokenUrl);
  const cut = url.pathname.lastIndexOf('/');
  const base = `${url.origin}${url.pathname.slice(0, cut)}`;
  return {
    path: url.pathname.slice(cut) || '/token',
    item: {
      servers: [{ url: base }],
      post: {
        operationId: TOKEN_ENDPOINT.operationId,
        summary: TOKEN_ENDPOINT.summary,
        description: TOKEN_ENDPOINT.description,
        tags: ['public'],
        security: [],
        requestBody: {
          required: true,
          content: { 'application/x-www-form-urlencoded': { schema: openApi30(ZTokenRequest) } },
        },
        responses: {
          200: { description: 'The access token', content: json(ZTokenResponse) },
          400: { description: 'Wrong email or password (`invalid_grant`)', content: json(ZTokenError) },
          401: { description: 'Unknown client (`invalid_client`)', content: json(ZTokenError) },
          429: { description: 'Too many attempts (`Retry-After`)', content: json(ZTokenError) },
        },
      },
    },
  };
}

interface Operation {
  operationId?: string;
  parameters?: { name: string; in: string; example?: unknown }[];
  requestBody?: { content?: Record<string, { example?: unknown }> };
  responses?: Record<string, { content?: Record<string, { example?: unknown }> }>;
}

/** Copies the contract's example (parameters, request, answer) into the operation, as OpenAPI `example`s. */
function addExample(op: Operation, e: Endpoint): void {
  const ex = e.example;
  if (!ex) return;
  for (const p of op.parameters ?? []) {
    const value = p.in === 'path' ? ex.params?.[p.name] : p.in === 'query' ? ex.query?.[p.name] : undefined;
    if (value !== undefined) p.example = value;
  }
  const body = op.requestBody?.content?.['application/json'];
  if (body && ex.body !== undefined) body.example = ex.body;
  const success = Object.keys(e.response)[0];
  const answer = success ? op.responses?.[success]?.content?.['application/json'] : undefined;
  if (answer) answer.example = ex.answer;
}

/**
 * The public API's OpenAPI document: the `/api/*` operations of the full document (those the
 * endpoint contract declares public), the token endpoint first, and `servers` naming the address
 * the caller used. Built from the registered routes, so it cannot drift from what is served.
 */
export function publicOpenApi(app: FastifyInstance, apiBase: string, tokenUrl: string): OpenApiDoc {
  const full = app.swagger() as OpenApiDoc;
  const token = tokenPathItem(tokenUrl);
  const paths: Record<string, Record<string, unknown>> = { [token.path]: token.item };
  // In the contract's order (rules §7's: proxies, leases, lease, refund, auto-renew).
  for (const e of Object.values(ENDPOINTS) as Endpoint[]) {
    if (e.visibility !== 'public') continue;
    const route = publicRoute(e);
    const item = full.paths?.[route.path];
    if (!item) continue;
    paths[route.path] ??= structuredClone(item);
    const op = paths[route.path]?.[route.method.toLowerCase()] as Operation | undefined;
    if (!op) continue;
    // The market document names the `/api` twin apart from the operation's own path; here it is the only one.
    op.operationId = e.operationId;
    addExample(op, e);
  }
  return {
    openapi: '3.0.3',
    info: {
      title: 'Proxy market public API',
      version: '1.0.0',
      description:
        'Every `/api` operation needs `Authorization: Bearer <token>`: an access token from the token endpoint, or an API key created on the API page. Without one the answer is 403.',
    },
    servers: [{ url: apiBase }],
    paths,
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'Access token or API key' } },
    },
    security: [{ bearer: [] }],
  };
}

/** `GET /api/openapi.json` (no token needed). */
export function registerPublicDocument(app: ApiApp, platform: Platform): void {
  app.get('/api/openapi.json', { config: { auth: 'public' }, schema: { hide: true } }, async (req) =>
    publicOpenApi(app, `${req.protocol}://${req.host}`, platform.settings.tokenUrl ?? '/token'),
  );
}
