import { z } from 'zod';
import { ZConn, ZLoc, ZSpeed } from './agents.ts';
import { ZCents, ZErrorBody, zQueryInt } from './common.ts';

/** Lease ids: 4 word characters, a dash and 4 digits (rules §5, admin lease id search). */
export const LEASE_ID_PATTERN = /^[a-z0-9]{4}-[0-9]{4}$/;
/** Extracts a lease id from free text the way the admin search does. */
export const LEASE_ID_SEARCH = /\w{4}-\d{4}/;

/** Shared leases an agent takes at once (rules §9: "up to 4 sharers"). */
export const MAX_SHARED_LEASES = 4;
/** Lease duration (rules §9). */
export const LEASE_DURATION_MS = 24 * 60 * 60 * 1000;
/** A lease is renewable in its last 5 hours (rules §4, Renew). */
export const RENEW_WINDOW_MS = 5 * 60 * 60 * 1000;
/** Offsets added to a node's SOCKS base port; every one accepts the lease's credentials (rules §9). */
export const SOCKS_PORT_OFFSETS = [2080, 3080, 4080, 5080] as const;
/** The leases' HTTP proxy port: the node's base port plus this (docs/gateway.md, "The HTTP proxy"). */
export const LEASE_HTTP_PORT_OFFSET = 6080;
/** Entries in a lease's no-auth whitelist. */
export const MAX_WHITELIST_ENTRIES = 20;

/** Auto-refund when this share of SOCKS requests failed (rules §9: 40% or more). */
export const AUTO_REFUND_FAIL_PCT = 40;
/** Refund window, traffic and speed limits (rules §9). */
export const REFUND_WINDOW_MS = 4 * 60 * 60 * 1000;
export const REFUND_MAX_TRAFFIC_BYTES = 100 * 1000 * 1000;
export const REFUND_MAX_SPEED_BPS = 500_000;
/** Static proxies are refundable within 1 hour, only if unused (rules §9). */
export const STATIC_REFUND_WINDOW_MS = 60 * 60 * 1000;

const IPV4_OCTET = /^(\d{1,3})$/;

/** True for a dotted IPv4 address whose four octets are 0-255. */
export function isIpv4(text: string): boolean {
  const parts = text.split('.');
  return parts.length === 4 && parts.every((p) => IPV4_OCTET.test(p) && Number(p) <= 255);
}

/**
 * The widest range a whitelist takes: /24 (256 addresses, one customer's office or ISP pool). A
 * wider one would open the no-auth port to strangers (0.0.0.0/0 makes it an open proxy).
 */
export const WHITELIST_MIN_PREFIX = 24;

/** Why a whitelist entry is refused: not an IPv4 address or range, or a range wider than /24. */
export type WhitelistEntryProblem = 'invalid' | 'tooWide';

/** What is wrong with a whitelist entry (an IPv4 address, or a CIDR range /24 to /32), or null. */
export function whitelistEntryProblem(text: string): WhitelistEntryProblem | null {
  const [addr, bits, ...rest] = text.split('/');
  if (rest.length > 0 || addr === undefined || !isIpv4(addr)) return 'invalid';
  if (bits === undefined) return null;
  if (!/^\d{1,2}$/.test(bits) || Number(bits) > 32) return 'invalid';
  return Number(bits) < WHITELIST_MIN_PREFIX ? 'tooWide' : null;
}

/** True for an IPv4 address or an IPv4 CIDR range no wider than /24 (`198.51.100.0/24`). */
export function isWhitelistEntry(text: string): boolean {
  return whitelistEntryProblem(text) === null;
}

export type WhitelistParse =
  | { ok: true; entries: string[] }
  | { ok: false; bad: string; problem: WhitelistEntryProblem };

/**
 * Parses a whitelist as typed by the customer: comma-separated IPv4 addresses or CIDR ranges up to
 * /24 wide, blanks ignored, duplicates dropped. Empty text is an empty whitelist. Reports the first
 * bad entry and what is wrong with it.
 */
export function parseWhitelist(input: string | readonly string[]): WhitelistParse {
  const raw = typeof input === 'string' ? input.split(',') : input.flatMap((s) => s.split(','));
  const entries: string[] = [];
  for (const part of raw) {
    const entry = part.trim();
    if (entry === '') continue;
    const problem = whitelistEntryProblem(entry);
    if (problem) return { ok: false, bad: entry, problem };
    if (!entries.includes(entry)) entries.push(entry);
  }
  return { ok: true, entries };
}

/** The message for a refused whitelist entry, naming it (the API's 400, the web form's error). */
export function describeWhitelistProblem(refusal: { bad: string; problem: WhitelistEntryProblem }): string {
  return refusal.problem === 'tooWide'
    ? `Whitelist range wider than /${WHITELIST_MIN_PREFIX}: ${refusal.bad}`
    : `Invalid whitelist entry: ${refusal.bad}`;
}

/**
 * `POST /authport/create/{id}` body. The web client sends the whitelist string as JSON (rules §7);
 * `{ "whitelist": "1.2.3.4,5.6.7.0/24" }` and an array of entries are accepted too.
 */
export const ZAuthPortCreateBody = z.union([
  z.string().max(2000),
  z.object({ whitelist: z.union([z.string().max(2000), z.array(z.string().max(64)).max(100)]) }),
]);
export type TAuthPortCreateBody = z.infer<typeof ZAuthPortCreateBody>;

export const ZAuthPortParams = z.object({ id: z.string().min(1).max(64) });

/** Lease `authPort`: node address, port, and the whitelist as the comma-separated text the UI edits. */
export const ZAuthPort = z.object({ node: z.string(), port: z.number().int(), whitelist: z.string() });
export type TAuthPort = z.infer<typeof ZAuthPort>;

export const ZAuthPortCreateResponse = z.object({
  status: z.literal('AUTHPORT_CREATED'),
  authPort: ZAuthPort,
});
export type TAuthPortCreateResponse = z.infer<typeof ZAuthPortCreateResponse>;

/** The four SOCKS5 ports of a lease on a node with this base port (rules §9: base + 2080 to 5080). */
export const leaseSocksPorts = (basePort: number): number[] =>
  SOCKS_PORT_OFFSETS.map((offset) => basePort + offset);

/** The HTTP proxy port of a lease on a node with this base port (base + 6080). */
export const leaseHttpPort = (basePort: number): number => basePort + LEASE_HTTP_PORT_OFFSET;

/**
 * Lease `socks`: where and how to connect. Rules §3's fields (host, ip, base `port`, credentials) plus
 * the concrete ports, so no client adds offsets: `ports` are the four SOCKS5 ports, `httpPort` the
 * HTTP proxy's; all take the same user and password.
 */
export const ZSocks = z.object({
  host: z.string().describe('The gateway node’s host name'),
  ip: z.string().describe('The gateway node’s IP address (connect to this, or to `host`)'),
  port: z
    .number()
    .int()
    .describe(
      'The node’s base port, kept for older clients; not a port to connect to: the SOCKS5 ports are `ports`, the HTTP proxy’s `httpPort`',
    ),
  ports: z
    .array(z.number().int())
    .length(SOCKS_PORT_OFFSETS.length)
    .describe('The four SOCKS5 ports (base + 2080, 3080, 4080, 5080); each takes `user` and `pwd`'),
  httpPort: z
    .number()
    .int()
    .describe(
      'The HTTP proxy port (CONNECT and plain HTTP, Basic `Proxy-Authorization` with `user` and `pwd`)',
    ),
  user: z.string().describe('SOCKS5 and HTTP proxy user name'),
  pwd: z.string().describe('SOCKS5 and HTTP proxy password'),
});
export type TSocks = z.infer<typeof ZSocks>;

/**
 * Lease `stats` (rules §3). `failPct` is fails / reqs * 100, 0 without requests. `authFails` counts the
 * connections refused for a wrong user name or password, apart: they are neither requests nor
 * failures of the proxy, so they never move `failPct`.
 */
export const ZLeaseStats = z.object({
  reqs: z.number().int(),
  failPct: z.number(),
  authFails: z.number().int(),
  inBytes: z.number().int(),
  outBytes: z.number().int(),
  refundable: z.boolean(),
});
export type TLeaseStats = z.infer<typeof ZLeaseStats>;

/** Properties of the agent a lease was bought on (`info`) or has now (`currentInfo`), rules §3. */
export const ZLeaseInfo = z.object({
  ip: z.string(),
  host: z.string(),
  loc: ZLoc,
  /** Clean score 1-10. */
  score: z.number().int().min(1).max(10),
  /** Active leases on the agent. */
  leases: z.number().int().nonnegative(),
  age: z.string().nullable(),
  actv: z.number().min(0).max(1),
  conn: ZConn,
  blacklists: z.array(z.string()),
});
export type TLeaseInfo = z.infer<typeof ZLeaseInfo>;

export const ZLeaseCurrentInfo = ZLeaseInfo.extend({
  speedCheck: z.string().nullable(),
  speed: ZSpeed.nullable(),
  /**
   * Start of the agent's current online interval (the lease's Uptime, as `firstSeen` is the shop's),
   * null while it is offline: the lease carries it, so no client asks `GET /agents/{id}`, which
   * hides static and sold-out agents. Older servers omit it (read as null).
   */
  onlineSince: z.string().nullable().default(null),
});
export type TLeaseCurrentInfo = z.infer<typeof ZLeaseCurrentInfo>;

/**
 * An active lease (rules §3 "Lease (active)"). `agent` is the agent's path (`/agents/{id}`),
 * `exc` true means private, `renewable` is true in the last 5 hours, `user` the owner's id.
 */
export const ZLease = z.object({
  id: z.string(),
  agent: z.string(),
  agentId: z.string(),
  start: z.string(),
  until: z.string(),
  info: ZLeaseInfo,
  currentInfo: ZLeaseCurrentInfo,
  socks: ZSocks,
  authPort: ZAuthPort.nullable(),
  note: z.string(),
  autoRenew: z.boolean(),
  renewable: z.boolean(),
  static: z.boolean(),
  exc: z.boolean(),
  purchasePriceC: ZCents,
  stats: ZLeaseStats,
  user: z.string(),
});
export type TLease = z.infer<typeof ZLease>;

export const ZLeaseIdParams = z.object({ id: z.string().min(1).max(64) });

/** `GET /leases?cursor=`: the caller's active leases a page at a time; `cursor` 0 means done. */
export const ZLeasesQuery = z
  .object({ cursor: zQueryInt(0, 1_000_000).default(0), limit: zQueryInt(1, 100).default(50) })
  .strict();
export const ZLeasesResponse = z.object({ leases: z.array(ZLease), cursor: z.number().int().nonnegative() });
export type TLeasesResponse = z.infer<typeof ZLeasesResponse>;

/** `POST /leases` (rules §7): `expPriceC` is the private or shared price the shop showed. */
export const ZLeasePurchaseBody = z
  .object({
    agentID: z.string().min(1).max(64),
    expPriceC: ZCents.nonnegative(),
    probe: z.boolean().default(false),
    exc: z.boolean(),
  })
  .strict();
export type TLeasePurchaseBody = z.input<typeof ZLeasePurchaseBody>;

/** What `agentInfoChanged` lists in `changes`; the dialog's names are in LEASE_CHANGE_LABELS. */
export const LEASE_CHANGES = ['ip', 'geo', 'blacklists', 'host', 'score', 'rating'] as const;
export type LeaseChange = (typeof LEASE_CHANGES)[number];
export const LEASE_CHANGE_LABELS: Record<LeaseChange, string> = {
  ip: 'IP Address',
  geo: 'Geolocation',
  blacklists: 'Blacklists',
  host: 'DNS Hostname',
  score: 'IP Score',
  rating: 'Rating',
};

/**
 * Error body of `POST /leases`: `errorCode` one of PURCHASE_ERROR_CODES on a 409, with `changes`
 * for agentInfoChanged and the current `priceExcC`/`priceShrC` for priceChanged (so the screen reloads).
 */
export const ZPurchaseErrorBody = ZErrorBody.extend({
  changes: z.array(z.enum(LEASE_CHANGES)).optional(),
  priceExcC: ZCents.optional(),
  priceShrC: ZCents.optional(),
});
export type TPurchaseErrorBody = z.infer<typeof ZPurchaseErrorBody>;

/** `PATCH /leases/{id}/autoRenew?set=true|false`. */
export const ZAutoRenewQuery = z
  .object({ set: z.enum(['true', 'false']).transform((s) => s === 'true') })
  .strict();
