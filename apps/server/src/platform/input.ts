import { AppError, isSupportedDate } from '@pm/contracts';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/**
 * Rules every route's input obeys before its own schema and handler see it, so a route added
 * later cannot forget them (the OpenAPI fuzz test checks that it did not):
 * - bodies are UTF-8: a JSON or text body with an invalid byte sequence is refused;
 * - no string in the path, query or body (keys included) holds a NUL or an unpaired surrogate
 *   (PostgreSQL cannot store the first, and the second is not text);
 * - every percent-escape in the query string decodes to UTF-8 (Fastify would keep `%FF` as is);
 * - after validation, every Date is within the supported years (2000-9999) and every number is
 *   finite and within the exact-integer range.
 * Each refusal is a 400 VALIDATION_FAILED naming the field, like a schema failure.
 */
export function registerInputRules(app: FastifyInstance): void {
  registerBodyParsers(app);
  app.addHook('preValidation', async (req) => {
    checkQueryEscapes(req);
    checkValues(req, checkText);
  });
  app.addHook('preHandler', async (req) => {
    checkValues(req, checkParsed);
  });
}

/** Refusal naming `field`, in the message form the schema errors use (`field: reason`). */
function invalid(field: string, reason: string): AppError {
  return new AppError('VALIDATION_FAILED', {
    message: `input rule: ${field} ${reason}`,
    userMessage: `${field}: ${reason}`,
    details: { field },
  });
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * JSON and text bodies are decoded strictly: Fastify's own decoding turns invalid UTF-8 into
 * U+FFFD silently. An empty body (e.g. `PUT /accounts/my` sent with a JSON content type, or
 * `fetch(url, { method: 'PUT', body: '' })` as text/plain) parses as "no body"; the route's
 * schema decides whether that is acceptable.
 */
function registerBodyParsers(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  const decode = (body: string | Buffer): string => {
    try {
      return typeof body === 'string' ? body : utf8.decode(body);
    } catch {
      throw invalid('body', 'must be valid UTF-8');
    }
  };
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (req, body, done) => {
    let text: string;
    try {
      text = decode(body);
    } catch (e) {
      return done(e as AppError, undefined);
    }
    if (text === '') return done(null, undefined);
    return parseJson(req, text, done);
  });
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser('text/plain', { parseAs: 'buffer' }, (_req, body, done) => {
    try {
      const text = decode(body);
      done(null, text === '' ? undefined : text);
    } catch (e) {
      done(e as AppError, undefined);
    }
  });
}

/** In a `u` regex a surrogate pair is one code point, so `\p{Cs}` finds only unpaired halves. */
const LONE_SURROGATE = /\p{Cs}/u;

/** A reason the string is not acceptable text, or null. */
function textProblem(s: string): string | null {
  if (s.includes('\u0000')) return 'must not contain NUL characters';
  if (LONE_SURROGATE.test(s)) return 'must be valid UTF-8 text (no unpaired surrogates)';
  return null;
}

/** Every `%xx` run in the raw query string must decode as UTF-8; names the parameter it is in. */
function checkQueryEscapes(req: FastifyRequest): void {
  const url = req.raw.url ?? '';
  const q = url.indexOf('?');
  if (q < 0 || !url.includes('%', q)) return;
  for (const pair of url.slice(q + 1).split('&')) {
    if (!pair.includes('%')) continue;
    const eq = pair.indexOf('=');
    const rawKey = eq < 0 ? pair : pair.slice(0, eq);
    const key = tryDecode(rawKey);
    if (key === null) throw invalid('query', 'a parameter name has a malformed percent-encoding');
    if (eq >= 0 && tryDecode(pair.slice(eq + 1)) === null) {
      throw invalid(key || 'query', 'malformed percent-encoding (must encode UTF-8)');
    }
  }
}

function tryDecode(s: string): string | null {
  try {
    return decodeURIComponent(s.replaceAll('+', ' '));
  } catch {
    return null;
  }
}

type Check = (value: unknown, field: string) => void;

const PARTS = ['params', 'query', 'body'] as const;

/**
 * Walks params, query and body (iteratively: a deeply nested JSON body must not overflow the
 * stack) and applies `check` to every value and every object key. Fields are named the way the
 * schema errors name them: the path inside the part (`permissions.add.0`), or the part itself.
 */
function checkValues(req: FastifyRequest, check: Check): void {
  for (const part of PARTS) {
    const stack: [unknown, string][] = [[req[part], '']];
    for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
      const [value, path] = item;
      const field = path || part;
      check(value, field);
      if (value === null || typeof value !== 'object' || value instanceof Date) continue;
      for (const [key, child] of Object.entries(value)) {
        check(key, path ? `${path}.${key}` : key);
        stack.push([child, path ? `${path}.${key}` : key]);
      }
    }
  }
}

/** Before validation: strings only. */
function checkText(value: unknown, field: string): void {
  if (typeof value !== 'string') return;
  const problem = textProblem(value);
  if (problem) throw invalid(safeField(field), problem);
}

/** After validation: what the schemas turned strings into. */
function checkParsed(value: unknown, field: string): void {
  if (value instanceof Date && !isSupportedDate(value)) {
    throw invalid(field, 'must be a date in the years 2000-9999');
  }
  if (typeof value === 'number' && (!Number.isFinite(value) || Math.abs(value) > Number.MAX_SAFE_INTEGER)) {
    throw invalid(field, 'must be a finite number within ±9007199254740991');
  }
}

/** A field name fit to echo: a hostile key is named by its readable prefix. */
function safeField(field: string): string {
  const clean = field.replace(/\p{Cc}|\p{Cs}/gu, '?');
  return clean.length > 100 ? `${clean.slice(0, 100)}…` : clean;
}
