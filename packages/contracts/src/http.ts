import { z } from 'zod';

/** A body that must be empty: absent, `null` or `{}` (e.g. `PUT /accounts/my`). */
export const ZEmptyBody = z.object({}).strict().nullish();

/**
 * Optional `Idempotency-Key` request header: a retried request with the same key is applied once.
 * Other headers pass through untouched.
 */
export const ZIdempotencyKeyHeaders = z.looseObject({
  'idempotency-key': z
    .string()
    .min(1)
    .max(200)
    .regex(/^[\x21-\x7e]+$/, { message: 'must be printable ASCII without spaces' })
    .optional(),
});

/** `GET /healthz`, `GET /readyz`. */
export const ZHealthResponse = z.object({ status: z.literal('ok') });
export type THealthResponse = z.infer<typeof ZHealthResponse>;
