/**
 * What the web benchmarks do through the running product's own HTTP APIs, as a script would: a
 * password-grant token (public-api client, with a two-factor code for staff), then purchases of a
 * lease and of a port package. Used against the e2e stack (first-visit.ts) and `npm start`
 * (hour-of-use.ts); the addresses come from the web listener's /environments.json.
 */
import type { TAgentListResponse, TLease } from '@pm/contracts';

export interface ProductUrls {
  webUrl: string;
  apiUrl: string;
  portsApiUrl: string;
  issuer: string;
}

/** The API addresses the web app at `webUrl` is configured with. */
export async function readProductUrls(webUrl: string): Promise<ProductUrls> {
  const res = await fetch(new URL('/environments.json', webUrl));
  const { environments } = (await res.json()) as {
    environments: { origins: string[]; apiUrl: string; portsApiUrl: string; issuer: string }[];
  };
  const origin = new URL(webUrl).origin;
  const env = environments.find((e) => e.origins.includes(origin)) ?? environments[0];
  if (!env) throw new Error(`no environment for ${origin}`);
  return { webUrl: origin, apiUrl: env.apiUrl, portsApiUrl: env.portsApiUrl, issuer: env.issuer };
}

/** An access token by the public API client's password grant (`otp`: a fresh two-factor code). */
export async function passwordToken(
  urls: ProductUrls,
  email: string,
  password: string,
  otp?: string,
): Promise<string> {
  const res = await fetch(`${urls.issuer}/token`, {
    method: 'POST',
    body: new URLSearchParams({
      grant_type: 'password',
      username: email,
      password,
      client_id: 'public-api',
      ...(otp ? { otp } : {}),
    }),
  });
  const body = (await res.json()) as { access_token?: string };
  if (!res.ok || !body.access_token) throw new Error(`token for ${email}: ${res.status}`);
  return body.access_token;
}

/** The `sub` of a JWT (the user's id), unverified. */
export function subjectOf(token: string): string {
  const payload = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString()) as {
    sub?: string;
  };
  if (!payload.sub) throw new Error('token without sub');
  return payload.sub;
}

/** One JSON call with a bearer token; throws on a status outside `ok`. */
export async function call<T>(
  base: string,
  token: string,
  method: string,
  path: string,
  body?: unknown,
  ok: number[] = [200, 201],
): Promise<T> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      'idempotency-key': crypto.randomUUID(),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (!ok.includes(res.status)) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

/** Buys a private lease on a US agent nobody holds; null when there is none free. */
export async function buyLease(urls: ProductUrls, token: string): Promise<TLease | null> {
  const list = await call<TAgentListResponse>(urls.apiUrl, token, 'GET', '/agents?cc=US&limit=100');
  const agent = list.agents.find((a) => a.leases.count === 0);
  if (!agent) return null;
  return call<TLease>(urls.apiUrl, token, 'POST', '/leases', {
    agentID: agent.id,
    expPriceC: agent.priceExcC,
    probe: false,
    exc: true,
  });
}

/** Buys a one-day US package of one port with unlimited traffic at the quoted price; its id. */
export async function buyPortPackage(urls: ProductUrls, token: string): Promise<string> {
  const offer = {
    time_period: 1,
    traffic: { type: 'unlimit' },
    geo: { country: 'US', connection_type: 'both' },
    access: { type: 'auth', port_amount: 1 },
  };
  const { price } = await call<{ price: number }>(urls.portsApiUrl, token, 'POST', '/price', offer);
  const pkg = await call<{ id: string }>(urls.portsApiUrl, token, 'POST', '/package/create', {
    ...offer,
    user_id: subjectOf(token),
    price,
    switch: { type: 'timer', timer: 5 },
  });
  return pkg.id;
}
