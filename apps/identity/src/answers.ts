import { randomUUID } from 'node:crypto';
import { type Endpoint, type ErrorCode, isAppError, type TErrorBody, ZErrorBody } from '@pm/contracts';
import type { Context } from 'koa';

/**
 * The answers of the identity host's own JSON API (the operations of `registerIdentityEndpoint`):
 * each checked against the schema its declaration gives for the status, and its errors in the
 * market API's body (`ZErrorBody`: `error` the code, `message` the text to show, `field` the input
 * at fault, `requestId` of a logged failure), so a client reads both hosts' errors alike.
 * oidc-provider's OAuth endpoints (`/token`, `/auth`, ...) are not answered here: they keep the
 * OAuth error format the standard requires (`{ error, error_description }`).
 */

/** Status to error code for Koa's own 4xx errors (a body past the size limit). */
const CODE_BY_STATUS: Record<number, ErrorCode> = {
  401: 'UNAUTHENTICATED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  429: 'RATE_LIMITED',
};

/** A Koa `ctx.throw` error meant for the caller (`expose`), as `readBody` throws for a 413. */
function isExposedHttpError(e: unknown): e is { status: number; message: string } {
  const err = e as { status?: unknown; expose?: unknown } | null;
  return typeof err?.status === 'number' && err.expose === true;
}

/** A failure the caller is not told about: logged under a request id the answer carries. */
function masked(operationId: string, what: string, detail: unknown): { status: number; body: TErrorBody } {
  const requestId = randomUUID();
  console.error(`identity: ${operationId} ${what} (request ${requestId})`, detail);
  return { status: 500, body: { error: 'INTERNAL', message: 'Something went wrong', requestId } };
}

/** The status and body of a failed operation, as the market's error handler answers them. */
export function errorAnswer(e: Endpoint, err: unknown): { status: number; body: TErrorBody } {
  if (isAppError(err)) {
    if (err.status >= 500) console.error(`identity: ${e.operationId} failed`, err);
    return { status: err.status, body: { ...err.details, error: err.code, message: err.userMessage } };
  }
  if (isExposedHttpError(err) && err.status < 500) {
    const error = CODE_BY_STATUS[err.status] ?? 'VALIDATION_FAILED';
    const body =
      err.status === 413 ? { field: 'body', message: `body: ${err.message}` } : { message: err.message };
    return { status: err.status, body: { error, ...body } };
  }
  return masked(e.operationId, 'failed', err);
}

/**
 * Sends an answer after checking it against the operation's schema for its status (an error
 * status the declaration leaves out is checked against `ZErrorBody`): what the schema parses goes
 * out, JSON or `text/plain` for a string. An answer outside its schema is the host's bug: a masked
 * 500, logged, like the market's serializer refusing a body.
 */
export function sendChecked(ctx: Context, e: Endpoint, status: number, body: unknown): void {
  const schema = e.response[status] ?? (status >= 400 ? ZErrorBody : undefined);
  const checked = schema ? schema.safeParse(body) : { success: true as const, data: body };
  if (!checked.success) {
    const failure = masked(e.operationId, `answered ${status} outside its schema`, checked.error.issues);
    sendChecked(ctx, e, failure.status, failure.body);
    return;
  }
  ctx.status = status;
  if (status === 401) ctx.set('WWW-Authenticate', 'Bearer');
  if (typeof checked.data === 'string') ctx.type = 'text/plain';
  ctx.body = checked.data;
}
