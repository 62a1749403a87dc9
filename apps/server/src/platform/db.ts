/** SQLSTATE of a unique-index violation. */
export const PG_UNIQUE_VIOLATION = '23505';
/** SQLSTATE of a CHECK constraint violation. */
export const PG_CHECK_VIOLATION = '23514';

/**
 * The PostgreSQL error code (SQLSTATE) of an error, or undefined when it is not a database error.
 * Drizzle wraps the driver's error in `cause`, so the chain is walked a few levels down.
 */
export function pgErrorCode(e: unknown): string | undefined {
  for (let cur = e, depth = 0; cur && typeof cur === 'object' && depth < 5; depth++) {
    const code = (cur as { code?: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
    cur = (cur as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Driver errors (Node's, on the socket) that mean the server could not be reached or went away. */
const NET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);
/** node-postgres's own messages for a connection lost, refused by the pool's timeout, or never made. */
const LOST_CONNECTION =
  /Connection terminated|timeout exceeded when trying to connect|encountered a connection error|Client was closed/;

/**
 * Whether an error means the database is unreachable (an outage, a restart, a failover) rather than
 * anything about the request: SQLSTATE class 08 (connection exception), 57P01-57P03 (shut down,
 * crashed, still starting), 53300 (too many connections), a socket error, or node-postgres's lost
 * connection. The error handler answers these 503 with Retry-After (docs/deploying.md, "What you see
 * when the database goes away"). Walks `cause` (Drizzle's wrapper) and `errors` (AggregateError).
 */
export function isDbUnavailable(e: unknown, depth = 0): boolean {
  if (!e || typeof e !== 'object' || depth > 5) return false;
  const { code, message, cause, errors } = e as {
    code?: unknown;
    message?: unknown;
    cause?: unknown;
    errors?: unknown;
  };
  if (typeof code === 'string') {
    if (/^08[0-9A-Z]{3}$/.test(code) || ['57P01', '57P02', '57P03', '53300'].includes(code)) return true;
    if (NET_CODES.has(code)) return true;
  }
  if (typeof message === 'string' && LOST_CONNECTION.test(message) && code === undefined) return true;
  if (Array.isArray(errors) && errors.some((x) => isDbUnavailable(x, depth + 1))) return true;
  return isDbUnavailable(cause, depth + 1);
}
