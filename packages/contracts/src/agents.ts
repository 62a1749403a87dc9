import { z } from 'zod';
import { ZCents, zQueryInt } from './common.ts';

/** Connection of an agent (rules §9: wifi, cell). */
export const CONNECTIONS = ['wifi', 'cell'] as const;
export const ZConn = z.enum(CONNECTIONS);
export type TConn = z.infer<typeof ZConn>;

/** Device kind; the shop shows an Android icon beside Conn for `android`. */
export const ZDev = z.enum(['android', 'other']);

/** Shop page sizes (rules §9); the first is the default. */
export const SHOP_PAGE_SIZES = [10, 20, 50] as const;
/** Default shop country and the quick chips (rules §2). */
export const DEFAULT_SHOP_COUNTRY = 'US';
export const SHOP_CHIP_COUNTRIES = ['US', 'GB', 'AE', 'CA', 'IT', 'CN'] as const;
/** Countries the Advanced Search (centre postal code and radius) is offered for (rules §5). */
export const RADIUS_SEARCH_COUNTRIES = [
  'US', 'CA', 'IT', 'AU', 'BD', 'BG', 'FR', 'CZ', 'FI', 'DE', 'GT', 'IN', 'IE', 'LT', 'MY', 'MX', 'NZ', 'PK',
  'PH', 'PL', 'PT', 'PR', 'RO', 'RU', 'KR', 'ES', 'LK', 'SE', 'CH', 'BY', 'BE', 'LV', 'TH', 'TR', 'UA',
] as const; // biome-ignore format: one country list
/** Radius choices of the desktop dialog in miles (0 means none); the mobile slider is 0-100 step 10. */
export const SEARCH_RADII_MI = [0, 10, 15, 30, 50, 80, 100] as const;
export const MAX_SEARCH_RADIUS_MI = 100;
/** A proxy is "new" when it was not sold in this many days (rules §9). */
export const NEW_AGENT_DAYS = 30;
/** Activity bands (rules §9): 0.7 or above ok, 0.4 or above medium, else low. */
export const ACTIVITY_OK = 0.7;
export const ACTIVITY_MEDIUM = 0.4;

/** Two-letter country code, upper case. */
export const ZCountryCode = z.string().regex(/^[A-Z]{2}$/, { message: 'must be a two-letter country code' });

/** Location of an agent's exit (rules §3 `loc`). `mob` marks a mobile carrier address. */
export const ZLoc = z.object({
  cc: z.string(),
  reg: z.string(),
  city: z.string(),
  zip: z.string(),
  isp: z.string(),
  mob: z.boolean(),
});
export type TLoc = z.infer<typeof ZLoc>;

/** IP score check result (rules §3 "Score check"); null until one was bought. */
export const ZScoreCheck = z.object({
  status: z.string(),
  score: z.object({
    status1: z.string(),
    score1: z.number(),
    status2: z.string(),
    score2: z.number(),
    status3: z.string(),
    score3: z.number(),
  }),
  warnings: z.object({
    proxy: z.boolean(),
    tor: z.boolean(),
    vpn: z.boolean(),
    hosting: z.boolean(),
    abuse: z.boolean(),
  }),
  time: z.string(),
});
export type TScoreCheck = z.infer<typeof ZScoreCheck>;

/** Last speed test through the agent: bits per second and when; null until one ran. */
export const ZSpeed = z.object({ bps: z.number().int().nonnegative(), checkTime: z.string() });
export type TSpeed = z.infer<typeof ZSpeed>;

/**
 * A proxy offer (rules §3 "Agent"). `ip` hides its last octet with underscores (`198.51.100.___`)
 * until the caller leases it; `leases.count` is the active leases, `leases.worn` is true when it
 * was sold in the last 30 days (so "New" is `!worn`). `firstSeen` starts the current uptime,
 * `age` is when the address was first seen on the network (before 2000 shows Unknown).
 */
export const ZAgent = z.object({
  id: z.string(),
  ip: z.string(),
  host: z.string(),
  loc: ZLoc,
  conn: ZConn,
  dev: ZDev,
  stars: z.number().int().min(1).max(10),
  leases: z.object({ count: z.number().int().nonnegative(), worn: z.boolean() }),
  /** Private and shared prices now, from the pricing rules. */
  priceExcC: ZCents,
  priceShrC: ZCents,
  firstSeen: z.string().nullable(),
  actv: z.number().min(0).max(1),
  probeActv: z.number().min(0).max(1),
  /** True when the caller holds, or held, a lease on this agent. */
  used: z.boolean(),
  online: z.boolean(),
  blacklists: z.object({ listIDs: z.array(z.string()) }),
  scoreCheck: ZScoreCheck.nullable(),
  speed: ZSpeed.nullable(),
  age: z.string().nullable(),
});
export type TAgent = z.infer<typeof ZAgent>;

/** Filter option lists of the current country and filters (`segments=true`). */
export const ZSegments = z.object({
  isps: z.array(z.string()),
  zips: z.array(z.string()),
  cities: z.array(z.string()),
  regions: z.array(z.string()),
});
export type TSegments = z.infer<typeof ZSegments>;

const zQueryBool = z.enum(['true', 'false']).transform((s) => s === 'true');
const zFilterText = z.string().min(1).max(100);

/**
 * `GET /agents` (rules §7). `cursor` is the offset of the page; the answer's `cursor` is the next
 * offset, 0 when there is none. `leases`: none = no lease yet (private available), some = shared.
 * `exstars` is the minimum clean score. `geozip` with `georad` > 0 selects agents within that many
 * miles of the postal code's centre (only in RADIUS_SEARCH_COUNTRIES).
 */
export const ZAgentListQuery = z
  .object({
    cursor: zQueryInt(0, 1_000_000).default(0),
    limit: zQueryInt(1, 100).default(SHOP_PAGE_SIZES[0]),
    segments: zQueryBool.optional(),
    cc: ZCountryCode.default(DEFAULT_SHOP_COUNTRY),
    reg: zFilterText.optional(),
    city: zFilterText.optional(),
    zip: zFilterText.optional(),
    isp: zFilterText.optional(),
    ip1: zQueryInt(1, 255).optional(),
    ip2: zQueryInt(0, 255).optional(),
    conn: ZConn.optional(),
    leases: z.enum(['any', 'none', 'some']).optional(),
    fresh: zQueryBool.optional(),
    exstars: zQueryInt(1, 10).optional(),
    geozip: z.string().min(1).max(12).optional(),
    georad: zQueryInt(0, MAX_SEARCH_RADIUS_MI).optional(),
  })
  .strict();
export type TAgentListQuery = z.infer<typeof ZAgentListQuery>;

export const ZAgentListResponse = z.object({
  agents: z.array(ZAgent),
  cursor: z.number().int().nonnegative(),
  total: z.number().int().nonnegative(),
  segments: ZSegments.optional(),
});
export type TAgentListResponse = z.infer<typeof ZAgentListResponse>;

/** `GET /totals/agents?all=true`: proxies on offer per country code. */
export const ZCountryTotalsQuery = z.object({ all: zQueryBool.optional() }).strict();
export const ZCountryTotals = z.object({ countries: z.record(z.string(), z.number().int().nonnegative()) });
export type TCountryTotals = z.infer<typeof ZCountryTotals>;

export const ZAgentIdParams = z.object({ id: z.string().min(1).max(64) });
export const ZAgentNoteParams = z.object({ agentId: z.string().min(1).max(64) });

/** Note length (rules §9). */
export const MAX_NOTE_LENGTH = 200;
/** `PUT /agentnotes/{agentId}`: the caller's note on an agent, shown as the lease's note. */
export const ZAgentNoteBody = z.object({ note: z.string().max(MAX_NOTE_LENGTH) }).strict();
export type TAgentNoteBody = z.infer<typeof ZAgentNoteBody>;
