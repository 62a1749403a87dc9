/**
 * The server tests' one way to call a route: through its operation in the endpoint contract
 * (`ENDPOINTS`), never a path string. The method and URL come from the declaration
 * (`endpointTarget`), the params, query and body are typed by its schemas, and `ok()` gives the
 * success answer parsed by its success schema, typed by it. A test that calls a raw path (a
 * malformed path on purpose, a route outside the contract such as `/healthz`) says why in a
 * `// raw path: <reason>` comment; scripts/raw-paths.test.ts holds the tests to that.
 */
import {
  type Endpoint,
  type EndpointRequest,
  endpointTarget,
  type SuccessOf,
  type TErrorBody,
  ZErrorBody,
} from '@pm/contracts';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { TestApp } from './app.ts';

/** How the call is made besides its parts: its headers (the bearer token), and the `/api` twin. */
export interface RouteOptions {
  headers?: Record<string, string>;
  /** Call the public operation under `/api` (`publicRoute`) instead of its own path. */
  publicApi?: boolean;
  /** The caller's address as the socket gives it (the routes that answer or check it). */
  remoteAddress?: string;
}

/** An operation's request parts, typed by its schemas, with the call's options. */
export type RouteCall<E extends Endpoint> = EndpointRequest<E> & RouteOptions;

/**
 * The parts of a call a test sends as is, for the refusals of input the schemas do not accept (a
 * number for a string, an unknown field, a body that is not JSON at all: `payload`).
 */
export interface UncheckedCall extends RouteOptions {
  params?: Record<string, string | number>;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  /** A raw request body (malformed JSON, another content type); sent instead of `body`. */
  payload?: string;
}

/** The answer of a route: `inject`'s response, with the success body parsed by the declaration. */
export type RouteAnswer<E extends Endpoint> = LightMyRequestResponse & {
  /** The success answer parsed by its schema; throws naming the status and body otherwise. */
  ok(): SuccessOf<E>;
  /** An error answer's body, parsed as the error body every operation answers (`ZErrorBody`). */
  problem(): TErrorBody;
};

/** Whether an operation takes nothing the caller must give: then the call's parts may be left out. */
type Optional<E extends Endpoint> = Record<never, never> extends EndpointRequest<E> ? true : false;

/** The app serving the operation: a test app's Ports API app for a ports operation. */
function appFor(target: FastifyInstance | TestApp, e: Endpoint): FastifyInstance {
  if (!('app' in target)) return target;
  if (e.api !== 'ports') return target.app;
  if (!target.portsApp)
    throw new Error(`${e.operationId} is a Ports API operation: createTestApp({ ports: true })`);
  return target.portsApp;
}

function successOf<E extends Endpoint>(e: E, res: LightMyRequestResponse): SuccessOf<E> {
  const status = Number(Object.keys(e.response).find((s) => Number(s) >= 200 && Number(s) < 300));
  if (res.statusCode !== status) {
    throw new Error(`${e.operationId}: expected ${status}, got ${res.statusCode} ${res.body.slice(0, 500)}`);
  }
  const schema = e.response[status];
  if (status === 204 || !schema) return undefined as SuccessOf<E>;
  const isJson = String(res.headers['content-type'] ?? '').includes('json');
  return schema.parse(isJson ? res.json() : res.body) as SuccessOf<E>;
}

/** Sends the call's parts as they are (the typed `callRoute` and the refusal tests' `callRouteUnchecked`). */
async function send<E extends Endpoint>(
  target: FastifyInstance | TestApp,
  e: E,
  call: UncheckedCall,
): Promise<RouteAnswer<E>> {
  const { method, url } = endpointTarget(e, call, { publicApi: call.publicApi });
  const hasBody = call.payload !== undefined || call.body !== undefined;
  const res = await appFor(target, e).inject({
    method,
    url,
    headers: { ...(hasBody ? { 'content-type': 'application/json' } : {}), ...call.headers },
    ...(call.remoteAddress !== undefined ? { remoteAddress: call.remoteAddress } : {}),
    ...(call.payload !== undefined
      ? { payload: call.payload }
      : call.body !== undefined
        ? { payload: JSON.stringify(call.body) }
        : {}),
  });
  return Object.assign(res, {
    ok: () => successOf(e, res),
    problem: () => ZErrorBody.parse(res.json()),
  });
}

/**
 * Calls an operation of the endpoint contract on a test app (`t.app`, `t.portsApp`, or the test
 * app itself, which picks by the operation's `api`): its method and path as declared, the parts
 * typed by its schemas.
 */
export function callRoute<E extends Endpoint>(
  target: FastifyInstance | TestApp,
  e: E,
  ...[call]: Optional<E> extends true ? [call?: RouteCall<E>] : [call: RouteCall<E>]
): Promise<RouteAnswer<E>> {
  return send(target, e, (call ?? {}) as UncheckedCall);
}

/**
 * Calls an operation with parts its schemas may refuse: the method and path still come from the
 * declaration; for the tests of refused input only.
 */
export function callRouteUnchecked<E extends Endpoint>(
  target: FastifyInstance | TestApp,
  e: E,
  call: UncheckedCall = {},
): Promise<RouteAnswer<E>> {
  return send(target, e, call);
}
