/**
 * How an agent (a proxy) and its numbers are shown, by every screen that shows one: the shop, My
 * Proxies, the static shop, history and the checks (rules §2, 5, 9). Pure, so Node tests it.
 */
import {
  ACTIVITY_MEDIUM,
  ACTIVITY_OK,
  blacklistName,
  MAX_SHARED_LEASES,
  type TAgent,
  type TConn,
  visibleBlacklists,
} from '@pm/contracts';

/** "1 proxy", "15 proxies". */
export const proxyCount = (n: number): string => `${n} ${n === 1 ? 'proxy' : 'proxies'}`;

/** The hidden part of an agent's IP arrives as underscores and is shown as asterisks. */
export const maskIp = (ip: string): string => ip.replaceAll('_', '*');

/** The Shared column: "Private" while nobody leases the agent, else "N of 4". */
export const sharedLabel = (activeLeases: number): string =>
  activeLeases === 0 ? 'Private' : `${activeLeases} of ${MAX_SHARED_LEASES}`;

/** Clean scores are coloured in two bands: 1-5 and 6-10. */
export const cleanBand = (stars: number): 'low' | 'high' => (stars <= 5 ? 'low' : 'high');

/** Activity bands of rules §9: 0.7 or above ok, 0.4 or above medium, else low. */
export function activityBand(actv: number): 'ok' | 'medium' | 'low' {
  if (actv >= ACTIVITY_OK) return 'ok';
  if (actv >= ACTIVITY_MEDIUM) return 'medium';
  return 'low';
}

const ACTIVITY_WORDS = { ok: 'Good', medium: 'Medium', low: 'Low' } as const;

/** "85% (Good)". */
export const activityLabel = (actv: number): string =>
  `${Math.round(actv * 100)}% (${ACTIVITY_WORDS[activityBand(actv)]})`;

export const connLabel = (conn: TConn): string => (conn === 'wifi' ? 'Wifi' : 'Cell');

/** "New" means not sold in the last 30 days (`leases.worn` false). */
export const newLabel = (agent: Pick<TAgent, 'leases'>): 'Yes' | 'No' => (agent.leases.worn ? 'No' : 'Yes');

/** The lease type offered first: shared when the agent already has leases, else private (rules §4). */
export const isPrivateByDefault = (agent: Pick<TAgent, 'leases'>): boolean => agent.leases.count === 0;

/** Private is possible only without active leases; shared only below four. */
export const canBuyPrivate = (agent: Pick<TAgent, 'leases'>): boolean => agent.leases.count === 0;
export const canBuyShared = (agent: Pick<TAgent, 'leases'>): boolean =>
  agent.leases.count < MAX_SHARED_LEASES;

/** The price sent and shown for a lease type. */
export const priceFor = (agent: Pick<TAgent, 'priceExcC' | 'priceShrC'>, isPrivate: boolean): number =>
  isPrivate ? agent.priceExcC : agent.priceShrC;

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

/** A span of time as "3d 4h", "5h 12m" or "12m". */
export function formatSpan(ms: number): string {
  const days = Math.floor(ms / DAY_MS);
  const hours = Math.floor((ms % DAY_MS) / HOUR_MS);
  const minutes = Math.floor((ms % HOUR_MS) / MINUTE_MS);
  if (days > 0) return `${days}d ${hours}h`;
  if (hours > 0) return `${hours}h ${minutes}m`;
  return `${minutes}m`;
}

/** Dates before 2000 are placeholders (a device clock never set): shown as Unknown (rules §5). */
const EARLIEST_KNOWN_MS = Date.UTC(2000, 0, 1);

/** Time since `since` (uptime, age); unknown, future or pre-2000 starts say "Unknown". */
export function formatDuration(since: string | null, nowMs: number): string {
  const start = since === null ? Number.NaN : Date.parse(since);
  if (Number.isNaN(start) || start > nowMs || start < EARLIEST_KNOWN_MS) return 'Unknown';
  return formatSpan(nowMs - start);
}

/** Time left until `until`: "23h 59m", "12m", or "Expired". */
export function formatTimeLeft(until: string, nowMs: number): string {
  const end = Date.parse(until);
  if (Number.isNaN(end)) return 'Unknown';
  return end <= nowMs ? 'Expired' : formatSpan(end - nowMs);
}

/** Speed in Mbps with one decimal (rules §5). */
export const formatMbps = (bps: number): string => `${(bps / 1_000_000).toFixed(1)} Mbps`;

/** Byte counts in decimal units: "0 B", "1.5 kB", "12.3 MB", "2.0 GB". */
export function formatBytes(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  const units = ['kB', 'MB', 'GB', 'TB'];
  let value = bytes / 1000;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}

/** Scores of a score check are shown rounded to 2 decimals (rules §5). */
export const formatScore = (score: number): string => String(Math.round(score * 100) / 100);

/**
 * The blacklists to show (rules §5): empty entries and the two ignored lists dropped, known ids by
 * their friendly names (the catalogue in contracts), each once.
 */
export function blacklistNames(listIds: readonly string[]): string[] {
  return [...new Set(visibleBlacklists(listIds.map((id) => id.trim().toLowerCase())).map(blacklistName))];
}
