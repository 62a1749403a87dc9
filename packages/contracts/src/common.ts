import { type Cents, MAX_CENTS } from '@pm/money';
import { z } from 'zod';
import { FEATURE_ERROR_CODES } from './error-codes.ts';

/** A schema whose parsed value is typed `T`: how zod's own `.brand()` types its output. */
type Yields<S extends z.ZodType, T> = S & { _zod: { output: T } };

/**
 * Integer cents; every money amount on the wire is one of these. Bounded by `MAX_CENTS`
 * ($1,000,000,000.00) either way, the same bound as the database's CHECK constraints, so every
 * amount a request may carry can be stored and read back. A parsed value is typed `Cents`
 * (`@pm/money`'s brand), so web and server amounts cannot be mixed up with plain numbers; what
 * a client sends is typed `number`.
 */
export const ZCents = z.number().int().min(-MAX_CENTS).max(MAX_CENTS) as Yields<z.ZodNumber, Cents>;

/** A query-string integer (`?limit=10`), coerced and bounded. */
export const zQueryInt = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

/** Earliest instant any date input may name (inclusive): 2000-01-01T00:00:00Z. */
export const MIN_DATE_MS = Date.UTC(2000, 0, 1);
/** End of the supported date range (exclusive): 10000-01-01T00:00:00Z, so years 2000-9999. */
export const MAX_DATE_MS = Date.UTC(10000, 0, 1);

/** True when `d` is a valid date inside the supported range (years 2000-9999, UTC). */
export function isSupportedDate(d: Date): boolean {
  const ms = d.getTime();
  return ms >= MIN_DATE_MS && ms < MAX_DATE_MS;
}

const QUERY_DATE_MESSAGE = 'must be a date (YYYY-MM-DD) or an ISO 8601 date-time in the years 2000-9999';
const QUERY_DATE =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;

/** Parses `YYYY-MM-DD` or an ISO 8601 date-time; null when malformed, not a calendar day, or out of range. */
export function parseQueryDate(s: string): Date | null {
  const m = QUERY_DATE.exec(s);
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  // Date.parse rolls 2026-02-30 over to March 2nd; a day the calendar does not have is refused.
  const day = new Date(Date.UTC(y, mo - 1, d));
  if (day.getUTCFullYear() !== y || day.getUTCMonth() !== mo - 1 || day.getUTCDate() !== d) return null;
  const parsed = new Date(s);
  return isSupportedDate(parsed) ? parsed : null;
}

/** A date or date-time in the query string (`2026-11-21` or ISO 8601), years 2000-9999, parsed to a Date. */
export const ZQueryDate = z
  .string()
  // The shape goes into the OpenAPI document as a pattern; the calendar and range checks cannot.
  .regex(QUERY_DATE, { message: QUERY_DATE_MESSAGE })
  .refine((s) => parseQueryDate(s) !== null, { message: QUERY_DATE_MESSAGE })
  .transform((s) => new Date(s));

/**
 * Body of every error answer. `field` names the offending input for 400s; `errorCode` the feature
 * rule that refused (error-codes.ts), narrowed per operation to the codes it declares.
 */
export const ZErrorBody = z.object({
  error: z.string(),
  message: z.string(),
  field: z.string().optional(),
  requestId: z.string().optional(),
  errorCode: z.enum(FEATURE_ERROR_CODES).optional(),
});
export type TErrorBody = z.infer<typeof ZErrorBody>;
