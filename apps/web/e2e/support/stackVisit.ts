/**
 * What the journeys on the whole product (`startStack`) share: a browser context with the Terms
 * accepted, the sign-in on the identity pages, market API calls as a demo user, and bounded waits.
 */
import assert from 'node:assert/strict';
import { type Endpoint, type EndpointRequest, endpointTarget, type SuccessOf } from '@pm/contracts';
import { TEST_TERMS_VERSION, type TestStack } from '@pm/devnet/stack';
import { waitFor } from '@pm/testkit';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { IdentityPages } from '../pages/IdentityPages.ts';
import { ShellPage, TIMEOUT_MS } from '../pages/ShellPage.ts';
import { DESKTOP } from './browser.ts';

export interface StackVisit {
  context: BrowserContext;
  page: Page;
  shell: ShellPage;
  identity: IdentityPages;
}

export interface StackUser {
  email: string;
  password: string;
}

/**
 * A browser context on the stack's web app with the Terms accepted; `clipboard` allows Copy buttons,
 * `clock` installs Playwright's clock (flowing with real time until told otherwise).
 */
export async function openStackVisit(
  browser: Browser,
  stack: TestStack,
  o: {
    viewport?: { width: number; height: number };
    clipboard?: boolean;
    clock?: boolean;
    /** Block the app's service worker: a navigation it answers is not seen by `page.on('request')`. */
    noServiceWorker?: boolean;
  } = {},
): Promise<StackVisit> {
  const context = await browser.newContext({
    viewport: o.viewport ?? DESKTOP,
    ...(o.noServiceWorker ? { serviceWorkers: 'block' as const } : {}),
  });
  context.setDefaultTimeout(TIMEOUT_MS);
  if (o.clipboard) {
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: stack.webUrl });
  }
  await context.addCookies([
    { name: 'acceptedTermsVersion', value: String(TEST_TERMS_VERSION), url: stack.webUrl },
  ]);
  if (o.clock) await context.clock.install();
  const page = await context.newPage();
  return { context, page, shell: new ShellPage(page), identity: new IdentityPages(page, stack.issuer) };
}

/** Opens the app at `path`, signs in on the identity pages and waits for the balance in the shell. */
export async function signInOnStack(
  v: StackVisit,
  stack: TestStack,
  who: StackUser,
  path = '/',
): Promise<void> {
  await v.page.goto(new URL(path, stack.webUrl).toString());
  await v.identity.signIn(who.email, who.password, await stack.totpCode(who.email));
  await v.page.waitForURL((u) => u.href.startsWith(stack.webUrl), { timeout: TIMEOUT_MS });
  await v.shell.waitForShell();
  await v.shell.balance.waitFor();
}

/** Whether an operation takes nothing the caller must give: then the call's parts may be left out. */
type Optional<E extends Endpoint> = Record<never, never> extends EndpointRequest<E> ? true : false;
export type CallArgs<E extends Endpoint> =
  Optional<E> extends true ? [call?: EndpointRequest<E>] : [call: EndpointRequest<E>];

/** An answer of the stack: its status and body, and the success answer parsed by the declaration. */
export interface StackAnswer<E extends Endpoint> {
  status: number;
  body: unknown;
  /** The success answer parsed by the operation's success schema; throws naming the status otherwise. */
  ok(): SuccessOf<E>;
}

/**
 * A call of an operation of the endpoint contract, as `who` (a fresh password-grant token each
 * time): its method and path from the declaration, the parts typed by its schemas. Tests call the
 * stack through the contract; scripts/raw-paths.test.ts refuses a raw path without its reason.
 */
export async function stackApi<E extends Endpoint>(
  stack: TestStack,
  who: StackUser,
  e: E,
  ...call: CallArgs<E>
): Promise<StackAnswer<E>> {
  return stackApiWithToken(stack, await stack.token(who.email, who.password), e, ...call);
}

/** The same with a bearer token the caller holds. */
export async function stackApiWithToken<E extends Endpoint>(
  stack: TestStack,
  token: string,
  e: E,
  ...[call]: CallArgs<E>
): Promise<StackAnswer<E>> {
  const parts = (call ?? {}) as {
    params?: Record<string, string>;
    query?: Record<string, string>;
    body?: unknown;
  };
  if (e.api === 'ports')
    throw new Error(`${e.operationId}: the stack helper calls the market and identity hosts only`);
  const base = e.api === 'identity' ? stack.issuer : stack.apiUrl;
  const { method, url } = endpointTarget(e, parts);
  const res = await fetch(`${base}${url}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      'cache-control': 'no-cache',
      ...(parts.body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(parts.body !== undefined ? { body: JSON.stringify(parts.body) } : {}),
  });
  const text = await res.text();
  const body: unknown = text && res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text;
  const success = Number(Object.keys(e.response).find((s) => Number(s) >= 200 && Number(s) < 300));
  return {
    status: res.status,
    body,
    ok() {
      assert.equal(res.status, success, `${e.operationId}: ${res.status} ${text.slice(0, 500)}`);
      const schema = e.response[success];
      return (success === 204 || !schema ? undefined : schema.parse(body)) as SuccessOf<E>;
    },
  };
}

/** `waitFor` of `@pm/testkit` in the stack journeys' order of arguments, checking every 200 ms. */
export async function waitUntil(
  check: () => Promise<boolean>,
  what: string,
  timeoutMs = TIMEOUT_MS,
  intervalMs = 200,
): Promise<void> {
  await waitFor(check, { timeoutMs, what, intervalMs });
}

/** "$2.50" → 250. */
export function centsOf(text: string): number {
  const m = /\$(\d+)\.(\d\d)/.exec(text);
  assert.ok(m, `no price in "${text}"`);
  return Number(m[1]) * 100 + Number(m[2]);
}

/** 250 → "$2.50". */
export const usd = (c: number) => `$${Math.floor(c / 100)}.${String(c % 100).padStart(2, '0')}`;

/** The balance the shell shows, in cents. */
export async function shownBalanceC(v: StackVisit): Promise<number> {
  return centsOf((await v.shell.balance.textContent()) ?? '');
}
