/** Helpers for the identity tests: a loopback mail catcher, a cookie jar, a form-driving browser. */

import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import type { DbHandle } from '@pm/db';
import { waitFor } from '@pm/testkit';
import { simpleParser } from 'mailparser';
import * as oidc from 'openid-client';
import { generate } from 'otplib';
import { SMTPServer } from 'smtp-server';
import { type IdentityConfig, type IdentityHandle, start } from './index.ts';

export interface CapturedMail {
  to: string;
  subject: string;
  text: string;
}

export interface MailCatcher {
  url: string;
  mails: CapturedMail[];
  /** Waits (bounded) for a mail to `to` whose subject contains `subjectPart`, newer than `after` mails. */
  waitFor(to: string, subjectPart: string, after?: number, timeoutMs?: number): Promise<CapturedMail>;
  close(): Promise<void>;
}

export async function startMailCatcher(): Promise<MailCatcher> {
  const mails: CapturedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, callback) {
      simpleParser(stream)
        .then((m) => {
          const to = Array.isArray(m.to) ? m.to[0]?.text : m.to?.text;
          mails.push({ to: to ?? '', subject: m.subject ?? '', text: m.text ?? '' });
          callback();
        })
        .catch((e: Error) => callback(e));
    },
  });
  server.listen(0, '127.0.0.1');
  await once(server.server, 'listening');
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    waitFor(to, subjectPart, after = 0, timeoutMs = 10_000) {
      return waitFor(() => mails.slice(after).find((m) => m.to === to && m.subject.includes(subjectPart)), {
        timeoutMs,
        intervalMs: 50,
        what: `a mail "${subjectPart}" to ${to}`,
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The first link in a mail that points at `path` on the identity host. */
export function linkIn(mail: CapturedMail, path: string): string {
  const m = new RegExp(`https?://\\S+${path.replace(/[/?]/g, '\\$&')}\\?token=[\\w-]+`).exec(mail.text);
  if (!m) throw new Error(`no ${path} link in mail: ${mail.text}`);
  return m[0];
}

export const API_AUDIENCE = 'https://api.proxy-market.test';
export const WEB_CLIENT_ID = 'web';
export const API_CLIENT = { clientId: 'public-api' };
export const APP_URL = 'http://127.0.0.1:9/app';
export const REDIRECT_URI = 'http://127.0.0.1:9/callback';
export const CORS_ORIGIN = 'http://127.0.0.1:9';

export function testConfig(
  db: DbHandle,
  smtpUrl: string,
  overrides: Partial<IdentityConfig> = {},
): IdentityConfig {
  return {
    host: '127.0.0.1',
    port: 0,
    db,
    apiAudience: API_AUDIENCE,
    webClient: { clientId: WEB_CLIENT_ID, redirectUris: [REDIRECT_URI], postLogoutRedirectUris: [APP_URL] },
    apiClient: API_CLIENT,
    corsOrigins: [CORS_ORIGIN],
    appUrl: APP_URL,
    smtpUrl,
    mailFrom: 'ProxyMarket <no-reply@proxy-market.test>',
    cookieKeys: ['test-cookie-key-one', 'test-cookie-key-two'],
    ...overrides,
  };
}

export function startIdentity(
  db: DbHandle,
  smtpUrl: string,
  overrides?: Partial<IdentityConfig>,
): Promise<IdentityHandle> {
  return start(testConfig(db, smtpUrl, overrides));
}

/** A minimal browser: keeps cookies per host (ignores Path), follows redirects on the identity host only. */
export class Browser {
  readonly cookies = new Map<string, string>();
  /** Origin whose redirects we follow; anything else (the client's redirect URI) is returned. */
  readonly origin: string;

  constructor(origin: string) {
    this.origin = origin;
  }

  private store(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair?.indexOf('=') ?? -1;
      if (!pair || eq < 0) continue;
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired = /max-age=0|expires=Thu, 01 Jan 1970/i.test(line) || value === '';
      if (expired) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  private header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  /** One request without following redirects. */
  async request(url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookies.size) headers.set('cookie', this.header());
    const res = await fetch(url, { ...init, headers, redirect: 'manual' });
    this.store(res);
    return res;
  }

  /** Follows redirects (at most 15) while they stay on our origin; returns the final response and URL. */
  async go(url: string, init: RequestInit = {}): Promise<{ res: Response; url: string }> {
    let current = url;
    let res = await this.request(current, init);
    for (let hops = 0; hops < 15; hops++) {
      const location = res.headers.get('location');
      if (res.status < 300 || res.status >= 400 || !location) return { res, url: current };
      const next = new URL(location, current).href;
      if (!next.startsWith(this.origin)) return { res, url: next };
      await res.arrayBuffer();
      current = next;
      res = await this.request(current);
    }
    throw new Error('too many redirects');
  }

  /** Posts a form like a browser, adding the CSRF field read from the page we came from. */
  async submit(action: string, pageHtml: string, fields: Record<string, string>) {
    const csrf = /name="_csrf" value="([^"]+)"/.exec(pageHtml)?.[1] ?? '';
    const extra: Record<string, string> = {};
    for (const m of pageHtml.matchAll(/<input type="hidden" name="(\w+)" value="([^"]*)"\/?>/g)) {
      if (m[1] && m[1] !== '_csrf') extra[m[1]] = decodeEntities(m[2] ?? '');
    }
    return this.go(new URL(action, this.origin).href, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ ...extra, _csrf: csrf, ...fields }).toString(),
    });
  }
}

function decodeEntities(s: string): string {
  return s
    .replace(/&amp;/g, '&')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>');
}

/** The action attribute of the first form on a page. */
export function formAction(pageHtml: string): string {
  const m = /<form[^>]* action="([^"]+)"/.exec(pageHtml);
  if (!m?.[1]) throw new Error(`no form on page: ${pageHtml.slice(0, 500)}`);
  return decodeEntities(m[1]);
}

/**
 * Token endpoint call for the password grant (a public client: `client_id`, no secret); `forwardedFor` is the
 * X-Forwarded-For a proxy in front would pass on.
 */
export async function passwordGrant(
  issuer: string,
  fields: { username: string; password: string; client_id?: string; client_secret?: string; otp?: string },
  opts: { forwardedFor?: string | undefined } = {},
): Promise<{ status: number; body: Record<string, unknown>; retryAfter: string | null }> {
  const res = await fetch(`${issuer}/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(opts.forwardedFor ? { 'x-forwarded-for': opts.forwardedFor } : {}),
    },
    body: new URLSearchParams({
      grant_type: 'password',
      client_id: API_CLIENT.clientId,
      ...fields,
    }).toString(),
  });
  return {
    status: res.status,
    body: (await res.json()) as Record<string, unknown>,
    retryAfter: res.headers.get('retry-after'),
  };
}

/** openid-client (a standard RP we did not write) configured for the web client. */
export async function discoverWebClient(issuer: string): Promise<oidc.Configuration> {
  return oidc.discovery(
    new URL(issuer),
    WEB_CLIENT_ID,
    { id_token_signed_response_alg: 'ES256' },
    oidc.None(),
    { execute: [oidc.allowInsecureRequests] },
  );
}

/**
 * Runs authorization code + PKCE through the sign-in page with `browser`, then redeems the code
 * with openid-client. It asks for the market API's resource, as the web app does, unless
 * `resource` is null (a plain OpenID client). `extra` adds authorization parameters (e.g. `ref`).
 */
export async function codeFlowSignIn(
  config: oidc.Configuration,
  browser: Browser,
  creds: { email: string; password: string; totp?: { next(): Promise<string> } },
  extra: Record<string, string> = {},
  resource: string | null = API_AUDIENCE,
) {
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const authUrl = oidc.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT_URI,
    scope: 'openid email offline_access',
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    ...(resource ? { resource } : {}),
    ...extra,
  });
  const page = await browser.go(authUrl.href);
  const html = await page.res.text();
  if (!html.includes('Sign in'))
    throw new Error(`expected the sign-in page, got ${page.res.status}: ${html.slice(0, 300)}`);
  let done = await browser.submit(formAction(html), html, { email: creds.email, password: creds.password });
  if (creds.totp && !done.url.startsWith(REDIRECT_URI)) {
    const codePage = await done.res.text();
    done = await browser.submit(formAction(codePage), codePage, { code: await creds.totp.next() });
  }
  if (!done.url.startsWith(REDIRECT_URI)) {
    throw new Error(
      `sign-in did not reach the client: ${done.res.status} ${(await done.res.text()).slice(0, 600)}`,
    );
  }
  return oidc.authorizationCodeGrant(
    config,
    new URL(done.url),
    { pkceCodeVerifier: verifier, expectedState: state },
    resource ? { resource } : undefined,
  );
}

/**
 * The tests' outside TOTP client: otplib, a library the product does not use for its own check,
 * generating codes from a secret as an authenticator app would. Each `next()` is a code of a step
 * not handed out before (now, else the next one, which the host's one-step window accepts; past
 * that it waits), since the host never accepts a step twice.
 */
export function outsideTotp(secret: string): { next(): Promise<string>; at(ms: number): Promise<string> } {
  let lastStep = -1;
  const codeAt = (step: number) => generate({ secret, epoch: step * 30 });
  return {
    at: (ms) => codeAt(Math.floor(ms / 30_000)),
    async next() {
      let now = Math.floor(Date.now() / 30_000);
      while (lastStep + 1 > now + 1) {
        await new Promise((r) => setTimeout(r, 250)); // sleeps: the host's TOTP step is wall-clock time
        now = Math.floor(Date.now() / 30_000);
      }
      lastStep = Math.max(now, lastStep + 1);
      return codeAt(lastStep);
    },
  };
}

/** A fixed 160-bit test secret (base32), for staff enrolled by `enrolTotp`. */
export const TEST_TOTP_SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
