import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context, Next } from 'koa';

const MAX_BODY_BYTES = 64 * 1024;

/** Reads a small urlencoded or JSON body into a plain object; {} for anything else or invalid JSON. */
export async function readBody(ctx: Context): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) ctx.throw(413, 'Request body too large');
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (ctx.is('application/json')) {
    try {
      const parsed: unknown = JSON.parse(text || '{}');
      return parsed && typeof parsed === 'object' && !Array.isArray(parsed)
        ? (parsed as Record<string, unknown>)
        : {};
    } catch {
      return {};
    }
  }
  if (ctx.is('application/x-www-form-urlencoded')) return Object.fromEntries(new URLSearchParams(text));
  return {};
}

const CSRF_COOKIE = 'pm_csrf';

/** The per-browser CSRF secret (double-submit): set on first form view, compared on every POST. */
export function csrfToken(ctx: Context): string {
  let token = ctx.cookies.get(CSRF_COOKIE);
  if (!token || !/^[\w-]{43}$/.test(token)) {
    token = randomBytes(32).toString('base64url');
    ctx.cookies.set(CSRF_COOKIE, token, { httpOnly: true, sameSite: 'lax', secure: ctx.secure, path: '/' });
  }
  return token;
}

export function isCsrfValid(ctx: Context, body: Record<string, unknown>): boolean {
  const cookie = ctx.cookies.get(CSRF_COOKIE);
  const field = body._csrf;
  if (!cookie || typeof field !== 'string' || cookie.length !== field.length) return false;
  return timingSafeEqual(Buffer.from(cookie), Buffer.from(field));
}

/** Page hardening on every response; oidc-provider appends hashes to this CSP when it needs inline script. */
export async function securityHeaders(ctx: Context, next: Next): Promise<void> {
  ctx.set(
    'Content-Security-Policy',
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'",
  );
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('X-Frame-Options', 'DENY');
  if (ctx.secure) ctx.set('Strict-Transport-Security', 'max-age=31536000');
  await next();
}

/** CORS for our own JSON endpoints: fixed origin allow-list, bearer tokens only (no credentials). */
export function corsFor(origins: string[], pathPrefixes: string[]) {
  const allowed = new Set(origins);
  return async (ctx: Context, next: Next): Promise<void> => {
    if (!pathPrefixes.some((p) => ctx.path.startsWith(p))) return next();
    const origin = ctx.get('Origin');
    if (origin && allowed.has(origin)) {
      ctx.set('Access-Control-Allow-Origin', origin);
      ctx.vary('Origin');
      if (ctx.method === 'OPTIONS') {
        ctx.set('Access-Control-Allow-Methods', 'POST, OPTIONS');
        ctx.set('Access-Control-Allow-Headers', 'Authorization, Content-Type');
        ctx.set('Access-Control-Max-Age', '600');
        ctx.status = 204;
        return;
      }
    } else if (ctx.method === 'OPTIONS') {
      ctx.status = 204;
      return;
    }
    await next();
  };
}

export function sendHtml(ctx: Context, body: string, status = 200): void {
  ctx.status = status;
  ctx.type = 'html';
  ctx.set('Cache-Control', 'no-store');
  ctx.body = body;
}
