/**
 * The pure rules of a package port's exit: targeting in the user name, narrowing the package's
 * place, and the sticky choice among matching agents. Whether an agent matches a place is
 * `exitMatches` of `@pm/contracts` (the SQL `exit_matches` the server uses is its twin).
 */
import { placeKey } from '@pm/contracts';

/** An exit candidate of this node as the package ports see it. */
export interface ExitAgent {
  id: string;
  cc: string;
  reg: string;
  city: string;
  conn: 'wifi' | 'cell';
}

/** A package's targeting. */
export interface PackageGeo {
  country: string;
  state: string;
  city: string;
  connectionType: 'wifi' | 'mobile' | 'both';
}

/** What a login may add after the package's login: `LOGIN-country-us-state-ny-city-new_york-session-abc123`. */
export interface UserTargeting {
  login: string;
  country?: string;
  state?: string;
  city?: string;
  session?: string;
}

/**
 * Reads targeting from a user name (docs/gateway.md, "Targeting in the user name"): the package's
 * login, then `-key-value` pairs (`country`, `state`, `city`, `session`; keys case-insensitive,
 * `_` for a space in a value). Undefined when a key is unknown, repeated or without a value.
 */
export function parseUserTargeting(user: string): UserTargeting | undefined {
  const [login, ...rest] = user.split('-');
  if (!login || rest.length % 2 !== 0) return undefined;
  const out: UserTargeting = { login };
  for (let i = 0; i < rest.length; i += 2) {
    const key = rest[i]!.toLowerCase();
    const value = rest[i + 1]!.replaceAll('_', ' ');
    if (!value || !['country', 'state', 'city', 'session'].includes(key)) return undefined;
    if (out[key as keyof UserTargeting] !== undefined) return undefined;
    out[key as 'country' | 'state' | 'city' | 'session'] = key === 'session' ? rest[i + 1]! : value;
  }
  if (out.session !== undefined && !/^[A-Za-z0-9_]{1,64}$/.test(out.session)) return undefined;
  return out;
}

/**
 * The geo a targeted login asks for, inside its package's (a login may narrow, never widen or
 * leave it): undefined when it contradicts the package. Names compare by `placeKey` (the
 * targeting rule's own comparison), so `newyork` and `new_york` both mean New York.
 */
export function narrowGeo(pkg: PackageGeo, t: UserTargeting): PackageGeo | undefined {
  const same = (a: string, b: string) => placeKey(a) === placeKey(b);
  if (t.country && !same(t.country, pkg.country)) return undefined;
  if (t.state && pkg.state && !same(t.state, pkg.state)) return undefined;
  if (t.city && pkg.city && !same(t.city, pkg.city)) return undefined;
  return { ...pkg, state: pkg.state || t.state || '', city: pkg.city || t.city || '' };
}

/** One port's sticky exit: the agent, when it was chosen and the rotation sequence it was chosen at. */
export interface Sticky {
  agentId: string | undefined;
  chosenAtMs: number;
  seq: number;
}

/**
 * Chooses a port's exit: keeps the sticky agent while it is online, its timer has not run out
 * and no rotation was asked for; otherwise takes another matching online agent (the same one only
 * when it is the only one), at random so the ports of a package spread over the exits.
 */
export function chooseExit(
  sticky: Sticky,
  o: {
    seq: number;
    timerMs: number | null;
    nowMs: number;
    candidates: readonly string[];
    isOnline: (id: string) => boolean;
    random?: () => number;
  },
): string | undefined {
  const keep =
    sticky.agentId !== undefined &&
    sticky.seq === o.seq &&
    (o.timerMs === null || o.nowMs - sticky.chosenAtMs < o.timerMs) &&
    o.candidates.includes(sticky.agentId) &&
    o.isOnline(sticky.agentId);
  if (keep) return sticky.agentId;
  const online = o.candidates.filter((id) => o.isOnline(id));
  const others = online.length > 1 ? online.filter((id) => id !== sticky.agentId) : online;
  const pick = others.length ? others[Math.floor((o.random ?? Math.random)() * others.length)] : undefined;
  sticky.agentId = pick;
  sticky.chosenAtMs = o.nowMs;
  sticky.seq = o.seq;
  return pick;
}
