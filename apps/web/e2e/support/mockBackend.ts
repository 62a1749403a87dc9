/**
 * Stand-ins for the market API and the identity service, answered by Playwright routes so the shell can
 * be driven without the other apps. Their addresses are loopback ones that are never actually dialled.
 */
import type { TAccount, TEnvironment } from '@pm/contracts';
import { cents } from '@pm/money';
import type { BrowserContext, Route } from 'playwright-core';
import { answerMarket, createMarketMock, type MarketMock } from './marketMock.ts';
import { answerPayments, createPaymentsMock, type PaymentsMock } from './paymentsMock.ts';

export const MOCK_API_URL = 'http://127.0.0.1:9/api';
export const MOCK_ISSUER = 'http://127.0.0.1:9/issuer';

export function mockEnvironment(origins: string[], overrides: Partial<TEnvironment> = {}): TEnvironment {
  return {
    name: 'e2e',
    origins,
    apiUrl: MOCK_API_URL,
    portsApiUrl: MOCK_API_URL,
    issuer: MOCK_ISSUER,
    clientId: 'web',
    audience: 'https://api.proxymarket.test',
    siteUrl: `${origins[0]}/`,
    support: {
      email: 'support@example.com',
      messenger: '@pm_support',
      messengerUrl: 'https://t.me/pm_support',
    },
    termsVersion: 3,
    ...overrides,
  };
}

type AccountOverrides = Partial<Omit<TAccount, 'balanceC' | 'balanceCents'>> & { balanceC?: number };

export function buildAccount(overrides: AccountOverrides = {}): TAccount {
  const balance = cents(overrides.balanceC ?? 1234);
  return {
    userID: 'user-1',
    email: 'customer@example.com',
    permissions: [],
    refcode: 'REF123',
    blocked: false,
    emailVerified: true,
    ...overrides,
    balanceC: balance,
    balanceCents: balance,
  };
}

function readJsonBody(text: string | null): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

const b64url = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');

/** An unsigned access token for the `?token=` hand-off (the mocked API does not verify it). */
export function fakeAccessToken(permissions: string[] = []): string {
  const now = Math.floor(Date.now() / 1000);
  return `${b64url({ alg: 'none', typ: 'at+jwt' })}.${b64url({
    sub: 'user-1',
    aud: 'https://api.proxymarket.test',
    iat: now,
    exp: now + 3600,
    permissions,
  })}.unsigned`;
}

const CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-headers': 'authorization, content-type, accept',
  'access-control-allow-methods': 'GET, POST, PUT, PATCH, DELETE, OPTIONS',
};

export interface MockApi {
  account: TAccount | null;
  /** Every API request seen: method, path and authorization header. */
  requests: Array<{ method: string; path: string; authorization: string | undefined }>;
  /** Set to answer every API call with this status (or 'abort' for no response). */
  failWith: number | 'abort' | null;
  /** Bodies posted to the identity's change_code endpoint, and the status it answers. */
  passwordChanges: unknown[];
  passwordChangeStatus: number;
  /** The shop and lease routes (agents, purchases, leases, notes, auto-renew, no-auth port). */
  market: MarketMock;
  /** The payment routes (charges, their check, txrecords). */
  payments: PaymentsMock;
}

/** Installs the API and identity routes on a browser context; the returned object steers them. */
export async function installMockBackend(
  context: BrowserContext,
  account: TAccount | null,
): Promise<MockApi> {
  const state: MockApi = {
    account,
    requests: [],
    failWith: null,
    passwordChanges: [],
    passwordChangeStatus: 200,
    market: createMarketMock(),
    payments: createPaymentsMock(),
  };
  const json = (route: Route, status: number, body?: unknown) =>
    route.fulfill({
      status,
      headers: { ...CORS, 'content-type': 'application/json' },
      body: body === undefined ? '' : JSON.stringify(body),
    });

  await context.route(`${MOCK_API_URL}/**`, async (route) => {
    const req = route.request();
    if (req.method() === 'OPTIONS') return route.fulfill({ status: 204, headers: CORS });
    const path = new URL(req.url()).pathname.slice(new URL(MOCK_API_URL).pathname.length);
    state.requests.push({
      method: req.method(),
      path,
      authorization: (await req.headerValue('authorization')) ?? undefined,
    });
    if (state.failWith === 'abort') return route.abort('connectionrefused');
    if (state.failWith !== null)
      return json(route, state.failWith, { error: 'MOCK', message: 'mock failure' });
    if (path === '/accounts/my' && req.method() === 'GET') {
      return state.account
        ? json(route, 200, state.account)
        : json(route, 404, { error: 'NOT_FOUND', message: 'no account' });
    }
    if (path === '/accounts/my' && req.method() === 'PUT') {
      state.account = buildAccount({ balanceC: 0, refcode: 'NEW001' });
      return json(route, 201, state.account);
    }
    if (path === '/referral' && req.method() === 'GET') {
      const refcode = state.account?.refcode ?? 'REF123';
      return json(route, 200, {
        refcode,
        inviteUrl: `${MOCK_ISSUER}/signup?ref=${refcode}`,
        ...state.payments.referral,
        firstLoadPct: 10,
        laterLoadPct: 5,
      });
    }
    const body = readJsonBody(req.postData());
    const query = new URL(req.url()).searchParams;
    state.market.calls.push({ method: req.method(), path, query, body });
    const paid = answerPayments(state.payments, state.account, req.method(), path, query, body);
    if (paid) return json(route, paid.status, paid.body);
    const answer = answerMarket(state.market, state.account, req.method(), path, query, body);
    if (answer) return json(route, answer.status, answer.body);
    return json(route, 404, { error: 'NOT_FOUND', message: `mock has no ${req.method()} ${path}` });
  });

  await context.route(`${MOCK_ISSUER}/**`, async (route) => {
    const req = route.request();
    if (req.method() === 'OPTIONS') return route.fulfill({ status: 204, headers: CORS });
    const url = new URL(req.url());
    if (url.pathname.endsWith('/dbconnections/change_code')) {
      state.passwordChanges.push(req.postDataJSON());
      // The identity host's answer: the same text whether or not the address has an account.
      return route.fulfill({
        status: state.passwordChangeStatus,
        headers: { ...CORS, 'content-type': 'text/plain; charset=utf-8' },
        body: "We've just sent you an email to reset your password.",
      });
    }
    if (url.pathname.endsWith('/.well-known/openid-configuration')) {
      return json(route, 200, {
        issuer: MOCK_ISSUER,
        authorization_endpoint: `${MOCK_ISSUER}/auth`,
        token_endpoint: `${MOCK_ISSUER}/token`,
        jwks_uri: `${MOCK_ISSUER}/jwks`,
        end_session_endpoint: `${MOCK_ISSUER}/session/end`,
        response_types_supported: ['code'],
        code_challenge_methods_supported: ['S256'],
      });
    }
    if (url.pathname.endsWith('/auth')) {
      return route.fulfill({
        status: 200,
        headers: { 'content-type': 'text/html' },
        body: '<!doctype html><title>Sign in</title><h1>Mock sign-in host</h1>',
      });
    }
    return json(route, 404, { error: 'NOT_FOUND', message: 'not mocked' });
  });
  return state;
}
