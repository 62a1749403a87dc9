/**
 * The checks of an agent's address (rules §2, 3, 5, 7, 9): DNS blacklists and the clean score they
 * give, speed checks through the gateway, and paid IP score checks (providers G, I, M).
 */
import { z } from 'zod';
import { ZCents, ZErrorBody } from './common.ts';

/** Known blacklist ids and their friendly names (rules §5). An unknown id is shown as it is. */
export const BLACKLIST_NAMES: Readonly<Record<string, string>> = {
  'spamhaus-sbl': 'Spamhaus SBL',
  'spamhaus-css': 'Spamhaus CSS',
  'spamhaus-xbl': 'Spamhaus XBL (exploits)',
  'spamhaus-drop': 'Spamhaus DROP',
  'spamhaus-pbl': 'Spamhaus PBL',
  barracuda: 'Barracuda Reputation',
  spamcop: 'SpamCop',
  'uceprotect-l1': 'UCEPROTECT Level 1',
  'uceprotect-l2': 'UCEPROTECT Level 2',
  'uceprotect-l3': 'UCEPROTECT Level 3',
  dronebl: 'DroneBL',
  sorbs: 'SORBS',
  psbl: 'Passive Spam Block List',
  mailspike: 'Mailspike',
  blocklistde: 'blocklist.de',
  'dan-tor': 'Tor exit (dan.me.uk)',
};

/**
 * The two lists dropped everywhere (rules §5): they list whole end-user ranges or whole networks
 * (Spamhaus PBL: every residential and mobile range; UCEPROTECT Level 3: every address of an
 * ASN with a few spammers), so they say nothing about the one address a buyer leases.
 */
export const IGNORED_BLACKLISTS: readonly string[] = ['spamhaus-pbl', 'uceprotect-l3'];

/** The lists worth showing: empty and ignored ids dropped, each id once, sorted. */
export function visibleBlacklists(ids: readonly string[]): string[] {
  const ignored = new Set(IGNORED_BLACKLISTS);
  return [...new Set(ids.map((id) => id.trim()).filter((id) => id !== '' && !ignored.has(id)))].sort();
}

/** The friendly name of a list id (the id itself when unknown). */
export function blacklistName(id: string): string {
  return BLACKLIST_NAMES[id] ?? id;
}

/**
 * Rules §9's clean score from the number of lists an address is on: 5 (none), 4 (under 3),
 * 3 (under 7), 2 (under 10), 1 (10 or more).
 */
export function blacklistPoints(listed: number): 1 | 2 | 3 | 4 | 5 {
  if (listed <= 0) return 5;
  if (listed < 3) return 4;
  if (listed < 7) return 3;
  if (listed < 10) return 2;
  return 1;
}

/**
 * The clean score on the shop's 1-10 scale (the stars filter, the Clean column): rules §9's five
 * steps doubled, so a clean address is 10 and one on 10 or more lists is 2.
 */
export function cleanScore(listed: number): number {
  return blacklistPoints(listed) * 2;
}

/** A new speed test of an agent is offered this long after the previous one was asked (rules §9). */
export const SPEED_RETEST_MS = 6 * 60_000;

/** `GET /agents/{id}/speedcheck` query. */
export const ZSpeedCheckQuery = z
  .object({ request: z.enum(['true', 'false']).optional() })
  .strict()
  .transform((q) => ({ request: q.request === 'true' }));

/**
 * A speed check of an agent (rules §3 "Speed check"): `requested` until the agent's gateway node
 * takes it, `checking` while it downloads through the agent, then `done` (`bps` bits per second)
 * or `failed`. `retestAt` is when a new one may be asked.
 */
export const ZSpeedCheck = z.object({
  status: z.enum(['requested', 'checking', 'done', 'failed']),
  bps: z.number().int().nonnegative().nullable(),
  checkTime: z.string().nullable(),
  requestedAt: z.string(),
  retestAt: z.string(),
});
export type TSpeedCheck = z.infer<typeof ZSpeedCheck>;

/** A refused speed check (409 `rejected`): when the next may be asked, and the last one. */
export const ZSpeedCheckErrorBody = ZErrorBody.extend({
  retestAt: z.string().optional(),
  check: ZSpeedCheck.optional(),
});

/** `POST /agents/scorecheck`: the price of one score check and the token that buys it once. */
export const ZScoreCheckQuote = z.object({ priceC: ZCents, oneTimeToken: z.string() });
export type TScoreCheckQuote = z.infer<typeof ZScoreCheckQuote>;

/** `PATCH /agents/scorecheck` body. */
export const ZScoreCheckPurchase = z
  .object({
    agentID: z.string().min(1).max(64),
    expectedPriceC: ZCents,
    oneTimeToken: z.string().min(1).max(128),
  })
  .strict();
export type TScoreCheckPurchase = z.infer<typeof ZScoreCheckPurchase>;

/** The score providers in the order of `score1..3`: G (GetIPIntel), I (IPQualityScore), M (MaxMind minFraud). */
export const SCORE_PROVIDERS = ['G', 'I', 'M'] as const;
export type ScoreProviderLabel = (typeof SCORE_PROVIDERS)[number];

/** Notified with the node id when a speed check is asked of that node's agent. */
export const SPEED_CHECK_REQUESTED_CHANNEL = 'speedcheck_requested';
