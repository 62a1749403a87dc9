/** An agent's location as the shop shows it (rules §3 `loc`), plus coordinates for radius search. */
export interface Loc {
  /** ISO 3166-1 alpha-2 country code. */
  cc: string;
  /** Region (state, province). */
  reg: string;
  city: string;
  zip: string;
  /** ISP (the AS organisation). */
  isp: string;
  /** Mobile carrier network. */
  mob: boolean;
  lat?: number;
  lon?: number;
  /** Reverse-DNS host name, when the source knows it (devnet identities); otherwise looked up. */
  host?: string;
}

/** IP address to location; undefined when unknown. Synchronous: databases are loaded in memory. */
export interface GeoLookup {
  lookup(ip: string): Loc | undefined;
}

/** Looks addresses up in `overrides` first (devnet synthetic identities, tests), then in `fallback`. */
export function createOverrideGeo(
  overrides: ReadonlyMap<string, Loc> | Record<string, Loc>,
  fallback?: GeoLookup,
): GeoLookup {
  const map = overrides instanceof Map ? overrides : new Map(Object.entries(overrides));
  return {
    lookup(ip) {
      const plain = ip.startsWith('::ffff:') && ip.includes('.') ? ip.slice(7) : ip;
      return map.get(plain) ?? fallback?.lookup(plain);
    },
  };
}

/** A lookup that knows nothing (no IP database configured). */
export const noGeo: GeoLookup = { lookup: () => undefined };

// ISP names of mobile carriers, for `mob` when the source has no connection type (a heuristic).
const MOBILE_ISP =
  /wireless|mobile|cellular|t-mobile|vodafone|telefonica|\bo2\b|orange|tele2|airtel|jio|lte|4g|5g/i;

/** Guesses whether an ISP name is a mobile carrier ("Verizon Wireless", "T-Mobile USA"). */
export function isMobileIsp(isp: string): boolean {
  return MOBILE_ISP.test(isp);
}
