import type Router from '@koa/router';
import { AppError, type Endpoint, type SuccessOf } from '@pm/contracts';
import type { Context } from 'koa';
import type { z } from 'zod';
import { errorAnswer, sendChecked } from './answers.ts';
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

/** Parses a body with the declaration's schema; a 400 naming the field (`message` 'field: reason') when it fails. */
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
 * body is read), then the body parsed by the declaration's schema. The handler returns the success
 * answer typed by the declaration's success schema (a misspelt field fails the compiler); it goes
 * out with the declared success status, and every answer, errors included, is checked against its
 * schema on the way (answers.ts).
 */
export function registerIdentityEndpoint<E extends Endpoint>(
  api: IdentityApi,
  e: E,
  handler: (ctx: Context, input: IdentityInput<E>) => Promise<SuccessOf<E>>,
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
    try {
      const caller =
        e.visibility === 'staff'
          ? await api.requireStaff(ctx)
          : e.visibility === 'customer'
            ? await api.requireUser(ctx)
            : undefined;
      const body = e.body ? parseBody(e.body, await readBody(ctx)) : undefined;
      sendChecked(ctx, e, success, await handler(ctx, { body, caller } as IdentityInput<E>));
    } catch (err) {
      const failed = errorAnswer(e, err);
      sendChecked(ctx, e, failed.status, failed.body);
    }
  });
}
