/**
 * What the journeys on the whole product (`startStack`) share: a browser context with the Terms
 * accepted, the sign-in on the identity pages, market API calls as a demo user, and bounded waits.
 */
import assert from 'node:assert/strict';
import { TEST_TERMS_VERSION, type TestStack } from '@pm/devnet/stack';
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

/** A market API call from the test, as `who` (a fresh password-grant token each time). */
export async function stackApi<T>(
  stack: TestStack,
  who: StackUser,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: T }> {
  return stackApiWithToken<T>(stack, await stack.token(who.email, who.password), method, path, body);
}

/** A market API call from the test with a bearer token the caller holds. */
export async function stackApiWithToken<T>(
  stack: TestStack,
  token: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: T }> {
  const res = await fetch(`${stack.apiUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      'cache-control': 'no-cache',
      ...(body ? { 'content-type': 'application/json' } : {}),
    },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T };
}

/** Waits (bounded) until `check` holds. */
export async function waitUntil(
  check: () => Promise<boolean>,
  what: string,
  timeoutMs = TIMEOUT_MS,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    assert.ok(Date.now() < deadline, `timed out waiting: ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
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
