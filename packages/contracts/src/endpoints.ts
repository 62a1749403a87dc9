import { z } from 'zod';
import type { Endpoint, HttpMethod } from './endpoint.ts';
import { ACCOUNT_ENDPOINTS } from './endpoints/accounts.ts';
import { CATALOG_ENDPOINTS } from './endpoints/catalog.ts';
import { IDENTITY_ENDPOINTS } from './endpoints/identity.ts';
import { LEASE_ENDPOINTS } from './endpoints/leases.ts';
import { PAYMENT_ENDPOINTS } from './endpoints/payments.ts';
import { PORTS_ENDPOINTS } from './endpoints/ports.ts';
import { PUBLIC_ENDPOINTS } from './endpoints/public.ts';

export * from './endpoint.ts';

/** Every operation of the endpoint contract, joined from the areas' files (`endpoints/*.ts`). */
export const ENDPOINTS = {
  ...PUBLIC_ENDPOINTS,
  ...ACCOUNT_ENDPOINTS,
  ...CATALOG_ENDPOINTS,
  ...LEASE_ENDPOINTS,
  ...PAYMENT_ENDPOINTS,
  ...PORTS_ENDPOINTS,
  ...IDENTITY_ENDPOINTS,
} as const satisfies Record<string, Endpoint>;

export type EndpointName = keyof typeof ENDPOINTS;

/** The browser add-on's fixed id (its manifest's `key`) and the redirect URI it signs in with. */
export const BROWSER_ADDON_ID = 'ecgbdabjoknmhamikmljfglfcjljdglp';
export const BROWSER_ADDON_REDIRECT_URI = `https://${BROWSER_ADDON_ID}.chromiumapp.org/`;
/** The origin the add-on's requests carry (the identity host's CORS list needs it for the token exchange). */
export const BROWSER_ADDON_ORIGIN = `chrome-extension://${BROWSER_ADDON_ID}`;

/** Where public operations are served besides their own path. */
export const PUBLIC_API_PREFIX = '/api';

/** The method and path a public operation has under `/api`. */
export function publicRoute(e: Endpoint): { method: HttpMethod; path: string } {
  return { method: e.publicMethod ?? e.method, path: `${PUBLIC_API_PREFIX}${e.path}` };
}

/** `/leases/{id}` with `{ id: 'x' }` -> `/leases/x` (each value URI-encoded). */
export function fillPath(path: string, params: Record<string, string> = {}): string {
  return path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`missing path parameter ${name} for ${path}`);
    return encodeURIComponent(value);
  });
}

/** A path or query value as a caller gives it; `undefined` leaves a query field out. */
type WireValue = string | number | boolean | null | undefined;

/**
 * The method and URL (path and query string) of a call to an operation, from its declaration: the
 * path filled with `params`, each query value as `String(value)`, and with `publicApi` its `/api`
 * twin (`publicRoute`). The tests' helpers call the contract through it, never a path string.
 */
export function endpointTarget(
  e: Endpoint,
  parts: { params?: Record<string, WireValue>; query?: Record<string, WireValue> } = {},
  o: { publicApi?: boolean } = {},
): { method: HttpMethod; url: string } {
  const { method, path } = o.publicApi ? publicRoute(e) : e;
  const params = Object.fromEntries(Object.entries(parts.params ?? {}).map(([k, v]) => [k, String(v)]));
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(parts.query ?? {})) if (v !== undefined) query.append(k, String(v));
  const search = query.toString();
  return { method, url: `${fillPath(path, params)}${search ? `?${search}` : ''}` };
}

/**
 * The password-grant token endpoint on the sign-in host (rules §7), as the public document and the
 * API page describe it. Form-encoded; `client_id` is the environment's public API client.
 */
export const TOKEN_ENDPOINT = {
  operationId: 'getToken',
  method: 'POST',
  path: '/token',
  summary: 'Get an access token (password grant)',
  description:
    'Exchanges your email and password for a bearer token valid for `expires_in` seconds; `client_id` is the public API client (no secret). For scripts, prefer an API key from the API page: a bearer token too, for `/api/*` only, that keeps your password out of the script.',
} as const;

export const ZTokenRequest = z.object({
  grant_type: z.literal('password'),
  /** The public API client's id (a public client: no secret). */
  client_id: z.string(),
  username: z.string(),
  password: z.string(),
});
export const ZTokenResponse = z.object({
  access_token: z.string(),
  expires_in: z.number().int(),
  token_type: z.string(),
});
export const ZTokenError = z.object({ error: z.string(), error_description: z.string().optional() });
