import type Router from '@koa/router';
import { AppError, type Endpoint } from '@pm/contracts';
import type { Context } from 'koa';
import type { z } from 'zod';
import { readBody } from './http.ts';
import type { StaffCaller } from './staff.service.ts';

/** A signed-in user calling one of their own operations (a valid access token of this issuer). */
export interface UserCaller {
  userId: string;
}

type Parsed<T> = T extends z.ZodType ? z.output<T> : undefined;

/** What a handler gets: the body as the declaration's schema parses it, and the caller's identity. */
export interface IdentityInput<E extends Endpoint> {
  body: Parsed<E['body']>;
  caller: E['visibility'] extends 'staff'
    ? StaffCaller
    : E['visibility'] extends 'customer'
      ? UserCaller
      : undefined;
}

/** Where the host's operations are mounted, and how a staff caller is recognised. */
export interface IdentityApi {
  router: Router;
  /** 401 without a valid access token of this issuer, 403 without both staff permissions. */
  requireStaff(ctx: Context): Promise<StaffCaller>;
  /** 401 without a valid access token of this issuer (any signed-in, unblocked user). */
  requireUser(ctx: Context): Promise<UserCaller>;
}

/**
 * The paths an operation answers at: its declared one and, when that ends in `/` (rules §7's admin
 * paths), the same without it, for callers that drop the slash.
 */
export function servedPaths(e: Endpoint): string[] {
  return e.path.endsWith('/') && e.path.length > 1 ? [e.path, e.path.slice(0, -1)] : [e.path];
}

/** Parses a body with the declaration's schema; a 400 `{ error: 'field: reason', field }` when it fails. */
function parseBody(schema: z.ZodType, raw: Record<string, unknown>): unknown {
  const result = schema.safeParse(raw);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue?.path.map(String).join('.') || 'body';
  throw new AppError('VALIDATION_FAILED', {
    message: `identity: invalid ${field}`,
    userMessage: `${field}: ${issue?.message ?? 'Invalid value'}`,
    details: { field },
  });
}

/**
 * Registers an operation of the endpoint contract (`@pm/contracts` ENDPOINTS, `api: 'identity'`) on
 * the host's JSON router: its method at `servedPaths(e)`, staff's token checked first (as before the
 * body is read), then the body parsed by the declaration's schema. The handler's answer goes out
 * with the declaration's success status: JSON, or `text/plain` for a string.
 */
export function registerIdentityEndpoint<E extends Endpoint>(
  api: IdentityApi,
  e: E,
  handler: (ctx: Context, input: IdentityInput<E>) => Promise<unknown>,
): void {
  if (e.api !== 'identity') throw new Error(`${e.operationId} is not declared for the identity host`);
  if (e.visibility === 'public') {
    throw new Error(`${e.operationId}: the identity host serves no public API operation`);
  }
  if (e.params || e.querystring || e.headers) {
    throw new Error(`${e.operationId}: the identity host's operations take a body only`);
  }
  const success = Number(Object.keys(e.response)[0]);
  api.router.register(servedPaths(e), [e.method], async (ctx: Context) => {
    const caller =
      e.visibility === 'staff'
        ? await api.requireStaff(ctx)
        : e.visibility === 'customer'
          ? await api.requireUser(ctx)
          : undefined;
    const body = e.body ? parseBody(e.body, await readBody(ctx)) : undefined;
    const answer = await handler(ctx, { body, caller } as IdentityInput<E>);
    ctx.status = success;
    if (typeof answer === 'string') ctx.type = 'text/plain';
    ctx.body = answer;
  });
}
