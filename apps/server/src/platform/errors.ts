import {
  type AppError,
  type AppErrorDetails,
  type ErrorCode,
  HTTP_STATUS,
  isAppError,
  type TErrorBody,
} from '@pm/contracts';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isDbUnavailable } from './db.ts';

/** What a 503 for an unreachable database tells clients to wait: about a reconnect's time. */
export const DB_RETRY_AFTER_SECONDS = 5;

interface ValidationIssue {
  instancePath?: string;
  keyword?: string;
  message?: string;
  params?: { keys?: unknown };
}

/** Status to error code for Fastify's own 4xx errors (body parsing, limits). */
const CODE_BY_STATUS: Record<number, ErrorCode> = {
  401: 'UNAUTHENTICATED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  402: 'PAYMENT_REQUIRED',
  429: 'RATE_LIMITED',
};

/** Turns the first validation issue into `{ field, message: 'field: reason' }` (zod or JSON-schema shaped). */
export function describeValidation(
  issues: ValidationIssue[],
  context: string | undefined,
): { field: string; message: string } {
  const issue = issues[0] ?? {};
  let field = (issue.instancePath ?? '').replace(/^\//, '').replaceAll('/', '.');
  const keys = issue.params?.keys;
  if (issue.keyword === 'unrecognized_keys' && Array.isArray(keys) && typeof keys[0] === 'string') {
    field = field ? `${field}.${keys[0]}` : keys[0];
  }
  if (!field) field = context ?? 'request';
  return { field, message: `${field}: ${issue.message ?? 'Invalid value'}` };
}

/** Message for a body Fastify could not parse; never echoes the body itself. */
function bodyProblem(err: FastifyError): string {
  switch (err.code) {
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return 'body: Body cannot be empty when content-type is application/json';
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return 'body: Request body is too large';
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return 'body: Unsupported content type';
    default:
      return 'body: Invalid JSON';
  }
}

/**
 * The error's details as the operation may answer them. A feature code the operation does not
 * declare (`errorCodes` in the contract) is logged as the contract's gap and left out: its error
 * schema would refuse it, turning a refusal into a 500.
 */
function declaredDetails(req: FastifyRequest, err: AppError): AppErrorDetails | undefined {
  const code = err.details?.errorCode;
  const declared = req.routeOptions.config?.errorCodes;
  if (code === undefined || declared === undefined || declared.includes(code)) return err.details;
  req.log.error({ errorCode: code, url: req.routeOptions.url }, 'error code not declared by the operation');
  const { errorCode: _undeclared, ...rest } = err.details ?? {};
  return rest;
}

function send(req: FastifyRequest, reply: FastifyReply, status: number, body: TErrorBody): FastifyReply {
  if (status === 401) reply.header('www-authenticate', 'Bearer');
  return reply
    .code(status)
    .header('x-request-id', req.id)
    .send({ ...body, requestId: req.id });
}

/**
 * Answers the errors Fastify raises before routing (its `frameworkErrors` option) in the API's
 * own format: a path with a malformed percent-encoding (FST_ERR_BAD_URL) or a path segment past
 * the router's length limit (FST_ERR_MAX_PARAM_LENGTH) is a 400 naming `path`; anything else
 * is a masked 500. No hook has run, so the request id header is set here too.
 */
export function handleFrameworkError(err: FastifyError, req: FastifyRequest, reply: FastifyReply): void {
  const reason: Record<string, string> = {
    FST_ERR_BAD_URL: 'path: malformed percent-encoding (must encode UTF-8)',
    FST_ERR_MAX_PARAM_LENGTH: 'path: a path segment is too long',
  };
  const message = err.code === undefined ? undefined : reason[err.code];
  if (message !== undefined) {
    req.log.info({ code: err.code, reason: message }, 'request refused');
    send(req, reply, 400, { error: 'VALIDATION_FAILED', message, field: 'path' });
    return;
  }
  req.log.error({ err }, 'framework error');
  send(req, reply, 500, { error: 'INTERNAL', message: 'Something went wrong' });
}

/**
 * The one error handler: maps AppError codes to statuses through HTTP_STATUS (with `Retry-After`
 * when the error's details carry `retryAfterSeconds`), validation and body-parse failures to 400
 * naming the field, an unreachable database to 503 with Retry-After, and everything else to a
 * masked 500.
 */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError | AppError, req, reply) => {
    if (isAppError(err)) {
      const status = HTTP_STATUS[err.code];
      if (status >= 500) req.log.error({ err }, 'request failed');
      else req.log.info({ code: err.code, reason: err.message }, 'request refused');
      // A refusal that says when to come back (429, 503) says it in the header HTTP clients read too.
      const retryAfter = err.details?.retryAfterSeconds;
      if (typeof retryAfter === 'number' && retryAfter > 0) reply.header('retry-after', String(retryAfter));
      return send(req, reply, status, {
        ...declaredDetails(req, err),
        error: err.code,
        message: err.userMessage,
      });
    }
    const fastifyErr = err as FastifyError;
    if (Array.isArray(fastifyErr.validation)) {
      const { field, message } = describeValidation(fastifyErr.validation, fastifyErr.validationContext);
      req.log.info({ field, reason: message }, 'validation failed');
      return send(req, reply, 400, { error: 'VALIDATION_FAILED', message, field });
    }
    const status = fastifyErr.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      const code = CODE_BY_STATUS[status] ?? 'VALIDATION_FAILED';
      const isBody = fastifyErr.code?.startsWith('FST_ERR_CTP') || err instanceof SyntaxError;
      req.log.info({ code: fastifyErr.code, reason: fastifyErr.message }, 'request refused');
      if (isBody)
        return send(req, reply, status, { error: code, message: bodyProblem(fastifyErr), field: 'body' });
      return send(req, reply, status, { error: code, message: fastifyErr.message });
    }
    // The database away (outage, restart): the request may succeed later, so 503 and when to retry.
    if (isDbUnavailable(err)) {
      req.log.warn(
        { err: { message: err.message, code: (err as FastifyError).code } },
        'database unavailable',
      );
      reply.header('retry-after', String(DB_RETRY_AFTER_SECONDS));
      return send(req, reply, 503, { error: 'UNAVAILABLE', message: 'Service unavailable, retry later' });
    }
    // Database, serialization and programming errors: logged with context, never shown.
    req.log.error({ err }, 'unhandled error');
    return send(req, reply, 500, { error: 'INTERNAL', message: 'Something went wrong' });
  });

  app.setNotFoundHandler((req, reply) => {
    send(req, reply, 404, { error: 'NOT_FOUND', message: 'Not found' });
  });
}
