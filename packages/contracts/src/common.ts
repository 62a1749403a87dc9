import { z } from 'zod';

/** Integer cents; every money amount on the wire is one of these. */
export const ZCents = z.number().int().safe();

/** A query-string integer (`?limit=10`), coerced and bounded. */
export const zQueryInt = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

/** A date or date-time in the query string (`2026-11-21` or ISO 8601), parsed to a Date. */
export const ZQueryDate = z
  .string()
  .refine(
    (s) => /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(s) && !Number.isNaN(Date.parse(s)),
    {
      message: 'must be a date (YYYY-MM-DD) or an ISO 8601 date-time',
    },
  )
  .transform((s) => new Date(s));

/** Body of every error answer. `field` names the offending input for 400s. */
export const ZErrorBody = z.object({
  error: z.string(),
  message: z.string(),
  field: z.string().optional(),
  requestId: z.string().optional(),
  errorCode: z.string().optional(),
});
export type TErrorBody = z.infer<typeof ZErrorBody>;
