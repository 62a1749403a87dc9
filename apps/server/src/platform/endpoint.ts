import {
  type Endpoint,
  type EndpointInput,
  ERROR_STATUS_MEANING,
  type FeatureErrorCode,
  publicRoute,
  type SuccessOf,
} from '@pm/contracts';
import type { FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import type { AuthLevel } from './auth.ts';
import type { ApiApp, ApiSurface } from './module.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The feature error codes the operation declares; the error handler answers no other. */
    errorCodes?: readonly FeatureErrorCode[];
  }
}

/** A route's rate limit: `max` calls per `timeWindow` ms, counted per caller. */
export interface RateLimit {
  max: number;
  timeWindow: number;
}

/**
 * What a handler may do to its answer besides returning the body: set headers and the content
 * type, or serialize the body itself. No `send` and no `code`: a reply is thenable, so a handler
 * returning `reply.send(x)` would escape the check of its return type.
 */
export interface AnswerHeaders<T> {
  header(name: string, value: string): AnswerHeaders<T>;
  type(contentType: string): AnswerHeaders<T>;
  /** A Buffer is sent as is: the same Buffer answered again is also compressed once (compress.ts). */
  serializer(serialize: (body: T) => string | Buffer): AnswerHeaders<T>;
}

export interface EndpointRoute<E extends Endpoint> {
  /** Shared by the operation's paths: a call under `/api` counts against the same budget. */
  rateLimit?: RateLimit;
  /**
   * Returns the success answer's body, typed by the operation's success schema, so a misspelt or
   * missing field fails the compiler (the serializer still checks it against the schema when
   * sent). The answer goes out with the declared success status; `reply` sets headers only (a
   * CSV's content type and file name, a cached list's serializer).
   */
  handler(
    req: FastifyRequest,
    input: EndpointInput<E>,
    reply: AnswerHeaders<SuccessOf<E>>,
  ): Promise<SuccessOf<E>>;
}

/** The success status an operation declares: its one 2xx answer. */
function successStatus(e: Endpoint): number {
  const statuses = Object.keys(e.response)
    .map(Number)
    .filter((s) => s >= 200 && s < 300);
  if (statuses.length !== 1)
    throw new Error(`${e.operationId} must declare one success status, not ${statuses.length}`);
  return statuses[0] as number;
}

/**
 * The declared answers, each error status described by what it means (the OpenAPI documents show
 * the description; a schema that has its own keeps it).
 */
function describedResponses(response: Endpoint['response']): Endpoint['response'] {
  return Object.fromEntries(
    Object.entries(response).map(([status, schema]) => {
      const meaning = ERROR_STATUS_MEANING[Number(status)];
      return [status, meaning && !schema.description ? schema.describe(meaning) : schema];
    }),
  );
}

/** The market document's operationId of a public operation's `/api` twin (ids are unique per document). */
export const apiTwinOperationId = (operationId: string) =>
  `api${operationId[0]?.toUpperCase() ?? ''}${operationId.slice(1)}`;

/** `/leases/{id}` -> `/leases/:id`. */
const toFastifyPath = (path: string) => path.replace(/\{(\w+)\}/g, ':$1');

const AUTH_OF: Record<Endpoint['visibility'], AuthLevel> = {
  public: 'user',
  customer: 'user',
  staff: 'staff',
  anonymous: 'public',
};

/**
 * Registers an operation of the endpoint contract (`@pm/contracts` ENDPOINTS): its own route and,
 * for a public one, the same handler, schemas and rate limit under `/api` (auth level `api`: a
 * bearer token or an API key; 403 without one). One implementation behind both paths.
 */
export function registerEndpoint<E extends Endpoint>(app: ApiApp, e: E, route: EndpointRoute<E>): void {
  // The market API and the Ports API's listener are separate apps (`buildApp`'s `surface`): an
  // operation is served only on the one it declares.
  const surface = (app as unknown as { apiSurface?: ApiSurface }).apiSurface ?? 'market';
  if ((e.api ?? 'market') !== surface) {
    throw new Error(`${e.operationId} is declared for the ${e.api ?? 'market'} API, not the ${surface} API`);
  }
  // One limiter for both paths (a per-route `config.rateLimit` would count each path apart),
  // one bucket of the shared counters named after the operation.
  const limiter = route.rateLimit
    ? (
        app as unknown as { rateLimit(o: RateLimit & { bucket: string }): preHandlerAsyncHookHandler }
      ).rateLimit({
        ...route.rateLimit,
        bucket: e.operationId,
      })
    : undefined;
  const schema = {
    operationId: e.operationId,
    tags: e.tags,
    summary: e.summary,
    // The document's default is the bearer token; an anonymous operation says it needs none.
    ...(e.visibility === 'anonymous' ? { security: [] } : {}),
    ...(e.description ? { description: e.description } : {}),
    ...(e.params ? { params: e.params } : {}),
    ...(e.querystring ? { querystring: e.querystring } : {}),
    ...(e.body ? { body: e.body } : {}),
    ...(e.headers ? { headers: e.headers } : {}),
    response: describedResponses(e.response),
  };
  const status = successStatus(e);
  const handler = (req: FastifyRequest, reply: FastifyReply) =>
    route.handler(
      req,
      {
        params: req.params,
        query: req.query,
        body: req.body,
        headers: req.headers,
      } as EndpointInput<E>,
      reply.code(status),
    );
  app.route({
    method: e.method,
    url: toFastifyPath(e.path),
    schema,
    config: { auth: AUTH_OF[e.visibility], errorCodes: e.errorCodes ?? [] },
    ...(limiter ? { preHandler: limiter } : {}),
    handler,
  });
  if (e.visibility !== 'public') return;
  const pub = publicRoute(e);
  app.route({
    method: pub.method,
    url: toFastifyPath(pub.path),
    schema: { ...schema, tags: ['public'], operationId: apiTwinOperationId(e.operationId) },
    config: { auth: 'api', errorCodes: e.errorCodes ?? [] },
    ...(limiter ? { preHandler: limiter } : {}),
    handler,
  });
}
