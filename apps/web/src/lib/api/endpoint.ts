import { type Endpoint, type EndpointRequest, fillPath, type SuccessOf } from '@pm/contracts';
import type { ApiClient, CallOptions } from './transport.ts';

/** An operation's request parts with the transport's options (statuses the caller handles, cancellation). */
export type EndpointCall<E extends Endpoint> = EndpointRequest<E> & CallOptions & { signal?: AbortSignal };

/** Whether an operation takes nothing the caller must give: then the call's parts may be left out. */
type Optional<E extends Endpoint> = Record<never, never> extends EndpointRequest<E> ? true : false;

type Scalar = string | number | boolean | null | undefined;

/** Path and query values as the URL carries them; `undefined` leaves a query field out. */
function asStrings(values: Record<string, Scalar> | undefined): Record<string, string> | undefined {
  if (!values) return undefined;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(values)) if (v !== undefined) out[k] = String(v);
  return out;
}

/**
 * Calls an operation of the endpoint contract (`ENDPOINTS` in `@pm/contracts`) through the app's
 * transport: its method and path as declared, the params, query and body typed by its schemas, the
 * answer parsed by its success schema and typed by it. The same declaration drives the server's
 * route (whose handler returns that type) and the public OpenAPI document.
 */
export function callEndpoint<E extends Endpoint>(
  api: ApiClient,
  e: E,
  ...[call]: Optional<E> extends true ? [call?: EndpointCall<E>] : [call: EndpointCall<E>]
): Promise<SuccessOf<E>> {
  const parts = (call ?? {}) as {
    params?: Record<string, Scalar>;
    query?: Record<string, Scalar>;
    body?: unknown;
  } & CallOptions & { signal?: AbortSignal };
  const success = Number(Object.keys(e.response)[0]);
  const schema = e.response[success];
  return api.request(e.method, fillPath(e.path, asStrings(parts.params)), {
    query: asStrings(parts.query),
    body: parts.body,
    signal: parts.signal,
    ignoreStatuses: parts.ignoreStatuses,
    ignoreOffline: parts.ignoreOffline,
    // A 204 has no body to check.
    schema: success === 204 || !schema ? undefined : (schema as { parse(data: unknown): SuccessOf<E> }),
  });
}
