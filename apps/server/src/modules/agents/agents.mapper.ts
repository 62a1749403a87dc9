/** Pure mapping from a shop row to the contract's agent (rules §3 "Agent"): masking, newness, prices. */
import { NEW_AGENT_DAYS, type TAgent } from '@pm/contracts';
import { type StoredScoreCheck, toScoreCheck } from '../checks/checks.mapper.ts';
import type { AgentPrices } from '../pricing/pricing.rules.ts';
import type { ShopRow } from './agents.filter.repository.ts';

const DAY_MS = 86_400_000;
/** What replaces a hidden part of an address or host name. */
export const MASK = '___';

/** The instant before which a last sale leaves an agent New (not sold in the last 30 days). */
export function soldSinceCutoff(nowMs: number): Date {
  return new Date(nowMs - NEW_AGENT_DAYS * DAY_MS);
}

/** True when the agent was not sold in the last 30 days. */
export function isNewAgent(lastSoldAt: Date | null, nowMs: number): boolean {
  return lastSoldAt === null || lastSoldAt < soldSinceCutoff(nowMs);
}

/**
 * Hides the part of an address that identifies the exit: an IPv4 address's last octet
 * (`198.51.100.___`), or everything past an IPv6 address's first four groups (its /64).
 */
export function maskIp(ip: string): string {
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(ip)) return `${ip.slice(0, ip.lastIndexOf('.'))}.${MASK}`;
  if (ip.includes(':')) {
    // Expand `::` first, or a short address would keep its interface part (2001:db8::1).
    const [head = '', tail] = ip.split('::');
    const left = head === '' ? [] : head.split(':');
    const right = tail === undefined || tail === '' ? [] : tail.split(':');
    const groups =
      tail === undefined
        ? left
        : [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
    return `${groups.slice(0, 4).join(':')}:${MASK}`;
  }
  return ip === '' ? '' : MASK;
}

/**
 * Hides a reverse-DNS name's first label, which usually spells the address
 * (`dyn-198-51-100-10.isp.example` -> `___.isp.example`), keeping the provider's domain.
 */
export function maskHost(host: string): string {
  const dot = host.indexOf('.');
  if (host === '') return '';
  return dot < 0 ? MASK : `${MASK}${host.slice(dot)}`;
}

/** What the caller's own leases say about a row. */
export interface CallerView {
  /** The caller holds an active lease on it: the address is shown in full. */
  holds: boolean;
  /** The caller holds or held a lease on it. */
  used: boolean;
}

const unit = (x: number) => Math.min(1, Math.max(0, Number.isFinite(x) ? x : 0));

/** The agent as the shop shows it to one caller, priced by the current rules. */
export function toAgent(row: ShopRow, prices: AgentPrices, caller: CallerView, nowMs: number): TAgent {
  const hasSpeed = row.speedBps !== null && row.speedCheckedAt !== null;
  return {
    id: row.id,
    ip: caller.holds ? row.ip : maskIp(row.ip),
    host: caller.holds ? row.host : maskHost(row.host),
    loc: { cc: row.cc, reg: row.reg, city: row.city, zip: row.zip, isp: row.isp, mob: row.mob },
    conn: row.conn,
    dev: row.dev,
    stars: row.stars,
    leases: {
      count: row.activeShared + row.activeExclusive,
      worn: !isNewAgent(row.lastSoldAt, nowMs),
    },
    priceExcC: prices.priceExcC,
    priceShrC: prices.priceShrC,
    firstSeen: row.onlineSince?.toISOString() ?? null,
    actv: unit(row.actv),
    probeActv: unit(row.probeActv),
    used: caller.used,
    online: row.online,
    blacklists: { listIDs: row.blacklistIds },
    scoreCheck: row.scoreCheck ? toScoreCheck(row.scoreCheck as StoredScoreCheck) : null,
    speed: hasSpeed
      ? { bps: Math.max(0, row.speedBps!), checkTime: row.speedCheckedAt!.toISOString() }
      : null,
    age: row.firstSeen?.toISOString() ?? null,
  };
}
