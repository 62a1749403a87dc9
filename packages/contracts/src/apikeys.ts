import { z } from 'zod';

/** API keys start with this, so a bearer token that is one is told from a JWT at a glance. */
export const API_KEY_PREFIX = 'pmk_';
/** The most unrevoked keys one customer may hold. */
export const MAX_API_KEYS = 20;

/** One key as the list shows it: never the key itself, only its first characters. */
export const ZApiKey = z.object({
  id: z.string(),
  name: z.string(),
  /** `pmk_` and the key's next 8 characters. */
  prefix: z.string(),
  created: z.string(),
  lastUsed: z.string().nullable(),
});
export type TApiKey = z.infer<typeof ZApiKey>;

/** `GET /apikeys`: the caller's unrevoked keys, newest first. */
export const ZApiKeyList = z.object({ keys: z.array(ZApiKey) });
export type TApiKeyList = z.infer<typeof ZApiKeyList>;

/** `POST /apikeys`: a name for the key (1-60 characters, trimmed). */
export const ZApiKeyCreateBody = z.object({ name: z.string().trim().min(1).max(60) }).strict();
export type TApiKeyCreateBody = z.input<typeof ZApiKeyCreateBody>;

/** The created key: the only answer that carries the key itself. */
export const ZApiKeyCreated = ZApiKey.extend({ key: z.string() });
export type TApiKeyCreated = z.infer<typeof ZApiKeyCreated>;

export const ZApiKeyIdParams = z.object({ id: z.uuid() });
