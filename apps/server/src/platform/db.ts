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
