import { type Endpoint, fillPath } from '@pm/contracts';
import type { ApiClient, CallOptions } from './transport.ts';

/** The success answer's type of an operation of the endpoint contract (its first listed status). */
type SuccessOf<E extends Endpoint> = E['response'][keyof E['response'] & (200 | 201 | 204)] extends {
  parse(data: unknown): infer T;
}
  ? T
  : unknown;

export interface EndpointCall extends CallOptions {
  params?: Record<string, string>;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  signal?: AbortSignal;
}

/**
 * Calls an operation of the endpoint contract (`ENDPOINTS` in `@pm/contracts`) through the app's
 * transport: its method and path as declared, the answer checked by its success schema. The same
 * declaration drives the server's route and the public OpenAPI document.
 */
export function callEndpoint<E extends Endpoint>(
  api: ApiClient,
  e: E,
  call: EndpointCall = {},
): Promise<SuccessOf<E>> {
  const success = Number(Object.keys(e.response)[0]);
  const schema = e.response[success];
  return api.request(e.method, fillPath(e.path, call.params), {
    query: call.query,
    body: call.body,
    signal: call.signal,
    ignoreStatuses: call.ignoreStatuses,
    ignoreOffline: call.ignoreOffline,
    // A 204 has no body to check.
    schema: success === 204 || !schema ? undefined : (schema as { parse(data: unknown): SuccessOf<E> }),
  }) as Promise<SuccessOf<E>>;
}
